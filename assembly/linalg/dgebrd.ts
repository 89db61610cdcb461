// Singular values of a square matrix: Householder bidiagonalisation (one fused pass over the
// trailing block per step) and root-free QL (LAPACK dsterf) on the 2m×2m Golub–Kahan
// tridiagonal. Reference, derivation and accuracy: src/linalg/bidiag.ts (the same operations in
// the same order, except that sums here run in f64x2 lanes and rows are taken in pairs).
import { tql2 } from './dsyev';
import { pow2Scale, vaxpy, vdot } from './vec';

/** Below this |α − β| the next step's w is formed by its own pass (1/(α − β) could overflow). */
const SMALL_DENOMINATOR: f64 = 3.054936363499605e-151; // 2^-500

// @ts-ignore: decorator
@inline function ld8(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline function st8(p: usize, i: i32, x: f64): void {
  store<f64>(p + (<usize>i << 3), x);
}

/** Values of workspace {@link dgebrdSvdvals} needs for side m. */
export function dgebrdWork(m: i32): i32 {
  return 6 * m + dbdsvdvalsWork(m);
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
 * into out (m). work: {@link dgebrdWork}(m) values. Returns the QL iterations, or −1 if QL did not
 * converge (out then not written).
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
  memory.fill(work, 0, <usize>dgebrdWork(m) << 3); // u is read (times τ = 0) before it is first written
  let zValid = false;
  for (let k = 0; k < m; k++) {
    const rowK = A + <usize>k * M8;
    const n = m - k - 1;
    // left reflector from column k, rows k..m-1
    const alpha = ld8(rowK, k);
    const xnorm = n > 0 ? scaledNorm(rowK + M8 + (<usize>k << 3), n, m) : 0;
    let tauL: f64 = 0;
    let den: f64 = 1;
    if (xnorm == 0) st8(d, k, alpha);
    else {
      const beta = -(alpha >= 0 ? 1.0 : -1.0) * hypotSafe(alpha, xnorm);
      tauL = (beta - alpha) / beta;
      den = alpha - beta;
      st8(d, k, beta);
      for (let r = k + 1; r < m; r++) st8(u, r, ld8(A + <usize>r * M8, k) / den);
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
    onePass(n, rowK + M8 + c8, tauL * ld8(u, k + 1), w, v, tauR, wv, z, false);
    let r = k + 2;
    for (; r + 2 <= m; r += 2) {
      const ra = A + <usize>r * M8 + c8;
      pairPass(n, ra, ra + M8, tauL * ld8(u, r), tauL * ld8(u, r + 1), w, v, tauR, wv, z);
    }
    if (r < m) onePass(n, A + <usize>r * M8 + c8, tauL * ld8(u, r), w, v, tauR, wv, z, true);
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
 * values each, e[m−1] unused; not modified) into out (m), from the eigenvalues ±σ of its 2m×2m
 * Golub–Kahan tridiagonal by root-free QL (dsterf; QL with rotations if it does not converge).
 * work: {@link dbdsvdvalsWork}(m) values. Returns the QL iterations, or −1 if QL did not converge
 * (out then not written).
 */
export function dbdsvdvals(d: usize, e: usize, m: i32, out: usize, work: usize): i32 {
  if (m <= 0) return 0;
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
  shellSort(td, n2);
  for (let i = 0; i < m; i++) st8(out, i, (ld8(td, n2 - 1 - i) - ld8(td, i)) / 2 / g);
  return it;
}

/**
 * One row a (n values) of the fused pass: x = a·v − t·(w·v) (the right reflector's product with
 * the row after the left reflector, formed from the row before it, as LAPACK dlabrd forms its
 * products from the not yet updated matrix), then a ← a − t·w − τ_R·x·v and, with `addZ`,
 * z += a_0·a (a_0 after the update). The row is stored once.
 */
function onePass(n: i32, a: usize, t: f64, w: usize, v: usize, tauR: f64, wv: f64, z: usize, addZ: bool): void {
  const mx = -(tauR * (vdot(n, a, v) - t * wv));
  const mt = -t;
  const a0 = load<f64>(a) + mt * load<f64>(w) + mx * load<f64>(v);
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

/**
 * Two rows a, b of the fused pass ({@link onePass} on each, z += a_0·a + b_0·b at once): one loop
 * of dot products (rows and v loaded once) and one of updates (w, v and z loaded once, each row
 * stored once).
 */
function pairPass(
  n: i32,
  a: usize,
  b: usize,
  ta: f64,
  tb: f64,
  w: usize,
  v: usize,
  tauR: f64,
  wv: f64,
  z: usize,
): void {
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
  const mxa = -(tauR * (sa - ta * wv));
  const mxb = -(tauR * (sb - tb * wv));
  const mta = -ta;
  const mtb = -tb;
  const a0 = load<f64>(a) + mta * load<f64>(w) + mxa * load<f64>(v);
  const b0 = load<f64>(b) + mtb * load<f64>(w) + mxb * load<f64>(v);
  const vmta = f64x2.splat(mta);
  const vmtb = f64x2.splat(mtb);
  const vmxa = f64x2.splat(mxa);
  const vmxb = f64x2.splat(mxb);
  const va0 = f64x2.splat(a0);
  const vb0 = f64x2.splat(b0);
  j = 0;
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
  if (j < n) {
    const o = <usize>j << 3;
    const ai = load<f64>(a + o) + mta * load<f64>(w + o) + mxa * load<f64>(v + o);
    const bi = load<f64>(b + o) + mtb * load<f64>(w + o) + mxb * load<f64>(v + o);
    store<f64>(a + o, ai);
    store<f64>(b + o, bi);
    store<f64>(z + o, load<f64>(z + o) + (a0 * ai + b0 * bi));
  }
}

/** Ascending sort of n values in place (Shell sort, Knuth's gaps 1, 4, 13, …). */
function shellSort(x: usize, n: i32): void {
  let gap = 1;
  while (gap < n / 3) gap = 3 * gap + 1;
  for (; gap >= 1; gap = (gap - 1) / 3) {
    for (let i = gap; i < n; i++) {
      const t = ld8(x, i);
      let j = i;
      while (j >= gap && ld8(x, j - gap) > t) {
        st8(x, j, ld8(x, j - gap));
        j -= gap;
      }
      st8(x, j, t);
    }
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
 * diagonal); blocks outside its scaling band scaled by an exact power of two. The operations of
 * src/linalg/bidiag.ts sterf. Returns iterations or −1.
 */
function sterf(n: i32, d: usize, e: usize): i32 {
  const nmaxit = 30 * n;
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
