/**
 * Proofs of contraction by enclosure (src/certify/contractionProof.ts) through `certify`: the
 * verdicts proved / refuted / undecided, the bound, the box and the fixed point's enclosure,
 * bisection, and the certificate with its independent checker (src/proofCheck/checkProof.ts).
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { proofCertificate, type CertificateBlock, type ProofCertificate } from '../../src/certify/certificate.js';
import { proveContraction, type Encloser, type ProofLeaf } from '../../src/certify/contractionProof.js';
import { R, add, mul, scale, sub } from '../../src/interval/arith.js';
import { checkProof } from '../../src/proofCheck/checkProof.js';
import { defineSystem } from '../../src/system/define.js';
import type { FormEnclosure, OperatorSystemSpec } from '../../src/system/types.js';

/** An interval form of the diagonal linear map θ ↦ a·θ: exact Jacobian a·I. */
function diagonalForm(d: number, a: number) {
  return {
    consolidate(lo: Float64Array, hi: Float64Array, seeds: Int32Array | null, rows: Int32Array | null): FormEnclosure {
      const oL = new Float64Array(d);
      const oH = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        scale(lo[i]!, hi[i]!, a);
        oL[i] = R.lo;
        oH[i] = R.hi;
      }
      if (!seeds) return { lo: oL, hi: oH, jacobian: null };
      const rr = rows ?? Int32Array.from({ length: d }, (_, i) => i);
      const jL = new Float64Array(rr.length * seeds.length);
      const jH = new Float64Array(rr.length * seeds.length);
      rr.forEach((r, k) =>
        seeds.forEach((s, j) => {
          jL[k * seeds.length + j] = r === s ? a : 0;
          jH[k * seeds.length + j] = r === s ? a : 0;
        }),
      );
      return { lo: oL, hi: oH, jacobian: { lo: jL, hi: jH, rows: rr.length, cols: seeds.length } };
    },
  };
}

function system(
  name: string,
  d: number,
  consolidate: OperatorSystemSpec['consolidate'],
  extra: Partial<OperatorSystemSpec> = {},
) {
  return defineSystem({
    name,
    dim: d,
    theta0: Array.from({ length: d }, (_, i) => 0.1 * (i + 1)),
    consolidate,
    expand: (_e, t) => t,
    evidence: [{ id: 'e', p: 1 }],
    ...extra,
  });
}

const cheap = { subspaces: [], questions: [], samples: 8, crossCheckColumns: 0 } as const;

describe('contraction proved by enclosure', () => {
  it('Q = 0.5·I with no declared bound is proved, upperBound <= 0.5·(1 + 1e-12), through an interval form', async () => {
    const sys = system('half', 4, (t) => t.map((x) => 0.5 * x), { intervalForm: diagonalForm(4, 0.5) });
    const r = await certify(sys, cheap);
    const all = r.contraction[0]!;
    expect(all.verdict).toBe('proved');
    expect(all.upperBound!).toBeGreaterThanOrEqual(0.5);
    expect(all.upperBound!).toBeLessThanOrEqual(0.5 * (1 + 1e-12));
    // the fixed point 0 lies in the enclosure, which lies in the box
    const e = all.fixedPointEnclosure!;
    for (let k = 0; k < 4; k++) {
      expect(e.lo[k]!).toBeLessThanOrEqual(0);
      expect(e.hi[k]!).toBeGreaterThanOrEqual(0);
      expect(e.lo[k]!).toBeGreaterThanOrEqual(all.box!.lo[k]!);
    }
    expect(r.uniqueness.established).toBe(true);
  });

  it('the same map through its tfjs form (evaluated in interval arithmetic) is proved with the same bound', async () => {
    const sys = system('half-tf', 4, (t) => t.map((x) => 0.5 * x), {
      linearization: {
        consolidateTf: ((tf: { mul: (a: unknown, b: number) => unknown }, X: unknown) => tf.mul(X, 0.5)) as never,
      },
    });
    const r = await certify(sys, cheap);
    expect(r.contraction[0]!.verdict).toBe('proved');
    expect(r.contraction[0]!.upperBound!).toBeLessThanOrEqual(0.5 * (1 + 1e-12));
  });

  it('Q = 1.1·I is refuted by the search (a pair with ratio 1.1), not proved', async () => {
    const sys = system('expanding', 2, (t) => t.map((x) => 1.1 * x), { intervalForm: diagonalForm(2, 1.1) });
    const r = await certify(sys, { ...cheap, fixedPoint: { maxIterations: 5 } });
    expect(r.contraction[0]!.verdict).toBe('refuted');
    expect(r.contraction[0]!.upperBound).toBeNull();
  });

  it('a system without interval or tfjs form is undecided (a declared bound is not a proof) and says why', async () => {
    const sys = system('declared', 2, (t) => t.map((x) => 0.5 * x), { lipschitz: { all: { bound: 0.5 } } });
    const r = await certify(sys, cheap);
    expect(r.contraction[0]!.verdict).toBe('undecided');
    expect(r.contraction[0]!.notes.join('\n')).toMatch(/neither an interval form nor a tfjs form/);
    expect(r.contraction[0]!.notes.join('\n')).toMatch(/declared analytic bound 0\.5 is not a proof/);
  });

  it('bisects a box whose Jacobian enclosure is too wide (the dependency problem) and proves it on the quarters', () => {
    // g(x) = 0.4·x² on B = [−1, 1] (fixed point 0), g'(x) = 0.8·x. The derivative over a box
    // [a, b] is enclosed as [a, b] − 0.2·[a, b], wider than 0.8·[a, b] (the dependency problem):
    // over B it is [−1.2, 1.2] (bound >= 1), over each half [−0.2, 1] (bound 1, still not < 1),
    // over the quarters at most [0.3, 0.9]: proved with L < 1 after two levels of bisection.
    // Values: 0.4·x² over a box holding 0 lies in [0, 0.4·max(a², b²)], widened outward.
    const enclose: Encloser = (lo, hi, seeds) => {
      const top = 0.4 * Math.max(lo[0]! * lo[0]!, hi[0]! * hi[0]!) * (1 + 1e-15);
      const value = { lo: Float64Array.of(-1e-300), hi: Float64Array.of(top) };
      if (!seeds) return { ...value, jacobian: null };
      mul(lo[0]!, hi[0]!, 0.2, 0.2);
      sub(lo[0]!, hi[0]!, R.lo, R.hi);
      return { ...value, jacobian: { lo: Float64Array.of(R.lo), hi: Float64Array.of(R.hi), rows: 1, cols: 1 } };
    };
    const p = proveContraction(enclose, Float64Array.of(0), Int32Array.of(0), { box: { lower: [-1], upper: [1] } });
    expect(p.verdict).toBe('proved');
    expect(p.certificate!.tree).toHaveProperty('children');
    expect(p.upperBound!).toBeLessThan(1);
    expect(p.upperBound!).toBeGreaterThan(0.8); // the quarters next to ±1: [0.5, 1] − [0.1, 0.2] ∋ 0.9
    // with a budget of one enclosure the same box stays undecided, and says why (minRadius above
    // radius: no smaller boxes are tried after the given one)
    const q = proveContraction(enclose, Float64Array.of(0), Int32Array.of(0), {
      box: { lower: [-1], upper: [1] },
      budgetPerBox: 1,
      minRadius: 1,
    });
    expect(q.verdict).toBe('undecided');
    expect(q.attempts[0]!.outcome).toMatch(/>= 1 on a box|budget/);
  });
});

describe('the certificate and its independent checker', () => {
  async function proved() {
    const sys = system('half-cert', 3, (t) => t.map((x) => 0.5 * x + 0.1), {
      intervalForm: {
        consolidate(lo: Float64Array, hi: Float64Array, seeds: Int32Array | null, rows: Int32Array | null) {
          const e = diagonalForm(3, 0.5).consolidate(lo, hi, seeds, rows);
          const oL = e.lo.map((x) => x);
          const oH = e.hi.map((x) => x);
          for (let i = 0; i < 3; i++) {
            add(oL[i]!, oH[i]!, 0.1, 0.1); // outward-rounded + 0.1
            oL[i] = R.lo;
            oH[i] = R.hi;
          }
          return { ...e, lo: oL, hi: oH };
        },
      },
    });
    const r = await certify(sys, cheap);
    return { sys, r, cert: proofCertificate(sys, r)! };
  }

  it('a proved report gives a certificate the checker accepts; the JSON round trip keeps it valid', async () => {
    const { sys, r, cert } = await proved();
    expect(r.contraction[0]!.verdict).toBe('proved');
    const round = JSON.parse(JSON.stringify(cert));
    const check = checkProof(round, sys);
    expect(check.failures).toEqual([]);
    expect(check.blocks.map((b) => [b.subspace, b.valid])).toEqual([['all', true]]);
    expect(cert.nonDegeneracy).toEqual([]); // no subspace decided (and an interval form is not recorded)
    expect(check.nonDegeneracy).toEqual([]);
    expect(check.valid).toBe(true);
    expect(cert.contraction[0]!.upperBound).toBe(r.contraction[0]!.upperBound);
  });

  it('rejects a lowered upperBound, a narrowed image, a narrowed Jacobian enclosure, a narrowed fixed-point enclosure', async () => {
    const { sys, cert } = await proved();
    const tamper = (f: (c: CertificateBlock) => void) => {
      const c = JSON.parse(JSON.stringify(cert)) as ProofCertificate;
      f(c.contraction[0]!);
      return checkProof(c, sys);
    };
    const leaf = (b: CertificateBlock): ProofLeaf => {
      const node = 'leaf' in b.tree ? b.tree : b.tree.children[0];
      if (!('leaf' in node)) throw new Error('the first split has a split below it');
      return node.leaf;
    };
    const lowered = tamper((b) => (b['upperBound'] = b['upperBound'] * 0.9));
    expect(lowered.valid).toBe(false);
    expect(lowered.blocks[0]!.failures.join('\n')).toMatch(/exceeds upperBound/);
    const residual = tamper((b) => (b.residualImage.hi[0] = b.residualImage.lo[0]!));
    expect(residual.valid).toBe(false);
    expect(residual.blocks[0]!.failures.join('\n')).toMatch(/enclosure of g\(θ̂\) does not contain/);
    const radius = tamper((b) => (b['ballRadius'] = 0));
    expect(radius.valid).toBe(false);
    expect(radius.blocks[0]!.failures.join('\n')).toMatch(/ball radius recomputed/);
    // this map's Jacobian enclosure is the point 0.5·I: moved to 0.25 it no longer contains it
    const jac = tamper((b) => {
      leaf(b).jacobian.lo[0] = 0.25;
      leaf(b).jacobian.hi[0] = 0.25;
    });
    expect(jac.valid).toBe(false);
    expect(jac.blocks[0]!.failures.join('\n')).toMatch(/Jacobian enclosure does not contain/);
    const fp = tamper((b) => {
      const e = b.fixedPointEnclosure;
      e.lo[0] = e.hi[0]!;
    });
    expect(fp.valid).toBe(false);
    expect(fp.blocks[0]!.failures.join('\n')).toMatch(/fixed-point enclosure does not contain/);
    const leafBound = tamper((b) => (leaf(b).bound = 0.25));
    expect(leafBound.valid).toBe(false);
    expect(leafBound.blocks[0]!.failures.join('\n')).toMatch(/recomputed, .* exceeds the claimed 0\.25/);
    const inverted = tamper((b) => (leaf(b).jacobian.lo[0] = 1));
    expect(inverted.valid).toBe(false);
    expect(inverted.blocks[0]!.failures.join('\n')).toMatch(/malformed leaf/);
  });

  it('rejects a certificate for another system, a malformed one, and refuses a non-object', async () => {
    const { cert } = await proved();
    const other = system('other', 3, (t) => t, { intervalForm: diagonalForm(3, 1) });
    expect(checkProof(cert, other).valid).toBe(false);
    expect(checkProof(cert, other).failures[0]).toMatch(/for half-cert/);
    expect(checkProof({ format: 'x' }, other).valid).toBe(false);
    expect(() => checkProof('nope', other)).toThrow(/certificate/);
  });
});
