/**
 * Any {@link StoppingRule} driving a recursive system: the loop of Algorithm 1 (Eq. 1, with Ω of
 * Eq. 2 computed at every step) with the stopping test replaced by the rule. With the order-gap
 * rule it is Algorithm 1 (a test checks identical steps and states against runRecursive). The
 * run never throws for reaching a cap: it returns the state reached (the best state so far — the
 * iteration's latest θ) and why it stopped.
 */
import { validateRunOptions, type RunOptions } from '../ordergap/algorithm1.js';
import { evaluateOrderGapUnchecked } from '../ordergap/orderGap.js';
import { createRng, sampleIndex } from '../ordergap/rng.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentTypeError } from '../util/errors.js';
import type { RuleReason, StepObservation, StoppingRule } from './rule.js';

/** Options of {@link runWithRule}: Algorithm 1's run options without ε, w and the rule switch. */
export interface RuleRunOptions extends Omit<RunOptions, 'epsilon' | 'window' | 'rule'> {
  /** Reads the answer of a state (for answer-based rules). */
  answerOf?: (theta: Float64Array) => string | null;
  /** Reads a confidence in [0, 1] of a state (for the confidence rule). */
  confidenceOf?: (theta: Float64Array) => number;
  /** Reads a score of a state (for the patience rule). */
  scoreOf?: (theta: Float64Array) => number;
}

/** One step of {@link runWithRule}. */
export interface RuleRunStep {
  readonly t: number;
  readonly evidence: string;
  readonly omega: number;
  readonly observation: StepObservation;
}

/** Result of {@link runWithRule}. */
export interface RuleRun {
  readonly rule: string;
  readonly steps: readonly RuleRunStep[];
  readonly stoppedAt: number;
  /** The rule's reason, `'budget'` at Tmax, or `'evidence-exhausted'` when a sequence ran out. */
  readonly stopReason: Exclude<RuleReason, 'continue'> | 'evidence-exhausted';
  readonly detail: string;
  /** θ_T: the state reached. */
  readonly finalState: Float64Array;
}

/**
 * Runs the system under the rule (the rule is reset first).
 * Cost per step: 2 Q + 2 P_e applications + the rule's cost.
 * @throws {ArgumentError} bad Tmax, seed, θ0 or sequence (nothing runs); errors the rule raises
 *   for a missing observation field (e.g. the confidence rule without `confidenceOf`).
 * @example
 * ```ts
 * runWithRule(closedFormSystem(), new OrderGapRule({ epsilon: 0.025, window: 2 }), {
 *   maxSteps: 5, sequence: ['e1', 'e2', 'e3', 'e4', 'e5'],
 * }).stoppedAt; // 4, as Algorithm 1 (Sec. 9.2)
 * ```
 */
export function runWithRule(system: OperatorSystem, rule: StoppingRule, options: RuleRunOptions): RuleRun {
  if (typeof rule?.observe !== 'function') throw new ArgumentTypeError('rule', rule, 'must be a StoppingRule');
  const o = validateRunOptions(system, { ...options, epsilon: 1, window: 1 });
  for (const f of ['answerOf', 'confidenceOf', 'scoreOf'] as const) {
    if (options[f] !== undefined && typeof options[f] !== 'function')
      throw new ArgumentTypeError(f, options[f], 'must be a function (theta) => value');
  }
  rule.reset();
  const rng = createRng(o.seed);
  let theta = o.theta0;
  const steps: RuleRunStep[] = [];
  let stopReason: RuleRun['stopReason'] = 'budget';
  let detail = `Tmax = ${o.maxSteps} reached`;
  for (let t = 0; t < o.maxSteps; t++) {
    let evidence: string;
    if (o.sequence) {
      if (t >= o.sequence.length) {
        stopReason = 'evidence-exhausted';
        detail = `the sequence has ${o.sequence.length} items`;
        break;
      }
      evidence = o.sequence[t]!;
    } else {
      const dist = system.evidenceAt(theta);
      evidence =
        dist[
          sampleIndex(
            dist.map((e) => e.p),
            rng.next(),
          )
        ]!.id;
    }
    const ev = evaluateOrderGapUnchecked(system, theta, evidence);
    theta = ev.expandThenConsolidate;
    const observation: StepObservation = {
      t: t + 1,
      omega: ev.omega,
      ...(options.answerOf ? { answer: options.answerOf(theta) } : {}),
      ...(options.confidenceOf ? { confidence: options.confidenceOf(theta) } : {}),
      ...(options.scoreOf ? { score: options.scoreOf(theta) } : {}),
    };
    steps.push({ t: t + 1, evidence, omega: ev.omega, observation });
    const d = rule.observe(observation);
    if (d.stop) {
      stopReason = d.reason as RuleRun['stopReason'];
      detail = d.detail;
      break;
    }
  }
  return { rule: rule.label, steps, stoppedAt: steps.length, stopReason, detail, finalState: theta };
}
