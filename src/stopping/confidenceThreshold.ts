/**
 * The confidence-threshold rule: stop once the reported confidence of the current best answer
 * reaches a threshold (the "self-reported confidence" proxy of Sec. 4.1). In the replay lab the
 * confidence is the rule-of-succession estimate (v1 + 1)/(n + 2) of the leader's share (see
 * src/lab/observations.ts); a user with model confidences passes their own.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps, requireField } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Default threshold of {@link ConfidenceThresholdRule}. */
export const CONFIDENCE_DEFAULT_THRESHOLD = 0.85;

/** Parameters of {@link ConfidenceThresholdRule}. */
export interface ConfidenceThresholdParams {
  /** Stop when confidence >= threshold; threshold in (0, 1] (default {@link CONFIDENCE_DEFAULT_THRESHOLD}). */
  threshold?: number;
  /** Do not stop before this step (default 1). */
  minSteps?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/**
 * Needs `obs.confidence` in [0, 1] at every step. Cost O(1) per observation.
 * @throws {ArgumentError} threshold outside (0, 1], minSteps not an integer >= 1, a confidence
 *   outside [0, 1].
 * @example
 * ```ts
 * const r = new ConfidenceThresholdRule({ threshold: 0.8 });
 * r.observe({ t: 1, confidence: 2 / 3 }).stop; // false
 * r.observe({ t: 2, confidence: 3 / 4 }).stop; // false
 * r.observe({ t: 3, confidence: 4 / 5 }).stop; // true (0.8 >= 0.8)
 * ```
 */
export class ConfidenceThresholdRule extends BaseRule {
  readonly name = 'confidence';
  readonly params: RuleParams;
  readonly #threshold: number;
  readonly #minSteps: number;
  constructor(params: ConfidenceThresholdParams = {}) {
    checkKnownParams('confidence', params, ['threshold', 'minSteps', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    const threshold = finiteNumber('threshold', params.threshold ?? CONFIDENCE_DEFAULT_THRESHOLD);
    if (!(threshold > 0 && threshold <= 1)) throw new ArgumentError('threshold', threshold, 'must lie in (0, 1]');
    const minSteps = integerInRange('minSteps', params.minSteps ?? 1, 1);
    this.#threshold = threshold;
    this.#minSteps = minSteps;
    this.params = Object.freeze({ threshold, minSteps, ...(maxSteps === undefined ? {} : { maxSteps }) });
  }
  protected decide(obs: StepObservation): StopDecision {
    const c = requireField(obs, 'confidence', this.name);
    if (!(c >= 0 && c <= 1)) throw new ArgumentError('obs.confidence', c, 'must lie in [0, 1]');
    if (obs.t >= this.#minSteps && c >= this.#threshold) {
      return { stop: true, reason: 'criterion', detail: `confidence ${c} >= ${this.#threshold}` };
    }
    return CONTINUE;
  }
  protected clear(): void {}
}
