/**
 * Validators shared by every validating wrapper. Each throws an {@link ArgumentError} or
 * {@link ArgumentTypeError} naming the argument and its value, and returns the checked value.
 */
import { ArgumentError, ArgumentTypeError } from './errors.js';

/** A finite number (rejects NaN, ±Infinity and non-numbers). */
export function finiteNumber(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new ArgumentTypeError(name, value, 'must be a number');
  if (!Number.isFinite(value)) throw new ArgumentError(name, value, 'must be a finite number');
  return value;
}

/** true or false (no other value stands for one: 0, 1, 'true' are refused). */
export function booleanValue(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ArgumentError(name, value, 'must be true or false');
  return value;
}

/** A finite number strictly greater than zero. */
export function positiveNumber(name: string, value: unknown): number {
  const v = finiteNumber(name, value);
  if (!(v > 0)) throw new ArgumentError(name, value, 'must be > 0');
  return v;
}

/** An integer in [min, max] (both inclusive). */
export function integerInRange(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number') throw new ArgumentTypeError(name, value, 'must be an integer');
  if (!Number.isInteger(value)) throw new ArgumentError(name, value, 'must be an integer');
  if (value < min || value > max) {
    throw new ArgumentError(
      name,
      value,
      max !== Number.MAX_SAFE_INTEGER
        ? `must be in [${min}, ${max}]`
        : value > max
          ? `must be at most 2^53 − 1 (a larger integer is not exact in f64)`
          : `must be >= ${min}`,
    );
  }
  return value;
}

/** A number in the open interval (lo, hi). */
export function openInterval(name: string, value: unknown, lo: number, hi: number): number {
  const v = finiteNumber(name, value);
  if (!(v > lo && v < hi)) throw new ArgumentError(name, value, `must lie in the open interval (${lo}, ${hi})`);
  return v;
}

/** Anything array-like of numbers, returned as a fresh Float64Array copy. */
export function toFloat64(name: string, value: unknown): Float64Array {
  if (value instanceof Float64Array) return Float64Array.from(value);
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const arr = value as ArrayLike<unknown>;
    const out = new Float64Array(arr.length);
    for (let i = 0; i < arr.length; i++) {
      const x = arr[i];
      if (typeof x !== 'number') throw new ArgumentTypeError(`${name}[${i}]`, x, 'must be a number');
      out[i] = x;
    }
    return out;
  }
  throw new ArgumentTypeError(name, value, 'must be an array of numbers or a Float64Array');
}

/**
 * The first index i in [start, end) with x[i] NaN or ±Infinity, or −1 when every entry there is
 * finite. One pass summing x[i]·0 (0 for every finite x[i], NaN otherwise, and NaN stays NaN),
 * with no branch per entry; the index is searched only when the sum says there is one. This is
 * the package's one finiteness scan: operators' outputs, states and kernel results use it.
 */
export function firstNonFinite(x: ArrayLike<number>, start = 0, end = x.length): number {
  // two scans, so that the one every Float64Array goes through sees nothing else: a scan that
  // also meets plain arrays and other typed arrays runs several times slower on a long vector
  const finite = x instanceof Float64Array ? sumTimesZeroF64(x, start, end) : sumTimesZero(x, start, end);
  if (finite === 0) return -1;
  for (let i = start; i < end; i++) if (!Number.isFinite(x[i])) return i;
  return -1;
}

/**
 * Σ x[i]·0 over [start, end) of a Float64Array: 0 when every entry is finite, NaN otherwise. Four
 * running sums, so that consecutive additions do not wait on each other (one sum is bound by the
 * add's latency: ~20 % slower on a long vector); a NaN in any of them makes the total NaN.
 */
function sumTimesZeroF64(x: Float64Array, start: number, end: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = start;
  for (; i + 3 < end; i += 4) {
    s0 += x[i]! * 0;
    s1 += x[i + 1]! * 0;
    s2 += x[i + 2]! * 0;
    s3 += x[i + 3]! * 0;
  }
  for (; i < end; i++) s0 += x[i]! * 0;
  return s0 + s1 + s2 + s3;
}

/** {@link sumTimesZeroF64} for any array of numbers. */
function sumTimesZero(x: ArrayLike<number>, start: number, end: number): number {
  let s = 0;
  for (let i = start; i < end; i++) s += x[i]! * 0;
  return s;
}

/** Checks every entry is finite; names the first offending index. */
export function assertFiniteVector(name: string, x: ArrayLike<number>): void {
  const i = firstNonFinite(x);
  if (i >= 0) throw new ArgumentError(`${name}[${i}]`, x[i], 'must be finite (NaN and ±Infinity are rejected)');
}

/** Checks the length of a vector. */
export function assertLength(name: string, x: ArrayLike<number>, length: number): void {
  if (x.length !== length) throw new ArgumentError(name, x, `must have length ${length}, got ${x.length}`);
}

/** A finite f64 vector of the given length (copied). */
export function finiteVector(name: string, value: unknown, length?: number): Float64Array {
  const x = toFloat64(name, value);
  if (length !== undefined) assertLength(name, x, length);
  assertFiniteVector(name, x);
  return x;
}
