/**
 * Extremes and appends over arrays of any length. Spreading an array into a call
 * (`Math.max(...xs)`, `Math.min(...xs)`, `list.push(...xs)`) passes one argument per element on
 * the stack, and V8 throws "RangeError: Maximum call stack size exceeded" beyond about 10⁵
 * elements (the exact count depends on the stack left at the call). Wherever the length comes
 * from input (steps of a run, rows of a table, points of a plot, answers of a graph), use these
 * instead: one pass, constant stack, the same results as the spread call (NaN propagates, an
 * empty list gives the start value: −Infinity for the maximum, +Infinity for the minimum).
 */

/**
 * The largest of `start` and `values`, as `Math.max(start, ...values)` computes it.
 * @example
 * ```ts
 * maxOf([3, 1, 2]); // 3
 * maxOf([], 0);     // 0
 * ```
 */
export function maxOf(values: Iterable<number>, start = -Infinity): number {
  let m = start;
  for (const x of values) m = Math.max(m, x);
  return m;
}

/**
 * The smallest of `start` and `values`, as `Math.min(start, ...values)` computes it.
 * @example
 * ```ts
 * minOf([3, 1, 2]); // 1
 * minOf([5], 0.5);  // 0.5
 * ```
 */
export function minOf(values: Iterable<number>, start = Infinity): number {
  let m = start;
  for (const x of values) m = Math.min(m, x);
  return m;
}

/**
 * Appends `items` to `target` in order, as `target.push(...items)` does; returns `target`.
 * @example
 * ```ts
 * pushAll([1], [2, 3]); // [1, 2, 3]
 * ```
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const x of items) target.push(x);
  return target;
}
