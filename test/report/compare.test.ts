import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIGURE_TIE, paretoFront } from '../../src/lab/pairedScoring.js';
import { compareReport, parseCompareRule, renderCompareText, resolveCompareRules } from '../../src/report/compare.js';
import { listRules, type RuleSpec } from '../../src/stopping/registry.js';
import { tempFolder } from '../util/builtCli.js';

describe('paretoFront', () => {
  it('keeps exactly the points no other point beats on one figure without losing on the other', () => {
    const pts = [
      { accuracy: 0.9, meanSamples: 40 }, // 0: dominated by 1 (same accuracy, fewer samples)
      { accuracy: 0.9, meanSamples: 8 }, // 1: front (most accurate for the fewest samples)
      { accuracy: 0.8, meanSamples: 5 }, // 2: front (cheaper than 1)
      { accuracy: 0.7, meanSamples: 6 }, // 3: dominated by 2 (less accurate and dearer)
      { accuracy: 0.8, meanSamples: 5 }, // 4: equal to 2: neither dominates the other, both front
      { accuracy: 0.6, meanSamples: 1 }, // 5: front (the cheapest)
      { accuracy: 0.95, meanSamples: 40 }, // 6: front (the most accurate)
      { accuracy: 0.6, meanSamples: 3 }, // 7: dominated by 5
    ];
    expect(paretoFront(pts)).toEqual([1, 2, 4, 5, 6]);
    expect(paretoFront([])).toEqual([]);
    expect(paretoFront([{ accuracy: 0, meanSamples: 0 }])).toEqual([0]);
    expect(() => paretoFront([{ accuracy: Number.NaN, meanSamples: 1 }])).toThrow(/^points\[0\]\.accuracy = NaN/);
  });

  it('figures that differ only in their last bits are the same figure (188/232 as two means of per-repeat means)', () => {
    // four repeats of 58 units: 47 + 47 + 47 + 47 and 40 + 40 + 51 + 57 correct, both 188 of 232,
    // averaged as the paired summary does (per-repeat fractions, then their mean)
    const mean = (xs: number[]) => xs.map((x) => x / 58).reduce((a, x) => a + x, 0) / xs.length;
    const [a, b] = [mean([47, 47, 47, 47]), mean([40, 40, 51, 57])];
    expect(a).not.toBe(b); // 0.8103448275862069 and 0.810344827586207
    // the dearer rule reads one bit more accurate: not enough to keep it beside the cheaper one
    const pts = [
      { accuracy: Math.max(a, b), meanSamples: 16.59 },
      { accuracy: Math.min(a, b), meanSamples: 10.52 },
    ];
    expect(Math.abs(a - b)).toBeLessThanOrEqual(FIGURE_TIE * a);
    expect(paretoFront(pts)).toEqual([1]); // the cheaper of two equally accurate rules
    // a true difference of one unit in 10^5 repeats of 500 items is not a tie
    expect(
      paretoFront([
        { accuracy: 0.5, meanSamples: 1 },
        { accuracy: 0.5 + 1 / 5e7, meanSamples: 1 },
      ]),
    ).toEqual([1]);
  });
});

describe('compareReport: the Pareto front on a hand-built sample file', () => {
  // Every item is unanimous, so every sample order gives the same stops and answers, and each
  // rule's figures follow by hand: 3 of the 4 items are answered correctly by every rule
  // (accuracy 3/4 for all); on a unanimous item of 6 samples the full budget stops at 6, GROW
  // (k = 2) and ESC's window w = 2 after 2, stability k = 3 after 3, and the Beta rule at 0.95
  // after 4 (P(p1 > p2 | 4, 0) = 1 − 2^−5 = 0.97 >= 0.95, while 3 votes give 0.94). With equal
  // accuracies the front is the cheapest configurations: GROW and ESC w = 2, tied, both on it.
  const dir = tempFolder('compare-front');
  const file = join(dir, 'unanimous.jsonl');
  const item = (gold: string, answer: string): string =>
    JSON.stringify({ question: 'q', answer: gold, generated_answer: Array(6).fill(`so the answer is ${answer}.`) });
  writeFileSync(file, [item('x', 'x'), item('y', 'y'), item('z', 'z'), item('x', 'w')].join('\n') + '\n');
  const rules: RuleSpec[] = [
    { name: 'stability', params: { consecutive: 3 } },
    { name: 'stability', params: { consecutive: 2 } },
    { name: 'beta', params: { threshold: 0.95 } },
    { name: 'plurality', params: { window: 2 } },
  ];

  it('figures as derived, and the front is the two cheapest, tied', async () => {
    const r = await compareReport({ samples: file, rules, repeats: 3, seed: 5 });
    const figures = r.summary.rules.map((x) => [x.label, x.accuracy, x.meanSamples]);
    expect(figures).toEqual([
      ['fixed-budget(budget=6)', 0.75, 6],
      ['stability(consecutive=3)', 0.75, 3],
      ['stability(consecutive=2)', 0.75, 2],
      ['beta(threshold=0.95, minSamples=1)', 0.75, 4],
      ['plurality(window=2)', 0.75, 2],
    ]);
    expect(r.paretoFront).toEqual(['stability(consecutive=2)', 'plurality(window=2)']);
    // the text marks the same rows and names them under the table
    const text = renderCompareText(r);
    const marked = text
      .split('\n')
      .filter((l) => /^\s*\d+\s/.test(l) && l.trimEnd().endsWith('*'))
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(marked).toEqual([3, 5]);
    expect(text).toMatch(/^Pareto front \(\*: .*\): #3, #5$/m);
  });
});

describe("--rules 'all'", () => {
  it('parses alone; refuses parameters with a one-line error naming the spec', () => {
    expect(parseCompareRule('all')).toBe('all');
    expect(parseCompareRule(' all ')).toBe('all');
    expect(parseCompareRule('beta:threshold=0.99')).toEqual({ name: 'beta', params: { threshold: 0.99 } });
    expect(() => parseCompareRule('all:delta=0.1')).toThrow(/^rule spec = "all:delta=0\.1": "all" takes no parameters/);
  });

  it('is every registered rule at its defaults, the fixed budget left to the replay (its baseline at N); others given run once', () => {
    const names = listRules().map((r) => r.name);
    const all = resolveCompareRules(['all'], 17);
    expect(all.map((r) => r.name)).toEqual(names.filter((n) => n !== 'fixed-budget'));
    for (const r of all) expect(r.params, r.name).toEqual({});
    // combined: an explicit configuration stands where it is given; one equal to a default
    // configuration (by label) is not run twice; 'all' twice counts once
    const beta99 = { name: 'beta', params: { threshold: 0.99 } };
    expect(resolveCompareRules([beta99, 'all', 'all'], 17)).toEqual([beta99, ...all]);
    const beta95 = { name: 'beta', params: { threshold: 0.95 } };
    const mixed = resolveCompareRules(['all', beta95], 17);
    expect(mixed.map((r) => r.name).filter((n) => n === 'beta')).toHaveLength(1);
    expect(mixed.at(-1)).toEqual(beta95);
    expect(mixed).toHaveLength(names.length - 1);
    expect(resolveCompareRules([beta99], 17)).toEqual([beta99]);
  });
});
