import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fitPowerLaw } from '../../src/plot/powerLaw.js';
import { fitScaling, plotScaling } from '../../src/plot/scaling.js';
import { groupOf, svgItems, svgTexts } from './svg.js';

const EPS = Number.EPSILON;

describe('fitPowerLaw', () => {
  // Exact power law y = C x^k: each ln y carries a rounding error of about eps·(|ln y| + 1)
  // (the rounding of y itself, then of the log), so the residuals are O(eps·L) with L the largest
  // |log|; the slope error is that divided by the spread of ln x (≥ ln 2 here, as x doubles),
  // and the sums over n ≤ 12 points add a factor n. 64·n·eps·(L+1)/spread bounds it.
  test.prop([
    fc.double({ min: -4, max: 4, noNaN: true }),
    fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
    fc.integer({ min: 2, max: 12 }),
    fc.double({ min: 0.5, max: 100, noNaN: true }),
  ])('recovers the exponent and coefficient of an exact power law', (k, c, n, x0) => {
    const pts = Array.from({ length: n }, (_, i) => ({ x: x0 * 2 ** i, y: c * (x0 * 2 ** i) ** k }));
    const fit = fitPowerLaw(pts);
    const lx = pts.map((p) => Math.log(p.x));
    const L = Math.max(...pts.map((p) => Math.abs(Math.log(p.y))), ...lx.map(Math.abs));
    const spread = Math.max(...lx) - Math.min(...lx);
    const tol = (64 * n * EPS * (L + 1)) / spread;
    expect(Math.abs(fit.exponent - k)).toBeLessThanOrEqual(tol);
    // ln C = intercept; its error is the slope error times |mean ln x| plus the mean residual
    const meanLx = lx.reduce((a, b) => a + b, 0) / n;
    expect(Math.abs(Math.log(fit.coefficient) - Math.log(c))).toBeLessThanOrEqual(
      tol * (Math.abs(meanLx) + 1) + 64 * n * EPS * (L + 1),
    );
    // r² is well determined when the y spread dominates the rounding (|k| not tiny); k = 0 → 1
    if (Math.abs(k) > 1e-6 || k === 0) expect(fit.r2).toBeGreaterThan(1 - 1e-9);
    expect(fit.n).toBe(n);
  });

  test.prop([fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 3, maxLength: 10 })])(
    'scaling every y by a constant leaves the exponent unchanged (up to rounding)',
    (ys) => {
      const pts = ys.map((y, i) => ({ x: i + 1, y }));
      const a = fitPowerLaw(pts).exponent;
      const b = fitPowerLaw(pts.map((p) => ({ x: p.x, y: p.y * 1000 }))).exponent;
      // ln(1000 y) = ln y + ln 1000: only rounding of the sums (about n·eps·max|ln y|/spread)
      expect(Math.abs(a - b)).toBeLessThan(1e-12);
    },
  );

  it('noisy data: r² < 1, exponent between the neighbouring slopes', () => {
    const fit = fitPowerLaw([
      { x: 1, y: 1 },
      { x: 2, y: 5 },
      { x: 4, y: 15 },
    ]);
    expect(fit.r2).toBeLessThan(1);
    expect(fit.exponent).toBeGreaterThan(Math.log2(3));
    expect(fit.exponent).toBeLessThan(Math.log2(5));
  });

  it('rejects too few points, non-positive values, equal x', () => {
    expect(() => fitPowerLaw([{ x: 1, y: 1 }])).toThrow(/^points = an array of length 1: needs at least 2/);
    expect(() =>
      fitPowerLaw([
        { x: 1, y: 1 },
        { x: 0, y: 1 },
      ]),
    ).toThrow(/^points\[1\]\.x = 0: must be > 0/);
    expect(() =>
      fitPowerLaw([
        { x: 1, y: 1 },
        { x: 2, y: -1 },
      ]),
    ).toThrow(/^points\[1\]\.y = -1/);
    expect(() =>
      fitPowerLaw([
        { x: 3, y: 1 },
        { x: 3, y: 2 },
      ]),
    ).toThrow(/all x are equal/);
  });
});

describe('scaling plot', () => {
  const ns = [10, 20, 40, 80];
  const points = ns.flatMap((n) => [
    { n, y: 1e-4 * n ** 2, series: 'order-gap' },
    { n, y: 2e-6 * n ** 3, series: 'certify' },
  ]);

  it('fits each series and puts the exponent in the legend', async () => {
    const fits = fitScaling(points);
    expect(fits.map((f) => f.series)).toEqual(['order-gap', 'certify']);
    expect(fits[0]!.exponent).toBeCloseTo(2, 12);
    expect(fits[1]!.exponent).toBeCloseTo(3, 12);
    const p = await plotScaling(points, { xTitle: 'Nmax' });
    expect(svgTexts(p.svg)).toEqual(
      expect.arrayContaining(['order-gap (k = 2.00)', 'certify (k = 3.00)', 'Nmax', 'time (s)']),
    );
    // on log-log axes a power law is straight: equal x steps (doubling n) give equal y steps
    const pts = svgItems(groupOf(p.svg, 'mark-symbol role-mark'))
      .filter((i) => i.aria?.includes('certify'))
      .sort((a, b) => a.x - b.x);
    expect(pts).toHaveLength(4);
    const dy = pts.slice(1).map((q, k) => q.y - pts[k]!.y);
    const dx = pts.slice(1).map((q, k) => q.x - pts[k]!.x);
    for (let k = 1; k < 3; k++) {
      expect(Math.abs(dy[k]! - dy[0]!)).toBeLessThan(1);
      expect(Math.abs(dx[k]! - dx[0]!)).toBeLessThan(1);
    }
    // slope 3 in data units: dy/dx in pixels = -3 · (pixels per decade in y / in x)
    expect(dy[0]!).toBeLessThan(0);
  });

  it('a series with one size cannot be fitted; the error names the series', () => {
    expect(() => fitScaling([{ n: 10, y: 1, series: 'solo' }])).toThrow(/series "solo"/);
    expect(() => fitScaling([{ n: 10, y: 0, series: 'a' }])).toThrow(/^points\[0\]\.y = 0/);
    expect(() => fitScaling([{ n: 10, y: 1, series: '' }])).toThrow(/^points\[0\]\.series = ""/);
  });
});
