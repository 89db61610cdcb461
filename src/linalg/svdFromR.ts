/**
 * Singular values and right singular vectors of a square upper-triangular R (the R of A = QR),
 * shared by {@link svdvals}, {@link rank}, {@link nullSpace} and {@link StreamingQR}.
 *
 * R is transposed, scaled UP by an exact power of two s >= 1 when max|r| < 1 (so that max|s·r| is
 * in [1, 2); never down: a global scale-down would flush entries of 1e-300 to zero next to 1e300,
 * and the kernel scales rows of large norm itself), and handed to the one-sided Jacobi kernel
 * (./gesvj.ts).
 * The singular values come out as row norms (overflow-safe norm) and the right singular vectors as
 * rows of the accumulated rotation. Sorted descending, vectors permuted along.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import type { LinalgBackend } from './backend.js';
import { JACOBI_MAX_SWEEPS, maxRowCosine } from './gesvj.js';
import { safeScale } from './shape.js';

/** Singular values (descending) and the matching right singular vectors as rows. */
export interface SvdOfR {
  readonly singularValues: Float64Array;
  /** m×m row-major; row i is the right singular vector of singularValues[i] (empty without vectors). */
  readonly rightVectorsT: Float64Array;
  /** Jacobi sweeps used. */
  readonly sweeps: number;
}

/**
 * The error of a Jacobi run that reached the sweep cap, with the matrix's properties: size, the
 * range of its nonzero column norms, the number of zero columns, and the largest cosine left.
 */
function notConverged(R: Float64Array, Y: Float64Array, m: number): Error {
  let lo = Infinity;
  let hi = 0;
  let zero = 0;
  for (let j = 0; j < m; j++) {
    const col = new Float64Array(m);
    for (let i = 0; i <= j; i++) col[i] = R[i * m + j]!;
    const n = referenceNorm(col);
    if (n === 0) zero++;
    else {
      lo = Math.min(lo, n);
      hi = Math.max(hi, n);
    }
  }
  return new Error(
    `one-sided Jacobi SVD did not converge in ${JACOBI_MAX_SWEEPS} sweeps for a ${m}×${m} R factor ` +
      `(column norms ${lo === Infinity ? 'none nonzero' : `${lo.toExponential(3)}..${hi.toExponential(3)}`}, ` +
      `${zero} zero columns, largest remaining |cos| between rows ${maxRowCosine(Y, m).toExponential(3)} ` +
      `against the threshold ${(Math.sqrt(m) * Number.EPSILON).toExponential(3)})`,
  );
}

/**
 * @param vectors whether the right singular vectors are wanted (rank and svdvals skip them: the
 *   rotations are then not accumulated, a third of the Jacobi cost)
 * @throws Error if the Jacobi iteration does not converge within the sweep cap (never seen; the
 *   message gives the matrix's column-norm range, zero columns and the remaining cosine).
 */
export function svdOfR(backend: LinalgBackend, R: Float64Array, m: number, vectors = true): SvdOfR {
  let amax = 0;
  for (let k = 0; k < m * m; k++) amax = Math.max(amax, Math.abs(R[k]!));
  const s = Math.max(1, safeScale(amax));
  const Y = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) Y[j * m + i] = R[i * m + j]! * s;
  const V = new Float64Array(vectors ? m * m : 0);
  const n2 = new Float64Array(m);
  const sweeps = backend.gesvj(Y, m, V, n2, vectors);
  if (sweeps < 0) throw notConverged(R, Y, m);
  const sv = new Float64Array(m);
  for (let i = 0; i < m; i++) sv[i] = referenceNorm(Y.subarray(i * m, (i + 1) * m)) / s;
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => sv[b]! - sv[a]! || a - b);
  const singularValues = new Float64Array(m);
  const rightVectorsT = new Float64Array(vectors ? m * m : 0);
  order.forEach((src, dst) => {
    singularValues[dst] = sv[src]!;
    if (vectors) rightVectorsT.set(V.subarray(src * m, (src + 1) * m), dst * m);
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
