import { describe, expect, it } from 'vitest';
import { generateSyntheticSamples } from '../../scripts/generate-samples.js';
import { calibrateOnShapes, calibrateOrderGap, shapeSamples } from '../../src/lab/calibrate.js';
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

  it('on every synthetic shape at once: the cheapest grid point whose loss is not significant, and most points lose', () => {
    const set = shapeSamples(300);
    expect(set.items).toHaveLength(7 * 300);
    const c = calibrateOnShapes();
    expect(c.chosen).not.toBeNull();
    const chosen = c.candidates.find((x) => x.epsilon === c.chosen!.epsilon && x.window === c.chosen!.window)!;
    expect(chosen.notSignificant).toBe(true);
    for (const x of c.candidates) if (x.meanSamples < chosen.meanSamples) expect(x.notSignificant).toBe(false);
    // the near ties and long tails make the cheap points lose: the selection is not vacuous
    expect(c.candidates.filter((x) => !x.notSignificant).length).toBeGreaterThan(c.candidates.length / 2);
  }, 120_000);
});
