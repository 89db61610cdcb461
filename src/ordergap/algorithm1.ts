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
import { runParamsOf } from '../system/runParams.js';
import type { OperatorSystem } from '../system/types.js';
import { OrderGapRule } from '../stopping/orderGapRule.js';
import { observeOnly } from '../stopping/rule.js';
import { recordedStatesMemory, run, type LoopOptions, type RunResult } from './run.js';

/** Which stopping test Algorithm 1 applies: its own (Eq. 3), or none (a fixed budget). */
export type AlgorithmRule = 'order-gap' | 'budget';

/** Options of {@link runRecursive}: Algorithm 1's parameters and the loop's options. */
export interface RunOptions
  extends Pick<
    LoopOptions,
    'sequence' | 'theta0' | 'sampleWeights' | 'representation' | 'schedule' | 'observe' | 'recordResiduals'
  > {
  /** ε > 0: stop when Ω̂ <= ε (Eq. 3). */
  epsilon: number;
  /** w >= 1: window length (Eq. 3). */
  window: number;
  /** Tmax >= 1: the step budget. */
  maxSteps: number;
  /** Seed of the evidence sampler (integer in [0, 2^32)); default 0. */
  seed?: number;
  /** 'order-gap' (default) applies Algorithm 1's test; 'budget' runs to Tmax regardless. */
  rule?: AlgorithmRule;
  /**
   * Keep θ_t of every step: O(Tmax · d) memory. Default: true while the Tmax + 1 states take at
   * most {@link RECORD_STATES_DEFAULT_BYTES}, false beyond (a large system records nothing unless
   * asked; asked for more than the machine holds, the run is refused before it starts).
   */
  recordStates?: boolean;
}

/** The most memory {@link runRecursive} spends on recorded states unless asked for more: 256 MiB. */
export const RECORD_STATES_DEFAULT_BYTES = 256 * 2 ** 20;

/**
 * Runs Algorithm 1 — the package's one loop ({@link run}) with the order-gap rule — and returns
 * the whole trajectory; every step's `statistic` is Ω̂_{t,w} (Eq. 3, null while t < w), also
 * with `rule: 'budget'`, and `best` is the state with the smallest Ω̂. Identical seeds give
 * identical runs. When a `sequence` is given and ends before Tmax, the run ends with reason
 * 'evidence-exhausted'.
 * Cost per step: the system's step (its `step` or `orderGap` capability, else 2 Q + 2 P_e and
 * one O(d) distance) + O(w) for Ω̂.
 * @throws {ArgumentError} bad ε, w, Tmax, seed, θ0 or sequence (nothing runs).
 * @example
 * ```ts
 * const r = runRecursive(closedFormSystem(), {
 *   epsilon: 0.025, window: 2, maxSteps: 5, sequence: ['e1', 'e2', 'e3', 'e4', 'e5'],
 * });
 * r.stop.step;   // 4 (Sec. 9.2)
 * r.stop.reason; // 'order-gap'
 * ```
 */
export function runRecursive(system: OperatorSystem, options: RunOptions): RunResult {
  const p = runParamsOf(options);
  const rule = options.rule ?? 'order-gap';
  if (rule !== 'order-gap' && rule !== 'budget')
    throw new ArgumentError('rule', rule, "must be 'order-gap' or 'budget'");
  const test = new OrderGapRule({ epsilon: p.epsilon!, window: p.window! });
  const { rule: _rule, epsilon: _e, window: _w, ...loop } = options;
  return run(system, rule === 'order-gap' ? test : observeOnly(test), {
    ...loop,
    maxSteps: p.maxSteps!,
    seed: p.seed!,
    recordStates:
      options.recordStates ?? recordedStatesMemory(system.dim, p.maxSteps!).hostBytes <= RECORD_STATES_DEFAULT_BYTES,
  });
}
