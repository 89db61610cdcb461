/**
 * General matrix product C = α·op(A)·op(B) + β·C (BLAS dgemm, row-major): the pure-TypeScript
 * reference of assembly/linalg/dgemm.ts. op(X) = X or Xᵀ.
 *
 * Accuracy: each entry of op(A)op(B) is a sum of K products, error <= K·eps·Σ|a||b|.
 * With β = 0, C is overwritten without being read (NaN in C does not propagate), as in BLAS.
 */

/** How an operand enters the product. */
export type Transpose = 'N' | 'T';

/**
 * C (M×N) = alpha · op(A) · op(B) + beta · C, where op(A) is M×K and op(B) is K×N.
 * A is stored M×K ('N') or K×M ('T'); B is K×N ('N') or N×K ('T'). Unchecked. Cost 2·M·N·K flops.
 */
export function referenceGemm(
  transA: Transpose,
  transB: Transpose,
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float64Array,
  B: Float64Array,
  beta: number,
  C: Float64Array,
): void {
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) {
        const a = transA === 'N' ? A[i * K + k]! : A[k * M + i]!;
        const b = transB === 'N' ? B[k * N + j]! : B[j * K + k]!;
        s += a * b;
      }
      const c = beta === 0 ? 0 : beta * C[i * N + j]!;
      C[i * N + j] = alpha * s + c;
    }
  }
}
