/**
 * The coverage-aware stop for the agent API: an {@link OrderGapStopper} watches the order-gaps
 * of an `AgentState`'s steps (Algorithm 1's test, Eq. 3, through the package's one
 * `OrderGapRule`) and, when Ω̂ falls below ε, checks the candidate stop against the items the
 * loop could still use ({@link checkCoverageAtStop} on `state.scenarioWith(candidates)`). Its
 * report says `converged`, or `blind` with the uncovered questions and the items that would
 * still move the state; the policy decides (`stop`, `continue`, `redirect` — the redirect targets
 * are in the report for the caller's retriever to favour).
 *
 * ```ts
 * const stopper = new OrderGapStopper({ epsilon: 0.01, window: 4, maxSteps: 100, coverage: 'continue' });
 * for await (const item of retrieve()) {
 *   const report = await stopper.observe(state, state.step(item), candidates);
 *   if (report.stop) break; // report.verdict: 'converged' | 'blind' | null
 * }
 * ```
 */
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { referenceGraphSystem } from '../graph/system.js';
import { OrderGapRule } from '../stopping/orderGapRule.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { checkCoverageAtStop, type CoverageCheck, type CoverageCheckOptions } from './check.js';
import { COVERAGE_POLICIES, redirectTargets, type CoveragePolicy } from './run.js';

/** Options of {@link OrderGapStopper}. */
export interface StopperOptions extends CoverageCheckOptions {
  /** ε > 0 (Eq. 3). */
  epsilon: number;
  /** w >= 1 (Eq. 3). */
  window: number;
  /** Step budget: stop with reason 'budget' after this many observations (default: none). */
  maxSteps?: number;
  /** What a blind candidate stop does; `false`: the paper's rule without the check. Default 'stop'. */
  coverage?: CoveragePolicy | false;
  /** Adaptive gain of P(·|θ) over the candidates (default 2, see `AgentState.scenarioWith`). */
  adaptiveGain?: number;
}

/** The stop report: what the stopper decided after an observation, and why. */
export interface StopReport {
  /** Stop the loop now. */
  readonly stop: boolean;
  /** Observations so far (the loop's step count). */
  readonly step: number;
  /** 'continue', 'order-gap' (Ω̂ <= ε accepted) or 'budget' (maxSteps reached). */
  readonly reason: 'continue' | 'order-gap' | 'budget';
  /** The coverage check's verdict at this step; null when no check ran here. */
  readonly verdict: 'converged' | 'blind' | null;
  /** Ω̂ over the current window, null while fewer than w order-gaps were observed since the last reset. */
  readonly windowed: number | null;
  /** One line: what happened. */
  readonly detail: string;
  /** The check, when one ran at this step. */
  readonly check: CoverageCheck | null;
  /** With policy 'redirect' after a blind check: the items to favour (else empty). */
  readonly redirect: readonly string[];
}

/** Coverage-aware order-gap stopping for agent loops (module comment). */
export class OrderGapStopper {
  readonly epsilon: number;
  readonly window: number;
  readonly maxSteps: number | null;
  readonly coverage: CoveragePolicy | false;
  readonly #rule: OrderGapRule;
  readonly #checkOptions: CoverageCheckOptions;
  readonly #gain: number;
  #step = 0;
  /** Observations since the rule's last reset (the rule counts from 1 after each). */
  #window = 0;
  #last: StopReport | null = null;
  #checks: CoverageCheck[] = [];

  /** @throws {ArgumentError} bad ε, w, maxSteps, coverage or adaptiveGain. */
  constructor(options: StopperOptions) {
    if (typeof options !== 'object' || options === null)
      throw new ArgumentTypeError('options', options, 'must be an object');
    this.epsilon = finiteNumber('epsilon', options.epsilon);
    if (!(this.epsilon > 0)) throw new ArgumentError('epsilon', this.epsilon, 'must be > 0');
    this.window = integerInRange('window', options.window, 1);
    this.maxSteps = options.maxSteps === undefined ? null : integerInRange('maxSteps', options.maxSteps, 1);
    const cov = options.coverage ?? 'stop';
    if (cov !== false && !COVERAGE_POLICIES.includes(cov))
      throw new ArgumentError('coverage', cov, "must be 'stop', 'continue', 'redirect' or false");
    this.coverage = cov;
    this.#gain = finiteNumber('adaptiveGain', options.adaptiveGain ?? 2);
    if (this.#gain < 0) throw new ArgumentError('adaptiveGain', this.#gain, 'must be >= 0');
    this.#rule = new OrderGapRule({ epsilon: this.epsilon, window: this.window });
    this.#checkOptions = options.certify ? { certify: options.certify } : {};
  }

  /** The latest report (null before the first observation). */
  get report(): StopReport | null {
    return this.#last;
  }
  /** Every coverage check run so far, in order. */
  get checks(): readonly CoverageCheck[] {
    return this.#checks;
  }
  /** Observations so far. */
  get steps(): number {
    return this.#step;
  }

  /**
   * Observes Ω(θ; e) of the step the state has just taken and decides. `candidates` are the
   * evidence items the loop could still use (retrieved, drawn or not); the check runs on them
   * when Ω̂ <= ε, and without candidates no check can run (verdict null, the paper's rule).
   * @throws {ArgumentError} Ω not a finite number >= 0; an invalid candidate.
   */
  async observe(state: AgentState, omega: number, candidates: readonly EvidenceInput[] = []): Promise<StopReport> {
    const t = this.#step + 1;
    const d = this.#rule.observe({ t: ++this.#window, omega });
    this.#step = t;
    const windowed = this.#rule.windowed;
    const budget = this.maxSteps !== null && t >= this.maxSteps;
    const report = (r: Omit<StopReport, 'step' | 'windowed'>): StopReport =>
      (this.#last = Object.freeze({ ...r, step: t, windowed }));
    if (!d.stop) {
      return budget
        ? report({
            stop: true,
            reason: 'budget',
            verdict: null,
            detail: `maxSteps = ${this.maxSteps} reached`,
            check: null,
            redirect: [],
          })
        : report({ stop: false, reason: 'continue', verdict: null, detail: d.detail, check: null, redirect: [] });
    }
    if (this.coverage === false || candidates.length === 0)
      return report({
        stop: true,
        reason: 'order-gap',
        verdict: null,
        detail: `${d.detail}${this.coverage === false ? '' : '; no candidate items: coverage not checked'}`,
        check: null,
        redirect: [],
      });
    const scenario = state.scenarioWith(candidates, { adaptiveGain: this.#gain });
    const check = await checkCoverageAtStop(
      referenceGraphSystem(scenario),
      scenario.theta0,
      this.epsilon,
      this.#checkOptions,
    );
    this.#checks.push(check);
    if (check.verdict === 'converged' || this.coverage === 'stop')
      return report({
        stop: true,
        reason: 'order-gap',
        verdict: check.verdict,
        detail: `${d.detail}; ${check.verdict === 'converged' ? 'converged' : 'BLIND'}: ${check.detail}`,
        check,
        redirect: [],
      });
    // refused: a fresh window must fall below ε again
    this.#rule.reset();
    this.#window = 0;
    const redirect = this.coverage === 'redirect' ? redirectTargets(check) : [];
    return budget
      ? report({
          stop: true,
          reason: 'budget',
          verdict: 'blind',
          detail: `maxSteps = ${this.maxSteps} reached; the last candidate stop was blind: ${check.detail}`,
          check,
          redirect,
        })
      : report({
          stop: false,
          reason: 'continue',
          verdict: 'blind',
          detail: `${d.detail} but BLIND, continuing: ${check.detail}`,
          check,
          redirect,
        });
  }

  /** Forgets every observation (a new loop). */
  reset(): void {
    this.#rule.reset();
    this.#step = 0;
    this.#window = 0;
    this.#last = null;
    this.#checks = [];
  }
}
