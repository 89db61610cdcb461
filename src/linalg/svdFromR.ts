/**
 * Singular values and right singular vectors of a square upper-triangular R (the R of A = QR),
 * shared by {@link svdvals}, {@link rank}, {@link nullSpace} and {@link StreamingQR}.
 *
 * R is scaled by an exact power of two s (max|s·r| in [1, 2)), transposed, and handed to the
 * one-sided Jacobi kernel (./gesvj.ts): the singular values come out as row norms (computed with
 * the overflow-safe norm, then divided by s exactly) and the right singular vectors as rows of the
 * accumulated rotation. Sorted descending, vectors permuted along.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import type { LinalgBackend } from './backend.js';
import { safeScale } from './shape.js';

/** Singular values (descending) and the matching right singular vectors as rows. */
export interface SvdOfR {
  readonly singularValues: Float64Array;
  /** m×m row-major; row i is the right singular vector of singularValues[i]. */
  readonly rightVectorsT: Float64Array;
  /** Jacobi sweeps used. */
  readonly sweeps: number;
}

/**
 * @throws Error if the Jacobi iteration does not converge (not seen in practice; reported rather
 *   than returning unconverged values).
 */
export function svdOfR(backend: LinalgBackend, R: Float64Array, m: number): SvdOfR {
  let amax = 0;
  for (let k = 0; k < m * m; k++) amax = Math.max(amax, Math.abs(R[k]!));
  const s = safeScale(amax);
  const Y = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) Y[j * m + i] = R[i * m + j]! * s;
  const V = new Float64Array(m * m);
  const n2 = new Float64Array(m);
  const sweeps = backend.gesvj(Y, m, V, n2);
  if (sweeps < 0) throw new Error(`one-sided Jacobi SVD did not converge for a ${m}×${m} R factor`);
  const sv = new Float64Array(m);
  for (let i = 0; i < m; i++) sv[i] = referenceNorm(Y.subarray(i * m, (i + 1) * m)) / s;
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => sv[b]! - sv[a]! || a - b);
  const singularValues = new Float64Array(m);
  const rightVectorsT = new Float64Array(m * m);
  order.forEach((src, dst) => {
    singularValues[dst] = sv[src]!;
    rightVectorsT.set(V.subarray(src * m, (src + 1) * m), dst * m);
  });
  return { singularValues, rightVectorsT, sweeps };
}

/** The columns of a null-space basis: rows `from..m-1` of Vᵀ as an m×(m−from) row-major matrix. */
export function basisFromRows(VT: Float64Array, m: number, from: number): Float64Array {
  const k = m - from;
  const N = new Float64Array(m * k);
  for (let c = 0; c < k; c++) {
    const row = (from + c) * m;
    for (let i = 0; i < m; i++) N[i * k + c] = VT[row + i]!;
  }
  return N;
}
