// One-sided Jacobi SVD on rows (Hestenes), row-major. Reference and accuracy notes:
// src/linalg/gesvj.ts (same sweep order, same threshold, row norms re-accumulated per rotation).
import { vdot, vrot } from './vec';

const MAX_SWEEPS: i32 = 60;

/** Y (m×m) rows orthogonalised in place; V ← accumulated rotations (from I); norms2 ← ||y_i||². */
export function dgesvj(Y: usize, m: i32, V: usize, norms2: usize): i32 {
  const ld = <usize>m << 3;
  memory.fill(V, 0, <usize>m * ld);
  for (let i = 0; i < m; i++) {
    store<f64>(V + <usize>i * ld + (<usize>i << 3), 1);
    const yi = Y + <usize>i * ld;
    store<f64>(norms2 + (<usize>i << 3), vdot(m, yi, yi));
  }
  const tol = sqrt(<f64>m) * 2.220446049250313e-16;
  for (let sweep = 1; sweep <= MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (let i = 0; i < m - 1; i++) {
      const yi = Y + <usize>i * ld;
      for (let j = i + 1; j < m; j++) {
        const a = load<f64>(norms2 + (<usize>i << 3));
        const b = load<f64>(norms2 + (<usize>j << 3));
        if (a == 0 || b == 0) continue;
        const yj = Y + <usize>j * ld;
        const c = vdot(m, yi, yj);
        if (abs(c) <= tol * sqrt(a) * sqrt(b)) continue;
        rotated = true;
        const zeta = (b - a) / (2 * c);
        const t =
          abs(zeta) > 1e150 ? 1 / (2 * zeta) : (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + sqrt(1 + zeta * zeta));
        const cs = 1 / sqrt(1 + t * t);
        const sn = cs * t;
        // rotate and re-accumulate both norms in the same pass
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
        store<f64>(norms2 + (<usize>i << 3), sa);
        store<f64>(norms2 + (<usize>j << 3), sb);
        vrot(m, V + <usize>i * ld, V + <usize>j * ld, cs, sn);
      }
    }
    if (!rotated) return sweep;
  }
  return -1;
}
