import { describe, expect, it } from 'vitest';
import { svgToPng } from '../../src/plot/render.js';
import { plotSpectrum, SPECTRUM_CLASSES, spectrumFloor, spectrumSpec } from '../../src/plot/spectrum.js';
import { THRESHOLD_COLOR } from '../../src/plot/theme.js';
import { countColor, inkStats } from './png.js';
import { groupOf, seriesUnder, svgItems, svgTexts, textBox } from './svg.js';

const symbolsOf = (svg: string) =>
  svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('rank (largest first)'));

describe('spectrum plot', () => {
  const tolerance = 1e-10;
  // A spectrum with values above, below and at zero (as a PSD Gramian's rounding can give).
  const values = [0.3, 2.1, 3e-13, 1e-4, -1e-16].map((value) => ({ value }));

  it('sorts decreasingly, classifies against the tolerance, and keeps the order on the log axis', async () => {
    const p = await plotSpectrum(values, { tolerance, title: 'Gramian' });
    const pts = symbolsOf(p.svg);
    expect(pts).toHaveLength(5);
    // rank k is the k-th largest; on the (downward) SVG y axis, larger values are higher (smaller y)
    const byRank = [...pts].sort((a, b) => a.x - b.x);
    for (let k = 1; k < byRank.length; k++) expect(byRank[k]!.y).toBeGreaterThan(byRank[k - 1]!.y);
    expect(byRank.map((i) => /class: ([^;]+)/.exec(i.aria!)?.[1])).toEqual([
      SPECTRUM_CLASSES[0],
      SPECTRUM_CLASSES[0],
      SPECTRUM_CLASSES[0],
      SPECTRUM_CLASSES[1],
      SPECTRUM_CLASSES[2],
    ]);
    expect(svgTexts(p.svg)).toContain('tolerance = 1.00e-10');
    // the tolerance line lies between the last value above it (1e-4) and the first below (3e-13)
    const tolLine = svgItems(p.svg).find((i) => i.tag === 'line' && i.aria?.startsWith('tolerance:'));
    expect(tolLine).toBeDefined();
    expect(tolLine!.y).toBeGreaterThan(byRank[2]!.y);
    expect(tolLine!.y).toBeLessThan(byRank[3]!.y);
    const img = svgToPng(p.svg);
    expect(inkStats(img.pixels).inkFraction).toBeGreaterThan(0.02);
    expect(countColor(img.pixels, THRESHOLD_COLOR)).toBeGreaterThan(100);
  });

  it('the floor for values <= 0 is a decade under the smallest positive value and the tolerance', () => {
    expect(spectrumFloor([2, 3e-13, -1], 1e-10)).toBeCloseTo(3e-14, 28);
    expect(spectrumFloor([2, 0.5], 1e-10)).toBeCloseTo(1e-11, 26);
    expect(spectrumFloor([0, -1], 1e-6)).toBeCloseTo(1e-7, 22);
  });

  it('the tolerance label covers no eigenvalue, even when the smallest sit just above the line', async () => {
    for (const group of [undefined, 'q1']) {
      const near = [1, 0.1, 1.5e-10, 1.2e-10].map((value) => ({ value, ...(group ? { group } : {}) }));
      const p = await plotSpectrum(near, { tolerance: 1e-10 });
      const box = textBox(p.svg, 'tolerance = 1.00e-10');
      expect(seriesUnder(p.svg, box, 'rank (largest first):').points).toBe(0);
    }
  });

  it('groups draw one sequence per group, each ranked from 1', async () => {
    const p = await plotSpectrum(
      [
        { value: 1, group: 'q1' },
        { value: 0.5, group: 'q1' },
        { value: 3, group: 'q2' },
      ],
      { tolerance: 1e-8 },
    );
    const ranks = symbolsOf(p.svg).map((i) => /rank \(largest first\): (\d+)/.exec(i.aria!)?.[1]);
    expect(ranks.sort()).toEqual(['1', '1', '2']);
    expect(svgTexts(p.svg)).toEqual(expect.arrayContaining(['q1', 'q2']));
  });

  it('rejects bad input naming the argument', () => {
    expect(() => spectrumSpec([], { tolerance: 1 })).toThrow(/^values = /);
    expect(() => spectrumSpec([{ value: Infinity }], { tolerance: 1 })).toThrow(/^values\[0\]\.value = Infinity/);
    expect(() => spectrumSpec([{ value: 1 }], { tolerance: -1 })).toThrow(/^options\.tolerance = -1/);
    expect(() => spectrumSpec([{ value: 1, group: 3 as unknown as string }], { tolerance: 1 })).toThrow(
      /^values\[0\]\.group = 3/,
    );
  });
});
