import { describe, expect, it } from 'vitest';
import {
  type AnswerDistribution,
  binomialUpperQuantile,
  EMPTY_ANSWER,
  falseStopTrial,
  falseStopTrials,
  numericNearMissDistribution,
  SYNTHETIC_DISTRIBUTIONS,
  syntheticAnswers,
} from '../../src/lab/syntheticStreams.js';
import { betaTailInt } from '../../src/stopping/betaTail.js';
import type { RuleSpec } from '../../src/stopping/registry.js';

const EPS = Number.EPSILON;
const byShape = (shape: string): AnswerDistribution => SYNTHETIC_DISTRIBUTIONS.find((d) => d.shape === shape)!;
const numeric = byShape('numeric');

describe('the synthetic shapes', () => {
  it('cover two-way, three-way, long tail, many-answer numeric and near ties, each once, with distinct names', () => {
    const shapes = SYNTHETIC_DISTRIBUTIONS.map((d) => d.shape);
    for (const s of ['two-way', 'three-way', 'long-tail', 'numeric', 'near-tie'])
      expect(
        shapes.filter((x) => x === s),
        s,
      ).toHaveLength(1);
    expect(new Set(SYNTHETIC_DISTRIBUTIONS.map((d) => d.name)).size).toBe(SYNTHETIC_DISTRIBUTIONS.length);
    // every distribution is accepted by the trial (unique mode, readable answers)
    for (const d of SYNTHETIC_DISTRIBUTIONS)
      expect(
        falseStopTrial({ name: 'fixed-budget', params: { budget: 3 } }, d, { streams: 1, maxSteps: 3, seed: 0 }),
      ).toMatchObject({ criterionStops: 0, meanSamples: 3 });
  });

  it('the numeric shape states what its TSDoc says: 42 at 0.30, geometric near misses ±1..5 sharing 0.40, 60 far answers at 0.005', () => {
    const p = numeric.probabilities;
    const keys = Object.keys(p);
    expect(keys).toHaveLength(1 + 10 + 60);
    expect(p['42']).toBe(0.3);
    // each offset: (q/2)·r^(k−1)·(1 − r)/(1 − r^K), a few roundings (a handful of ulps)
    for (let k = 1; k <= 5; k++) {
      const want = ((0.4 / 2) * 0.5 ** (k - 1) * (1 - 0.5)) / (1 - 0.5 ** 5);
      expect(Math.abs(p[String(42 + k)]! - want)).toBeLessThanOrEqual(4 * EPS * want);
      expect(p[String(42 - k)]).toBe(p[String(42 + k)]); // symmetric
      if (k < 5) expect(p[String(42 + k + 1)]! / p[String(42 + k)]!).toBeCloseTo(0.5, 14); // ratio r
    }
    const near = [1, 2, 3, 4, 5].reduce((s, k) => s + p[String(42 + k)]! + p[String(42 - k)]!, 0);
    // 10 terms, each within 4 ulps, summed with 10 roundings: 20·eps is ample
    expect(Math.abs(near - 0.4)).toBeLessThanOrEqual(20 * EPS);
    const tail = keys.filter((a) => Math.abs(Number(a) - 42) > 5);
    expect(tail).toHaveLength(60);
    for (const a of tail) {
      expect(p[a]).toBeCloseTo(0.005, 15);
      expect(Number.isInteger(Number(a))).toBe(true);
    }
    // the mode is 42, unique, well above the likeliest wrong answer (off by one, 0.103)
    const others = keys.filter((a) => a !== '42').map((a) => p[a]!);
    expect(Math.max(...others)).toBeLessThan(0.3 / 2.5);
    // total 1: 71 additions of numbers <= 1, each rounding by at most eps/2
    expect(Math.abs(Object.values(p).reduce((s, x) => s + x, 0) - 1)).toBeLessThanOrEqual(71 * EPS);
  });

  it('numericNearMissDistribution: ratio 1 spreads the near misses evenly; bad parameters are named', () => {
    const d = numericNearMissDistribution({
      correct: -3,
      p: 0.5,
      nearMiss: 0.2,
      ratio: 1,
      maxOffset: 2,
      tailAnswers: 3,
    });
    // (1 − p − q)/M = 0.3/3 rounds to 0.09999999999999999: compare within an ulp of each value
    const want: Record<string, number> = {
      '-3': 0.5,
      '-4': 0.05,
      '-2': 0.05,
      '-5': 0.05,
      '-1': 0.05,
      '3': 0.1,
      '6': 0.1,
      '9': 0.1,
    };
    expect(Object.keys(d.probabilities).sort()).toEqual(Object.keys(want).sort());
    for (const [a, x] of Object.entries(want))
      expect(Math.abs(d.probabilities[a]! - x), a).toBeLessThanOrEqual(EPS * x);
    const base = { correct: 1, p: 0.3, nearMiss: 0.4, ratio: 0.5, maxOffset: 3, tailAnswers: 10 };
    expect(() => numericNearMissDistribution({ ...base, p: 0.1 })).toThrow(/^p = 0\.1: must exceed every other/);
    expect(() => numericNearMissDistribution({ ...base, nearMiss: 0.8 })).toThrow(/^nearMiss = 0\.8/);
    expect(() => numericNearMissDistribution({ ...base, ratio: 0 })).toThrow(/^ratio = 0/);
    expect(() => numericNearMissDistribution({ ...base, maxOffset: 0 })).toThrow(/^maxOffset = 0/);
    expect(() => numericNearMissDistribution({ ...base, correct: 1.5 })).toThrow(/^correct = 1\.5/);
    // a distribution whose probabilities are all 0 is refused by name, not as a NaN draw
    expect(() => syntheticAnswers({ name: 'zero', probabilities: { a: 0 } }, { count: 1, seed: 1 })).toThrow(
      /^distribution = "zero": has probabilities summing to 0/,
    );
  });
});

describe('sampling from the shapes', () => {
  it('is deterministic for a seed and changes with it', () => {
    for (const d of SYNTHETIC_DISTRIBUTIONS) {
      const a = syntheticAnswers(d, { count: 200, seed: 7 });
      expect(syntheticAnswers(d, { count: 200, seed: 7 })).toEqual(a);
      expect(syntheticAnswers(d, { count: 200, seed: 8 })).not.toEqual(a);
    }
    const opts = { streams: 20, maxSteps: 60, seed: 3 };
    expect(falseStopTrial({ name: 'order-gap', params: {} }, numeric, opts)).toEqual(
      falseStopTrial({ name: 'order-gap', params: {} }, numeric, opts),
    );
  });

  // Each answer's count in n independent draws is Bin(n, p_a). The test accepts a count in
  // [n − U(n, 1 − p_a, α), U(n, p_a, α)] with U = binomialUpperQuantile, so a sampler that draws
  // from the stated distribution falls outside with probability at most 2α per cell; α =
  // 1e-6 / (2 · cells) (Bonferroni over every cell of every shape, the numeric shape's aggregated
  // cells included: about 100) bounds the chance of any false alarm by 1e-6 for a seed picked at
  // random. The seed is fixed, so the test is deterministic. With n = 5000 the accepted band is
  // about ±5.7 standard deviations: ±4.1 points at p = 1/2, ±3.7 at 0.30, ±2.5 at the off-by-one
  // 0.103, [0.06%, 1.16%] at a tail answer's 0.005. So it catches a sampler that draws the wrong
  // shape — near misses spread evenly (±1 band 0.08 instead of 0.206), all on one side (+1 at
  // 0.206 instead of 0.103), the mode or a two-way split off by 5 points — not a shift of a point.
  it('every answer (and the numeric shape’s near-miss bands and tail) appears as often as its probability says', () => {
    const n = 5000;
    const cells: Array<{ what: string; p: number; count: number }> = [];
    SYNTHETIC_DISTRIBUTIONS.forEach((d, i) => {
      const drawn = syntheticAnswers(d, { count: n, seed: 1000 + i });
      const counts = new Map<string, number>();
      for (const a of drawn) counts.set(a, (counts.get(a) ?? 0) + 1);
      expect([...counts.keys()].every((a) => Object.hasOwn(d.probabilities, a))).toBe(true);
      for (const [a, p] of Object.entries(d.probabilities))
        cells.push({ what: `${d.name}: ${a === EMPTY_ANSWER ? '(empty)' : a}`, p, count: counts.get(a) ?? 0 });
      if (d === numeric) {
        const band = (k: number) => (counts.get(String(42 + k)) ?? 0) + (counts.get(String(42 - k)) ?? 0);
        for (let k = 1; k <= 5; k++)
          cells.push({ what: `numeric ±${k}`, p: (0.4 * 0.5 ** k) / (1 - 0.5 ** 5), count: band(k) });
        const far = drawn.filter((a) => Math.abs(Number(a) - 42) > 5).length;
        cells.push({ what: 'numeric tail', p: 0.3, count: far });
      }
    });
    const alpha = 1e-6 / (2 * cells.length);
    for (const c of cells) {
      const high = binomialUpperQuantile(n, c.p, alpha);
      const low = n - binomialUpperQuantile(n, 1 - c.p, alpha);
      expect(c.count, `${c.what}: ${c.count} of ${n}, p = ${c.p}, accepted [${low}, ${high}]`).toBeGreaterThanOrEqual(
        low,
      );
      expect(c.count, `${c.what}: ${c.count} of ${n}, p = ${c.p}, accepted [${low}, ${high}]`).toBeLessThanOrEqual(
        high,
      );
    }
  });

  it('binomialUpperQuantile starting at the median is still the smallest q with P(Bin(n, p) > q) <= α', () => {
    for (const [n, p, alpha] of [
      [10_000, 0.3, 1e-8],
      [10_000, 0.995, 1e-8],
      [1000, 0.5, 0.49],
      [7, 0.9, 0.3],
    ] as const) {
      const q = binomialUpperQuantile(n, p, alpha);
      if (q < n) expect(betaTailInt(q + 1, n - q, p).below).toBeLessThanOrEqual(alpha);
      if (q > 0) expect(betaTailInt(q, n - q + 1, p).below).toBeGreaterThan(alpha);
    }
  });
});

describe('streams of numeric answers', () => {
  it('are read by the numeric extractor: a unanimous number stops GROW at the second sample', () => {
    const r = falseStopTrial(
      { name: 'stability', params: { consecutive: 2 } },
      { name: 'seven', probabilities: { '7': 1 } },
      { streams: 5, maxSteps: 10, seed: 1 },
    );
    expect(r).toMatchObject({ criterionStops: 5, falseStops: 0, meanSamples: 2 });
    // negative numbers and the numeric shape too: the leader at a stop is one of its numbers
    const neg = falseStopTrial(
      { name: 'stability', params: { consecutive: 2 } },
      { name: 'minus', probabilities: { '-3': 0.9, '4': 0.1 } },
      { streams: 50, maxSteps: 40, seed: 2 },
    );
    expect(neg.criterionStops).toBe(50);
  });

  it('several rules on shared streams give each rule’s own result', () => {
    const specs: RuleSpec[] = [
      { name: 'beta', params: {} },
      { name: 'plurality', params: {} },
      { name: 'anytime', params: { budget: 60 } },
    ];
    const opts = { streams: 30, maxSteps: 60, seed: 11 };
    expect(falseStopTrials(specs, numeric, opts)).toEqual(specs.map((s) => falseStopTrial(s, numeric, opts)));
  });

  it('mixed or non-canonical answers are refused, naming the answer', () => {
    const opts = { streams: 1, maxSteps: 1, seed: 0 };
    const rule = { name: 'beta', params: {} };
    expect(() => falseStopTrial(rule, { name: 'mixed', probabilities: { a: 0.6, '7': 0.4 } }, opts)).toThrow(
      /^distribution mixed: answer = "(a|7)": must be lower-case letters, or every answer a canonical number/,
    );
    expect(() => falseStopTrial(rule, { name: 'padded', probabilities: { '007': 0.6, '8': 0.4 } }, opts)).toThrow(
      /answer = "007"/,
    );
  });
});
