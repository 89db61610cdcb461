/**
 * Singular values of a square matrix by Householder bidiagonalisation and the Golub–Kahan
 * tridiagonal: the pure-TypeScript reference of assembly/linalg/dgebrd.ts (same operations in the
 * same order, except that the wasm kernel sums in f64x2 lanes and takes the rows of a pass in
 * pairs, adding a_0·a + b_0·b to z at once). Used by ./svdFromR.ts for the singular values
 * of R without vectors.
 *
 * 1. B = Uᵀ(sA)V upper bidiagonal (LAPACK dgebd2's reflectors: for k = 0..m−1 a left reflector
 *    H_k = I − τ_k u uᵀ zeroes column k below the diagonal, then a right reflector
 *    G_k = I − π_k v vᵀ zeroes row k right of the superdiagonal). A is row-major, and each step is
 *    ONE pass over the rows of the trailing block, each row r taking, while it is in cache,
 *      a ← a − τ_k u_r w − π_k x_r v   (both reflectors at once)
 *      z ← z + a_0 · a                 (rows after k+1: the next step's w, unscaled)
 *    where w = Σ_r u_r a_r is formed before the pass, v comes from row k (updated first), and
 *    x_r = a·v − τ_k u_r (w·v) is the right reflector's product with the row after the left one,
 *    formed from the row before it (as LAPACK dlabrd forms its products from the not yet updated
 *    matrix). With u' = (1, a_0/(α'−β'), …) the next w' = (row k+1) + z/(α'−β') needs no pass of
 *    its own (LAPACK's dgebd2 makes 4 passes per step: a gemv and a rank-1 update per reflector).
 *    When |α'−β'| < 2^-500 the next w is formed by its own pass over the explicitly divided u'
 *    instead (no reciprocal that could overflow, no z whose products underflow).
 * 2. The 2m×2m Golub–Kahan tridiagonal T (zero diagonal, off-diagonal d_0, e_0, d_1, e_1, …,
 *    d_{m−1}) is permutation-similar to [[0, B], [Bᵀ, 0]]: its eigenvalues are ±σ_i. They are
 *    computed by root-free QL ({@link sterf}, LAPACK dsterf; ./syev.ts tql2 if it does not
 *    converge) on T scaled by the exact power of two that brings max|T| into [1, 2) (QL
 *    multiplies two off-diagonals: at 1e-200 they would underflow), sorted descending as
 *    λ_0 >= … >= λ_{2m−1}, and σ_i = (λ_i − λ_{2m−1−i})/2 (both halves of the ± pair, so σ_i >= 0
 *    even for σ at the rounding level).
 *
 * Accuracy (normwise backward stable, the class of the eigh-preconditioned Jacobi it replaces):
 * Householder bidiagonalisation gives B exactly for sA + E with ||E||_2 <= c·m·eps·||sA||_2 in
 * practice (the rigorous worst case is γ_{c·m²}·||sA||_F, Higham Thm 19.4 applied to both sides);
 * QL on T gives eigenvalues exact for T + F with ||F||_2 <= c'·eps·||T||_2 = c'·eps·||B||_2
 * (dsterf's deflation |e_i| <= eps·sqrt|d_i d_i+1| is relative, stricter than that). By Weyl,
 * |σ̂_i − σ_i| <= (c·m + c')·eps·σ_max: an absolute bound, so a σ at the rounding level of σ_max
 * comes out at that level, and large σ to ~m·eps relative.
 */
import { safeScale } from './shape.js';
import { tql2 } from './syev.js';

/** Below this |α − β| the next step's w is formed by its own pass (1/(α − β) could overflow). */
const SMALL_DENOMINATOR = 2 ** -500;

/**
 * Singular values (descending) of s·A for A m×m row-major (not modified; s an exact power of two),
 * written to `out` (m). Returns the QL iterations, or −1 if QL did not converge (then `out` is not
 * written). Unchecked: A finite.
 */
export function referenceBidiagSvdvals(A: Float64Array, m: number, s: number, out: Float64Array): number {
  if (m === 0) return 0;
  const W = A.map((x) => x * s);
  const d = new Float64Array(m);
  const e = new Float64Array(m);
  const u = new Float64Array(m);
  const v = new Float64Array(m);
  const w = new Float64Array(m);
  const z = new Float64Array(m);
  let zValid = false; // whether z holds Σ_{r>k} a_rk · a_r,(k+1:) from the previous pass
  for (let k = 0; k < m; k++) {
    const rk = k * m;
    const n = m - k - 1; // trailing columns k+1..m-1
    // left reflector from column k (rows k..m-1)
    const alpha = W[rk + k]!;
    let ss = 0;
    let cmax = 0;
    for (let r = k + 1; r < m; r++) cmax = Math.max(cmax, Math.abs(W[r * m + k]!));
    if (cmax > 0) for (let r = k + 1; r < m; r++) ss += (W[r * m + k]! / cmax) ** 2;
    const xnorm = cmax * Math.sqrt(ss);
    let tauL = 0;
    let den = 1;
    if (xnorm === 0) d[k] = alpha;
    else {
      const beta = -(alpha >= 0 ? 1 : -1) * hypotSafe(alpha, xnorm);
      tauL = (beta - alpha) / beta;
      den = alpha - beta;
      d[k] = beta;
      for (let r = k + 1; r < m; r++) u[r] = W[r * m + k]! / den;
    }
    if (n === 0) break;
    if (tauL !== 0) {
      // w = Σ_{r>=k} u_r W[r][k+1:], u_k = 1
      if (zValid && Math.abs(den) >= SMALL_DENOMINATOR) {
        const inv = 1 / den;
        for (let j = 0; j < n; j++) w[j] = W[rk + k + 1 + j]! + inv * z[j + 1]!;
      } else {
        for (let j = 0; j < n; j++) w[j] = W[rk + k + 1 + j]!;
        for (let r = k + 1; r < m; r++) {
          const ur = u[r]!;
          const o = r * m + k + 1;
          for (let j = 0; j < n; j++) w[j]! += ur * W[o + j]!;
        }
      }
      for (let j = 0; j < n; j++) W[rk + k + 1 + j]! -= tauL * w[j]!;
    }
    // right reflector from row k, columns k+1..m-1
    const a2 = W[rk + k + 1]!;
    let rmax = 0;
    for (let j = 1; j < n; j++) rmax = Math.max(rmax, Math.abs(W[rk + k + 1 + j]!));
    let rs = 0;
    if (rmax > 0) for (let j = 1; j < n; j++) rs += (W[rk + k + 1 + j]! / rmax) ** 2;
    const ynorm = rmax * Math.sqrt(rs);
    let tauR = 0;
    if (ynorm === 0) e[k] = a2;
    else {
      const beta = -(a2 >= 0 ? 1 : -1) * hypotSafe(a2, ynorm);
      tauR = (beta - a2) / beta;
      const dr = a2 - beta;
      e[k] = beta;
      v[0] = 1;
      for (let j = 1; j < n; j++) v[j] = W[rk + k + 1 + j]! / dr;
    }
    // the pass over rows k+1..m-1 of the trailing block: x = a·v − t·(w·v) is the right
    // reflector's product with the row after the left one, formed from the row before it (as
    // LAPACK dlabrd forms its products from the not yet updated matrix), so each row is read for
    // one dot product and written once
    if (tauL === 0) w.fill(0, 0, n);
    if (tauR === 0) v.fill(0, 0, n);
    z.fill(0, 0, n);
    let wv = 0;
    for (let j = 0; j < n; j++) wv += w[j]! * v[j]!;
    for (let r = k + 1; r < m; r++) {
      const o = r * m + k + 1;
      const t = tauL * u[r]!;
      let x = 0;
      for (let j = 0; j < n; j++) x += W[o + j]! * v[j]!;
      const mx = -(tauR * (x - t * wv));
      for (let j = 0; j < n; j++) W[o + j] = W[o + j]! + -t * w[j]! + mx * v[j]!;
      if (r > k + 1) {
        const a0 = W[o]!;
        for (let j = 0; j < n; j++) z[j]! += a0 * W[o + j]!; // z[0] unused
      }
    }
    zValid = true;
  }
  return golubKahanValues(d, e, m, out);
}

/** sqrt(a² + b²) scaled by max(|a|, |b|) (as the wasm kernel). */
function hypotSafe(a: number, b: number): number {
  const m = Math.max(Math.abs(a), Math.abs(b));
  if (m === 0) return 0;
  const x = a / m;
  const y = b / m;
  return m * Math.sqrt(x * x + y * y);
}

/**
 * σ of the upper bidiagonal with diagonal d and superdiagonal e (m values each, e[m−1] unused)
 * from the eigenvalues of its 2m×2m Golub–Kahan tridiagonal (see the file comment); −1 if QL does
 * not converge.
 */
export function golubKahanValues(d: Float64Array, e: Float64Array, m: number, out: Float64Array): number {
  const n = 2 * m;
  const td = new Float64Array(n);
  const te = new Float64Array(n);
  let bmax = 0;
  for (let i = 0; i < m; i++) bmax = Math.max(bmax, Math.abs(d[i]!), i < m - 1 ? Math.abs(e[i]!) : 0);
  const g = safeScale(bmax); // QL forms products of two off-diagonals: keep them near 1
  for (let i = 0; i < m; i++) {
    te[2 * i] = d[i]! * g;
    if (i < m - 1) te[2 * i + 1] = e[i]! * g;
  }
  let it = sterf(n, td, te); // LAPACK dsterf, as dsyev without vectors
  if (it < 0) {
    // root-free QL did not converge (never seen): QL with rotations on the same T
    td.fill(0);
    te.fill(0);
    for (let i = 0; i < m; i++) {
      te[2 * i] = d[i]! * g;
      if (i < m - 1) te[2 * i + 1] = e[i]! * g;
    }
    it = tql2(n, td, te);
    if (it < 0) return it;
  }
  td.sort();
  for (let i = 0; i < m; i++) out[i] = (td[n - 1 - i]! - td[i]!) / 2 / g;
  return it;
}

const EPS_STERF = 2 ** -53; // LAPACK dlamch('E'): the unit roundoff
const EPS2_STERF = EPS_STERF * EPS_STERF;
/** LAPACK dsterf's scaling band sqrt(safmin)/eps² … sqrt(safmax)/3 (blocks outside it are scaled). */
const SSFMIN = Math.sqrt(2 ** -1022) / EPS2_STERF;
const SSFMAX = Math.sqrt(2 ** 1022) / 3;

/** Eigenvalues [rt1, rt2] of [[a, b], [b, c]], |rt1| >= |rt2| (LAPACK dlae2). */
function lae2(a: number, b: number, c: number): [number, number] {
  const sm = a + c;
  const adf = Math.abs(a - c);
  const ab = Math.abs(b + b);
  const [acmx, acmn] = Math.abs(a) > Math.abs(c) ? [a, c] : [c, a];
  const rt =
    adf > ab ? adf * Math.sqrt(1 + (ab / adf) ** 2) : adf < ab ? ab * Math.sqrt(1 + (adf / ab) ** 2) : ab * Math.SQRT2;
  if (sm < 0) {
    const rt1 = 0.5 * (sm - rt);
    return [rt1, (acmx / rt1) * acmn - (b / rt1) * b];
  }
  if (sm > 0) {
    const rt1 = 0.5 * (sm + rt);
    return [rt1, (acmx / rt1) * acmn - (b / rt1) * b];
  }
  return [0.5 * rt, -0.5 * rt];
}

/**
 * Eigenvalues (into d, unsorted) of the symmetric tridiagonal (d, e) of size n with ZERO diagonal
 * on entry (the Golub–Kahan form; e[i] couples i and i+1, destroyed), by LAPACK dsterf:
 * Pal–Walker–Kahan root-free QL (no square root per rotation, on the squared off-diagonals), split
 * where |e_i| <= eps·sqrt|d_i d_i+1| (on entry: only exact zeros), blocks outside dsterf's scaling
 * band scaled by an exact power of two (dsterf scales by the ratio). dsterf runs QR instead of QL
 * on a block whose last diagonal entry is the smaller; on a zero diagonal it never does, and that
 * branch is left out. Normwise backward stable, as QL with rotations. Returns the iterations, or
 * −1 after 30·n without convergence.
 */
export function sterf(n: number, d: Float64Array, e: Float64Array): number {
  const nmaxit = 30 * n;
  let jtot = 0;
  let l1 = 0;
  while (l1 <= n - 1) {
    if (l1 > 0) e[l1 - 1] = 0;
    let m = l1;
    for (; m < n - 1; m++)
      if (Math.abs(e[m]!) <= Math.sqrt(Math.abs(d[m]!)) * Math.sqrt(Math.abs(d[m + 1]!)) * EPS_STERF) {
        e[m] = 0;
        break;
      }
    let l = l1;
    const lsv = l;
    const lend = m;
    const lendsv = lend;
    l1 = m + 1;
    if (lend === l) continue;
    let anorm = 0;
    for (let i = l; i <= lend; i++) anorm = Math.max(anorm, Math.abs(d[i]!));
    for (let i = l; i < lend; i++) anorm = Math.max(anorm, Math.abs(e[i]!));
    if (anorm === 0) continue;
    const g = anorm > SSFMAX || anorm < SSFMIN ? safeScale(anorm) : 1;
    if (g !== 1) {
      for (let i = l; i <= lend; i++) d[i]! *= g;
      for (let i = l; i < lend; i++) e[i]! *= g;
    }
    for (let i = l; i < lend; i++) e[i] = e[i]! ** 2;
    // dsterf takes QR instead when |d_lend| < |d_l|; on a zero diagonal it never does
    {
      // QL
      for (;;) {
        let mm = lend;
        if (l !== lend)
          for (mm = l; mm < lend; mm++) if (Math.abs(e[mm]!) <= EPS2_STERF * Math.abs(d[mm]! * d[mm + 1]!)) break;
        if (mm < lend) e[mm] = 0;
        let p = d[l]!;
        if (mm === l) {
          l++;
          if (l <= lend) continue;
          break;
        }
        if (mm === l + 1) {
          const [rt1, rt2] = lae2(d[l]!, Math.sqrt(e[l]!), d[l + 1]!);
          d[l] = rt1;
          d[l + 1] = rt2;
          e[l] = 0;
          l += 2;
          if (l <= lend) continue;
          break;
        }
        if (jtot === nmaxit) break;
        jtot++;
        const rte = Math.sqrt(e[l]!);
        let sigma = (d[l + 1]! - p) / (2 * rte);
        const r0 = hypotSafe(sigma, 1);
        sigma = p - rte / (sigma + (sigma >= 0 ? r0 : -r0));
        let c = 1;
        let s = 0;
        let gamma = d[mm]! - sigma;
        p = gamma * gamma;
        for (let i = mm - 1; i >= l; i--) {
          const bb = e[i]!;
          const r = p + bb;
          if (i !== mm - 1) e[i + 1] = s * r;
          const oldc = c;
          c = p / r;
          s = bb / r;
          const oldgam = gamma;
          const alpha = d[i]!;
          gamma = c * (alpha - sigma) - s * oldgam;
          d[i + 1] = oldgam + (alpha - gamma);
          p = c !== 0 ? (gamma * gamma) / c : oldc * bb;
        }
        e[l] = s * p;
        d[l] = sigma + gamma;
      }
    }
    if (g !== 1) for (let i = lsv; i <= lendsv; i++) d[i]! /= g;
    if (jtot >= nmaxit) return -1;
  }
  return jtot;
}
