/**
 * Linear axes chosen here rather than by vega, so that two promises hold for any data: every
 * tick label differs from the others (the label precision comes from the tick step, not from a
 * fixed format), and a difference smaller than the caller's minimum span never fills the axis.
 *
 * Ticks are the multiples of a step m·10^e (m ∈ {1, 2, 5}) inside the domain. Each tick is
 * computed as the integer i·m scaled by a power of ten (one correctly rounded operation), so
 * writing it with max(0, −e) decimals gives exactly the decimal i·m·10^e: distinct integers give
 * distinct, increasing labels.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange, positiveNumber } from '../util/validate.js';

/** A linear axis: the scale's domain, its ticks and the decimals that write them exactly. */
export interface LinearAxis {
  /** [low, high] of the scale; both ends are ticks unless a bound cut them. */
  domain: [number, number];
  /** Tick values, increasing, the multiples of `step` inside `domain` (at least two). */
  ticks: number[];
  /** Distance between ticks, m·10^e with m ∈ {1, 2, 5}. */
  step: number;
  /** Decimals that write every tick exactly: max(0, −e). */
  decimals: number;
}

/** Options of {@link linearAxis}. */
export interface LinearAxisOptions {
  /**
   * The smallest span (> 0) the domain may have: a difference of this size fills the axis, a
   * smaller one takes the same share of it. The caller derives it from what a difference worth
   * seeing is (e.g. {@link accuracyMinSpan}).
   */
  minSpan: number;
  /** Values the domain never leaves (e.g. [0, 1] for fractions); default unbounded. */
  bounds?: readonly [number, number];
  /** Room left on each side of the data, as a fraction of the data's span; default 0.08. */
  padding?: number;
}

/**
 * About this many ticks: the step is the first m·10^e ≥ span / 5, so at most span / 2 (m jumps
 * by at most 2.5) and at least two ticks fall inside any domain of that span.
 */
const TICK_COUNT = 5;

/**
 * The relative span below which ticks are widened apart, whatever `minSpan` says: the ticks
 * then differ in at most the 10th significant digit, far above the 2.2e-16 spacing of doubles,
 * and i·m stays an exact integer (< 2^53).
 */
const RELATIVE_SPAN_FLOOR = 1e-9;

/** The step m·10^e ≥ `raw` with m ∈ {1, 2, 5} as (m, e). */
function niceStep(raw: number): { m: number; e: number } {
  let e = Math.floor(Math.log10(raw));
  // log10 may be off by one ulp around powers of ten: correct e so 10^e <= raw < 10^(e+1)
  if (pow10(e) > raw) e -= 1;
  if (pow10(e + 1) <= raw) e += 1;
  for (const m of [1, 2, 5]) if (scaled(m, e) >= raw) return { m, e };
  return { m: 1, e: e + 1 };
}

const pow10 = (e: number): number => (e >= 0 ? 10 ** e : 1 / 10 ** -e);
/** k·10^e in one correctly rounded operation (10^|e| is exact for |e| <= 22). */
const scaled = (k: number, e: number): number => (e >= 0 ? k * 10 ** e : k / 10 ** -e);

/**
 * Chooses the domain, the ticks and their decimals of a linear axis showing values in [lo, hi]:
 * the data's span widened by `padding` on each side, or `minSpan` (whichever is larger), centred
 * on the data and shifted inside `bounds`, then extended outwards to the next ticks.
 * @throws {ArgumentError} lo > hi, a non-finite value, minSpan ≤ 0, padding < 0, bounds not
 *   increasing or not containing [lo, hi], a span whose step leaves [1e-22, 1e22] (where ticks
 *   are no longer exact decimals).
 * Cost: O(number of ticks).
 * @example
 * ```ts
 * linearAxis(0.8318, 0.832, { minSpan: 0.0877, bounds: [0, 1] });
 * // { domain: [0.78, 0.88], ticks: [0.78, 0.8, …, 0.88], step: 0.02, decimals: 2 }
 * ```
 */
export function linearAxis(lo: number, hi: number, options: LinearAxisOptions): LinearAxis {
  finiteNumber('lo', lo);
  finiteNumber('hi', hi);
  if (lo > hi) throw new ArgumentError('lo', lo, `must be <= hi (${hi})`);
  const minSpan = positiveNumber('options.minSpan', options.minSpan);
  const padding = options.padding === undefined ? 0.08 : finiteNumber('options.padding', options.padding);
  if (padding < 0) throw new ArgumentError('options.padding', padding, 'must be >= 0');
  const [b0, b1] = options.bounds ?? [-Infinity, Infinity];
  if (!(b0 < b1) || lo < b0 || hi > b1)
    throw new ArgumentError('options.bounds', options.bounds, `must be increasing and contain [${lo}, ${hi}]`);
  const magnitude = Math.max(Math.abs(lo), Math.abs(hi));
  const span = Math.min(b1 - b0, Math.max((hi - lo) * (1 + 2 * padding), minSpan, RELATIVE_SPAN_FLOOR * magnitude));
  if (!Number.isFinite(span)) throw new ArgumentError('hi', hi, `minus lo (${lo}) overflows`);
  let low = (lo + hi) / 2 - span / 2;
  let high = low + span;
  if (low < b0) [low, high] = [b0, b0 + span];
  if (high > b1) [low, high] = [Math.max(b0, b1 - span), b1];
  const { m, e } = niceStep(span / TICK_COUNT);
  if (!(Math.abs(e) <= 22))
    throw new ArgumentError('options.minSpan', minSpan, `gives a tick step 1e${e}: outside [1e-22, 1e22]`);
  // the integer multiples of m·10^e at or outside the ends; tiny slack so an end that is a tick
  // up to rounding stays one. `+ 0` turns a −0 (Math.ceil of a value in (−1, 0)) into 0, so an
  // end of the domain at zero is the same number as the tick the loop writes there.
  const first = Math.floor(low / scaled(m, e) + 1e-9) + 0;
  const last = Math.ceil(high / scaled(m, e) - 1e-9) + 0;
  const ticks: number[] = [];
  for (let i = first; i <= last; i++) {
    const t = scaled(i * m, e);
    if (t >= b0 && t <= b1) ticks.push(t);
  }
  const domain: [number, number] = [Math.max(b0, scaled(first * m, e)), Math.min(b1, scaled(last * m, e))];
  return { domain, ticks, step: scaled(m, e), decimals: Math.max(0, -e) };
}

/**
 * The smallest span of an accuracy axis: the width of a 95% confidence interval of one accuracy
 * measured on `items` independent items, at its widest (p = 1/2): 2 · 1.96 · √(1/4 / n) =
 * 1.96 / √n, at most 1. Two accuracies closer than this are not told apart by the data, so they
 * should not look far apart. Without `items`, 0.01 (one percentage point, 1.96/√n for n ≈ 38 400
 * items: larger than the benchmarks replayed here).
 * @throws {ArgumentError} items not an integer ≥ 1.
 * @example
 * ```ts
 * accuracyMinSpan(500); // 0.0877 (8.8 percentage points)
 * ```
 */
export function accuracyMinSpan(items?: number): number {
  if (items === undefined) return 0.01;
  return Math.min(1, 1.96 / Math.sqrt(integerInRange('items', items, 1)));
}
