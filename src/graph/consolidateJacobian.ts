/**
 * DQ of the reference graph operators by central differences on the graph's wasm kernel, with
 * θ kept in wasm memory between evaluations.
 *
 * Q leaves the edge block unchanged and writes only the node block (the first (k+1)·Nmax
 * coordinates; docs/graph.md), so column j of DQ is the node-block difference quotient plus,
 * for an edge coordinate j, the identity entry 1 at row j (Q copies θ_j: the quotient
 * ((θ_j + h) − (θ_j − h))/((θ_j + h) − (θ_j − h)) is exactly 1). Each evaluation changes one
 * entry of the resident θ and runs the node-block kernel: no copy of the d-vector in or out,
 * which at d ≈ 2e5 costs more than the kernel. Same step and accuracy as {@link FdJacobian}.
 */
import { wasmConsolidateNodeBlock } from './backend.js';
import type { Scenario } from './scenario.js';
import { centralStep, directionalStep, finiteCopy, takenStep } from '../linearize/finiteDifference.js';
import { FD_RELATIVE_ACCURACY, type JacobianOperator, type JacobianStats } from '../linearize/operator.js';
import { SparseAccumulator, type SparseVector } from '../linearize/sparse.js';
import { ArgumentError } from '../util/errors.js';
import type { F64Block } from '../wasm/arena.js';
import { wasm } from '../wasm/module.js';

/**
 * DQ(x) for the reference graph (see the module comment). It holds two wasm blocks (the resident
 * θ and the node block) from its first evaluation on; {@link release} frees them, and so does
 * `[Symbol.dispose]()`, so `using J = new GraphConsolidateJacobian(scenario, x)` frees them when
 * the enclosing block ends, however it ends. A method that throws has freed them already (and
 * left no shifted coordinate behind): the operator stays usable and re-creates them on demand.
 * @throws {ArgumentError} x of the wrong length or not finite; wasm not initialised.
 * @example
 * ```ts
 * await init();
 * using J = new GraphConsolidateJacobian(system.scenario, theta);
 * J.column(0); // DQ e_0 (sparse); the blocks are freed at the end of the block
 * ```
 */
export class GraphConsolidateJacobian implements JacobianOperator, Disposable {
  readonly method = 'fd' as const;
  readonly relativeAccuracy = FD_RELATIVE_ACCURACY;
  readonly dim: number;
  readonly outDim: number;
  readonly stats: JacobianStats = { evaluations: 0, columns: 0, directional: 0 };
  readonly #scenario: Scenario;
  readonly #x: Float64Array;
  readonly #nodeLen: number;
  readonly #cache = new Map<number, SparseVector>();
  #theta: F64Block | undefined;
  #node: F64Block | undefined;
  /** Accumulates apply()'s sums. */
  #acc: SparseAccumulator | undefined;
  /** Accumulates one column's quotients (not #acc: apply() calls column() mid-sum). */
  #colAcc: SparseAccumulator | undefined;

  constructor(scenario: Scenario, x: ArrayLike<number>) {
    this.#scenario = scenario;
    if (x.length !== scenario.layout.dim) throw new ArgumentError('x', x, `must have length ${scenario.layout.dim}`);
    this.#x = finiteCopy('x', x);
    this.dim = this.#x.length;
    this.outDim = this.dim;
    this.#nodeLen = scenario.shape.edgeOffset;
  }

  #blocks(): { theta: F64Block; node: F64Block } {
    const { arena } = wasm();
    this.#theta ??= arena.from(this.#x);
    this.#node ??= arena.alloc(this.#nodeLen);
    return { theta: this.#theta, node: this.#node };
  }

  /**
   * Runs `fn` on the resident blocks; if it throws, frees them (so an exception cannot leave
   * them allocated, nor θ shifted: the next call re-creates θ from x), drops the accumulators
   * (which may hold a partial sum) and rethrows.
   */
  #withBlocks<T>(fn: (theta: F64Block, node: F64Block) => T): T {
    try {
      const { theta, node } = this.#blocks();
      return fn(theta, node);
    } catch (e) {
      this.#acc = undefined;
      this.#colAcc = undefined;
      this.release();
      throw e;
    }
  }

  /** Node block of Q at the resident θ (copied out). */
  #evalNode(theta: F64Block, node: F64Block): Float64Array {
    const { arena } = wasm();
    arena.scope((s) => wasmConsolidateNodeBlock(s, this.#scenario.shape, this.#scenario.params, theta, node));
    this.stats.evaluations++;
    return Float64Array.from(node.view);
  }

  /** Sparse (a − b)/den over the node block, NaN-checked. */
  #quotient(a: Float64Array, b: Float64Array, den: number, acc: SparseAccumulator): void {
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        const q = (a[i]! - b[i]!) / den;
        if (!Number.isFinite(q))
          throw new ArgumentError(`reference-graph: consolidate(theta)[${i}]`, q, 'must be finite');
        acc.addEntry(i, q);
      }
    }
  }

  column(j: number): SparseVector {
    const hit = this.#cache.get(j);
    if (hit) return hit;
    if (!(Number.isInteger(j) && j >= 0 && j < this.dim))
      throw new ArgumentError('column', j, `must be an index in [0, ${this.dim})`);
    const xj = this.#x[j]!;
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    const acc = (this.#colAcc ??= new SparseAccumulator(this.dim));
    const col = this.#withBlocks((theta, node) => {
      theta.view[j] = p;
      const fp = this.#evalNode(theta, node);
      theta.view[j] = m;
      const fm = this.#evalNode(theta, node);
      theta.view[j] = xj;
      this.#quotient(fp, fm, p - m, acc);
      if (j >= this.#nodeLen) acc.addEntry(j, (p - m) / (p - m));
      return acc.take();
    });
    this.stats.columns++;
    this.#cache.set(j, col);
    return col;
  }

  prefetch(cols: readonly number[]): void {
    for (const j of cols) this.column(j);
  }

  apply(v: SparseVector): SparseVector {
    if (v.dim !== this.dim) throw new ArgumentError('v.dim', v.dim, `must equal ${this.dim}`);
    this.#acc ??= new SparseAccumulator(this.dim);
    let cached = true;
    for (let k = 0; k < v.index.length && cached; k++) cached = this.#cache.has(v.index[k]!);
    if (cached || v.index.length <= 64) {
      for (let k = 0; k < v.index.length; k++) this.#acc.add(v.value[k]!, this.column(v.index[k]!));
      return this.#acc.take();
    }
    // one directional difference: shift the resident θ along v, evaluate, restore
    const acc = this.#acc;
    const t = directionalStep(this.#x, v);
    return this.#withBlocks((theta, node) => {
      const set = (s: number) => {
        const view = theta.view;
        for (let k = 0; k < v.index.length; k++) view[v.index[k]!] = this.#x[v.index[k]!]! + s * v.value[k]!;
      };
      set(t);
      const fp = this.#evalNode(theta, node);
      set(-t);
      const fm = this.#evalNode(theta, node);
      set(0);
      this.stats.directional++;
      this.#quotient(fp, fm, takenStep(this.#x, v, t), acc);
      for (let k = 0; k < v.index.length; k++) if (v.index[k]! >= this.#nodeLen) acc.addEntry(v.index[k]!, v.value[k]!);
      return acc.take();
    });
  }

  /**
   * Frees the wasm blocks (the operator can still be used: they are re-created on demand).
   * Idempotent.
   */
  release(): void {
    const theta = this.#theta;
    const node = this.#node;
    this.#theta = undefined;
    this.#node = undefined;
    if (!theta && !node) return;
    const { arena } = wasm();
    try {
      if (theta && !theta.freed) arena.free(theta);
    } finally {
      if (node && !node.freed) arena.free(node);
    }
  }

  /** Same as {@link release}: lets a caller write `using J = new GraphConsolidateJacobian(...)`. */
  [Symbol.dispose](): void {
    this.release();
  }
}
