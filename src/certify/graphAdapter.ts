/**
 * Adapter from the reference-graph system (src/graph) to the linearisation extensions of the
 * operator contract: each item's footprint (P_e is an affine blend there, identity elsewhere,
 * reading only the footprint — MATH.md §6), the analytic Lipschitz bound of Q on the
 * confidence block (valid on the unit cube), and the item-direction bases W_q of MATH.md §4.
 */
import type { ReferenceGraphSystem } from '../graph/system.js';
import { questionBasis } from '../graph/system.js';
import type { OperatorSystem } from '../system/types.js';
import type { SubspaceSpec } from './basis.js';

/** A reference-graph system with `footprint` and `lipschitz` on its spec. */
export function withGraphLinearization(system: ReferenceGraphSystem): OperatorSystem {
  const scenario = system.scenario;
  const spec = {
    ...system.spec,
    footprint: (id: string): number[] => Array.from(scenario.itemById.get(id)?.footprint ?? []),
    lipschitz: { confidence: system.confidenceBound.modulus },
  };
  return Object.freeze({ ...system, spec });
}

/**
 * W_q for every question the pool writes, as spanning vectors: one per item, its displacement
 * target − θ on q's coordinates (MATH.md §4's recommendation; ./basis.ts orthonormalises them
 * and drops repeats).
 */
export function graphQuestionSpaces(system: ReferenceGraphSystem, theta: Float64Array): SubspaceSpec[] {
  return Object.keys(system.questions).map((q) => ({
    name: q,
    vectors: questionBasis(system.scenario, theta, q).map((d) => d.vector),
  }));
}
