/**
 * The one loop of the package: a recursive system driven by any {@link StoppingRule} — the loop
 * of Algorithm 1 (Eq. 1, with Ω of Eq. 2 at every step) with the stopping test supplied by the
 * rule. `runRecursive` is this loop with the order-gap rule; the coverage-aware run, the rule
 * comparisons and the commands use it as well, and every run returns one {@link RunResult}.
 *
 * Each step uses what the system declares: its `step` capability (Ω and θ' = Q(P_e θ) in one
 * call), else its structure-aware `orderGap` plus one Q(P_e θ), else the generic two-Q
 * evaluation of Eq. (2). A system that declares a structured state (`state` capability) runs on
 * it (`representation: 'structured'`, the default then): per step the system's in-place step, no
 * copy of θ, and every result checked at the cost of what it touches. A run never throws for
 * reaching a cap: it returns the state reached and a structured stop report.
 *
 * Consolidation scheduling (Sec. 7.3, `schedule`: a threshold): each step measures Ω(θ; e) by
 * the state's estimate (no pass of Q over the whole state), applies P_e, and applies Q only once
 * the estimates accumulated since the last consolidation exceed the threshold; a run that stops
 * with expansions pending is consolidated once more, so its final state is a consolidated one.
 * The rule reads the estimates: when the estimate is exact (the reference graph's is), Ω̂ is the
 * true Ω̂; when it is an upper bound, a stop decided on it implies the true Ω̂ <= ε as well.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import { requireMemory, type MemoryEstimate } from '../util/resources.js';
import { checkState } from '../system/define.js';
import { checkRunParams } from '../system/runParams.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import type { StepObservation, StoppingRule, StopReason } from '../stopping/rule.js';
import { createRng, sampleIndex, type Rng } from './rng.js';
import { denseStepper, structuredStepper, type Stepper } from './stepper.js';

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
  /**
   * Record ‖P_e(θ_{t−1}) − θ_{t−1}‖ of every step's item before it is applied (default false):
   * how much of the item the state did not yet represent. A structured state needs its
   * `residual` capability for it; a dense run costs one P_e and one O(d) distance per step.
   */
  recordResiduals?: boolean;
  /** Reads the answer of a state (for answer-based rules). */
  answerOf?: (theta: Float64Array) => string | null;
  /** Reads a confidence in [0, 1] of a state (for the confidence rule). */
  confidenceOf?: (theta: Float64Array) => number;
  /** Reads a score of a state (for the patience rule). */
  scoreOf?: (theta: Float64Array) => number;
  /**
   * Called after every step with the step's record and the new state (do not keep `theta`); on
   * a structured run `theta` is the state's dense head (the leading coordinates it holds
   * densely: the graph's node block) and `state` the structured state itself.
   */
  observe?: (step: RunStep, theta: Float64Array, state?: unknown) => void;
  /**
   * 'structured' runs on the system's `state` capability, 'dense' on θ as one Float64Array;
   * default 'structured' when the system declares it. State readers (`answerOf`, …) then get the
   * state's dense head.
   */
  representation?: 'dense' | 'structured';
  /** Consolidation scheduling (Sec. 7.3): the accumulated-Ω threshold (> 0); needs `state`. */
  schedule?: number;
  /**
   * The score the best state minimises, read after every step (null: no score yet); default the
   * rule's statistic (Ω̂_{t,w} for the order-gap rule). The loop keeps one copy of the state with
   * the smallest score ({@link RunResult.best}): memory O(d), not O(steps · d).
   */
  bestScore?: (step: RunStep) => number | null;
  /**
   * Sampling weights in place of P(·|θ) (Sec. 7.3, adaptive extraction): called before every
   * draw with P(·|θ_t) and the step t about to run (from 1), it returns one non-negative weight
   * per item in the same order, and the item is drawn proportionally to them. Called every
   * step, so the weights may change during a run. Ignored with a `sequence`. The step records
   * the drawn item's weight share as its probability.
   */
  sampleWeights?: (dist: readonly EvidenceWeight[], t: number) => ArrayLike<number>;
}

/** One step of a run (t counts from 1: the state after t steps is θ_t). */
export interface RunStep {
  /** Step number t >= 1. */
  readonly t: number;
  /** The evidence item e used at this step. */
  readonly evidence: string;
  /** P(e | θ_{t−1}) when sampled; null when it came from a sequence. */
  readonly probability: number | null;
  /** Ω(θ_{t−1}; e) (Eq. 2). */
  readonly omega: number;
  /** The rule's test statistic after this step (Ω̂_{t,w} of Eq. 3 for the order-gap rule), when it has one. */
  readonly statistic: number | null;
  /** ‖P_e(θ_{t−1}) − θ_{t−1}‖, with `recordResiduals`. */
  readonly residual?: number;
  /** θ_t, when states are recorded. */
  readonly theta?: Float64Array;
  /** Whether Q was applied at this step (scheduled runs only). */
  readonly consolidated?: boolean;
}

/** The structured stop report of a run. */
export interface RunStop {
  /** Why the run ended. */
  readonly reason: StopReason;
  /** The rule's (or the loop's) account, e.g. `Ω̂ = 0.0221 <= ε = 0.025`. */
  readonly detail: string;
  /** T: the number of steps taken. */
  readonly step: number;
}

/** The state after the step with the smallest score of a run (see `LoopOptions.bestScore`). */
export interface BestState {
  readonly step: number;
  readonly score: number;
  /** Dense θ; built when first read on a structured run. */
  readonly theta: Float64Array;
}

/** The result of every run of the loop ({@link run}, `runRecursive`, the coverage-aware run). */
export interface RunResult {
  readonly system: string;
  readonly dim: number;
  /** The rule's label, e.g. `order-gap(epsilon=0.025, window=2)`. */
  readonly rule: string;
  readonly seed: number;
  readonly sequence: readonly string[] | null;
  readonly maxSteps: number;
  /** θ0 (dense; on a structured run built when first read). */
  readonly theta0: Float64Array;
  readonly steps: readonly RunStep[];
  readonly stop: RunStop;
  /**
   * θ_T: the state reached (the loop's latest θ, also at a cap). On a structured run it is the
   * dense θ of {@link state}, built when first read (O(d): small problems only).
   */
  readonly finalState: Float64Array;
  /** 'dense' or 'structured'. */
  readonly representation: 'dense' | 'structured';
  /** The structured final state (the system's representation), on a structured run. */
  readonly state?: unknown;
  /** Applications of Q to the state (one per step unless scheduled; Ω's own passes not counted). */
  readonly consolidations: number;
  /** The schedule threshold, or null. */
  readonly schedule: number | null;
  /** The state after the step with the smallest score (the earliest on ties), or null when no step had a score. */
  readonly best: BestState | null;
}

/** Validated {@link LoopOptions}. */
interface CheckedLoopOptions {
  maxSteps: number;
  seed: number;
  sequence: readonly string[] | null;
  theta0: Float64Array | null;
  recordStates: boolean;
  recordResiduals: boolean;
  structured: boolean;
  schedule: number | null;
}

const CALLBACKS = ['answerOf', 'confidenceOf', 'scoreOf', 'observe', 'sampleWeights', 'bestScore'] as const;

/** The representation and schedule of a run, checked against the system. */
function checkRepresentation(
  system: OperatorSystem,
  options: LoopOptions,
): { structured: boolean; schedule: number | null } {
  const rep = options.representation ?? (system.capabilities.state ? 'structured' : 'dense');
  if (rep !== 'dense' && rep !== 'structured')
    throw new ArgumentError('representation', rep, "must be 'dense' or 'structured'");
  if (rep === 'structured' && !system.capabilities.state)
    throw new ArgumentError('representation', rep, `${system.name} declares no structured state`);
  const structured = rep === 'structured';
  if (options.schedule === undefined) return { structured, schedule: null };
  const schedule = finiteNumber('schedule', options.schedule);
  if (!(schedule > 0)) throw new ArgumentError('schedule', schedule, 'must be > 0');
  if (!structured)
    throw new ArgumentError(
      'schedule',
      schedule,
      `needs a structured state (a dense run measures Ω with two Q's, so scheduling would save none)`,
    );
  return { structured, schedule };
}

/** The memory of a run that keeps θ_t of every step: Tmax + 1 dense states of d f64. */
export function recordedStatesMemory(dim: number, maxSteps: number): MemoryEstimate {
  return { hostBytes: 8 * dim * (maxSteps + 1), wasmBytes: 0, largestArray: dim };
}

/**
 * Checks the options of {@link run} against the system before anything runs.
 * @throws {ArgumentError} bad Tmax, seed, θ0, sequence or callback (naming the option); recorded
 *   states that would not fit in memory (named `recordStates`).
 */
export function checkLoopOptions(system: OperatorSystem, options: LoopOptions): CheckedLoopOptions {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  const p = checkRunParams({ maxSteps: options.maxSteps, seed: options.seed ?? 0 }, '', ['maxSteps']);
  const { structured, schedule } = checkRepresentation(system, options);
  const theta0Raw = options.theta0 ?? system.theta0;
  if (theta0Raw === undefined && !structured)
    throw new ArgumentError('theta0', theta0Raw, `is required: ${system.name} declares no theta0`);
  const theta0 = theta0Raw === undefined ? null : checkState('theta0', system, theta0Raw);
  for (const f of CALLBACKS)
    if (options[f] !== undefined && typeof options[f] !== 'function')
      throw new ArgumentTypeError(f, options[f], 'must be a function');
  const residuals = options.recordResiduals ?? false;
  if (residuals && structured && !system.capabilities.state!.residual)
    throw new ArgumentError(
      'recordResiduals',
      residuals,
      `needs the state.residual capability, which ${system.name} does not declare`,
    );
  let sequence: readonly string[] | null = null;
  if (options.sequence !== undefined) {
    if (!Array.isArray(options.sequence))
      throw new ArgumentTypeError('sequence', options.sequence, 'must be an array of evidence ids');
    const st = system.capabilities.state;
    const dist = theta0 !== null ? system.evidenceAt(theta0) : st!.evidenceAt(st!.initial());
    const pool = new Set(dist.map((e) => e.id));
    options.sequence.forEach((id, i) => {
      if (typeof id !== 'string' || !pool.has(id))
        throw new ArgumentError(
          `sequence[${i}]`,
          id,
          `is not an evidence item of ${system.name} (known: ${[...pool].join(', ')})`,
        );
    });
    sequence = [...options.sequence];
  }
  const recordStates = options.recordStates ?? false;
  // every step's θ kept: Tmax + 1 dense states of d numbers, checked before the first is made
  if (recordStates)
    requireMemory(
      'recordStates',
      `${p.maxSteps} steps of d = ${system.dim}`,
      recordedStatesMemory(system.dim, p.maxSteps!),
    );
  return {
    maxSteps: p.maxSteps!,
    seed: p.seed!,
    sequence,
    theta0,
    recordStates,
    recordResiduals: residuals,
    structured,
    schedule,
  };
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

/** The item of step t (from 0): the sequence's, or drawn from P(·|θ_t) or the sampling weights; null when the sequence ran out. */
function drawEvidence(
  o: CheckedLoopOptions,
  options: LoopOptions,
  stepper: Stepper,
  rng: Rng,
  t: number,
): { evidence: string; probability: number | null } | null {
  if (o.sequence) return t < o.sequence.length ? { evidence: o.sequence[t]!, probability: null } : null;
  const dist = stepper.distribution();
  const w = options.sampleWeights ? checkedWeights(options.sampleWeights(dist, t + 1), dist.length) : null;
  const i = sampleIndex(w ?? dist.map((e) => e.p), rng.next());
  return { evidence: dist[i]!.id, probability: w ? w[i]! / w.reduce((a, b) => a + b, 0) : dist[i]!.p };
}

/** The rule's observation of the state after step t (the readers see the dense head). */
function observationOf(options: LoopOptions, t: number, omega: number, current: Float64Array): StepObservation {
  return {
    t,
    omega,
    ...(options.answerOf ? { answer: options.answerOf(current) } : {}),
    ...(options.confidenceOf ? { confidence: options.confidenceOf(current) } : {}),
    ...(options.scoreOf ? { score: options.scoreOf(current) } : {}),
  };
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
export function run(system: OperatorSystem, rule: StoppingRule, options: LoopOptions): RunResult {
  if (typeof rule?.observe !== 'function' || typeof rule.reset !== 'function')
    throw new ArgumentTypeError('rule', rule, 'must be a StoppingRule');
  const o = checkLoopOptions(system, options);
  rule.reset();
  const rng = createRng(o.seed);
  const stepper = o.structured
    ? structuredStepper(system, system.capabilities.state!, o.theta0, o.schedule)
    : denseStepper(system, o.theta0!);
  const steps: RunStep[] = [];
  let stop: RunStop | null = null;
  let best: { step: number; score: number; snapshot: unknown } | null = null;
  for (let t = 0; t < o.maxSteps && stop === null; t++) {
    const drawn = drawEvidence(o, options, stepper, rng, t);
    if (drawn === null) {
      stop = { reason: 'evidence-exhausted', detail: `the sequence has ${o.sequence!.length} items`, step: t };
      break;
    }
    const residual = o.recordResiduals ? stepper.residual(drawn.evidence) : undefined;
    const { omega, consolidated } = stepper.step(drawn.evidence);
    const current = stepper.view();
    const d = rule.observe(observationOf(options, t + 1, omega, current));
    const rec: RunStep = {
      t: t + 1,
      ...drawn,
      omega,
      statistic: d.statistic ?? null,
      ...(residual !== undefined ? { residual } : {}),
      ...(o.recordStates ? { theta: stepper.dense() } : {}),
      ...(o.schedule !== null ? { consolidated } : {}),
    };
    steps.push(rec);
    const score = options.bestScore ? options.bestScore(rec) : rec.statistic;
    if (score !== null && Number.isFinite(score) && (best === null || score < best.score))
      best = { step: t + 1, score, snapshot: stepper.snapshot(best === null ? null : best.snapshot) };
    options.observe?.(rec, current, stepper.state);
    if (d.stop && d.reason !== 'continue') stop = { reason: d.reason, detail: d.detail, step: t + 1 };
  }
  stepper.finish();
  return runResult(system, rule, o, stepper, steps, stop, best);
}

/** Assembles the result; on a structured run the dense θ0, θ_T and best θ are built when first read. */
function runResult(
  system: OperatorSystem,
  rule: StoppingRule,
  o: CheckedLoopOptions,
  stepper: Stepper,
  steps: RunStep[],
  stop: RunStop | null,
  best: { step: number; score: number; snapshot: unknown } | null,
): RunResult {
  const structured = stepper.state !== undefined;
  const lazy = <T>(make: () => T): (() => T) => {
    let v: T | undefined;
    return () => (v ??= make());
  };
  const bestTheta = best === null ? null : lazy(() => stepper.denseOf(best.snapshot));
  const bestOut =
    best === null
      ? null
      : (Object.defineProperty({ step: best.step, score: best.score }, 'theta', {
          enumerable: !structured,
          get: bestTheta!,
        }) as BestState);
  const result = {
    system: system.name,
    dim: system.dim,
    rule: rule.label,
    seed: o.seed,
    sequence: o.sequence,
    maxSteps: o.maxSteps,
    steps,
    stop: stop ?? { reason: 'budget' as const, detail: `Tmax = ${o.maxSteps} reached`, step: steps.length },
    representation: structured ? ('structured' as const) : ('dense' as const),
    consolidations: stepper.consolidations,
    schedule: o.schedule,
    ...(structured ? { state: stepper.state } : {}),
    best: bestOut,
  };
  const finalState = lazy(() => stepper.dense());
  const theta0 = lazy(() => o.theta0 ?? stepper.initialDense());
  return Object.defineProperties(result, {
    finalState: { enumerable: !structured, get: finalState },
    theta0: { enumerable: !structured, get: theta0 },
  }) as unknown as RunResult;
}
