// Overflow-safe Euclidean norm and distance (BLAS-1), f64, SIMD on the contiguous path.
//
// Accuracy: both routines scale by an exact power of two chosen from the largest magnitude
// (so the scaled maximum lies in [1, 2)), sum the squares, take the square root and undo the
// scaling exactly. The only rounding is that of the plain sum of squares, so the relative error
// is at most about (n/2 + 1)·eps for n terms, as for the unscaled formula, but no input that has
// a finite norm overflows and no input whose norm is a normal number underflows to zero.

/** 2^k for k in [-1022, 1023] built from its bit pattern (exact). */
// @ts-ignore: decorator
@inline function pow2(k: i32): f64 {
  return reinterpret<f64>(<u64>(k + 1023) << 52);
}

/**
 * Exponent k such that m·2^k lies in [1, 2) for a finite positive normal m; for subnormal m the
 * value is clamped so that 2^k stays a normal number (k <= 1022), which keeps the scaling exact.
 */
// @ts-ignore: decorator
@inline function scaleExponent(m: f64): i32 {
  const e = <i32>((reinterpret<u64>(m) >> 52) & 0x7ff) - 1023;
  let k = -e;
  if (k > 1022) k = 1022;
  if (k < -1022) k = -1022;
  return k;
}

/** max_i |x[i·incx]| with NaN propagation (returns NaN if any entry is NaN). */
function damax(n: i32, x: usize, incx: i32): f64 {
  let m: f64 = 0;
  let sawNaN = false;
  if (incx == 1) {
    let i = 0;
    let vm = f64x2.splat(0);
    for (; i + 2 <= n; i += 2) {
      const v = v128.load(x + (<usize>i << 3));
      const a = f64x2.abs(v);
      // NaN detection: a != a
      if (v128.any_true(f64x2.ne(a, a))) sawNaN = true;
      vm = f64x2.max(vm, a);
    }
    m = max(f64x2.extract_lane(vm, 0), f64x2.extract_lane(vm, 1));
    for (; i < n; i++) {
      const a = abs(load<f64>(x + (<usize>i << 3)));
      if (a != a) sawNaN = true;
      if (a > m) m = a;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const a = abs(load<f64>(x + <usize>(i * incx) * 8));
      if (a != a) sawNaN = true;
      if (a > m) m = a;
    }
  }
  return sawNaN ? NaN : m;
}

/** Euclidean norm of x (n entries, stride incx >= 1, in f64 elements). */
export function dnrm2(n: i32, x: usize, incx: i32): f64 {
  if (n <= 0) return 0;
  const m = damax(n, x, incx);
  if (m != m) return NaN;
  if (m == 0) return 0;
  if (m == Infinity) return Infinity;
  const k = scaleExponent(m);
  const s = pow2(k);
  let sum: f64 = 0;
  if (incx == 1) {
    const vs = f64x2.splat(s);
    let acc0 = f64x2.splat(0);
    let acc1 = f64x2.splat(0);
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const p = x + (<usize>i << 3);
      const a = f64x2.mul(v128.load(p), vs);
      const b = f64x2.mul(v128.load(p, 16), vs);
      acc0 = f64x2.add(acc0, f64x2.mul(a, a));
      acc1 = f64x2.add(acc1, f64x2.mul(b, b));
    }
    const acc = f64x2.add(acc0, acc1);
    sum = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
    for (; i < n; i++) {
      const a = load<f64>(x + (<usize>i << 3)) * s;
      sum += a * a;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const a = load<f64>(x + <usize>(i * incx) * 8) * s;
      sum += a * a;
    }
  }
  return sqrt(sum) * pow2(-k);
}

/**
 * Euclidean distance ||x - y|| (contiguous, n entries). Differences are formed in f64; if a
 * difference of finite inputs overflows (|x_i - y_i| > DBL_MAX) the whole computation is redone
 * on x/2 - y/2 (exact halving) and the result doubled, so the answer is finite whenever it is
 * representable.
 */
export function ddist(n: i32, x: usize, y: usize): f64 {
  if (n <= 0) return 0;
  let m: f64 = 0;
  let sawNaN = false;
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 3;
    const d = abs(load<f64>(x + o) - load<f64>(y + o));
    if (d != d) sawNaN = true;
    if (d > m) m = d;
  }
  if (sawNaN) return NaN;
  if (m == 0) return 0;
  let half: f64 = 1;
  if (m == Infinity) {
    // Either an input is infinite (the distance is infinite) or a difference overflowed.
    let inputInf = false;
    for (let i = 0; i < n; i++) {
      const o = <usize>i << 3;
      if (abs(load<f64>(x + o)) == Infinity || abs(load<f64>(y + o)) == Infinity) inputInf = true;
    }
    if (inputInf) return Infinity;
    half = 0.5;
    m = 0;
    for (let i = 0; i < n; i++) {
      const o = <usize>i << 3;
      const d = abs(load<f64>(x + o) * 0.5 - load<f64>(y + o) * 0.5);
      if (d > m) m = d;
    }
  }
  const k = scaleExponent(m);
  const s = pow2(k);
  const vh = f64x2.splat(half);
  const vs = f64x2.splat(s);
  let acc = f64x2.splat(0);
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const o = <usize>i << 3;
    const d = f64x2.mul(
      f64x2.sub(f64x2.mul(v128.load(x + o), vh), f64x2.mul(v128.load(y + o), vh)),
      vs,
    );
    acc = f64x2.add(acc, f64x2.mul(d, d));
  }
  let sum = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
  for (; i < n; i++) {
    const o = <usize>i << 3;
    const d = (load<f64>(x + o) * half - load<f64>(y + o) * half) * s;
    sum += d * d;
  }
  return (sqrt(sum) * pow2(-k)) / half;
}
