/**
 * The linearised commutator Σ_e of Eq. (4) applied to a basis B of a subspace W, matrix-free.
 *
 *   Σ_e = DQ(θ*) DP_e(θ*) − DP_e(θ*) DQ(θ*)                                        (4)
 *
 * Writing DP_e = I + L_e, Σ_e = DQ L_e − L_e DQ, so for each basis vector b
 *
 *   Σ_e b = DQ (DP_e b − b) − (DP_e (DQ b) − DQ b),
 *
 * which (i) needs DQ b once per basis vector, shared by every evidence item, (ii) touches only
 * L_e's columns, which are sparse when P_e writes a small footprint, and (iii) never forms the
 * difference of two nearly equal products (no cancellation of DQ DP_e b against DP_e DQ b).
 *
 * Without redundancy (P_e(θ*) ≠ θ*) the exact derivative of F_e = Q∘P_e − P_e∘Q at θ* is
 *
 *   DF_e(θ*) = DQ(P_e(θ*)) DP_e(θ*) − DP_e(Q(θ*)) DQ(θ*),
 *
 * computed with Jacobians at the two shifted points; each item's report says which was used.
 */
import { referenceDistance } from '../blas1/dnrm2.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { sparseCombine, sparseNorm, type SparseVector } from '../linearize/sparse.js';
import { consolidateJacobian, expandJacobian, type EngineChoice } from '../linearize/systemJacobians.js';

/** Which linearisation an item uses. */
export type LinearizationKind = 'sigma' | 'exact';

/** How to choose: Eq. (4) where redundancy holds and DF_e elsewhere ('auto'), or force one. */
export type LinearizationMode = 'auto' | LinearizationKind;

/** Redundancy at the state for one evidence item. */
export interface RedundancyItem {
  evidence: string;
  p: number;
  /** ‖P_e(θ) − θ‖₂. */
  residual: number;
  /** residual <= the redundancy tolerance. */
  holds: boolean;
  /** 'sigma' = Σ_e of Eq. (4); 'exact' = DF_e(θ). */
  linearization: LinearizationKind;
}

/**
 * The linearisation of all operators at one state θ: DQ(θ) (shared), DP_e(θ) per item, and the
 * shifted Jacobians for items that use DF_e. Everything is created lazily and cached.
 */
export class Linearization {
  readonly system: OperatorSystem;
  readonly theta: Float64Array;
  readonly engine: EngineChoice;
  readonly DQ: JacobianOperator;
  readonly #expand = new Map<string, JacobianOperator>();
  readonly #expandAtQ = new Map<string, JacobianOperator>();
  readonly #consolidateAtP = new Map<string, JacobianOperator>();
  #Qtheta: Float64Array | undefined;

  constructor(system: OperatorSystem, theta: Float64Array, engine: EngineChoice, DQ?: JacobianOperator) {
    if (theta.length !== system.dim) throw new ArgumentError('theta', theta, `must have length ${system.dim}`);
    this.system = system;
    this.theta = theta;
    this.engine = engine;
    this.DQ = DQ ?? consolidateJacobian(system, theta, engine);
  }

  /** Relative accuracy of the Jacobians (the engine's). */
  get relativeAccuracy(): number {
    return this.DQ.relativeAccuracy;
  }

  /** DP_e(θ). */
  expand(e: string): JacobianOperator {
    let J = this.#expand.get(e);
    if (!J) {
      J = expandJacobian(this.system, e, this.theta, this.engine);
      this.#expand.set(e, J);
    }
    return J;
  }

  /** Q(θ) (cached). */
  get consolidated(): Float64Array {
    this.#Qtheta ??= this.system.consolidate(this.theta);
    return this.#Qtheta;
  }

  /** DP_e(Q(θ)) for DF_e. */
  expandAtConsolidated(e: string): JacobianOperator {
    let J = this.#expandAtQ.get(e);
    if (!J) {
      J = expandJacobian(this.system, e, this.consolidated, this.engine);
      this.#expandAtQ.set(e, J);
    }
    return J;
  }

  /** DQ(P_e(θ)) for DF_e. */
  consolidateAtExpanded(e: string): JacobianOperator {
    let J = this.#consolidateAtP.get(e);
    if (!J) {
      J = consolidateJacobian(this.system, this.system.expand(e, this.theta), this.engine);
      this.#consolidateAtP.set(e, J);
    }
    return J;
  }

  /** Every Jacobian operator created so far (for statistics). */
  operators(): JacobianOperator[] {
    return [this.DQ, ...this.#expand.values(), ...this.#expandAtQ.values(), ...this.#consolidateAtP.values()];
  }

  /**
   * Releases every Jacobian operator created so far (wasm-resident ones hold arena blocks), DQ
   * included. Idempotent; counters stay readable afterwards.
   */
  release(): void {
    for (const op of this.operators()) op.release?.();
  }

  /** {@link release}, for `using lin = new Linearization(...)`. */
  [Symbol.dispose](): void {
    this.release();
  }
}

/**
 * Tolerance of the redundancy test ‖P_e(θ) − θ‖ <= τ: τ = r·max(1, ‖θ‖_∞) with r the Jacobian's
 * relative accuracy. Replacing DF_e by Σ_e changes it by O(‖D²‖·residual); below τ that change
 * is below the Jacobian's own error (for unit curvature), so Eq. (4) is as good as DF_e.
 */
export function redundancyTolerance(theta: Float64Array, relativeAccuracy: number): number {
  let xmax = 1;
  for (let i = 0; i < theta.length; i++) xmax = Math.max(xmax, Math.abs(theta[i]!));
  return relativeAccuracy * xmax;
}

/**
 * Redundancy residuals ‖P_e(θ) − θ‖ for every item of the pool and the linearisation each will
 * use under `mode`. Cost: one P_e per item.
 */
export function measureRedundancy(
  lin: Linearization,
  pool: readonly { id: string; p: number }[],
  mode: LinearizationMode = 'auto',
): RedundancyItem[] {
  const tol = redundancyTolerance(lin.theta, lin.relativeAccuracy);
  return pool.map(({ id, p }) => {
    const residual = referenceDistance(lin.system.expand(id, lin.theta), lin.theta);
    const holds = residual <= tol;
    const linearization: LinearizationKind = mode === 'auto' ? (holds ? 'sigma' : 'exact') : mode;
    return { evidence: id, p, residual, holds, linearization };
  });
}

/** DQ(θ) b for each basis vector (the shared part). */
export function consolidateImages(lin: Linearization, basis: readonly SparseVector[]): SparseVector[] {
  const cols = new Set<number>();
  for (const b of basis) if (b.index.length <= 64) for (const j of b.index) cols.add(j);
  lin.DQ.prefetch([...cols]);
  return basis.map((b) => lin.DQ.apply(b));
}

/**
 * Σ_e b (Eq. 4) or DF_e b for every basis vector b, given the shared images DQ b.
 * Cost ('sigma'): per basis vector one DP_e application to b and to DQ b and one DQ application
 * to the sparse L_e b; ('exact') the same with Jacobians at P_e(θ) and Q(θ).
 */
export function commutatorColumns(
  lin: Linearization,
  e: string,
  basis: readonly SparseVector[],
  qImages: readonly SparseVector[],
  kind: LinearizationKind,
): SparseVector[] {
  if (qImages.length !== basis.length)
    throw new ArgumentError('qImages', qImages, `must have one image per basis vector (${basis.length})`);
  const DP = lin.expand(e);
  if (kind === 'sigma') {
    return basis.map((b, j) => {
      const qb = qImages[j]!;
      const Lb = sparseCombine(1, DP.apply(b), -1, b);
      const first = lin.DQ.apply(Lb);
      const LQb = sparseCombine(1, DP.apply(qb), -1, qb);
      return sparseCombine(1, first, -1, LQb);
    });
  }
  const DQp = lin.consolidateAtExpanded(e);
  const DPq = lin.expandAtConsolidated(e);
  return basis.map((b, j) => {
    const first = DQp.apply(DP.apply(b));
    const second = DPq.apply(qImages[j]!);
    return sparseCombine(1, first, -1, second);
  });
}

/** ‖M‖_F of a list of sparse columns. */
export function frobenius(cols: readonly SparseVector[]): number {
  let s = 0;
  for (const c of cols) s += sparseNorm(c) ** 2;
  return Math.sqrt(s);
}
