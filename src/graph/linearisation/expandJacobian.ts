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
import { graphKernels, residentBlocks, type ResidentBlocks } from '../operators/wasmConsolidate.js';
import { centralStep, finiteCopy } from '../../linearize/finiteDifference.js';
import { CachedJacobian, FD_RELATIVE_ACCURACY } from '../../linearize/operator.js';
import { type SparseVector, unitVector } from '../../linearize/sparse.js';
import { ArgumentError } from '../../util/errors.js';
import { firstNonFinite } from '../../util/validate.js';
import type { F64Block, I32Block } from '../../wasm/arena.js';

/** The wasm blocks of one operator: two work copies of θ_F, the local footprint 0..|F_e|−1, t_e, rates. */
interface Blocks {
  work: F64Block;
  plus: F64Block;
  local: I32Block;
  target: F64Block;
  rates: F64Block;
}

/**
 * DP_e(x) for one compiled item (see the module comment). Holds five small wasm blocks from its
 * first column on; {@link GraphExpandJacobian.release} (or `using`) frees them, and a method that
 * throws has freed them already.
 * @throws {ArgumentError} x of the wrong length or not finite; wasm not initialised.
 */
export class GraphExpandJacobian extends CachedJacobian<'fd'> {
  readonly #item: CompiledItem;
  /** x on F_e (in footprint order): all a column reads of x. */
  readonly #xF: Float64Array;
  /** Footprint coordinate → its position in F_e. */
  readonly #position = new Map<number, number>();
  #resident: { blocks: ResidentBlocks; value: Blocks } | undefined;

  constructor(item: CompiledItem, dim: number, x: ArrayLike<number>) {
    if (x.length !== dim) throw new ArgumentError('x', x, `must have length ${dim}`);
    // checked whole (the error names the first non-finite entry), kept on F_e only: no d-copy per item
    if (firstNonFinite(x) >= 0) finiteCopy('x', x);
    // P_e is affine on F_e: a combination of columns is exact, so never a directional difference
    super(dim, dim, 'fd', FD_RELATIVE_ACCURACY, Infinity);
    this.#item = item;
    this.#xF = Float64Array.from(item.footprint, (j) => x[j]!);
    for (let k = 0; k < item.footprint.length; k++) this.#position.set(item.footprint[k]!, k);
  }

  #blocks(): Blocks {
    const m = Math.max(1, this.#item.footprint.length);
    const { target, rates } = this.#item;
    this.#resident ??= residentBlocks((a) => ({
      work: a.alloc(m),
      plus: a.alloc(m),
      local: a.fromI32(Int32Array.from({ length: m }, (_, k) => k)),
      target: a.from(target.length ? target : [0]),
      rates: a.from(rates.length ? rates : [0]),
    }));
    return this.#resident.value;
  }

  /** P_e's values on F_e at θ_F with θ_F[k] = v, into `into` (wasm). */
  #blend(into: F64Block, k: number, v: number): void {
    const b = this.#blocks();
    const f = this.#item.footprint;
    const view = into.view;
    view.set(this.#xF.subarray(0, f.length));
    view[k] = v;
    graphKernels().graphBlendFootprintInPlace(into.ptr, b.local.ptr, b.target.ptr, b.rates.ptr, f.length);
    this.stats.evaluations++;
  }

  /** Off F_e, DP_e is the identity. */
  protected override isIdentityColumn(j: number): boolean {
    return !this.#position.has(j);
  }

  protected computeColumn(j: number): SparseVector {
    const k = this.#position.get(j);
    if (k === undefined) return unitVector(this.dim, j);
    const xj = this.#xF[k]!;
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    const b = this.#blocks();
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
    return { dim: this.dim, index: Int32Array.from(idx), value: Float64Array.from(val) };
  }

  /** Frees the wasm blocks (re-created on demand). Idempotent. */
  protected override releaseResources(): void {
    this.#resident?.blocks.free();
    this.#resident = undefined;
  }
}
