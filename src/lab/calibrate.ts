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
 *
 * Two selections run on the synthetic shapes of src/lab/syntheticStreams.ts instead (each shape
 * replayed with the extractor that reads it): the same rule on every shape at once
 * ({@link calibrateOnShapes}), and the cheapest configuration as accurate as the Beta rule on
 * every contested shape ({@link selectOnShapes}). Neither sets the default; the benchmark
 * (bench/stopping.ts) reports what their choices cost on real samples.
 */
import { createRule, type RuleSpec } from '../stopping/registry.js';
import { integerInRange } from '../util/validate.js';
import type { AnswerExtractor } from './extractors.js';
import { pairedSummary, summarizeReplay, type DifferenceInterval, type PairedSummary } from './pairedScoring.js';
import { replaySamples, type UnitRecord } from './replay.js';
import { parseSamples, type SampleSet } from './samples.js';
import {
  distributionExtractor,
  SYNTHETIC_DISTRIBUTIONS,
  syntheticAnswers,
  type SyntheticShape,
} from './syntheticStreams.js';

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

/** The order-gap configurations of a grid, window by window, ε ascending within each. */
function gridSpecs(grid: typeof ORDER_GAP_GRID): RuleSpec[] {
  const specs: RuleSpec[] = [];
  for (const window of grid.window)
    for (const epsilon of grid.epsilon) specs.push({ name: 'order-gap', params: { epsilon, window } });
  return specs;
}

/** The selection rule of the module comment on a paired summary whose rules are the baseline, then `specs`. */
function notSignificantChoice(
  specs: readonly RuleSpec[],
  summary: PairedSummary,
  run: { repeats: number; seed: number },
): Calibration {
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
    repeats: run.repeats,
    seed: run.seed,
    baselineAccuracy: summary.rules[0]!.accuracy,
    candidates,
    chosen: chosen === null ? null : { epsilon: chosen.epsilon, window: chosen.window },
  };
}

/**
 * Runs the selection rule of the module comment on a sample set.
 * Cost: one replay of |grid| + 1 rules (O(R · items · N · |grid|)).
 * @example
 * ```ts
 * // generateSyntheticSamples: scripts/generate-samples.ts (the generator of examples/samples)
 * calibrateOrderGap(parseSamples(generateSyntheticSamples(20260506, 1000))).chosen; // { epsilon: 0.03, window: 3 }
 * ```
 */
export function calibrateOrderGap(
  samples: SampleSet,
  options: { repeats?: number; seed?: number; grid?: typeof ORDER_GAP_GRID } = {},
): Calibration {
  const specs = gridSpecs(options.grid ?? ORDER_GAP_GRID);
  const result = replaySamples(samples, { rules: specs, repeats: options.repeats ?? 10, seed: options.seed ?? 0 });
  return notSignificantChoice(specs, summarizeReplay(result), result.config);
}

/**
 * The grid of {@link calibrateOnShapes} and {@link selectOnShapes}: {@link ORDER_GAP_GRID} with
 * ε = 0.015 and 0.025 added, halving the step between 0.01 and 0.03, and ε = 0.1 left out.
 */
export const SHAPE_GRID: Readonly<{ epsilon: readonly number[]; window: readonly number[] }> = Object.freeze({
  epsilon: Object.freeze([0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.05]),
  window: Object.freeze([2, 3, 4, 5]),
});

/** One synthetic shape's sample set and the extractor that reads it. */
export interface ShapeSampleSet {
  readonly shape: SyntheticShape;
  readonly samples: SampleSet;
  readonly extractor: AnswerExtractor;
}

/** Seeds of shape s are s·SHAPE_SEED_SPAN + item, so items of different shapes never share a seed. */
const SHAPE_SEED_SPAN = 100000;

/**
 * One sample set per synthetic shape (src/lab/syntheticStreams.ts, SYNTHETIC_DISTRIBUTIONS:
 * two-way, three-way, long tail, many-answer numeric, near tie, blanks, easy), with the extractor
 * that reads its answers (numeric for the numeric shape, answer-is for the others): `perShape`
 * items per shape, 40 samples each, item i of shape s (i = firstItem, …, firstItem + perShape − 1)
 * drawn with seed s·10⁵ + i, so sets with disjoint item ranges are independent draws. The correct
 * answer is the shape's mode; an empty sample is a reply without "The answer is". Deterministic.
 * @throws {ArgumentError} perShape not an integer >= 1, firstItem not an integer >= 0, or
 *   firstItem + perShape > 10⁵.
 */
export function shapeSampleSets(perShape = 300, firstItem = 0): ShapeSampleSet[] {
  integerInRange('perShape', perShape, 1, SHAPE_SEED_SPAN);
  integerInRange('firstItem', firstItem, 0, SHAPE_SEED_SPAN - perShape);
  return SYNTHETIC_DISTRIBUTIONS.map((d, s) => {
    const mode = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1])[0]![0];
    const lines: string[] = [];
    for (let i = firstItem; i < firstItem + perShape; i++) {
      const answers = syntheticAnswers(d, { count: 40, seed: s * SHAPE_SEED_SPAN + i });
      lines.push(
        JSON.stringify({
          question: `${d.shape} ${i}`,
          answer: mode,
          generated_answer: answers.map((x) => (x === '' ? 'I cannot tell.' : `The answer is ${x}.`)),
        }),
      );
    }
    return {
      shape: d.shape!,
      samples: parseSamples(lines.join('\n'), `synthetic ${d.shape} × ${perShape}`),
      extractor: distributionExtractor(d),
    };
  });
}

/** Result of {@link replayShapes}: rules in replay order (the full budget first, then the specs). */
export interface ShapeReplay {
  /** One paired summary per shape, in the order of the sets. */
  readonly shapes: ReadonlyArray<{ readonly shape: SyntheticShape; readonly summary: PairedSummary }>;
  /** The units of every shape paired together (item indices kept apart), as one summary. */
  readonly pooled: PairedSummary;
}

/**
 * Replays each shape's set with its own extractor under the same rules, repeats and seed, and
 * pairs the units per shape and over all shapes.
 * Cost: one replay of |specs| + 1 rules per shape.
 */
export function replayShapes(
  sets: readonly ShapeSampleSet[],
  specs: readonly RuleSpec[],
  options: { repeats: number; seed: number },
): ShapeReplay {
  const runs = sets.map((set) => ({
    set,
    result: replaySamples(set.samples, { rules: specs, ...options, extractor: set.extractor }),
  }));
  const pooled = runs[0]!.result.rules.map((r) => ({ spec: r.spec, label: r.label, units: [] as UnitRecord[] }));
  let offset = 0;
  for (const { set, result } of runs) {
    result.rules.forEach((r, k) => {
      for (const u of r.units) pooled[k]!.units.push({ ...u, item: u.item + offset });
    });
    offset += set.samples.items.length;
  }
  return {
    shapes: runs.map(({ set, result }) => ({ shape: set.shape, summary: summarizeReplay(result) })),
    pooled: pairedSummary(pooled),
  };
}

/**
 * The selection rule of {@link calibrateOrderGap} on every synthetic shape at once
 * ({@link shapeSampleSets}(300), {@link SHAPE_GRID}, 5 repeats, seed 0; the shapes' units paired
 * together). How the constants were fixed: the rule and seed are {@link calibrateOrderGap}'s;
 * 300 items per shape gives 2100 items, the scale of its 1000-item set; 5 repeats instead of 10
 * for time. None was tuned on a real file.
 * Cost: one replay of 28 rules over 2100 items × 5 orders.
 */
export function calibrateOnShapes(): Calibration {
  const specs = gridSpecs(SHAPE_GRID);
  const run = { repeats: 5, seed: 0 };
  return notSignificantChoice(specs, replayShapes(shapeSampleSets(300), specs, run).pooled, run);
}

/**
 * The shapes {@link selectOnShapes} selects on: the contested ones. Blanks and easy are replayed
 * and reported, not selected on.
 */
export const SELECTION_SHAPES: readonly SyntheticShape[] = Object.freeze([
  'two-way',
  'three-way',
  'long-tail',
  'numeric',
  'near-tie',
]);

/** The reference rule of {@link selectOnShapes}: Adaptive-Consistency's Beta rule at its published 0.95. */
export const SELECTION_REFERENCE: RuleSpec = Object.freeze({
  name: 'beta',
  params: Object.freeze({ threshold: 0.95 }),
});

/**
 * Accuracies are compared as equal within this: a rule's accuracy is a mean over R repeats of
 * (correct units)/(units), so two different counts differ by at least 1/(R · items) (1/1500 for
 * 300 items and 5 repeats), while equal counts give the same sum in the same order and the same
 * float; 1e-9 lies between the two with margins of orders of magnitude.
 */
const ACCURACY_TIE = 1e-9;

/** One rule's paired figures on one shape, against the full budget of the same units. */
export interface ShapeFigures {
  readonly shape: SyntheticShape;
  /** Accuracy − the full budget's accuracy (a fraction: −0.001 is −0.1 points). */
  readonly accuracyChange: number;
  readonly meanSamples: number;
  /** Share of units whose answer differs from the full-budget vote (null: no vote had an answer). */
  readonly falseStopRate: number | null;
}

/** Rule k's (replay order: 0 is the full budget) {@link ShapeFigures} on every shape of a replay. */
export function shapeFigures(replay: ShapeReplay, k: number): ShapeFigures[] {
  return replay.shapes.map(({ shape, summary }) => {
    const r = summary.rules[k]!;
    return { shape, accuracyChange: r.accuracyChange, meanSamples: r.meanSamples, falseStopRate: r.falseStopRate };
  });
}

/** Mean over {@link SELECTION_SHAPES} of the per-shape mean samples (equal item counts: the pooled mean). */
function selectionMeanSamples(figures: readonly ShapeFigures[]): number {
  const on = figures.filter((f) => SELECTION_SHAPES.includes(f.shape));
  return on.reduce((s, f) => s + f.meanSamples, 0) / on.length;
}

/** One grid point of {@link selectOnShapes}. */
export interface ShapeSelectionCandidate {
  readonly epsilon: number;
  readonly window: number;
  readonly label: string;
  /** Its figures on every shape (the selection shapes and the reported ones). */
  readonly shapes: readonly ShapeFigures[];
  /** Mean samples over the selection shapes. */
  readonly meanSamples: number;
  /** On every selection shape, its accuracy change is at least the reference's. */
  readonly qualifies: boolean;
}

/** Result of {@link selectOnShapes}. */
export interface ShapeSelection {
  readonly perShape: number;
  readonly repeats: number;
  readonly seed: number;
  readonly selectionShapes: readonly SyntheticShape[];
  /** The reference rule's label, figures on every shape and mean samples over the selection shapes. */
  readonly reference: {
    readonly label: string;
    readonly shapes: readonly ShapeFigures[];
    readonly meanSamples: number;
  };
  readonly candidates: readonly ShapeSelectionCandidate[];
  /** The cheapest qualifying candidate (null when none qualifies). */
  readonly chosen: { epsilon: number; window: number } | null;
}

/**
 * The order-gap vote configuration chosen on synthetic shapes against a reference rule: replay
 * every (ε, w) of the grid and {@link SELECTION_REFERENCE} on the same orders of
 * {@link shapeSampleSets}(perShape); a configuration qualifies when, on every one of
 * {@link SELECTION_SHAPES} (two-way, three-way, long tail, many-answer numeric, near tie), its
 * paired accuracy change to the full budget is at least the reference's (ties within
 * 1e-9, see ACCURACY_TIE); choose the qualifying configuration with the fewest mean samples over
 * those shapes (ties: the first in grid order). The statement: as accurate as the Beta rule on
 * every contested shape, then as cheap as possible. λ of the vote-state system stays 1/2: on a
 * sample that leaves the plurality alone Ω is (1 − λ)·u·‖1_e − v‖, so λ there only rescales ε,
 * which the grid already spans, and a sample that moves a strict plurality gives Ω >= λ/√2 − (1 − λ)·u·√2,
 * above every ε of the grid for λ = 1/2 after three answered samples.
 * How the constants were fixed: the reference is the comparator of the cost target (the Beta rule
 * at 0.95), with no tolerance of its own; grid, items per shape, repeats and seed are
 * {@link calibrateOnShapes}'s. Nothing was tuned on a real file.
 * Cost: one replay of |grid| + 2 rules per shape (defaults: 30 rules over 2100 items × 5 orders).
 * @example
 * ```ts
 * selectOnShapes().chosen; // { epsilon: 0.01, window: 3 } (test/lab/calibrate.test.ts recomputes it)
 * ```
 */
export function selectOnShapes(
  options: { perShape?: number; repeats?: number; seed?: number; grid?: typeof SHAPE_GRID } = {},
): ShapeSelection {
  const perShape = options.perShape ?? 300;
  const run = { repeats: options.repeats ?? 5, seed: options.seed ?? 0 };
  const specs = [SELECTION_REFERENCE, ...gridSpecs(options.grid ?? SHAPE_GRID)];
  const replay = replayShapes(shapeSampleSets(perShape), specs, run);
  const refShapes = shapeFigures(replay, 1);
  const reference = {
    label: createRule(SELECTION_REFERENCE).label,
    shapes: refShapes,
    meanSamples: selectionMeanSamples(refShapes),
  };
  const candidates = specs.slice(1).map((spec, j): ShapeSelectionCandidate => {
    const shapes = shapeFigures(replay, j + 2);
    const qualifies = shapes.every(
      (f, i) => !SELECTION_SHAPES.includes(f.shape) || f.accuracyChange >= refShapes[i]!.accuracyChange - ACCURACY_TIE,
    );
    return {
      epsilon: spec.params.epsilon as number,
      window: spec.params.window as number,
      label: createRule(spec).label,
      shapes,
      meanSamples: selectionMeanSamples(shapes),
      qualifies,
    };
  });
  let chosen: ShapeSelectionCandidate | null = null;
  for (const c of candidates) if (c.qualifies && (chosen === null || c.meanSamples < chosen.meanSamples)) chosen = c;
  return {
    perShape,
    ...run,
    selectionShapes: SELECTION_SHAPES,
    reference,
    candidates,
    chosen: chosen === null ? null : { epsilon: chosen.epsilon, window: chosen.window },
  };
}
