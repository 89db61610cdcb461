/**
 * The eigenpair checks the eigh suites share (syev.test.ts on both backends, fma.test.ts on the
 * FMA kernel build).
 */
import { expect } from 'vitest';
import { EPS, frob, orthoError } from './cases.js';

/**
 * Backward-stability checks: max_j ||S v_j − λ_j v_j||_∞ <= c·n·eps·||S||_F and
 * |VᵀV − I| <= c·n·eps, with c = 8 (Householder + QL: the classical bound is a modest multiple
 * of n·eps; 8 leaves room for the summation order of the SIMD kernels).
 */
export function expectEigenpairs(S: Float64Array, n: number, values: Float64Array, V: Float64Array): void {
  const norm = frob(S);
  let res = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += S[i * n + k]! * V[k * n + j]!;
      res = Math.max(res, Math.abs(s - values[j]! * V[i * n + j]!));
    }
  expect(res, 'residual ||Sv − λv||').toBeLessThanOrEqual(8 * n * EPS * norm);
  expect(orthoError(V, n, n), '|VᵀV − I|').toBeLessThanOrEqual(8 * n * EPS);
  for (let j = 1; j < n; j++) expect(values[j]!).toBeGreaterThanOrEqual(values[j - 1]!);
}
