import { describe, expect, it } from 'vitest';
import { logAddExp, logSumExp } from '../../src/stopping/logSpace.js';
import { unanimousAnswer } from '../../src/stopping/votes.js';

describe('log-space sums', () => {
  it('sums exponentials far outside the f64 range without overflow or underflow', () => {
    // e^1000 and e^−1000 are not representable; their logs are exact up to one rounding
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.LN2, 12);
    expect(logSumExp([-1000, -1000, -1000])).toBeCloseTo(-1000 + Math.log(3), 12);
    expect(logAddExp(1000, 1000)).toBeCloseTo(1000 + Math.LN2, 12);
    expect(logAddExp(-1000, -1000 + Math.log(3))).toBeCloseTo(-1000 + Math.log(4), 12);
    // a term 800 below the largest adds e^−800, below one ulp: the sum is the largest term
    expect(logSumExp([0, -800])).toBe(0);
  });

  it('keeps −∞ as the log of 0 and lets +∞ absorb', () => {
    expect(logSumExp([])).toBe(-Infinity);
    expect(logSumExp([-Infinity, -Infinity])).toBe(-Infinity);
    expect(logSumExp([-Infinity, 2])).toBe(2);
    expect(logSumExp([Infinity, 3])).toBe(Infinity);
    expect(logAddExp(-Infinity, 2)).toBe(2);
    expect(logAddExp(2, -Infinity)).toBe(2);
    expect(logAddExp(Infinity, 2)).toBe(Infinity);
  });

  it('agrees with the direct sum where that is representable', () => {
    const xs = [0.5, -3, 2.25, 1];
    expect(logSumExp(xs)).toBeCloseTo(Math.log(xs.reduce((s, x) => s + Math.exp(x), 0)), 14);
  });
});

describe("ESC's window test", () => {
  it('is the shared answer of a window of equal answers, null otherwise', () => {
    expect(unanimousAnswer(['a', 'a', 'a'])).toBe('a');
    expect(unanimousAnswer(['a'])).toBe('a');
    expect(unanimousAnswer(['a', 'b', 'a'])).toBeNull();
    // an empty or unparseable sample never agrees, wherever it is
    expect(unanimousAnswer([null, null])).toBeNull();
    expect(unanimousAnswer(['a', null])).toBeNull();
    expect(unanimousAnswer([])).toBeNull();
  });
});
