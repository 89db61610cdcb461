/** The fixed-budget rule: always take exactly N steps (the baseline every other rule saves against). */
import { integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Default N of {@link FixedBudgetRule}: 40, the budget of ESC and Adaptive-Consistency. */
export const FIXED_BUDGET_DEFAULT = 40;

/** Parameters of {@link FixedBudgetRule}. */
export interface FixedBudgetParams {
  /** N >= 1 steps (default {@link FIXED_BUDGET_DEFAULT}). */
  budget?: number;
}

/**
 * Stops at t = N with reason `'budget'`; needs nothing from the observation.
 * @throws {ArgumentError} N not an integer >= 1.
 * @example
 * ```ts
 * const r = new FixedBudgetRule({ budget: 2 });
 * r.observe({ t: 1 }).stop; // false
 * r.observe({ t: 2 }).reason; // 'budget'
 * ```
 */
export class FixedBudgetRule extends BaseRule {
  readonly name = 'fixed-budget';
  readonly params: RuleParams;
  constructor(params: FixedBudgetParams = {}) {
    checkKnownParams('fixed-budget', params, ['budget']);
    const budget = integerInRange('budget', params.budget ?? FIXED_BUDGET_DEFAULT, 1);
    super(budget);
    this.params = Object.freeze({ budget });
  }
  protected decide(_obs: StepObservation): StopDecision {
    return CONTINUE;
  }
  protected clear(): void {}
}
