/**
 * Budget-preserving admission ("Archives and stopping rules", Theorem "Budget-preserving layer admission"): a
 * candidate of cost c >= 0 is admitted only if c <= b, the remaining budget; then b' = b − c.
 * Hence b' >= 0 always and the total admitted cost never exceeds the initial budget.
 *
 * Costs and budgets are non-negative safe integers (samples, tokens, calls). That is a choice
 * with a reason: with integers below 2^53 every subtraction is exact, so the theorem holds for
 * the computed numbers and not only for real ones (with arbitrary doubles, b − c − c' could round
 * so that the admitted total exceeds the budget by an ulp).
 */
import { integerInRange } from '../util/validate.js';

/** One admission decision. */
export interface AdmissionDecision {
  readonly id: string;
  readonly cost: number;
  readonly admitted: boolean;
  /** Budget before the decision. */
  readonly before: number;
  /** Budget after it (before − cost when admitted, else before). */
  readonly after: number;
}

/**
 * A ledger that admits costs against a fixed initial budget.
 * @example
 * ```ts
 * const l = new BudgetLedger(10);
 * l.admit('a', 6).admitted; // true, 4 left
 * l.admit('b', 5).admitted; // false: 5 > 4
 * l.admit('c', 4).admitted; // true, 0 left
 * ```
 */
export class BudgetLedger {
  readonly initial: number;
  #remaining: number;
  readonly #log: AdmissionDecision[] = [];
  /** @throws {ArgumentError} budget not a safe integer >= 0. */
  constructor(budget: number) {
    this.initial = integerInRange('budget', budget, 0);
    this.#remaining = this.initial;
  }
  /** Remaining budget b. */
  get remaining(): number {
    return this.#remaining;
  }
  /** Sum of admitted costs (= initial − remaining). */
  get spent(): number {
    return this.initial - this.#remaining;
  }
  /** Every decision so far, in order. */
  get decisions(): readonly AdmissionDecision[] {
    return this.#log;
  }
  /**
   * Admits `cost` iff cost <= remaining. A refused candidate changes nothing but the log.
   * @throws {ArgumentError} cost not a safe integer >= 0 (nothing is logged).
   */
  admit(id: string, cost: number): AdmissionDecision {
    integerInRange(`cost of ${id}`, cost, 0);
    const before = this.#remaining;
    const admitted = cost <= before;
    const after = admitted ? before - cost : before;
    this.#remaining = after;
    const d = Object.freeze({ id, cost, admitted, before, after });
    this.#log.push(d);
    return d;
  }
}
