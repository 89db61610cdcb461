/**
 * Interval arithmetic in f64 with outward rounding (./round.ts): every function returns, in the
 * register {@link R}, an interval [R.lo, R.hi] that contains the exact real result for every real
 * in its arguments' intervals. Arguments are interval ends (lo <= hi, either may be ±∞). A NaN end
 * in a result means "no enclosure" (e.g. log of an interval below 0, 0·∞ never arises: zero
 * times anything is 0); consumers treat it as failure, never as a number.
 *
 * Accuracy (each end moves outward by at most):
 * - + − × ÷ √: IEEE 754 correctly rounded, one `up`/`down` (1–2 ulps outward);
 * - exp, log, log1p, tanh: V8's fdlibm ports (error < 1 ulp, fdlibm's own comments), widened by
 *   {@link LIBM_ULPS} ulps; test/interval/arith.test.ts checks every end against a 60-digit
 *   decimal.js oracle at random points and at the edges of f64;
 * - sigmoid, softplus: composed from the above, so their bounds follow from the composition;
 * - abs, min, max, clamp, relu, neg: exact.
 * Results that are exact in the reals for exact inputs are still widened (an interval of width 0
 * stays a point only for the exact operations); the widening is the price of not inspecting
 * rounding errors.
 */
import { down, downUlps, up, upUlps } from './round.js';

/** A closed interval [lo, hi]. */
export interface Interval {
  lo: number;
  hi: number;
}

/** The result register: every function below writes its interval here (no allocation per operation). */
export const R: Interval = { lo: 0, hi: 0 };

/**
 * Ulps by which the ends of V8's exp, log, log1p and tanh are widened: the fdlibm ports V8 uses
 * (src/base/ieee754.cc) document errors below 1 ulp; 2 more cover that with a margin of one.
 */
export const LIBM_ULPS = 2;

function set(lo: number, hi: number): void {
  R.lo = lo;
  R.hi = hi;
}

/** a + b. */
export function add(alo: number, ahi: number, blo: number, bhi: number): void {
  set(down(alo + blo), up(ahi + bhi));
}

/** a − b. */
export function sub(alo: number, ahi: number, blo: number, bhi: number): void {
  set(down(alo - bhi), up(ahi - blo));
}

/** −a (exact). */
export function neg(alo: number, ahi: number): void {
  set(-ahi, -alo);
}

/** x·y with 0·(±∞) = 0 (the interval convention: 0 times any real is 0). */
function prod(x: number, y: number): number {
  return x === 0 || y === 0 ? 0 : x * y;
}

/** a·b. A factor that is the point 0 gives exactly 0 (structural zeros stay exact). */
export function mul(alo: number, ahi: number, blo: number, bhi: number): void {
  if ((alo === 0 && ahi === 0) || (blo === 0 && bhi === 0)) return set(0, 0);
  if (alo >= 0 && blo >= 0) return set(down(prod(alo, blo)), up(prod(ahi, bhi)));
  const p1 = prod(alo, blo);
  const p2 = prod(alo, bhi);
  const p3 = prod(ahi, blo);
  const p4 = prod(ahi, bhi);
  set(down(Math.min(p1, p2, p3, p4)), up(Math.max(p1, p2, p3, p4)));
}

/** a·s for a point scalar s (one product per end). */
export function scale(alo: number, ahi: number, s: number): void {
  if (s === 0 || (alo === 0 && ahi === 0)) return set(0, 0);
  if (s > 0) set(down(prod(alo, s)), up(prod(ahi, s)));
  else set(down(prod(ahi, s)), up(prod(alo, s)));
}

/** a / b; b containing 0 gives [−∞, +∞] (a point 0 numerator gives 0 when b excludes 0). */
export function div(alo: number, ahi: number, blo: number, bhi: number): void {
  if (blo <= 0 && bhi >= 0) return set(-Infinity, Infinity);
  if (alo === 0 && ahi === 0) return set(0, 0);
  const q1 = alo / blo;
  const q2 = alo / bhi;
  const q3 = ahi / blo;
  const q4 = ahi / bhi;
  set(down(Math.min(q1, q2, q3, q4)), up(Math.max(q1, q2, q3, q4)));
}

/** a² (tighter than a·a when a contains 0). */
export function square(alo: number, ahi: number): void {
  if (alo >= 0) return set(down(alo * alo), up(ahi * ahi));
  if (ahi <= 0) return set(down(ahi * ahi), up(alo * alo));
  const m = Math.max(-alo, ahi);
  set(0, up(m * m));
}

/** aⁿ for an integer n >= 0 (even n: over |a|). */
export function powInt(alo: number, ahi: number, n: number): void {
  if (!Number.isInteger(n) || n < 0) return set(NaN, NaN);
  if (n === 0) return set(1, 1);
  let lo = alo;
  let hi = ahi;
  if (n % 2 === 0) {
    abs(alo, ahi);
    lo = R.lo;
    hi = R.hi;
  }
  // monotone on the range: multiply the ends with outward rounding at each step
  let rl = lo;
  let rh = hi;
  for (let i = 1; i < n; i++) {
    mul(rl, rh, lo, hi);
    rl = R.lo;
    rh = R.hi;
  }
  set(rl, rh);
}

/** √a (the part of a below 0 is cut off; a entirely below 0 gives NaN). */
export function sqrt(alo: number, ahi: number): void {
  if (ahi < 0) return set(NaN, NaN);
  set(Math.max(0, down(Math.sqrt(Math.max(alo, 0)))), up(Math.sqrt(ahi)));
}

/** exp(a). */
export function exp(alo: number, ahi: number): void {
  set(Math.max(0, downUlps(Math.exp(alo), LIBM_ULPS)), upUlps(Math.exp(ahi), LIBM_ULPS));
}

/** log(a) (a reaching 0 gives −∞ at the low end; a entirely below 0 gives NaN). */
export function log(alo: number, ahi: number): void {
  if (ahi < 0) return set(NaN, NaN);
  set(alo <= 0 ? -Infinity : downUlps(Math.log(alo), LIBM_ULPS), upUlps(Math.log(ahi), LIBM_ULPS));
}

/** log(1 + a) (a reaching −1 gives −∞; a entirely below −1 gives NaN). */
export function log1p(alo: number, ahi: number): void {
  if (ahi < -1) return set(NaN, NaN);
  set(alo <= -1 ? -Infinity : downUlps(Math.log1p(alo), LIBM_ULPS), upUlps(Math.log1p(ahi), LIBM_ULPS));
}

/** tanh(a), within [−1, 1]. */
export function tanh(alo: number, ahi: number): void {
  set(Math.max(-1, downUlps(Math.tanh(alo), LIBM_ULPS)), Math.min(1, upUlps(Math.tanh(ahi), LIBM_ULPS)));
}

/** Enclosure of 1/(1 + exp(−x)) at the point x, end `which` ('lo' or 'hi'). */
function sigmoidEnd(x: number, which: 'lo' | 'hi'): number {
  exp(-x, -x);
  // the low end of σ needs the high end of exp(−x), and the other way round
  const e = which === 'lo' ? R.hi : R.lo;
  const den = which === 'lo' ? up(1 + e) : down(1 + e);
  return which === 'lo' ? down(1 / den) : up(1 / den);
}

/** σ(a) = 1/(1 + e^(−a)) (increasing), within [0, 1]. */
export function sigmoid(alo: number, ahi: number): void {
  const lo = Math.max(0, sigmoidEnd(alo, 'lo'));
  const hi = Math.min(1, sigmoidEnd(ahi, 'hi'));
  set(lo, hi);
}

/** Enclosure of log(1 + e^x) = max(x, 0) + log1p(e^(−|x|)) at the point x, end `which`. */
function softplusEnd(x: number, which: 'lo' | 'hi'): number {
  const ax = Math.abs(x);
  exp(-ax, -ax);
  const e = which === 'lo' ? R.lo : R.hi;
  log1p(e, e);
  const l = which === 'lo' ? R.lo : R.hi;
  const m = Math.max(x, 0);
  return which === 'lo' ? down(m + l) : up(m + l);
}

/** softplus(a) = log(1 + e^a) (increasing), >= 0. */
export function softplus(alo: number, ahi: number): void {
  set(Math.max(0, softplusEnd(alo, 'lo')), softplusEnd(ahi, 'hi'));
}

/** |a| (exact). */
export function abs(alo: number, ahi: number): void {
  if (alo >= 0) return set(alo, ahi);
  if (ahi <= 0) return set(-ahi, -alo);
  set(0, Math.max(-alo, ahi));
}

/** min(a, b) (exact). */
export function min(alo: number, ahi: number, blo: number, bhi: number): void {
  set(Math.min(alo, blo), Math.min(ahi, bhi));
}

/** max(a, b) (exact). */
export function max(alo: number, ahi: number, blo: number, bhi: number): void {
  set(Math.max(alo, blo), Math.max(ahi, bhi));
}

/** max(a, 0) (exact). */
export function relu(alo: number, ahi: number): void {
  set(Math.max(alo, 0), Math.max(ahi, 0));
}

/** min(max(a, lo), hi) for point bounds lo <= hi (exact). */
export function clamp(alo: number, ahi: number, lo: number, hi: number): void {
  set(Math.min(Math.max(alo, lo), hi), Math.min(Math.max(ahi, lo), hi));
}

/** The hull of a and b (exact). */
export function hull(alo: number, ahi: number, blo: number, bhi: number): void {
  set(Math.min(alo, blo), Math.max(ahi, bhi));
}

/**
 * Σ a_i over interval vectors given by their ends (each partial sum rounded outward).
 * @returns nothing; the sum is in {@link R}.
 */
export function sum(lo: ArrayLike<number>, hi: ArrayLike<number>): void {
  let sl = 0;
  let sh = 0;
  for (let i = 0; i < lo.length; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    if (l === 0 && h === 0) continue; // structural zeros add nothing and stay exact
    sl = down(sl + l);
    sh = up(sh + h);
  }
  set(sl, sh);
}

/** true when a ⊆ b (NaN ends are never contained). */
export function subset(alo: number, ahi: number, blo: number, bhi: number): boolean {
  return alo >= blo && ahi <= bhi;
}
