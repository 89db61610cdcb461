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
 * exactly what it sees in a replay. Answers must be lower-case letters (what the answer-is
 * extractor keeps).
 */
import { createRng, sampleIndex } from '../ordergap/rng.js';
import { betaTailIntUnchecked } from '../stopping/betaTail.js';
import { createRule, type RuleSpec } from '../stopping/registry.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { maxOf } from '../util/arrays.js';
import { answerIsExtractor } from './extractors.js';
import { buildStream } from './observations.js';

/** An answer distribution: answer → probability; the key {@link EMPTY_ANSWER} is an empty sample. */
export interface AnswerDistribution {
  readonly name: string;
  readonly probabilities: Readonly<Record<string, number>>;
}

/** The key of an empty (answerless) sample in an {@link AnswerDistribution}. */
export const EMPTY_ANSWER = '';

/**
 * The distributions the benchmark and the test use: near ties (where early stopping goes wrong),
 * a long tail of small answers, empty samples, and an easy item.
 */
export const SYNTHETIC_DISTRIBUTIONS: readonly AnswerDistribution[] = Object.freeze([
  { name: 'two-way 0.55/0.45', probabilities: { a: 0.55, b: 0.45 } },
  { name: 'three-way 0.40/0.35/0.25', probabilities: { a: 0.4, b: 0.35, c: 0.25 } },
  {
    name: 'long tail 0.30 + 10 × 0.07',
    probabilities: Object.fromEntries([['a', 0.3], ...[...'bcdefghijk'].map((x) => [x, 0.07])]),
  },
  { name: 'blanks 0.45/0.35 + 0.20 empty', probabilities: { a: 0.45, b: 0.35, [EMPTY_ANSWER]: 0.2 } },
  { name: 'easy 0.80/0.10/0.10', probabilities: { a: 0.8, b: 0.1, c: 0.1 } },
]);

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

function modeOf(d: AnswerDistribution): { answers: string[]; p: number[]; mode: string } {
  const entries = Object.entries(d.probabilities);
  if (entries.length === 0) throw new ArgumentError('distribution', d.name, 'has no answers');
  let total = 0;
  for (const [a, p] of entries) {
    finiteNumber(`distribution ${d.name}: ${a}`, p);
    if (p < 0) throw new ArgumentError(`distribution ${d.name}: ${a}`, p, 'must be >= 0');
    total += p;
  }
  const answers = entries.map(([a]) => a);
  const p = entries.map(([, x]) => x / total);
  const ranked = entries.filter(([a]) => a !== EMPTY_ANSWER).sort((x, y) => y[1] - x[1]);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[0]![1] === ranked[1]![1]))
    throw new ArgumentError('distribution', d.name, 'must have a unique most likely answer');
  return { answers, p, mode: ranked[0]![0] };
}

/**
 * Runs `streams` independent streams of one distribution through fresh copies of a rule.
 * Deterministic for a seed. Cost: O(streams · maxSteps · the rule's cost per observation).
 * @throws {ArgumentError} bad distribution (no unique mode), streams or maxSteps not integers >= 1.
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
  const streams = integerInRange('streams', options.streams, 1, 1e7);
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1, 1e6);
  const seed = integerInRange('seed', options.seed, 0, 2 ** 32 - 1);
  const { answers, p, mode } = modeOf(distribution);
  for (const a of answers)
    if (a !== EMPTY_ANSWER && !/^[a-z]+$/.test(a))
      throw new ArgumentError(`distribution ${distribution.name}: answer`, a, 'must be lower-case letters');
  const rng = createRng(seed);
  const rule = createRule(spec);
  let criterionStops = 0;
  let falseStops = 0;
  let fullVoteFalseStops = 0;
  let samples = 0;
  for (let s = 0; s < streams; s++) {
    const texts: string[] = [];
    const counts = new Map<string, number>();
    for (let t = 0; t < maxSteps; t++) {
      const drawn = answers[sampleIndex(p, rng.next())]!;
      texts.push(drawn === EMPTY_ANSWER ? '' : `the answer is ${drawn}`);
      if (drawn !== EMPTY_ANSWER) counts.set(drawn, (counts.get(drawn) ?? 0) + 1);
    }
    const top = maxOf(counts.values(), 0);
    const item = { line: s + 1, question: distribution.name, answer: mode, samples: texts };
    const stream = buildStream(item, answerIsExtractor, {
      seed,
      repeat: s,
      itemIndex: 0,
      budget: maxSteps,
      lambda: 0.5,
    });
    rule.reset();
    for (const step of stream.steps) {
      const d = rule.observe(step.obs);
      samples++;
      if (d.stop) {
        if (d.reason !== 'budget') {
          criterionStops++;
          if (step.leader !== mode) falseStops++;
          if (step.leader === null || counts.get(step.leader) !== top) fullVoteFalseStops++;
        }
        break;
      }
    }
  }
  return {
    distribution: distribution.name,
    rule: rule.label,
    streams,
    maxSteps,
    criterionStops,
    falseStops,
    fullVoteFalseStops,
    falseStopRate: falseStops / streams,
    meanSamples: samples / streams,
  };
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
  for (let q = 0; q < n; q++) {
    if (betaTailIntUnchecked(q + 1, n - q, p).below <= alpha) return q;
  }
  return n;
}
