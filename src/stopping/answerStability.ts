/**
 * Answer stability (GROW in Zhang et al., "Recursive Agentic Reasoning"): stop when the last k normalised answers are equal (k = 2
 * is GROW's "consecutive normalised answers match"; GROW caps at 3 rounds). Empty or
 * unparseable answers never count as agreeing.
 */
import { integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Parameters of {@link AnswerStabilityRule}. */
export interface AnswerStabilityParams {
  /** k >= 2 consecutive equal answers (default 2). */
  consecutive?: number;
  /** Optional step cap (GROW: 3). */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`. Cost O(1) per observation.
 * @throws {ArgumentError} k not an integer >= 2.
 * @example
 * ```ts
 * const r = new AnswerStabilityRule({ consecutive: 2 });
 * ['a', 'b', 'b'].map((answer, i) => r.observe({ t: i + 1, answer }).stop); // [false, false, true]
 * ```
 */
export class AnswerStabilityRule extends BaseRule {
  readonly name = 'stability';
  readonly params: RuleParams;
  readonly #k: number;
  #last: string | null = null;
  #run = 0;
  constructor(params: AnswerStabilityParams = {}) {
    checkKnownParams('stability', params, ['consecutive', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    this.#k = integerInRange('consecutive', params.consecutive ?? 2, 2);
    this.params = Object.freeze({ consecutive: this.#k, ...(maxSteps === undefined ? {} : { maxSteps }) });
  }
  protected decide(obs: StepObservation): StopDecision {
    const a = obs.answer ?? null;
    if (a === null) {
      this.#last = null;
      this.#run = 0;
      return CONTINUE;
    }
    this.#run = a === this.#last ? this.#run + 1 : 1;
    this.#last = a;
    if (this.#run >= this.#k) {
      return { stop: true, reason: 'criterion', detail: `${this.#k} consecutive answers equal ${JSON.stringify(a)}` };
    }
    return CONTINUE;
  }
  protected clear(): void {
    this.#last = null;
    this.#run = 0;
  }
}
