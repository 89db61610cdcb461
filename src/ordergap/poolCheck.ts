/**
 * The pool diagnostic of the coverage failure of Sec. 9.2 (needs no linearisation): at a stopping state θ_T,
 * evaluate Ω(θ_T; e) for every item of the evidence pool, sampled or not. An item with zero
 * probability whose order-gap exceeds ε means the stop was blind (pertinent evidence was never
 * reachable — the Sec. 9.2 coverage failure), not converged.
 */
import { checkState } from '../system/define.js';
import type { OperatorSystem } from '../system/types.js';
import { finiteNumber } from '../util/validate.js';
import { ArgumentError } from '../util/errors.js';
import { evaluateOrderGapUnchecked } from './orderGap.js';

/** Ω at the stopping state for one pool item. */
export interface PoolItemGap {
  evidence: string;
  /** P(e | θ_T). */
  p: number;
  /** Ω(θ_T; e). */
  omega: number;
  /** p = 0 and Ω > ε: an unreachable item that would still move the state. */
  blind: boolean;
}

/** Result of {@link checkPoolAtStop}. */
export interface PoolCheck {
  epsilon: number;
  items: PoolItemGap[];
  /** Ids of blind items; non-empty means the stop is not evidence of convergence. */
  blindItems: string[];
  /**
   * 'blind' when some zero-probability item would still move the state by more than ε, else
   * 'not-blind'. 'not-blind' is not convergence: reachable items (p > 0) may still have Ω > ε
   * and questions may be open — the coverage-aware stop (src/coverageStop) decides that.
   */
  verdict: 'not-blind' | 'blind';
}

/**
 * Evaluates Ω(θ; e) for every pool item at θ and flags zero-probability items with Ω > ε.
 * Cost: 2·|pool| applications of Q and P_e.
 * @throws {ArgumentError} θ malformed, ε not a finite number > 0.
 */
export function checkPoolAtStop(system: OperatorSystem, theta: ArrayLike<number>, epsilon: number): PoolCheck {
  const th = checkState('theta', system, theta);
  finiteNumber('epsilon', epsilon);
  if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  const items = system.evidenceAt(th).map(({ id, p }) => {
    const omega = evaluateOrderGapUnchecked(system, th, id).omega;
    return { evidence: id, p, omega, blind: p === 0 && omega > epsilon };
  });
  const blindItems = items.filter((i) => i.blind).map((i) => i.evidence);
  return { epsilon, items, blindItems, verdict: blindItems.length ? 'blind' : 'not-blind' };
}
