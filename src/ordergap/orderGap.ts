/**
 * The order-gap, Eq. (2): Ω(θ; e) = ‖Q(P_e(θ)) − P_e(Q(θ))‖₂ with the same realised e in both
 * orderings (Def. 5.1). The norm is the overflow-safe Euclidean distance of src/blas1.
 */
import { referenceDistance } from '../blas1/dnrm2.js';
import { checkState } from '../system/define.js';
import type { OperatorSystem } from '../system/types.js';

/** Both orderings and their distance. */
export interface OrderGapEvaluation {
  /** Ω(θ; e) of Eq. (2). */
  omega: number;
  /** Q(P_e(θ)): what the system computes (expand, then consolidate) — θ_{t+1} of Eq. (1). */
  expandThenConsolidate: Float64Array;
  /** P_e(Q(θ)): the hypothetical ordering, used only to measure the gap. */
  consolidateThenExpand: Float64Array;
}

/**
 * Evaluates both orderings and Ω without validating θ (the unchecked tier; the operators'
 * outputs are still validated by the system wrapper). Cost: two Q and two P_e applications
 * plus one O(d) distance.
 */
export function evaluateOrderGapUnchecked(
  system: OperatorSystem,
  theta: Float64Array,
  evidenceId: string,
): OrderGapEvaluation {
  return orderGapOfMaps(
    (t) => system.expand(evidenceId, t),
    (t) => system.consolidate(t),
    theta,
  );
}

/**
 * Ω(θ; e) of Eq. (2) from the two maps P_e and Q given as functions: the one definition every
 * evaluation above goes through, also for callers holding a system's maps without the contract's
 * checks. With `scratch`, the maps are called with an output array (`map(θ, out)`, out possibly
 * its own input) and the two orderings are formed in `scratch[0]` and `scratch[1]`, which the
 * evaluation then returns — no allocation per call; the maps must then write into `out` and may
 * not keep it. The numbers are the same either way.
 * Cost: two Q and two P_e applications plus one O(d) distance.
 */
export function orderGapOfMaps(
  expand: (theta: Float64Array, out?: Float64Array) => Float64Array,
  consolidate: (theta: Float64Array, out?: Float64Array) => Float64Array,
  theta: Float64Array,
  scratch?: readonly [Float64Array, Float64Array],
): OrderGapEvaluation {
  const expandThenConsolidate = scratch
    ? consolidate(expand(theta, scratch[0]), scratch[0])
    : consolidate(expand(theta));
  const consolidateThenExpand = scratch
    ? expand(consolidate(theta, scratch[1]), scratch[1])
    : expand(consolidate(theta));
  return {
    omega: referenceDistance(expandThenConsolidate, consolidateThenExpand),
    expandThenConsolidate,
    consolidateThenExpand,
  };
}

/**
 * Ω(θ; e) of Eq. (2), with both orderings.
 * @throws {ArgumentError} θ has the wrong length or a non-finite entry; e is unknown.
 * @example
 * ```ts
 * const sys = closedFormSystem();
 * evaluateOrderGap(sys, Float64Array.of(0.2, 0.8), 'e1').omega; // 0.0288 = 0.9·0.05·0.8·0.8 (Eq. 12)
 * ```
 */
export function evaluateOrderGap(
  system: OperatorSystem,
  theta: ArrayLike<number>,
  evidenceId: string,
): OrderGapEvaluation {
  return evaluateOrderGapUnchecked(system, checkState('theta', system, theta), evidenceId);
}

/**
 * Ω(θ; e) of Eq. (2) as a number.
 * @throws {ArgumentError} as {@link evaluateOrderGap}.
 */
export function orderGap(system: OperatorSystem, theta: ArrayLike<number>, evidenceId: string): number {
  return evaluateOrderGap(system, theta, evidenceId).omega;
}
