/**
 * Overflow-safe Euclidean norm and distance: the pure-TypeScript reference of
 * assembly/blas1/dnrm2.ts (same algorithm, same rounding behaviour up to summation order).
 *
 * Algorithm: find m = max|x_i|; scale by the exact power of two 2^k that puts m in [1, 2); sum
 * the squares of the scaled values; return sqrt(sum)·2^-k. Scaling by a power of two is exact,
 * so the only rounding is that of the sum of n squares: relative error <= (n/2 + 1)·eps (a bound
 * on recursive summation, halved by the square root). Inputs as large as 1e300 or as small as
 * 1e-300 give the right answer instead of Infinity or 0.
 */

/** 2^k for integer k in [-1022, 1023] (exact). */
export function pow2(k: number): number {
  // 2 ** k is exact for integer k in this range in IEEE doubles.
  return 2 ** k;
}

/** Exponent k with m·2^k in [1, 2) for normal m > 0, clamped to [-1022, 1022]. */
export function scaleExponent(m: number): number {
  const e = Math.floor(Math.log2(m));
  // log2 can be off by one near powers of two; correct it exactly.
  let k = -e;
  if (m * pow2(Math.max(-1022, Math.min(1022, k))) >= 2) k -= 1;
  else if (m * pow2(Math.max(-1022, Math.min(1022, k))) < 1) k += 1;
  return Math.max(-1022, Math.min(1022, k));
}

/**
 * ||x||_2 without overflow or harmful underflow.
 * NaN if any entry is NaN; Infinity if any entry is infinite.
 * Cost: two passes over x.
 */
export function referenceNorm(x: ArrayLike<number>): number {
  const n = x.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(x[i]!);
    if (Number.isNaN(a)) return NaN;
    if (a > m) m = a;
  }
  if (m === 0) return 0;
  if (m === Infinity) return Infinity;
  const k = scaleExponent(m);
  const s = pow2(k);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const a = x[i]! * s;
    sum += a * a;
  }
  return Math.sqrt(sum) * pow2(-k);
}

/**
 * ||x - y||_2 without overflow: if a difference of finite inputs overflows, the differences are
 * formed on halved inputs (exact) and the result doubled.
 */
export function referenceDistance(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(x[i]! - y[i]!);
    if (Number.isNaN(d)) return NaN;
    if (d > m) m = d;
  }
  if (m === 0) return 0;
  let half = 1;
  if (m === Infinity) {
    for (let i = 0; i < n; i++) {
      if (Math.abs(x[i]!) === Infinity || Math.abs(y[i]!) === Infinity) return Infinity;
    }
    half = 0.5;
    m = 0;
    for (let i = 0; i < n; i++) {
      const d = Math.abs(x[i]! * 0.5 - y[i]! * 0.5);
      if (d > m) m = d;
    }
  }
  const k = scaleExponent(m);
  const s = pow2(k);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const d = (x[i]! * half - y[i]! * half) * s;
    sum += d * d;
  }
  return (Math.sqrt(sum) * pow2(-k)) / half;
}
