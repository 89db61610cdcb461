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
import { parseSamples, type SampleSet } from './samples.js';
import { SYNTHETIC_DISTRIBUTIONS, syntheticAnswers } from './syntheticStreams.js';

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

/**
 * The grid of {@link calibrateOnShapes}: {@link ORDER_GAP_GRID} with ε = 0.015 and 0.025 added,
 * halving the step between 0.01 and 0.03.
 */
export const SHAPE_GRID: Readonly<{ epsilon: readonly number[]; window: readonly number[] }> = Object.freeze({
  epsilon: Object.freeze([0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.05]),
  window: Object.freeze([2, 3, 4, 5]),
});

/**
 * A sample set of every synthetic shape (src/lab/syntheticStreams.ts, SYNTHETIC_DISTRIBUTIONS:
 * two-way, three-way, long tail, numeric near misses, near tie, blanks, easy): `perShape` items
 * per shape, 40 samples each, item i of shape s drawn with seed s·10⁵ + i; the correct answer
 * is the shape's mode, an empty sample is a reply without "The answer is". Deterministic.
 */
export function shapeSamples(perShape = 300): SampleSet {
  const lines: string[] = [];
  SYNTHETIC_DISTRIBUTIONS.forEach((d, s) => {
    const mode = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1])[0]![0];
    for (let i = 0; i < perShape; i++) {
      const answers = syntheticAnswers(d, { count: 40, seed: s * 100000 + i });
      lines.push(
        JSON.stringify({
          question: `${d.shape} ${i}`,
          answer: mode,
          generated_answer: answers.map((x) => (x === '' ? 'I cannot tell.' : `The answer is ${x}.`)),
        }),
      );
    }
  });
  return parseSamples(lines.join('\n'), `synthetic shapes × ${perShape}`);
}

/**
 * The selection rule of {@link calibrateOrderGap} on every synthetic shape at once
 * ({@link shapeSamples}(300), {@link SHAPE_GRID}, 5 repeats, seed 0): the order-gap vote
 * configuration a user would choose without real data, from shapes that include the hard ones
 * (near ties, many-answer numeric). How the constants were fixed: the rule and seed are
 * {@link calibrateOrderGap}'s; 300 items per shape gives 2100 items, the scale of its 1000-item
 * set; 5 repeats instead of 10 for time. None was tuned on a real file (the choice this makes is
 * in bench/results/stopping.json, `shapeCalibration`, with what it costs on the shared file).
 * Cost: one replay of 28 rules over 2100 items × 5 orders.
 */
export function calibrateOnShapes(): Calibration {
  return calibrateOrderGap(shapeSamples(300), { grid: SHAPE_GRID, repeats: 5, seed: 0 });
}
