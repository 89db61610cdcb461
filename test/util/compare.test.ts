import { describe, expect, it } from 'vitest';
import { closeInEps } from './compare.js';

describe('comparison helpers never hide failure', () => {
  it('NaN equals only NaN', () => {
    expect(closeInEps(NaN, NaN, 1)).toBe(true);
    expect(closeInEps(NaN, 1, 1e9)).toBe(false);
    expect(closeInEps(1, NaN, 1e9)).toBe(false);
    expect(closeInEps(NaN, Infinity, 1e9)).toBe(false);
  });
  it('infinities compare exactly', () => {
    expect(closeInEps(Infinity, Infinity, 1)).toBe(true);
    expect(closeInEps(-Infinity, Infinity, 1e9)).toBe(false);
    expect(closeInEps(1e308, Infinity, 1e9)).toBe(false);
  });
  it('tolerance scales with magnitude', () => {
    expect(closeInEps(1e200 * (1 + 2 * Number.EPSILON), 1e200, 4)).toBe(true);
    expect(closeInEps(1e200 * (1 + 8 * Number.EPSILON), 1e200, 4)).toBe(false);
    expect(closeInEps(1e-3, 0, 1e9)).toBe(false);
  });
});
