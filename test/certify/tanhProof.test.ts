/**
 * The contraction proof on a nonlinear block: x ↦ tanh(W x + b) of examples/systems/tanh.mjs
 * (n = 64), proved by enclosure of the module's own tfjs form, its fixed point enclosed and held
 * against a 50-digit solve, and an expanding layer refuted; the certificate re-checked by the
 * CLI's check-proof.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystemSpec } from '../../src/system/types.js';
import { runCli } from '../util/builtCli.js';
import { exactDecimal } from '../util/exactDecimal.js';
import { tanhFixedPoint } from '../util/highPrecisionFixedPoint.js';
import { tanhSystem, tanhWeights } from '../../examples/systems/tanh.mjs';

const spec = tanhSystem as (o?: Record<string, unknown>) => OperatorSystemSpec;
const weights = tanhWeights as (o?: Record<string, unknown>) => { W: Float64Array; b: Float64Array };
const file = fileURLToPath(new URL('../../examples/systems/tanh.mjs', import.meta.url));
const n = 64;
const only = (block: string) => ({ contractionSubspaces: [block], subspaces: [], questions: [], crossCheckColumns: 0 });

describe('tanh(W x + b) on a block of 64 coordinates', () => {
  it('‖W‖₂ = 0.8: proved with upperBound < 0.85, the fixed point enclosed to < 1e-8 around the 50-digit solution', async () => {
    const r = await certify(defineSystem(spec({ n, norm: 0.8 })), only('x'));
    const x = r.contraction.find((c) => c.subspace === 'x')!;
    expect(x.verdict).toBe('proved');
    // the bound holds over the whole box; at the fixed point ‖diag(1 − tanh²) W‖₂ <= 0.8
    expect(x.upperBound!).toBeLessThan(0.85);
    // the search's pairs on the proved box cannot beat it (the search box is larger: no assertion there)
    expect(x.localNorm).toBeLessThanOrEqual(x.upperBound!);
    expect(x.proofStatement).toMatch(/other 4 coordinates held/);
    const { W, b } = weights({ n, norm: 0.8 });
    const star = tanhFixedPoint(W, b, n, { digits: 50 });
    const e = x.fixedPointEnclosure!;
    let width = 0;
    for (let k = 0; k < n; k++) {
      width = Math.max(width, e.hi[k]! - e.lo[k]!);
      // exact comparison in decimal: the true fixed point lies in the enclosure
      expect(exactDecimal(e.lo[k]!).lte(star[k]!)).toBe(true);
      expect(exactDecimal(e.hi[k]!).gte(star[k]!)).toBe(true);
    }
    expect(width).toBeLessThan(1e-8);
    expect(width).toBeGreaterThan(0);
  });

  it('‖W‖₂ = 1.3, b = 0: refuted (the pair the search finds expands), no proof attempted', async () => {
    const r = await certify(defineSystem(spec({ n, norm: 1.3, bias: false })), only('x'));
    const x = r.contraction.find((c) => c.subspace === 'x')!;
    expect(x.verdict).toBe('refuted');
    expect(x.lowerBound).toBeGreaterThanOrEqual(1 - x.worstPair!.slack);
    expect(x.upperBound).toBeNull();
    expect(x.proof).toBeNull();
  });
});

describe('certify --proof and check-proof (built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-proof-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the certificate of the proved block; check-proof re-checks it (exit 0), and rejects a lowered bound (exit 1)', () => {
    const out = join(dir, 'proof.json');
    const c = runCli('certify', '--system', file, '--subspace', 'x', '--proof', out, '--json', '--no-timings');
    expect(c.status).toBe(0);
    const doc = JSON.parse(c.stdout);
    const x = doc.contraction.find((b: { subspace: string }) => b.subspace === 'x');
    expect(x.verdict).toBe('proved');
    const cert = JSON.parse(readFileSync(out, 'utf8'));
    expect(cert.format).toBe('ordergap-proof');
    expect(cert.contraction.map((b: { subspace: string }) => b.subspace)).toEqual(['x']);
    expect(cert.contraction[0].upperBound).toBe(x.upperBound);
    const ok = runCli('check-proof', out, '--system', file);
    expect(ok.stdout).toMatch(/contraction on 'x': VALID/);
    expect(ok.status).toBe(0);
    cert.contraction[0].upperBound = x.upperBound * 0.99;
    const bad = join(dir, 'lowered.json');
    writeFileSync(bad, JSON.stringify(cert));
    const rejected = runCli('check-proof', bad, '--system', file);
    expect(rejected.status).toBe(1);
    expect(rejected.stdout).toMatch(/REJECTED/);
  });

  it('a bad certificate path is one line naming it, exit 2; --proof to a missing folder is refused before any work', () => {
    const r = runCli('check-proof', join(dir, 'nope.json'), '--system', file);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const w = runCli('certify', '--system', file, '--proof', join(dir, 'no', 'such', 'p.json'));
    expect(w.status).toBe(2);
    expect(w.stdout).toBe('');
    expect(w.stderr).toMatch(/--proof/);
  });
});
