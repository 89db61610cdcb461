// Symmetric eigensolver. Reference, derivation and accuracy: src/linalg/syev.ts.
//
// 1. Householder tridiagonalisation T = QᵀSQ on rows (S row-major, upper triangle only: row k
//    right of the diagonal is column k below it, so this is LAPACK's dsytrd 'L' in column-major
//    terms). Unblocked (nb <= 1: dsytd2, the reference's operations in its order up to SIMD
//    summation order) or blocked (dsytrd/dlatrd): panels of nb reflectors are formed with the
//    symmetric matrix–vector product on the not yet updated trailing matrix, corrected by the
//    panel's earlier reflectors (v_q, w_q); the trailing matrix then takes the rank-2nb update
//    S22 −= VᵀW + WᵀV at once, on the packed 4×4 tiles of the gemm kernel (upper tiles only).
// 2. Eigenvectors, by `method`:
//    0 — Qᵀ accumulated unblocked, implicit QL (tql2) with each rotation applied to two rows of Vᵀ
//        (6n³ flops of row rotations).
//    1 — eigenvectors of T by divide and conquer (assembly/linalg/dstedc.ts: LAPACK dstedc,
//        Cuppen's method with Gu–Eisenstat's eigenvectors, merges as gemm calls, leaves of at most
//        25 rows by QL with vectors), then Vᵀ = Zᵀ·Qᵀ by the compact WY form of blocks of 64
//        reflectors (two gemm calls per block, 2n³ flops in all). If a secular equation does not
//        converge, the eigenvectors of T are computed by method 0's QL instead.
//    2 — eigenvalues only (QL without vectors, O(n²) after the reduction); VT is not written.
// 3. Eigenvalues ascending, rows of Vᵀ in the same order.
import { gemmStrided } from './dgemm';
import { dstedc, dstedcWork } from './dstedc';
import { madd } from './madd';
import { vaxpy, vdot, vscal } from './vec';
import { ld8, st8, at } from './mem';
import { sortRows, sortValues, tql2 } from './tridiag';

/** Cache blocking of the internal products (as src/linalg/gemm.ts gemmBlocking at large sizes). */
const KC: i32 = 256;
const MC: i32 = 128;
const NC: i32 = 512;
/** Reflectors per block of the back-transformation (the inner dimension of its second product). */
const NBQ: i32 = 64;

/** Values of workspace {@link dsyev} needs for side n and panel width nb. */
export function dsyevWork(n: i32, nb: i32): i32 {
  const b = max(nb, 1);
  return 5 * n + b * n + 4 * b * n + 2 * NBQ * n + NBQ * NBQ + n * NBQ + MC * KC + KC * NC + 16 + dstedcWork(n);
}

/**
 * S (n×n symmetric, destroyed) → values (n, ascending), VT (n×n, row j = eigenvector j; not
 * written with method 2). nb: panel width of the reduction (<= 1: unblocked); method: see the
 * file comment. work: {@link dsyevWork}(n, nb) values. Returns QL iterations (method 1: of the
 * divide-and-conquer leaves) or −1 on no convergence.
 */
export function dsyev(S: usize, n: i32, values: usize, VT: usize, work: usize, nb: i32, method: i32): i32 {
  if (n == 0) return 0;
  const b = max(nb, 1);
  const N8 = <usize>n << 3;
  const d = values;
  const e = work;
  const tau = e + N8;
  const y = tau + N8;
  const dT = y + N8; // the tridiagonal, kept for the QL fallback
  const eT = dT + N8;
  const W = eT + N8; // b × n: the panel's w rows
  const VW = W + <usize>b * N8; // 2b × n
  const WV = VW + 2 * <usize>b * N8; // 2b × n
  const Yt = WV + 2 * <usize>b * N8; // NBQ × n
  const Zb = Yt + <usize>NBQ * N8; // NBQ × n
  const Tm = Zb + <usize>NBQ * N8; // NBQ × NBQ
  const W2 = Tm + (<usize>(NBQ * NBQ) << 3); // n × NBQ
  const PA = W2 + <usize>NBQ * N8;
  const PB = PA + (<usize>(MC * KC) << 3);
  const T16 = PB + (<usize>(KC * NC) << 3);
  const DC = T16 + (16 << 3); // dstedcWork(n): divide and conquer

  // 1. reduce
  let k0 = 0;
  if (nb >= 2) {
    for (; k0 + 2 * nb + 2 <= n; k0 += nb) {
      panel(S, n, k0, nb, d, e, tau, W);
      trailingUpdate(S, n, k0, nb, W, VW, WV, PA, PB, T16);
    }
  }
  tridiagUnblocked(S, n, k0, d, e, tau, y);

  if (method == 2) {
    const it = tql2(n, d, e, 0, 0);
    if (it < 0) return -1;
    sortValues(d, n);
    return it;
  }
  if (method == 1) {
    memory.copy(dT, d, N8);
    memory.copy(eT, e, N8);
    let it = dstedc(n, d, e, VT, DC, PA, PB, T16);
    if (it < 0) {
      // a secular equation did not converge: the eigenvectors of T by QL on rows of I
      memory.copy(d, dT, N8);
      memory.copy(e, eT, N8);
      memory.fill(VT, 0, <usize>n * N8);
      for (let i = 0; i < n; i++) st8(VT + <usize>i * N8, i, 1);
      it = tql2(n, d, e, VT, n);
      if (it < 0) return -1;
      sortRows(d, VT, n);
    }
    backTransform(S, n, tau, VT, Yt, Zb, Tm, W2, PA, PB, T16);
    return it;
  }
  // method 0: Qᵀ = I·H_{n−3}···H_0, then QL on its rows
  memory.fill(VT, 0, <usize>n * N8);
  for (let i = 0; i < n; i++) store<f64>(at(VT, n, i, i), 1);
  for (let k = n - 3; k >= 0; k--) {
    const t = ld8(tau, k);
    if (t == 0) continue;
    const v = at(S, n, k, k + 1);
    const p = n - k - 1;
    for (let i = k + 1; i < n; i++) {
      const row = at(VT, n, i, k + 1);
      vaxpy(p, -t * vdot(p, row, v), v, row);
    }
  }
  const iters = tql2(n, d, e, VT, n);
  if (iters < 0) return -1;
  sortRows(d, VT, n);
  return iters;
}

/**
 * The reflector of row k: H = I − τvvᵀ maps S[k][k+1:] to β·e1; v (v_0 = 1) overwrites
 * S[k][k+1:], e_k = β, τ_k = τ. With S[k][k+2:] = 0: τ = 0, e_k = S[k][k+1], S unchanged.
 */
function householder(S: usize, n: i32, k: i32, e: usize, tau: usize): f64 {
  const alpha = load<f64>(at(S, n, k, k + 1));
  const x = at(S, n, k, k + 2);
  const sigma2 = vdot(n - k - 2, x, x);
  if (sigma2 == 0) {
    st8(tau, k, 0);
    st8(e, k, alpha);
    return 0;
  }
  const beta = -(alpha >= 0 ? 1.0 : -1.0) * sqrt(alpha * alpha + sigma2);
  const t = (beta - alpha) / beta;
  const inv = 1 / (alpha - beta);
  store<f64>(at(S, n, k, k + 1), 1);
  const len = n - k - 2;
  const vinv = f64x2.splat(inv);
  let j = 0;
  for (; j + 2 <= len; j += 2) {
    const p = x + (<usize>j << 3);
    v128.store(p, f64x2.mul(v128.load(p), vinv));
  }
  if (j < len) {
    const p = x + (<usize>j << 3);
    store<f64>(p, load<f64>(p) * inv);
  }
  st8(tau, k, t);
  st8(e, k, beta);
  return t;
}

/**
 * y (p) = S22·v for the trailing block S22 = S[j0.., j0..] (p×p) from its upper triangle (row i
 * from the diagonal on is contiguous): row i adds its dot with v to y_i and v_i times itself to
 * y_{i+1..}. Four rows at a time share the loads and stores of y and v (the product is bound by
 * those, not by arithmetic); the 4×4 triangle at their head is done entry by entry.
 */
function symvUpper(S: usize, n: i32, j0: i32, p: i32, v: usize, y: usize): void {
  memory.fill(y, 0, <usize>p << 3);
  const N8 = <usize>n << 3;
  let i = 0;
  for (; i + 4 <= p; i += 4) {
    const r0 = at(S, n, j0 + i, j0 + i);
    const r1 = r0 + N8 + 8; // each row from its diagonal
    const r2 = r1 + N8 + 8;
    const r3 = r2 + N8 + 8;
    const v0 = ld8(v, i);
    const v1 = ld8(v, i + 1);
    const v2 = ld8(v, i + 2);
    const v3 = ld8(v, i + 3);
    // the head: rows i..i+3, columns i..i+3 (upper part, symmetric)
    const a01 = ld8(r0, 1);
    const a02 = ld8(r0, 2);
    const a03 = ld8(r0, 3);
    const a12 = ld8(r1, 1);
    const a13 = ld8(r1, 2);
    const a23 = ld8(r2, 1);
    let s0 = ld8(r0, 0) * v0 + (a01 * v1 + a02 * v2 + a03 * v3);
    let s1 = ld8(r1, 0) * v1 + (a01 * v0 + a12 * v2 + a13 * v3);
    let s2 = ld8(r2, 0) * v2 + (a02 * v0 + a12 * v1 + a23 * v3);
    let s3 = ld8(r3, 0) * v3 + (a03 * v0 + a13 * v1 + a23 * v2);
    // the rest of the four rows: columns i+4..p−1
    const q = p - i - 4;
    const b0 = r0 + 32;
    const b1 = r1 + 24;
    const b2 = r2 + 16;
    const b3 = r3 + 8;
    const vv = v + (<usize>(i + 4) << 3);
    const yy = y + (<usize>(i + 4) << 3);
    const x0 = f64x2.splat(v0);
    const x1 = f64x2.splat(v1);
    const x2 = f64x2.splat(v2);
    const x3 = f64x2.splat(v3);
    let c0 = f64x2.splat(0);
    let c1 = c0;
    let c2 = c0;
    let c3 = c0;
    let j = 0;
    for (; j + 2 <= q; j += 2) {
      const o = <usize>j << 3;
      const vj = v128.load(vv + o);
      const a0 = v128.load(b0 + o);
      const a1 = v128.load(b1 + o);
      const a2 = v128.load(b2 + o);
      const a3 = v128.load(b3 + o);
      c0 = madd(a0, vj, c0);
      c1 = madd(a1, vj, c1);
      c2 = madd(a2, vj, c2);
      c3 = madd(a3, vj, c3);
      const u = f64x2.add(madd(a1, x1, f64x2.mul(a0, x0)), madd(a3, x3, f64x2.mul(a2, x2)));
      v128.store(yy + o, f64x2.add(v128.load(yy + o), u));
    }
    s0 += f64x2.extract_lane(c0, 0) + f64x2.extract_lane(c0, 1);
    s1 += f64x2.extract_lane(c1, 0) + f64x2.extract_lane(c1, 1);
    s2 += f64x2.extract_lane(c2, 0) + f64x2.extract_lane(c2, 1);
    s3 += f64x2.extract_lane(c3, 0) + f64x2.extract_lane(c3, 1);
    for (; j < q; j++) {
      const vj = ld8(vv, j);
      const a0 = ld8(b0, j);
      const a1 = ld8(b1, j);
      const a2 = ld8(b2, j);
      const a3 = ld8(b3, j);
      s0 += a0 * vj;
      s1 += a1 * vj;
      s2 += a2 * vj;
      s3 += a3 * vj;
      st8(yy, j, ld8(yy, j) + (a0 * v0 + a1 * v1 + (a2 * v2 + a3 * v3)));
    }
    st8(y, i, ld8(y, i) + s0);
    st8(y, i + 1, ld8(y, i + 1) + s1);
    st8(y, i + 2, ld8(y, i + 2) + s2);
    st8(y, i + 3, ld8(y, i + 3) + s3);
  }
  for (; i < p; i++) {
    const row = at(S, n, j0 + i, j0 + i);
    const vi = ld8(v, i);
    let sum: f64 = 0;
    for (let j = 1; j < p - i; j++) {
      const a = ld8(row, j);
      sum += a * ld8(v, i + j);
      st8(y, i + j, ld8(y, i + j) + a * vi);
    }
    st8(y, i, ld8(y, i) + (ld8(row, 0) * vi + sum));
  }
}

/** Unblocked reduction (dsytd2) of rows k0..n−1, then the last diagonal and off-diagonal entries. */
function tridiagUnblocked(S: usize, n: i32, k0: i32, d: usize, e: usize, tau: usize, y: usize): void {
  for (let k = k0; k + 2 < n; k++) {
    st8(d, k, load<f64>(at(S, n, k, k)));
    const t = householder(S, n, k, e, tau);
    if (t == 0) continue;
    const v = at(S, n, k, k + 1);
    const p = n - k - 1;
    symvUpper(S, n, k + 1, p, v, y);
    vscal(p, t, y);
    const mu = 0.5 * t * vdot(p, y, v);
    vaxpy(p, -mu, v, y);
    // S22 −= v wᵀ + w vᵀ on the upper triangle (what the next steps read).
    for (let i = 0; i < p; i++) {
      const o = <usize>i << 3;
      axpy2(p - i, ld8(v, i), y + o, ld8(y, i), v + o, at(S, n, k + 1 + i, k + 1 + i));
    }
  }
  if (n >= 2) {
    st8(d, n - 2, load<f64>(at(S, n, n - 2, n - 2)));
    st8(e, n - 2, load<f64>(at(S, n, n - 2, n - 1)));
    st8(tau, n - 2, 0);
  }
  st8(d, n - 1, load<f64>(at(S, n, n - 1, n - 1)));
  st8(e, n - 1, 0);
  st8(tau, n - 1, 0);
}

/** y −= a·x + b·z over len values (two axpys in one pass). */
function axpy2(len: i32, a: f64, x: usize, b: f64, z: usize, y: usize): void {
  const va = f64x2.splat(a);
  const vb = f64x2.splat(b);
  let j = 0;
  for (; j + 2 <= len; j += 2) {
    const o = <usize>j << 3;
    const u = madd(vb, v128.load(z + o), f64x2.mul(va, v128.load(x + o)));
    v128.store(y + o, f64x2.sub(v128.load(y + o), u));
  }
  for (; j < len; j++) {
    const o = <usize>j << 3;
    store<f64>(y + o, load<f64>(y + o) - (a * load<f64>(x + o) + b * load<f64>(z + o)));
  }
}

/**
 * One panel of the blocked reduction (dlatrd 'L'): reflectors k0..k0+nb−1 and their w rows
 * (W row r valid from column k0+r+1), the trailing matrix left for {@link trailingUpdate}.
 */
function panel(S: usize, n: i32, k0: i32, nb: i32, d: usize, e: usize, tau: usize, W: usize): void {
  const N8 = <usize>n << 3;
  for (let r = 0; r < nb; r++) {
    const i = k0 + r;
    // row i from the diagonal on −= Σ_q V_q[i]·W_q[i:] + W_q[i]·V_q[i:]
    const row = at(S, n, i, i);
    const len = n - i;
    for (let q = 0; q < r; q++) {
      const vq = at(S, n, k0 + q, i);
      const wq = W + <usize>q * N8 + (<usize>i << 3);
      axpy2(len, load<f64>(vq), wq, load<f64>(wq), vq, row);
    }
    st8(d, i, load<f64>(row));
    const t = householder(S, n, i, e, tau);
    const p = n - i - 1;
    const wr = W + <usize>r * N8 + (<usize>(i + 1) << 3);
    if (t == 0) {
      memory.fill(wr, 0, <usize>p << 3);
      continue;
    }
    const v = at(S, n, i, i + 1);
    symvUpper(S, n, i + 1, p, v, wr);
    for (let q = 0; q < r; q++) {
      const vq = at(S, n, k0 + q, i + 1);
      const wq = W + <usize>q * N8 + (<usize>(i + 1) << 3);
      axpy2(p, vdot(p, wq, v), vq, vdot(p, vq, v), wq, wr);
    }
    vscal(p, t, wr);
    vaxpy(p, -0.5 * t * vdot(p, wr, v), v, wr);
  }
}

/**
 * S22 (rows/columns from j = k0+nb) −= VᵀW + WᵀV on the upper triangle: the stacks [V; W] and
 * [W; V] (2nb × p, copied from the reflector rows and W) enter one product of inner dimension
 * 2nb, computed on the packed tiles of the gemm kernel for tiles that hold an upper entry.
 */
function trailingUpdate(
  S: usize,
  n: i32,
  k0: i32,
  nb: i32,
  W: usize,
  VW: usize,
  WV: usize,
  PA: usize,
  PB: usize,
  T16: usize,
): void {
  const j = k0 + nb;
  const p = n - j;
  const P8 = <usize>p << 3;
  const N8 = <usize>n << 3;
  for (let q = 0; q < nb; q++) {
    const v = at(S, n, k0 + q, j);
    const w = W + <usize>q * N8 + (<usize>j << 3);
    memory.copy(VW + <usize>q * P8, v, P8);
    memory.copy(VW + <usize>(nb + q) * P8, w, P8);
    memory.copy(WV + <usize>q * P8, w, P8);
    memory.copy(WV + <usize>(nb + q) * P8, v, P8);
  }
  // S22 −= [V W]·[W V]ᵀ = VᵀW + WᵀV (row-major: VW holds V then W as 2nb rows of p, WV the
  // reverse), upper tiles only
  gemmStrided(true, false, p, p, 2 * nb, -1, VW, p, WV, p, 1, at(S, n, j, j), n, PA, PB, T16, KC, MC, NC, true);
}

/**
 * Vᵀ ← Vᵀ·H_{n−3}···H_0 in blocks of NBQ reflectors from the last: a block H_{k}···H_{k+b−1} is
 * I − Y·T·Yᵀ (compact WY, dlarft forward), so right-multiplying by its transpose is
 * Vᵀ −= (Vᵀ·Y)·(Tᵀ·Yᵀ), two gemm calls on columns k+1.. of Vᵀ.
 */
function backTransform(
  S: usize,
  n: i32,
  tau: usize,
  VT: usize,
  Yt: usize,
  Zb: usize,
  Tm: usize,
  W2: usize,
  PA: usize,
  PB: usize,
  T16: usize,
): void {
  const nr = n - 2; // reflectors k = 0..n−3
  if (nr <= 0) return;
  const TB = <usize>NBQ << 3;
  for (let kb0 = ((nr - 1) / NBQ) * NBQ; kb0 >= 0; kb0 -= NBQ) {
    const nbk = min(NBQ, nr - kb0);
    const c0 = kb0 + 1;
    const p = n - c0;
    const P8 = <usize>p << 3;
    // Yᵀ (nbk × p): row r = v of reflector kb0 + r, zeros left of its leading 1
    for (let r = 0; r < nbk; r++) {
      const k = kb0 + r;
      const dst = Yt + <usize>r * P8;
      if (ld8(tau, k) == 0) {
        memory.fill(dst, 0, P8);
        continue;
      }
      memory.fill(dst, 0, <usize>r << 3);
      st8(dst, r, 1);
      memory.copy(dst + (<usize>(r + 1) << 3), at(S, n, k, k + 2), <usize>(p - r - 1) << 3);
    }
    // T (nbk × nbk upper, zero below): T_ii = τ_i, T[0:i, i] = −τ_i·T[0:i, 0:i]·(Y[:, 0:i]ᵀ y_i)
    memory.fill(Tm, 0, <usize>NBQ * TB);
    for (let i = 0; i < nbk; i++) {
      const ti = ld8(tau, kb0 + i);
      store<f64>(Tm + <usize>i * TB + (<usize>i << 3), ti);
      if (ti == 0) continue;
      const yi = Yt + <usize>i * P8 + (<usize>i << 3);
      for (let q = 0; q < i; q++) {
        const yq = Yt + <usize>q * P8 + (<usize>i << 3);
        store<f64>(Tm + <usize>q * TB + (<usize>i << 3), -ti * vdot(p - i, yq, yi));
      }
      for (let q = 0; q < i; q++) {
        let s: f64 = 0;
        for (let c = q; c < i; c++)
          s += load<f64>(Tm + <usize>q * TB + (<usize>c << 3)) * load<f64>(Tm + <usize>c * TB + (<usize>i << 3));
        store<f64>(Tm + <usize>q * TB + (<usize>i << 3), s);
      }
    }
    // W2 = Vᵀ[:, c0:]·Y (n × nbk); Z = Tᵀ·Yᵀ (nbk × p); Vᵀ[:, c0:] −= W2·Z
    gemmStrided(false, true, n, nbk, p, 1, VT + (<usize>c0 << 3), n, Yt, p, 0, W2, nbk, PA, PB, T16, KC, MC, NC);
    gemmStrided(true, false, nbk, p, nbk, 1, Tm, NBQ, Yt, p, 0, Zb, p, PA, PB, T16, KC, MC, NC);
    gemmStrided(false, false, n, p, nbk, -1, W2, nbk, Zb, p, 1, VT + (<usize>c0 << 3), n, PA, PB, T16, KC, MC, NC);
  }
}
