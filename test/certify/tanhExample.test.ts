import { fileURLToPath } from 'node:url';
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { encloseForm } from '../../src/interval/intervalTf.js';
import { svdvals } from '../../src/linalg/index.js';
import { loadTf } from '../../src/linearize/autodiff.js';
import { createRng } from '../../src/ordergap/rng.js';
import { resolveSystem } from '../../src/report/systems.js';
import type { OperatorSystem, Tf } from '../../src/system/types.js';
import { exactDecimal } from '../util/exactDecimal.js';
import { f64FixedPoint, tanhFixedPoint } from '../util/highPrecisionFixedPoint.js';
import { tanhSystem as spec, tanhWeights as weights } from '../../examples/systems/tanh.mjs';

const file = fileURLToPath(new URL('../../examples/systems/tanh.mjs', import.meta.url));
const n = 64;
const p = 4;

let system: OperatorSystem;
let tf: Tf;
beforeAll(async () => {
  // the resolver of `ordergap run|certify --system FILE`
  const resolved = await resolveSystem({ system: file });
  expect(resolved.origin).toBe('module');
  system = resolved.system;
  tf = (await loadTf()).tf;
});

describe('examples/systems/tanh.mjs', () => {
  it('loads as an operator module: θ = (x ∈ R⁶⁴, y ∈ R⁴), subspaces x, y, all, tfjs forms', () => {
    expect(system.dim).toBe(n + p);
    expect(system.name).toBe(spec().name);
    expect(Object.keys(system.subspaces)).toEqual(['x', 'y', 'all']);
    expect(system.evidenceAt(system.theta0!).map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(system.capabilities.linearization?.consolidateTf).toBeTypeOf('function');
    expect(system.capabilities.linearization?.expandTf).toBeTypeOf('function');
    expect(() => spec({ n: 0 })).toThrow(/^n = 0: must be an integer >= 1/);
  });

  it('scales W to the spectral norm asked (against the SVD, to its documented accuracy)', () => {
    for (const norm of [0.8, 0.5]) {
      const { W } = weights({ norm });
      // ‖W‖₂ = norm·‖W₀‖₂/σ̂, σ̂ within ~1e-15 of ‖W₀‖₂; svdvals is accurate to 8·m·eps·σ_max
      // (docs/linalg.md), the larger error here
      const sigma = svdvals(W, n, n)[0]!;
      expect(Math.abs(sigma - norm)).toBeLessThanOrEqual(8 * n * Number.EPSILON * norm + 1e-15 * norm);
    }
  });

  it('its tfjs forms agree with consolidate and expand within float32 accuracy', () => {
    const lin = system.capabilities.linearization!;
    const { W, b } = weights();
    const rng = createRng(3);
    const rows = 5;
    const states = Array.from({ length: rows }, () => Float64Array.from({ length: n + p }, () => 2 * rng.next() - 1));
    const X = tf.tensor2d(
      states.flatMap((s) => Array.from(s)),
      [rows, n + p],
    );
    const u = 2 ** -24; // float32 unit roundoff
    const check = (
      out: { dataSync(): ArrayLike<number>; dispose(): void },
      f: (t: Float64Array) => Float64Array,
      bound: (r: number, i: number) => number,
    ) => {
      const got = out.dataSync();
      states.forEach((s, r) => {
        const want = f(s);
        for (let i = 0; i < n + p; i++)
          expect(Math.abs(got[r * (n + p) + i]! - want[i]!), `row ${r}, ${i}`).toBeLessThanOrEqual(bound(r, i));
      });
      out.dispose();
    };
    // tanh(W x + b): W, x, b rounded to float32 and a sum of n + 1 terms in float32 in any order
    // (γ_{n+3} of Σ|terms|), then tanh with slope <= 1 plus float32 tanh's few ulps (4u); y copied
    check(
      lin.consolidateTf!(tf, X),
      (t) => system.consolidate(t),
      (r, i) => {
        if (i >= n) return u;
        let s = Math.abs(b[i]!);
        for (let j = 0; j < n; j++) s += Math.abs(W[i * n + j]! * states[r]![j]!);
        return (n + 3) * u * s + 4 * u;
      },
    );
    // y_e + a(t − y) of numbers <= 1: a few float32 roundings (8u); the rest copied (u)
    for (let e = 0; e < p; e++)
      check(
        lin.expandTf!(tf, `e${e}`, X),
        (t) => system.expand(`e${e}`, t),
        () => 8 * u,
      );
    X.dispose();
  });

  it('its tfjs form of Q has an interval evaluation (encloseForm) that encloses Q over a box', () => {
    const theta = f64FixedPoint((t) => system.consolidate(t), system.theta0!);
    const lo = theta.map((v) => v - 1e-3);
    const hi = theta.map((v) => v + 1e-3);
    const r = encloseForm(system.capabilities.linearization!.consolidateTf!, lo, hi, { seeds: [0, n] });
    // Q at the box's centre and corners of the first two coordinates (f64, ~1e-16 from the reals;
    // the enclosure is ~1e-3 wide)
    for (const s of [0, 1, -1]) {
      const q = system.consolidate(theta.map((v) => v + s * 1e-3));
      for (let i = 0; i < n + p; i++) expect(r.lo[i]! <= q[i]! && q[i]! <= r.hi[i]!, `Q_${i}`).toBe(true);
    }
    // ∂Q_x/∂y = 0 exactly (the tangent along y never reaches x), ∂Q_y/∂y = I
    const J = r.jacobian!;
    for (let i = 0; i < n; i++) expect([J.lo[i * 2 + 1], J.hi[i * 2 + 1]]).toEqual([0, 0]);
    expect([J.lo[n * 2 + 1], J.hi[n * 2 + 1]]).toEqual([1, 1]);
  });

  it('its fixed point agrees with a 50-digit Newton solution of x = tanh(W x + b) to 1e-14', () => {
    const { W, b } = weights();
    const exact = tanhFixedPoint(W, b, n, { digits: 50 });
    const theta = f64FixedPoint((t) => system.consolidate(t), system.theta0!);
    // the f64 iteration ends where one evaluation's rounding, a sum of n = 64 products and a tanh
    // (about √n·2⁻⁵³ ≈ 1e-15 of the pre-activation; 65·2⁻⁵³·Σ|W_ij x_j| ≈ 7e-15 at worst), balances
    // the contraction: its error is that divided by 1 − ‖W‖₂ = 0.2, 1e-14 for the typical size
    for (let i = 0; i < n; i++)
      expect(Math.abs(exact[i]!.sub(theta[i]!).toNumber()), `x${i}`).toBeLessThanOrEqual(1e-14);
    // and the 50-digit solution is a fixed point: residual below 1e-48 in 60-digit arithmetic
    const D = Decimal.clone({ precision: 60 });
    for (let i = 0; i < n; i++) {
      let z = exactDecimal(b[i]!, D);
      for (let j = 0; j < n; j++) z = z.add(exactDecimal(W[i * n + j]!, D).mul(exact[j]!));
      expect(exact[i]!.sub(z.tanh()).abs().lte('1e-48')).toBe(true);
    }
  });
});
