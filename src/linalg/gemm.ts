/**
 * General matrix product C = α·op(A)·op(B) + β·C (BLAS dgemm, row-major): the pure-TypeScript
 * twin of assembly/linalg/dgemm.ts by contract (docs/linalg.md, "Twin policy"): each entry is a
 * recursive sum in k order from +0, as in the kernel, so for α = 1, β = 0 the two give the same
 * bits — except a matrix by a vector (N = 1, A not transposed, α = 1, β = 0), which both backends
 * sum in the matrix-vector kernel's lane order ({@link laneOrderedDot}). op(X) = X or Xᵀ.
 *
 * Accuracy: each entry of op(A)op(B) is a sum of K products, error <= K·eps·Σ|a||b|.
 * With β = 0, C is overwritten without being read (NaN in C does not propagate), as in BLAS.
 */
import type { GemmCall } from './calls.js';

/**
 * C (M×N) = alpha · op(A) · op(B) + beta · C, where op(A) is M×K and op(B) is K×N.
 * A is stored M×K ('N') or K×M ('T'); B is K×N ('N') or N×K ('T'). Unchecked. Cost 2·M·N·K flops.
 * C is written only if `accept(non-finite entries of the result)` holds (LinalgBackend.gemm);
 * `pool` is ignored (one thread).
 */
export function referenceGemm(call: GemmCall): boolean {
  const { transA, transB, M, N, K, alpha, A, B, beta, C, accept = () => true } = call;
  const T = new Float64Array(M * N);
  if (N === 1 && transA === 'N' && alpha === 1 && beta === 0) {
    // A·x: the wasm backend runs the matrix-vector kernel here (assembly/linalg/dgemv.ts), whose
    // entries are lane-ordered sums; its twin sums in the same order
    for (let i = 0; i < M; i++) T[i] = laneOrderedDot(A, i * K, B, K);
    if (!accept(countNonFinite(T))) return false;
    C.set(T);
    return true;
  }
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) {
        const a = transA === 'N' ? A[i * K + k]! : A[k * M + i]!;
        const b = transB === 'N' ? B[k * N + j]! : B[j * K + k]!;
        s += a * b;
      }
      const c = beta === 0 ? 0 : beta * C[i * N + j]!; // β = 0: C is not read
      T[i * N + j] = alpha * s + c;
    }
  }
  if (!accept(countNonFinite(T))) return false;
  C.set(T);
  return true;
}

/**
 * Σ_k a[offset + k]·x[k] for k < n in the order of the wasm kernels' vdot and dgemv: four
 * running sums over the blocks of four (column 4b + l into sum l), then (s0 + s2) + (s1 + s3) (the
 * two f64x2 accumulators added lane by lane, then their lanes), then the tail one by one.
 */
export function laneOrderedDot(a: ArrayLike<number>, offset: number, x: ArrayLike<number>, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[offset + k]! * x[k]!;
    s1 += a[offset + k + 1]! * x[k + 1]!;
    s2 += a[offset + k + 2]! * x[k + 2]!;
    s3 += a[offset + k + 3]! * x[k + 3]!;
  }
  let s = s0 + s2 + (s1 + s3);
  for (; k < n; k++) s += a[offset + k]! * x[k]!;
  return s;
}

/** Entries of x that are NaN or ±Infinity. */
export function countNonFinite(x: Float64Array): number {
  let bad = 0;
  for (let k = 0; k < x.length; k++) bad += x[k]! - x[k]!;
  if (bad === 0) return 0;
  let n = 0;
  for (let k = 0; k < x.length; k++) if (!Number.isFinite(x[k]!)) n++;
  return n;
}

/** Cache blocking of the packed wasm kernel (assembly/linalg/dgemm.ts); all three are >= 1. */
export interface GemmBlocking {
  /** Inner-index chunk: one packed 4-row panel of op(A) is kc·32 bytes (8 KiB at 256, L1). */
  kc: number;
  /** Rows of op(A) packed at once: mc·kc·8 bytes (256 KiB at 128 × 256). */
  mc: number;
  /** Columns of op(B) packed at once: kc·nc·8 bytes (at most 4 MiB). */
  nc: number;
}

/**
 * Block sizes for C = op(A)·op(B) with op(A) M×K and op(B) K×N: kc = min(K, 256), mc = min(M, 128),
 * nc = min(N, 2048), each at least 1. Cost O(1).
 * @example
 * ```ts
 * gemmBlocking(1024, 1024, 1024); // { kc: 256, mc: 128, nc: 1024 }
 * ```
 */
export function gemmBlocking(M: number, N: number, K: number): GemmBlocking {
  return { kc: Math.max(1, Math.min(K, 256)), mc: Math.max(1, Math.min(M, 128)), nc: Math.max(1, Math.min(N, 2048)) };
}
