/**
 * Replay of recorded samples under several stopping rules. For each repeat r = 0..R−1 and each
 * item, the item's samples are put in a seeded order ({@link unitSeed}; the same order for every
 * rule), a fresh rule observes them one by one, and the run ends when the rule stops, when the
 * budget N is reached (`'budget'`), when the item has no more samples (`'evidence-exhausted'`), or at a
 * transport failure (`'transport-failure'`: the unit is unresolved for that rule). The answer is
 * always the plurality of the answered samples seen (the same aggregator for every rule, so
 * rules differ only in when they stop); it is null — "no answer", counted apart from wrong —
 * when no sample seen had an answer. Reaching any cap is a normal stop, never an error.
 *
 * The fixed-budget rule at N is always part of a replay (first, wherever the rules name it): it is the
 * baseline that "samples saved" and "accuracy change" refer to, and its answer over the whole
 * stream is the full-budget majority vote.
 */
import { createRule, type RuleSpec } from '../stopping/registry.js';
import type { StopReason, StoppingRule } from '../stopping/rule.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { answerIsExtractor, type AnswerExtractor } from './extractors.js';
import { buildStream, prepareItem, type ObservationStream } from './observations.js';
import type { SampleSet } from './samples.js';

/** How a unit run ended (the package's one {@link StopReason} vocabulary). */
export type UnitStopReason = StopReason;

/** How a unit is scored. */
export type UnitOutcome = 'correct' | 'wrong' | 'no-answer' | 'unresolved';

/** The per-(item, repeat) record of one rule: enough to recompute every figure. */
export interface UnitRecord {
  /** Index of the item in the sample set. */
  readonly item: number;
  /** Its line in the file. */
  readonly line: number;
  readonly repeat: number;
  /** Samples consumed (including empty and unparseable ones). */
  readonly samplesUsed: number;
  readonly stopReason: UnitStopReason;
  readonly detail: string;
  /** The plurality answer at the stop (null: no answered sample). */
  readonly answer: string | null;
  /** The normalised gold answer (null: unusable gold — the unit is unresolved). */
  readonly gold: string | null;
  readonly outcome: UnitOutcome;
  /** Blank samples consumed. */
  readonly emptySamples: number;
  /** Samples with text but no readable answer. */
  readonly unparseableSamples: number;
  /** The plurality over the full budget in the same order (null when unavailable). */
  readonly fullMajority: string | null;
}

/** Options of {@link replaySamples}. */
export interface ReplayOptions {
  /** The rule configurations to compare. */
  rules: readonly RuleSpec[];
  /** R >= 1 repeats with different orders (default 10). */
  repeats?: number;
  /** Seed (integer in [0, 2^32); default 0). */
  seed?: number;
  /** N >= 1: at most N samples per item (default: the largest number of samples of any item). */
  budget?: number;
  /** Answer extractor (default: the built-in "the answer is" extractor). */
  extractor?: AnswerExtractor;
  /** Consolidation strength λ of the vote-state system (default 1/2). */
  lambda?: number;
}

/** The validated configuration a replay ran with (what a run record stores). */
export interface ReplayConfig {
  readonly rules: readonly RuleSpec[];
  readonly repeats: number;
  readonly seed: number;
  readonly budget: number;
  readonly extractor: string;
  readonly lambda: number;
}

/** Result of {@link replaySamples}. */
export interface ReplayResult {
  readonly config: ReplayConfig;
  readonly source: string;
  readonly sha256: string;
  readonly itemCount: number;
  /** One entry per rule, in config order (the baseline first). */
  readonly rules: ReadonlyArray<{
    readonly spec: RuleSpec;
    readonly label: string;
    readonly units: readonly UnitRecord[];
  }>;
}

/** The baseline spec for budget N. */
export function baselineSpec(budget: number): RuleSpec {
  return { name: 'fixed-budget', params: { budget } };
}

/** Validates replay options against a sample set; fills defaults; builds every rule once to check it. */
export function validateReplayOptions(samples: SampleSet, options: ReplayOptions): ReplayConfig {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  if (!Array.isArray(options.rules))
    throw new ArgumentTypeError('rules', options.rules, 'must be an array of {name, params}');
  const repeats = integerInRange('repeats', options.repeats ?? 10, 1, 100000);
  const seed = integerInRange('seed', options.seed ?? 0, 0, 2 ** 32 - 1);
  const maxSamples = samples.items.reduce((m, i) => Math.max(m, i.samples.length), 0);
  const budget = integerInRange('budget', options.budget ?? maxSamples, 1);
  const lambda = finiteNumber('lambda', options.lambda ?? 0.5);
  if (!(lambda > 0 && lambda <= 1)) throw new ArgumentError('lambda', lambda, 'must lie in (0, 1]');
  const extractor = options.extractor ?? answerIsExtractor;
  // the baseline first whatever the list's order; a configuration the list names again (the
  // baseline itself included) runs once, where it first stands. Configurations are compared by
  // label, which lists every parameter with defaults filled in, in the rule's own order: `beta`
  // and `beta:threshold=0.95` are one configuration, whatever order the parameters came in
  const base = baselineSpec(budget);
  const rules: RuleSpec[] = [base];
  const labels = new Set([createRule(base).label]);
  options.rules.forEach((r, i) => {
    let label: string;
    try {
      label = createRule(r).label;
    } catch (e) {
      if (e instanceof Error) e.message = `rules[${i}]: ${e.message}`;
      throw e;
    }
    if (labels.has(label)) return;
    labels.add(label);
    rules.push({ name: r.name, params: { ...r.params } });
  });
  return { rules, repeats, seed, budget, extractor: extractor.name, lambda };
}

/**
 * Runs one rule over one stream (see the module comment). A rule given as a built instance is
 * reset first, so one instance serves every unit (reset leaves a rule deciding as a fresh one:
 * test/stopping/rules.test.ts).
 */
export function runUnit(
  ruleOrSpec: RuleSpec | StoppingRule,
  stream: ObservationStream,
  meta: { item: number; line: number; repeat: number; gold: string | null; budget: number; available: number },
): UnitRecord {
  const rule = 'observe' in ruleOrSpec ? ruleOrSpec : createRule(ruleOrSpec);
  rule.reset();
  let used = 0;
  let reason: UnitStopReason | null = null;
  let detail = '';
  for (const step of stream.steps) {
    used = step.obs.t;
    const d = rule.observe(step.obs);
    if (d.stop) {
      reason = d.reason as UnitStopReason;
      detail = d.detail;
      break;
    }
  }
  if (reason === null) {
    if (stream.failureAt !== null) {
      used = stream.failureAt;
      reason = 'transport-failure';
      detail = `sample at step ${stream.failureAt} is a transport failure (null)`;
    } else if (used >= meta.budget) {
      reason = 'budget';
      detail = `budget N = ${meta.budget} reached`;
    } else {
      reason = 'evidence-exhausted';
      detail = `the item has ${meta.available} samples`;
    }
  }
  // the steps the rule saw: the first `used` (the failed one excluded)
  const seen = reason === 'transport-failure' ? used - 1 : used;
  const answer = seen > 0 ? stream.steps[seen - 1]!.leader : null;
  let emptySamples = 0;
  let unparseableSamples = 0;
  for (let i = 0; i < seen; i++) {
    const kind = stream.steps[i]!.kind;
    if (kind === 'empty') emptySamples++;
    else if (kind === 'unparseable') unparseableSamples++;
  }
  const full = stream.failureAt === null && stream.steps.length ? stream.steps[stream.steps.length - 1]!.leader : null;
  let outcome: UnitOutcome;
  if (reason === 'transport-failure' || meta.gold === null) outcome = 'unresolved';
  else if (answer === null) outcome = 'no-answer';
  else outcome = answer === meta.gold ? 'correct' : 'wrong';
  return {
    item: meta.item,
    line: meta.line,
    repeat: meta.repeat,
    samplesUsed: used,
    stopReason: reason,
    detail,
    answer,
    gold: meta.gold,
    outcome,
    emptySamples,
    unparseableSamples,
    fullMajority: full,
  };
}

/**
 * Replays every rule on every item, R times. Deterministic: the same samples, options and seed
 * give the identical result.
 * Cost: O(R · items · N · K) for the streams plus O(R · items · N · rules) for the rules.
 * @throws {ArgumentError} bad options (nothing runs).
 * @example
 * ```ts
 * const r = replaySamples(await loadSamples('examples/samples/synthetic.jsonl'), {
 *   rules: [{ name: 'beta', params: { threshold: 0.95 } }], repeats: 5, seed: 1,
 * });
 * summarizeReplay(r).rules[1].meanSamples; // mean samples the Beta rule used
 * ```
 */
export function replaySamples(samples: SampleSet, options: ReplayOptions): ReplayResult {
  const config = validateReplayOptions(samples, options);
  const extractor = options.extractor ?? answerIsExtractor;
  const golds = samples.items.map((it) => extractor.normalizeGold(it.answer));
  const units: UnitRecord[][] = config.rules.map(() => []);
  const prepared = samples.items.map((item) => prepareItem(item, extractor, config.lambda));
  const rules = config.rules.map((spec) => createRule(spec));
  for (let repeat = 0; repeat < config.repeats; repeat++) {
    samples.items.forEach((item, itemIndex) => {
      const stream = buildStream(
        item,
        extractor,
        { seed: config.seed, repeat, itemIndex, budget: config.budget, lambda: config.lambda },
        prepared[itemIndex],
      );
      const meta = {
        item: itemIndex,
        line: item.line,
        repeat,
        gold: golds[itemIndex]!,
        budget: config.budget,
        available: item.samples.length,
      };
      rules.forEach((rule, k) => units[k]!.push(runUnit(rule, stream, meta)));
    });
  }
  return {
    config,
    source: samples.source,
    sha256: samples.sha256,
    itemCount: samples.items.length,
    rules: config.rules.map((spec, k) => ({ spec, label: rules[k]!.label, units: units[k]! })),
  };
}
