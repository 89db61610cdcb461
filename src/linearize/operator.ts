/**
 * The matrix-free view of a Jacobian the certification works with: J = Df(x) at a fixed base
 * point x, applied to sparse vectors, with its columns J e_j cached (the certification shares
 * DQ's columns across all evidence items). Two generic engines implement it: central differences
 * in f64 (`FdJacobian`) and tfjs reverse-mode autodiff in float32 (`TfJacobian`); the reference
 * graph adds its wasm engines (src/graph/linearisation). All of them extend {@link CachedJacobian},
 * which holds what they share. The interface itself is part of the operator contract
 * (src/system/types.ts), since a system may supply its own engine.
 */

import type { JacobianMethod, JacobianOperator, JacobianStats, SparseVector } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { sharedAccumulator } from './sparse.js';

export type { JacobianMethod, JacobianOperator, JacobianStats } from '../system/types.js';

/** Relative step of 3-point central differences: eps^(1/3) (scipy's approx_derivative '3-point'). */
export const FD_RELATIVE_STEP = Math.cbrt(Number.EPSILON);

/** Relative accuracy of a central-difference Jacobian: eps^(2/3) (see {@link JacobianOperator}). */
export const FD_RELATIVE_ACCURACY = Math.pow(Number.EPSILON, 2 / 3);

/**
 * Relative accuracy of a float32 autodiff Jacobian: 1e-6 — float32 unit roundoff 2^-24 ≈ 6e-8
 * times a growth factor of ~16 for the few dozen operations between θ and the output.
 */
export const AUTODIFF_F32_RELATIVE_ACCURACY = 1e-6;

/**
 * The part every {@link JacobianOperator} engine shares: the column cache, the stats, `prefetch`,
 * `apply` and `release`/`[Symbol.dispose]`. A subclass supplies how columns are computed —
 * {@link CachedJacobian.computeColumn} (one column), {@link CachedJacobian.computeColumns} where
 * the engine batches — and, optionally, which columns are identity columns e_j known without
 * evaluating anything, a directional derivative for long directions, and what it frees.
 *
 * - `column(j)`: the cached column, else computed once (`stats.columns` counts the computed ones).
 * - `apply(v)` = Σ_k v_k · column(v.index[k]) summed in v's order (identity columns add v_k at
 *   row j), computing the missing columns first; when some column is missing and v has more than
 *   `columnThreshold` non-identity entries, one directional derivative instead (if the engine has
 *   one).
 * - If computing a column or a directional derivative throws, the engine's resources are released
 *   before the error propagates (the operator stays usable: they are re-created on demand).
 */
export abstract class CachedJacobian<M extends JacobianMethod = JacobianMethod>
  implements JacobianOperator, Disposable
{
  readonly stats: JacobianStats = { evaluations: 0, columns: 0, directional: 0 };
  /** Column j's slot in the store below (small integers: the map holds no boxed values). */
  readonly #slot = new Map<number, number>();
  /**
   * The cached columns packed end to end: slot k's entries are #index/#value[#start[k],
   * #start[k + 1]). Off the JS heap, unlike one small object and two typed arrays per column,
   * which every young-generation collection copied until promotion (tens of thousands of
   * columns in a certification at Nmax 512). Grown by doubling; a column handed out is a view of
   * the arrays of its time, which stay valid (entries are never rewritten).
   */
  #start = new Int32Array(65);
  #index = new Int32Array(256);
  #value = new Float64Array(256);

  /**
   * @param dim input dimension (columns of J)
   * @param outDim output dimension (rows of J)
   * @param method how the columns are computed
   * @param relativeAccuracy r of the engine ({@link FD_RELATIVE_ACCURACY}, {@link AUTODIFF_F32_RELATIVE_ACCURACY})
   * @param columnThreshold directions with more non-identity entries than this (and a missing
   *   column) go to {@link CachedJacobian.directional}
   */
  protected constructor(
    readonly dim: number,
    readonly outDim: number,
    readonly method: M,
    readonly relativeAccuracy: number,
    protected readonly columnThreshold = 64,
  ) {}

  /** Column j (an index in [0, dim)), not cached yet. */
  protected abstract computeColumn(j: number): SparseVector;

  /**
   * The columns `cols` (distinct, none cached), each handed to `store` as soon as it is known;
   * engines that batch override it. Default: {@link CachedJacobian.computeColumn} one by one.
   */
  protected computeColumns(cols: readonly number[], store: (j: number, col: SparseVector) => void): void {
    for (const j of cols) store(j, this.computeColumn(j));
  }

  /** True when column j is e_j without evaluating anything (`apply` adds v_j at row j directly). */
  protected isIdentityColumn(_j: number): boolean {
    return false;
  }

  /** J v by one directional derivative, for long directions; engines without one always combine columns. */
  protected directional?(v: SparseVector): SparseVector;

  /** Frees what the engine holds outside the JS heap (wasm blocks). Idempotent. */
  protected releaseResources(): void {}

  #check(j: number): void {
    if (!(Number.isInteger(j) && j >= 0 && j < this.dim))
      throw new ArgumentError('column', j, `must be an index in [0, ${this.dim})`);
  }

  /** Runs `fn`; if it throws, releases the engine's resources first. */
  #guarded<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      this.release();
      throw e;
    }
  }

  /** Appends `col` to the store as column j. */
  #store(j: number, col: SparseVector): void {
    const k = this.#slot.size;
    if (k + 2 > this.#start.length) this.#start = grown(this.#start, k + 2);
    const at = this.#start[k]!;
    const end = at + col.index.length;
    if (end > this.#index.length) {
      this.#index = grown(this.#index, end);
      this.#value = grown(this.#value, end);
    }
    this.#index.set(col.index, at);
    this.#value.set(col.value, at);
    this.#start[k + 1] = end;
    this.#slot.set(j, k);
    this.stats.columns++;
  }

  #compute(cols: readonly number[]): void {
    this.#guarded(() => this.computeColumns(cols, (j, col) => this.#store(j, col)));
  }

  /** J e_j (cached; a view of the store). */
  column(j: number): SparseVector {
    let k = this.#slot.get(j);
    if (k === undefined) {
      this.#check(j);
      this.#compute([j]);
      k = this.#slot.get(j)!;
    }
    const a = this.#start[k]!;
    const b = this.#start[k + 1]!;
    return { dim: this.outDim, index: this.#index.subarray(a, b), value: this.#value.subarray(a, b) };
  }

  /** Computes and caches the columns in `cols` (batched where the engine batches). */
  prefetch(cols: readonly number[]): void {
    const todo: number[] = [];
    const seen = new Set<number>();
    for (const j of cols) {
      if (this.#slot.has(j) || seen.has(j)) continue;
      this.#check(j);
      seen.add(j);
      todo.push(j);
    }
    if (todo.length) this.#compute(todo);
  }

  /** J v (see the class comment). */
  apply(v: SparseVector): SparseVector {
    if (v.dim !== this.dim) throw new ArgumentError('v.dim', v.dim, `must equal ${this.dim}`);
    if (v.index.length !== v.value.length)
      throw new ArgumentError('v.value', v.value, `must hold one value per index (${v.index.length})`);
    for (let k = 0; k < v.value.length; k++)
      if (!Number.isFinite(v.value[k]!)) throw new ArgumentError(`v.value[${k}]`, v.value[k], 'must be finite');
    const missing: number[] = [];
    let count = 0;
    for (let k = 0; k < v.index.length; k++) {
      const j = v.index[k]!;
      if (this.isIdentityColumn(j)) continue;
      count++;
      if (!this.#slot.has(j)) missing.push(j);
      // decided: both counts only grow (a long direction need not be scanned to its end)
      if (missing.length && count > this.columnThreshold && this.directional) break;
    }
    if (missing.length && count > this.columnThreshold && this.directional)
      return this.#guarded(() => this.directional!(v));
    if (missing.length) this.prefetch(missing);
    const acc = sharedAccumulator(this.outDim); // added to and taken below, nothing in between
    const start = this.#start;
    for (let k = 0; k < v.index.length; k++) {
      const j = v.index[k]!;
      if (this.isIdentityColumn(j)) acc.addEntry(j, v.value[k]!);
      else {
        const s = this.#slot.get(j)!;
        acc.addRun(v.value[k]!, this.#index, this.#value, start[s]!, start[s + 1]!);
      }
    }
    return acc.take();
  }

  /** Frees the engine's resources (they are re-created on demand). Idempotent. */
  release(): void {
    this.releaseResources();
  }

  /** Same as {@link CachedJacobian.release}: lets a caller write `using J = ...`. */
  [Symbol.dispose](): void {
    this.release();
  }
}

/** A copy of `a` with room for at least `need` entries (the length doubled until it fits). */
function grown<T extends Int32Array | Float64Array>(a: T, need: number): T {
  let n = a.length;
  while (n < need) n *= 2;
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
}
