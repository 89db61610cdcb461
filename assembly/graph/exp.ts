// e^x as V8 computes `Math.exp` (src/base/ieee754.cc: fdlibm's __ieee754_exp, with exp(1) = e
// exactly), so that the graph kernels give, bit for bit, the values of the TypeScript operators
// they mirror (src/graph/operators/consolidate.ts), which call `Math.exp`. AssemblyScript's own
// `Math.exp` is musl's table-driven exp, which differs from V8's by up to 1 ulp on some inputs.
// Held by test/graph/operators/exp.test.ts against `Math.exp` of the running Node (millions of
// random inputs over the whole range, the thresholds and the special values).
//
// Method (fdlibm): reduce x = k·ln2 + r with |r| <= ln2/2 (ln2 split in hi + lo so k·ln2hi is
// exact), approximate e^r by the Remez rational form 1 + r + r·c/(2 − c),
// c = r − r²(P1 + r²(P2 + … + r²P5)), then scale by 2^k through the exponent field.

/** ln2 in two parts: hi has its last 32 bits zero, so k·ln2hi is exact for |k| < 2^11. */
const LN2_HI: f64 = reinterpret<f64>(0x3fe62e42fee00000);
const LN2_LO: f64 = reinterpret<f64>(0x3dea39ef35793c76);
/** 2⁻¹⁰⁰⁰, the last scaling of a result below the normal range. */
const TWO_M1000: f64 = reinterpret<f64>(0x0170000000000000);

/** e^x, bit for bit V8's `Math.exp(x)`. */
export function exp(x: f64): f64 {
  const bits = reinterpret<u64>(x);
  const hxs = <u32>(bits >> 32);
  const xsb = hxs >> 31;
  const hx = hxs & 0x7fffffff;
  let hi: f64 = 0;
  let lo: f64 = 0;
  let k: i32 = 0;
  if (hx >= 0x40862e42) {
    // |x| >= 709.78…: NaN, ±inf, overflow or underflow
    if (hx >= 0x7ff00000) {
      if ((bits & 0x000fffffffffffff) != 0) return x + x;
      return xsb == 0 ? x : 0;
    }
    if (x > 7.09782712893383973096e2) return Infinity; // 0x40862e42_fefa39ef: e^x overflows above
    if (x < -7.45133219101941108420e2) return 0; // 0xc0874910_d52d3051: e^x underflows to 0 below
  }
  if (hx > 0x3fd62e42) {
    // |x| > ln2/2
    if (hx < 0x3ff0a2b2) {
      // and |x| < 1.5 ln2
      if (x == 1.0) return Math.E; // e rounded (the reduction would give e + 1 ulp)
      hi = xsb == 0 ? x - LN2_HI : x + LN2_HI;
      lo = xsb == 0 ? LN2_LO : -LN2_LO;
      k = 1 - <i32>xsb - <i32>xsb;
    } else {
      k = <i32>(1.44269504088896338700 * x + (xsb == 0 ? 0.5 : -0.5)); // 1/ln2
      const t = <f64>k;
      hi = x - t * LN2_HI;
      lo = t * LN2_LO;
    }
    x = hi - lo;
  } else if (hx < 0x3e300000) {
    // |x| < 2^-28
    return 1.0 + x;
  }
  const t = x * x;
  // fdlibm's Remez coefficients P1 … P5 (0x3fc55555_5555553e, 0xbf66c16c_16bebd93,
  // 0x3f11566a_af25de2c, 0xbebbbd41_c5d26bf1, 0x3e663769_72bea4d0)
  const c =
    x -
    t *
      (1.66666666666666019037e-1 +
        t *
          (-2.77777777770155933842e-3 +
            t * (6.61375632143793436117e-5 + t * (-1.65339022054652515390e-6 + t * 4.13813679705723846039e-8))));
  if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
  const y = 1.0 - (lo - (x * c) / (2.0 - c) - hi);
  if (k >= -1021) return reinterpret<f64>(reinterpret<u64>(y) + (<u64>(<i64>k) << 52));
  return reinterpret<f64>(reinterpret<u64>(y) + (<u64>(<i64>(k + 1000)) << 52)) * TWO_M1000;
}

/** ↔ `Math.exp` of V8: {@link exp} as a kernel (the graph kernels inline {@link exp} itself). */
export function graphExp(x: f64): f64 {
  return exp(x);
}
