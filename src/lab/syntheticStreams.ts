/**
 * False stops on synthetic vote streams with a known answer: independent samples from a fixed
 * answer distribution whose most likely answer (the mode) is known, fed to a stopping rule until
 * it stops or a cap is reached. A false stop is a stop by the rule's own test (not by the cap)
 * whose plurality answer is not the mode — the event the anytime-valid rule bounds by δ
 * (src/stopping/anytimeVote.ts). {@link binomialUpperQuantile} gives the count of false stops a
 * rule that meets the bound exceeds only with a stated small probability, which is how the test
 * of that bound derives its tolerance.
 *
 * Each stream is written as completions ("the answer is a", or blank) and turned into
 * observations by the replay's own {@link buildStream} (answer, Ω of the vote-state system over the
 * distribution's answers, confidence, score), so every rule — the order-gap rule included — sees
 * exactly what it sees in a replay. Answers are either all lower-case letters (read by the
 * answer-is extractor) or all canonical numbers such as `42` or `-3` (read by the numeric
 * extractor).
 */
import { createRng, sampleIndex, type Rng } from '../ordergap/rng.js';
import { betaTailIntUnchecked } from '../stopping/betaTail.js';
import { createRule, type RuleSpec } from '../stopping/registry.js';
import type { StoppingRule } from '../stopping/rule.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { maxOf } from '../util/arrays.js';
import { answerIsExtractor, canonicalNumber, numericExtractor, type AnswerExtractor } from './extractors.js';
import { buildStream, type ObservationStream } from './observations.js';

/** What a synthetic distribution stands for (the shapes {@link SYNTHETIC_DISTRIBUTIONS} covers). */
export type SyntheticShape = 'two-way' | 'three-way' | 'long-tail' | 'numeric' | 'near-tie' | 'blanks' | 'easy';

/** An answer distribution: answer → probability; the key {@link EMPTY_ANSWER} is an empty sample. */
export interface AnswerDistribution {
  readonly name: string;
  /** The shape it stands for (documentation and coverage checks; no effect on sampling). */
  readonly shape?: SyntheticShape;
  readonly probabilities: Readonly<Record<string, number>>;
}

/** The key of an empty (answerless) sample in an {@link AnswerDistribution}. */
export const EMPTY_ANSWER = '';

/** Parameters of {@link numericNearMissDistribution}. */
export interface NumericNearMissOptions {
  /** The correct number c (an integer). */
  readonly correct: number;
  /** P(c), in (0, 1). */
  readonly p: number;
  /** Total probability q of the near misses c ± k, k = 1..maxOffset (p + q <= 1). */
  readonly nearMiss: number;
  /** Geometric ratio r in (0, 1]: P(c ± (k + 1)) = r · P(c ± k). */
  readonly ratio: number;
  /** Largest near-miss offset K, an integer >= 1. */
  readonly maxOffset: number;
  /** Number M >= 1 of distinct far wrong answers sharing the rest, 1 − p − q, equally. */
  readonly tailAnswers: number;
  /** Name of the distribution (default: built from the parameters). */
  readonly name?: string;
}

/**
 * A many-answer numeric distribution: the correct number c with probability p; near misses
 * c + k and c − k for k = 1..K with a truncated geometric tail, P(c ± k) = (q/2)·r^(k−1)·(1 − r)/(1 − r^K)
 * (r = 1: q/(2K) each), so off-by-one is the likeliest wrong answer; and a long tail of M distinct
 * wrong answers c + (j + 1)(K + 1), j = 1..M (all beyond the near-miss band), each with
 * probability (1 − p − q)/M. The probabilities sum to 1 up to rounding. Keys are canonical numbers
 * (what the numeric extractor writes).
 * @throws {ArgumentError} c not a safe integer, p outside (0, 1), q < 0 or p + q > 1, r outside
 *   (0, 1], K or M not integers >= 1, or p not above every other answer's probability (the mode must
 *   be c and unique).
 * @example
 * ```ts
 * numericNearMissDistribution({ correct: 42, p: 0.3, nearMiss: 0.4, ratio: 0.5, maxOffset: 5, tailAnswers: 60 })
 *   .probabilities['41']; // 0.1032…: (0.4/2)·(1 − 0.5)/(1 − 0.5^5)
 * ```
 */
export function numericNearMissDistribution(o: NumericNearMissOptions): AnswerDistribution {
  const c = integerInRange('correct', o.correct, -(2 ** 40), 2 ** 40);
  const p = finiteNumber('p', o.p);
  const q = finiteNumber('nearMiss', o.nearMiss);
  const r = finiteNumber('ratio', o.ratio);
  const k = integerInRange('maxOffset', o.maxOffset, 1, 1000);
  const m = integerInRange('tailAnswers', o.tailAnswers, 1, 10000);
  if (!(p > 0 && p < 1)) throw new ArgumentError('p', p, 'must lie in (0, 1)');
  if (!(q >= 0 && p + q <= 1)) throw new ArgumentError('nearMiss', q, `must lie in [0, 1 − p] = [0, ${1 - p}]`);
  if (!(r > 0 && r <= 1)) throw new ArgumentError('ratio', r, 'must lie in (0, 1]');
  const first = r === 1 ? q / (2 * k) : ((q / 2) * (1 - r)) / (1 - r ** k);
  const tail = (1 - p - q) / m;
  if (!(p > first && p > tail))
    throw new ArgumentError('p', p, `must exceed every other answer's probability (near miss ${first}, tail ${tail})`);
  const entries: Array<[string, number]> = [[String(c), p]];
  for (let j = 1; j <= k; j++) {
    const pj = first * r ** (j - 1);
    entries.push([String(c - j), pj], [String(c + j), pj]);
  }
  for (let j = 1; j <= m; j++) entries.push([String(c + (j + 1) * (k + 1)), tail]);
  return {
    name: o.name ?? `numeric ${c}: ${p} + near misses ±1..${k} ${q} (ratio ${r}) + ${m} × ${tail}`,
    shape: 'numeric',
    probabilities: Object.fromEntries(entries),
  };
}

/**
 * The distributions the benchmark and the tests use, one per shape:
 * - two-way 0.55/0.45: two answers, the mode ahead by 10 points;
 * - three-way 0.40/0.35/0.25: three answers, the runner-up 5 points behind;
 * - long tail 0.30 + 10 × 0.07: one answer at 0.30 and ten small ones;
 * - numeric near misses ({@link numericNearMissDistribution}): the correct number 42 at 0.30,
 *   off-by-k near misses ±1..5 sharing 0.40 with ratio 1/2 (±1 at 0.103 each, ±5 at 0.006
 *   each), and 60 distinct far answers at 0.005 each — 71 answers, most of them rare;
 * - near tie 0.51/0.49: two answers 2 points apart, where even the vote of 200 samples has the
 *   runner-up strictly ahead with probability 0.36 (and a tie with 0.05);
 * - blanks 0.45/0.35 + 0.20 empty: a two-way item with empty samples;
 * - easy 0.80/0.10/0.10.
 * Every one has a unique mode. Sampling from them ({@link syntheticAnswers}, {@link falseStopTrial})
 * is deterministic for a seed.
 */
export const SYNTHETIC_DISTRIBUTIONS: readonly AnswerDistribution[] = Object.freeze([
  { name: 'two-way 0.55/0.45', shape: 'two-way', probabilities: { a: 0.55, b: 0.45 } },
  { name: 'three-way 0.40/0.35/0.25', shape: 'three-way', probabilities: { a: 0.4, b: 0.35, c: 0.25 } },
  {
    name: 'long tail 0.30 + 10 × 0.07',
    shape: 'long-tail',
    probabilities: Object.fromEntries([['a', 0.3], ...[...'bcdefghijk'].map((x) => [x, 0.07])]),
  },
  numericNearMissDistribution({
    name: 'numeric 0.30 + near misses ±1..5 0.40 + 60 × 0.005',
    correct: 42,
    p: 0.3,
    nearMiss: 0.4,
    ratio: 0.5,
    maxOffset: 5,
    tailAnswers: 60,
  }),
  { name: 'near tie 0.51/0.49', shape: 'near-tie', probabilities: { a: 0.51, b: 0.49 } },
  {
    name: 'blanks 0.45/0.35 + 0.20 empty',
    shape: 'blanks',
    probabilities: { a: 0.45, b: 0.35, [EMPTY_ANSWER]: 0.2 },
  },
  { name: 'easy 0.80/0.10/0.10', shape: 'easy', probabilities: { a: 0.8, b: 0.1, c: 0.1 } },
] satisfies AnswerDistribution[]);

/** Result of {@link falseStopTrial}. */
export interface FalseStopResult {
  readonly distribution: string;
  readonly rule: string;
  readonly streams: number;
  readonly maxSteps: number;
  /** Streams the rule stopped by its own test before the cap. */
  readonly criterionStops: number;
  /** Criterion stops whose answer was not the mode. */
  readonly falseStops: number;
  /**
   * Criterion stops whose answer was not a plurality answer of all `maxSteps` samples drawn for
   * the stream (the full-budget vote) — the event the anytime-valid rule with `budget` bounds.
   */
  readonly fullVoteFalseStops: number;
  /** falseStops / streams: the estimate of P(stop on a wrong answer). */
  readonly falseStopRate: number;
  /** Mean samples drawn (cap included). */
  readonly meanSamples: number;
}

/** A validated distribution: answers, normalised probabilities, the mode and the extractor that reads it. */
interface PreparedDistribution {
  readonly answers: string[];
  readonly p: number[];
  readonly mode: string;
  readonly extractor: AnswerExtractor;
}

/**
 * The extractor that reads a distribution's answers as {@link falseStopTrial} writes them: the
 * numeric extractor when every answer is a canonical number, the answer-is extractor otherwise.
 * @throws {ArgumentError} a distribution {@link falseStopTrial} refuses.
 */
export function distributionExtractor(d: AnswerDistribution): AnswerExtractor {
  return prepare(d).extractor;
}

function prepare(d: AnswerDistribution): PreparedDistribution {
  const entries = Object.entries(d.probabilities);
  if (entries.length === 0) throw new ArgumentError('distribution', d.name, 'has no answers');
  let total = 0;
  for (const [a, p] of entries) {
    finiteNumber(`distribution ${d.name}: ${a}`, p);
    if (p < 0) throw new ArgumentError(`distribution ${d.name}: ${a}`, p, 'must be >= 0');
    total += p;
  }
  if (!(total > 0)) throw new ArgumentError('distribution', d.name, 'has probabilities summing to 0');
  const answers = entries.map(([a]) => a);
  const p = entries.map(([, x]) => x / total);
  const ranked = entries.filter(([a]) => a !== EMPTY_ANSWER).sort((x, y) => y[1] - x[1]);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[0]![1] === ranked[1]![1]))
    throw new ArgumentError('distribution', d.name, 'must have a unique most likely answer');
  const given = answers.filter((a) => a !== EMPTY_ANSWER);
  const numeric = given.every((a) => canonicalNumber(a) === a);
  if (!numeric && !given.every((a) => /^[a-z]+$/.test(a))) {
    const bad = given.find((a) => !/^[a-z]+$/.test(a) && canonicalNumber(a) !== a) ?? given[0];
    throw new ArgumentError(
      `distribution ${d.name}: answer`,
      bad,
      'must be lower-case letters, or every answer a canonical number (such as 42 or -3)',
    );
  }
  return { answers, p, mode: ranked[0]![0], extractor: numeric ? numericExtractor : answerIsExtractor };
}

function draw(d: PreparedDistribution, count: number, rng: Rng): string[] {
  const out: string[] = [];
  for (let t = 0; t < count; t++) out.push(d.answers[sampleIndex(d.p, rng.next())]!);
  return out;
}

/**
 * `count` independent answers drawn from a distribution ({@link EMPTY_ANSWER} for an empty
 * sample): the draws {@link falseStopTrial} writes into its streams, exposed so that a
 * distribution's stated probabilities can be checked against its samples. Deterministic for a
 * seed (sfc32, src/ordergap/rng.ts).
 * @throws {ArgumentError} bad distribution (see {@link falseStopTrial}), count not an integer in
 *   [1, 10^7], seed not an integer in [0, 2^32).
 * @example
 * ```ts
 * syntheticAnswers(SYNTHETIC_DISTRIBUTIONS[0], { count: 3, seed: 1 }); // ['a', 'b', 'b']
 * ```
 */
export function syntheticAnswers(distribution: AnswerDistribution, options: { count: number; seed: number }): string[] {
  const count = integerInRange('count', options.count, 1, 1e7);
  const seed = integerInRange('seed', options.seed, 0, 2 ** 32 - 1);
  return draw(prepare(distribution), count, createRng(seed));
}

/**
 * Runs `streams` independent streams of one distribution through fresh copies of a rule.
 * Deterministic for a seed. Cost: O(streams · maxSteps · the rule's cost per observation).
 * @throws {ArgumentError} bad distribution (no unique mode; answers neither all lower-case letters
 *   nor all canonical numbers), streams or maxSteps not integers >= 1.
 * @example
 * ```ts
 * falseStopTrial({ name: 'anytime', params: {} }, SYNTHETIC_DISTRIBUTIONS[0], { streams: 100, maxSteps: 200, seed: 1 }).falseStopRate; // <= 0.05 typically
 * ```
 */
export function falseStopTrial(
  spec: RuleSpec,
  distribution: AnswerDistribution,
  options: { streams: number; maxSteps: number; seed: number },
): FalseStopResult {
  return falseStopTrials([spec], distribution, options)[0]!;
}

/**
 * {@link falseStopTrial} for several rules on the same streams: each stream is drawn and turned
 * into observations once, and every rule reads it (so the rules are compared on identical
 * streams, and each result equals {@link falseStopTrial}'s for that rule alone).
 * Cost: O(streams · maxSteps · (answers seen + the rules' cost per observation)).
 * @throws {ArgumentError} as {@link falseStopTrial}; an unknown rule or bad parameters, before any
 *   stream is drawn.
 */
export function falseStopTrials(
  specs: readonly RuleSpec[],
  distribution: AnswerDistribution,
  options: { streams: number; maxSteps: number; seed: number },
): FalseStopResult[] {
  const streams = integerInRange('streams', options.streams, 1, 1e7);
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1, 1e6);
  const seed = integerInRange('seed', options.seed, 0, 2 ** 32 - 1);
  const d = prepare(distribution);
  const rules = specs.map((spec) => createRule(spec));
  const tallies = rules.map(() => ({ criterionStops: 0, falseStops: 0, fullVoteFalseStops: 0, samples: 0 }));
  const rng = createRng(seed);
  for (let s = 0; s < streams; s++) {
    const drawn = draw(d, maxSteps, rng);
    const counts = new Map<string, number>();
    for (const a of drawn) if (a !== EMPTY_ANSWER) counts.set(a, (counts.get(a) ?? 0) + 1);
    const top = maxOf(counts.values(), 0);
    const texts = drawn.map((a) => (a === EMPTY_ANSWER ? '' : `the answer is ${a}`));
    const item = { line: s + 1, question: distribution.name, answer: d.mode, samples: texts };
    const stream = buildStream(item, d.extractor, { seed, repeat: s, itemIndex: 0, budget: maxSteps, lambda: 0.5 });
    rules.forEach((rule, k) => {
      const tally = tallies[k]!;
      const leader = runToStop(rule, stream.steps, tally);
      if (leader === undefined) return;
      tally.criterionStops++;
      if (leader !== d.mode) tally.falseStops++;
      if (leader === null || counts.get(leader) !== top) tally.fullVoteFalseStops++;
    });
  }
  return rules.map((rule, k) => {
    const { samples, ...stops } = tallies[k]!;
    return {
      distribution: distribution.name,
      rule: rule.label,
      streams,
      maxSteps,
      ...stops,
      falseStopRate: stops.falseStops / streams,
      meanSamples: samples / streams,
    };
  });
}

/**
 * Feeds a stream to a fresh state of `rule`, adding the samples it reads to `tally.samples`;
 * returns the plurality answer at a stop by the rule's own test, or undefined when the rule did
 * not stop by its test (the cap, or the end of the stream).
 */
function runToStop(
  rule: StoppingRule,
  steps: ObservationStream['steps'],
  tally: { samples: number },
): string | null | undefined {
  rule.reset();
  for (const step of steps) {
    const d = rule.observe(step.obs);
    tally.samples++;
    if (d.stop) return d.reason === 'budget' ? undefined : step.leader;
  }
  return undefined;
}

/**
 * The smallest count q with P(Bin(n, p) > q) <= alpha: a rule whose false-stop probability is at
 * most p per stream exceeds q false stops in n independent streams with probability at most
 * alpha. Uses P(Bin(n, p) >= q + 1) = P(Beta(q + 1, n − q) <= p) (src/stopping/betaTail.ts).
 * @throws {ArgumentError} n not an integer >= 1, p or alpha outside (0, 1).
 * @example
 * ```ts
 * binomialUpperQuantile(100, 0.05, 0.05); // 9: P(Bin(100, 0.05) >= 10) = 0.028, P(>= 9) = 0.063
 * ```
 */
export function binomialUpperQuantile(n: number, p: number, alpha: number): number {
  integerInRange('n', n, 1, 1e7);
  finiteNumber('p', p);
  finiteNumber('alpha', alpha);
  if (!(p > 0 && p < 1)) throw new ArgumentError('p', p, 'must lie in (0, 1)');
  if (!(alpha > 0 && alpha < 1)) throw new ArgumentError('alpha', alpha, 'must lie in (0, 1)');
  // below the median (>= floor(n·p)) the tail P(Bin >= q + 1) is >= 1/2, so for alpha < 1/2 the
  // answer is at least floor(n·p) − 1 and the scan starts there (O(√n) steps instead of O(n·p))
  const start = alpha < 0.5 ? Math.max(0, Math.floor(n * p) - 1) : 0;
  for (let q = start; q < n; q++) {
    if (betaTailIntUnchecked(q + 1, n - q, p).below <= alpha) return q;
  }
  return n;
}
