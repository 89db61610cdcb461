import { describe, expect, it } from 'vitest';
import { generateSyntheticSamples } from '../../scripts/generate-samples.js';
import { calibrateOrderGap } from '../../src/lab/calibrate.js';
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
});
