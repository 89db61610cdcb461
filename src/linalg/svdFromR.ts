/**
 * Singular values and right singular vectors of a square upper-triangular R (the R of A = QR),
 * shared by {@link svdvals}, {@link rank}, {@link nullSpace} and {@link StreamingQR}.
 *
 * R is transposed, scaled UP by an exact power of two s >= 1 when max|r| < 1 (so that max|s·r| is
 * in [1, 2); never down: a global scale-down would flush entries of 1e-300 to zero next to 1e300,
 * and the kernel scales rows of large norm itself), and handed to the one-sided Jacobi kernel
 * (./gesvj.ts).
 *
 * From m = {@link PRECONDITION_MIN_SIZE}, for R with column norms within
 * {@link PRECONDITION_MAX_COLUMN_RATIO} of each other, Jacobi runs on Y = (sR·V)ᵀ with V the
 * eigenvectors of (sR)ᵀ(sR) ({@link preconditioned}); Y's rows are then orthogonal except for the
 * few pairs touching σ near the rounding level of σ_max, and the sweeps are Gram-guided
 * ({@link gramGuidedJacobi}): every pair is tested through one level-3 row Gramian per sweep and
 * only the pairs above the threshold are rotated. The threshold, the per-pair rotation and the
 * stopping rule are the kernel's; the Gramian only replaces the m²/2 dot products of the tests.
 * The singular values come out as row norms (overflow-safe norm) and the right singular vectors as
 * rows of the accumulated rotation. Sorted descending, vectors permuted along.
 *
 * Without vectors (svdvals, rank), on the same balanced R from the same size, the values come
 * instead from backend.squareSvdvals: on wasm Householder bidiagonalisation of sR and dqds on the
 * bidiagonal (assembly/linalg/dgebrd.ts), the same normwise class (|σ̂_i − σ_i| <= c·m·eps·σ_max)
 * at 8/3·m³ flops against the preconditioned path's syrk, eigh with vectors, gemm and sweeps; on
 * the reference backend plain one-sided Jacobi without vectors (./gesvj.ts jacobiSvdvals).
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import type { LinalgBackend } from './backend.js';
import {
  JACOBI_LARGE_NORM,
  JACOBI_MAX_SWEEPS,
  JACOBI_NEGLIGIBLE,
  JACOBI_SMALL_NORM,
  JACOBI_TOL_FACTOR,
  maxRowCosine,
} from './gesvj.js';
import { ArgumentError } from '../util/errors.js';
import { safeScale } from './shape.js';

/**
 * The power of two the plain Jacobi path scales R by: 1, or the least downward scale that keeps
 * m·max|r_ij| — a bound on σ_max (‖R‖₂ <= ‖R‖_F <= m·max|r_ij|) and on every row a rotation
 * forms — at or below 2¹⁰⁰⁰, so no rotation overflows. Below that the path is never scaled down
 * (rows of 1e-300 keep every bit next to rows of 1e300); above it the scale costs the smallest
 * entries at most log2(m) + 25 bits, and only for matrices whose entries reach 2¹⁰⁰⁰/m ≈ 1e301/m.
 */
function jacobiScale(amax: number, m: number): number {
  const e = Math.ceil(Math.log2(amax) + Math.log2(m));
  return e <= 1000 ? Math.max(1, safeScale(amax)) : 2 ** (1000 - e);
}

/**
 * Checks a QR update's R factor: a column of the stack whose norm exceeds the f64 range (finite
 * entries, e.g. two of 1.5e308) leaves ±∞ or NaN in R, and everything decided from R after it
 * would be wrong.
 * @throws {ArgumentError} named `argument`, with `value`, when R holds a non-finite entry.
 */
export function checkFactor(argument: string, value: unknown, R: Float64Array): void {
  for (let k = 0; k < R.length; k++)
    if (!Number.isFinite(R[k]!))
      throw new ArgumentError(
        argument,
        value,
        'makes a column norm of the QR factor overflow f64 (it exceeds 1.8e308); scale it down',
      );
}

/**
 * The singular values of `svd`, checked representable: σ_max beyond the f64 range (an R whose
 * entries are finite can have ‖R‖₂ up to m·MAX_VALUE) makes every rank tolerance ∞ and every rank
 * 0, so it is an error naming the input, never a silent verdict.
 * @throws {ArgumentError} σ_max overflows f64.
 */
export function representable(svd: SvdOfR, argument: string, value: unknown): SvdOfR {
  const top = svd.singularValues[0];
  if (top !== undefined && !Number.isFinite(top))
    throw new ArgumentError(
      argument,
      value,
      'its largest singular value overflows f64 (it exceeds 1.8e308); scale it down (the rank does not change)',
    );
  return svd;
}

/** Singular values (descending) and the matching right singular vectors as rows. */
export interface SvdOfR {
  readonly singularValues: Float64Array;
  /** m×m row-major; row i is the right singular vector of singularValues[i] (empty without vectors). */
  readonly rightVectorsT: Float64Array;
  /** Jacobi sweeps used (0 when the values came from backend.squareSvdvals, without vectors). */
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
    `one-sided Jacobi SVD did not converge in 2×${JACOBI_MAX_SWEEPS} sweeps for a ${m}×${m} R factor ` +
      `(column norms ${lo === Infinity ? 'none nonzero' : `${lo.toExponential(3)}..${hi.toExponential(3)}`}, ` +
      `${zero} zero columns, largest remaining |cos| between rows ${maxRowCosine(Y, m).toExponential(3)} ` +
      `against the threshold ${(Math.sqrt(m) * Number.EPSILON).toExponential(3)})`,
  );
}

/** Smallest size at which {@link svdOfR} preconditions with eigh (below it plain Jacobi is as fast). */
export const PRECONDITION_MIN_SIZE = 48;
/**
 * Largest ratio of R's largest to smallest column norm at which {@link svdOfR} preconditions with
 * eigh (or, without vectors, bidiagonalises). Why it bounds the loss: both paths are normwise
 * backward stable (the product R·V is formed by gemm; the reflectors of the bidiagonalisation are
 * orthogonal), so each σ_i is exact for R + E with ||E|| <= c·m·eps·||R||, a relative
 * error <= c·m·eps·κ(R); plain Jacobi on Rᵀ has c·m·eps·κ(B) with R = B·D, D the column norms
 * (Demmel–Veselić), and κ(R) <= κ(B)·max(D)/min(D). With the ratio <= 16 the bound is at most 16
 * times that of plain Jacobi; beyond it (edge blocks with tiny or zero columns) plain Jacobi runs.
 */
export const PRECONDITION_MAX_COLUMN_RATIO = 16;

/**
 * Column norms of R (m×m row-major upper triangular) for the column-ratio test, in one row-major
 * pass over R scaled by g = safeScale(amax) (exact; max|g·r| in [1, 2), so no square overflows).
 * A column whose scaled squares all underflow (norm below ~2^-511·amax) comes out tiny or 0; the
 * test then takes plain Jacobi, as it would with the exact norm (a ratio of 2^511, not <= 16).
 */
function columnNorms(R: Float64Array, m: number, amax: number): Float64Array {
  const g = safeScale(amax);
  const ss = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const o = i * m;
    for (let j = i; j < m; j++) {
      const x = R[o + j]! * g;
      ss[j]! += x * x;
    }
  }
  for (let j = 0; j < m; j++) ss[j] = Math.sqrt(ss[j]!) / g;
  return ss;
}

/**
 * Y = Vᵀ·(s·R)ᵀ with V the eigenvectors of (sR)ᵀ(sR), rows ordered by descending eigenvalue, and
 * Vᵀ itself (the starting rotation of the Jacobi sweeps); null if the eigensolver did not converge.
 * The rows of Y are (sR·v_i)ᵀ: orthogonal up to the eigensolver's error, so the Jacobi sweeps that
 * follow converge in one or two sweeps instead of 5–10 (de Rijk's descending order helps too).
 *
 * The eigenvectors only precondition: the sweeps make Y's rows orthogonal to the threshold whatever
 * their accuracy. Both products use R's triangle (syrk's `upperTriangular`, trmmUpperT), with the
 * full products' results bit for bit.
 */
export function preconditioned(
  backend: LinalgBackend,
  R: Float64Array,
  m: number,
  s: number,
): { Y: Float64Array; VT: Float64Array } | null {
  const Rs = R.map((x) => x * s);
  const G = new Float64Array(m * m);
  const call = { A: Rs, rows: m, cols: m, scale: 1, weight: 1, G, overwrite: true, accept: () => true };
  backend.syrk({ ...call, upperTriangular: true }); // R upper triangular: a third of the flops
  const values = new Float64Array(m);
  const vectors = new Float64Array(m * m);
  if (backend.syev(G, m, 1, values, vectors) < 0) return null;
  const VT = new Float64Array(m * m);
  transposeInto(vectors, m, VT);
  VT.reverse(); // rows in reverse order (descending eigenvalue), each row reversed too: undo that
  for (let r = 0; r < m; r++) VT.subarray(r * m, (r + 1) * m).reverse();
  const Y = new Float64Array(m * m);
  backend.trmmUpperT(m, m, VT, Rs, Y); // Vᵀ·(sR)ᵀ at half the flops of the full gemm
  return { Y, VT };
}

/**
 * Smallest size at which the preconditioned sweeps are Gram-guided ({@link gramGuidedJacobi});
 * below it the full sweeps are as fast (measured, Jacobi phase with vectors, one thread: m = 128
 * 1.1–2.0 ms full against 2.2 ms guided; m = 160 6.0 against 2.2; m = 256 10.6 against 5.0).
 */
export const GRAM_GUIDED_MIN_SIZE = 160;

/**
 * Pairs listed for a Gram-guided sweep have a Gram cosine above JACOBI_GRAM_MARGIN times the
 * Jacobi threshold tol = sqrt(m)·eps. Why 1/2: the Gram entry and the kernel's dot product are
 * two roundings of the same sum, each within γ_m·||y_i||·||y_j|| of it, and in practice within a
 * few sqrt(m)·eps·||y_i||·||y_j|| of each other; with the margin a pair the kernel's own dot
 * product would put above tol is listed unless the two roundings differ by more than tol/2. Listed
 * pairs are re-tested by the kernel on a fresh dot product, so the margin only adds cheap tests.
 */
export const JACOBI_GRAM_MARGIN = 0.5;

/**
 * The pairs (i < j, in cyclic order, as i0, j0, i1, j1, …) of rows of Y whose cosine in the row
 * Gramian G = Y·Yᵀ (m×m, full) exceeds JACOBI_GRAM_MARGIN·sqrt(m)·eps; zero rows are left out (the
 * kernel skips them). Null if a nonzero row's squared norm G_ii is outside [2^-960, 2^960]: the
 * kernel's scaled path for such rows has its own threshold, and the caller then sweeps in full.
 */
export function gramPairs(G: Float64Array, m: number): Int32Array | null {
  const thr = JACOBI_GRAM_MARGIN * JACOBI_TOL_FACTOR * Math.sqrt(m) * Number.EPSILON;
  const nrm = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const d = G[i * m + i]!;
    if (d !== 0 && (d < JACOBI_SMALL_NORM ** 2 || d > JACOBI_LARGE_NORM ** 2)) return null;
    nrm[i] = Math.sqrt(d);
  }
  const out: number[] = [];
  for (let i = 0; i < m - 1; i++) {
    const ni = nrm[i]!;
    if (ni === 0) continue;
    const o = i * m;
    for (let j = i + 1; j < m; j++) {
      const nj = nrm[j]!;
      if (nj !== 0 && Math.abs(G[o + j]!) > thr * ni * nj) out.push(i, j);
    }
  }
  return Int32Array.from(out);
}

/** out (m×m) ← Aᵀ for A m×m row-major, in 32×32 tiles (a strided transpose misses cache on every write). */
function transposeInto(A: Float64Array, m: number, out: Float64Array): void {
  const T = 32;
  for (let i0 = 0; i0 < m; i0 += T)
    for (let k0 = 0; k0 < m; k0 += T) {
      const i1 = Math.min(m, i0 + T);
      const k1 = Math.min(m, k0 + T);
      for (let i = i0; i < i1; i++) for (let k = k0; k < k1; k++) out[k * m + i] = A[i * m + k]!;
    }
}

/**
 * Rows whose relative change ||Δy_k||/||y_k|| after a sweep exceeds this get fresh Gram entries;
 * for the others the previous Gram entry plus a perturbation bound decides ({@link recheckPairs}).
 * 2^-30: well above the ~1e-29 by which a rotation against a row of rounding-level norm moves a
 * large row, well below any cosine that matters (the bound then adds at most ~2^-29 to the cosine
 * only for pairs not already far below the threshold).
 */
export const JACOBI_FRESH_CHANGE = 2 ** -30;

/**
 * The pairs above the listing threshold after a sweep, from the Gram G0 of the rows before it
 * (Y0) and the rows after it (Y), without a full new Gram: for rows k with relative change
 * d_k/n_k above {@link JACOBI_FRESH_CHANGE} (d_k = ||y_k − y0_k||, n_k = ||y0_k||) the Gram row is
 * formed afresh (gemm); a pair of two other rows is listed if the bound
 *   |cos'| <= (|G0_kl| + d_k·n_l + n_k·d_l + d_k·d_l) / ((n_k − d_k)·(n_l − d_l))
 * (Cauchy–Schwarz on y_k = y0_k + Δ_k, ||y_k|| >= n_k − d_k; d inflated by 2^-20 for its own
 * rounding) exceeds the threshold — so no pair whose fresh cosine would exceed it is left out, up to
 * the rounding of G0 itself (the same class as a fresh Gram). Null if more than m/4 rows changed
 * (a full Gram is then as cheap) or {@link gramPairs} would decline.
 */
export function recheckPairs(
  backend: LinalgBackend,
  G0: Float64Array,
  Y0: Float64Array,
  Y: Float64Array,
  m: number,
): Int32Array | null {
  const thr = JACOBI_GRAM_MARGIN * JACOBI_TOL_FACTOR * Math.sqrt(m) * Number.EPSILON;
  const n0 = new Float64Array(m);
  const d = new Float64Array(m);
  const fresh: number[] = [];
  const isFresh = new Int32Array(m).fill(-1);
  const diff = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const g = G0[k * m + k]!;
    if (g !== 0 && (g < JACOBI_SMALL_NORM ** 2 || g > JACOBI_LARGE_NORM ** 2)) return null;
    const nk = Math.sqrt(g);
    for (let c = 0; c < m; c++) diff[c] = Y[k * m + c]! - Y0[k * m + c]!;
    const dk = referenceNorm(diff) * (1 + 2 ** -20); // overflow- and underflow-safe
    n0[k] = nk;
    d[k] = dk;
    if (dk > JACOBI_FRESH_CHANGE * nk || (nk === 0 && dk > 0)) {
      isFresh[k] = fresh.length;
      fresh.push(k);
    }
  }
  if (fresh.length > m / 4) return null;
  const f = fresh.length;
  // Gram rows of the changed rows: F (f×m) = Y_F·Yᵀ
  const YF = new Float64Array(f * m);
  fresh.forEach((k, r) => YF.set(Y.subarray(k * m, (k + 1) * m), r * m));
  const F = new Float64Array(f * m);
  if (f > 0) backend.gemm({ transA: 'N', transB: 'T', M: f, N: m, K: m, alpha: 1, A: YF, B: Y, beta: 0, C: F });
  const nn = new Float64Array(m); // current norms: fresh for changed rows
  for (let k = 0; k < m; k++) {
    const r = isFresh[k]!;
    if (r < 0) nn[k] = n0[k]!;
    else {
      const g = F[r * m + k]!;
      if (g !== 0 && (g < JACOBI_SMALL_NORM ** 2 || g > JACOBI_LARGE_NORM ** 2)) return null;
      nn[k] = Math.sqrt(g);
    }
  }
  const out: number[] = [];
  for (let i = 0; i < m - 1; i++)
    for (let j = i + 1; j < m; j++) {
      const ri = isFresh[i]!;
      const rj = isFresh[j]!;
      if (ri >= 0 || rj >= 0) {
        const ni = nn[i]!;
        const nj = nn[j]!;
        if (ni === 0 || nj === 0) continue;
        const g = ri >= 0 ? F[ri * m + j]! : F[rj * m + i]!;
        if (Math.abs(g) > thr * ni * nj) out.push(i, j);
        continue;
      }
      const ni = n0[i]!;
      const nj = n0[j]!;
      if (ni === 0 || nj === 0) continue; // unchanged zero rows stay zero
      const di = d[i]!;
      const dj = d[j]!;
      const bound = (Math.abs(G0[i * m + j]!) + di * nj + ni * dj + di * dj) / ((ni - di) * (nj - dj));
      if (bound > thr) out.push(i, j);
    }
  return Int32Array.from(out);
}

/**
 * One-sided Jacobi on the rows of a nearly row-orthogonal Y (the preconditioned R·V), guided by
 * the row Gramian: the first sweep forms G = Y·Yᵀ with the level-3 Gramian kernel, lists the pairs
 * above the threshold ({@link gramPairs}) and rotates only those (each re-tested on its own dot
 * product, as in a full sweep). Each later sweep lists its pairs from the previous full Gram and the
 * rows' changes ({@link recheckPairs}: fresh Gram rows for the rows that moved, a perturbation bound
 * for the rest), or from a new full Gram when many rows moved. A sweep with no listed pair, or
 * whose rotations are all at rounding level, ends the iteration — the stopping rule of the full
 * sweeps, with the unlisted pairs' test done by the Gramian instead of m²/2 separate dot products.
 * After eigh preconditioning only the pairs touching rows of σ near the rounding level of σ_max
 * (whose eigenvectors are accurate only to eps·λ_max/gap) are listed: ~2m pairs for two null
 * directions, against m²/2 tested per full sweep.
 * Returns the sweeps (as the kernel counts them), or −1 at the sweep cap; falls back to the full
 * kernel (continuing from Y and V) when the listing declines (rows near under- or overflow).
 */
export function gramGuidedJacobi(
  backend: LinalgBackend,
  Y: Float64Array,
  m: number,
  V: Float64Array,
  norms2: Float64Array,
  vectors: boolean,
): number {
  const Yt = new Float64Array(m * m);
  const G = new Float64Array(m * m);
  const Y0 = new Float64Array(m * m);
  let fullGram = false; // whether G is the full Gram of Y0
  for (let sweep = 1; sweep <= JACOBI_MAX_SWEEPS; sweep++) {
    let pairs = fullGram ? recheckPairs(backend, G, Y0, Y, m) : null;
    if (pairs === null) {
      transposeInto(Y, m, Yt);
      backend.syrk({ A: Yt, rows: m, cols: m, scale: 1, weight: 1, G, overwrite: true, accept: () => true }); // YtᵀYt = Y·Yᵀ
      pairs = gramPairs(G, m);
      fullGram = true;
      if (pairs === null) {
        const rest = backend.gesvj(Y, m, V, norms2, vectors, true);
        return rest < 0 ? rest : rest + sweep - 1;
      }
    } else fullGram = false;
    if (pairs.length === 0) {
      for (let i = 0; i < m; i++) {
        let s2 = 0;
        for (let k = 0; k < m; k++) s2 += Y[i * m + k]! ** 2;
        norms2[i] = s2;
      }
      return sweep;
    }
    if (fullGram) Y0.set(Y); // the rows G is the Gram of, for the next sweep's recheck
    if (backend.gesvj(Y, m, V, norms2, vectors, true, 0, pairs) === 1) return sweep;
  }
  return -1;
}

/**
 * @param vectors whether the right singular vectors are wanted (rank and svdvals skip them: on
 *   balanced R from PRECONDITION_MIN_SIZE backend.squareSvdvals runs — on wasm the bidiagonal —,
 *   elsewhere the rotations are not accumulated, a third of the Jacobi cost)
 * @throws Error if the Jacobi iteration does not converge within the sweep cap (never seen; the
 *   message gives the matrix's column-norm range, zero columns and the remaining cosine).
 */
export function svdOfR(backend: LinalgBackend, R: Float64Array, m: number, vectors = true): SvdOfR {
  let amax = 0;
  for (let k = 0; k < m * m; k++) amax = Math.max(amax, Math.abs(R[k]!));
  const cn = m >= PRECONDITION_MIN_SIZE ? columnNorms(R, m, amax) : undefined;
  let lo = Infinity;
  let hi = 0;
  for (const x of cn ?? []) {
    lo = Math.min(lo, x);
    hi = Math.max(hi, x);
  }
  let s: number;
  let Y: Float64Array;
  let V: Float64Array;
  let sweeps: number;
  const n2 = new Float64Array(m);
  const normwise = cn !== undefined && lo > 0 && hi <= PRECONDITION_MAX_COLUMN_RATIO * lo;
  if (normwise && !vectors) {
    const bs = safeScale(amax);
    const singularValues = new Float64Array(m);
    if (backend.squareSvdvals(R, m, bs, singularValues) >= 0) {
      for (let i = 0; i < m; i++) singularValues[i]! /= bs;
      return { singularValues, rightVectorsT: new Float64Array(0), sweeps: 0 };
    }
    // the method did not converge (never seen): the preconditioned Jacobi below decides instead
  }
  const pre = normwise ? preconditioned(backend, R, m, safeScale(amax)) : null;
  if (pre) {
    s = safeScale(amax);
    Y = pre.Y;
    V = pre.VT;
    sweeps =
      m >= GRAM_GUIDED_MIN_SIZE
        ? gramGuidedJacobi(backend, Y, m, V, n2, vectors)
        : backend.gesvj(Y, m, V, n2, vectors, true);
  } else {
    s = jacobiScale(amax, m);
    Y = new Float64Array(m * m);
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) Y[j * m + i] = R[i * m + j]! * s;
    V = new Float64Array(vectors ? m * m : 0);
    sweeps = backend.gesvj(Y, m, V, n2, vectors);
  }
  if (sweeps < 0) {
    // resume with the rows of rounding-residue size left alone (JACOBI_NEGLIGIBLE)
    let big = 0;
    for (let i = 0; i < m; i++) big = Math.max(big, referenceNorm(Y.subarray(i * m, (i + 1) * m)));
    sweeps = backend.gesvj(Y, m, V, n2, vectors, true, JACOBI_NEGLIGIBLE * big);
    if (sweeps >= 0) sweeps += JACOBI_MAX_SWEEPS;
  }
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
