import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { eigh, gemm, rank } from '../../src/linalg/api.js';
import { maxAbsOrNaN, readMatrix, safeScale } from '../../src/linalg/shape.js';
import { wasm } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';

describe('matrix validation (src/linalg/shape.ts)', () => {
  // Regression: an early version let a later, larger entry overwrite a NaN seen before it.
  fcTest.prop([
    fc.array(fc.double({ min: -1e300, max: 1e300, noNaN: true }), { minLength: 1, maxLength: 40 }),
    fc.nat(),
    fc.constantFrom(NaN, Infinity, -Infinity),
  ])('any single NaN/±Infinity anywhere is found and named A[i][j]', (xs, pos, bad) => {
    const data = Float64Array.from(xs);
    const k = pos % data.length;
    data[k] = bad;
    expect(maxAbsOrNaN(data)).toBeNaN();
    const cols = data.length % 3 === 0 ? 3 : 1;
    const i = Math.floor(k / cols);
    expect(() => readMatrix('A', data, data.length / cols, cols)).toThrow(`A[${i}][${k - i * cols}] = `);
  });

  fcTest.prop([fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 40 })])(
    'maxAbsOrNaN is max |x| for finite input',
    (xs) => {
      expect(maxAbsOrNaN(Float64Array.from(xs))).toBe(xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0));
    },
  );

  fcTest.prop([fc.double({ min: 5e-324, max: 1.7e308, noNaN: true })])(
    'safeScale is an exact power of two putting amax in [1, 2) (or as close as normal numbers allow)',
    (amax) => {
      const s = safeScale(amax);
      expect(Math.log2(s)).toBe(Math.round(Math.log2(s)));
      if (amax >= 2 ** -1022) {
        expect(amax * s).toBeGreaterThanOrEqual(1);
        // The exponent is clamped to ±1022 (s and 1/s normal), so above 2^1023 the product is in [2, 4).
        expect(amax * s).toBeLessThan(amax >= 2 ** 1023 ? 4 : 2);
      }
    },
  );

  it('shape errors name the argument', () => {
    expect(() => readMatrix('A', [1, 2, 3], 2, 2)).toThrow(/A = .*must hold rows·cols = 2·2 = 4 values, got 3/);
    expect(() => readMatrix('A', [1], 1.5, 1)).toThrow(/rows = 1.5/);
    expect(() => readMatrix('A', 'x', 1, 1)).toThrow(/A = "x"/);
    expect(() => readMatrix('A', [1, '2'], 1, 2)).toThrow(/A\[1\] = "2": must be a number/);
    expect(() => readMatrix('A', [1])).toThrow(/rows = undefined: is required/);
  });
});

describe('an F64Block as a matrix argument', () => {
  useArenaGuard();

  it('any linalg function takes it (the Gramian in place, the others by copying); the block is not written', () => {
    const { arena } = wasm();
    const S = Float64Array.of(2, 1, 1, 3);
    const block = arena.from(S);
    try {
      expect(readMatrix('S', block, 2, 2).data).toEqual(S);
      expect(eigh(block, 2).values).toEqual(eigh(S, 2).values);
      expect(gemm(block, 2, 2, block, 2, 2)).toEqual(gemm(S, 2, 2, S, 2, 2));
      expect(rank(block, 2, 2).rank).toBe(2);
      expect(block.view).toEqual(S);
      expect(() => readMatrix('S', block, 3, 3)).toThrow(/^S = .*: must hold rows·cols = 3·3 = 9 values, got 4/);
    } finally {
      arena.free(block);
    }
    expect(() => readMatrix('S', block, 2, 2)).toThrow(/^S = .*: is an F64Block that was already freed/);
  });
});
