/**
 * The pool check at a stopping state θ_T (needs no linearisation): Ω(θ_T; e) for every item of
 * the evidence pool, sampled or not. An item with Ω > ε would still move the state by more than
 * the threshold the stop was taken at; one of them with probability zero is *unreachable* — the
 * loop can never draw it (the coverage failure of Sec. 9.2).
 *
 * Vocabulary: the pool check names items (moving, unreachable); it does not call a stop blind.
 * Whether a stop is converged or blind is the coverage check's verdict (src/coverageStop/check.ts:
 * every question covered and no pool item with Ω > ε), which reads this check's items.
 */
import { checkState } from '../system/define.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { positiveNumber } from '../util/validate.js';
import { evaluateOrderGapUnchecked } from './orderGap.js';

/** Ω at the stopping state for one pool item. */
export interface PoolItemGap {
  evidence: string;
  /** P(e | θ_T). */
  p: number;
  /** Ω(θ_T; e). */
  omega: number;
  /** p = 0 and Ω > ε: an item the loop can never draw that would still move the state. */
  unreachable: boolean;
}

/** Result of {@link checkPoolAtStop}. */
export interface PoolCheck {
  epsilon: number;
  items: PoolItemGap[];
  /** Ids of the unreachable items that would still move the state (p = 0, Ω > ε). */
  unreachableItems: string[];
  /**
   * 'unreachable' when some zero-probability item would still move the state by more than ε
   * (Sec. 9.2's coverage failure: the stop is no evidence of convergence), else 'reachable'.
   * 'reachable' is not convergence: reachable items (p > 0) may still have Ω > ε and questions
   * may be uncovered — the coverage check (src/coverageStop) decides converged or blind.
   */
  verdict: 'unreachable' | 'reachable';
}

/**
 * The pool check from P(·|θ_T) and Ω(θ_T; ·), however the state is held: the one computation
 * behind {@link checkPoolAtStop} and the run report's check on a structured state.
 * @throws {ArgumentError} ε not a finite number > 0.
 */
export function poolCheckOf(
  distribution: readonly EvidenceWeight[],
  omegaOf: (evidence: string) => number,
  epsilon: number,
): PoolCheck {
  positiveNumber('epsilon', epsilon);
  const items = distribution.map(({ id, p }) => {
    const omega = omegaOf(id);
    return { evidence: id, p, omega, unreachable: p === 0 && omega > epsilon };
  });
  const unreachableItems = items.filter((i) => i.unreachable).map((i) => i.evidence);
  return { epsilon, items, unreachableItems, verdict: unreachableItems.length ? 'unreachable' : 'reachable' };
}

/**
 * Evaluates Ω(θ; e) for every pool item at θ and flags the unreachable items with Ω > ε.
 * Cost: 2·|pool| applications of Q and P_e.
 * @throws {ArgumentError} θ malformed, ε not a finite number > 0.
 */
export function checkPoolAtStop(system: OperatorSystem, theta: ArrayLike<number>, epsilon: number): PoolCheck {
  const th = checkState('theta', system, theta);
  positiveNumber('epsilon', epsilon);
  return poolCheckOf(system.evidenceAt(th), (id) => evaluateOrderGapUnchecked(system, th, id).omega, epsilon);
}
