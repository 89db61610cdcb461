// Matrix-vector product (BLAS-2 dgemv, no transpose), f64, row-major.

import { madd } from './madd';
import { vdot } from './vec';

// @ts-ignore: decorator
@inline function lanes(a: v128, b: v128): f64 {
  const s = f64x2.add(a, b);
  return f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1);
}

/**
 * y (M) = A·x for A M×N stored row-major with row stride lda (in values), x of N values. Each
 * y_i is summed exactly as vdot sums row i against x (two f64x2 accumulators over blocks of four
 * columns, their sum, its two lanes, then the tail columns one by one), so the order of every sum
 * is fixed by N alone (the vector steps are madd: fused in the FMA build, as vdot's); rows are
 * taken four at a time so that each load of x serves four rows.
 * y must not overlap A or x.
 */
export function dgemv(M: i32, N: i32, A: usize, lda: i32, x: usize, y: usize): void {
  const rb = <usize>lda << 3;
  const blocks = <usize>(N >> 2) << 5; // bytes of the columns in whole blocks of four
  const end = <usize>N << 3;
  let i = 0;
  for (; i + 4 <= M; i += 4) {
    const r0 = A + <usize>i * rb;
    const r1 = r0 + rb, r2 = r1 + rb, r3 = r2 + rb;
    const z = f64x2.splat(0);
    let a00 = z, a01 = z, a10 = z, a11 = z, a20 = z, a21 = z, a30 = z, a31 = z;
    for (let o: usize = 0; o < blocks; o += 32) {
      const x0 = v128.load(x + o), x1 = v128.load(x + o, 16);
      a00 = madd(v128.load(r0 + o), x0, a00);
      a01 = madd(v128.load(r0 + o, 16), x1, a01);
      a10 = madd(v128.load(r1 + o), x0, a10);
      a11 = madd(v128.load(r1 + o, 16), x1, a11);
      a20 = madd(v128.load(r2 + o), x0, a20);
      a21 = madd(v128.load(r2 + o, 16), x1, a21);
      a30 = madd(v128.load(r3 + o), x0, a30);
      a31 = madd(v128.load(r3 + o, 16), x1, a31);
    }
    let s0 = lanes(a00, a01), s1 = lanes(a10, a11), s2 = lanes(a20, a21), s3 = lanes(a30, a31);
    for (let o = blocks; o < end; o += 8) {
      const xj = load<f64>(x + o);
      s0 += load<f64>(r0 + o) * xj;
      s1 += load<f64>(r1 + o) * xj;
      s2 += load<f64>(r2 + o) * xj;
      s3 += load<f64>(r3 + o) * xj;
    }
    const yo = y + (<usize>i << 3);
    store<f64>(yo, s0);
    store<f64>(yo, s1, 8);
    store<f64>(yo, s2, 16);
    store<f64>(yo, s3, 24);
  }
  for (; i < M; i++) store<f64>(y + (<usize>i << 3), vdot(N, A + <usize>i * rb, x));
}
