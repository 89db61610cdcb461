/**
 * One-sided Jacobi SVD on rows (Hestenes; LAPACK dgesvj's method, row variant): the reference
 * backend's Jacobi, an independent reference of assembly/linalg/dgesvj.ts (docs/linalg.md, "Twin
 * policy": the kernel's threshold and sweep order, in scalar code; the two agree to the bound, not
 * bit for bit). Used for singular values, rank and null space, and by {@link jacobiSvdvals}.
 *
 * Input Y (m×m, row-major). Pairs of rows (i, j) are rotated until every pair is orthogonal to
 * |y_iᵀy_j| <= tol·||y_i||·||y_j|| with tol = JACOBI_TOL_FACTOR·sqrt(m)·eps (dgesvj's threshold);
 * the same rotations are applied to V (initialised to I). Then J·Y = W with orthogonal rows, so
 * Y = Jᵀ·W: the row norms of W are the singular values of Y and — applied to Y = Rᵀ — the rows of
 * J are right singular vectors of R (and of A = QR): R = (W's normalised rows)ᵀ·Σ·J.
 * A sweep can also be restricted to a list of pairs, each tested and rotated as in a full sweep:
 * the Gram-guided sweeps of ./svdFromR.ts, which test all pairs through a row Gramian first.
 *
 * Why Jacobi on Rᵀ: one-sided Jacobi is invariant under row scaling, so each singular value is
 * computed with a relative error ~ m·eps·κ(D⁻¹Y) where D holds the row norms (Demmel–Veselić);
 * with Y = Rᵀ those are the column norms of A. Small singular values of a matrix with badly scaled
 * columns come out accurate, not just accurate relative to σ_max as with an eigensolver on AᵀA
 * (which squares the condition number).
 *
 * The edges of f64. Y is not scaled as a whole (one scale would flush rows of 1e-300 to zero when
 * another is 1e300). Row norms are kept as norms (not squares) and re-accumulated in every
 * rotation. A pair in which a row norm is outside [2^-480, 2^480] (its square near underflow or
 * overflow) is handled as
 * dgesvj does with its scaled dot products: the cosine is formed on the two rows scaled by exact
 * powers of two; two rows of comparable size are rotated on a common exact scaling; a row tinier
 * than 2^-400 times its partner gets the first-order rotation (its component along the partner is
 * removed, in the tiny row's own scaling). So rows down to the subnormal range are orthogonalised
 * like any others and the singular values of [[1e-310, 1], [0, 1]] come out to a few ulps of
 * the subnormal spacing. Only exactly zero rows are skipped.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import { safeScale } from './shape.js';

/** Sweep cap; convergence is quadratic and typically takes 5–10 sweeps. */
export const JACOBI_MAX_SWEEPS = 60;
/** Orthogonality threshold factor: pairs with |cos| <= sqrt(m)·eps are left alone. */
export const JACOBI_TOL_FACTOR = 1;
/** Row norms below this (2^-480) take the scaled path: their squares would be near underflow. */
export const JACOBI_SMALL_NORM = 2 ** -480;
/** Row norms above this (2^480) take the scaled path: their squares would be near overflow. */
export const JACOBI_LARGE_NORM = 2 ** 480;
/**
 * A sweep whose largest rotated |cos| is at most JACOBI_ROUNDING·m·eps ends the iteration: that
 * is the rounding level of a computed cosine (a dot product of m terms), below which rotations
 * only move rounding errors around and can repeat forever (seen: 7.6e-16 against a threshold of
 * 5.4e-16 at m = 6). The σ are then exact to second order in that cosine, ~(m·eps)² relative.
 */
export const JACOBI_ROUNDING = 4;
/**
 * 4·2^-1074: a row with subnormal entries is known only to the subnormal spacing 2^-1074, so its
 * cosine with another row cannot be driven below ~sqrt(m)·2^-1074/||y|| (2e-8 for a row of norm
 * 1e-316). The threshold of a pair is tol + sqrt(m)·JACOBI_SUBNORMAL/min(||y_i||, ||y_j||).
 */
export const JACOBI_SUBNORMAL = 4 * 2 ** -1074;
/**
 * When the sweeps reach the cap, they resume (from where they stopped) with rows of norm <=
 * JACOBI_NEGLIGIBLE·max row norm left alone: hundreds of mutually near-parallel rows of rounding
 * residue (1e-100 … 1e-150 next to rows of norm 1, as the R of an edge-block stack has) keep
 * re-creating non-orthogonality at their own level and need not converge. Leaving such a row out
 * changes every σ by at most its norm (Weyl), <= eps²·σ_max, far below any rank tolerance
 * (>= eps·σ_max by default); its σ is then its row norm, accurate only to that absolute level.
 */
export const JACOBI_NEGLIGIBLE = 2 ** -104;
/** Below this ratio of row norms (2^-400) a rotation is first order: t = cos·(small/large). */
const FIRST_ORDER_RATIO = 2 ** -400;

/** ||Y[o..o+m)|| without underflow (exact power-of-two scaling, as dnrm2). */
function rowNorm(Y: Float64Array, o: number, m: number): number {
  let amax = 0;
  for (let k = 0; k < m; k++) amax = Math.max(amax, Math.abs(Y[o + k]!));
  if (amax === 0) return 0;
  if (amax >= JACOBI_SMALL_NORM && amax <= JACOBI_LARGE_NORM) {
    let s = 0;
    for (let k = 0; k < m; k++) s += Y[o + k]! * Y[o + k]!;
    if (s >= JACOBI_SMALL_NORM * JACOBI_SMALL_NORM) return Math.sqrt(s);
  }
  const sc = safeScale(amax);
  let s = 0;
  for (let k = 0; k < m; k++) {
    const x = Y[o + k]! * sc;
    s += x * x;
  }
  return Math.sqrt(s) / sc;
}

/** Rows x ← c·x − s·y, y ← s·x + c·y of length m at offsets ox, oy. */
function rotate(A: Float64Array, ox: number, oy: number, m: number, cs: number, sn: number): void {
  for (let k = 0; k < m; k++) {
    const x = A[ox + k]!;
    const y = A[oy + k]!;
    A[ox + k] = cs * x - sn * y;
    A[oy + k] = sn * x + cs * y;
  }
}

/** The rotation tangent for rows with norms ni, nj and cosine g (dgesvj's formula). */
function tangent(ni: number, nj: number, g: number): number {
  // zeta = (nj² − ni²) / (2·g·ni·nj) = (nj/ni − ni/nj) / (2g), formed without squaring (the
  // callers pass norms within 2^±480 of each other or scaled to it)
  const zeta = (nj / ni - ni / nj) / (2 * g);
  return Math.abs(zeta) > 1e150 ? 1 / (2 * zeta) : (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
}

/**
 * Tests the pair (i, j) of rows of Y and rotates it when |cos| exceeds its threshold (also V when
 * `vectors`; the norms in nrm kept current). Returns the |cos| rotated, or 0 if left alone.
 */
function jacobiPair(
  Y: Float64Array,
  m: number,
  V: Float64Array,
  nrm: Float64Array,
  vectors: boolean,
  i: number,
  j: number,
  tol: number,
  negligible: number,
): number {
  const ni = nrm[i]!;
  const nj = nrm[j]!;
  if (ni <= negligible || nj <= negligible || ni === 0 || nj === 0) return 0;
  const oi = i * m;
  const oj = j * m;
  if (ni >= JACOBI_SMALL_NORM && nj >= JACOBI_SMALL_NORM && ni <= JACOBI_LARGE_NORM && nj <= JACOBI_LARGE_NORM) {
    let c = 0;
    for (let k = 0; k < m; k++) c += Y[oi + k]! * Y[oj + k]!;
    const g = c / ni / nj;
    if (Math.abs(g) <= tol) return 0;
    const t = tangent(ni, nj, g);
    const cs = 1 / Math.sqrt(1 + t * t);
    const sn = cs * t;
    rotate(Y, oi, oj, m, cs, sn);
    nrm[i] = rowNorm(Y, oi, m);
    nrm[j] = rowNorm(Y, oj, m);
    if (vectors) rotate(V, oi, oj, m, cs, sn);
    return Math.abs(g);
  }
  // a tiny (or huge) row: the cosine on rows scaled by exact powers of two
  const si = safeScale(ni);
  const sj = safeScale(nj);
  let c = 0;
  for (let k = 0; k < m; k++) c += Y[oi + k]! * si * (Y[oj + k]! * sj);
  const g = c / (ni * si) / (nj * sj);
  const floor = (Math.sqrt(m) * JACOBI_SUBNORMAL) / Math.min(ni, nj); // below: subnormal noise
  if (Math.abs(g) <= tol + floor) return 0;
  const small = ni <= nj ? i : j;
  const large = small === i ? j : i;
  const ns = nrm[small]!;
  const nl = nrm[large]!;
  const os = small * m;
  const ol = large * m;
  if (ns >= FIRST_ORDER_RATIO * nl) {
    // comparable sizes: rotate on a common exact scaling (then undo it)
    const s = safeScale(nl);
    for (let k = 0; k < m; k++) {
      Y[oi + k]! *= s;
      Y[oj + k]! *= s;
    }
    const t = tangent(ni * s, nj * s, g);
    const cs = 1 / Math.sqrt(1 + t * t);
    const sn = cs * t;
    rotate(Y, oi, oj, m, cs, sn);
    for (let k = 0; k < m; k++) {
      Y[oi + k]! /= s;
      Y[oj + k]! /= s;
    }
    if (vectors) rotate(V, oi, oj, m, cs, sn);
  } else {
    // first order: y_small −= (g·ns/nl)·y_large/... in the small row's scaling; the large
    // row and V change by less than their rounding (t <= 2^-400)
    const ss = small === i ? si : sj;
    const ts = (g * (ns * ss)) / nl; // t·ss, a normal number
    for (let k = 0; k < m; k++) Y[os + k] = (Y[os + k]! * ss - ts * Y[ol + k]!) / ss;
    const t = ts / ss;
    // the sign convention of rotate(): x ← x − t·y for (x, y) = (small, large) either way
    if (vectors && t !== 0) {
      for (let k = 0; k < m; k++) {
        const a = V[os + k]!;
        V[os + k] = a - t * V[ol + k]!;
        V[ol + k] = V[ol + k]! + t * a;
      }
    }
  }
  nrm[i] = rowNorm(Y, oi, m);
  nrm[j] = rowNorm(Y, oj, m);
  return Math.abs(g);
}

/**
 * Rotates rows of Y (m×m, overwritten) to mutual orthogonality, accumulating the rotations into
 * V (m×m, overwritten, starts from I — or from V as given when `startFromV`) unless `vectors` is
 * false (V is then not touched). Rows of norm <= `negligible` are not rotated (see
 * JACOBI_NEGLIGIBLE).
 * `norms2` (m) receives the squared row norms (which underflow for rows below ~1e-154; the caller
 * takes the singular values as overflow-safe row norms). Returns the number of sweeps, or −1 if
 * {@link JACOBI_MAX_SWEEPS} were not enough.
 *
 * With `pairs` (non-empty: i0, j0, i1, j1, …): one sweep over only those pairs, in that order, each
 * tested and rotated as in a full sweep; returns 1 if that sweep ends the iteration by the sweeps'
 * rule (nothing rotated, or the largest rotated |cos| <= JACOBI_ROUNDING·m·eps), else 0. Unchecked.
 */
export function referenceGesvj(
  Y: Float64Array,
  m: number,
  V: Float64Array,
  norms2: Float64Array,
  vectors = true,
  startFromV = false,
  negligible = 0,
  pairs?: Int32Array,
): number {
  if (vectors && !startFromV) {
    V.fill(0);
    for (let i = 0; i < m; i++) V[i * m + i] = 1;
  }
  const nrm = new Float64Array(m);
  for (let i = 0; i < m; i++) nrm[i] = rowNorm(Y, i * m, m);
  const tol = JACOBI_TOL_FACTOR * Math.sqrt(m) * 2 ** -52;
  const rounding = JACOBI_ROUNDING * m * 2 ** -52;
  const finish = (sweeps: number): number => {
    for (let i = 0; i < m; i++) norms2[i] = nrm[i]! * nrm[i]!;
    return sweeps;
  };
  if (pairs && pairs.length > 0) {
    let worst = 0;
    for (let p = 0; p + 1 < pairs.length; p += 2)
      worst = Math.max(worst, jacobiPair(Y, m, V, nrm, vectors, pairs[p]!, pairs[p + 1]!, tol, negligible));
    return finish(worst <= rounding ? 1 : 0);
  }
  for (let sweep = 1; sweep <= JACOBI_MAX_SWEEPS; sweep++) {
    let worst = 0; // largest |cos| rotated in this sweep (0: nothing rotated)
    for (let i = 0; i < m - 1; i++)
      for (let j = i + 1; j < m; j++) worst = Math.max(worst, jacobiPair(Y, m, V, nrm, vectors, i, j, tol, negligible));
    if (worst <= rounding) return finish(sweep);
  }
  return finish(-1);
}

/**
 * The largest |cos| between two nonzero rows of Y (m×m), formed on exactly scaled rows: what a
 * Jacobi run that stopped at the sweep cap left, for its error message. Cost m³.
 */
export function maxRowCosine(Y: Float64Array, m: number): number {
  const nrm = Array.from({ length: m }, (_, i) => rowNorm(Y, i * m, m));
  const sc = nrm.map((x) => (x > 0 ? safeScale(x) : 1));
  let worst = 0;
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      if (nrm[i] === 0 || nrm[j] === 0) continue;
      let c = 0;
      for (let k = 0; k < m; k++) c += Y[i * m + k]! * sc[i]! * (Y[j * m + k]! * sc[j]!);
      worst = Math.max(worst, Math.abs(c / (nrm[i]! * sc[i]!) / (nrm[j]! * sc[j]!)));
    }
  return worst;
}

/**
 * Singular values (descending) of s·A for A m×m row-major (not modified; s an exact power of two)
 * into `out`, by one-sided Jacobi on (h·A)ᵀ without vectors, h = safeScale(max|a_ij|): the
 * reference backend's {@link LinalgBackend.squareSvdvals}, a method of its own next to the wasm
 * kernel's bidiagonalisation and dqds (assembly/linalg/dgebrd.ts), which the tests hold to the
 * same oracles. h·A has its largest entry in [1, 2) and is exact, so the values of 2^k·A are
 * 2^k times those of A bit for bit; σ_i = ||y_i||·(s/h), one exact multiplication (rounded only
 * for a subnormal σ). Accuracy: relative error ~m·eps·κ(column-scaled A) per value
 * (Demmel–Veselić), inside the normwise bound |σ̂_i − σ_i| <= c·m·eps·σ_max of the wasm path.
 * Cost ~5·m³ per sweep, 5–10 sweeps. Returns the sweeps, or −1 at the sweep cap (then `out` is
 * not written). Unchecked: A finite, s·A finite.
 */
export function jacobiSvdvals(A: Float64Array, m: number, s: number, out: Float64Array): number {
  if (m === 0) return 0;
  let amax = 0;
  for (let k = 0; k < m * m; k++) amax = Math.max(amax, Math.abs(A[k]!));
  const h = safeScale(amax);
  const Y = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) Y[j * m + i] = A[i * m + j]! * h;
  const sweeps = referenceGesvj(Y, m, new Float64Array(0), new Float64Array(m), false);
  if (sweeps < 0) return sweeps;
  const ratio = s / h; // a power of two near max|s·a_ij|: representable, exact
  const sigma = Float64Array.from({ length: m }, (_, i) => referenceNorm(Y.subarray(i * m, (i + 1) * m)));
  sigma.sort().reverse();
  for (let i = 0; i < m; i++) out[i] = sigma[i]! * ratio;
  return sweeps;
}
