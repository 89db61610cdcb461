/**
 * Adaptive-Consistency's entropy stopping criterion (Aggarwal et al. 2023; repository
 * Pranjal2041/AdaptiveConsistency, `adaptive_consistency/stopping_criterias.py`,
 * `EntropyStoppingCriteria.should_stop`): with the counts of the k distinct answers (a phantom
 * count of 1 added when only one answer has been seen, as the repository does), stop when the
 * normalised entropy H(counts)/log2(k) <= `conf_thresh` (default 0.75), from the second sample on.
 */
import { ArgumentTypeError } from '../util/errors.js';
import { integerInRange, openInterval } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** The entropy criterion's published default threshold (`EntropyStoppingCriteria.__init__`). */
export const ENTROPY_DEFAULT_THRESHOLD = 0.75;

/**
 * The repository's statistic: the entropy of the count vector divided by log2 of its length, with
 * a count of 1 appended when there is only one count (so one answer seen n times scores the binary
 * entropy of n/(n + 1)). In [0, 1]; equal counts give 1 up to rounding. Computed as
 * Σ c_i·log(n/c_i) / (n·log k) in natural logs (the ratio of the base-2 forms); relative error a few ulps.
 * @param counts counts of the distinct answers, integers >= 1 (at least one)
 * @throws {ArgumentError} an empty list or a count that is not an integer >= 1.
 * @example
 * ```ts
 * normalisedEntropy([4]); // H(4/5, 1/5) = 0.7219 bits: four unanimous answers pass 0.75
 * normalisedEntropy([2, 1, 1]); // 1.5 / log2(3) = 0.9464
 * ```
 */
export function normalisedEntropy(counts: readonly number[]): number {
  if (!Array.isArray(counts)) throw new ArgumentTypeError('counts', counts, 'must be an array of counts');
  integerInRange('counts.length', counts.length, 1);
  counts.forEach((c, i) => integerInRange(`counts[${i}]`, c, 1));
  return normalisedEntropyUnchecked(counts);
}

function normalisedEntropyUnchecked(counts: readonly number[]): number {
  const cs = counts.length < 2 ? [...counts, 1] : counts;
  const n = cs.reduce((s, c) => s + c, 0);
  let h = 0;
  for (const c of cs) h += c * Math.log(n / c);
  return h / (n * Math.log(cs.length));
}

/** Parameters of {@link EntropyStoppingRule}. */
export interface EntropyStoppingParams {
  /** Stop when the normalised entropy is <= threshold; in (0, 1) (default 0.75). */
  threshold?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`; empty or unparseable answers are not counted (the repository counts every
 * element of its answer list). Cost O(number of distinct answers) per observation.
 * @throws {ArgumentError} threshold outside (0, 1).
 * @example
 * ```ts
 * const r = new EntropyStoppingRule();
 * ['a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop);
 * // [false, false, false, true]: H(3/4) = 0.811 > 0.75, H(4/5) = 0.722 <= 0.75
 * ```
 */
export class EntropyStoppingRule extends BaseRule {
  readonly name = 'entropy';
  readonly params: RuleParams;
  readonly #threshold: number;
  readonly #tally = new VoteTally();
  constructor(params: EntropyStoppingParams = {}) {
    checkKnownParams('entropy', params, ['threshold', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    this.#threshold = openInterval('threshold', params.threshold ?? ENTROPY_DEFAULT_THRESHOLD, 0, 1);
    this.params = Object.freeze({ threshold: this.#threshold, ...(maxSteps === undefined ? {} : { maxSteps }) });
  }
  protected decide(obs: StepObservation): StopDecision {
    this.#tally.add(obs.answer ?? null);
    if (this.#tally.valid < 2) return CONTINUE; // the repository tests from the second answer on
    const counts = this.#tally.entries().map(([, c]) => c);
    const h = normalisedEntropyUnchecked(counts);
    if (!(h <= this.#threshold)) return CONTINUE;
    return {
      stop: true,
      reason: 'criterion',
      detail: `normalised entropy of (${counts.join(', ')}) = ${h} <= ${this.#threshold}`,
    };
  }
  protected clear(): void {
    this.#tally.clear();
  }
}
