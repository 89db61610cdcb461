/**
 * The high-precision oracle of the interval tests: for each operation of src/interval/arith.ts a
 * bracket [lo, hi] of decimal.js values that provably contains the exact real result at a point,
 * and the random doubles the properties draw.
 *
 * Brackets are computed at 64 significant digits with directed rounding: `Dn` rounds every
 * operation toward −∞, `Up` toward +∞, and each composite is evaluated so that every step moves
 * its bound the safe way (monotonicity, written out per function). decimal.js rounds + − × ÷
 * correctly in the chosen direction; exp, ln and sqrt are documented as correctly rounded too, and
 * their brackets are still widened by 10⁻⁶⁰ relative so the oracle does not lean on that claim.
 * Float ends lie at least half an ulp (≈ 10⁻¹⁶ relative) from any inexact result, so these 10⁻⁶⁰
 * never decide a comparison. Where a formula would cancel (tanh, log1p near 0) arguments below
 * 10⁻²⁰ use the inequalities x − x³/3 <= tanh x <= x (x >= 0) and x/(1+x) <= log(1+x) <= x
 * (x > −1), whose relative width x² resp. |x| is below 10⁻²⁰; above 10⁻²⁰ the cancellation costs at
 * most 20 of the 64 digits. decimal.js flushes results beyond its exponent range (10^±9e15) to 0 or
 * ∞ whatever the rounding mode; `expDn`/`expUp` repair the bound those would break.
 */
import { Decimal } from 'decimal.js';
import { fc } from '@fast-check/vitest';
import { nextDown, nextUp } from '../../src/interval/round.js';
import { exactDecimal } from '../util/exactDecimal.js';

/** Significant digits of the oracle. */
export const DIGITS = 64;
const RANGE = { minE: -9e15, maxE: 9e15 };
/** Decimal rounding toward −∞. */
export const Dn = Decimal.clone({ precision: DIGITS, rounding: Decimal.ROUND_FLOOR, ...RANGE });
/** Decimal rounding toward +∞. */
export const Up = Decimal.clone({ precision: DIGITS, rounding: Decimal.ROUND_CEIL, ...RANGE });

/**
 * Exact arithmetic on a few doubles: every sum or difference of two doubles is a multiple of
 * 2⁻¹⁰⁷⁴ below 2¹⁰²⁵, at most 309 integer and 1074 fraction digits, so 1400 digits hold it exactly.
 */
export const X = Decimal.clone({ precision: 1400, ...RANGE });

/** A bracket [lo, hi] around an exact real. */
export interface Bracket {
  lo: Decimal;
  hi: Decimal;
}

/** The exact value of a double (Decimal constructor with the oracle's exponent range). */
export const ex = (x: number): Decimal => exactDecimal(x, Up);

const SMALL = new Up('1e-20');
const SLACK = new Up('1e-60');

/** [lo, hi] widened outward by 10⁻⁶⁰ relative (for the functions decimal.js computes by series). */
function loosen(b: Bracket): Bracket {
  return { lo: Dn.sub(b.lo, Up.mul(b.lo.abs(), SLACK)), hi: Up.add(b.hi, Up.mul(b.hi.abs(), SLACK)) };
}

/** The point bracket of a value computed exactly. */
export const exact = (v: Decimal): Bracket => ({ lo: v, hi: v });

/** [max(lo, a), min(hi, b)]: a bracket cut to the known range [a, b] of a function. */
function clip(b: Bracket, a: number, c: number): Bracket {
  return { lo: Decimal.max(b.lo, a), hi: Decimal.min(b.hi, c) };
}

/** A lower bound of e^x: an overflow (> 10^maxE) gives 10^maxE instead of ∞. */
function expDn(x: Decimal): Decimal {
  const v = Dn.exp(x);
  return v.isFinite() ? v : new Dn(`1e${RANGE.maxE}`);
}

/** An upper bound of e^x: an underflow (< 10^minE) gives 10^minE instead of 0. */
function expUp(x: Decimal): Decimal {
  const v = Up.exp(x);
  return v.isZero() ? new Up(`1e${RANGE.minE}`) : v;
}

/** x + y. */
export const addB = (x: Decimal, y: Decimal): Bracket => ({ lo: Dn.add(x, y), hi: Up.add(x, y) });
/** x − y. */
export const subB = (x: Decimal, y: Decimal): Bracket => ({ lo: Dn.sub(x, y), hi: Up.sub(x, y) });
/** x·y. */
export const mulB = (x: Decimal, y: Decimal): Bracket => ({ lo: Dn.mul(x, y), hi: Up.mul(x, y) });
/** x / y (y ≠ 0). */
export const divB = (x: Decimal, y: Decimal): Bracket => ({ lo: Dn.div(x, y), hi: Up.div(x, y) });
/** √x (x >= 0). */
export const sqrtB = (x: Decimal): Bracket => loosen({ lo: Dn.sqrt(x), hi: Up.sqrt(x) });
/** e^x. */
export const expB = (x: Decimal): Bracket => clip(loosen({ lo: expDn(x), hi: expUp(x) }), 0, Infinity);
/** log x (x > 0). */
export const logB = (x: Decimal): Bracket => loosen({ lo: Dn.ln(x), hi: Up.ln(x) });

/** Lower bound of log(1 + u) for u > −1. */
function log1pDn(u: Decimal): Decimal {
  if (u.abs().lt(SMALL)) return Dn.div(u, u.isNeg() ? Dn.add(1, u) : Up.add(1, u)); // u/(1+u) <= log1p(u)
  return loosen(exact(Dn.ln(Dn.add(1, u)))).lo;
}

/** Upper bound of log(1 + u) for u > −1. */
function log1pUp(u: Decimal): Decimal {
  if (u.abs().lt(SMALL)) return u; // log1p(u) <= u
  return loosen(exact(Up.ln(Up.add(1, u)))).hi;
}

/** log(1 + x) (x > −1). */
export const log1pB = (x: Decimal): Bracket => ({ lo: log1pDn(x), hi: log1pUp(x) });

/** tanh x for x >= 0: 1 − 2/(e^{2x} + 1), increasing in e^{2x}. */
function tanhNonNeg(x: Decimal): Bracket {
  if (x.lt(SMALL)) return { lo: Dn.sub(x, Up.div(Up.mul(Up.mul(x, x), x), 3)), hi: x };
  const two = Dn.mul(x, 2); // exact
  const lo = Dn.sub(1, Up.div(2, Dn.add(expDn(two), 1)));
  const hi = Up.sub(1, Dn.div(2, Up.add(expUp(two), 1)));
  return loosen({ lo, hi });
}

/** tanh x (odd). */
export function tanhB(x: Decimal): Bracket {
  const b = x.isNeg() ? tanhNonNeg(x.neg()) : tanhNonNeg(x);
  return clip(x.isNeg() ? { lo: b.hi.neg(), hi: b.lo.neg() } : b, -1, 1);
}

/** σ(x) = 1/(1 + e^{−x}), decreasing in e^{−x}. */
export function sigmoidB(x: Decimal): Bracket {
  const lo = Dn.div(1, Up.add(1, expUp(x.neg())));
  const hi = Up.div(1, Dn.add(1, expDn(x.neg())));
  return clip(loosen({ lo, hi }), 0, 1);
}

/** softplus(x) = max(x, 0) + log1p(e^{−|x|}), increasing in e^{−|x|}. */
export function softplusB(x: Decimal): Bracket {
  const m = Decimal.max(x, 0);
  const u = x.abs().neg();
  return clip({ lo: Dn.add(m, log1pDn(expDn(u))), hi: Up.add(m, log1pUp(expUp(u))) }, 0, Infinity);
}

/** xⁿ for an integer n >= 0 by repeated directed products of |x| (x¹ = x exactly). */
export function powB(x: Decimal, n: number): Bracket {
  if (n === 0) return exact(new Up(1));
  const a = x.abs();
  let lo = a;
  let hi = a;
  for (let i = 1; i < n; i++) {
    lo = Dn.mul(lo, a);
    hi = Up.mul(hi, a);
  }
  return x.isNeg() && n % 2 === 1 ? { lo: hi.neg(), hi: lo.neg() } : { lo, hi };
}

/** Σ x_i. */
export function sumB(xs: readonly Decimal[]): Bracket {
  let lo = new Dn(0);
  let hi = new Up(0);
  for (const x of xs) {
    lo = Dn.add(lo, x);
    hi = Up.add(hi, x);
  }
  return { lo, hi };
}

/**
 * Whether the float interval [lo, hi] contains the bracket b, compared exactly (NaN ends, the
 * "no enclosure" of arith.ts, never contain anything).
 */
export function encloses(lo: number, hi: number, b: Bracket): boolean {
  if (Number.isNaN(lo) || Number.isNaN(hi)) return false;
  return ex(lo).lte(b.lo) && b.hi.lte(ex(hi));
}

/** A readable account of a failed enclosure. */
export function show(lo: number, hi: number, b: Bracket): string {
  return `[${lo}, ${hi}] does not contain [${b.lo.toPrecision(25)}, ${b.hi.toPrecision(25)}]`;
}

// ---- floats ----

/** x moved by k floats (k > 0 up, k < 0 down). */
export function stepFloat(x: number, k: number): number {
  let y = x;
  for (let i = 0; i < Math.abs(k); i++) y = k > 0 ? nextUp(y) : nextDown(y);
  return y;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** 2^e for an integer e in [−1074, 1023], built from its bits. */
export function pow2(e: number): number {
  u64[0] = e >= -1022 ? BigInt(e + 1023) << 52n : 1n << BigInt(e + 1074);
  return f64[0]!;
}

/**
 * The spacing of the floats in the binade of the finite x (2^(e−52) for 2^e <= |x| < 2^(e+1),
 * η below 2⁻¹⁰²²), found with Math.log2 and corrected against exact powers of two: independent of
 * the bit arithmetic of nextUp.
 */
export function spacing(x: number): number {
  const a = Math.abs(x);
  if (a < pow2(-1022)) return pow2(-1074);
  let e = Math.floor(Math.log2(a));
  if (pow2(e) > a) e--;
  if (e < 1023 && pow2(e + 1) <= a) e++;
  return pow2(e - 52);
}

/** The double with biased exponent and fraction given by `bits` (any finite double, by its bit pattern). */
function fromBits(bits: bigint): number {
  u64[0] = bits;
  return f64[0]!;
}

/**
 * The places where f64 and the libm functions behave differently: 0, the subnormal range, MAX_VALUE,
 * ±1e300, 1 and its neighbours, the overflow and underflow thresholds of exp (709.78, −745.13, and
 * −708.40 where exp turns subnormal), where V8's tanh rounds to 1 (19.06) and where
 * fdlibm's tanh switches method (2⁻²⁸, 1, 22), −1 (log1p's pole) and 0.5.
 */
export const EDGES: readonly number[] = [
  0,
  pow2(-1074),
  pow2(-1022),
  Number.MAX_VALUE,
  1e300,
  1e-300,
  1,
  0.5,
  709.782712893384,
  -745.1332191019411,
  -708.3964185322641,
  19.061547465398498,
  pow2(-28),
  22,
  2 ** 53,
];

/** A finite double near an edge: an edge moved by up to 4 floats, with either sign. */
export const nearEdge: fc.Arbitrary<number> = fc
  .tuple(fc.constantFrom(...EDGES), fc.integer({ min: -4, max: 4 }), fc.boolean())
  .map(([c, k, neg]) => stepFloat(neg ? -c : c, k))
  .filter((x) => Number.isFinite(x));

/** An exact power of two (either sign), subnormal ones included. */
export const powerOfTwo: fc.Arbitrary<number> = fc
  .tuple(fc.integer({ min: -1074, max: 1023 }), fc.boolean())
  .map(([e, neg]) => (neg ? -pow2(e) : pow2(e)));

/** Any finite double by its bit pattern: uniform over exponents, so subnormals and huge values are common. */
export const anyFinite: fc.Arbitrary<number> = fc
  .tuple(fc.bigInt({ min: 0n, max: 0x7fefffffffffffffn }), fc.boolean())
  .map(([b, neg]) => (neg ? -fromBits(b) : fromBits(b)));

/** The (finite) doubles the properties draw: any double, the edges, powers of two, moderate values. */
export const edgeDouble: fc.Arbitrary<number> = fc.oneof(
  anyFinite,
  nearEdge,
  powerOfTwo,
  fc.double({ min: -40, max: 40, noNaN: true }),
  fc.constantFrom(0, -0, 1, -1),
);

/** An interval [lo, hi] with points inside it (its finite ends among them). */
export interface Box {
  lo: number;
  hi: number;
  points: number[];
}

function boxOf(lo: number, x: number, hi: number): Box {
  const points = [x];
  if (Number.isFinite(lo)) points.push(lo);
  if (Number.isFinite(hi)) points.push(hi);
  return { lo, hi, points };
}

/** Three sorted draws (lo <= x <= hi), an end sometimes replaced by ±∞. */
const wideBox: fc.Arbitrary<Box> = fc
  .tuple(edgeDouble, edgeDouble, edgeDouble, fc.constantFrom('finite', 'finite', 'finite', 'lo', 'hi', 'both'))
  .map(([a, b, c, inf]) => {
    const [lo, x, hi] = [a, b, c].sort((p, q) => p - q) as [number, number, number];
    return boxOf(inf === 'lo' || inf === 'both' ? -Infinity : lo, x, inf === 'hi' || inf === 'both' ? Infinity : hi);
  });

/** A narrow interval: a double and up to 3 floats on either side of it (an end beyond MAX_VALUE is ±∞). */
const narrowBox: fc.Arbitrary<Box> = fc
  .tuple(edgeDouble, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
  .map(([x, down, up]) => boxOf(stepFloat(x, -down), x, stepFloat(x, up)));

/** A point interval. */
export const pointBox: fc.Arbitrary<Box> = edgeDouble.map((x) => ({ lo: x, hi: x, points: [x] }));

/** Intervals of every kind: wide (ends from the edge doubles, sometimes infinite), narrow, points. */
export const box: fc.Arbitrary<Box> = fc.oneof(wideBox, narrowBox, pointBox);
