/**
 * spectralLowerBoundJvp (src/certify/spectralNorm.ts): the JVP power steps behind the whole-space
 * ‖DQ‖ and the local norms of large blocks. Operators are real FdJacobian objects of linear maps
 * x ↦ Ax (central differences of a linear map: exact up to rounding, relative accuracy
 * eps^(2/3)), compared with dense reference computations in the test.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { POWER_SETTLED_RTOL, spectralLowerBoundJvp } from '../../src/certify/spectralNorm.js';
import { svdvals } from '../../src/linalg/api.js';
import { FdJacobian } from '../../src/linearize/finiteDifference.js';
import { createRng } from '../../src/ordergap/rng.js';
import { matvec, randomMatrix, type Mat } from './linearSystems.js';
import { GraphConsolidateJacobian } from '../../src/graph/linearisation/consolidateJacobian.js';
import type { JacobianOperator } from '../../src/system/types.js';
import { init } from '../../src/wasm/module.js';
import { consolidatedState } from '../graph/linearisation/fixtures.js';

/** FD relative accuracy eps^(2/3) on top of the bound: the slack of a computed ratio. */
const FD_SLACK = 1e-9;

function operator(A: Mat): FdJacobian {
  return new FdJacobian((x) => matvec(A, x), new Float64Array(A.length).fill(0.25));
}

const all = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

/** The same power steps on dense A from the same start: all 30 ratios ‖A v_k‖/‖v_k‖. */
function ratios(A: Mat, seed: number): number[] {
  const rng = createRng(seed);
  let v: Float64Array = Float64Array.from({ length: A.length }, () => rng.next() - 0.5);
  const out: number[] = [];
  for (let it = 0; it < 30; it++) {
    const nv = Math.hypot(...v);
    const w = matvec(
      A,
      v.map((x) => x / nv),
    );
    out.push(Math.hypot(...w));
    v = w;
  }
  return out;
}

/**
 * Steps the documented rules take: up to and including the first ratio below the best that is
 * settled (within rtol of the one before) or, with `falls`, that ends two successive falls below
 * the best, the second smaller than the first.
 */
function stepsByRule(r: number[], rtol: number, falls = true): number {
  let best = r[0]!;
  for (let k = 1; k < r.length; k++) {
    const drop = r[k - 1]! - r[k]!;
    const before = k >= 2 && r[k - 1]! < best ? r[k - 2]! - r[k - 1]! : NaN; // best: max of r[0..k-1]
    if (r[k]! < best && (Math.abs(drop) <= rtol * r[k]! || (falls && drop > 0 && drop < before))) return k + 1;
    best = Math.max(best, r[k]!);
  }
  return r.length;
}

describe('spectralLowerBoundJvp', () => {
  fcTest.prop([fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 2, max: 24 })], { numRuns: 25 })(
    'is a lower bound on ‖A‖₂ for any square A',
    (seed, n) => {
      const A = randomMatrix(n, seed);
      const norm2 = svdvals(Float64Array.from(A.flat()), n, n)[0]!;
      const rng = createRng(seed + 1);
      const r = spectralLowerBoundJvp(operator(A), all(n), rng);
      expect(r.norm).toBeGreaterThan(0);
      expect(r.norm).toBeLessThanOrEqual(norm2 * (1 + FD_SLACK));
      expect(r.iterations).toBeLessThanOrEqual(30);
    },
  );

  it('a rising sequence is never cut short: symmetric positive semidefinite A (ratios nondecreasing)', () => {
    const n = 20;
    const X = randomMatrix(n, 7);
    // A = XᵀX / n: the power ratios ‖A v_k‖/‖v_k‖ of a symmetric PSD matrix do not decrease
    const A: Mat = X.map((_, i) => X.map((__, j) => X.reduce((s, r) => s + r[i]! * r[j]!, 0) / n));
    const rng = createRng(8);
    const r = spectralLowerBoundJvp(operator(A), all(n), rng);
    expect(r.norm).toBeCloseTo(Math.max(...ratios(A, 8)), 8);
  });

  it('the graph’s shape [[A, B], [0, I]] with ‖A‖ ~ 1/2: stops once settled below the best, with the 30-step bound', () => {
    const h = 12;
    const A = randomMatrix(h, 3, 0.5 / Math.sqrt(h));
    const B = randomMatrix(h, 4, 0.3);
    const J: Mat = [
      ...A.map((row, i) => [...row, ...B[i]!]),
      ...Array.from({ length: h }, (_, i) => Array.from({ length: 2 * h }, (__, j) => (j === h + i ? 1 : 0))),
    ];
    const rng = createRng(5);
    const r = spectralLowerBoundJvp(operator(J), all(2 * h), rng);
    // the ratios fall towards the identity block's 1 geometrically: the rules stop at the second
    // of two shrinking falls below the best, before the ratios settle to POWER_SETTLED_RTOL, and
    // well before 30 steps
    const seq = ratios(J, 5);
    expect(r.iterations).toBe(stepsByRule(seq, POWER_SETTLED_RTOL));
    expect(r.iterations).toBeLessThan(stepsByRule(seq, POWER_SETTLED_RTOL, false));
    expect(r.iterations).toBeLessThan(stepsByRule(seq, 1e-6, false));
    expect(r.norm).toBeCloseTo(Math.max(...seq), 8);
  });

  it('on every coordinate of an operator with applyDense, the dense steps give the sparse steps’ bound and vector bit for bit', async () => {
    await init();
    const { sys, theta } = await consolidatedState();
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    const W = all(theta.length);
    const r1 = createRng(7);
    const dense = spectralLowerBoundJvp(J, W, r1);
    // the same operator seen without applyDense: the sparse form
    const sparseOnly: JacobianOperator = {
      dim: J.dim,
      outDim: J.outDim,
      method: J.method,
      relativeAccuracy: J.relativeAccuracy,
      stats: J.stats,
      column: (j) => J.column(j),
      prefetch: (c) => J.prefetch(c),
      apply: (v) => J.apply(v),
    };
    const r2 = createRng(7);
    const sparse = spectralLowerBoundJvp(sparseOnly, W, r2);
    expect(dense.norm).toBe(sparse.norm);
    expect(dense.iterations).toBe(sparse.iterations);
    expect(Array.from(dense.vector)).toEqual(Array.from(sparse.vector));
    expect(dense.norm).toBeGreaterThanOrEqual(1); // Q copies the edge block: ‖DQ‖ >= 1
  });
});
