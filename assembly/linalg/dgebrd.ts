// Singular values of a square matrix without vectors: Householder bidiagonalisation and dqds
// (LAPACK dlasq1–dlasq6) on the bidiagonal, with root-free QL (LAPACK dsterf) on the 2m×2m
// Golub–Kahan tridiagonal as the fallback. The wasm backend's squareSvdvals (svdvals, rank and
// StreamingQR.svdvals on R with balanced columns); the reference backend computes the same values
// by one-sided Jacobi (src/linalg/gesvj.ts jacobiSvdvals), and test/linalg/bidiag.test.ts holds
// this kernel to oracles: Kahan's bisection on the bidiagonal, ml-matrix's SVD, closed forms.
//
// 1. B = Uᵀ(sA)V upper bidiagonal (LAPACK dgebd2's reflectors: for k = 0..m−1 a left reflector
//    H_k = I − τ_k u uᵀ zeroes column k below the diagonal, then a right reflector
//    G_k = I − π_k v vᵀ zeroes row k right of the superdiagonal). A is row-major, and each step is
//    ONE pass over the rows of the trailing block, each row r taking, while it is in cache,
//      a ← a − τ_k u_r w − π_k x_r v   (both reflectors at once)
//      z ← z + a_0 · a                 (rows after k+1: the next step's w, unscaled)
//    where w = Σ_r u_r a_r is formed before the pass, v comes from row k (updated first), and
//    x_r = a·v − τ_k u_r (w·v) is the right reflector's product with the row after the left one,
//    formed from the row before it (as LAPACK dlabrd forms its products from the not yet updated
//    matrix). With u' = (1, a_0/(α'−β'), …) the next w' = (row k+1) + z/(α'−β') needs no pass of
//    its own (LAPACK's dgebd2 makes 4 passes per step: a gemv and a rank-1 update per reflector).
//    When |α'−β'| < 2^-500 the next w is formed by its own pass over the explicitly divided u'
//    instead (no reciprocal that could overflow, no z whose products underflow). Rows go in
//    pairs, sharing the loads of w, v and z, and the next pair's dot products a·v are formed in
//    the current pair's update loop, so the pass streams the block once without a
//    load-then-compute stall per pair; sums run in f64x2 lanes.
// 2. The singular values of B by dqds (dqdsValues: LAPACK dlasq1–dlasq6, the
//    differential quotient-difference algorithm with shifts of Fernando–Parlett, as dgesdd and
//    dbdsqr without vectors use it): B is scaled by the exact power of two that brings max|B| into
//    [2^484, 2^485) (dlasq1's sqrt(eps/safmin) = 2^485, there reached by a rounded ratio), the
//    squares q_i = d_i², e_i = e_i² go into the ping-pong qd array of 4m values, and dqds steps
//    with dlasq4's shifts converge the values from the bottom, deflating one or two at a time and
//    splitting where an e_i falls below 100·eps relative. O(m²) with a small constant, and each σ
//    to high relative accuracy (a few m·eps of itself, Demmel–Kahan 1990, Fernando–Parlett 1994).
//    If dqds does not converge (dlasq2's INFO > 0; never seen), dbdsvdvals' fallback instead:
//    the 2m×2m Golub–Kahan tridiagonal T (zero diagonal, off-diagonal d_0, e_0, d_1, e_1, …,
//    d_{m−1}) is permutation-similar to [[0, B], [Bᵀ, 0]]: its eigenvalues are ±σ_i. They are
//    computed by root-free QL (sterf, LAPACK dsterf; ./tridiag.ts tql2 if it does not
//    converge) on T scaled by the exact power of two that brings max|T| into [1, 2) (QL
//    multiplies two off-diagonals: at 1e-200 they would underflow), sorted descending as
//    λ_0 >= … >= λ_{2m−1}, and σ_i = (λ_i − λ_{2m−1−i})/2 (both halves of the ± pair, so σ_i >= 0
//    even for σ at the rounding level).
//
// Accuracy (normwise backward stable, the class of the eigh-preconditioned Jacobi that computes
// the values with vectors):
// Householder bidiagonalisation gives B exactly for sA + E with ||E||_2 <= c·m·eps·||sA||_2 in
// practice (the rigorous worst case is γ_{c·m²}·||sA||_F, Higham Thm 19.4 applied to both sides);
// dqds gives each σ of B to a few m·eps relative, so within c'·eps·||B||_2 with c' a few m (QL:
// eigenvalues exact for T + F with ||F||_2 <= c'·eps·||T||_2 = c'·eps·||B||_2). By Weyl,
// |σ̂_i − σ_i| <= (c·m + c')·eps·σ_max: an absolute bound, so a σ at the rounding level of σ_max
// comes out at that level, and large σ to ~m·eps relative.
import { capDqdsPerValue, capQlPerValue } from './caps';
import { sortValues, tql2 } from './tridiag';
import { pow2Scale, vaxpy, vdot } from './vec';
import { ld8, st8 } from './mem';

/** Below this |α − β| the next step's w is formed by its own pass (1/(α − β) could overflow). */
const SMALL_DENOMINATOR: f64 = 3.054936363499605e-151; // 2^-500

/** Values of workspace {@link dgebrdSvdvals} needs for side m. */
export function dgebrdWork(m: i32): i32 {
  return 7 * m + dbdsvdvalsWork(m);
}

/** Euclidean norm of n values at stride `stride` (values), scaled by their largest magnitude. */
function scaledNorm(p: usize, n: i32, stride: i32): f64 {
  let amax: f64 = 0;
  for (let i = 0; i < n; i++) amax = max(amax, abs(ld8(p, i * stride)));
  if (amax == 0) return 0;
  let ss: f64 = 0;
  for (let i = 0; i < n; i++) {
    const x = ld8(p, i * stride) / amax;
    ss += x * x;
  }
  return amax * sqrt(ss);
}

// @ts-ignore: decorator
@inline function hypotSafe(a: f64, b: f64): f64 {
  const m = max(abs(a), abs(b));
  if (m == 0) return 0;
  const x = a / m;
  const y = b / m;
  return m * sqrt(x * x + y * y);
}

/**
 * Singular values (descending) of s·A for A m×m row-major (DESTROYED; s an exact power of two)
 * into out (m). work: {@link dgebrdWork}(m) values. Returns the dqds (or fallback QL) iterations,
 * or −1 if neither converged (out then not written).
 */
export function dgebrdSvdvals(A: usize, m: i32, s: f64, out: usize, work: usize): i32 {
  if (m <= 0) return 0;
  const mm = m * m;
  if (s != 1) for (let i = 0; i < mm; i++) st8(A, i, s * ld8(A, i));
  const M8 = <usize>m << 3;
  const d = work;
  const e = d + M8;
  const u = e + M8;
  const v = u + M8;
  const w = v + M8;
  const z = w + M8;
  const td = z + M8;
  const col = td + (<usize>dbdsvdvalsWork(m) << 3); // column k of A, rows k..m−1, contiguous
  memory.fill(work, 0, <usize>dgebrdWork(m) << 3); // u is read (times τ = 0) before it is first written
  for (let r = 0; r < m; r++) st8(col, r, ld8(A + <usize>r * M8, 0));
  let zValid = false;
  for (let k = 0; k < m; k++) {
    const rowK = A + <usize>k * M8;
    const n = m - k - 1;
    // left reflector from column k, rows k..m-1 (col: each pass leaves the next column there)
    const alpha = ld8(col, k);
    const xnorm = n > 0 ? scaledNorm(col + (<usize>(k + 1) << 3), n, 1) : 0;
    let tauL: f64 = 0;
    let den: f64 = 1;
    if (xnorm == 0) st8(d, k, alpha);
    else {
      const beta = -(alpha >= 0 ? 1.0 : -1.0) * hypotSafe(alpha, xnorm);
      tauL = (beta - alpha) / beta;
      den = alpha - beta;
      st8(d, k, beta);
      for (let r = k + 1; r < m; r++) st8(u, r, ld8(col, r) / den);
    }
    if (n == 0) break;
    const trailK = rowK + (<usize>(k + 1) << 3);
    if (tauL != 0) {
      if (zValid && abs(den) >= SMALL_DENOMINATOR) {
        const inv = 1 / den;
        for (let j = 0; j < n; j++) st8(w, j, ld8(trailK, j) + inv * ld8(z, j + 1));
      } else {
        memory.copy(w, trailK, <usize>n << 3);
        for (let r = k + 1; r < m; r++) vaxpy(n, ld8(u, r), A + <usize>r * M8 + (<usize>(k + 1) << 3), w);
      }
      vaxpy(n, -tauL, w, trailK);
    }
    // right reflector from row k, columns k+1..m-1
    const a2 = ld8(trailK, 0);
    const ynorm = n > 1 ? scaledNorm(trailK + 8, n - 1, 1) : 0;
    let tauR: f64 = 0;
    if (ynorm == 0) st8(e, k, a2);
    else {
      const beta = -(a2 >= 0 ? 1.0 : -1.0) * hypotSafe(a2, ynorm);
      tauR = (beta - a2) / beta;
      const dr = a2 - beta;
      st8(e, k, beta);
      st8(v, 0, 1);
      for (let j = 1; j < n; j++) st8(v, j, ld8(trailK, j) / dr);
    }
    // the fused pass over rows k+1..m-1 of the trailing block (row k+1 alone: it is not part of
    // the next w's sum; then rows in pairs, sharing the loads of w, v and z)
    if (tauL == 0) memory.fill(w, 0, <usize>n << 3);
    if (tauR == 0) memory.fill(v, 0, <usize>n << 3);
    memory.fill(z, 0, <usize>n << 3);
    const wv = vdot(n, w, v);
    const c8 = <usize>(k + 1) << 3;
    onePass(n, rowK + M8 + c8, tauL * ld8(u, k + 1), w, v, tauR, wv, z, false, col + c8);
    let r = k + 2;
    if (r + 2 <= m) pairDots(n, A + <usize>r * M8 + c8, A + <usize>(r + 1) * M8 + c8, v);
    for (; r + 2 <= m; r += 2) {
      const ra = A + <usize>r * M8 + c8;
      const cr = col + (<usize>r << 3);
      pairPass(n, ra, ra + M8, dotA, dotB, tauL * ld8(u, r), tauL * ld8(u, r + 1), w, v, tauR, wv, z, r + 4 <= m, cr);
    }
    if (r < m) onePass(n, A + <usize>r * M8 + c8, tauL * ld8(u, r), w, v, tauR, wv, z, true, col + (<usize>r << 3));
    zValid = true;
  }
  return dbdsvdvals(d, e, m, out, td);
}

/** Values of workspace {@link dbdsvdvals} needs for side m. */
export function dbdsvdvalsWork(m: i32): i32 {
  return 4 * m;
}

/**
 * Singular values (descending) of the upper bidiagonal with diagonal d and superdiagonal e (m
 * values each, e[m−1] unused; not modified) into out (m), by dqds ({@link dqdsValues}, LAPACK
 * dlasq1–dlasq6: high relative accuracy); if dqds does not converge, from the eigenvalues ±σ of
 * the 2m×2m Golub–Kahan tridiagonal by root-free QL (dsterf; QL with rotations if that does not
 * converge either). work: {@link dbdsvdvalsWork}(m) values. Returns the dqds (or QL) iterations,
 * or −1 if none converged (out then not written).
 */
export function dbdsvdvals(d: usize, e: usize, m: i32, out: usize, work: usize): i32 {
  if (m <= 0) return 0;
  if (dqdsValues(d, e, m, out, work) == 0) return qIter;
  const M8 = <usize>m << 3;
  const td = work;
  const te = td + 2 * M8;
  // zero diagonal, off-diagonal d0, e0, d1, …, d_{m-1}
  const n2 = 2 * m;
  memory.fill(td, 0, <usize>n2 << 3);
  memory.fill(te, 0, <usize>n2 << 3);
  let bmax: f64 = 0;
  for (let i = 0; i < m; i++) bmax = max(bmax, max(abs(ld8(d, i)), i < m - 1 ? abs(ld8(e, i)) : 0));
  const g = bmax > 0 ? pow2Scale(bmax) : 1; // QL forms products of two off-diagonals: keep them near 1
  for (let i = 0; i < m; i++) {
    st8(te, 2 * i, ld8(d, i) * g);
    if (i < m - 1) st8(te, 2 * i + 1, ld8(e, i) * g);
  }
  let it = sterf(n2, td, te);
  if (it < 0) {
    // root-free QL did not converge (never seen): QL with rotations on the same T
    memory.fill(td, 0, <usize>n2 << 3);
    memory.fill(te, 0, <usize>n2 << 3);
    for (let i = 0; i < m; i++) {
      st8(te, 2 * i, ld8(d, i) * g);
      if (i < m - 1) st8(te, 2 * i + 1, ld8(e, i) * g);
    }
    it = tql2(n2, td, te, 0, 0);
    if (it < 0) return it;
  }
  sortValues(td, n2);
  for (let i = 0; i < m; i++) st8(out, i, (ld8(td, n2 - 1 - i) - ld8(td, i)) / 2 / g);
  return it;
}

/**
 * One row a (n values) of the fused pass: x = a·v − t·(w·v) (the right reflector's product with
 * the row after the left reflector, formed from the row before it, as LAPACK dlabrd forms its
 * products from the not yet updated matrix), then a ← a − t·w − τ_R·x·v and, with `addZ`,
 * z += a_0·a (a_0 after the update). The row is stored once.
 */
function onePass(n: i32, a: usize, t: f64, w: usize, v: usize, tauR: f64, wv: f64, z: usize, addZ: bool, c: usize): void {
  const mx = -(tauR * (vdot(n, a, v) - t * wv));
  const mt = -t;
  const a0 = load<f64>(a) + mt * load<f64>(w) + mx * load<f64>(v);
  store<f64>(c, a0); // the row's entry of the next column: what the loop stores at a, bit for bit
  const vmt = f64x2.splat(mt);
  const vmx = f64x2.splat(mx);
  const va0 = f64x2.splat(addZ ? a0 : 0);
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const o = <usize>j << 3;
    const aw = f64x2.add(v128.load(a + o), f64x2.mul(vmt, v128.load(w + o)));
    const av = f64x2.add(aw, f64x2.mul(vmx, v128.load(v + o)));
    v128.store(a + o, av);
    v128.store(z + o, f64x2.add(v128.load(z + o), f64x2.mul(va0, av)));
  }
  if (j < n) {
    const o = <usize>j << 3;
    const ai = load<f64>(a + o) + mt * load<f64>(w + o) + mx * load<f64>(v + o);
    store<f64>(a + o, ai);
    store<f64>(z + o, load<f64>(z + o) + (addZ ? a0 : 0) * ai);
  }
}

// The dot products a·v, b·v of a row pair (module globals: no tuples under --runtime stub).
let dotA: f64 = 0;
let dotB: f64 = 0;

/** dotA = a·v, dotB = b·v over n values (f64x2 lanes, then the odd tail), rows and v loaded once. */
function pairDots(n: i32, a: usize, b: usize, v: usize): void {
  let xa = f64x2.splat(0);
  let xb = f64x2.splat(0);
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const o = <usize>j << 3;
    const vv = v128.load(v + o);
    xa = f64x2.add(xa, f64x2.mul(v128.load(a + o), vv));
    xb = f64x2.add(xb, f64x2.mul(v128.load(b + o), vv));
  }
  let sa = f64x2.extract_lane(xa, 0) + f64x2.extract_lane(xa, 1);
  let sb = f64x2.extract_lane(xb, 0) + f64x2.extract_lane(xb, 1);
  if (j < n) {
    const o = <usize>j << 3;
    sa += load<f64>(a + o) * load<f64>(v + o);
    sb += load<f64>(b + o) * load<f64>(v + o);
  }
  dotA = sa;
  dotB = sb;
}

/**
 * Two rows a, b of the fused pass ({@link onePass} on each, z += a_0·a + b_0·b at once), given
 * their dot products sa = a·v, sb = b·v ({@link pairDots}): one loop of updates (w, v and z loaded
 * once, each row stored once). With `next`, the same loop also forms the dot products of the
 * following pair (rows a + 2·stride, a + 3·stride, not yet updated) into dotA, dotB — the sums of
 * pairDots in the same order, so the result is that of a separate pass bit for bit — which lets
 * the next rows' loads overlap this pair's arithmetic.
 */
function pairPass(
  n: i32, a: usize, b: usize, sa: f64, sb: f64, ta: f64, tb: f64, w: usize, v: usize, tauR: f64, wv: f64, z: usize,
  next: bool, c: usize,
): void {
  const stride = b - a;
  const na = b + stride;
  const nb = na + stride;
  const mxa = -(tauR * (sa - ta * wv));
  const mxb = -(tauR * (sb - tb * wv));
  const mta = -ta;
  const mtb = -tb;
  const a0 = load<f64>(a) + mta * load<f64>(w) + mxa * load<f64>(v);
  const b0 = load<f64>(b) + mtb * load<f64>(w) + mxb * load<f64>(v);
  store<f64>(c, a0); // the rows' entries of the next column (what the loop stores, bit for bit)
  store<f64>(c, b0, 8);
  const vmta = f64x2.splat(mta);
  const vmtb = f64x2.splat(mtb);
  const vmxa = f64x2.splat(mxa);
  const vmxb = f64x2.splat(mxb);
  const va0 = f64x2.splat(a0);
  const vb0 = f64x2.splat(b0);
  let xa = f64x2.splat(0);
  let xb = f64x2.splat(0);
  let j = 0;
  if (next) {
    for (; j + 2 <= n; j += 2) {
      const o = <usize>j << 3;
      const wv2 = v128.load(w + o);
      const vv = v128.load(v + o);
      const av = f64x2.add(f64x2.add(v128.load(a + o), f64x2.mul(vmta, wv2)), f64x2.mul(vmxa, vv));
      const bv = f64x2.add(f64x2.add(v128.load(b + o), f64x2.mul(vmtb, wv2)), f64x2.mul(vmxb, vv));
      v128.store(a + o, av);
      v128.store(b + o, bv);
      v128.store(z + o, f64x2.add(v128.load(z + o), f64x2.add(f64x2.mul(va0, av), f64x2.mul(vb0, bv))));
      xa = f64x2.add(xa, f64x2.mul(v128.load(na + o), vv));
      xb = f64x2.add(xb, f64x2.mul(v128.load(nb + o), vv));
    }
  } else {
    for (; j + 2 <= n; j += 2) {
      const o = <usize>j << 3;
      const wv2 = v128.load(w + o);
      const vv = v128.load(v + o);
      const av = f64x2.add(f64x2.add(v128.load(a + o), f64x2.mul(vmta, wv2)), f64x2.mul(vmxa, vv));
      const bv = f64x2.add(f64x2.add(v128.load(b + o), f64x2.mul(vmtb, wv2)), f64x2.mul(vmxb, vv));
      v128.store(a + o, av);
      v128.store(b + o, bv);
      v128.store(z + o, f64x2.add(v128.load(z + o), f64x2.add(f64x2.mul(va0, av), f64x2.mul(vb0, bv))));
    }
  }
  let da = f64x2.extract_lane(xa, 0) + f64x2.extract_lane(xa, 1);
  let db = f64x2.extract_lane(xb, 0) + f64x2.extract_lane(xb, 1);
  if (j < n) {
    const o = <usize>j << 3;
    const ai = load<f64>(a + o) + mta * load<f64>(w + o) + mxa * load<f64>(v + o);
    const bi = load<f64>(b + o) + mtb * load<f64>(w + o) + mxb * load<f64>(v + o);
    store<f64>(a + o, ai);
    store<f64>(b + o, bi);
    store<f64>(z + o, load<f64>(z + o) + (a0 * ai + b0 * bi));
    if (next) {
      da += load<f64>(na + o) * load<f64>(v + o);
      db += load<f64>(nb + o) * load<f64>(v + o);
    }
  }
  if (next) {
    dotA = da;
    dotB = db;
  }
}

const EPS_STERF: f64 = 1.1102230246251565e-16; // 2^-53, LAPACK dlamch('E')
const EPS2_STERF: f64 = EPS_STERF * EPS_STERF;
/** LAPACK dsterf's scaling band sqrt(safmin)/eps² … sqrt(safmax)/3 (blocks outside it are scaled). */
const SSFMIN: f64 = 1.4916681462400413e-154 / (EPS_STERF * EPS_STERF);
const SSFMAX: f64 = 6.703903964971299e153 / 3;

// dlae2's results (module globals: no allocation under --runtime stub)
let rt1g: f64 = 0;
let rt2g: f64 = 0;

/** Eigenvalues rt1g, rt2g of [[a, b], [b, c]], |rt1| >= |rt2| (LAPACK dlae2). */
function lae2(a: f64, b: f64, c: f64): void {
  const sm = a + c;
  const adf = abs(a - c);
  const ab = abs(b + b);
  const big = abs(a) > abs(c);
  const acmx = big ? a : c;
  const acmn = big ? c : a;
  let rt: f64;
  if (adf > ab) rt = adf * sqrt(1 + (ab / adf) * (ab / adf));
  else if (adf < ab) rt = ab * sqrt(1 + (adf / ab) * (adf / ab));
  else rt = ab * 1.4142135623730951;
  if (sm < 0) {
    rt1g = 0.5 * (sm - rt);
    rt2g = (acmx / rt1g) * acmn - (b / rt1g) * b;
  } else if (sm > 0) {
    rt1g = 0.5 * (sm + rt);
    rt2g = (acmx / rt1g) * acmn - (b / rt1g) * b;
  } else {
    rt1g = 0.5 * rt;
    rt2g = -0.5 * rt;
  }
}

/**
 * Eigenvalues (into d, unsorted) of the symmetric tridiagonal (d, e) of size n with zero diagonal
 * on entry (e destroyed) by LAPACK dsterf's root-free QL (its QR branch never runs on a zero
 * diagonal); blocks outside its scaling band scaled by an exact power of two. Returns iterations
 * or −1.
 */
function sterf(n: i32, d: usize, e: usize): i32 {
  const nmaxit = capQlPerValue * n;
  let jtot = 0;
  let l1 = 0;
  while (l1 <= n - 1) {
    if (l1 > 0) st8(e, l1 - 1, 0);
    let m = l1;
    for (; m < n - 1; m++)
      if (abs(ld8(e, m)) <= sqrt(abs(ld8(d, m))) * sqrt(abs(ld8(d, m + 1))) * EPS_STERF) {
        st8(e, m, 0);
        break;
      }
    let l = l1;
    const lsv = l;
    const lend = m;
    const lendsv = lend;
    l1 = m + 1;
    if (lend == l) continue;
    let anorm: f64 = 0;
    for (let i = l; i <= lend; i++) anorm = max(anorm, abs(ld8(d, i)));
    for (let i = l; i < lend; i++) anorm = max(anorm, abs(ld8(e, i)));
    if (anorm == 0) continue;
    const g: f64 = anorm > SSFMAX || anorm < SSFMIN ? pow2Scale(anorm) : 1;
    if (g != 1) {
      for (let i = l; i <= lend; i++) st8(d, i, ld8(d, i) * g);
      for (let i = l; i < lend; i++) st8(e, i, ld8(e, i) * g);
    }
    for (let i = l; i < lend; i++) st8(e, i, ld8(e, i) * ld8(e, i));
    // dsterf takes QR instead when |d_lend| < |d_l|; on a zero diagonal it never does
    {
      // QL
      while (true) {
        let mm = lend;
        if (l != lend)
          for (mm = l; mm < lend; mm++) if (abs(ld8(e, mm)) <= EPS2_STERF * abs(ld8(d, mm) * ld8(d, mm + 1))) break;
        if (mm < lend) st8(e, mm, 0);
        let p = ld8(d, l);
        if (mm == l) {
          l++;
          if (l <= lend) continue;
          break;
        }
        if (mm == l + 1) {
          lae2(ld8(d, l), sqrt(ld8(e, l)), ld8(d, l + 1));
          st8(d, l, rt1g);
          st8(d, l + 1, rt2g);
          st8(e, l, 0);
          l += 2;
          if (l <= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        jtot++;
        const rte = sqrt(ld8(e, l));
        let sigma = (ld8(d, l + 1) - p) / (2 * rte);
        const r0 = hypotSafe(sigma, 1);
        sigma = p - rte / (sigma + (sigma >= 0 ? r0 : -r0));
        let c: f64 = 1;
        let s: f64 = 0;
        let gamma = ld8(d, mm) - sigma;
        p = gamma * gamma;
        for (let i = mm - 1; i >= l; i--) {
          const bb = ld8(e, i);
          const r = p + bb;
          if (i != mm - 1) st8(e, i + 1, s * r);
          const oldc = c;
          c = p / r;
          s = bb / r;
          const oldgam = gamma;
          const alpha = ld8(d, i);
          gamma = c * (alpha - sigma) - s * oldgam;
          st8(d, i + 1, oldgam + (alpha - gamma));
          p = c != 0 ? (gamma * gamma) / c : oldc * bb;
        }
        st8(e, l, s * p);
        st8(d, l, sigma + gamma);
      }
    }
    if (g != 1) for (let i = lsv; i <= lendsv; i++) st8(d, i, ld8(d, i) / g);
    if (jtot >= nmaxit) return -1;
  }
  return jtot;
}
// ---- dqds (LAPACK dlasq1–dlasq6): singular values of a bidiagonal to high relative accuracy ----

/** dlamch('Precision') = 2^-52 and dlamch('Safe minimum') = 2^-1022, as dlasq2–dlasq6 use them. */
const EPS_DQDS: f64 = 2.220446049250313e-16;
const SAFMIN_DQDS: f64 = 2.2250738585072014e-308;
/** dlasq2's deflation tolerance 100·eps, and its square (the qd array holds squares). */
const TOL_DQDS: f64 = 100 * EPS_DQDS;
const TOL2_DQDS: f64 = TOL_DQDS * TOL_DQDS;
/** dlasq2/dlasq3's CBIAS: reverse a segment whose last q exceeds 1.5 times its first. */
const CBIAS: f64 = 1.5;
/** dlasq1's scale sqrt(eps/safmin) = 2^485 (exact), here as 2^484 so max|B| lands in [2^484, 2^485). */
const DQDS_SCALE: f64 = 4.994797680505588e145; // 2^484
const DQDS_UNSCALE: f64 = 2.002083095183101e-146; // 2^-484

// the state dlasq2 passes to dlasq3, dlasq4, dlasq5 and dlasq6 by reference (module globals: no
// allocation under --runtime stub); zq is the qd array's base, zq + 8·i its 1-based entry i
let zq: usize = 0;
let qI0: i32 = 0;
let qN0: i32 = 0;
let qPP: i32 = 0;
let qDmin: f64 = 0;
let qSigma: f64 = 0;
let qDesig: f64 = 0;
let qQmax: f64 = 0;
let qIter: i32 = 0;
let qTtype: i32 = 0;
let qDmin1: f64 = 0;
let qDmin2: f64 = 0;
let qDn: f64 = 0;
let qDn1: f64 = 0;
let qDn2: f64 = 0;
let qG: f64 = 0;
let qTau: f64 = 0;

// @ts-ignore: decorator
@inline function Z(i: i32): f64 {
  return load<f64>(zq + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline function SZ(i: i32, x: f64): void {
  store<f64>(zq + (<usize>i << 3), x);
}

/** Swap 1-based qd entries i and j. */
function swapZ(i: i32, j: i32): void {
  const t = Z(i);
  SZ(i, Z(j));
  SZ(j, t);
}

/** Reverse the segment i0..n0 of the qd array, both ping-pong halves (dlasq2 loop 120, dlasq3 loop 60). */
function reverseSegment(i0: i32, n0: i32): void {
  const ipn4 = 4 * (i0 + n0);
  for (let i4 = 4 * i0; i4 <= 2 * (i0 + n0 - 1); i4 += 4) {
    swapZ(i4 - 3, ipn4 - i4 - 3);
    swapZ(i4 - 2, ipn4 - i4 - 2);
    swapZ(i4 - 1, ipn4 - i4 - 5);
    swapZ(i4, ipn4 - i4 - 4);
  }
}

// dlas2's results
let ssminG: f64 = 0;
let ssmaxG: f64 = 0;

/** Singular values ssminG <= ssmaxG of [[f, g], [0, h]] (LAPACK dlas2). */
function las2(f: f64, g: f64, h: f64): void {
  const fa = abs(f);
  const ga = abs(g);
  const ha = abs(h);
  const fhmn = min(fa, ha);
  const fhmx = max(fa, ha);
  if (fhmn == 0) {
    ssminG = 0;
    if (fhmx == 0) ssmaxG = ga;
    else {
      const r = min(fhmx, ga) / max(fhmx, ga);
      ssmaxG = max(fhmx, ga) * sqrt(1 + r * r);
    }
  } else if (ga < fhmx) {
    const as = 1 + fhmn / fhmx;
    const at = (fhmx - fhmn) / fhmx;
    const au = (ga / fhmx) * (ga / fhmx);
    const c = 2 / (sqrt(as * as + au) + sqrt(at * at + au));
    ssminG = fhmn * c;
    ssmaxG = fhmx / c;
  } else {
    const au = fhmx / ga;
    if (au == 0) {
      ssminG = (fhmn * fhmx) / ga;
      ssmaxG = ga;
    } else {
      const as = 1 + fhmn / fhmx;
      const at = (fhmx - fhmn) / fhmx;
      const c = 1 / (sqrt(1 + as * au * (as * au)) + sqrt(1 + at * au * (at * au)));
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
  const tau: f64 = tau0 < dthresh * 0.5 ? 0 : tau0;
  qTau = tau;
  const zeroSmall = tau == 0; // a zero shift: d below dthresh is set to zero
  let j4 = 4 * i0 + pp - 3;
  let emin = Z(j4 + 4);
  let d = Z(j4) - tau;
  let dmin = d;
  qDmin1 = -Z(j4);
  // j4 = 4·i0, 4·i0 + 4, …, 4·(n0 − 3), addressed from p = &Z(j4 − 3) with constant offsets
  let p = zq + (<usize>(4 * i0 - 3) << 3);
  if (pp == 0) {
    for (let c = n0 - i0 - 2; c > 0; c--, p += 32) {
      const s = d + load<f64>(p, 16); // Z(j4-2) = d + Z(j4-1)
      store<f64>(p, s, 8);
      const temp = load<f64>(p, 32) / s; // Z(j4+1) / Z(j4-2)
      d = d * temp - tau;
      if (zeroSmall && d < dthresh) d = 0;
      dmin = min(dmin, d);
      const ez = load<f64>(p, 16) * temp; // Z(j4) = Z(j4-1)·temp
      store<f64>(p, ez, 24);
      emin = min(ez, emin);
    }
  } else {
    for (let c = n0 - i0 - 2; c > 0; c--, p += 32) {
      const s = d + load<f64>(p, 24); // Z(j4-3) = d + Z(j4)
      store<f64>(p, s);
      const temp = load<f64>(p, 40) / s; // Z(j4+2) / Z(j4-3)
      d = d * temp - tau;
      if (zeroSmall && d < dthresh) d = 0;
      dmin = min(dmin, d);
      const ez = load<f64>(p, 24) * temp; // Z(j4-1) = Z(j4)·temp
      store<f64>(p, ez, 16);
      emin = min(ez, emin);
    }
  }
  const dnm2 = d;
  qDmin2 = dmin;
  j4 = 4 * (n0 - 2) - pp;
  let j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm2 + Z(j4p2));
  SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
  const dnm1 = Z(j4p2 + 2) * (dnm2 / Z(j4 - 2)) - tau;
  dmin = min(dmin, dnm1);
  qDmin1 = dmin;
  j4 += 4;
  j4p2 = j4 + 2 * pp - 1;
  SZ(j4 - 2, dnm1 + Z(j4p2));
  SZ(j4, Z(j4p2 + 2) * (Z(j4p2) / Z(j4 - 2)));
  const dn = Z(j4p2 + 2) * (dnm1 / Z(j4 - 2)) - tau;
  dmin = min(dmin, dn);
  SZ(j4 + 2, dn);
  SZ(4 * n0 - pp, emin);
  qDmin = dmin;
  qDn = dn;
  qDn1 = dnm1;
  qDn2 = dnm2;
}

/**
 * One step of the zero-shift dqd transform (LAPACK dlasq6) on the qd array: Z(q) = d + Z(e), then
 * Z(w) and the next d from Z(nx) — by the quotient Z(nx)/Z(q) when both products stay above
 * safmin, else by the divisions dlasq6 guards them with. A zero pivot Z(q) = 0 writes Z(w) = 0 and
 * returns Z(nx) (the caller sets dmin to it and emin = 0). Returns the next d.
 */
// @ts-ignore: decorator
@inline function dqdStep(q: i32, e: i32, w: i32, nx: i32, d: f64): f64 {
  SZ(q, d + Z(e));
  if (Z(q) == 0) {
    SZ(w, 0);
    return Z(nx);
  }
  if (SAFMIN_DQDS * Z(nx) < Z(q) && SAFMIN_DQDS * Z(q) < Z(nx)) {
    const temp = Z(nx) / Z(q);
    SZ(w, Z(e) * temp);
    return d * temp;
  }
  SZ(w, Z(nx) * (Z(e) / Z(q)));
  return Z(nx) * (d / Z(q));
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
  // the ping-pong halves: pp = 0 reads at j4 − 1, j4 + 1 and writes j4 − 2, j4; pp = 1 one over
  for (j4 = 4 * i0; j4 <= 4 * (n0 - 3); j4 += 4) {
    d = dqdStep(j4 - 2 - pp, j4 - 1 + pp, j4 - pp, j4 + 1 + pp, d);
    if (Z(j4 - 2 - pp) == 0) {
      dmin = d;
      emin = 0;
    }
    dmin = min(dmin, d);
    emin = min(emin, Z(j4 - pp));
  }
  const dnm2 = d;
  qDmin2 = dmin;
  // the last two steps (dlasq6 spells them out: their d are dn1 and dn)
  j4 = 4 * (n0 - 2) - pp;
  let j4p2 = j4 + 2 * pp - 1;
  const dnm1 = dqdStep(j4 - 2, j4p2, j4, j4p2 + 2, dnm2);
  if (Z(j4 - 2) == 0) {
    dmin = dnm1;
    emin = 0;
  }
  dmin = min(dmin, dnm1);
  qDmin1 = dmin;
  j4 += 4;
  j4p2 = j4 + 2 * pp - 1;
  const dn = dqdStep(j4 - 2, j4p2, j4, j4p2 + 2, dnm1);
  if (Z(j4 - 2) == 0) {
    dmin = dn;
    emin = 0;
  }
  dmin = min(dmin, dn);
  SZ(j4 + 2, dn);
  SZ(4 * n0 - pp, emin);
  qDmin = dmin;
  qDn = dn;
  qDn1 = dnm1;
  qDn2 = dnm2;
}

/** dlasq4's constants. */
const CNST1: f64 = 0.563;
const CNST2: f64 = 1.01;
const CNST3: f64 = 1.05;
const THIRD: f64 = 0.333;

/**
 * The shift qTau for the next dqds step from the last one's dmin, dn, dn1, dn2 (LAPACK dlasq4;
 * its early returns leave qTau as it was, as dlasq4 leaves TAU).
 */
function lasq4(n0in: i32): void {
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
  let s: f64 = 0;
  let a2: f64 = 0;
  let b1: f64 = 0;
  let b2: f64 = 0;
  let gam: f64 = 0;
  let gap2: f64 = 0;
  let np: i32 = 0;
  if (n0in == n0) {
    if (dmin == dn || dmin == dn1) {
      b1 = sqrt(Z(nn - 3)) * sqrt(Z(nn - 5));
      b2 = sqrt(Z(nn - 7)) * sqrt(Z(nn - 9));
      a2 = Z(nn - 7) + Z(nn - 5);
      if (dmin == dn && dmin1 == dn1) {
        gap2 = dmin2 - a2 - dmin2 * 0.25;
        let gap1: f64;
        if (gap2 > 0 && gap2 > b2) gap1 = a2 - dn - (b2 / gap2) * b2;
        else gap1 = a2 - dn - (b1 + b2);
        if (gap1 > 0 && gap1 > b1) {
          s = max(dn - (b1 / gap1) * b1, 0.5 * dmin);
          qTtype = -2;
        } else {
          s = 0;
          if (dn > b1) s = dn - b1;
          if (a2 > b1 + b2) s = min(s, a2 - (b1 + b2));
          s = max(s, THIRD * dmin);
          qTtype = -3;
        }
      } else {
        qTtype = -4;
        s = 0.25 * dmin;
        if (dmin == dn) {
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
          if (b2 == 0) break;
          b1 = b2;
          if (Z(i4) > Z(i4 - 2)) return;
          b2 *= Z(i4) / Z(i4 - 2);
          a2 += b2;
          if (100 * max(b2, b1) < a2 || CNST1 < a2) break;
        }
        a2 *= CNST3;
        if (a2 < CNST1) s = (gam * (1 - sqrt(a2))) / (1 + a2);
      }
    } else if (dmin == dn2) {
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
          if (b2 == 0) break;
          b1 = b2;
          if (Z(i4) > Z(i4 - 2)) return;
          b2 *= Z(i4) / Z(i4 - 2);
          a2 += b2;
          if (100 * max(b2, b1) < a2 || CNST1 < a2) break;
        }
        a2 *= CNST3;
      }
      if (a2 < CNST1) s = (gam * (1 - sqrt(a2))) / (1 + a2);
    } else {
      if (qTtype == -6) qG += THIRD * (1 - qG);
      else if (qTtype == -18) qG = 0.25 * THIRD;
      else qG = 0.25;
      s = qG * dmin;
      qTtype = -6;
    }
  } else if (n0in == n0 + 1) {
    if (dmin1 == dn1 && dmin2 == dn2) {
      qTtype = -7;
      s = THIRD * dmin1;
      if (Z(nn - 5) > Z(nn - 7)) return;
      b1 = Z(nn - 5) / Z(nn - 7);
      b2 = b1;
      if (b2 != 0) {
        for (let i4 = 4 * n0 - 9 + pp; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          a2 = b1;
          if (Z(i4) > Z(i4 - 2)) return;
          b1 *= Z(i4) / Z(i4 - 2);
          b2 += b1;
          if (100 * max(b1, a2) < b2) break;
        }
      }
      b2 = sqrt(CNST3 * b2);
      a2 = dmin1 / (1 + b2 * b2);
      gap2 = 0.5 * dmin2 - a2;
      if (gap2 > 0 && gap2 > b2 * a2) s = max(s, a2 * (1 - CNST2 * a2 * (b2 / gap2) * b2));
      else {
        s = max(s, a2 * (1 - CNST2 * b2));
        qTtype = -8;
      }
    } else {
      s = 0.25 * dmin1;
      if (dmin1 == dn1) s = 0.5 * dmin1;
      qTtype = -9;
    }
  } else if (n0in == n0 + 2) {
    if (dmin2 == dn2 && 2 * Z(nn - 5) < Z(nn - 7)) {
      qTtype = -10;
      s = THIRD * dmin2;
      if (Z(nn - 5) > Z(nn - 7)) return;
      b1 = Z(nn - 5) / Z(nn - 7);
      b2 = b1;
      if (b2 != 0) {
        for (let i4 = 4 * n0 - 9 + pp; i4 >= 4 * i0 - 1 + pp; i4 -= 4) {
          if (Z(i4) > Z(i4 - 2)) return;
          b1 *= Z(i4) / Z(i4 - 2);
          b2 += b1;
          if (100 * b1 < b2) break;
        }
      }
      b2 = sqrt(CNST3 * b2);
      a2 = dmin2 / (1 + b2 * b2);
      gap2 = Z(nn - 7) + Z(nn - 9) - sqrt(Z(nn - 11)) * sqrt(Z(nn - 9)) - a2;
      if (gap2 > 0 && gap2 > b2 * a2) s = max(s, a2 * (1 - CNST2 * a2 * (b2 / gap2) * b2));
      else s = max(s, a2 * (1 - CNST2 * b2));
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
    if (n0 == qI0) {
      SZ(4 * n0 - 3, Z(4 * n0 + pp - 3) + qSigma);
      qN0--;
      continue;
    }
    const nn = 4 * n0 + pp;
    if (n0 != qI0 + 1) {
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
    if (Z(nn - 5) > Z(nn - 3) * TOL2_DQDS && t != 0) {
      let s = Z(nn - 3) * (Z(nn - 5) / t);
      if (s <= t) s = Z(nn - 3) * (Z(nn - 5) / (t * (1 + sqrt(1 + s / t))));
      else s = Z(nn - 3) * (Z(nn - 5) / (t + sqrt(t) * sqrt(t + s)));
      t = Z(nn - 7) + (s + Z(nn - 5));
      SZ(nn - 3, Z(nn - 3) * (Z(nn - 7) / t));
      SZ(nn - 7, t);
    }
    SZ(4 * n0 - 7, Z(nn - 7) + qSigma);
    SZ(4 * n0 - 3, Z(nn - 3) + qSigma);
    qN0 -= 2;
  }
  if (qPP == 2) qPP = 0;
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
      qDmin2 = min(qDmin2, Z(4 * n0 + pp - 1));
      SZ(4 * n0 + pp - 1, min(Z(4 * n0 + pp - 1), min(Z(4 * i0 + pp - 1), Z(4 * i0 + pp + 3))));
      SZ(4 * n0 - pp, min(Z(4 * n0 - pp), min(Z(4 * i0 - pp), Z(4 * i0 - pp + 4))));
      qQmax = max(qQmax, max(Z(4 * i0 + pp - 3), Z(4 * i0 + pp + 1)));
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
      abs(qDn) < TOL_DQDS * qSigma
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
      if (qTau == 0) {
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
  let t: f64;
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
function lasq2(n: i32): i32 {
  SZ(2 * n, 0);
  let d: f64 = 0;
  let e: f64 = 0;
  for (let k = 1; k <= 2 * (n - 1); k += 2) {
    if (Z(k) < 0) return -(200 + k);
    if (Z(k + 1) < 0) return -(200 + k + 1);
    d += Z(k);
    e += Z(k + 1);
  }
  if (Z(2 * n - 1) < 0) return -(200 + 2 * n - 1);
  d += Z(2 * n - 1);
  if (e == 0) {
    // diagonal: the values are the q
    for (let k = 2; k <= n; k++) SZ(k, Z(2 * k - 1));
    sortValues(zq + 8, n);
    reverse(zq + 8, n);
    return 0;
  }
  const trace = d + e;
  if (trace == 0) {
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
    qSigma = qN0 == n ? 0 : -Z(4 * qN0 - 1);
    if (qSigma < 0) return 1;
    let emax: f64 = 0;
    let qmin = Z(4 * qN0 - 3);
    let qmax = qmin;
    let i4 = 4 * qN0;
    for (; i4 >= 8; i4 -= 4) {
      if (Z(i4 - 5) <= 0) break;
      if (qmin >= 4 * emax) {
        qmin = min(qmin, Z(i4 - 3));
        emax = max(emax, Z(i4 - 5));
      }
      qmax = max(qmax, Z(i4 - 7) + Z(i4 - 5));
    }
    if (i4 < 8) i4 = 4;
    qI0 = i4 / 4;
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
          kmin = (j4 + 3) / 4;
        }
      }
      if ((kmin - qI0) * 2 < qN0 - kmin && deemin <= 0.5 * Z(4 * qN0 - 3)) {
        reverseSegment(qI0, qN0);
        qPP = 2;
      }
    }
    qQmax = qmax;
    qDmin = -max(0, qmin - 2 * sqrt(qmin) * sqrt(emax));
    const nbig = capDqdsPerValue * (qN0 - qI0 + 1);
    let segmentDone = false;
    for (let iwhilb = 1; iwhilb <= nbig; iwhilb++) {
      if (qI0 > qN0) {
        segmentDone = true;
        break;
      }
      lasq3();
      qPP = 1 - qPP;
      // split where an e fell below the tolerance
      if (qPP == 0 && qN0 - qI0 >= 3) {
        if (Z(4 * qN0) <= TOL2_DQDS * qQmax || Z(4 * qN0 - 1) <= TOL2_DQDS * qSigma) {
          let splt = qI0 - 1;
          qQmax = Z(4 * qI0 - 3);
          let emin2 = Z(4 * qI0 - 1);
          let oldemn = Z(4 * qI0);
          for (let j4 = 4 * qI0; j4 <= 4 * (qN0 - 3); j4 += 4) {
            if (Z(j4) <= TOL2_DQDS * Z(j4 - 3) || Z(j4 - 1) <= TOL2_DQDS * qSigma) {
              SZ(j4 - 1, -qSigma);
              splt = j4 / 4;
              qQmax = 0;
              emin2 = Z(j4 + 3);
              oldemn = Z(j4 + 4);
            } else {
              qQmax = max(qQmax, Z(j4 + 1));
              emin2 = min(emin2, Z(j4 - 1));
              oldemn = min(oldemn, Z(j4));
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
  sortValues(zq + 8, n);
  reverse(zq + 8, n);
  return 0;
}

/** Reverse n values in place. */
function reverse(x: usize, n: i32): void {
  for (let i = 0, j = n - 1; i < j; i++, j--) {
    const t = ld8(x, i);
    st8(x, i, ld8(x, j));
    st8(x, j, t);
  }
}

/**
 * Singular values (descending) of the upper bidiagonal (d, e) into out by dqds (LAPACK dlasq1:
 * B scaled by an exact power of two so max|B| lies in [2^484, 2^485), squared into the qd array,
 * dlasq2, square roots). work: 4m values. Returns 0, or dlasq2's INFO (out then not written).
 */
function dqdsValues(d: usize, e: usize, m: i32, out: usize, work: usize): i32 {
  qIter = 0;
  if (m == 1) {
    st8(out, 0, abs(ld8(d, 0)));
    return 0;
  }
  if (m == 2) {
    las2(ld8(d, 0), ld8(e, 0), ld8(d, 1));
    st8(out, 0, ssmaxG);
    st8(out, 1, ssminG);
    return 0;
  }
  let emax: f64 = 0;
  for (let i = 0; i < m - 1; i++) emax = max(emax, abs(ld8(e, i)));
  if (emax == 0) {
    for (let i = 0; i < m; i++) st8(out, i, abs(ld8(d, i)));
    sortValues(out, m);
    reverse(out, m);
    return 0;
  }
  let sigmx = emax;
  for (let i = 0; i < m; i++) sigmx = max(sigmx, abs(ld8(d, i)));
  const g = pow2Scale(sigmx);
  zq = work - 8;
  for (let i = 0; i < m; i++) {
    const q = ld8(d, i) * g * DQDS_SCALE;
    SZ(2 * i + 1, q * q);
    if (i < m - 1) {
      const x = ld8(e, i) * g * DQDS_SCALE;
      SZ(2 * i + 2, x * x);
    }
  }
  SZ(2 * m, 0);
  const info = lasq2(m);
  if (info != 0) return info;
  for (let i = 0; i < m; i++) st8(out, i, (sqrt(Z(i + 1)) * DQDS_UNSCALE) / g);
  return 0;
}
