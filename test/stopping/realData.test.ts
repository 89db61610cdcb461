import { describe, expect, it } from 'vitest';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from '../../bench/_data.js';
import { compareReport } from '../../src/report/compare.js';

// ESC's released GPT-3.5-turbo samples for Last Letters live outside the package
// (../shared/data; bench/_data.ts says where they are looked for). Without them these tests are
// skipped, and the skip says why.
const file = sharedDataFile(ESC_LAST_LETTERS);
if (file === null) console.warn(`test/stopping/realData.test.ts: skipped, ${absentMessage(ESC_LAST_LETTERS)}`);
const title = file === null ? `real samples (skipped: ${absentMessage(ESC_LAST_LETTERS)})` : 'real samples';

describe.skipIf(file === null)(title, () => {
  it('the default comparison on the ESC Last Letters file: the full budget agrees with itself, the anytime rule keeps δ', async () => {
    const r = await compareReport({ samples: file!, repeats: 3, seed: 1 });
    expect(r.items).toBe(500);
    const rules = r.summary.rules;
    const full = rules[0]!;
    // the file has items whose 40 samples hold no readable answer: they are left out of agreement
    expect(full.noAnswer).toBeGreaterThan(0);
    expect(full.agreement).toBe(1);
    expect(full.agreementUnits).toBe(r.summary.pairedUnits - full.noAnswer);
    const anytime = rules.find((x) => x.name === 'anytime')!;
    // the guarantee (samples in random order from a fixed pool): P(stop on a non-majority answer) <= δ per unit
    expect(anytime.falseStopRate).toBeLessThanOrEqual(0.05);
    expect(anytime.meanSamples).toBeLessThan(40);
    // every rule of the default comparison ran, the order-gap rule at its default
    expect(rules.map((x) => x.name)).toEqual(
      expect.arrayContaining(['fixed-budget', 'order-gap', 'beta', 'plurality', 'anytime', 'patience']),
    );
    expect(rules.find((x) => x.name === 'order-gap')!.label).toBe('order-gap(epsilon=0.03, window=3)');
  }, 120_000);
});
