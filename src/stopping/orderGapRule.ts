/**
 * The windowed order-gap rule (Algorithm 1, Eq. 3): push Ω_t into the buffer B and stop once
 * |B| >= w and the mean of the last w values is <= ε. It is the one representation of that
 * test: Algorithm 1 (`runRecursive`), the rule comparisons and the agent loop all use it.
 */
import { ArgumentError } from '../util/errors.js';
import { windowedMeanUnchecked } from './window.js';
import { finiteNumber, positiveNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps, requireField } from './rule.js';
import type { RuleParams, RuleSnapshot, StepObservation, StopDecision } from './rule.js';

/**
 * The default configuration of {@link OrderGapRule} for repeated sampling: the cheapest (ε, w)
 * of a fixed grid whose paired accuracy loss to the full budget is not significant, on synthetic
 * samples only (the generator of examples/samples/synthetic.jsonl at 1000 items; src/lab/calibrate.ts
 * states the rule, test/lab/calibrate.test.ts recomputes the choice).
 */
export const ORDER_GAP_DEFAULTS: Readonly<{ epsilon: number; window: number }> = Object.freeze({
  epsilon: 0.03,
  window: 3,
});

/** Parameters of {@link OrderGapRule}. */
export interface OrderGapRuleParams {
  /** ε > 0: stop when Ω̂_{t,w} <= ε (default {@link ORDER_GAP_DEFAULTS}). */
  epsilon?: number;
  /** w >= 1: window length (default {@link ORDER_GAP_DEFAULTS}). */
  window?: number;
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
  readonly #epsilon: number;
  readonly #window: number;
  #values: number[] = [];
  constructor(params: OrderGapRuleParams = {}) {
    checkKnownParams('order-gap', params, ['epsilon', 'window', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    const epsilon = positiveNumber('epsilon', params.epsilon ?? ORDER_GAP_DEFAULTS.epsilon);
    const window = integerInRange('window', params.window ?? ORDER_GAP_DEFAULTS.window, 1);
    this.params = Object.freeze({ epsilon, window, ...(maxSteps === undefined ? {} : { maxSteps }) });
    this.#epsilon = epsilon;
    this.#window = window;
  }

  /** Ω̂ over the last w observed values (Eq. 3), or null while fewer than w were observed. */
  get windowed(): number | null {
    return windowedMeanUnchecked(this.#values, this.#window);
  }

  /** The order-gaps observed since the last reset. */
  get values(): readonly number[] {
    return this.#values;
  }

  protected decide(obs: StepObservation): StopDecision {
    const omega = requireField(obs, 'omega', this.name);
    if (omega < 0) throw new ArgumentError('obs.omega', omega, 'an order-gap is a norm and cannot be negative');
    this.#values.push(omega);
    const mean = this.windowed;
    if (mean !== null && mean <= this.#epsilon)
      return { stop: true, reason: 'order-gap', statistic: mean, detail: `Ω̂ = ${mean} <= ε = ${this.#epsilon}` };
    return { ...CONTINUE, statistic: mean };
  }

  protected clear(): void {
    this.#values = [];
  }

  /** The steps observed since the last reset and their order-gaps ({@link RuleSnapshot}: `state` is `{ values }`). */
  snapshot(): RuleSnapshot {
    return { label: this.label, t: this.observed, state: { values: [...this.#values] } };
  }

  /**
   * Takes the observations of `snapshot` (see {@link StoppingRule.restore}).
   * @throws {ArgumentError} another label, t not an integer >= 0, `state.values` not t finite
   *   order-gaps >= 0 (the rule is unchanged).
   */
  restore(snapshot: RuleSnapshot): void {
    this.restoreWith(snapshot, (state, t) => {
      const values = (state as { values?: unknown } | null)?.values;
      if (!Array.isArray(values) || values.length !== t)
        throw new ArgumentError('snapshot.state.values', values, `must be the ${t} order-gaps observed`);
      const checked = values.map((v: unknown, i) => {
        const omega = finiteNumber(`snapshot.state.values[${i}]`, v);
        if (omega < 0) throw new ArgumentError(`snapshot.state.values[${i}]`, omega, 'an order-gap cannot be negative');
        return omega;
      });
      this.#values = checked;
    });
  }
}
