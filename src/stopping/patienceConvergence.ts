/**
 * The convergence stopping rule of "Archives and stopping rules" (Definition "Convergence stopping rule"): with
 * tolerance ε > 0, score range R > 0, patience P >= 1 and maximum depth D, stop when no step
 * improved the best score so far by more than ε·R for P consecutive steps, or when a step
 * emitted an empty output, or when depth D is reached. A step that lowers the score is not an
 * improvement, so it counts towards the patience (as a regressing layer would).
 */
import { booleanValue, integerInRange, positiveNumber } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, requireField } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Defaults of {@link PatienceConvergenceRule}: ε = 0.01, P = 3, D = 40 (range 1, stopOnEmpty true). */
export const PATIENCE_DEFAULTS: Readonly<{ epsilon: number; patience: number; maxDepth: number }> = Object.freeze({
  epsilon: 0.01,
  patience: 3,
  maxDepth: 40,
});

/** Parameters of {@link PatienceConvergenceRule}. */
export interface PatienceConvergenceParams {
  /** ε > 0: an improvement must exceed ε·R (default 0.01). */
  epsilon?: number;
  /** R > 0: the score range (default 1, scores in [0, 1]). */
  range?: number;
  /** P >= 1 consecutive non-improving steps (default 3). */
  patience?: number;
  /** D >= 1: maximum depth (step cap; default 40). */
  maxDepth?: number;
  /** Stop when a step's output is empty (default true, as in the rule's definition). */
  stopOnEmpty?: boolean;
}

/**
 * Needs `obs.score` at every step (and reads `obs.empty`). The first step sets the best score;
 * each later step either improves it by more than ε·R (resetting the count) or adds one to the
 * count of non-improving steps. Cost O(1) per observation.
 * @throws {ArgumentError} ε or R not finite > 0, P or D not integers >= 1, stopOnEmpty not true or false.
 * @example
 * ```ts
 * const r = new PatienceConvergenceRule({ epsilon: 0.05, patience: 2, maxDepth: 10 });
 * [0.5, 0.7, 0.72, 0.73].map((score, i) => r.observe({ t: i + 1, score }).stop);
 * // [false, false, false, true]: +0.02 and +0.03 are both <= 0.05·1
 * ```
 */
export class PatienceConvergenceRule extends BaseRule {
  readonly name = 'patience';
  readonly params: RuleParams;
  readonly #tol: number;
  readonly #patience: number;
  readonly #stopOnEmpty: boolean;
  #best: number | null = null;
  #stale = 0;
  constructor(params: PatienceConvergenceParams = {}) {
    checkKnownParams('patience', params, ['epsilon', 'range', 'patience', 'maxDepth', 'stopOnEmpty']);
    const maxDepth = integerInRange('maxDepth', params.maxDepth ?? PATIENCE_DEFAULTS.maxDepth, 1);
    super(maxDepth);
    const epsilon = positiveNumber('epsilon', params.epsilon ?? PATIENCE_DEFAULTS.epsilon);
    const range = positiveNumber('range', params.range ?? 1);
    const patience = integerInRange('patience', params.patience ?? PATIENCE_DEFAULTS.patience, 1);
    const stopOnEmpty = booleanValue('stopOnEmpty', params.stopOnEmpty ?? true);
    this.#tol = epsilon * range;
    this.#patience = patience;
    this.#stopOnEmpty = stopOnEmpty;
    this.params = Object.freeze({ epsilon, range, patience, maxDepth, stopOnEmpty });
  }
  protected decide(obs: StepObservation): StopDecision {
    if (this.#stopOnEmpty && obs.empty === true) {
      return { stop: true, reason: 'empty-output', detail: `step ${obs.t} emitted an empty output` };
    }
    const s = requireField(obs, 'score', this.name);
    if (this.#best === null) {
      this.#best = s;
      return CONTINUE;
    }
    if (s - this.#best > this.#tol) {
      this.#best = s;
      this.#stale = 0;
      return CONTINUE;
    }
    this.#stale++;
    if (this.#stale >= this.#patience) {
      return {
        stop: true,
        reason: 'criterion',
        detail: `no improvement > ε·R = ${this.#tol} over the best score ${this.#best} for ${this.#stale} steps`,
      };
    }
    return CONTINUE;
  }
  protected clear(): void {
    this.#best = null;
    this.#stale = 0;
  }
}
