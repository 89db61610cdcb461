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
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { FixedBudgetRule } from '../stopping/fixedBudget.js';
import { OrderGapRule } from '../stopping/orderGapRule.js';
import type { StopReason } from '../stopping/rule.js';
import { windowedMeanUnchecked } from '../stopping/window.js';
import { run, type LoopOptions } from './run.js';

/** Which stopping test Algorithm 1 applies: its own (Eq. 3), or none (a fixed budget). */
export type AlgorithmRule = 'order-gap' | 'budget';

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
  rule?: AlgorithmRule;
  /** Keep θ_t of every step (default true; set false for large d: O(steps · d) memory). */
  recordStates?: boolean;
  /** Sampling weights in place of P(·|θ), changeable during the run (see `LoopOptions.sampleWeights`). */
  sampleWeights?: (dist: readonly EvidenceWeight[], t: number) => ArrayLike<number>;
  /** 'structured' (default when the system declares a `state` capability) or 'dense'. */
  representation?: 'dense' | 'structured';
  /** Consolidation scheduling (Sec. 7.3): Q only when the accumulated Ω exceeds this (> 0). */
  schedule?: number;
  /** Called after every step (see `LoopOptions.observe`). */
  observe?: LoopOptions['observe'];
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
  /** Whether Q was applied at this step (scheduled runs only). */
  consolidated?: boolean;
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
    rule: AlgorithmRule;
    sequence: readonly string[] | null;
    schedule: number | null;
  };
  /** 'dense' or 'structured'. */
  representation: 'dense' | 'structured';
  /** The structured final state, on a structured run. */
  state?: unknown;
  /** Applications of Q to the state (T unless scheduled). */
  consolidations: number;
  theta0: Float64Array;
  steps: StepRecord[];
  /** T: number of steps taken. */
  stoppedAt: number;
  stopReason: StopReason;
  /** θ_T (on a structured run the dense θ of `state`, built when first read: small d only). */
  finalState: Float64Array;
  /** Ω̂ at the last step (null if fewer than w steps). */
  finalWindowed: number | null;
  /**
   * The state with the smallest Ω̂_{t,w} of the run (the earliest on ties; null while t < w
   * throughout), kept as one copy whatever the run's length; `theta` built when first read on a
   * structured run.
   */
  best: { step: number; windowed: number; theta: Float64Array } | null;
}

/**
 * Runs Algorithm 1 — the package's one loop ({@link run}) with the order-gap rule — and returns
 * the whole trajectory. Identical seeds give identical runs.
 * When a `sequence` is given and ends before Tmax, the run ends with reason
 * 'evidence-exhausted'.
 * Cost per step: the system's step (its `step` or `orderGap` capability, else 2 Q + 2 P_e and
 * one O(d) distance) + O(w) for Ω̂.
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
  if (typeof options !== 'object' || options === null) throw new ArgumentError('options', options, 'must be an object');
  const epsilon = finiteNumber('epsilon', options.epsilon);
  if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  const window = integerInRange('window', options.window, 1);
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1);
  const rule = options.rule ?? 'order-gap';
  if (rule !== 'order-gap' && rule !== 'budget')
    throw new ArgumentError('rule', rule, "must be 'order-gap' or 'budget'");
  const stopping =
    rule === 'order-gap' ? new OrderGapRule({ epsilon, window }) : new FixedBudgetRule({ budget: maxSteps });
  // Ω̂_{t,w} while the loop runs, so the loop keeps the state with the smallest one
  const seen: number[] = [];
  const r = run(system, stopping, {
    maxSteps,
    bestScore: (s) => {
      seen.push(s.omega);
      return windowedMeanUnchecked(seen, window);
    },
    recordStates: options.recordStates ?? true,
    ...(options.representation !== undefined ? { representation: options.representation } : {}),
    ...(options.schedule !== undefined ? { schedule: options.schedule } : {}),
    ...(options.observe !== undefined ? { observe: options.observe } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.sequence !== undefined ? { sequence: options.sequence } : {}),
    ...(options.theta0 !== undefined ? { theta0: options.theta0 } : {}),
    ...(options.sampleWeights !== undefined ? { sampleWeights: options.sampleWeights } : {}),
  });
  // Ω̂_{t,w} of Eq. (3) for every step, whichever rule decided
  const omegas: number[] = [];
  const steps: StepRecord[] = r.steps.map((s) => {
    omegas.push(s.omega);
    const rec: StepRecord = {
      t: s.t,
      evidence: s.evidence,
      probability: s.probability,
      omega: s.omega,
      windowed: windowedMeanUnchecked(omegas, window),
    };
    if (s.theta) rec.theta = s.theta;
    if (s.consolidated !== undefined) rec.consolidated = s.consolidated;
    return rec;
  });
  const out = {
    system: system.name,
    dim: system.dim,
    options: { epsilon, window, maxSteps, seed: r.seed, rule, sequence: r.sequence, schedule: r.schedule },
    steps,
    stoppedAt: r.stop.step,
    stopReason: r.stop.reason,
    finalWindowed: windowedMeanUnchecked(omegas, window),
    representation: r.representation,
    consolidations: r.consolidations,
    ...(r.state !== undefined ? { state: r.state } : {}),
    best:
      r.best === null
        ? null
        : Object.defineProperty({ step: r.best.step, windowed: r.best.score }, 'theta', {
            enumerable: r.representation === 'dense',
            get: () => r.best!.theta,
          }),
  };
  // θ0 and θ_T as the loop gives them (built when first read on a structured run)
  return Object.defineProperties(out, {
    theta0: { enumerable: r.representation === 'dense', get: () => r.theta0 },
    finalState: { enumerable: r.representation === 'dense', get: () => r.finalState },
  }) as unknown as RecursiveRun;
}
