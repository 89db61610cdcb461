/**
 * The linalg kernels behind one interface, in two implementations that one test suite runs over:
 * `reference` (pure TypeScript, the files named after each kernel) and `wasm` (assembly/linalg over
 * the arena; see ./wasmBackend.ts). Both are UNCHECKED: shapes are assumed consistent and entries
 * finite; the validating functions are in ./api.ts and ./streamingQR.ts.
 */
import type { BackendName } from '../wasm/backend.js';
import type { GemmCall, SyrkAccept, SyrkCall } from './calls.js';
import { referenceGemm } from './gemm.js';
import { jacobiSvdvals, referenceGesvj } from './gesvj.js';
import { referenceSyev } from './syev.js';
import { referenceSyrk } from './syrk.js';
import { referenceTpqrt } from './tpqrt.js';

export type { GemmCall, SyrkAccept, SyrkCall };

/** The dense kernels of the linalg area (row-major, f64). */
export interface LinalgBackend {
  readonly name: BackendName;
  /**
   * G (cols×cols, full) ← weight·AᵀA (`overwrite`) or G + weight·AᵀA, products formed on scale·A
   * (scale an exact power of two). A may hold NaN/±Infinity: the kernel reports them instead of
   * trusting A. G is written only if `accept(amax, nonFinite)` returns true, where amax is
   * max|a_ij| as read (NaN if an entry is NaN, +Infinity if one is ±Infinity) and nonFinite
   * counts the non-finite entries of the would-be G. Returns whether G was written.
   *
   * With `upperTriangular`, A's entries below the diagonal (a_ij, j < i) must be zero: the wasm
   * kernel leaves out most of their products (a chunk of rows from r0 updates only
   * G[4⌊r0/4⌋:, 4⌊r0/4⌋:], about a third of the full product's flops for a square A; the entries
   * left of that are not read, those between it and the diagonal are), and amax covers the
   * entries it read. The result is the full product's bit for bit (the left-out products are ±0,
   * and a sum that starts at +0 is unchanged by adding ±0). The reference kernel computes the
   * full product (it skips zero multipliers anyway).
   *
   * `pool` (./calls.ts): the wasm backend runs a full (not triangular) Gramian on the worker pool
   * when the option allows it (./threads.ts: within the summation bound of one thread, the same
   * bits on every run); without it, on the calling thread.
   * @throws {ArgumentError} `pool.threads` invalid, or > 1 without a running pool (wasm backend).
   */
  syrk(call: SyrkCall): boolean;
  /**
   * C (M×N) = alpha·op(A)·op(B) + beta·C (beta = 0: C is not read), written only if
   * `accept(non-finite entries of the result)` returns true (default: always). Returns whether C
   * was written. `pool`: the wasm backend runs a non-transposed A on the worker pool when the
   * option allows it (bit for bit the one-thread result).
   * @throws {ArgumentError} `pool.threads` invalid, or > 1 without a running pool (wasm backend).
   */
  gemm(call: GemmCall): boolean;
  /**
   * C (M×n) ← A·Rᵀ for A M×n and R n×n upper triangular (BLAS dtrmm with side R, upper,
   * transposed, out of place); C is not read. Entry (i, j) is Σ_{k >= j} a_ik·r_jk; R's entries
   * below the diagonal must be zero. The wasm kernel runs about half the flops of the full product
   * (column blocks of C with the inner index from the block's first column: R's lower triangle is
   * read only inside the diagonal blocks); for finite A and R its result equals
   * `gemm('N', 'T', M, n, n, 1, A, R, 0, C)` bit for bit (the left-out products are ±0 added to a
   * sum that starts at +0). The reference kernel is that full gemm.
   */
  trmmUpperT(M: number, n: number, A: Float64Array, R: Float64Array, C: Float64Array): void;
  /**
   * Eigenpairs of W = (s·S + s·Sᵀ)/2 (S n×n row-major, not modified; s an exact power of two):
   * values ascending, `vectors` n×n row-major with column j the eigenvector of values[j].
   * Returns the QL iterations, or −1 if QL did not converge — and then writes nothing.
   */
  syev(S: Float64Array, n: number, s: number, values: Float64Array, vectors: Float64Array): number;
  /** R (m×m upper triangular) ← R of [R; A] for A rows×m (A unchanged), in blocks of `blockRows`. */
  qrUpdate(R: Float64Array, m: number, A: Float64Array, rows: number, blockRows: number): void;
  /**
   * One-sided Jacobi on rows of Y (m×m, overwritten); V ← rotations, accumulated from I or (with
   * `startFromV`) onto V as given (unless `vectors` is false: V is then not written); rows of norm
   * <= `negligible` (default 0) are not rotated; norms2 ← squared row norms. Returns the sweeps, −1 at the sweep cap.
   * With `pairs` (i0, j0, i1, j1, …; non-empty): one sweep over only those pairs, returning 1 if it
   * ends the iteration by the sweeps' rule, else 0 (./gesvj.ts).
   */
  gesvj(
    Y: Float64Array,
    m: number,
    V: Float64Array,
    norms2: Float64Array,
    vectors?: boolean,
    startFromV?: boolean,
    negligible?: number,
    pairs?: Int32Array,
  ): number;
  /**
   * Singular values (descending) of s·A for A m×m row-major (not modified; s an exact power of
   * two) into `out` (m), without vectors. wasm: Householder bidiagonalisation and dqds on the
   * bidiagonal, QL on its Golub–Kahan tridiagonal if dqds fails (assembly/linalg/dgebrd.ts:
   * normwise backward stable, |σ̂_i − σ_i| <= c·m·eps·σ_max); reference: one-sided Jacobi
   * (./gesvj.ts jacobiSvdvals: relatively accurate, inside that bound). Returns the dqds, QL or
   * Jacobi iterations, or −1 if the method did not converge (then `out` is not written).
   */
  squareSvdvals(A: Float64Array, m: number, s: number, out: Float64Array): number;
}

/** Rows per block of the streaming QR: about 512 KiB per block so a block stays in L2. */
export function qrBlockRows(m: number): number {
  return Math.max(64, Math.floor(65536 / Math.max(m, 1)));
}

/** Pure-TypeScript reference implementation. */
export const referenceLinalg: LinalgBackend = {
  name: 'reference',
  syrk: referenceSyrk,
  gemm: referenceGemm,
  trmmUpperT(M, n, A, R, C) {
    // the full product: see LinalgBackend.trmmUpperT
    referenceGemm({ transA: 'N', transB: 'T', M, N: n, K: n, alpha: 1, A, B: R, beta: 0, C });
  },
  syev(S, n, s, values, vectors) {
    // the arithmetic of assembly/linalg/square.ts: symmetrise and scale, decompose, transpose
    const W = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = i; j < n; j++) W[i * n + j] = W[j * n + i] = 0.5 * (S[i * n + j]! * s + S[j * n + i]! * s);
    const VT = new Float64Array(n * n);
    const d = new Float64Array(n);
    const iterations = referenceSyev(W, n, d, VT, new Float64Array(2 * n));
    if (iterations < 0) return iterations;
    values.set(d);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) vectors[i * n + j] = VT[j * n + i]!;
    return iterations;
  },
  qrUpdate(R, m, A, rows, blockRows) {
    for (let r0 = 0; r0 < rows; r0 += blockRows) {
      const b = Math.min(blockRows, rows - r0);
      referenceTpqrt(R, m, A.slice(r0 * m, (r0 + b) * m), b);
    }
  },
  gesvj: referenceGesvj,
  squareSvdvals: jacobiSvdvals,
};
