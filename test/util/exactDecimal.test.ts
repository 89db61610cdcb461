import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Decimal } from 'decimal.js';
import { exactDecimal } from './exactDecimal.js';

/** Enough digits to double any double exactly (at most 767 significant digits). */
const Big = Decimal.clone({ precision: 800 });

describe('exactDecimal', () => {
  it('gives the binary value of a double, where new Decimal(x) gives its shortest decimal', () => {
    expect(exactDecimal(0.1).toFixed()).toBe('0.1000000000000000055511151231257827021181583404541015625');
    expect(new Decimal(0.1).toFixed()).toBe('0.1');
    expect(exactDecimal(-2.5).toFixed()).toBe('-2.5');
    expect(exactDecimal(2 ** 60).toFixed()).toBe('1152921504606846976');
    expect(exactDecimal(Number.MAX_VALUE).toFixed()).toBe((2n ** 1024n - 2n ** 971n).toString());
    // η = 2⁻¹⁰⁷⁴ = 5¹⁰⁷⁴·10⁻¹⁰⁷⁴: 751 significant digits
    expect(exactDecimal(5e-324).eq(new Decimal(`${5n ** 1074n}e-1074`))).toBe(true);
    expect(exactDecimal(Infinity).toString()).toBe('Infinity');
    expect(exactDecimal(NaN).isNaN()).toBe(true);
  });

  test.prop([fc.double({ noNaN: true, noDefaultInfinity: true })], { numRuns: 500 })(
    'round-trips: the nearest double of the exact value is x, and twice it is exact',
    (x) => {
      const d = exactDecimal(x);
      expect(d.toNumber()).toBe(x === 0 ? 0 : x);
      if (Math.abs(x) < 2 ** 1023) expect(exactDecimal(2 * x).eq(Big.mul(d, 2))).toBe(true);
    },
  );
});
