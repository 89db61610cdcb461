// Contiguous f64x2 helpers shared by the linalg kernels (not exported from the module).
// Pointers may be 8-byte aligned only: wasm v128 loads/stores accept any alignment. vdot's and
// vaxpy's vector steps are madd (./madd.ts): fused in the FMA build; their scalar tails are not.
import { madd } from './madd';

/** Σ x_i y_i over n contiguous values (two f64x2 accumulators). */
export function vdot(n: i32, x: usize, y: usize): f64 {
  let a0 = f64x2.splat(0);
  let a1 = f64x2.splat(0);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 3;
    a0 = madd(v128.load(x + o), v128.load(y + o), a0);
    a1 = madd(v128.load(x + o, 16), v128.load(y + o, 16), a1);
  }
  const a = f64x2.add(a0, a1);
  let s = f64x2.extract_lane(a, 0) + f64x2.extract_lane(a, 1);
  for (; i < n; i++) {
    const o = <usize>i << 3;
    s += load<f64>(x + o) * load<f64>(y + o);
  }
  return s;
}

/** y += a·x over n contiguous values. */
export function vaxpy(n: i32, a: f64, x: usize, y: usize): void {
  const va = f64x2.splat(a);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 3;
    v128.store(y + o, madd(va, v128.load(x + o), v128.load(y + o)));
    v128.store(y + o, madd(va, v128.load(x + o, 16), v128.load(y + o, 16)), 16);
  }
  for (; i < n; i++) {
    const o = <usize>i << 3;
    store<f64>(y + o, load<f64>(y + o) + a * load<f64>(x + o));
  }
}

/** x ← a·x over n contiguous values. */
export function vscal(n: i32, a: f64, x: usize): void {
  const va = f64x2.splat(a);
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const o = x + (<usize>i << 3);
    v128.store(o, f64x2.mul(va, v128.load(o)));
  }
  if (i < n) store<f64>(x + (<usize>i << 3), a * load<f64>(x + (<usize>i << 3)));
}

/** Rotation of two rows: x ← c·x − s·y, y ← s·x + c·y (n contiguous values each). */
export function vrot(n: i32, x: usize, y: usize, c: f64, s: f64): void {
  const vc = f64x2.splat(c);
  const vs = f64x2.splat(s);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 3;
    const x0 = v128.load(x + o);
    const y0 = v128.load(y + o);
    const x1 = v128.load(x + o, 16);
    const y1 = v128.load(y + o, 16);
    v128.store(x + o, f64x2.sub(f64x2.mul(vc, x0), f64x2.mul(vs, y0)));
    v128.store(y + o, f64x2.add(f64x2.mul(vs, x0), f64x2.mul(vc, y0)));
    v128.store(x + o, f64x2.sub(f64x2.mul(vc, x1), f64x2.mul(vs, y1)), 16);
    v128.store(y + o, f64x2.add(f64x2.mul(vs, x1), f64x2.mul(vc, y1)), 16);
  }
  for (; i + 2 <= n; i += 2) {
    const o = <usize>i << 3;
    const xv = v128.load(x + o);
    const yv = v128.load(y + o);
    v128.store(x + o, f64x2.sub(f64x2.mul(vc, xv), f64x2.mul(vs, yv)));
    v128.store(y + o, f64x2.add(f64x2.mul(vs, xv), f64x2.mul(vc, yv)));
  }
  for (; i < n; i++) {
    const o = <usize>i << 3;
    const xv = load<f64>(x + o);
    const yv = load<f64>(y + o);
    store<f64>(x + o, c * xv - s * yv);
    store<f64>(y + o, s * xv + c * yv);
  }
}

/** 2^k with amax·2^k in [1, 2) for finite amax > 0, k clamped to [-1022, 1022] (exact). */
export function pow2Scale(amax: f64): f64 {
  const e = <i32>((reinterpret<u64>(amax) >> 52) & 0x7ff) - 1023;
  let k = -e;
  if (k > 1022) k = 1022;
  if (k < -1022) k = -1022;
  return reinterpret<f64>(<u64>(k + 1023) << 52);
}
