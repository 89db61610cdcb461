import { describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { certifyPlots, coverageMarginPoints, subspaceMarginPoints } from '../../src/report/certifyPlots.js';
import { marginSpec, NONPOSITIVE_LABEL, plotMargins } from '../../src/plot/margin.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { groupOf, svgItems, svgTexts } from './svg.js';

const pointsOf = (svg: string) =>
  svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria !== null && i.aria.includes('row: '));
const thresholdX = (svg: string) => svgItems(svg).find((i) => i.tag === 'line' && i.aria?.startsWith('threshold:'))!.x;

describe('margin plot', () => {
  it('puts values right of the threshold line exactly when they exceed it; ≤ 0 at the floor', async () => {
    const p = await plotMargins(
      [
        { row: 'a', series: 'λ_max', value: 1e3 },
        { row: 'a', series: 'λ_min', value: 2 },
        { row: 'b', series: 'λ_max', value: 0.5 },
        { row: 'b', series: 'λ_min', value: 0 },
      ],
      { threshold: 1, thresholdLabel: 'tol' },
    );
    const xLine = thresholdX(p.svg);
    const pts = pointsOf(p.svg);
    expect(pts).toHaveLength(4);
    const at = (row: string, series: string) =>
      pts.find((i) => i.aria!.includes(`row: ${row};`) && i.aria!.includes(`series: ${series};`))!;
    expect(at('a', 'λ_max').x).toBeGreaterThan(xLine);
    expect(at('a', 'λ_min').x).toBeGreaterThan(xLine);
    expect(at('a', 'λ_min').aria).toContain('exact value: 2e+0');
    expect(at('b', 'λ_max').x).toBeLessThan(xLine);
    const zero = at('b', 'λ_min');
    expect(zero.aria).toContain(NONPOSITIVE_LABEL);
    expect(zero.aria).toContain('verdict: at or below');
    expect(zero.x).toBeLessThan(at('b', 'λ_max').x);
    expect(svgTexts(p.svg)).toEqual(expect.arrayContaining(['tol', 'a', 'b', 'λ_max', 'λ_min', NONPOSITIVE_LABEL]));
  });

  it('rejects bad input naming it', () => {
    expect(() => marginSpec([], { threshold: 1 })).toThrow(/^points = /);
    expect(() => marginSpec([{ row: 'a', series: 's', value: NaN }], { threshold: 1 })).toThrow(
      /^points\[0\]\.value = NaN/,
    );
    expect(() => marginSpec([{ row: 'a', series: 's', value: 1 }], { threshold: 0 })).toThrow(
      /^options\.threshold = 0/,
    );
    expect(() => marginSpec([{ row: '', series: 's', value: 1 }], { threshold: 1 })).toThrow(/^points\[0\]\.row = ""/);
  });
});

describe('certification plots on the closed-form system (a real certify run)', async () => {
  const report = await certify(closedFormSystem());
  const plots = await certifyPlots(report);

  it('λ_min of each subspace is right of the line exactly when certify called it non-degenerate', () => {
    expect(plots.map((p) => p.name)).toEqual(['certify-subspaces', 'certify-coverage']);
    const svg = plots[0]!.svg;
    const xLine = thresholdX(svg);
    const pts = pointsOf(svg);
    expect(pts).toHaveLength(2 * report.subspaces.length);
    // the closed form has a degenerate and a non-degenerate subspace, so both sides are exercised
    expect(new Set(report.subspaces.map((s) => s.nonDegenerate))).toEqual(new Set([true, false]));
    for (const s of report.subspaces) {
      const row = `${s.name} (dim ${s.dim})`;
      const minPoint = pts.find((i) => i.aria!.includes(`row: ${row};`) && i.aria!.includes('series: λ_min;'))!;
      expect(minPoint, row).toBeDefined();
      expect(minPoint.x > xLine, row).toBe(s.nonDegenerate);
    }
    expect(subspaceMarginPoints(report)).toHaveLength(2 * report.subspaces.length);
  });

  it('the coverage plot puts λ_min under P right of the line exactly for covered questions', () => {
    const svg = plots[1]!.svg;
    const xLine = thresholdX(svg);
    const pts = pointsOf(svg);
    for (const q of report.coverage) {
      const p = pts.find(
        (i) => i.aria!.includes(`row: ${q.question} (dim ${q.dim});`) && i.aria!.includes('series: λ_min under P;'),
      );
      expect(p, q.question).toBeDefined();
      expect(p!.x > xLine, q.question).toBe(q.covered);
    }
    expect(coverageMarginPoints(report)).toHaveLength(2 * report.coverage.length);
  });
});
