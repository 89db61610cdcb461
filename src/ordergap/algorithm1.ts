/**
 * Algorithm 1 (Sec. 6): recursive reasoning with order-gap termination.
 *
 * ```
 * for t = 0 .. Tmax−1:
 *   e_t ~ P(·|θ_t)                      (or the t-th item of a given sequence)
 *   Ω_t = ‖Q(P_e(θ_t)) − P_e(Q(θ_t))‖   (Eq. 2, both orderings each step)
 *   θ_{t+1} = Q(P_e(θ_t))               (Eq. 1)
 *   push Ω_t to B
 *   if |B| >= w and mean(last w of B) <= ε: return (θ_{t+1}, t+1)   (Eq. 3)
 * return (θ_Tmax, Tmax)
 * ```
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { checkState } from '../system/define.js';
import type { OperatorSystem } from '../system/types.js';
import { evaluateOrderGapUnchecked } from './orderGap.js';
import { createRng, sampleIndex } from './rng.js';
import { OrderGapWindow } from './window.js';

/** Why a run ended. */
export type StopReason = 'order-gap' | 'budget' | 'evidence-exhausted';

/** Which stopping rule the loop applies: Algorithm 1's, or none (a fixed budget). */
export type LoopRule = 'order-gap' | 'budget';

/** Options of {@link runRecursive}. */
export interface RunOptions {
  /** ε > 0: stop when Ω̂ <= ε (Eq. 3). */
  epsilon: number;
  /** w >= 1: window length (Eq. 3). */
  window: number;
  /** Tmax >= 1: the step budget. */
  maxSteps: number;
  /** Seed of the evidence sampler (integer in [0, 2^32)); default 0. */
  seed?: number;
  /** A fixed evidence sequence instead of sampling (Sec. 9.2 is a sequence). */
  sequence?: readonly string[];
  /** Start state (default: the system's θ0). */
  theta0?: ArrayLike<number>;
  /** 'order-gap' (default) applies Algorithm 1's test; 'budget' runs to Tmax regardless. */
  rule?: LoopRule;
  /** Keep θ_t of every step (default true; set false for large d). */
  recordStates?: boolean;
}

/** One step of the loop (t counts from 1: the state after t steps is θ_t). */
export interface StepRecord {
  /** Step number t >= 1. */
  t: number;
  /** The evidence item e used at this step. */
  evidence: string;
  /** P(e | θ_{t−1}) when sampled; null when it came from a sequence. */
  probability: number | null;
  /** Ω(θ_{t−1}; e) (Eq. 2). */
  omega: number;
  /** Ω̂_{t,w} (Eq. 3), null while t < w. */
  windowed: number | null;
  /** θ_t = Q(P_e(θ_{t−1})), if states are recorded. */
  theta?: Float64Array;
}

/** The result of {@link runRecursive}. */
export interface RecursiveRun {
  system: string;
  dim: number;
  options: {
    epsilon: number;
    window: number;
    maxSteps: number;
    seed: number;
    rule: LoopRule;
    sequence: readonly string[] | null;
  };
  theta0: Float64Array;
  steps: StepRecord[];
  /** T: number of steps taken. */
  stoppedAt: number;
  stopReason: StopReason;
  /** θ_T. */
  finalState: Float64Array;
  /** Ω̂ at the last step (null if fewer than w steps). */
  finalWindowed: number | null;
}

/** Validates the options of {@link runRecursive}; returns them with defaults filled in. */
export function validateRunOptions(
  system: OperatorSystem,
  options: RunOptions,
): Required<Omit<RunOptions, 'sequence' | 'theta0'>> & {
  sequence: readonly string[] | null;
  theta0: Float64Array;
} {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  const epsilon = finiteNumber('epsilon', options.epsilon);
  if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  const window = integerInRange('window', options.window, 1);
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1);
  const seed = integerInRange('seed', options.seed ?? 0, 0, 2 ** 32 - 1);
  const rule = options.rule ?? 'order-gap';
  if (rule !== 'order-gap' && rule !== 'budget')
    throw new ArgumentError('rule', rule, "must be 'order-gap' or 'budget'");
  const theta0Raw = options.theta0 ?? system.theta0;
  if (theta0Raw === undefined)
    throw new ArgumentError('theta0', theta0Raw, `is required: ${system.name} declares no theta0`);
  const theta0 = checkState('theta0', system, theta0Raw);
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
  return { epsilon, window, maxSteps, seed, rule, recordStates: options.recordStates ?? true, sequence, theta0 };
}

/**
 * Runs Algorithm 1 and returns the whole trajectory. Identical seeds give identical runs.
 * When a `sequence` is given and ends before Tmax, the run ends with reason
 * 'evidence-exhausted'.
 * Cost per step: 2 Q + 2 P_e applications (both orderings) + one O(d) distance.
 * @throws {ArgumentError} bad ε, w, Tmax, seed, θ0 or sequence (nothing runs).
 * @example
 * ```ts
 * const run = runRecursive(closedFormSystem(), {
 *   epsilon: 0.025, window: 2, maxSteps: 5, sequence: ['e1', 'e2', 'e3', 'e4', 'e5'],
 * });
 * run.stoppedAt;  // 4 (Sec. 9.2)
 * run.stopReason; // 'order-gap'
 * ```
 */
export function runRecursive(system: OperatorSystem, options: RunOptions): RecursiveRun {
  const o = validateRunOptions(system, options);
  const rng = createRng(o.seed);
  const buffer = new OrderGapWindow(o.window, o.epsilon);
  const steps: StepRecord[] = [];
  let theta = o.theta0;
  let stopReason: StopReason = 'budget';
  for (let t = 0; t < o.maxSteps; t++) {
    let evidence: string;
    let probability: number | null = null;
    if (o.sequence) {
      if (t >= o.sequence.length) {
        stopReason = 'evidence-exhausted';
        break;
      }
      evidence = o.sequence[t]!;
    } else {
      const dist = system.evidenceAt(theta);
      const i = sampleIndex(
        dist.map((e) => e.p),
        rng.next(),
      );
      evidence = dist[i]!.id;
      probability = dist[i]!.p;
    }
    const ev = evaluateOrderGapUnchecked(system, theta, evidence);
    theta = ev.expandThenConsolidate;
    const windowed = buffer.push(ev.omega);
    const rec: StepRecord = { t: t + 1, evidence, probability, omega: ev.omega, windowed };
    if (o.recordStates) rec.theta = theta;
    steps.push(rec);
    if (o.rule === 'order-gap' && buffer.shouldStop()) {
      stopReason = 'order-gap';
      break;
    }
  }
  return {
    system: system.name,
    dim: system.dim,
    options: {
      epsilon: o.epsilon,
      window: o.window,
      maxSteps: o.maxSteps,
      seed: o.seed,
      rule: o.rule,
      sequence: o.sequence,
    },
    theta0: o.theta0,
    steps,
    stoppedAt: steps.length,
    stopReason,
    finalState: theta,
    finalWindowed: buffer.mean(),
  };
}
