import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { gemm } from '../../src/linalg/api.js';
import type { LinalgBackendName } from '../../src/linalg/backend.js';
import { EPS, matmul, randn, rankLoss, transpose } from './cases.js';
import { useArenaGuard } from '../util/arenaGuard.js';

useArenaGuard();

function absProduct(A: Float64Array, B: Float64Array, m: number, k: number, n: number): Float64Array {
  return matmul(
    A.map((x) => Math.abs(x)),
    B.map((x) => Math.abs(x)),
    m,
    k,
    n,
  );
}

describe.each<[LinalgBackendName]>([['reference'], ['wasm']])('gemm (%s)', (backend) => {
  it('size-0 and 1x1', () => {
    expect(gemm(new Float64Array(0), 0, 3, new Float64Array(6), 3, 2, { backend })).toEqual(new Float64Array(0));
    expect(gemm(new Float64Array(0), 2, 0, new Float64Array(0), 0, 2, { backend })).toEqual(new Float64Array(4));
    expect(gemm([3], 1, 1, [-2], 1, 1, { backend })).toEqual(Float64Array.of(-6));
  });

  it('integer matrices, all four transpose combinations: exact', () => {
    const [m, k, n] = [7, 5, 6];
    const A = rankLoss(1, m, k, 0, 1, 2);
    const B = rankLoss(2, k, n, 0, 1, 2);
    const C = matmul(A, B, m, k, n);
    expect(gemm(A, m, k, B, k, n, { backend })).toEqual(C);
    expect(gemm(transpose(A, m, k), k, m, B, k, n, { backend, transA: true })).toEqual(C);
    expect(gemm(A, m, k, transpose(B, k, n), n, k, { backend, transB: true })).toEqual(C);
    expect(gemm(transpose(A, m, k), k, m, transpose(B, k, n), n, k, { backend, transA: true, transB: true })).toEqual(
      C,
    );
  });

  it('C = αAB + βC in place, random: within 2·k·eps·(|A||B|) + the β term', () => {
    const [m, k, n] = [9, 33, 11];
    const A = randn(1, m * k);
    const B = randn(2, k * n);
    const C0 = randn(3, m * n);
    const C = Float64Array.from(C0);
    const out = gemm(A, m, k, B, k, n, { backend, alpha: 2, beta: -0.5, C });
    expect(out).toBe(C);
    const P = matmul(A, B, m, k, n);
    const S = absProduct(A, B, m, k, n);
    for (let i = 0; i < m * n; i++) {
      const exact = 2 * P[i]! - 0.5 * C0[i]!;
      expect(Math.abs(C[i]! - exact)).toBeLessThanOrEqual((2 * k + 4) * EPS * (2 * S[i]! + 0.5 * Math.abs(C0[i]!)));
    }
  });

  it('rejects bad input without touching C', () => {
    const C = Float64Array.of(1, 2, 3, 4);
    expect(() => gemm([1, 2], 1, 2, [1, 2], 1, 2, { backend, C })).toThrow(/inner dimensions disagree/);
    expect(() => gemm([1, NaN], 1, 2, [1, 2], 2, 1, { backend })).toThrow(/A\[0\]\[1\] = NaN/);
    expect(() => gemm([1], 1, 1, [1], 1, 1, { backend, beta: 1 })).toThrow(/options.beta = 1: needs options.C/);
    expect(() => gemm([1, 1, 1, 1], 2, 2, [1, 1, 1, 1], 2, 2, { backend, alpha: Infinity, C })).toThrow(
      /options.alpha/,
    );
    expect(() => gemm([1e200, 1e200, 1, 1], 2, 2, [1e200, 1, 1, 1], 2, 2, { backend, C })).toThrow(/overflows/);
    expect(C).toEqual(Float64Array.of(1, 2, 3, 4));
  });

  it('ml-matrix in and out', () => {
    const P = gemm(new Matrix([[1, 2]]), new Matrix([[3], [4]]), { backend });
    expect(P).toBeInstanceOf(Matrix);
    expect(P.to2DArray()).toEqual([[11]]);
  });

  fcTest.prop([
    fc
      .tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), fc.nat())
      .map(([m, k, n, seed]) => ({ m, k, n, A: randn(seed, m * k), B: randn(seed + 1, k * n) })),
  ])('(AB)ᵀ = BᵀAᵀ', ({ m, k, n, A, B }) => {
    const AB = gemm(A, m, k, B, k, n, { backend });
    const BtAt = gemm(B, k, n, A, m, k, { backend, transA: true, transB: true });
    const S = absProduct(A, B, m, k, n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++)
        expect(Math.abs(AB[i * n + j]! - BtAt[j * m + i]!)).toBeLessThanOrEqual(2 * k * EPS * S[i * n + j]!);
  });
});
