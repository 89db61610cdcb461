import { describe, expect, it } from 'vitest';
import { maxOf, minOf, pushAll } from '../../src/util/arrays.js';

// Lengths a user can ask for (steps of a run, rows of a table): far beyond what a spread call
// puts on V8's stack.
const LONG = 1_000_000;

describe('maxOf, minOf, pushAll', () => {
  it('agree with the spread calls on short lists, NaN, empty lists and start values', () => {
    const xs = [3, -1, 7.5, 0, -0, 2];
    expect(maxOf(xs)).toBe(Math.max(...xs));
    expect(minOf(xs)).toBe(Math.min(...xs));
    expect(maxOf([], 0)).toBe(Math.max(0));
    expect(maxOf([])).toBe(Math.max());
    expect(minOf([])).toBe(Math.min());
    expect(minOf([5, 4], 0.5)).toBe(Math.min(0.5, 5, 4));
    expect(maxOf([1, NaN, 2])).toBeNaN();
    expect(Object.is(maxOf([-0], -0), Math.max(-0, -0))).toBe(true);
    expect(maxOf(new Set([1, 9, 4]).values())).toBe(9);
    expect(pushAll([1], Int32Array.of(2, 3))).toEqual([1, 2, 3]);
  });

  it(`hold ${LONG} elements, where the spread calls throw RangeError`, () => {
    const xs = Array.from({ length: LONG }, (_, i) => (i * 7919) % LONG);
    expect(() => Math.max(...xs)).toThrow(RangeError);
    expect(maxOf(xs)).toBe(LONG - 1);
    expect(minOf(xs)).toBe(0);
    const target: number[] = [];
    expect(() => target.push(...xs)).toThrow(RangeError);
    expect(pushAll(target, xs)).toHaveLength(LONG);
    expect(target[LONG - 1]).toBe(xs[LONG - 1]);
  });
});
