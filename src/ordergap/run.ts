/**
 * The one loop of the package: a recursive system driven by any {@link StoppingRule} — the loop
 * of Algorithm 1 (Eq. 1, with Ω of Eq. 2 at every step) with the stopping test supplied by the
 * rule. `runRecursive` is this loop with the order-gap rule; the rule comparisons and the agent
 * API use it as well.
 *
 * Each step uses what the system declares: its `step` capability (Ω and θ' = Q(P_e θ) in one
 * call), else its structure-aware `orderGap` plus one Q(P_e θ), else the generic two-Q
 * evaluation of Eq. (2). A run never throws for reaching a cap: it returns the state reached and
 * a structured stop report.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { checkState } from '../system/define.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import type { StepObservation, StoppingRule, StopReason } from '../stopping/rule.js';
import { evaluateOrderGapUnchecked } from './orderGap.js';
import { createRng, sampleIndex } from './rng.js';

/** Options of {@link run}. */
export interface LoopOptions {
  /** Tmax >= 1: the step budget of the loop (a rule may stop earlier). */
  maxSteps: number;
  /** Seed of the evidence sampler (integer in [0, 2^32)); default 0. */
  seed?: number;
  /** A fixed evidence sequence instead of sampling P(·|θ) (Sec. 9.2 is a sequence). */
  sequence?: readonly string[];
  /** Start state (default: the system's θ0). */
  theta0?: ArrayLike<number>;
  /** Keep θ_t of every step (default false: memory O(steps · d)). */
  recordStates?: boolean;
  /** Reads the answer of a state (for answer-based rules). */
  answerOf?: (theta: Float64Array) => string | null;
  /** Reads a confidence in [0, 1] of a state (for the confidence rule). */
  confidenceOf?: (theta: Float64Array) => number;
  /** Reads a score of a state (for the patience rule). */
  scoreOf?: (theta: Float64Array) => number;
  /** Called after every step with the step's record and the new state (do not keep `theta`). */
  observe?: (step: LoopStep, theta: Float64Array) => void;
  /**
   * Sampling weights in place of P(·|θ) (Sec. 7.3, adaptive extraction): called before every
   * draw with P(·|θ_t) and the step t about to run (from 1), it returns one non-negative weight
   * per item in the same order, and the item is drawn proportionally to them. Called every
   * step, so the weights may change during a run. Ignored with a `sequence`. The step records
   * the drawn item's weight share as its probability.
   */
  sampleWeights?: (dist: readonly EvidenceWeight[], t: number) => ArrayLike<number>;
}

/** One step of the loop (t counts from 1: the state after t steps is θ_t). */
export interface LoopStep {
  /** Step number t >= 1. */
  readonly t: number;
  /** The evidence item e used at this step. */
  readonly evidence: string;
  /** P(e | θ_{t−1}) when sampled; null when it came from a sequence. */
  readonly probability: number | null;
  /** Ω(θ_{t−1}; e) (Eq. 2). */
  readonly omega: number;
  /** The rule's test statistic after this step (Ω̂_{t,w} for the order-gap rule), when it has one. */
  readonly statistic: number | null;
  /** θ_t, when states are recorded. */
  readonly theta?: Float64Array;
}

/** The structured stop report of a run. */
export interface LoopStop {
  /** Why the run ended. */
  readonly reason: StopReason;
  /** The rule's (or the loop's) account, e.g. `Ω̂ = 0.0221 <= ε = 0.025`. */
  readonly detail: string;
  /** T: the number of steps taken. */
  readonly step: number;
}

/** The result of {@link run}. */
export interface LoopRun {
  readonly system: string;
  readonly dim: number;
  /** The rule's label, e.g. `order-gap(epsilon=0.025, window=2)`. */
  readonly rule: string;
  readonly seed: number;
  readonly sequence: readonly string[] | null;
  readonly maxSteps: number;
  readonly theta0: Float64Array;
  readonly steps: readonly LoopStep[];
  readonly stop: LoopStop;
  /** θ_T: the state reached (the loop's latest θ, also at a cap). */
  readonly finalState: Float64Array;
}

/** Validated {@link LoopOptions}. */
interface CheckedLoopOptions {
  maxSteps: number;
  seed: number;
  sequence: readonly string[] | null;
  theta0: Float64Array;
  recordStates: boolean;
}

/**
 * Checks the options of {@link run} against the system before anything runs.
 * @throws {ArgumentError} bad Tmax, seed, θ0, sequence or callback (naming the option).
 */
export function checkLoopOptions(system: OperatorSystem, options: LoopOptions): CheckedLoopOptions {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1);
  const seed = integerInRange('seed', options.seed ?? 0, 0, 2 ** 32 - 1);
  const theta0Raw = options.theta0 ?? system.theta0;
  if (theta0Raw === undefined)
    throw new ArgumentError('theta0', theta0Raw, `is required: ${system.name} declares no theta0`);
  const theta0 = checkState('theta0', system, theta0Raw);
  for (const f of ['answerOf', 'confidenceOf', 'scoreOf', 'observe', 'sampleWeights'] as const) {
    if (options[f] !== undefined && typeof options[f] !== 'function')
      throw new ArgumentTypeError(f, options[f], 'must be a function');
  }
  let sequence: readonly string[] | null = null;
  if (options.sequence !== undefined) {
    if (!Array.isArray(options.sequence))
      throw new ArgumentTypeError('sequence', options.sequence, 'must be an array of evidence ids');
    const pool = new Set(system.evidenceAt(theta0).map((e) => e.id));
    options.sequence.forEach((id, i) => {
      if (typeof id !== 'string' || !pool.has(id)) {
        throw new ArgumentError(
          `sequence[${i}]`,
          id,
          `is not an evidence item of ${system.name} (known: ${[...pool].join(', ')})`,
        );
      }
    });
    sequence = [...options.sequence];
  }
  return { maxSteps, seed, sequence, theta0, recordStates: options.recordStates ?? false };
}

/** The weights a `sampleWeights` callback returned, checked: n finite values >= 0, positive total. */
function checkedWeights(w: ArrayLike<number>, n: number): number[] {
  if (w == null || typeof w.length !== 'number' || w.length !== n)
    throw new ArgumentError('sampleWeights()', w, `must return ${n} weights, one per evidence item`);
  const out = Array.from(w);
  let total = 0;
  out.forEach((x, i) => {
    if (!(Number.isFinite(x) && x >= 0)) throw new ArgumentError(`sampleWeights()[${i}]`, x, 'must be finite and >= 0');
    total += x;
  });
  if (!(total > 0)) throw new ArgumentError('sampleWeights()', w, 'must have a positive total');
  return out;
}

/**
 * Ω(θ; e) and θ' = Q(P_e(θ)) by the best means the system declares (see the module comment).
 * The result is unvalidated only where the system's capability wrapper already checked it.
 */
export function stepSystem(
  system: OperatorSystem,
  theta: Float64Array,
  evidence: string,
): { omega: number; next: Float64Array } {
  const caps = system.capabilities;
  if (caps.step) return caps.step(theta, evidence);
  if (caps.orderGap) {
    const omega = caps.orderGap(theta, evidence);
    return { omega, next: system.consolidate(system.expand(evidence, theta)) };
  }
  const ev = evaluateOrderGapUnchecked(system, theta, evidence);
  return { omega: ev.omega, next: ev.expandThenConsolidate };
}

/**
 * Runs the system under the rule (the rule is reset first) until the rule stops, the budget
 * Tmax is reached, or a given sequence runs out. Identical seeds give identical runs.
 * Cost per step: the system's step (2 Q + 2 P_e generically) + the rule's cost + O(d) when
 * states are recorded.
 * @throws {ArgumentError} bad options (nothing runs); errors the rule raises for a missing
 *   observation field (e.g. the confidence rule without `confidenceOf`).
 * @example
 * ```ts
 * const r = run(closedFormSystem(), new OrderGapRule({ epsilon: 0.025, window: 2 }), {
 *   maxSteps: 5, sequence: ['e1', 'e2', 'e3', 'e4', 'e5'],
 * });
 * r.stop; // { reason: 'order-gap', step: 4, detail: 'Ω̂ = 0.0221… <= ε = 0.025' } (Sec. 9.2)
 * ```
 */
export function run(system: OperatorSystem, rule: StoppingRule, options: LoopOptions): LoopRun {
  if (typeof rule?.observe !== 'function' || typeof rule.reset !== 'function')
    throw new ArgumentTypeError('rule', rule, 'must be a StoppingRule');
  const o = checkLoopOptions(system, options);
  rule.reset();
  const rng = createRng(o.seed);
  let theta = o.theta0;
  const steps: LoopStep[] = [];
  let stop: LoopStop | null = null;
  for (let t = 0; t < o.maxSteps && stop === null; t++) {
    let evidence: string;
    let probability: number | null = null;
    if (o.sequence) {
      if (t >= o.sequence.length) {
        stop = { reason: 'evidence-exhausted', detail: `the sequence has ${o.sequence.length} items`, step: t };
        break;
      }
      evidence = o.sequence[t]!;
    } else {
      const dist = system.evidenceAt(theta);
      const w = options.sampleWeights ? checkedWeights(options.sampleWeights(dist, t + 1), dist.length) : null;
      const i = sampleIndex(w ?? dist.map((e) => e.p), rng.next());
      evidence = dist[i]!.id;
      probability = w ? w[i]! / w.reduce((a, b) => a + b, 0) : dist[i]!.p;
    }
    const s = stepSystem(system, theta, evidence);
    theta = s.next;
    const observation: StepObservation = {
      t: t + 1,
      omega: s.omega,
      ...(options.answerOf ? { answer: options.answerOf(theta) } : {}),
      ...(options.confidenceOf ? { confidence: options.confidenceOf(theta) } : {}),
      ...(options.scoreOf ? { score: options.scoreOf(theta) } : {}),
    };
    const d = rule.observe(observation);
    const rec: LoopStep = {
      t: t + 1,
      evidence,
      probability,
      omega: s.omega,
      statistic: d.statistic ?? null,
      ...(o.recordStates ? { theta } : {}),
    };
    steps.push(rec);
    options.observe?.(rec, theta);
    if (d.stop && d.reason !== 'continue') stop = { reason: d.reason, detail: d.detail, step: t + 1 };
  }
  return {
    system: system.name,
    dim: system.dim,
    rule: rule.label,
    seed: o.seed,
    sequence: o.sequence,
    maxSteps: o.maxSteps,
    theta0: o.theta0,
    steps,
    stop: stop ?? { reason: 'budget', detail: `Tmax = ${o.maxSteps} reached`, step: steps.length },
    finalState: theta,
  };
}
