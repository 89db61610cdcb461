/**
 * Interval arithmetic in f64 with outward rounding (./round.ts): every function returns, in the
 * register {@link R}, an interval [R.lo, R.hi] that contains the exact real result for every real
 * in its arguments' intervals. Arguments are interval ends (lo <= hi, either may be ±∞). A NaN end
 * in a result means "no enclosure" (e.g. log of an interval below 0; 0·∞ never arises: zero
 * times anything is 0, and a (±∞)/(±∞) corner of a quotient counts as 0); consumers treat it as
 * failure, never as a number.
 *
 * The error bounds of V8's libm relied on (V8's src/base/ieee754.cc is its port of fdlibm):
 * - Math.exp, Math.log, Math.log1p: below 1 ulp (fdlibm's comments on e_exp.c, e_log.c and
 *   s_log1p.c: "according to an error analysis, the error is always less than 1 ulp"; V8
 *   versions that take log and log1p from LLVM's libc are correctly rounded, within the same bound);
 * - Math.tanh: fdlibm states no bound for s_tanh.c, and V8's tanh measures above 1 ulp (2.02 ulps
 *   on Node 20). Its method, with expm1 below 1 ulp (fdlibm's comment on s_expm1.c), bounds the
 *   relative error by 2.77·2⁻⁵²: for 2⁻²⁸ <= |x| < 1 it returns −t/(t + 2), t = expm1(−2|x|),
 *   where t's relative error 2⁻⁵² enters scaled by 2/(t + 2) <= 1.77 and t + 2 and the quotient
 *   round once each; 1 <= |x| < 22 (1 − 2/(t + 2)) stays below 1 ulp, |x| < 2⁻²⁸ (x) and |x| >= 22
 *   (±1) below ½ ulp. V8 versions whose tanh is the C library's inherit that library's bound
 *   (glibc documents 2 ulps), also within 2.77·2⁻⁵².
 * Each end of such a result r is widened by `upUlps`/`downUlps`, k·(2⁻⁵²·|r| + η) at least:
 * {@link LIBM_ULPS} for exp, log, log1p, {@link TANH_ULPS} for tanh.
 *
 * Accuracy, for a point argument (derived in test/interval/arith.test.ts, which checks every
 * enclosure and every width exactly against a 64-digit decimal.js oracle at random points and at
 * the edges of f64):
 * - add, sub, mul, scale, div, square, sqrt: each end within 2 floats of the correctly rounded
 *   result (`up`/`down` move 1 or 2 floats);
 * - exp, log, log1p, tanh: each end within (k + 3)·2⁻⁵²·|r| + (k + 5)·η of V8's result r, k the
 *   widening above;
 * - sigmoid: within 12·2⁻⁵²·σ(x) + 11η while e^(−x) is finite (beyond, [0, 2⁻¹⁰²³]); softplus:
 *   within 18·2⁻⁵²·softplus(x) + 19η (x <= MAX_VALUE/2); powInt: a factor (1 + 3·2⁻⁵²)^(n−1)
 *   while the powers are normal numbers; sum: 3·2⁻⁵²·Σᵢ Pᵢ + 3mη, Pᵢ the partial sums of the
 *   |terms| over the m non-zero terms;
 * - abs, min, max, clamp, relu, neg, hull: exact.
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

/**
 * The register's class: an instance of its own class whose fields start as doubles, so V8 keeps
 * them as doubles written in place. The object literal { lo: 0, hi: 0 } it replaces started with
 * small integers and shared its hidden class with every other { lo, hi } literal (boxes of
 * arrays among them); its fields ended up holding any value, and every double written to them
 * was a new heap object: 32 bytes per interval operation, most of certify's garbage.
 */
class IntervalRegister implements Interval {
  lo = 0.5;
  hi = 0.5;
}

/** The result register: every function below writes its interval here (no allocation per operation). */
export const R: Interval = new IntervalRegister();

/**
 * The widening of V8's exp, log and log1p, in units of 2⁻⁵²·|r| + η: an error below 1 ulp of the
 * exact y is below 2⁻⁵²·|y| + η <= 2⁻⁵²·|r|·(1 + 2⁻⁵¹) + η, so 1 unit covers it and 2 leave one
 * to spare.
 */
export const LIBM_ULPS = 2;

/**
 * The widening of V8's tanh, in units of 2⁻⁵²·|r| + η: its relative error is below 2.77·2⁻⁵²
 * (see the module comment), which 3 units cover; 4 leave more than one to spare.
 */
export const TANH_ULPS = 4;

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

/**
 * x/y for a corner of a quotient, with (±∞)/(±∞) = 0: along b's infinite end x/y tends to 0 for
 * every real x, and the infinity of a's end shows at the corner with b's finite end (b excludes 0).
 */
function quot(x: number, y: number): number {
  return !Number.isFinite(x) && !Number.isFinite(y) ? 0 : x / y;
}

/** a / b; b containing 0 gives [−∞, +∞] (a point 0 numerator gives 0 when b excludes 0). */
export function div(alo: number, ahi: number, blo: number, bhi: number): void {
  if (blo <= 0 && bhi >= 0) return set(-Infinity, Infinity);
  if (alo === 0 && ahi === 0) return set(0, 0);
  const q1 = quot(alo, blo);
  const q2 = quot(alo, bhi);
  const q3 = quot(ahi, blo);
  const q4 = quot(ahi, bhi);
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
  set(Math.max(-1, downUlps(Math.tanh(alo), TANH_ULPS)), Math.min(1, upUlps(Math.tanh(ahi), TANH_ULPS)));
}

/**
 * σ(a) = 1/(1 + e^(−a)) (increasing), within [0, 1]: the low end from the high end of e^(−alo),
 * the high end from the low end of e^(−ahi), each step rounded outward. (Written out in one
 * function: a helper returning a double, when V8 does not inline it, puts every result on the
 * heap.)
 */
export function sigmoid(alo: number, ahi: number): void {
  exp(-alo, -alo);
  const eHi = R.hi;
  exp(-ahi, -ahi);
  const eLo = R.lo;
  set(Math.max(0, down(1 / up(1 + eHi))), Math.min(1, up(1 / down(1 + eLo))));
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
