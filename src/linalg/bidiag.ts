/**
 * Singular values of a square matrix by Householder bidiagonalisation and dqds on the
 * bidiagonal: the pure-TypeScript reference of assembly/linalg/dgebrd.ts (same operations in the
 * same order, except that the wasm kernel sums in f64x2 lanes and takes the rows of a pass in
 * pairs, adding a_0·a + b_0·b to z at once; dqds is bit-identical in both). Used by
 * ./svdFromR.ts for the singular values of R without vectors.
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
 * 2. The singular values of B by dqds ({@link dqdsValues}: LAPACK dlasq1–dlasq6, the
 *    differential quotient-difference algorithm with shifts of Fernando–Parlett, as dgesdd and
 *    dbdsqr without vectors use it): B is scaled by the exact power of two that brings max|B| into
 *    [2^484, 2^485) (dlasq1's sqrt(eps/safmin) = 2^485, there reached by a rounded ratio), the
 *    squares q_i = d_i², e_i = e_i² go into the ping-pong qd array of 4m values, and dqds steps
 *    with dlasq4's shifts converge the values from the bottom, deflating one or two at a time and
 *    splitting where an e_i falls below 100·eps relative. O(m²) with a small constant, and each σ
 *    to high relative accuracy (a few m·eps of itself, Demmel–Kahan 1990, Fernando–Parlett 1994).
 *    If dqds does not converge (dlasq2's INFO > 0; never seen), {@link golubKahanValues} instead:
 *    the 2m×2m Golub–Kahan tridiagonal T (zero diagonal, off-diagonal d_0, e_0, d_1, e_1, …,
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
 * dqds gives each σ of B to a few m·eps relative, so within c'·eps·||B||_2 with c' a few m (QL:
 * eigenvalues exact for T + F with ||F||_2 <= c'·eps·||T||_2 = c'·eps·||B||_2). By Weyl,
 * |σ̂_i − σ_i| <= (c·m + c')·eps·σ_max: an absolute bound, so a σ at the rounding level of σ_max
 * comes out at that level, and large σ to ~m·eps relative.
 */
import { iterationCaps } from './iterationCaps.js';
import { safeScale } from './shape.js';
import { tql2 } from './syev.js';

/** Below this |α − β| the next step's w is formed by its own pass (1/(α − β) could overflow). */
const SMALL_DENOMINATOR = 2 ** -500;

/**
 * Singular values (descending) of s·A for A m×m row-major (not modified; s an exact power of two),
 * written to `out` (m). Returns the dqds (or fallback QL) iterations, or −1 if neither converged
 * (then `out` is not written). Unchecked: A finite.
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
  return bidiagonalValues(d, e, m, out);
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
 * σ (descending) of the upper bidiagonal with diagonal d and superdiagonal e (m values each,
 * e[m−1] unused; not modified) into out: by dqds ({@link dqdsValues}), or, if dqds does not
 * converge, by {@link golubKahanValues}. Returns the iterations, or −1 if neither converged.
 */
export function bidiagonalValues(d: Float64Array, e: Float64Array, m: number, out: Float64Array): number {
  const it = dqdsValues(d, e, m, out);
  return it >= 0 ? it : golubKahanValues(d, e, m, out);
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
 * −1 after iterationCaps.qlPerValue·n (LAPACK's 30·n) without convergence.
 */
export function sterf(n: number, d: Float64Array, e: Float64Array): number {
  const nmaxit = iterationCaps.qlPerValue * n;
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

// ---- dqds (LAPACK dlasq1–dlasq6): singular values of a bidiagonal to high relative accuracy ----

/** dlamch('Precision') = 2^-52 and dlamch('Safe minimum') = 2^-1022, as dlasq2–dlasq6 use them. */
const EPS_DQDS: number = 2.220446049250313e-16;
const SAFMIN_DQDS: number = 2.2250738585072014e-308;
/** dlasq2's deflation tolerance 100·eps, and its square (the qd array holds squares). */
const TOL_DQDS: number = 100 * EPS_DQDS;
const TOL2_DQDS: number = TOL_DQDS * TOL_DQDS;
/** dlasq2/dlasq3's CBIAS: reverse a segment whose last q exceeds 1.5 times its first. */
const CBIAS: number = 1.5;
/** dlasq1's scale sqrt(eps/safmin) = 2^485 (exact), here as 2^484 so max|B| lands in [2^484, 2^485). */
const DQDS_SCALE: number = 4.994797680505588e145; // 2^484
const DQDS_UNSCALE: number = 2.002083095183101e-146; // 2^-484

// the state dlasq2 passes to dlasq3, dlasq4, dlasq5 and dlasq6 by reference (module globals, as in the wasm
// kernel); zq is the qd array, zq[i] its 1-based entry i
let zq = new Float64Array(0);
let qI0: number = 0;
let qN0: number = 0;
let qPP: number = 0;
let qDmin: number = 0;
let qSigma: number = 0;
let qDesig: number = 0;
let qQmax: number = 0;
let qIter: number = 0;
let qTtype: number = 0;
let qDmin1: number = 0;
let qDmin2: number = 0;
let qDn: number = 0;
let qDn1: number = 0;
let qDn2: number = 0;
let qG: number = 0;
let qTau: number = 0;

function Z(i: number): number {
  return zq[i]!;
}

function SZ(i: number, x: number): void {
  zq[i] = x;
}

/** Swap 1-based qd entries i and j. */
function swapZ(i: number, j: number): void {
  const t = Z(i);
  SZ(i, Z(j));
  SZ(j, t);
}

/** Reverse the segment i0..n0 of the qd array, both ping-pong halves (dlasq2 loop 120, dlasq3 loop 60). */
function reverseSegment(i0: number, n0: number): void {
  const ipn4 = 4 * (i0 + n0);
  for (let i4 = 4 * i0; i4 <= 2 * (i0 + n0 - 1); i4 += 4) {
    swapZ(i4 - 3, ipn4 - i4 - 3);
    swapZ(i4 - 2, ipn4 - i4 - 2);
    swapZ(i4 - 1, ipn4 - i4 - 5);
    swapZ(i4, ipn4 - i4 - 4);
  }
}

// dlas2's results
let ssminG: number = 0;
let ssmaxG: number = 0;

/** Singular values ssminG <= ssmaxG of [[f, g], [0, h]] (LAPACK dlas2). */
function las2(f: number, g: number, h: number): void {
  const fa = Math.abs(f);
  const ga = Math.abs(g);
  const ha = Math.abs(h);
  const fhmn = Math.min(fa, ha);
  const fhmx = Math.max(fa, ha);
  if (fhmn === 0) {
    ssminG = 0;
    if (fhmx === 0) ssmaxG = ga;
    else {
      const r = Math.min(fhmx, ga) / Math.max(fhmx, ga);
      ssmaxG = Math.max(fhmx, ga) * Math.sqrt(1 + r * r);
    }
  } else if (ga < fhmx) {
    const as = 1 + fhmn / fhmx;
    const at = (fhmx - fhmn) / fhmx;
    const au = (ga / fhmx) * (ga / fhmx);
    const c = 2 / (Math.sqrt(as * as + au) + Math.sqrt(at * at + au));
    ssminG = fhmn * c;
    ssmaxG = fhmx / c;
  } else {
    const au = fhmx / ga;
    if (au === 0) {
      ssminG = (fhmn * fhmx) / ga;
      ssmaxG = ga;
    } else {
      const as = 1 + fhmn / fhmx;
      const at = (fhmx - fhmn) / fhmx;
      const c = 1 / (Math.sqrt(1 + as * au * (as * au)) + Math.sqrt(1 + at * au * (at * au)));
      const s = fhmn * c * au;
      ssminG = s + s;
      ssmaxG = ga / (c + c);
    }
  }
}

/** One dqds step with shift qTau on the segment qI0..qN0 (LAPACK dlasq5, IEEE arithmetic). */
function lasq5(): void {
  const i0 = qI0;
  const n0 = qN0;
  const pp = qPP;
  const tau0 = qTau;
  if (n0 - i0 - 1 <= 0) return;
  const dthresh = EPS_DQDS * (qSigma + tau0);
  const tau: number = tau0 < dthresh * 0.5 ? 0 : tau0;
  qTau = tau;
  const zeroSmall = tau === 0; // a zero shift: d below dthresh is set to zero
  let j4 = 4 * i0 + pp - 3;
  let emin = Z(j4 + 4);
  let d = Z(j4) - tau;
  let dmin = d;
  qDmin1 = -Z(j4);
  if (pp === 0) {
    for (j4 = 4 * i0; j4 <= 4 * (n0 - 3); j4 += 4) {
      SZ(j4 - 2, d + Z(j4 - 1));
      const temp = Z(j4 + 1) / Z(j4 - 2);
      d = d * temp - tau;
      if (zeroSmall && d < dthresh) d = 0;
      dmin = Math.min(dmin, d);
      SZ(j4, Z(j4 - 1) * temp);
      emin = Math.min(Z(j4), emin);
    }
  } else {
    for (j4 = 4 * i0; j4 <= 4 * (n0 - 3); j4 += 4) {
      SZ(j4 - 3, d + Z(j4));
      const temp = Z(j4 + 2) / Z(j4 - 3);
      d = d * temp - tau;
      if (zeroSmall && d < dthresh) d = 0;
      dmin = Math.min(dmin, d);
      SZ(j4 - 1, Z(j4) * temp);
      emin = Math.min(Z(j4 - 1), emin);
    }
  }
  const dnm2 = d;
  qDmin2 = dmin;
  j4 = 4 * (n0 - 2) - pp;
  let j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm2 + Z(j4p2));
  SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
  const dnm1 = Z(j4p2 + 2) * (dnm2 / Z(j4 - 2)) - tau;
  dmin = Math.min(dmin, dnm1);
  qDmin1 = dmin;
  j4 += 4;
  j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm1 + Z(j4p2));
  SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
  const dn = Z(j4p2 + 2) * (dnm1 / Z(j4 - 2)) - tau;
  dmin = Math.min(dmin, dn);
  SZ(j4 + 2, dn);
  SZ(4 * n0 - pp, emin);
  qDmin = dmin;
  qDn = dn;
  qDn1 = dnm1;
  qDn2 = dnm2;
}

/** One dqd step (zero shift) on the segment qI0..qN0 (LAPACK dlasq6). */
function lasq6(): void {
  const i0 = qI0;
  const n0 = qN0;
  const pp = qPP;
  if (n0 - i0 - 1 <= 0) return;
  let j4 = 4 * i0 + pp - 3;
  let emin = Z(j4 + 4);
  let d = Z(j4);
  let dmin = d;
  if (pp === 0) {
    for (j4 = 4 * i0; j4 <= 4 * (n0 - 3); j4 += 4) {
      SZ(j4 - 2, d + Z(j4 - 1));
      if (Z(j4 - 2) === 0) {
        SZ(j4, 0);
        d = Z(j4 + 1);
        dmin = d;
        emin = 0;
      } else if (SAFMIN_DQDS * Z(j4 + 1) < Z(j4 - 2) && SAFMIN_DQDS * Z(j4 - 2) < Z(j4 + 1)) {
        const temp = Z(j4 + 1) / Z(j4 - 2);
        SZ(j4, Z(j4 - 1) * temp);
        d *= temp;
      } else {
        SZ(j4, Z(j4 + 1) * (Z(j4 - 1) / Z(j4 - 2)));
        d = Z(j4 + 1) * (d / Z(j4 - 2));
      }
      dmin = Math.min(dmin, d);
      emin = Math.min(emin, Z(j4));
    }
  } else {
    for (j4 = 4 * i0; j4 <= 4 * (n0 - 3); j4 += 4) {
      SZ(j4 - 3, d + Z(j4));
      if (Z(j4 - 3) === 0) {
        SZ(j4 - 1, 0);
        d = Z(j4 + 2);
        dmin = d;
        emin = 0;
      } else if (SAFMIN_DQDS * Z(j4 + 2) < Z(j4 - 3) && SAFMIN_DQDS * Z(j4 - 3) < Z(j4 + 2)) {
        const temp = Z(j4 + 2) / Z(j4 - 3);
        SZ(j4 - 1, Z(j4) * temp);
        d *= temp;
      } else {
        SZ(j4 - 1, Z(j4 + 2) * (Z(j4) / Z(j4 - 3)));
        d = Z(j4 + 2) * (d / Z(j4 - 3));
      }
      dmin = Math.min(dmin, d);
      emin = Math.min(emin, Z(j4 - 1));
    }
  }
  const dnm2 = d;
  qDmin2 = dmin;
  // the last two steps (dlasq6 spells them out)
  let dnm1: number = 0;
  let j4p2: number = 0;
  j4 = 4 * (n0 - 2) - pp;
  j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm2 + Z(j4p2));
  if (Z(j4 - 2) === 0) {
    SZ(j4, 0);
    dnm1 = Z(j4p2 + 2);
    dmin = dnm1;
    emin = 0;
  } else if (SAFMIN_DQDS * Z(j4p2 + 2) < Z(j4 - 2) && SAFMIN_DQDS * Z(j4 - 2) < Z(j4p2 + 2)) {
    const temp = Z(j4p2 + 2) / Z(j4 - 2);
    SZ(j4, Z(j4p2) * temp);
    dnm1 = dnm2 * temp;
  } else {
    SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
    dnm1 = Z(j4p2 + 2) * (dnm2 / Z(j4 - 2));
  }
  dmin = Math.min(dmin, dnm1);
  qDmin1 = dmin;
  j4 += 4;
  j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm1 + Z(j4p2));
  let dn: number = 0;
  if (Z(j4 - 2) === 0) {
    SZ(j4, 0);
    dn = Z(j4p2 + 2);
    dmin = dn;
    emin = 0;
  } else if (SAFMIN_DQDS * Z(j4p2 + 2) < Z(j4 - 2) && SAFMIN_DQDS * Z(j4 - 2) < Z(j4p2 + 2)) {
    const temp = Z(j4p2 + 2) / Z(j4 - 2);
    SZ(j4, Z(j4p2) * temp);
    dn = dnm1 * temp;
  } else {
    SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
    dn = Z(j4p2 + 2) * (dnm1 / Z(j4 - 2));
  }
  dmin = Math.min(dmin, dn);
  SZ(j4 + 2, dn);
  SZ(4 * n0 - pp, emin);
  qDmin = dmin;
  qDn = dn;
  qDn1 = dnm1;
  qDn2 = dnm2;
}

/** dlasq4's constants. */
const CNST1: number = 0.563;
const CNST2: number = 1.01;
const CNST3: number = 1.05;
const THIRD: number = 0.333;

/**
 * The shift qTau for the next dqds step from the last one's dmin, dn, dn1, dn2 (LAPACK dlasq4;
 * its early returns leave qTau as it was, as dlasq4 leaves TAU).
 */
function lasq4(n0in: number): void {
  const i0 = qI0;
  const n0 = qN0;
  const pp = qPP;
  const dmin = qDmin;
  const dmin1 = qDmin1;
  const dmin2 = qDmin2;
  const dn = qDn;
  const dn1 = qDn1;
  const dn2 = qDn2;
  if (dmin <= 0) {
    qTau = -dmin;
    qTtype = -1;
    return;
  }
  const nn = 4 * n0 + pp;
  let s: number = 0;
  let a2: number = 0;
  let b1: number = 0;
  let b2: number = 0;
  let gam: number = 0;
  let gap2: number = 0;
  let np: number = 0;
  if (n0in === n0) {
    if (dmin === dn || dmin === dn1) {
      b1 = Math.sqrt(Z(nn - 3)) * Math.sqrt(Z(nn - 5));
      b2 = Math.sqrt(Z(nn - 7)) * Math.sqrt(Z(nn - 9));
      a2 = Z(nn - 7) + Z(nn - 5);
      if (dmin === dn && dmin1 === dn1) {
        gap2 = dmin2 - a2 - dmin2 * 0.25;
        let gap1: number;
        if (gap2 > 0 && gap2 > b2) gap1 = a2 - dn - (b2 / gap2) * b2;
        else gap1 = a2 - dn - (b1 + b2);
        if (gap1 > 0 && gap1 > b1) {
          s = Math.max(dn - (b1 / gap1) * b1, 0.5 * dmin);
          qTtype = -2;
        } else {
          s = 0;
          if (dn > b1) s = dn - b1;
          if (a2 > b1 + b2) s = Math.min(s, a2 - (b1 + b2));
          s = Math.max(s, THIRD * dmin);
          qTtype = -3;
        }
      } else {
        qTtype = -4;
        s = 0.25 * dmin;
        if (dmin === dn) {
          gam = dn;
          a2 = 0;
          if (Z(nn - 5) > Z(nn - 7)) return;
          b2 = Z(nn - 5) / Z(nn - 7);
          np = nn - 9;
        } else {
          np = nn - 2 * pp;
          gam = dn1;
          if (Z(np - 4) > Z(np - 2)) return;
          a2 = Z(np - 4) / Z(np - 2);
          if (Z(nn - 9) > Z(nn - 11)) return;
          b2 = Z(nn - 9) / Z(nn - 11);
          np = nn - 13;
        }
        a2 += b2;
        for (let i4 = np; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          if (b2 === 0) break;
          b1 = b2;
          if (Z(i4) > Z(i4 - 2)) return;
          b2 *= Z(i4) / Z(i4 - 2);
          a2 += b2;
          if (100 * Math.max(b2, b1) < a2 || CNST1 < a2) break;
        }
        a2 *= CNST3;
        if (a2 < CNST1) s = (gam * (1 - Math.sqrt(a2))) / (1 + a2);
      }
    } else if (dmin === dn2) {
      qTtype = -5;
      s = 0.25 * dmin;
      np = nn - 2 * pp;
      b1 = Z(np - 2);
      b2 = Z(np - 6);
      gam = dn2;
      if (Z(np - 8) > b2 || Z(np - 4) > b1) return;
      a2 = (Z(np - 8) / b2) * (1 + Z(np - 4) / b1);
      if (n0 - i0 > 2) {
        b2 = Z(nn - 13) / Z(nn - 15);
        a2 += b2;
        for (let i4 = nn - 17; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          if (b2 === 0) break;
          b1 = b2;
          if (Z(i4) > Z(i4 - 2)) return;
          b2 *= Z(i4) / Z(i4 - 2);
          a2 += b2;
          if (100 * Math.max(b2, b1) < a2 || CNST1 < a2) break;
        }
        a2 *= CNST3;
      }
      if (a2 < CNST1) s = (gam * (1 - Math.sqrt(a2))) / (1 + a2);
    } else {
      if (qTtype === -6) qG += THIRD * (1 - qG);
      else if (qTtype === -18) qG = 0.25 * THIRD;
      else qG = 0.25;
      s = qG * dmin;
      qTtype = -6;
    }
  } else if (n0in === n0 + 1) {
    if (dmin1 === dn1 && dmin2 === dn2) {
      qTtype = -7;
      s = THIRD * dmin1;
      if (Z(nn - 5) > Z(nn - 7)) return;
      b1 = Z(nn - 5) / Z(nn - 7);
      b2 = b1;
      if (b2 !== 0) {
        for (let i4 = 4 * n0 - 9 + pp; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          a2 = b1;
          if (Z(i4) > Z(i4 - 2)) return;
          b1 *= Z(i4) / Z(i4 - 2);
          b2 += b1;
          if (100 * Math.max(b1, a2) < b2) break;
        }
      }
      b2 = Math.sqrt(CNST3 * b2);
      a2 = dmin1 / (1 + b2 * b2);
      gap2 = 0.5 * dmin2 - a2;
      if (gap2 > 0 && gap2 > b2 * a2) s = Math.max(s, a2 * (1 - CNST2 * a2 * (b2 / gap2) * b2));
      else {
        s = Math.max(s, a2 * (1 - CNST2 * b2));
        qTtype = -8;
      }
    } else {
      s = 0.25 * dmin1;
      if (dmin1 === dn1) s = 0.5 * dmin1;
      qTtype = -9;
    }
  } else if (n0in === n0 + 2) {
    if (dmin2 === dn2 && 2 * Z(nn - 5) < Z(nn - 7)) {
      qTtype = -10;
      s = THIRD * dmin2;
      if (Z(nn - 5) > Z(nn - 7)) return;
      b1 = Z(nn - 5) / Z(nn - 7);
      b2 = b1;
      if (b2 !== 0) {
        for (let i4 = 4 * n0 - 9 + pp; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          if (Z(i4) > Z(i4 - 2)) return;
          b1 *= Z(i4) / Z(i4 - 2);
          b2 += b1;
          if (100 * b1 < b2) break;
        }
      }
      b2 = Math.sqrt(CNST3 * b2);
      a2 = dmin2 / (1 + b2 * b2);
      gap2 = Z(nn - 7) + Z(nn - 9) - Math.sqrt(Z(nn - 11)) * Math.sqrt(Z(nn - 9)) - a2;
      if (gap2 > 0 && gap2 > b2 * a2) s = Math.max(s, a2 * (1 - CNST2 * a2 * (b2 / gap2) * b2));
      else s = Math.max(s, a2 * (1 - CNST2 * b2));
    } else {
      s = 0.25 * dmin2;
      qTtype = -11;
    }
  } else if (n0in > n0 + 2) {
    s = 0;
    qTtype = -12;
  }
  qTau = s;
}

/**
 * Deflate converged values at the bottom of qI0..qN0, then one dqds step with a shift from
 * {@link lasq4} (retried smaller if it fails), or a dqd step (LAPACK dlasq3).
 */
function lasq3(): void {
  const n0in = qN0;
  // deflation (dlasq3 labels 10–40)
  while (true) {
    if (qN0 < qI0) return;
    const n0 = qN0;
    const pp = qPP;
    if (n0 === qI0) {
      SZ(4 * n0 - 3, Z(4 * n0 + pp - 3) + qSigma);
      qN0--;
      continue;
    }
    const nn = 4 * n0 + pp;
    if (n0 !== qI0 + 1) {
      if (!(Z(nn - 5) > TOL2_DQDS * (qSigma + Z(nn - 3)) && Z(nn - 2 * pp - 4) > TOL2_DQDS * Z(nn - 7))) {
        SZ(4 * n0 - 3, Z(4 * n0 + pp - 3) + qSigma);
        qN0--;
        continue;
      }
      if (Z(nn - 9) > TOL2_DQDS * qSigma && Z(nn - 2 * pp - 8) > TOL2_DQDS * Z(nn - 11)) break;
    }
    // two eigenvalues of the trailing 2×2
    if (Z(nn - 3) > Z(nn - 7)) swapZ(nn - 3, nn - 7);
    let t = 0.5 * (Z(nn - 7) - Z(nn - 3) + Z(nn - 5));
    if (Z(nn - 5) > Z(nn - 3) * TOL2_DQDS && t !== 0) {
      let s = Z(nn - 3) * (Z(nn - 5) / t);
      if (s <= t) s = Z(nn - 3) * (Z(nn - 5) / (t * (1 + Math.sqrt(1 + s / t))));
      else s = Z(nn - 3) * (Z(nn - 5) / (t + Math.sqrt(t) * Math.sqrt(t + s)));
      t = Z(nn - 7) + (s + Z(nn - 5));
      SZ(nn - 3, Z(nn - 3) * (Z(nn - 7) / t));
      SZ(nn - 7, t);
    }
    SZ(4 * n0 - 7, Z(nn - 7) + qSigma);
    SZ(4 * n0 - 3, Z(nn - 3) + qSigma);
    qN0 -= 2;
  }
  if (qPP === 2) qPP = 0;
  const i0 = qI0;
  const n0 = qN0;
  // reverse the segment if its bottom q is much larger than its top (dlasq3 label 50)
  if (qDmin <= 0 || n0 < n0in) {
    const pp = qPP;
    if (CBIAS * Z(4 * i0 + pp - 3) < Z(4 * n0 + pp - 3)) {
      reverseSegment(i0, n0);
      if (n0 - i0 <= 4) {
        SZ(4 * n0 + pp - 1, Z(4 * i0 + pp - 1));
        SZ(4 * n0 - pp, Z(4 * i0 - pp));
      }
      qDmin2 = Math.min(qDmin2, Z(4 * n0 + pp - 1));
      SZ(4 * n0 + pp - 1, Math.min(Z(4 * n0 + pp - 1), Math.min(Z(4 * i0 + pp - 1), Z(4 * i0 + pp + 3))));
      SZ(4 * n0 - pp, Math.min(Z(4 * n0 - pp), Math.min(Z(4 * i0 - pp), Z(4 * i0 - pp + 4))));
      qQmax = Math.max(qQmax, Math.max(Z(4 * i0 + pp - 3), Z(4 * i0 + pp + 1)));
      qDmin = -0.0;
    }
  }
  lasq4(n0in);
  let zeroShift = false;
  while (true) {
    lasq5();
    qIter++;
    if (qDmin >= 0 && qDmin1 >= 0) break;
    if (
      qDmin < 0 &&
      qDmin1 > 0 &&
      Z(4 * (n0 - 1) - qPP) < TOL_DQDS * (qSigma + qDn1) &&
      Math.abs(qDn) < TOL_DQDS * qSigma
    ) {
      // convergence hidden by a negative dn
      SZ(4 * (n0 - 1) - qPP + 2, 0);
      qDmin = 0;
      break;
    }
    if (qDmin < 0) {
      // the shift failed: retry with a smaller one
      if (qTtype < -22) qTau = 0;
      else if (qDmin1 > 0) {
        qTau = (qTau + qDmin) * (1 - 2 * EPS_DQDS);
        qTtype -= 11;
      } else {
        qTau = 0.25 * qTau;
        qTtype -= 12;
      }
      continue;
    }
    if (isNaN(qDmin)) {
      if (qTau === 0) {
        zeroShift = true;
        break;
      }
      qTau = 0;
      continue;
    }
    zeroShift = true;
    break;
  }
  if (zeroShift) {
    lasq6();
    qIter++;
    qTau = 0;
  }
  // sigma += tau, the rounding error carried in desig
  let t: number;
  if (qTau < qSigma) {
    qDesig += qTau;
    t = qSigma + qDesig;
    qDesig -= t - qSigma;
  } else {
    t = qSigma + qTau;
    qDesig = qSigma - (t - qTau) + qDesig;
  }
  qSigma = t;
}

/**
 * Eigenvalues of the qd array at zq (1-based, q_i = Z(2i−1), e_i = Z(2i), n >= 3, 4n values) into
 * Z(1..n), descending (LAPACK dlasq2 with IEEE arithmetic). Returns 0, or dlasq2's INFO > 0 when
 * it did not converge (1: a negative shift sum; 2: the inner loop ran out; 3: the outer one), or
 * < 0 for a negative entry.
 */
function lasq2(n: number): number {
  SZ(2 * n, 0);
  let d: number = 0;
  let e: number = 0;
  for (let k = 1; k <= 2 * (n - 1); k += 2) {
    if (Z(k) < 0) return -(200 + k);
    if (Z(k + 1) < 0) return -(200 + k + 1);
    d += Z(k);
    e += Z(k + 1);
  }
  if (Z(2 * n - 1) < 0) return -(200 + 2 * n - 1);
  d += Z(2 * n - 1);
  if (e === 0) {
    // diagonal: the values are the q
    for (let k = 2; k <= n; k++) SZ(k, Z(2 * k - 1));
    sortDescending(zq.subarray(1, n + 1));
    return 0;
  }
  const trace = d + e;
  if (trace === 0) {
    for (let k = 1; k <= n; k++) SZ(k, 0);
    return 0;
  }
  // spread into the ping-pong layout: q_i at 4i−3, e_i at 4i−1
  for (let k = 2 * n; k >= 2; k -= 2) {
    SZ(2 * k, 0);
    SZ(2 * k - 1, Z(k));
    SZ(2 * k - 2, 0);
    SZ(2 * k - 3, Z(k - 1));
  }
  const i0 = 1;
  const n0 = n;
  if (CBIAS * Z(4 * i0 - 3) < Z(4 * n0 - 3)) {
    const ipn4 = 4 * (i0 + n0);
    for (let i4 = 4 * i0; i4 <= 2 * (i0 + n0 - 1); i4 += 4) {
      swapZ(i4 - 3, ipn4 - i4 - 3);
      swapZ(i4 - 1, ipn4 - i4 - 5);
    }
  }
  // two dqd steps with splitting on small e, filling both halves
  let pp = 0;
  for (let k = 1; k <= 2; k++) {
    d = Z(4 * n0 + pp - 3);
    for (let i4 = 4 * (n0 - 1) + pp; i4 >= 4 * i0 + pp; i4 -= 4) {
      if (Z(i4 - 1) <= TOL2_DQDS * d) {
        SZ(i4 - 1, -0.0);
        d = Z(i4 - 3);
      } else d = Z(i4 - 3) * (d / (d + Z(i4 - 1)));
    }
    d = Z(4 * i0 + pp - 3);
    for (let i4 = 4 * i0 + pp; i4 <= 4 * (n0 - 1) + pp; i4 += 4) {
      SZ(i4 - 2 * pp - 2, d + Z(i4 - 1));
      if (Z(i4 - 1) <= TOL2_DQDS * d) {
        SZ(i4 - 1, -0.0);
        SZ(i4 - 2 * pp - 2, d);
        SZ(i4 - 2 * pp, 0);
        d = Z(i4 + 1);
      } else if (SAFMIN_DQDS * Z(i4 + 1) < Z(i4 - 2 * pp - 2) && SAFMIN_DQDS * Z(i4 - 2 * pp - 2) < Z(i4 + 1)) {
        const temp = Z(i4 + 1) / Z(i4 - 2 * pp - 2);
        SZ(i4 - 2 * pp, Z(i4 - 1) * temp);
        d *= temp;
      } else {
        SZ(i4 - 2 * pp, Z(i4 + 1) * (Z(i4 - 1) / Z(i4 - 2 * pp - 2)));
        d = Z(i4 + 1) * (d / Z(i4 - 2 * pp - 2));
      }
    }
    SZ(4 * n0 - pp - 2, d);
    pp = 1 - pp;
  }
  qTtype = 0;
  qDmin1 = 0;
  qDmin2 = 0;
  qDn = 0;
  qDn1 = 0;
  qDn2 = 0;
  qG = 0;
  qTau = 0;
  qIter = 2;
  qI0 = i0;
  qN0 = n0;
  let done = false;
  for (let iwhila = 1; iwhila <= n + 1; iwhila++) {
    if (qN0 < 1) {
      done = true;
      break;
    }
    // the unreduced segment qI0..qN0 at the bottom, its sigma, qmin, emax, qmax
    qDesig = 0;
    qSigma = qN0 === n ? 0 : -Z(4 * qN0 - 1);
    if (qSigma < 0) return 1;
    let emax: number = 0;
    let qmin = Z(4 * qN0 - 3);
    let qmax = qmin;
    let i4 = 4 * qN0;
    for (; i4 >= 8; i4 -= 4) {
      if (Z(i4 - 5) <= 0) break;
      if (qmin >= 4 * emax) {
        qmin = Math.min(qmin, Z(i4 - 3));
        emax = Math.max(emax, Z(i4 - 5));
      }
      qmax = Math.max(qmax, Z(i4 - 7) + Z(i4 - 5));
    }
    if (i4 < 8) i4 = 4;
    qI0 = i4 >> 2;
    qPP = 0;
    if (qN0 - qI0 > 1) {
      // reverse if the smallest value's d lies near the top
      let dee = Z(4 * qI0 - 3);
      let deemin = dee;
      let kmin = qI0;
      for (let j4 = 4 * qI0 + 1; j4 <= 4 * qN0 - 3; j4 += 4) {
        dee = Z(j4) * (dee / (dee + Z(j4 - 2)));
        if (dee <= deemin) {
          deemin = dee;
          kmin = (j4 + 3) >> 2;
        }
      }
      if ((kmin - qI0) * 2 < qN0 - kmin && deemin <= 0.5 * Z(4 * qN0 - 3)) {
        reverseSegment(qI0, qN0);
        qPP = 2;
      }
    }
    qQmax = qmax;
    qDmin = -Math.max(0, qmin - 2 * Math.sqrt(qmin) * Math.sqrt(emax));
    const nbig = iterationCaps.dqdsPerValue * (qN0 - qI0 + 1);
    let segmentDone = false;
    for (let iwhilb = 1; iwhilb <= nbig; iwhilb++) {
      if (qI0 > qN0) {
        segmentDone = true;
        break;
      }
      lasq3();
      qPP = 1 - qPP;
      // split where an e fell below the tolerance
      if (qPP === 0 && qN0 - qI0 >= 3) {
        if (Z(4 * qN0) <= TOL2_DQDS * qQmax || Z(4 * qN0 - 1) <= TOL2_DQDS * qSigma) {
          let splt = qI0 - 1;
          qQmax = Z(4 * qI0 - 3);
          let emin2 = Z(4 * qI0 - 1);
          let oldemn = Z(4 * qI0);
          for (let j4 = 4 * qI0; j4 <= 4 * (qN0 - 3); j4 += 4) {
            if (Z(j4) <= TOL2_DQDS * Z(j4 - 3) || Z(j4 - 1) <= TOL2_DQDS * qSigma) {
              SZ(j4 - 1, -qSigma);
              splt = j4 >> 2;
              qQmax = 0;
              emin2 = Z(j4 + 3);
              oldemn = Z(j4 + 4);
            } else {
              qQmax = Math.max(qQmax, Z(j4 + 1));
              emin2 = Math.min(emin2, Z(j4 - 1));
              oldemn = Math.min(oldemn, Z(j4));
            }
          }
          SZ(4 * qN0 - 1, emin2);
          SZ(4 * qN0, oldemn);
          qI0 = splt + 1;
        }
      }
    }
    if (!segmentDone) return 2;
  }
  if (!done) return 3;
  for (let k = 2; k <= n; k++) SZ(k, Z(4 * k - 3));
  sortDescending(zq.subarray(1, n + 1));
  return 0;
}

/** Sort in place, descending. */
function sortDescending(x: Float64Array): void {
  x.sort();
  x.reverse();
}

/**
 * Singular values (descending) of the upper bidiagonal with diagonal d and superdiagonal e (m
 * values each, e[m−1] unused; not modified) into out by dqds (LAPACK dlasq1: B scaled by an exact
 * power of two so max|B| lies in [2^484, 2^485), squared into the qd array, dlasq2, square roots;
 * see the file comment). Returns the dqds iterations, or −(dlasq2's INFO) when it did not
 * converge (out then not written).
 */
export function dqdsValues(d: Float64Array, e: Float64Array, m: number, out: Float64Array): number {
  qIter = 0;
  if (m === 0) return 0;
  if (m === 1) {
    out[0] = Math.abs(d[0]!);
    return 0;
  }
  if (m === 2) {
    las2(d[0]!, e[0]!, d[1]!);
    out[0] = ssmaxG;
    out[1] = ssminG;
    return 0;
  }
  let emax = 0;
  for (let i = 0; i < m - 1; i++) emax = Math.max(emax, Math.abs(e[i]!));
  if (emax === 0) {
    for (let i = 0; i < m; i++) out[i] = Math.abs(d[i]!);
    sortDescending(out.subarray(0, m));
    return 0;
  }
  let sigmx = emax;
  for (let i = 0; i < m; i++) sigmx = Math.max(sigmx, Math.abs(d[i]!));
  const g = safeScale(sigmx);
  zq = new Float64Array(4 * m + 1);
  for (let i = 0; i < m; i++) {
    const q = d[i]! * g * DQDS_SCALE;
    SZ(2 * i + 1, q * q);
    if (i < m - 1) {
      const x = e[i]! * g * DQDS_SCALE;
      SZ(2 * i + 2, x * x);
    }
  }
  SZ(2 * m, 0);
  const info = lasq2(m);
  if (info !== 0) return info > 0 ? -info : info;
  for (let i = 0; i < m; i++) out[i] = (Math.sqrt(Z(i + 1)) * DQDS_UNSCALE) / g;
  return qIter;
}
