/**
 * The windowed order-gap rule (Algorithm 1, Eq. 3): push Ω_t into the buffer B and stop once
 * |B| >= w and the mean of the last w values is <= ε. Reuses {@link OrderGapWindow}, the same
 * buffer {@link runRecursive} uses, so the rule and Algorithm 1 stop at the same step.
 */
import { OrderGapWindow } from '../ordergap/window.js';
import { positiveNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps, requireField } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Parameters of {@link OrderGapRule}. */
export interface OrderGapRuleParams {
  /** ε > 0: stop when Ω̂_{t,w} <= ε. */
  epsilon: number;
  /** w >= 1: window length. */
  window: number;
  /** Optional step cap (Tmax). */
  maxSteps?: number;
}

/**
 * Algorithm 1's stopping test as a {@link StoppingRule}. Needs `obs.omega` at every step.
 * Cost: O(w) per observation.
 * @throws {ArgumentError} ε not a finite number > 0, w not an integer >= 1, unknown parameter;
 *   at observe time, a missing or negative `omega`.
 * @example
 * ```ts
 * const r = new OrderGapRule({ epsilon: 0.025, window: 2 });
 * [0.0288, 0.131, 0.0433, 0.0009].map((omega, i) => r.observe({ t: i + 1, omega }).stop);
 * // [false, false, false, true]  (Sec. 9.2: Ω̂ = 0.0221 <= 0.025 at t = 4)
 * ```
 */
export class OrderGapRule extends BaseRule {
  readonly name = 'order-gap';
  readonly params: RuleParams;
  #buffer: OrderGapWindow;
  constructor(params: OrderGapRuleParams) {
    checkKnownParams('order-gap', params, ['epsilon', 'window', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    const epsilon = positiveNumber('epsilon', params.epsilon);
    const window = integerInRange('window', params.window, 1);
    this.params = Object.freeze({ epsilon, window, ...(maxSteps === undefined ? {} : { maxSteps }) });
    this.#buffer = new OrderGapWindow(window, epsilon);
  }

  protected decide(obs: StepObservation): StopDecision {
    const omega = requireField(obs, 'omega', this.name);
    const mean = this.#buffer.push(omega);
    if (this.#buffer.shouldStop()) {
      return { stop: true, reason: 'criterion', detail: `Ω̂ = ${mean} <= ε = ${this.#buffer.epsilon}` };
    }
    return CONTINUE;
  }

  protected clear(): void {
    this.#buffer = new OrderGapWindow(this.#buffer.window, this.#buffer.epsilon);
  }
}
