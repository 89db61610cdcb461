/**
 * DP_e of a reference-graph item by central differences on the wasm blend kernel, with the
 * footprint values of the state resident in wasm memory.
 *
 * P_e writes only its footprint F_e and its values there depend on θ_F only (docs/graph.md), so
 * a column j ∉ F_e is e_j and a column j ∈ F_e is read off F_e: the kernel blends a copy of θ_F
 * (|F_e| values) with θ_j shifted, not the d-vector the generic engine hands P_e. The quotient
 * is the generic engine's ({@link FdJacobian} with `readSet: F_e`): the same step, the same
 * (a − b)·(1/((θ_j + h) − (θ_j − h))) over F_e in ascending order, exact zeros dropped — bit for
 * bit (tested). Cost per column O(|F_e|) instead of O(d).
 */
import type { CompiledItem } from '../operators/expand.js';
import type { GraphKernels } from '../operators/backend.js';
import { centralStep, finiteCopy } from '../../linearize/finiteDifference.js';
import { FD_RELATIVE_ACCURACY, type JacobianOperator, type JacobianStats } from '../../linearize/operator.js';
import { SparseAccumulator, type SparseVector, unitVector } from '../../linearize/sparse.js';
import { ArgumentError } from '../../util/errors.js';
import { firstNonFinite } from '../../util/validate.js';
import type { ArenaBlock, F64Block, I32Block } from '../../wasm/arena.js';
import { wasm } from '../../wasm/module.js';

/**
 * DP_e(x) for one compiled item (see the module comment). Holds five small wasm blocks from its
 * first column on; {@link release} (or `using`) frees them, and a method that throws has freed
 * them already.
 * @throws {ArgumentError} x of the wrong length or not finite; wasm not initialised.
 */
export class GraphExpandJacobian implements JacobianOperator, Disposable {
  readonly method = 'fd' as const;
  readonly relativeAccuracy = FD_RELATIVE_ACCURACY;
  readonly dim: number;
  readonly outDim: number;
  readonly stats: JacobianStats = { evaluations: 0, columns: 0, directional: 0 };
  readonly #item: CompiledItem;
  /** x on F_e (in footprint order): all a column reads of x. */
  readonly #xF: Float64Array;
  /** Footprint coordinate → its position in F_e. */
  readonly #position = new Map<number, number>();
  readonly #cache = new Map<number, SparseVector>();
  #blocks:
    | { all: ArenaBlock[]; work: F64Block; plus: F64Block; local: I32Block; target: F64Block; rates: F64Block }
    | undefined;
  #acc: SparseAccumulator | undefined;

  constructor(item: CompiledItem, dim: number, x: ArrayLike<number>) {
    if (x.length !== dim) throw new ArgumentError('x', x, `must have length ${dim}`);
    this.#item = item;
    // checked whole (the error names the first non-finite entry), kept on F_e only: no d-copy per item
    if (firstNonFinite(x) >= 0) finiteCopy('x', x);
    this.#xF = Float64Array.from(item.footprint, (j) => x[j]!);
    this.dim = dim;
    this.outDim = dim;
    for (let k = 0; k < item.footprint.length; k++) this.#position.set(item.footprint[k]!, k);
  }

  #resident() {
    if (this.#blocks) return this.#blocks;
    const { arena } = wasm();
    const all: ArenaBlock[] = [];
    const keep = <B extends ArenaBlock>(b: B): B => {
      all.push(b);
      return b;
    };
    const m = Math.max(1, this.#item.footprint.length);
    try {
      this.#blocks = {
        all,
        work: keep(arena.alloc(m)),
        plus: keep(arena.alloc(m)),
        local: keep(arena.fromI32(Int32Array.from({ length: m }, (_, k) => k))),
        target: keep(arena.from(this.#item.target.length ? this.#item.target : [0])),
        rates: keep(arena.from(this.#item.rates.length ? this.#item.rates : [0])),
      };
      return this.#blocks;
    } catch (e) {
      for (const b of all) if (!b.freed) arena.free(b);
      throw e;
    }
  }

  /** P_e's values on F_e at θ_F with θ_F[k] = v, into `into` (wasm). */
  #blend(into: F64Block, k: number, v: number): void {
    const b = this.#resident();
    const f = this.#item.footprint;
    const view = into.view;
    view.set(this.#xF.subarray(0, f.length));
    view[k] = v;
    const kernels: GraphKernels = wasm().exports;
    kernels.gpblend(into.ptr, b.local.ptr, b.target.ptr, b.rates.ptr, f.length);
    this.stats.evaluations++;
  }

  column(j: number): SparseVector {
    const hit = this.#cache.get(j);
    if (hit) return hit;
    if (!(Number.isInteger(j) && j >= 0 && j < this.dim))
      throw new ArgumentError('column', j, `must be an index in [0, ${this.dim})`);
    const k = this.#position.get(j);
    let col: SparseVector;
    if (k === undefined) col = unitVector(this.dim, j);
    else {
      const xj = this.#xF[k]!;
      const h = centralStep(xj);
      const p = xj + h;
      const m = xj - h;
      try {
        const b = this.#resident();
        this.#blend(b.plus, k, p);
        this.#blend(b.work, k, m);
        const fp = b.plus.view;
        const fm = b.work.view;
        const f = this.#item.footprint;
        const scale = 1 / (p - m);
        const idx: number[] = [];
        const val: number[] = [];
        for (let t = 0; t < f.length; t++) {
          if (fp[t] !== fm[t]) {
            const q = (fp[t]! - fm[t]!) * scale;
            if (!Number.isFinite(q))
              throw new ArgumentError(
                `reference-graph: expand(${JSON.stringify(this.#item.id)}, theta)[${f[t]}]`,
                q,
                'must be finite',
              );
            idx.push(f[t]!);
            val.push(q);
          }
        }
        col = { dim: this.dim, index: Int32Array.from(idx), value: Float64Array.from(val) };
      } catch (e) {
        this.release();
        throw e;
      }
    }
    this.stats.columns++;
    this.#cache.set(j, col);
    return col;
  }

  prefetch(cols: readonly number[]): void {
    for (const j of cols) this.column(j);
  }

  /**
   * DP_e v: off F_e the identity, on F_e the combination of the columns of v's footprint
   * entries (P_e is affine there, so a combination of columns and one directional difference
   * agree to rounding; the columns are cached and shared).
   */
  apply(v: SparseVector): SparseVector {
    if (v.dim !== this.dim) throw new ArgumentError('v.dim', v.dim, `must equal ${this.dim}`);
    const acc = (this.#acc ??= new SparseAccumulator(this.dim));
    for (let t = 0; t < v.index.length; t++) {
      const j = v.index[t]!;
      if (this.#position.has(j)) acc.add(v.value[t]!, this.column(j));
      else acc.addEntry(j, v.value[t]!);
    }
    return acc.take();
  }

  /** Frees the wasm blocks (re-created on demand). Idempotent. */
  release(): void {
    const b = this.#blocks;
    this.#blocks = undefined;
    if (!b) return;
    const { arena } = wasm();
    for (const x of b.all) if (!x.freed) arena.free(x);
  }

  [Symbol.dispose](): void {
    this.release();
  }
}
