import { describe, expect, it } from 'vitest';
import { generateSyntheticSamples } from '../../scripts/generate-samples.js';
import {
  calibrateOnShapes,
  calibrateOrderGap,
  replayShapes,
  SELECTION_SHAPES,
  selectOnShapes,
  shapeSampleSets,
} from '../../src/lab/calibrate.js';
import { parseSamples } from '../../src/lab/samples.js';
import { ORDER_GAP_DEFAULTS } from '../../src/stopping/orderGapRule.js';

describe('the order-gap default', () => {
  it('is the cheapest grid point whose paired loss is not significant on 1000 synthetic items', () => {
    const c = calibrateOrderGap(parseSamples(generateSyntheticSamples(20260506, 1000), 'synthetic-1000'));
    expect(c.chosen).toEqual({ ...ORDER_GAP_DEFAULTS });
    // the rule, checked on its own output: the choice qualifies and nothing cheaper does
    const chosen = c.candidates.find((x) => x.epsilon === c.chosen!.epsilon && x.window === c.chosen!.window)!;
    expect(chosen.accuracyDifference!.high).toBeGreaterThanOrEqual(0);
    for (const x of c.candidates) if (x.meanSamples < chosen.meanSamples) expect(x.notSignificant).toBe(false);
    // and the selection is not vacuous: some grid points do lose significantly
    expect(c.candidates.some((x) => !x.notSignificant)).toBe(true);
  }, 120_000);

  it('every synthetic shape is replayed with its own extractor, so no shape is dropped from the pairing', () => {
    const sets = shapeSampleSets(20);
    expect(sets.map((x) => x.shape)).toEqual([
      'two-way',
      'three-way',
      'long-tail',
      'numeric',
      'near-tie',
      'blanks',
      'easy',
    ]);
    expect(sets.find((x) => x.shape === 'numeric')!.extractor.name).toBe('numeric');
    const r = replayShapes(sets, [{ name: 'order-gap', params: {} }], { repeats: 2, seed: 0 });
    // read by the answer-is extractor the numeric gold "42" is unusable and its 40 units unresolved
    expect(r.pooled.droppedUnits).toBe(0);
    expect(r.pooled.pairedUnits).toBe(7 * 20 * 2);
    for (const { summary } of r.shapes) expect(summary.pairedUnits).toBe(20 * 2);
    // disjoint item ranges are different draws
    const later = shapeSampleSets(20, 20);
    expect(later[0]!.samples.items[0]!.samples).not.toEqual(sets[0]!.samples.items[0]!.samples);
  });

  it('on every synthetic shape at once: the cheapest grid point whose loss is not significant, and most points lose', () => {
    const c = calibrateOnShapes();
    expect(c.chosen).not.toBeNull();
    const chosen = c.candidates.find((x) => x.epsilon === c.chosen!.epsilon && x.window === c.chosen!.window)!;
    expect(chosen.notSignificant).toBe(true);
    for (const x of c.candidates) if (x.meanSamples < chosen.meanSamples) expect(x.notSignificant).toBe(false);
    // the near ties and long tails make the cheap points lose: the selection is not vacuous
    expect(c.candidates.filter((x) => !x.notSignificant).length).toBeGreaterThan(c.candidates.length / 2);
  }, 120_000);

  it('against the Beta rule: the cheapest grid point at least as accurate as beta(0.95) on every contested shape', () => {
    const s = selectOnShapes();
    expect(s.selectionShapes).toEqual(SELECTION_SHAPES);
    expect(s.reference.label).toBe('beta(threshold=0.95, minSamples=1)');
    expect(s.chosen).not.toBeNull();
    // the rule recomputed from the figures: qualifying means no contested shape below the Beta rule
    const atLeastBeta = (x: (typeof s.candidates)[number]) =>
      x.shapes.every(
        (f, i) =>
          !SELECTION_SHAPES.includes(f.shape) || f.accuracyChange >= s.reference.shapes[i]!.accuracyChange - 1e-9,
      );
    for (const x of s.candidates) expect(x.qualifies).toBe(atLeastBeta(x));
    const chosen = s.candidates.find((x) => x.epsilon === s.chosen!.epsilon && x.window === s.chosen!.window)!;
    expect(chosen.qualifies).toBe(true);
    for (const x of s.candidates) if (x.meanSamples < chosen.meanSamples) expect(x.qualifies).toBe(false);
    // mean samples are over the five contested shapes only
    const contested = chosen.shapes.filter((f) => SELECTION_SHAPES.includes(f.shape));
    expect(contested).toHaveLength(5);
    expect(chosen.meanSamples).toBeCloseTo(contested.reduce((a, f) => a + f.meanSamples, 0) / 5, 12);
    // not vacuous: cheaper grid points exist and all of them lose to the Beta rule somewhere
    expect(s.candidates.filter((x) => x.meanSamples < chosen.meanSamples).length).toBeGreaterThan(0);
    expect(s.chosen).toEqual({ epsilon: 0.01, window: 3 });
  }, 120_000);
});
