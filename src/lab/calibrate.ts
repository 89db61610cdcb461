/**
 * How the order-gap rule's default configuration is chosen, as a computation anyone can repeat:
 * replay a sample file under every (ε, w) of a fixed grid, paired with the full budget, and take
 * the cheapest configuration (fewest mean samples) whose paired 95% interval for the accuracy
 * difference to the full budget reaches 0 — the cheapest setting whose accuracy loss is not
 * significant. The package's default (ORDER_GAP_DEFAULTS in src/stopping/orderGapRule.ts) is
 * this choice on synthetic samples only — the generator of examples/samples/synthetic.jsonl
 * (scripts/generate-samples.ts, seed 20260506) at 1000 items × 40 samples, 10 repeats, seed 0 —
 * never on real data; test/lab/calibrate.test.ts recomputes it. (On the 60-item example file
 * itself every interval reaches 0 and the rule would pick the most aggressive point: 58 items
 * are too few to detect a loss, which is why the choice uses 1000.)
 */
import { createRule, type RuleSpec } from '../stopping/registry.js';
import { pairedSummary, type DifferenceInterval } from './pairedScoring.js';
import { replaySamples } from './replay.js';
import type { SampleSet } from './samples.js';

/** The grid the default is chosen from. */
export const ORDER_GAP_GRID: Readonly<{ epsilon: readonly number[]; window: readonly number[] }> = Object.freeze({
  epsilon: Object.freeze([0.005, 0.01, 0.02, 0.03, 0.05, 0.1]),
  window: Object.freeze([2, 3, 4, 5]),
});

/** One grid point's paired result. */
export interface CalibrationCandidate {
  readonly epsilon: number;
  readonly window: number;
  readonly label: string;
  readonly accuracy: number;
  readonly meanSamples: number;
  readonly accuracyDifference: DifferenceInterval | null;
  /** The interval reaches 0: the loss to the full budget is not significant. */
  readonly notSignificant: boolean;
}

/** Result of {@link calibrateOrderGap}. */
export interface Calibration {
  readonly repeats: number;
  readonly seed: number;
  readonly baselineAccuracy: number;
  readonly candidates: readonly CalibrationCandidate[];
  /** The cheapest candidate whose loss is not significant (null when none qualifies). */
  readonly chosen: { epsilon: number; window: number } | null;
}

/**
 * Runs the selection rule of the module comment on a sample set.
 * Cost: one replay of |grid| + 1 rules (O(R · items · N · |grid|)).
 * @example
 * ```ts
 * calibrateOrderGap(parseSamples(generateSyntheticSamples(20260506, 1000))).chosen; // { epsilon: 0.03, window: 3 }
 * ```
 */
export function calibrateOrderGap(
  samples: SampleSet,
  options: { repeats?: number; seed?: number; grid?: typeof ORDER_GAP_GRID } = {},
): Calibration {
  const grid = options.grid ?? ORDER_GAP_GRID;
  const specs: RuleSpec[] = [];
  for (const window of grid.window)
    for (const epsilon of grid.epsilon) specs.push({ name: 'order-gap', params: { epsilon, window } });
  const result = replaySamples(samples, { rules: specs, repeats: options.repeats ?? 10, seed: options.seed ?? 0 });
  const summary = pairedSummary(result.rules);
  const candidates = specs.map((spec, k): CalibrationCandidate => {
    const r = summary.rules[k + 1]!;
    const ci = r.accuracyDifference;
    return {
      epsilon: spec.params.epsilon as number,
      window: spec.params.window as number,
      label: createRule(spec).label,
      accuracy: r.accuracy,
      meanSamples: r.meanSamples,
      accuracyDifference: ci,
      notSignificant: ci !== null && ci.high >= 0,
    };
  });
  let chosen: CalibrationCandidate | null = null;
  for (const c of candidates)
    if (c.notSignificant && (chosen === null || c.meanSamples < chosen.meanSamples)) chosen = c;
  return {
    repeats: result.config.repeats,
    seed: result.config.seed,
    baselineAccuracy: summary.rules[0]!.accuracy,
    candidates,
    chosen: chosen === null ? null : { epsilon: chosen.epsilon, window: chosen.window },
  };
}
