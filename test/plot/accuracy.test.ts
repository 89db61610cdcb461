import { describe, expect, it } from 'vitest';
import {
  ACCURACY_FRONT_LABEL,
  ACCURACY_TEXT_LABEL_LIMIT,
  accuracySpec,
  plotAccuracy,
} from '../../src/plot/accuracy.js';
import { accuracyMinSpan } from '../../src/plot/axis.js';
import { PLOT_HEIGHT } from '../../src/plot/theme.js';
import { axisLabels, groupOf, svgItems, svgTexts } from './svg.js';

describe('accuracy plot', () => {
  const points = [
    { rule: 'order-gap', meanSamples: 4.2, accuracy: 0.81 },
    { rule: 'fixed budget', meanSamples: 10, accuracy: 0.83 },
    { rule: 'self-consistency', meanSamples: 7, accuracy: 0.79 },
  ];

  it('places one labelled point per rule; more samples is further right, more accuracy higher', async () => {
    const p = await plotAccuracy(points, { title: 'rules' });
    const sym = svgItems(groupOf(p.svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
    expect(sym).toHaveLength(3);
    const at = (rule: string) => sym.find((i) => i.aria!.includes(rule))!;
    expect(at('order-gap').x).toBeLessThan(at('self-consistency').x);
    expect(at('self-consistency').x).toBeLessThan(at('fixed budget').x);
    expect(at('fixed budget').y).toBeLessThan(at('order-gap').y);
    expect(at('order-gap').y).toBeLessThan(at('self-consistency').y);
    expect(svgTexts(p.svg)).toEqual(expect.arrayContaining(['order-gap', 'fixed budget', 'self-consistency']));
  });

  it('many points get a legend (colour and shape) instead of text next to each point', async () => {
    const many = Array.from({ length: ACCURACY_TEXT_LABEL_LIMIT + 1 }, (_, k) => ({
      rule: `rule-${k}(with=long, params=${k})`,
      meanSamples: k + 1,
      accuracy: 0.5 + k / 20,
    }));
    const p = await plotAccuracy(many);
    const legendLabels = svgTexts(groupOf(p.svg, 'mark-group role-legend'));
    expect(legendLabels).toEqual(many.map((m) => m.rule));
    // no text marks in the plot area: every rule name appears once, in the legend
    for (const m of many) expect(svgTexts(p.svg).filter((t) => t === m.rule)).toHaveLength(1);
    const few = await plotAccuracy(many.slice(0, 2));
    expect(groupOf(few.svg, 'mark-group role-legend')).toBe('');
    expect(() => accuracySpec(many, { labels: 'side' as 'text' })).toThrow(/^options\.labels = "side"/);
  });

  it('accuracies 1 in 5,000 apart: distinct tick labels, and the points drawn almost level', async () => {
    // three rules over 500 items × 10 repeats whose accuracies differ by one unit in 5,000
    const close = [
      { rule: 'fixed-budget', meanSamples: 40, accuracy: 4160 / 5000 },
      { rule: 'anytime', meanSamples: 10.5, accuracy: 4160 / 5000 },
      { rule: 'order-gap', meanSamples: 4.8, accuracy: 4159 / 5000 },
    ];
    const p = await plotAccuracy(close, { items: 500 });
    const labels = axisLabels(p.svg, 'Y');
    expect(labels.length).toBeGreaterThanOrEqual(2);
    expect(new Set(labels.map((l) => l.text)).size).toBe(labels.length);
    const values = labels.map((l) => Number(l.text.replace('%', '')));
    for (let k = 1; k < values.length; k++) expect(values[k]!).toBeGreaterThan(values[k - 1]!);
    // the axis spans at least one accuracy's 95% interval over 500 items (8.8 points), so the
    // 0.02-point difference takes at most 0.02/8.8 of the 280-px height: under 1 px (+1 px for
    // vega's float placement)
    const span = (values.at(-1)! - values[0]!) / 100;
    expect(span).toBeGreaterThanOrEqual(accuracyMinSpan(500));
    const sym = svgItems(groupOf(p.svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
    const ys = sym.map((i) => i.y);
    expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan((1 / 5000 / accuracyMinSpan(500)) * PLOT_HEIGHT + 1);
  });

  it('200 000 points (more than a spread call holds) get an axis over their accuracies', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => ({
      rule: `r${i}`,
      meanSamples: i,
      accuracy: 0.25 + (0.5 * i) / 199_999,
    }));
    // the accuracy axis spans the extremes: the same as for the two extreme points alone
    const domain = (pts: typeof many) => /"domain":(\[[\d.]+,[\d.]+\])/.exec(JSON.stringify(accuracySpec(pts)))![1];
    expect(domain(many)).toBe(domain([many[0]!, many.at(-1)!]));
  });

  it.each([3, ACCURACY_TEXT_LABEL_LIMIT + 2])(
    'with %s points, the ones marked front are joined in order of samples by one dashed line, labelled',
    async (n) => {
      // a front of three given out of order, and points off it between them
      const pts = Array.from({ length: n }, (_, k) => ({ rule: `off-${k}`, meanSamples: 3 + k, accuracy: 0.5 }));
      pts[0] = { rule: 'dear', meanSamples: 30, accuracy: 0.9, front: true } as (typeof pts)[number];
      pts[1] = { rule: 'cheap', meanSamples: 1, accuracy: 0.55, front: true } as (typeof pts)[number];
      pts[2] = { rule: 'middle', meanSamples: 6, accuracy: 0.8, front: true } as (typeof pts)[number];
      const p = await plotAccuracy(pts);
      const sym = svgItems(groupOf(p.svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
      expect(sym).toHaveLength(n);
      const at = (a: number, m: number) =>
        sym.find((i) => i.aria!.includes(`mean samples per question: ${m};`) && i.aria!.includes(`accuracy: ${a}%`))!;
      const line = groupOf(p.svg, 'mark-line role-mark');
      expect(line.match(/<path\b/g)).toHaveLength(1);
      expect(line).toContain(`aria-label="${ACCURACY_FRONT_LABEL}"`);
      expect(line).toContain('stroke-dasharray');
      // the vertices are the front's points, left to right
      const vertices = [...line.matchAll(/[ML]([-\d.e]+),([-\d.e]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
      const want = [at(55, 1), at(80, 6), at(90, 30)].map((i) => [i.x, i.y]);
      expect(vertices).toHaveLength(3);
      vertices.forEach(([x, y], k) => {
        expect(x).toBeCloseTo(want[k]![0]!, 2);
        expect(y).toBeCloseTo(want[k]![1]!, 2);
      });
      expect(svgTexts(p.svg).filter((t) => t === ACCURACY_FRONT_LABEL)).toHaveLength(1);
      // no point marked: no line, no label
      const plain = await plotAccuracy(pts.map(({ rule, meanSamples, accuracy }) => ({ rule, meanSamples, accuracy })));
      expect(groupOf(plain.svg, 'mark-line role-mark')).toBe('');
      expect(svgTexts(plain.svg)).not.toContain(ACCURACY_FRONT_LABEL);
    },
  );

  it('rejects accuracy outside [0, 1] and negative samples', () => {
    expect(() => accuracySpec([{ rule: 'a', meanSamples: 1, accuracy: 1.5 }])).toThrow(
      /^points\[0\]\.accuracy = 1\.5: must lie in \[0, 1\]/,
    );
    expect(() => accuracySpec([{ rule: 'a', meanSamples: -1, accuracy: 0.5 }])).toThrow(
      /^points\[0\]\.meanSamples = -1/,
    );
    expect(() => accuracySpec([{ rule: 5 as unknown as string, meanSamples: 1, accuracy: 0.5 }])).toThrow(
      /^points\[0\]\.rule = 5/,
    );
    expect(() => accuracySpec([{ rule: 'a', meanSamples: 1, accuracy: 0.5, front: 1 as unknown as boolean }])).toThrow(
      /^points\[0\]\.front = 1: must be a boolean/,
    );
  });
});
