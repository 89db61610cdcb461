/**
 * The interval Gramian (src/interval/gram.ts): G = Σ p_e JᵀJ encloses the Gramian of every
 * choice of point matrices in the J_e, exact zero columns stay exact, and a point J gives an
 * enclosure of the float Gramian within a few ulps.
 */
import { describe, expect, it } from 'vitest';
import { addItem, gramMidRad, newGram } from '../../src/interval/gram.js';

const point = (rows: number, cols: number, v: number[]) => ({
  lo: Float64Array.from(v),
  hi: Float64Array.from(v),
  rows,
  cols,
});

describe('interval Gramian', () => {
  it('contains Σ p JᵀJ for point matrices inside the enclosures and keeps exact zero columns', () => {
    // J1 = [[0.1, 0], [0.3, 0], [0, 0]] widened, J2 = [[0, 0], [0, 0], [0.7, 0]] (column 1 all zero)
    const J1 = {
      lo: Float64Array.of(0.09, 0, 0.29, 0, 0, 0),
      hi: Float64Array.of(0.11, 0, 0.31, 0, 0, 0),
      rows: 3,
      cols: 2,
    };
    const J2 = point(3, 2, [0, 0, 0, 0, 0.7, 0]);
    const g = newGram(2);
    addItem(g, J1, 1 / 3);
    addItem(g, J2, 2 / 3);
    expect(Array.from(g.zeroColumn)).toEqual([0, 1]);
    expect([g.lo[1], g.hi[1], g.lo[3], g.hi[3]]).toEqual([0, 0, 0, 0]);
    for (const [a, b] of [
      [0.09, 0.29],
      [0.11, 0.31],
      [0.1, 0.3],
    ]) {
      const exact = (a! * a! + b! * b!) / 3 + (0.7 * 0.7 * 2) / 3;
      expect(g.lo[0]!).toBeLessThanOrEqual(exact);
      expect(g.hi[0]!).toBeGreaterThanOrEqual(exact);
    }
    const { mid, rad, n } = gramMidRad(g, [0]);
    expect(n).toBe(1);
    expect(mid[0]! - rad[0]!).toBeLessThanOrEqual(g.lo[0]!);
  });

  it('mirrors the upper triangle into a symmetric midpoint–radius matrix', () => {
    const g = newGram(2);
    addItem(g, point(1, 2, [1, 2]), 1);
    const { mid, rad, n } = gramMidRad(g);
    expect(n).toBe(2);
    // products are rounded outward even when exact: a few ulps of radius around [1, 2; 2, 4]
    [1, 2, 2, 4].forEach((v, k) => {
      expect(Math.abs(mid[k]! - v)).toBeLessThanOrEqual(rad[k]!);
      expect(rad[k]!).toBeLessThanOrEqual(4 * Number.EPSILON * v);
    });
    expect([mid[1], rad[1]]).toEqual([mid[2], rad[2]]);
  });
});
