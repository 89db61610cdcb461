/**
 * Reading a {@link CoordinateSet} (a list, a typed index array or an arithmetic range of
 * coordinate indices) without assuming which: its size, its i-th index, membership, and — where
 * a consumer needs one — the indices as an array, refused beyond a size limit so a block of
 * Nmax² edge weights is never enumerated by accident.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import type { CoordinateRange, CoordinateSet } from './types.js';

/** True when the set is a {@link CoordinateRange}. */
export function isCoordinateRange(set: CoordinateSet): set is CoordinateRange {
  return !Array.isArray(set) && !(set instanceof Int32Array);
}

/** A {@link CoordinateRange} (frozen). */
export function coordinateRange(start: number, count: number, stride = 1): CoordinateRange {
  return Object.freeze({ start, count, stride });
}

/** Number of indices in the set. O(1). */
export function coordinateCount(set: CoordinateSet): number {
  return isCoordinateRange(set) ? set.count : set.length;
}

/** The i-th index (ascending order of a range; list order otherwise). O(1). */
export function coordinateAt(set: CoordinateSet, i: number): number {
  return isCoordinateRange(set) ? set.start + i * set.stride : set[i]!;
}

/** Whether `index` is in the set: O(1) for a range, O(size) for a list. */
export function coordinateHas(set: CoordinateSet, index: number): boolean {
  if (!isCoordinateRange(set))
    return (set as ArrayLike<number>).length > 0 && Array.prototype.includes.call(set, index);
  const r = index - set.start;
  return r >= 0 && r % set.stride === 0 && r / set.stride < set.count;
}

/**
 * The indices as a plain array, for consumers that need one (certification on a subspace).
 * @throws {ArgumentError} the set has more than `limit` indices (default 2^24: 128 MiB of
 *   doubles), naming the set and its size.
 */
export function coordinateArray(set: CoordinateSet, name = 'subspace', limit = 2 ** 24): readonly number[] {
  if (Array.isArray(set)) return set as readonly number[];
  const out = new Array<number>(enumerableCount(set, name, limit));
  for (let i = 0; i < out.length; i++) out[i] = coordinateAt(set, i);
  return out;
}

/**
 * The indices as an Int32Array, filled directly (a range of 3·Nmax² indices builds no
 * intermediate array). Same limit as {@link coordinateArray}.
 * @throws {ArgumentError} the set has more than `limit` indices.
 */
export function coordinateIndices(set: CoordinateSet, name = 'subspace', limit = 2 ** 24): Int32Array {
  if (set instanceof Int32Array) return set;
  const out = new Int32Array(enumerableCount(set, name, limit));
  for (let i = 0; i < out.length; i++) out[i] = coordinateAt(set, i);
  return out;
}

/** The size of a set that is to be enumerated, checked against `limit`. */
function enumerableCount(set: CoordinateSet, name: string, limit: number): number {
  const n = coordinateCount(set);
  if (n > limit)
    throw new ArgumentError(name, `${n} coordinates`, `is too large to enumerate (more than ${limit} indices)`);
  return n;
}

/**
 * Validates a set against d: a list or Int32Array of distinct indices in [0, d) (O(size), no
 * Set of indices: a sorted copy is checked for neighbours), or a range inside [0, d) (O(1)).
 * Returns a frozen copy of a list, the typed array copied, the range frozen.
 * @throws {ArgumentError|ArgumentTypeError} naming `name[i]` or the range field.
 */
export function checkCoordinateSet(name: string, set: unknown, dim: number): CoordinateSet {
  if (Array.isArray(set) || set instanceof Int32Array) {
    const arr = set as ArrayLike<unknown>;
    for (let i = 0; i < arr.length; i++) integerInRange(`${name}[${i}]`, arr[i], 0, dim - 1);
    const sorted = Float64Array.from(arr as ArrayLike<number>).sort();
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i] === sorted[i - 1]) {
        const at = Array.prototype.indexOf.call(arr, sorted[i], Array.prototype.indexOf.call(arr, sorted[i]) + 1);
        throw new ArgumentError(`${name}[${at}]`, sorted[i], 'is a duplicate index');
      }
    return set instanceof Int32Array ? Int32Array.from(set) : Object.freeze([...(set as number[])]);
  }
  if (typeof set !== 'object' || set === null)
    throw new ArgumentTypeError(name, set, 'must be an array of coordinate indices or a range {start, count, stride}');
  const r = set as Partial<CoordinateRange>;
  const start = integerInRange(`${name}.start`, r.start, 0, dim - 1);
  const count = integerInRange(`${name}.count`, r.count, 0);
  const stride = integerInRange(`${name}.stride`, r.stride ?? 1, 1);
  if (count > 0 && start + (count - 1) * stride > dim - 1)
    throw new ArgumentError(`${name}.count`, count, `runs past d − 1 = ${dim - 1} (start ${start}, stride ${stride})`);
  return coordinateRange(start, count, stride);
}
