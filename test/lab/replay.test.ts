import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { pairedSummary, pairedUnitKeys, perItemScores, summarizeReplay } from '../../src/lab/pairedScoring.js';
import { replaySamples } from '../../src/lab/replay.js';
import { parseSamples, type SampleSet } from '../../src/lab/samples.js';
import { seededPermutation, unitSeed } from '../../src/lab/observations.js';
import type { RuleSpec } from '../../src/stopping/registry.js';

const line = (answer: string, samples: Array<string | null>): string =>
  JSON.stringify({ question: 'q', answer, generated_answer: samples });
const ans = (a: string): string => `so the answer is ${a}.`;

const tiny = parseSamples(
  [
    line('x', [ans('x'), ans('x'), ans('x'), ans('x'), ans('x')]), // unanimous
    line('x', [ans('x'), ans('y'), null, ans('x'), ans('x')]), // one transport failure
    line('123', [ans('x'), ans('x'), ans('x'), ans('x'), ans('x')]), // gold unusable by answer-is
    line('x', ['', '', 'nothing here', '', '']), // only empty / unparseable samples
    line('x', [ans('y'), ans('y'), ans('x')]), // fewer samples than the budget, majority wrong
  ].join('\n'),
  'tiny',
);

describe('replay', () => {
  const rules: RuleSpec[] = [
    { name: 'beta', params: { threshold: 0.95 } },
    { name: 'stability', params: { consecutive: 2 } },
  ];
  it('hand-checked units', () => {
    const r = replaySamples(tiny, { rules, repeats: 3, seed: 1, budget: 5 });
    expect(r.rules.map((x) => x.label)).toEqual([
      'fixed-budget(budget=5)',
      'beta(threshold=0.95, minSamples=1)',
      'stability(consecutive=2)',
    ]);
    const [base, beta, stab] = r.rules.map((x) => x.units.filter((u) => u.repeat === 0));
    // item 0: five x's → full budget 5, Beta stops at 4 (P = 31/32), stability at 2
    expect([base![0]!.samplesUsed, beta![0]!.samplesUsed, stab![0]!.samplesUsed]).toEqual([5, 4, 2]);
    expect(beta![0]).toMatchObject({ outcome: 'correct', stopReason: 'criterion', answer: 'x', fullMajority: 'x' });
    // item 1: the baseline always meets the null → unresolved
    expect(base![1]).toMatchObject({ outcome: 'unresolved', stopReason: 'transport-failure' });
    // item 2: unusable gold → unresolved for every rule
    expect([base![2]!.outcome, beta![2]!.outcome, stab![2]!.outcome]).toEqual([
      'unresolved',
      'unresolved',
      'unresolved',
    ]);
    // item 3: no answer at all — counted apart from wrong, with its empty/unparseable samples
    expect(base![3]).toMatchObject({ outcome: 'no-answer', answer: null, emptySamples: 4, unparseableSamples: 1 });
    // item 4: 3 samples < budget 5 → exhausted; plurality y is wrong
    expect(base![4]).toMatchObject({ stopReason: 'evidence-exhausted', samplesUsed: 3, answer: 'y', outcome: 'wrong' });
  });

  it('runs the baseline first where the list names it after another rule, and once', () => {
    const named: RuleSpec[] = [rules[0]!, { name: 'fixed-budget', params: { budget: 5 } }, rules[0]!];
    const r = replaySamples(tiny, { rules: named, repeats: 1, seed: 1, budget: 5 });
    expect(r.rules.map((x) => x.label)).toEqual(['fixed-budget(budget=5)', 'beta(threshold=0.95, minSamples=1)']);
  });

  it('one configuration spelled several ways (defaults given or not, parameters in any order) runs once', () => {
    const named: RuleSpec[] = [
      { name: 'beta', params: {} },
      { name: 'beta', params: { threshold: 0.95 } },
      { name: 'fixed-budget', params: { budget: 5.0 } }, // the baseline
      { name: 'anytime', params: { budget: 5, delta: 0.05 } },
      { name: 'anytime', params: { delta: 0.05, budget: 5 } },
    ];
    const r = replaySamples(tiny, { rules: named, repeats: 1, seed: 1, budget: 5 });
    expect(r.rules.map((x) => x.label)).toEqual([
      'fixed-budget(budget=5)',
      'beta(threshold=0.95, minSamples=1)',
      'anytime(delta=0.05, budget=5, maxWeight=0.5)',
    ]);
  });

  it('paired scoring drops exactly the units some rule left unresolved', () => {
    const r = replaySamples(tiny, { rules, repeats: 4, seed: 7, budget: 5 });
    const keys = pairedUnitKeys(r.rules);
    // independent recomputation: a unit is kept iff no rule has it unresolved
    const expected = new Set<string>();
    for (const u of r.rules[0]!.units) {
      const k = `${u.item}:${u.repeat}`;
      if (r.rules.every((x) => x.units.find((v) => `${v.item}:${v.repeat}` === k)!.outcome !== 'unresolved'))
        expected.add(k);
    }
    expect(keys).toEqual(expected);
    // items 1 (baseline meets the null) and 2 (gold unusable) go, in every repeat
    expect([...keys].map((k) => k.split(':')[0]).sort()).toEqual([
      '0',
      '0',
      '0',
      '0',
      '3',
      '3',
      '3',
      '3',
      '4',
      '4',
      '4',
      '4',
    ]);
    // …even though the early-stopping rules resolved item 1 in some repeats
    expect(r.rules[2]!.units.some((u) => u.item === 1 && u.outcome !== 'unresolved')).toBe(true);
    const s = summarizeReplay(r);
    expect([s.pairedUnits, s.droppedUnits, s.pairedItems]).toEqual([12, 8, 3]);
    for (const x of s.rules) expect(x.correct + x.wrong + x.noAnswer).toBe(12);
    // per repeat: item 0 correct, item 3 no answer, item 4 wrong → accuracy 1/3 for every rule
    // whose answers agree on these items; the baseline and Beta do
    expect(s.rules[0]!.accuracy).toBeCloseTo(1 / 3, 15);
    expect(s.rules[0]!.accuracyVariance).toBe(0);
    expect(s.rules[0]!.samplesSaved).toBe(0);
    // the baseline uses 5, 5, 3 samples on items 0, 3, 4 in every repeat: unbiased variance over the 12 units
    const xs = [5, 5, 3, 5, 5, 3, 5, 5, 3, 5, 5, 3];
    const mean = xs.reduce((a, b) => a + b, 0) / 12;
    expect(s.rules[0]!.unitSamplesVariance).toBeCloseTo(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / 11, 14);
  });

  it('every figure is recomputed from the per-unit records alone (JSON round trip)', () => {
    const r = replaySamples(tiny, { rules, repeats: 3, seed: 2, budget: 5 });
    const again = pairedSummary(JSON.parse(JSON.stringify(r.rules)) as typeof r.rules);
    expect(again).toEqual(summarizeReplay(r));
    const per = perItemScores(r.rules);
    expect(per.items).toEqual([0, 3, 4]);
  });

  it('deterministic per seed; another seed changes the orders', () => {
    const a = replaySamples(tiny, { rules, repeats: 5, seed: 11, budget: 5 });
    const b = replaySamples(tiny, { rules, repeats: 5, seed: 11, budget: 5 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const c = replaySamples(tiny, { rules, repeats: 5, seed: 12, budget: 5 });
    expect(JSON.stringify(c.rules)).not.toBe(JSON.stringify(a.rules));
  });

  fcTest.prop([
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fc.integer({ min: 0, max: 50 }),
    fc.integer({ min: 1, max: 30 }),
  ])('seeded permutations are permutations and depend only on (seed, repeat, item)', (seed, item, n) => {
    const p = seededPermutation(n, unitSeed(seed, 3, item));
    expect([...p].sort((x, y) => x - y)).toEqual([...Array(n).keys()]);
    expect(seededPermutation(n, unitSeed(seed, 3, item))).toEqual(p);
  });

  it('rejects bad options naming them, before running anything', () => {
    const s: SampleSet = tiny;
    expect(() => replaySamples(s, { rules, repeats: 0 })).toThrow(/^repeats = 0/);
    expect(() => replaySamples(s, { rules, seed: -1 })).toThrow(/^seed = -1/);
    expect(() => replaySamples(s, { rules, budget: 0 })).toThrow(/^budget = 0/);
    expect(() => replaySamples(s, { rules: [{ name: 'beta', params: { threshold: 2 } }] })).toThrow(
      /^rules\[0\]: threshold = 2/,
    );
    expect(() => replaySamples(s, { rules: 'beta' as never })).toThrow(/^rules = "beta"/);
  });
});

describe('replay invariants on random sample files', () => {
  const sample = fc.oneof(
    fc.constantFrom('a', 'b', 'c').map((x) => `the answer is ${x}`),
    fc.constant(''),
    fc.constant('no marker'),
    fc.constant(null),
  );
  const file = fc.array(
    fc.record({ gold: fc.constantFrom('a', 'b'), samples: fc.array(sample, { minLength: 1, maxLength: 12 }) }),
    { minLength: 1, maxLength: 6 },
  );
  fcTest.prop([file, fc.integer({ min: 1, max: 15 }), fc.integer({ min: 0, max: 1000 })])(
    'caps never throw; samples used <= min(budget, available); outcomes match answers; the baseline answer is the full vote',
    (items, budget, seed) => {
      const set = parseSamples(items.map((it) => line(it.gold, it.samples)).join('\n'), 'random');
      const rules: RuleSpec[] = [
        { name: 'order-gap', params: { epsilon: 0.05, window: 2 } },
        { name: 'beta', params: { threshold: 0.9 } },
        { name: 'plurality', params: { window: 3 } },
        { name: 'patience', params: { epsilon: 0.01, patience: 2, maxDepth: 15 } },
        { name: 'stability', params: { consecutive: 2 } },
        { name: 'confidence', params: { threshold: 0.8 } },
      ];
      const r = replaySamples(set, { rules, repeats: 2, seed, budget });
      for (const rule of r.rules) {
        for (const u of rule.units) {
          const available = items[u.item]!.samples.length;
          expect(u.samplesUsed).toBeGreaterThanOrEqual(1);
          expect(u.samplesUsed).toBeLessThanOrEqual(Math.min(budget, available));
          if (u.outcome === 'correct') expect(u.answer).toBe(u.gold);
          if (u.outcome === 'wrong') expect(u.answer === null || u.answer === u.gold).toBe(false);
          if (u.outcome === 'no-answer') expect(u.answer).toBeNull();
          if (u.stopReason === 'evidence-exhausted') expect(u.samplesUsed).toBe(available);
        }
      }
      for (const u of r.rules[0]!.units) {
        if (u.outcome !== 'unresolved') {
          expect(u.samplesUsed).toBe(Math.min(budget, items[u.item]!.samples.length));
          expect(u.answer).toBe(u.fullMajority);
        }
      }
    },
  );
});
