/**
 * The linalg kernels behind one interface, in two implementations that one test suite runs over:
 * `reference` (pure TypeScript, the files named after each kernel) and `wasm` (assembly/linalg over
 * the arena; see ./wasmBackend.ts). Both are UNCHECKED: shapes are assumed consistent and entries
 * finite; the validating functions are in ./api.ts and ./streamingQR.ts.
 */
import { referenceGemm, type Transpose } from './gemm.js';
import { referenceGesvj } from './gesvj.js';
import { referenceSyev } from './syev.js';
import { referenceSyrk } from './syrk.js';
import { referenceTpqrt } from './tpqrt.js';

/** Which implementation runs a kernel. */
export type LinalgBackendName = 'reference' | 'wasm';

/** Commit predicate of {@link LinalgBackend.syrk}: (max|a_ij| as read, non-finite entries of G). */
export type SyrkAccept = (amax: number, nonFinite: number) => boolean;

/** The dense kernels of the linalg area (row-major, f64). */
export interface LinalgBackend {
  readonly name: LinalgBackendName;
  /**
   * G (cols×cols, full) ← weight·AᵀA (`overwrite`) or G + weight·AᵀA, products formed on scale·A
   * (scale an exact power of two). A may hold NaN/±Infinity: the kernel reports them instead of
   * trusting A. G is written only if `accept(amax, nonFinite)` returns true, where amax is
   * max|a_ij| as read (NaN if an entry is NaN, +Infinity if one is ±Infinity) and nonFinite
   * counts the non-finite entries of the would-be G. Returns whether G was written.
   */
  syrk(
    A: Float64Array,
    rows: number,
    cols: number,
    scale: number,
    weight: number,
    G: Float64Array,
    overwrite: boolean,
    accept: SyrkAccept,
  ): boolean;
  /**
   * C (M×N) = alpha·op(A)·op(B) + beta·C (beta = 0: C is not read), written only if
   * `accept(non-finite entries of the result)` returns true (default: always). Returns whether C
   * was written.
   */
  gemm(
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
    accept?: (nonFinite: number) => boolean,
  ): boolean;
  /** Eigenpairs of symmetric S (n×n, destroyed): values ascending, rows of vectorsT. −1: no convergence. */
  syev(S: Float64Array, n: number, values: Float64Array, vectorsT: Float64Array): number;
  /** R (m×m upper triangular) ← R of [R; A] for A rows×m (A unchanged), in blocks of `blockRows`. */
  qrUpdate(R: Float64Array, m: number, A: Float64Array, rows: number, blockRows: number): void;
  /** One-sided Jacobi on rows of Y (m×m, overwritten); V ← rotations; norms2 ← squared row norms. */
  gesvj(Y: Float64Array, m: number, V: Float64Array, norms2: Float64Array): number;
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
  syev(S, n, values, vectorsT) {
    return referenceSyev(S, n, values, vectorsT, new Float64Array(2 * n));
  },
  qrUpdate(R, m, A, rows, blockRows) {
    for (let r0 = 0; r0 < rows; r0 += blockRows) {
      const b = Math.min(blockRows, rows - r0);
      referenceTpqrt(R, m, A.slice(r0 * m, (r0 + b) * m), b);
    }
  },
  gesvj: referenceGesvj,
};
