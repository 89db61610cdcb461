import { describe, expect, it } from 'vitest';
import { ACCURACY_TEXT_LABEL_LIMIT, accuracySpec, plotAccuracy } from '../../src/plot/accuracy.js';
import { groupOf, svgItems, svgTexts } from './svg.js';

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
  });
});
