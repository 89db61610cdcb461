// The symmetric tridiagonal's implicit QL (EISPACK tql2) and the sorts of its results, shared by
// the eigensolver (./dsyev.ts), the leaves of divide and conquer (./dstedc.ts) and the
// Golub–Kahan fallback of the bidiagonal's singular values (./dgebrd.ts).
import { capQlPerValue } from './caps';
import { ld8, st8, at } from './mem';
import { vrot } from './vec';

const EPS_QL: f64 = 2.220446049250313e-16;

/** Shell sort of the n values at d, ascending (Knuth's gaps 1, 4, 13, …). */
export function sortValues(d: usize, n: i32): void {
  let gap = 1;
  while (gap < n / 3) gap = 3 * gap + 1;
  for (; gap >= 1; gap /= 3) {
    for (let i = gap; i < n; i++) {
      const x = ld8(d, i);
      let j = i;
      while (j >= gap && ld8(d, j - gap) > x) {
        st8(d, j, ld8(d, j - gap));
        j -= gap;
      }
      st8(d, j, x);
    }
  }
}

/** Selection sort of d ascending with the rows of VT (n swaps of rows at most). */
export function sortRows(d: usize, VT: usize, n: i32): void {
  for (let i = 0; i < n - 1; i++) {
    let kmin = i;
    for (let j = i + 1; j < n; j++) if (ld8(d, j) < ld8(d, kmin)) kmin = j;
    if (kmin != i) {
      const tmp = ld8(d, i);
      st8(d, i, ld8(d, kmin));
      st8(d, kmin, tmp);
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

/**
 * Implicit QL (EISPACK tql2) on (d, e) of size n; with VT != 0 each rotation of columns i, i+1
 * of V is applied to rows i, i+1 of VT (row length ld). Returns iterations or −1.
 */
export function tql2(n: i32, d: usize, e: usize, VT: usize, ld: i32): i32 {
  let f: f64 = 0;
  let tst1: f64 = 0;
  let total = 0;
  const cap = capQlPerValue * n;
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
          if (VT != 0) vrot(ld, at(VT, ld, i, 0), at(VT, ld, i + 1, 0), c, s);
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
