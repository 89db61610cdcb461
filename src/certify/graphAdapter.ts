/**
 * Adapter from the reference-graph system (src/graph) to the linearisation extensions of the
 * operator contract: each item's footprint (P_e is an affine blend there, identity elsewhere,
 * reading only the footprint — MATH.md §6), the analytic Lipschitz bound of Q on the
 * confidence block (valid on the unit cube), the tfjs forms of Q and P_e (for
 * `--jacobian autodiff`), the graph's wasm kernel for Q once `init()` has run (the
 * graph suite checks they agree with the TypeScript reference to 1e-12), and the
 * item-direction bases W_q of MATH.md §4.
 */
import { referenceGraphBackend, wasmGraphBackend } from '../graph/backend.js';
import type { ReferenceGraphSystem } from '../graph/system.js';
import { questionBasis } from '../graph/system.js';
import { consolidateTf, expandTf, type GraphTfMap } from '../graph/tfjs.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { isInitialized } from '../wasm/module.js';
import type { SubspaceSpec } from './basis.js';
import { GraphConsolidateJacobian } from '../graph/consolidateJacobian.js';

/** A reference-graph system with `footprint`, `lipschitz` and the tfjs forms on its spec. */
export function withGraphLinearization(system: ReferenceGraphSystem): OperatorSystem {
  const scenario = system.scenario;
  const { shape, params } = scenario;
  const item = (id: string) => {
    const it = scenario.itemById.get(id);
    if (!it) throw new ArgumentError('evidenceId', id, `is not an evidence item of ${system.name}`);
    return it;
  };
  const backend = () => (isInitialized() ? wasmGraphBackend : referenceGraphBackend);
  let qTf: GraphTfMap | undefined;
  const eTf = new Map<string, GraphTfMap>();
  const spec = {
    ...system.spec,
    consolidate: (theta: Float64Array) => backend().consolidate(shape, params, theta),
    // P_e writes only its footprint: the TypeScript blend (one copy of θ) beats copying θ into
    // wasm memory and back
    expand: (id: string, theta: Float64Array) => referenceGraphBackend.expand(item(id), theta),
    footprint: (id: string): number[] => Array.from(item(id).footprint),
    lipschitz: { confidence: system.confidenceBound.modulus },
    consolidateJacobianFd: (x: Float64Array) =>
      isInitialized() ? new GraphConsolidateJacobian(scenario, x) : undefined,
    consolidateTf: (...a: Parameters<GraphTfMap>) => (qTf ??= consolidateTf(shape, params))(...a),
    expandTf: (tf: Parameters<GraphTfMap>[0], id: string, X: Parameters<GraphTfMap>[1]) => {
      let m = eTf.get(id);
      if (!m) eTf.set(id, (m = expandTf(item(id), system.dim)));
      return m(tf, X);
    },
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
