/**
 * The Beta stopping rule (Adaptive-Consistency, Aggarwal et al. 2023): after each sample, with
 * v1 >= v2 the counts of the two leading answers, stop when
 * P(p1 > p2 | v1, v2) = P(Beta(v1 + 1, v2 + 1) > 1/2) >= threshold
 * (uniform prior on the two leading shares). The probability is computed exactly from the
 * binomial identity in {@link leaderProbability}; the decision compares the complement
 * P(p1 <= p2) <= 1 − threshold, both sides computed without cancellation.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { leaderProbability } from './betaTail.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** Parameters of {@link BetaStoppingRule}. */
export interface BetaStoppingParams {
  /** Stop when P(p1 > p2) >= threshold; threshold in (1/2, 1) (default 0.95). */
  threshold?: number;
  /** Minimum answered samples before testing (default 1). */
  minSamples?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`. Cost O(v1 + v2) per observation (the binomial sum).
 * @throws {ArgumentError} threshold outside (1/2, 1), minSamples not an integer >= 1.
 * @example
 * ```ts
 * const r = new BetaStoppingRule({ threshold: 0.95 });
 * ['a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop);
 * // [false, false, false, true]: P = 1 − 2^−(v1+1) = 0.9375, then 0.96875 at v1 = 4
 * ```
 */
export class BetaStoppingRule extends BaseRule {
  readonly name = 'beta';
  readonly params: RuleParams;
  readonly #threshold: number;
  readonly #minSamples: number;
  readonly #tally = new VoteTally();
  constructor(params: BetaStoppingParams = {}) {
    checkKnownParams('beta', params, ['threshold', 'minSamples', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    const threshold = finiteNumber('threshold', params.threshold ?? 0.95);
    if (!(threshold > 0.5 && threshold < 1)) throw new ArgumentError('threshold', threshold, 'must lie in (0.5, 1)');
    this.#threshold = threshold;
    this.#minSamples = integerInRange('minSamples', params.minSamples ?? 1, 1);
    this.params = Object.freeze({
      threshold,
      minSamples: this.#minSamples,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
  }
  protected decide(obs: StepObservation): StopDecision {
    this.#tally.add(obs.answer ?? null);
    if (this.#tally.valid < this.#minSamples || this.#tally.valid === 0) return CONTINUE;
    const [v1, v2] = this.#tally.topTwo();
    const p = leaderProbability(v1, v2);
    // 1 − threshold is exact for thresholds in [1/2, 1) (Sterbenz), so the test is exact up
    // to the rounding of p.below itself.
    if (p.below <= 1 - this.#threshold) {
      return {
        stop: true,
        reason: 'criterion',
        detail: `P(p1 > p2 | ${v1}, ${v2}) = ${p.above} >= ${this.#threshold}`,
      };
    }
    return CONTINUE;
  }
  protected clear(): void {
    this.#tally.clear();
  }
}
