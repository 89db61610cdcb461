// Symmetric eigensolver: Householder tridiagonalisation on rows (upper triangle only), Qᵀ accumulated from the right,
// implicit QL (tql2) with rotations applied to rows of Vᵀ, ascending sort. Reference, derivation
// and accuracy: src/linalg/syev.ts (same operations in the same order up to SIMD summation order).
import { vaxpy, vdot, vrot } from './vec';

const EPS_QL: f64 = 2.220446049250313e-16;
const MAX_ITER_PER_VALUE: i32 = 30;

// @ts-ignore: decorator
@inline function at(M: usize, n: i32, i: i32, j: i32): usize {
  return M + (<usize>(i * n + j) << 3);
}

/**
 * S (n×n symmetric, destroyed) → values (n, ascending), VT (n×n, row j = eigenvector j).
 * work: 3n values. Returns QL iterations or −1 on no convergence.
 */
export function dsyev(S: usize, n: i32, values: usize, VT: usize, work: usize): i32 {
  if (n == 0) return 0;
  const d = values;
  const e = work;
  const tau = work + (<usize>n << 3);
  const y = tau + (<usize>n << 3);
  for (let k = 0; k + 2 < n; k++) {
    store<f64>(d + (<usize>k << 3), load<f64>(at(S, n, k, k)));
    const alpha = load<f64>(at(S, n, k, k + 1));
    const x = at(S, n, k, k + 2);
    const sigma2 = vdot(n - k - 2, x, x);
    if (sigma2 == 0) {
      store<f64>(tau + (<usize>k << 3), 0);
      store<f64>(e + (<usize>k << 3), alpha);
      continue;
    }
    const beta = -(alpha >= 0 ? 1.0 : -1.0) * sqrt(alpha * alpha + sigma2);
    const t = (beta - alpha) / beta;
    const inv = 1 / (alpha - beta);
    const v = at(S, n, k, k + 1);
    store<f64>(v, 1);
    for (let j = 0; j < n - k - 2; j++) {
      const p = x + (<usize>j << 3);
      store<f64>(p, load<f64>(p) * inv);
    }
    store<f64>(tau + (<usize>k << 3), t);
    store<f64>(e + (<usize>k << 3), beta);
    const p = n - k - 1;
    // y = t·S22·v from the upper triangle of S22 only (row-major: row i from the diagonal on is
    // contiguous): row i adds its dot with v to y_i and v_i times itself to y_{i+1..}.
    memory.fill(y, 0, <usize>p << 3);
    for (let i = 0; i < p; i++) {
      const row = at(S, n, k + 1 + i, k + 1 + i);
      const vi = load<f64>(v + (<usize>i << 3));
      const va = f64x2.splat(vi);
      const vv = v + (<usize>(i + 1) << 3);
      const yy = y + (<usize>(i + 1) << 3);
      const q = p - i - 1;
      let acc = f64x2.splat(0);
      let j = 0;
      for (; j + 2 <= q; j += 2) {
        const o = <usize>j << 3;
        const a = v128.load(row + 8 + o);
        acc = f64x2.add(acc, f64x2.mul(a, v128.load(vv + o)));
        v128.store(yy + o, f64x2.add(v128.load(yy + o), f64x2.mul(a, va)));
      }
      let sum = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
      for (; j < q; j++) {
        const o = <usize>j << 3;
        const a = load<f64>(row + 8 + o);
        sum += a * load<f64>(vv + o);
        store<f64>(yy + o, load<f64>(yy + o) + a * vi);
      }
      const py = y + (<usize>i << 3);
      store<f64>(py, load<f64>(py) + (load<f64>(row) * vi + sum));
    }
    for (let i = 0; i < p; i++) {
      const py = y + (<usize>i << 3);
      store<f64>(py, t * load<f64>(py));
    }
    const mu = 0.5 * t * vdot(p, y, v);
    vaxpy(p, -mu, v, y);
    // S22 −= v wᵀ + w vᵀ on the upper triangle (what the next steps read).
    for (let i = 0; i < p; i++) {
      const row = at(S, n, k + 1 + i, k + 1 + i);
      const vi = load<f64>(v + (<usize>i << 3));
      const wi = load<f64>(y + (<usize>i << 3));
      const va = f64x2.splat(vi);
      const vb = f64x2.splat(wi);
      const vv = v + (<usize>i << 3);
      const ww = y + (<usize>i << 3);
      const q = p - i;
      let j = 0;
      for (; j + 2 <= q; j += 2) {
        const o = <usize>j << 3;
        const upd = f64x2.add(f64x2.mul(va, v128.load(ww + o)), f64x2.mul(vb, v128.load(vv + o)));
        v128.store(row + o, f64x2.sub(v128.load(row + o), upd));
      }
      for (; j < q; j++) {
        const o = <usize>j << 3;
        store<f64>(row + o, load<f64>(row + o) - (vi * load<f64>(ww + o) + wi * load<f64>(vv + o)));
      }
    }
  }
  if (n >= 2) {
    store<f64>(d + (<usize>(n - 2) << 3), load<f64>(at(S, n, n - 2, n - 2)));
    store<f64>(e + (<usize>(n - 2) << 3), load<f64>(at(S, n, n - 2, n - 1)));
  }
  store<f64>(d + (<usize>(n - 1) << 3), load<f64>(at(S, n, n - 1, n - 1)));
  store<f64>(e + (<usize>(n - 1) << 3), 0);
  // Qᵀ = I·H_{n−3}···H_0
  memory.fill(VT, 0, <usize>n * n * 8);
  for (let i = 0; i < n; i++) store<f64>(at(VT, n, i, i), 1);
  for (let k = n - 3; k >= 0; k--) {
    const t = load<f64>(tau + (<usize>k << 3));
    if (t == 0) continue;
    const v = at(S, n, k, k + 1);
    const p = n - k - 1;
    for (let i = k + 1; i < n; i++) {
      const row = at(VT, n, i, k + 1);
      vaxpy(p, -t * vdot(p, row, v), v, row);
    }
  }
  const iters = tql2(n, d, e, VT);
  if (iters < 0) return -1;
  for (let i = 0; i < n - 1; i++) {
    let kmin = i;
    for (let j = i + 1; j < n; j++) if (load<f64>(d + (<usize>j << 3)) < load<f64>(d + (<usize>kmin << 3))) kmin = j;
    if (kmin != i) {
      const tmp = load<f64>(d + (<usize>i << 3));
      store<f64>(d + (<usize>i << 3), load<f64>(d + (<usize>kmin << 3)));
      store<f64>(d + (<usize>kmin << 3), tmp);
      // swap rows = rotation by 90° with sign fix: do it directly
      const ri = at(VT, n, i, 0);
      const rk = at(VT, n, kmin, 0);
      for (let c = 0; c < n; c++) {
        const o = <usize>c << 3;
        const a = load<f64>(ri + o);
        store<f64>(ri + o, load<f64>(rk + o));
        store<f64>(rk + o, a);
      }
    }
  }
  return iters;
}

function hypot2(a: f64, b: f64): f64 {
  // sqrt(a² + b²) without overflow for the scaled data of this kernel (|a|, |b| ~ 1): plain
  // formula is exact enough and much faster than Math.hypot; fall back when it over/underflows.
  const h = sqrt(a * a + b * b);
  if (h < 1e-150 || h > 1e150) {
    const m = max(abs(a), abs(b));
    if (m == 0) return 0;
    const x = a / m;
    const y = b / m;
    return m * sqrt(x * x + y * y);
  }
  return h;
}

function tql2(n: i32, d: usize, e: usize, VT: usize): i32 {
  let f: f64 = 0;
  let tst1: f64 = 0;
  let total = 0;
  const cap = MAX_ITER_PER_VALUE * n;
  for (let l = 0; l < n; l++) {
    tst1 = max(tst1, abs(load<f64>(d + (<usize>l << 3))) + abs(load<f64>(e + (<usize>l << 3))));
    let m = l;
    while (m < n - 1) {
      if (abs(load<f64>(e + (<usize>m << 3))) <= EPS_QL * tst1) break;
      m++;
    }
    if (m > l) {
      do {
        if (++total > cap) return -1;
        let g = load<f64>(d + (<usize>l << 3));
        const el = load<f64>(e + (<usize>l << 3));
        let p = (load<f64>(d + (<usize>(l + 1) << 3)) - g) / (2 * el);
        let r = hypot2(p, 1);
        if (p < 0) r = -r;
        store<f64>(d + (<usize>l << 3), el / (p + r));
        store<f64>(d + (<usize>(l + 1) << 3), el * (p + r));
        const dl1 = load<f64>(d + (<usize>(l + 1) << 3));
        let h = g - load<f64>(d + (<usize>l << 3));
        for (let i = l + 2; i < n; i++) store<f64>(d + (<usize>i << 3), load<f64>(d + (<usize>i << 3)) - h);
        f += h;
        p = load<f64>(d + (<usize>m << 3));
        let c: f64 = 1;
        let c2 = c;
        let c3 = c;
        const el1 = load<f64>(e + (<usize>(l + 1) << 3));
        let s: f64 = 0;
        let s2: f64 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          const ei = load<f64>(e + (<usize>i << 3));
          const di = load<f64>(d + (<usize>i << 3));
          g = c * ei;
          h = c * p;
          r = hypot2(p, ei);
          store<f64>(e + (<usize>(i + 1) << 3), s * r);
          s = ei / r;
          c = p / r;
          p = c * di - s * g;
          store<f64>(d + (<usize>(i + 1) << 3), h + s * (c * g + s * di));
          // (x, y) = rows (i, i+1): y ← s·x + c·y, x ← c·x − s·y  ==  vrot(x, y, c, s)
          vrot(n, at(VT, n, i, 0), at(VT, n, i + 1, 0), c, s);
        }
        p = (-s * s2 * c3 * el1 * load<f64>(e + (<usize>l << 3))) / dl1;
        store<f64>(e + (<usize>l << 3), s * p);
        store<f64>(d + (<usize>l << 3), c * p);
      } while (abs(load<f64>(e + (<usize>l << 3))) > EPS_QL * tst1);
    }
    store<f64>(d + (<usize>l << 3), load<f64>(d + (<usize>l << 3)) + f);
    store<f64>(e + (<usize>l << 3), 0);
  }
  return total;
}
