/**
 * The non-degeneracy verdicts in the proof certificate (src/certify/certificate.ts) and their
 * re-check by the independent checker (src/proofCheck/checkProof.ts), on the example module
 * examples/systems/linear.mjs: 'structure' is non-degenerate with λ_min(G_structure) = 0.0015
 * (test/certify/nondegeneracyProof.test.ts derives it), 'beliefs' is degenerate with an exact
 * kernel (P_e writes only structure), and X* comes from the proved contraction of 'beliefs'.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { proofCertificate } from '../../src/certify/certificate.js';
import type { NonDegeneracyCertificate } from '../../src/certify/proofStore.js';
import { checkProof } from '../../src/proofCheck/checkProof.js';
import { renderProofCheck } from '../../src/report/proof.js';
import { resolveSystem } from '../../src/report/systems.js';
import { init } from '../../src/wasm/module.js';

await init();
const { system } = await resolveSystem({
  system: fileURLToPath(new URL('../../examples/systems/linear.mjs', import.meta.url)),
});
const report = await certify(system, { samples: 8, crossCheckColumns: 0 });
const cert = proofCertificate(system, report)!;
const LAMBDA_MIN = (1 / 3) * (0.3 * 0.2) ** 2 * 1.25; // 0.0015

/** An entry as JSON, open to tampering. */
type Entry = Omit<NonDegeneracyCertificate, 'claim'> & { claim: { bound?: number; coordinates?: number[] } };

/** A copy of the certificate with the entry for `subspace` changed by f, checked. */
function tampered(subspace: string, f: (entry: Entry) => void) {
  const c = JSON.parse(JSON.stringify(cert));
  f(c.nonDegeneracy.find((e: { subspace: string }) => e.subspace === subspace));
  const check = checkProof(c, system);
  return { check, entry: check.nonDegeneracy.find((e) => e.subspace === subspace)! };
}

describe('non-degeneracy verdicts in the certificate', () => {
  it('lists structure (λ_min bound) and beliefs (exact kernel) over the enclosure from the beliefs block', () => {
    expect(cert.version).toBe(1);
    const byName = Object.fromEntries(cert.nonDegeneracy.map((e) => [e.subspace, e]));
    expect(Object.keys(byName).sort()).toEqual(['beliefs', 'structure']);
    const s = byName['structure']!;
    expect(s.claim.kind).toBe('lambdaMin');
    const bound = (s.claim as { bound: number }).bound;
    expect(bound).toBeGreaterThan(0);
    expect(bound).toBeLessThan(LAMBDA_MIN);
    expect(s.coordinates).toEqual([3, 4, 5]);
    expect(byName['beliefs']!.claim).toEqual({ kind: 'exactKernel', coordinates: [0, 1, 2] });
    const block = cert.contraction.find((b) => b.subspace === s.block)!;
    expect(block).toBeDefined();
    expect(s.items.map((it) => it.id)).toEqual(['e0', 'e1', 'e2']);
    expect(s.enclosure.lo).toHaveLength(6);
  });

  it('the checker accepts the certificate after a JSON round trip, and prints the entries', () => {
    const check = checkProof(JSON.parse(JSON.stringify(cert)), system);
    expect(check.failures).toEqual([]);
    expect(check.nonDegeneracy.map((v) => [v.subspace, v.valid, v.failures])).toEqual(
      cert.nonDegeneracy.map((e) => [e.subspace, true, []]),
    );
    expect(check.valid).toBe(true);
    expect(renderProofCheck(check)).toMatch(/non-degeneracy on 'structure': VALID/);
  });

  it('rejects a λ_min bound above the true λ_min (0.0015)', () => {
    const { check, entry } = tampered('structure', (e) => (e.claim.bound = LAMBDA_MIN * 1.01));
    expect(check.valid).toBe(false);
    expect(entry.valid).toBe(false);
    expect(entry.failures.join('\n')).toMatch(/λ_min\(G_W\) > .* is not shown/);
    expect(renderProofCheck(check)).toMatch(/non-degeneracy on 'structure': REJECTED/);
  });

  it('rejects an exact kernel claimed on a structure coordinate', () => {
    const { check, entry } = tampered(
      'structure',
      (e) => (e.claim = { kind: 'exactKernel', coordinates: [5] } as Entry['claim']),
    );
    expect(check.valid).toBe(false);
    expect(entry.failures.join('\n')).toMatch(/coordinate\(s\) 5 are not exactly 0/);
    // the same claim on the beliefs' own coordinates holds, on a structure coordinate it does not
    const beliefs = tampered('beliefs', (e) => {
      e.coordinates = [0, 1, 2, 3];
      e.claim.coordinates = [0, 3];
    });
    expect(beliefs.entry.failures.join('\n')).toMatch(/coordinate\(s\) 3 are not exactly 0/);
  });

  it("rejects an X* that does not contain the contraction block's fixed-point enclosure, or moves θ̂ off it", () => {
    const block = cert.contraction[0]!;
    const j = block.coordinates[0]!;
    const narrowed = tampered('structure', (e) => (e.enclosure.lo[j] = block.fixedPointEnclosure.hi[0]!));
    expect(narrowed.check.valid).toBe(false);
    expect(narrowed.entry.failures.join('\n')).toMatch(/does not contain the fixed-point enclosure/);
    const moved = tampered('structure', (e) => (e.enclosure.hi[3] = e.enclosure.hi[3]! + 0.01));
    expect(moved.entry.failures.join('\n')).toMatch(/X\* is not θ̂ off the block/);
    const missing = tampered('beliefs', (e) => (e.block = 'nowhere'));
    expect(missing.entry.failures.join('\n')).toMatch(/'nowhere' is not in the certificate/);
  });

  it('a claim that proves nothing is malformed: a negative λ_min bound, an exact kernel listing a coordinate twice', () => {
    // G_beliefs = 0: λ_min > −1e-300 holds for every Gramian and proves no non-degeneracy
    const negative = tampered('beliefs', (e) => (e.claim = { kind: 'lambdaMin', bound: -1e-300 } as Entry['claim']));
    expect(negative.check.valid).toBe(false);
    expect(negative.entry.valid).toBe(false);
    const twice = tampered('beliefs', (e) => (e.claim.coordinates = [0, 0, 1, 2]));
    expect(twice.entry.valid).toBe(false);
  });

  it('a tampered contraction block is rejected with reasons, never an exception: radius 0, a permuted block, an unbounded box', () => {
    const block = (f: (b: Record<string, unknown> & { coordinates: number[]; box: { lo: number[] } }) => void) => {
      const c = JSON.parse(JSON.stringify(cert));
      f(c.contraction[0]);
      return checkProof(c, system);
    };
    // the narrowing from a ball of radius 0 around θ̂ can empty the box: a failure, not a throw
    const r0 = block((b) => (b['ballRadius'] = 0));
    expect(r0.valid).toBe(false);
    expect(r0.blocks[0]!.failures.join('\n')).toMatch(/ball radius recomputed/);
    const perm = block((b) => (b.coordinates = [b.coordinates[1]!, b.coordinates[0]!, ...b.coordinates.slice(2)]));
    expect(perm.valid).toBe(false);
    // JSON's 1e999 is −∞ after parsing: no box
    const inf = block((b) => (b.box.lo[0] = -Infinity));
    expect(inf.valid).toBe(false);
    expect(inf.blocks[0]!.failures.join('\n')).toMatch(/malformed box/);
    // a bisection 2100 splits deep, each split inside its box (towards 0, axes in turn): rejected
    // at the depth cap, not an overflow of the check's recursion
    const deep = block((b) => {
      const m = b.coordinates.length;
      const cur = { lo: Array<number>(m).fill(-1), hi: Array<number>(m).fill(1) };
      b.box = { lo: [...cur.lo], hi: [...cur.hi] } as typeof b.box;
      const splits: Array<{ axis: number; at: number; left: boolean }> = [];
      for (let k = 0; k < 2100; k++) {
        const axis = k % m;
        const at = (cur.lo[axis]! + cur.hi[axis]!) / 2;
        const left = at > 0; // keep the half that holds 0
        splits.push({ axis, at, left });
        if (left) cur.hi[axis] = at;
        else cur.lo[axis] = at;
      }
      let node: unknown = { leaf: null };
      for (const { axis, at, left } of splits.reverse())
        node = { axis, at, children: left ? [node, null] : [null, node] };
      b['tree'] = node;
    });
    expect(deep.valid).toBe(false);
    expect(deep.blocks[0]!.failures.join('\n')).toMatch(/the tree is deeper than 2000 splits/);
  });

  it('rejects weights that are not P(·|θ̂)', () => {
    const { entry } = tampered('structure', (e) => e.items.forEach((it) => (it.p *= 2)));
    expect(entry.failures.join('\n')).toMatch(/the items are not P\(·\|θ̂\)/);
  });
});
