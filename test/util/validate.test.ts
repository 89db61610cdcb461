import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  assertFiniteVector,
  booleanValue,
  finiteVector,
  firstNonFinite,
  integerInRange,
} from '../../src/util/validate.js';

// firstNonFinite is the package's one finiteness scan; its answer must equal the plain search
// for the first entry that Number.isFinite rejects, on every array and window.
describe('firstNonFinite', () => {
  const plain = (x: ArrayLike<number>, start: number, end: number): number => {
    for (let i = start; i < end; i++) if (!Number.isFinite(x[i])) return i;
    return -1;
  };

  it('is -1 on finite arrays at the edges of f64 (zeros, subnormals, 1e±300, max)', () => {
    const x = Float64Array.of(0, -0, 5e-324, -5e-324, 1e-300, 1e300, -1e300, Number.MAX_VALUE, -Number.MAX_VALUE);
    expect(firstNonFinite(x)).toBe(-1);
    expect(firstNonFinite(new Float64Array(0))).toBe(-1);
  });

  it('names the first NaN or ±Infinity, and only inside [start, end)', () => {
    const x = [1, NaN, 2, Infinity, -Infinity];
    expect(firstNonFinite(x)).toBe(1);
    expect(firstNonFinite(x, 2)).toBe(3);
    expect(firstNonFinite(x, 4)).toBe(4);
    expect(firstNonFinite(x, 0, 1)).toBe(-1);
    expect(firstNonFinite(x, 2, 3)).toBe(-1);
  });

  fcTest.prop([
    fc.array(fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 5e-324)), { maxLength: 64 }),
    fc.nat(70),
    fc.nat(70),
  ])('equals the plain search on every window', (arr, a, b) => {
    const x = Float64Array.from(arr);
    const start = Math.min(a, x.length);
    const end = Math.min(Math.max(start, b), x.length);
    expect(firstNonFinite(x, start, end)).toBe(plain(x, start, end));
    expect(firstNonFinite(arr)).toBe(plain(arr, 0, arr.length));
  });

  it('assertFiniteVector and finiteVector name the first bad index', () => {
    expect(() => assertFiniteVector('theta', [0, 1, -Infinity, NaN])).toThrow(/theta\[2\].*-Infinity/);
    expect(() => finiteVector('x', [1, 2, NaN], 3)).toThrow(/x\[2\]/);
    expect(Array.from(finiteVector('x', [1e300, 5e-324]))).toEqual([1e300, 5e-324]);
  });
});

describe('scalar validators', () => {
  it('integerInRange names what is wrong: below the minimum, beyond 2^53 − 1, or outside [min, max]', () => {
    expect(integerInRange('n', 3, 1)).toBe(3);
    expect(() => integerInRange('n', 0, 1)).toThrow(/^n = 0: must be >= 1$/);
    expect(() => integerInRange('n', 1e20, 1)).toThrow(/^n = 100000000000000000000: must be at most 2\^53 − 1/);
    expect(() => integerInRange('n', 11, 1, 10)).toThrow(/^n = 11: must be in \[1, 10\]$/);
    expect(() => integerInRange('n', 1.5, 1)).toThrow(/must be an integer/);
  });

  it('booleanValue takes true and false only', () => {
    expect(booleanValue('flag', false)).toBe(false);
    for (const v of [0, 1, 'true', null])
      expect(() => booleanValue('flag', v)).toThrow(/^flag = .*: must be true or false$/);
  });
});
