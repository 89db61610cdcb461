/**
 * Per-question coverage (Remark 5.4, in the reading of docs/certify.md step 6): a question q is covered iff
 * Prop. 5.2 holds on its subspace W_q under the evidence distribution P(·|θ). Reported per q:
 * covered?, λ_min(G_Wq) under P, λ_min under the whole pool (every pool item equally likely),
 * their ratio (weak coverage: pertinent items rarely sampled), the items that contribute most,
 * and the BLIND items: pool items with probability 0 whose commutator on W_q is above the
 * tolerance — they would move q but can never be drawn (the Sec. 9.2 failure, where the
 * pertinent items e2, e3 have zero probability and the order-gap stays small for the wrong
 * reason).
 */
import type { SparseVector } from '../linearize/sparse.js';
import type { OperatorSystem } from '../system/types.js';
import {
  decideNonDegeneracy,
  type Contribution,
  type NonDegeneracyDecision,
  type ToleranceDerivation,
} from './nondegeneracy.js';

/** Coverage of one question. */
export interface QuestionCoverage {
  question: string;
  /** 'question' when declared by the system, 'subspace' when a named subspace stands in. */
  source: 'question' | 'subspace';
  dim: number;
  covered: boolean;
  lambdaMin: number;
  /** λ_min under the whole pool (uniform over every pool item). */
  lambdaMinPool: number;
  /** lambdaMin / lambdaMinPool, null when the pool itself does not cover q. */
  coverageRatio: number | null;
  /** Covered by the whole pool at all. */
  coverableByPool: boolean;
  tolerance: number;
  /** Items with the largest share of trace(G_Wq) under P (only those whose p·‖Σ_e B_q‖_F² exceeds the λ-tolerance). */
  topContributors: Contribution[];
  /** p = 0 items whose ‖Σ_e B_q‖_F exceeds the σ-tolerance. */
  blindItems: string[];
  kernelDim: number;
  /** One-line reading of the result. */
  summary: string;
}

/**
 * Decides coverage of one question from the items' columns Σ_e B_q (computed once, weighted
 * twice: by P and by the uniform pool).
 */
export function questionCoverage(
  system: OperatorSystem,
  question: string,
  source: 'question' | 'subspace',
  basis: readonly SparseVector[],
  items: readonly { evidence: string; p: number; columns: readonly SparseVector[] }[],
  tolerance: (rows: number, m: number) => ToleranceDerivation,
): QuestionCoverage & { decision: NonDegeneracyDecision } {
  const underP = decideNonDegeneracy(
    system,
    basis,
    items.map((it) => ({ evidence: it.evidence, weight: it.p, columns: it.columns })),
    tolerance,
  );
  const uniform = 1 / items.length;
  const underPool = decideNonDegeneracy(
    system,
    basis,
    items.map((it) => ({ evidence: it.evidence, weight: uniform, columns: it.columns })),
    tolerance,
  );
  const sigmaTol = Math.sqrt(underP.tolerance);
  const normOf = new Map(underPool.contributions.map((c) => [c.evidence, c.norm]));
  const blindItems = items
    .filter((it) => it.p === 0 && (normOf.get(it.evidence) ?? 0) > sigmaTol)
    .map((it) => it.evidence);
  const coverageRatio = underPool.nonDegenerate ? underP.lambdaMin / underPool.lambdaMin : null;
  let summary: string;
  if (!underPool.nonDegenerate)
    summary = `not coverable: no pool item moves ${underPool.kernelDim} of ${basis.length} direction(s) of W_q at this state`;
  else if (!underP.nonDegenerate)
    summary = `NOT covered under P: the supported items leave ${underP.kernelDim} direction(s) unseen${blindItems.length ? `; blind items (p = 0) that would see them: ${blindItems.join(', ')}` : ''}`;
  else
    summary =
      `covered (λ_min = ${underP.lambdaMin.toExponential(3)}, ratio to the whole pool ${coverageRatio!.toPrecision(3)})` +
      (blindItems.length ? `; blind items (p = 0) that would move q: ${blindItems.join(', ')}` : '');
  return {
    question,
    source,
    dim: basis.length,
    covered: underP.nonDegenerate,
    lambdaMin: underP.lambdaMin,
    lambdaMinPool: underPool.lambdaMin,
    coverageRatio,
    coverableByPool: underPool.nonDegenerate,
    tolerance: underP.tolerance,
    topContributors: underP.contributions
      .filter((c) => c.share > 0 && c.weight * c.norm * c.norm > underP.tolerance)
      .slice(0, 5),
    blindItems,
    kernelDim: underP.kernelDim,
    summary,
    decision: underP,
  };
}
