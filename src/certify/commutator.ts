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
import { eigh, gramAccumulate } from '../linalg/api.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { sparseCombine, sparseNorm, type SparseVector } from '../linearize/sparse.js';
import { namedComponents, type NamedComponent } from './describe.js';
import { basisCombinations } from './subspace.js';
import { activeColumns, stackBlock } from './nondegeneracy.js';
import {
  consolidateJacobian,
  expandJacobian,
  footprintOf,
  rawOperators,
  type EngineChoice,
  type RawOperators,
} from '../linearize/systemJacobians.js';

/** Where P_e(θ) differs from θ: the coordinates (ascending) and P_e(θ)'s entries there. */
export interface ExpandedChange {
  readonly index: Int32Array;
  readonly value: Float64Array;
}

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
  readonly #change = new Map<string, ExpandedChange>();
  #Qtheta: Float64Array | undefined;
  /** Q and P_e with a block copy and one-pass finiteness check (the validating wrapper checks element by element: ~3 ms per call at d = 2e5). */
  readonly #raw: RawOperators;
  /** The same without the copies of θ and of the output (a scratch input handed over, a result read at once and dropped). */
  readonly #rawUncopied: RawOperators;

  constructor(system: OperatorSystem, theta: Float64Array, engine: EngineChoice, DQ?: JacobianOperator) {
    if (theta.length !== system.dim) throw new ArgumentError('theta', theta, `must have length ${system.dim}`);
    this.system = system;
    this.theta = theta;
    this.engine = engine;
    this.#raw = rawOperators(system);
    this.#rawUncopied = rawOperators(system, { copy: false, inputOwned: true });
    this.DQ = DQ ?? consolidateJacobian(system, theta, engine);
  }

  /** Relative accuracy of the Jacobians (the engine's). */
  get relativeAccuracy(): number {
    return this.DQ.relativeAccuracy;
  }

  /** The operator cached under `e` in `cache`, made on first use. */
  #cached(cache: Map<string, JacobianOperator>, e: string, make: () => JacobianOperator): JacobianOperator {
    let J = cache.get(e);
    if (!J) {
      J = make();
      cache.set(e, J);
    }
    return J;
  }

  /** DP_e(θ). */
  expand(e: string): JacobianOperator {
    return this.#cached(this.#expand, e, () => expandJacobian(this.system, e, this.theta, this.engine));
  }

  /**
   * Where P_e(θ) differs from θ, and its entries there (compared bit for bit): P_e evaluated once
   * per item on a copy of θ (an operator may mutate its input) — in `scratch` when given, so a
   * pass over the pool allocates one d-array, not one per item — O(footprint) kept. With a
   * declared footprint only its coordinates are compared (the contract of
   * `linearization.footprint`: P_e leaves every other coordinate as it is), not all d.
   */
  expandedChange(e: string, scratch?: Float64Array): ExpandedChange {
    let change = this.#change.get(e);
    if (!change) {
      const theta = this.theta;
      // P_e on a copy of θ (in `scratch` when given: one d-array for every item), handed over to
      // the operator (no hygienic second copy), read here, not kept
      const input = scratch ?? new Float64Array(theta.length);
      input.set(theta);
      const p = this.#rawUncopied.expand(e, input);
      // compared bit for bit through 32-bit views (−0 differs from 0; both arrays are finite), on
      // P_e's declared footprint when there is one (P_e(θ)_i = θ_i off it: OperatorCapabilities)
      const pw = new Int32Array(p.buffer, p.byteOffset, 2 * p.length);
      const tw = new Int32Array(theta.buffer, theta.byteOffset, 2 * theta.length);
      const index: number[] = [];
      const differs = (i: number) => pw[2 * i] !== tw[2 * i] || pw[2 * i + 1] !== tw[2 * i + 1];
      const footprint = footprintOf(this.system, e)?.sort();
      if (footprint) {
        for (let k = 0; k < footprint.length; k++) {
          const i = footprint[k]!;
          if ((k === 0 || i !== footprint[k - 1]) && differs(i)) index.push(i);
        }
      } else for (let i = 0; i < p.length; i++) if (differs(i)) index.push(i);
      change = { index: Int32Array.from(index), value: Float64Array.from(index, (i) => p[i]!) };
      this.#change.set(e, change);
    }
    return change;
  }

  /** P_e(θ) (a fresh array: θ with {@link expandedChange} written in). */
  expanded(e: string): Float64Array {
    const { index, value } = this.expandedChange(e);
    const out = new Float64Array(this.theta);
    for (let k = 0; k < index.length; k++) out[index[k]!] = value[k]!;
    return out;
  }

  /** Q(θ) (cached). */
  get consolidated(): Float64Array {
    this.#Qtheta ??= this.#raw.consolidate(new Float64Array(this.theta)); // a fresh input: an operator may mutate it
    return this.#Qtheta;
  }

  /** DP_e(Q(θ)) for DF_e. */
  expandAtConsolidated(e: string): JacobianOperator {
    return this.#cached(this.#expandAtQ, e, () => expandJacobian(this.system, e, this.consolidated, this.engine));
  }

  /**
   * DQ(P_e(θ)) for DF_e: from DQ(θ) and P_e's change where the engine can (`near`: no O(d) work
   * per item on the reference graph), else at the dense P_e(θ).
   */
  consolidateAtExpanded(e: string): JacobianOperator {
    return this.#cached(this.#consolidateAtP, e, () => {
      const { index, value } = this.expandedChange(e);
      return this.DQ.near?.(index, value) ?? consolidateJacobian(this.system, this.expanded(e), this.engine);
    });
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
  const scratch = new Float64Array(lin.theta.length);
  return pool.map(({ id, p }) => {
    // on the changed coordinates only: the others add exact zeros to the distance's max and sum
    const { index, value } = lin.expandedChange(id, scratch);
    const residual = referenceDistance(
      value,
      Float64Array.from(index, (i) => lin.theta[i]!),
    );
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

/**
 * Every item's Σ_e B or DF_e B (by its redundancy verdict) on one basis: the shared images DQ b,
 * then {@link commutatorColumns} per item — the columns the certification decides a subspace
 * from, for {@link commutatorGramian} or `decideNonDegeneracy`.
 * @param redundancy one entry per pool item (from {@link measureRedundancy}), in pool order
 */
export function subspaceColumns(
  lin: Linearization,
  basis: readonly SparseVector[],
  redundancy: readonly RedundancyItem[],
): ItemColumns[] {
  const images = consolidateImages(lin, basis);
  return redundancy.map((r) => ({
    evidence: r.evidence,
    weight: r.p,
    columns: commutatorColumns(lin, r.evidence, basis, images, r.linearization),
  }));
}

/** ‖M‖_F of a list of sparse columns. */
export function frobenius(cols: readonly SparseVector[]): number {
  let s = 0;
  for (const c of cols) s += sparseNorm(c) ** 2;
  return Math.sqrt(s);
}

/** One item's Σ_e B (or DF_e B) columns and its weight p_e. */
export interface ItemColumns {
  evidence: string;
  weight: number;
  columns: readonly SparseVector[];
}

/** Result of {@link commutatorGramian}. */
export interface CommutatorGramian {
  /** m = dim W (the basis size). */
  dim: number;
  /** G_W = Σ_e p_e (Σ_e B)ᵀ(Σ_e B) (Eq. 5 restricted to W, Prop. 5.2), m×m row-major. */
  matrix: Float64Array;
  /** Eigenvalues of G_W, descending (linalg's eigh). */
  eigenvalues: Float64Array;
  /**
   * Their absolute accuracy m·eps·λ_max(G_W) (eigh is backward stable: |λ̂ − λ| <= O(m·eps)·‖G_W‖):
   * eigenvalues below it are rounding, whatever their sign. Forming G_W squares the stack's
   * singular values, so this is the smallest λ the Gramian can resolve — typically far above
   * the λ-tolerance (σ-tol² ~ (4·eps^(2/3)·γ)²) the streaming QR of the stack resolves, which is
   * why the non-degeneracy decision is taken on the stack (docs/certify.md).
   */
  resolution: number;
  /** The threshold the kernel below uses: max(λ-tolerance, resolution). */
  kernelThreshold: number;
  /** Eigenvectors of the eigenvalues <= kernelThreshold, in θ coordinates (B·u), orthonormal. */
  kernelVectors: SparseVector[];
  /** The same, each by its largest named entries (system.describeCoordinate). */
  kernel: NamedComponent[][];
  /** Rows of the weighted stack accumulated (the union of each item's non-zero rows, per item). */
  stackRows: number;
}

/**
 * The commutator Gramian G_W = Σ_e p_e (Σ_e B)ᵀ(Σ_e B) from the items' columns, accumulated
 * item by item with linalg's Gramian kernel (`gramAccumulate`: wasm syrk on the rows where the
 * item's columns are non-zero, weight p_e), its eigenvalues and the kernel basis of its small
 * eigenvalues in named coordinates. Formed and decomposed on the stack's non-zero columns only
 * (`activeColumns`): a zero column of the stack is a zero row and column of G_W, an exact
 * eigenvalue 0 with its unit vector (ordered after G_W's own eigenvalues equal to it). Cost:
 * Σ_e rows_e·m'² flops for the syrk + ~9m'³ for eigh, m' the non-zero columns (eigh skipped when
 * G_W is exactly 0: then every eigenvalue is 0 and the kernel is B itself).
 * @param basis the orthonormal basis B of W (θ coordinates)
 * @param lambdaTolerance the decision's λ-tolerance (the kernel threshold is at least this)
 * @throws {ArgumentError} an item whose column count differs from the basis size.
 * @example
 * ```ts
 * const g = commutatorGramian(system, basis.vectors, items, decision.tolerance);
 * g.eigenvalues[0]; // λ_max(G_W)
 * ```
 */
export function commutatorGramian(
  system: OperatorSystem,
  basis: readonly SparseVector[],
  items: readonly ItemColumns[],
  lambdaTolerance: number,
): CommutatorGramian {
  const m = basis.length;
  // G_W on the stack's non-zero columns; its other rows and columns are exact zeros
  const keep = activeColumns(items, m);
  const mk = keep.length;
  const Gk = new Float64Array(mk * mk);
  let stackRows = 0;
  for (const it of items) {
    if (!(it.weight > 0) || m === 0) continue;
    const b = stackBlock(it.columns, keep);
    if (!b) continue;
    if (mk > 0) gramAccumulate(Gk, b.block, b.rows, mk, it.weight);
    stackRows += b.rows;
  }
  const G = new Float64Array(m * m);
  for (let r = 0; r < mk; r++) for (let c = 0; c < mk; c++) G[keep[r]! * m + keep[c]!] = Gk[r * mk + c]!;
  let zero = true;
  for (let i = 0; i < Gk.length && zero; i++) zero = Gk[i] === 0;
  // eigenpairs: G_k's (ascending), and an exact 0 with e_j for each zero column j
  const ek = zero || mk === 0 ? null : eigh(Gk, mk);
  const pairs: { value: number; column: number; kept: boolean }[] = [];
  for (let c = 0; c < mk; c++) pairs.push({ value: ek ? ek.values[c]! : 0, column: c, kept: true });
  for (let j = 0, c = 0; j < m; j++) {
    if (c < mk && keep[c] === j) c++;
    else pairs.push({ value: 0, column: j, kept: false });
  }
  pairs.sort((a, b) => a.value - b.value); // stable: G_k's before the zero columns' at equal values
  const values = Float64Array.from(pairs, (p) => p.value);
  const lambdaMax = m > 0 ? Math.max(0, values[m - 1]!) : 0;
  const resolution = m * Number.EPSILON * lambdaMax;
  const kernelThreshold = Math.max(lambdaTolerance, resolution);
  let small = 0;
  while (small < m && values[small]! <= kernelThreshold) small++;
  const coef = new Float64Array(m * small);
  for (let k = 0; k < small; k++) {
    const p = pairs[k]!;
    if (!p.kept) coef[p.column * small + k] = 1;
    else if (!ek)
      coef[keep[p.column]! * small + k] = 1; // G_k = 0: its unit vectors
    else for (let c = 0; c < mk; c++) coef[keep[c]! * small + k] = ek.vectors[c * mk + p.column]!;
  }
  const kernelVectors = basisCombinations(system.dim, basis, coef, small, small, 'moved');
  const kernel = kernelVectors.map((v) => namedComponents(system, v.value, v.index));
  return {
    dim: m,
    matrix: G,
    eigenvalues: Float64Array.from(values).reverse(),
    resolution,
    kernelThreshold,
    kernelVectors,
    kernel,
    stackRows,
  };
}
