/**
 * Sums of exponentials in log space, shared by the rules whose evidence is a product or a mixture
 * of likelihood ratios (the Beta tail, the anytime-valid wealths, the MMC mixture): a sum of
 * e^v that would overflow or underflow f64 is returned as its logarithm, computed around the
 * largest term so that every exponential taken lies in (0, 1].
 */

/**
 * log Σ e^v, computed around the largest term: −∞ for no terms (or only −∞ terms), +∞ when a
 * term is +∞. Relative rounding error of the sum of exponentials: at most (n + 1) ulps.
 * @example
 * ```ts
 * logSumExp([1000, 1000]); // 1000 + log 2 (e^1000 itself overflows)
 * ```
 */
export function logSumExp(values: readonly number[]): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  if (max === -Infinity || max === Infinity) return max;
  let s = 0;
  for (const v of values) s += Math.exp(v - max);
  return max + Math.log(s);
}

/**
 * log(e^a + e^b) without forming either exponential (−∞ is the log of 0; +∞ absorbs).
 * @example
 * ```ts
 * logAddExp(-Infinity, 2); // 2
 * ```
 */
export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  if (m === Infinity) return Infinity;
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}
