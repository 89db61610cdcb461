import { beforeAll, describe, expect, it } from 'vitest';
import type * as TfCore from '@tensorflow/tfjs-core';
import { AUTODIFF_F32_RELATIVE_ACCURACY } from '../../src/linearize/operator.js';
import { FdJacobian } from '../../src/linearize/finiteDifference.js';
import { TfJacobian, jacobianByVjp, loadTf, vjpBatch } from '../../src/linearize/autodiff.js';
import { crossCheckJacobians } from '../../src/linearize/crossCheck.js';
import { sparseFromDense, toDense } from '../../src/linearize/sparse.js';
import type { Tf } from '../../src/system/types.js';
import { createRng } from '../../src/ordergap/rng.js';

let tf: Tf;
let backend: string;
beforeAll(async () => {
  const rt = await loadTf();
  tf = rt.tf;
  backend = rt.backend;
});

/** f(x) = tanh(W x) with a seeded W (n = 6), in f64 and as a tfjs batch map. */
const n = 6;
const rng = createRng(7);
const W = Array.from({ length: n * n }, () => rng.next() - 0.5);
const fF64 = (x: Float64Array): Float64Array => {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += W[i * n + j]! * x[j]!;
    y[i] = Math.tanh(s);
  }
  return y;
};
const fTf = (t: Tf, X: TfCore.Tensor2D): TfCore.Tensor2D =>
  t.tanh(t.matMul(X, t.tensor2d(W, [n, n]), false, true)) as TfCore.Tensor2D;
const x0 = Float64Array.from({ length: n }, (_, i) => 0.3 * Math.sin(i + 1));
const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe('tfjs autodiff Jacobians', () => {
  it('loads a backend without tfjs-node (wasm expected) and reports the attempts', async () => {
    const rt = await loadTf();
    expect(['tensorflow', 'wasm', 'cpu']).toContain(backend);
    expect(rt.attempts.length).toBeGreaterThan(0);
  });

  it('satisfies the adjoint identity <u, Jv> = <Jᵀu, v> (float32 tolerance)', () => {
    const J = new TfJacobian(tf, fTf, x0, n, { columnThreshold: 0 });
    for (let trial = 0; trial < 5; trial++) {
      const u = Float64Array.from({ length: n }, () => rng.next() - 0.5);
      const v = Float64Array.from({ length: n }, () => rng.next() - 0.5);
      const Jv = toDense(J.apply(sparseFromDense(v)));
      const JTu = J.transposeApply(u);
      // |⟨u,Jv⟩ − ⟨Jᵀu,v⟩| <= 2·r·n·‖u‖∞‖v‖∞·max|J_ij|, max|J_ij| <= max|W_ij| <= 0.5:
      // each side is a sum of n² products computed in float32 with relative accuracy r.
      expect(Math.abs(dot(u, Jv) - dot(JTu, v))).toBeLessThanOrEqual(2 * AUTODIFF_F32_RELATIVE_ACCURACY * n * n * 0.5);
    }
  });

  it('full Jacobian by batched VJPs equals the double-VJP columns and central differences', () => {
    const Jv = jacobianByVjp(tf, fTf, x0, n, 4); // two chunks
    const ad = new TfJacobian(tf, fTf, x0, n);
    const fd = new FdJacobian(fF64, x0);
    const cols = Array.from({ length: n }, (_, j) => j);
    for (const j of cols) {
      const c = toDense(ad.column(j));
      for (let i = 0; i < n; i++) expect(Math.abs(c[i]! - Jv[i * n + j]!)).toBeLessThan(1e-6);
    }
    const check = crossCheckJacobians(fd, ad, cols);
    expect(check.agree).toBe(true);
    expect(check.worstRatio).toBeLessThanOrEqual(1);
  });

  it('batched VJP rows equal one-by-one VJPs', () => {
    const U = Float64Array.from({ length: 3 * n }, () => rng.next() - 0.5);
    const all = vjpBatch(tf, fTf, x0, U, 3, n);
    for (let i = 0; i < 3; i++) {
      const one = vjpBatch(tf, fTf, x0, U.subarray(i * n, (i + 1) * n), 1, n);
      for (let j = 0; j < n; j++) expect(all[i * n + j]).toBeCloseTo(one[j]!, 6);
    }
  });

  it('a direction with a repeated index adds its entries, on the directional path as on the columns', () => {
    const v = { dim: n, index: Int32Array.of(1, 4, 1, 2), value: Float64Array.of(0.5, -1, 0.25, 2) };
    const byColumns = toDense(new TfJacobian(tf, fTf, x0, n).apply(v));
    const directional = toDense(new TfJacobian(tf, fTf, x0, n, { columnThreshold: 2 }).apply(v));
    for (let i = 0; i < n; i++)
      expect(Math.abs(directional[i]! - byColumns[i]!)).toBeLessThanOrEqual(
        8 * AUTODIFF_F32_RELATIVE_ACCURACY * Math.max(1, Math.abs(byColumns[i]!)),
      );
  });

  it('a chunk or output dimension that cannot run is refused by name', () => {
    expect(() => new TfJacobian(tf, fTf, x0, n, { chunk: 0 })).toThrow(/^options\.chunk = 0/);
    expect(() => new TfJacobian(tf, fTf, x0, -1)).toThrow(/^outDim = -1/);
    expect(() => jacobianByVjp(tf, fTf, x0, n, 0)).toThrow(/^chunk = 0/);
    expect(() => jacobianByVjp(tf, fTf, x0, n, -1)).toThrow(/^chunk = -1/);
  });

  it('flags a kink: relu just above 0 disagrees between FD and autodiff', () => {
    // x = 1e-7 < h = eps^(1/3) ≈ 6e-6: the central difference straddles the kink (≈ 0.51),
    // autodiff sees the right branch (1).
    const x = Float64Array.of(1e-7, 1);
    const fd = new FdJacobian((t) => Float64Array.of(Math.max(0, t[0]!), t[1]!), x);
    const ad = new TfJacobian(tf, (t, X) => t.relu(X) as TfCore.Tensor2D, x, 2);
    const check = crossCheckJacobians(fd, ad, [0, 1]);
    expect(check.agree).toBe(false);
    expect(check.disagreements.map((d) => d.column)).toEqual([0]);
  });
});

describe('the wasm heap reserved for a batch', () => {
  it('grows the heap to the batch share in one step before a batch of JVPs, with the columns unchanged', () => {
    if (backend !== 'wasm') return; // only the wasm backend keeps an emscripten heap
    // 16 rows of width 4096 at 128 floats each: 32 MiB, twice the heap tfjs starts with, while
    // the map itself (X ⊙ X) needs about 1 MiB, so only the reservation makes the heap that large
    const d = 4096;
    const x = Float64Array.from({ length: d }, (_, i) => 0.001 * (i + 1));
    const J = new TfJacobian(tf, (t, X) => t.mul(X, X) as TfCore.Tensor2D, x, d, { chunk: 16, columnThreshold: 0 });
    const cols = Array.from({ length: 16 }, (_, i) => 17 * i);
    J.prefetch(cols);
    const heap = (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8;
    expect(heap.length).toBeGreaterThanOrEqual(16 * d * 4 * 128);
    for (const j of cols) {
      const c = J.column(j);
      expect(Array.from(c.index)).toEqual([j]);
      // d(x_j²)/dx_j = 2x_j in float32: relative error below the autodiff accuracy
      expect(Math.abs(c.value[0]! - 2 * x[j]!)).toBeLessThanOrEqual(AUTODIFF_F32_RELATIVE_ACCURACY * 2 * x[j]!);
    }
  });
});
