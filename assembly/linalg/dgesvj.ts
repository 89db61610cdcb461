// One-sided Jacobi SVD on rows (Hestenes), row-major. Reference and accuracy notes:
// src/linalg/gesvj.ts (same sweep order, same threshold, same scaled path for tiny rows; row
// norms kept as norms and re-accumulated per rotation).
import { pow2Scale, vdot, vrot } from './vec';
import { ld8 } from './mem';

const MAX_SWEEPS: i32 = 60;
/** 2^-480: rows below it take the scaled path (their squares are near underflow). */
const SMALL: f64 = reinterpret<f64>(<u64>(1023 - 480) << 52);
/** 2^480: rows above it take the scaled path (their squares are near overflow). */
const LARGE: f64 = reinterpret<f64>(<u64>(1023 + 480) << 52);
/** Stop after a sweep whose largest rotated |cos| is <= ROUNDING·m·eps (src/linalg/gesvj.ts). */
const ROUNDING: f64 = 4;
/** 4·2^-1074: the subnormal floor of a pair's threshold (src/linalg/gesvj.ts JACOBI_SUBNORMAL). */
const SUBNORMAL: f64 = 4 * 4.9406564584124654e-324;
/** 2^-400: below this norm ratio a rotation is first order. */
const FIRST_ORDER: f64 = reinterpret<f64>(<u64>(1023 - 400) << 52);

/** ||row|| (m values) without underflow. */
function rowNorm(row: usize, m: i32): f64 {
  let amax: f64 = 0;
  for (let k = 0; k < m; k++) amax = max(amax, abs(ld8(row, k)));
  if (amax == 0) return 0;
  if (amax >= SMALL && amax <= LARGE) {
    const s = vdot(m, row, row);
    if (s >= SMALL * SMALL) return sqrt(s);
  }
  const sc = pow2Scale(amax);
  let s: f64 = 0;
  for (let k = 0; k < m; k++) {
    const x = ld8(row, k) * sc;
    s += x * x;
  }
  return sqrt(s) / sc;
}

function tangent(ni: f64, nj: f64, g: f64): f64 {
  const zeta = (nj / ni - ni / nj) / (2 * g);
  return abs(zeta) > 1e150 ? 1 / (2 * zeta) : (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + sqrt(1 + zeta * zeta));
}

/** Rotates rows yi, yj by (cs, sn) and returns both new squared norms (lane 0: yi, lane 1: yj). */
function rotateNorms(m: i32, yi: usize, yj: usize, cs: f64, sn: f64): v128 {
  const vc = f64x2.splat(cs);
  const vs = f64x2.splat(sn);
  let na = f64x2.splat(0);
  let nb = f64x2.splat(0);
  let k = 0;
  for (; k + 2 <= m; k += 2) {
    const o = <usize>k << 3;
    const x = v128.load(yi + o);
    const y = v128.load(yj + o);
    const x2 = f64x2.sub(f64x2.mul(vc, x), f64x2.mul(vs, y));
    const y2 = f64x2.add(f64x2.mul(vs, x), f64x2.mul(vc, y));
    v128.store(yi + o, x2);
    v128.store(yj + o, y2);
    na = f64x2.add(na, f64x2.mul(x2, x2));
    nb = f64x2.add(nb, f64x2.mul(y2, y2));
  }
  let sa = f64x2.extract_lane(na, 0) + f64x2.extract_lane(na, 1);
  let sb = f64x2.extract_lane(nb, 0) + f64x2.extract_lane(nb, 1);
  for (; k < m; k++) {
    const o = <usize>k << 3;
    const x = load<f64>(yi + o);
    const y = load<f64>(yj + o);
    const x2 = cs * x - sn * y;
    const y2 = sn * x + cs * y;
    store<f64>(yi + o, x2);
    store<f64>(yj + o, y2);
    sa += x2 * x2;
    sb += y2 * y2;
  }
  return f64x2(sa, sb);
}

function scaleRow(row: usize, m: i32, s: f64): void {
  for (let k = 0; k < m; k++) store<f64>(row + (<usize>k << 3), ld8(row, k) * s);
}

/**
 * Tests the pair (i, j) of rows of Y and rotates it when |cos| exceeds its threshold (the rotation
 * also applied to V when wantV != 0, the row norms in nrm kept current). Returns the |cos| rotated,
 * or 0 if the pair was left alone.
 */
function jacobiPair(Y: usize, m: i32, V: usize, nrm: usize, wantV: i32, i: i32, j: i32, tol: f64, negligible: f64): f64 {
  const ld = <usize>m << 3;
  const ni = ld8(nrm, i);
  const nj = ld8(nrm, j);
  if (ni <= negligible || nj <= negligible || ni == 0 || nj == 0) return 0;
  const yi = Y + <usize>i * ld;
  const yj = Y + <usize>j * ld;
  if (ni >= SMALL && nj >= SMALL && ni <= LARGE && nj <= LARGE) {
    const g = vdot(m, yi, yj) / ni / nj;
    if (abs(g) <= tol) return 0;
    const t = tangent(ni, nj, g);
    const cs = 1 / sqrt(1 + t * t);
    const sn = cs * t;
    const n2 = rotateNorms(m, yi, yj, cs, sn);
    const a = f64x2.extract_lane(n2, 0);
    const b = f64x2.extract_lane(n2, 1);
    store<f64>(nrm + (<usize>i << 3), a >= SMALL * SMALL && a <= LARGE * LARGE ? sqrt(a) : rowNorm(yi, m));
    store<f64>(nrm + (<usize>j << 3), b >= SMALL * SMALL && b <= LARGE * LARGE ? sqrt(b) : rowNorm(yj, m));
    if (wantV != 0) vrot(m, V + <usize>i * ld, V + <usize>j * ld, cs, sn);
    return abs(g);
  }
  const si = pow2Scale(ni);
  const sj = pow2Scale(nj);
  let c: f64 = 0;
  for (let k = 0; k < m; k++) c += ld8(yi, k) * si * (ld8(yj, k) * sj);
  const g = c / (ni * si) / (nj * sj);
  if (abs(g) <= tol + (sqrt(<f64>m) * SUBNORMAL) / min(ni, nj)) return 0;
  const iSmall = ni <= nj;
  const ns = iSmall ? ni : nj;
  const nl = iSmall ? nj : ni;
  const ys = iSmall ? yi : yj;
  const yl = iSmall ? yj : yi;
  if (ns >= FIRST_ORDER * nl) {
    const s = pow2Scale(nl);
    scaleRow(yi, m, s);
    scaleRow(yj, m, s);
    const t = tangent(ni * s, nj * s, g);
    const cs = 1 / sqrt(1 + t * t);
    const sn = cs * t;
    rotateNorms(m, yi, yj, cs, sn);
    scaleRow(yi, m, 1 / s);
    scaleRow(yj, m, 1 / s);
    if (wantV != 0) vrot(m, V + <usize>i * ld, V + <usize>j * ld, cs, sn);
  } else {
    const ss = iSmall ? si : sj;
    const ts = (g * (ns * ss)) / nl;
    for (let k = 0; k < m; k++) {
      const p = ys + (<usize>k << 3);
      store<f64>(p, (load<f64>(p) * ss - ts * ld8(yl, k)) / ss);
    }
    const t = ts / ss;
    if (wantV != 0 && t != 0) {
      const vs = V + <usize>(iSmall ? i : j) * ld;
      const vl = V + <usize>(iSmall ? j : i) * ld;
      for (let k = 0; k < m; k++) {
        const o = <usize>k << 3;
        const a = load<f64>(vs + o);
        store<f64>(vs + o, a - t * load<f64>(vl + o));
        store<f64>(vl + o, load<f64>(vl + o) + t * a);
      }
    }
  }
  store<f64>(nrm + (<usize>i << 3), rowNorm(yi, m));
  store<f64>(nrm + (<usize>j << 3), rowNorm(yj, m));
  return abs(g);
}

/**
 * Y (m×m) rows orthogonalised in place; V ← accumulated rotations, from I (wantV = 1) or from V
 * as given (wantV = 2), or V untouched (wantV = 0);
 * norms2 ← ||y_i||² (workspace during the sweeps: it holds the norms there). Returns the sweeps,
 * or −1 at the sweep cap. Rows of norm <= negligible are not rotated.
 *
 * With npairs > 0: one sweep over only the pairs (pairs[2p], pairs[2p+1]) (i32, in that order),
 * each tested and rotated as in a full sweep; returns 1 if that sweep ends the iteration by the
 * sweeps' rule (nothing rotated, or the largest rotated |cos| <= ROUNDING·m·eps), else 0.
 */
export function dgesvj(
  Y: usize,
  m: i32,
  V: usize,
  norms2: usize,
  wantV: i32,
  negligible: f64,
  pairs: usize,
  npairs: i32,
): i32 {
  const ld = <usize>m << 3;
  const nrm = norms2;
  if (wantV == 1) memory.fill(V, 0, <usize>m * ld);
  for (let i = 0; i < m; i++) {
    if (wantV == 1) store<f64>(V + <usize>i * ld + (<usize>i << 3), 1);
    store<f64>(nrm + (<usize>i << 3), rowNorm(Y + <usize>i * ld, m));
  }
  const tol = sqrt(<f64>m) * 2.220446049250313e-16;
  const rounding = ROUNDING * <f64>m * 2.220446049250313e-16;
  let result: i32 = -1;
  if (npairs > 0) {
    let worst: f64 = 0;
    let rotated = false;
    for (let p = 0; p < npairs; p++) {
      const i = load<i32>(pairs + (<usize>p << 3));
      const j = load<i32>(pairs + (<usize>p << 3) + 4);
      const g = jacobiPair(Y, m, V, nrm, wantV, i, j, tol, negligible);
      if (g > 0) {
        rotated = true;
        worst = max(worst, g);
      }
    }
    result = !rotated || worst <= rounding ? 1 : 0;
  } else {
    for (let sweep = 1; sweep <= MAX_SWEEPS; sweep++) {
      let rotated = false;
      let worst: f64 = 0;
      for (let i = 0; i < m - 1; i++) {
        for (let j = i + 1; j < m; j++) {
          const g = jacobiPair(Y, m, V, nrm, wantV, i, j, tol, negligible);
          if (g > 0) {
            rotated = true;
            worst = max(worst, g);
          }
        }
      }
      if (!rotated || worst <= rounding) {
        result = sweep;
        break;
      }
    }
  }
  for (let i = 0; i < m; i++) {
    const x = ld8(nrm, i);
    store<f64>(nrm + (<usize>i << 3), x * x);
  }
  return result;
}
