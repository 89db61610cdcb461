/**
 * DP_e of a reference-graph item by central differences on the wasm kernels of P_e (the blend and
 * the entry confidence), with the values of the state P_e writes resident in wasm memory.
 *
 * P_e writes only W_e = F_e ∪ entry_e (its footprint and the confidences of the nodes it adds) and
 * its values there depend on θ_W only (docs/graph.md), so a column j ∉ W_e is e_j and a column
 * j ∈ W_e is read off W_e: the kernels run on a copy of θ_W (|W_e| values) with θ_j shifted, not
 * the d-vector the generic engine hands P_e. The quotient is the generic engine's
 * ({@link FdJacobian} with `readSet: W_e`): the same step, the same
 * (a − b)·(1/((θ_j + h) − (θ_j − h))) over W_e in ascending order, exact zeros dropped — bit for
 * bit (tested). On F_e the columns are 1 − rate; on an entry coordinate 1 − (1 − c/c₀)²₊, which
 * differs from 1 only below c₀. There the central difference of the cubic is off by exactly
 * h²/(3c₀²) (h = eps^(1/3)·max(1, |c|) the step, c₀ = 2⁻¹⁰: about 1.3e-5), far above
 * `FD_RELATIVE_ACCURACY`; from c₀ + h on (the fixed point) the column is e_j exactly.
 * Cost per column O(|W_e|) instead of O(d).
 */
import { expandWriteSet, type CompiledItem } from '../operators/expand.js';
import { graphKernels, residentBlocks, type ResidentBlocks } from '../operators/wasmConsolidate.js';
import { centralStep } from '../../linearize/finiteDifference.js';
import { CachedJacobian, FD_RELATIVE_ACCURACY } from '../../linearize/operator.js';
import { type SparseVector, unitVector } from '../../linearize/sparse.js';
import { ArgumentError } from '../../util/errors.js';
import { firstNonFinite } from '../../util/validate.js';
import type { F64Block, I32Block } from '../../wasm/arena.js';

/**
 * The wasm blocks of one operator: two work copies of θ_W, the positions in W_e of F_e's and of
 * the entry coordinates, t_e, rates.
 */
interface Blocks {
  work: F64Block;
  plus: F64Block;
  local: I32Block;
  localEntry: I32Block;
  target: F64Block;
  rates: F64Block;
}

/** W_e = F_e ∪ entry_e ascending, and the positions in it of F_e's and of the entry coordinates. */
function writeSet(item: CompiledItem): { w: Int32Array; fp: Int32Array; entry: Int32Array } {
  const w = Int32Array.from(expandWriteSet(item));
  const at = (j: number) => {
    let lo = 0;
    let hi = w.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (w[mid]! < j) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { w, fp: Int32Array.from(item.footprint, at), entry: Int32Array.from(item.entry, at) };
}

/**
 * DP_e(x) for one compiled item (see the module comment). Holds five small wasm blocks from its
 * first column on; {@link GraphExpandJacobian.release} (or `using`) frees them, and a method that
 * throws has freed them already.
 * @throws {ArgumentError} x of the wrong length or not finite on W_e (x[j] named); wasm not initialised.
 */
export class GraphExpandJacobian extends CachedJacobian<'fd'> {
  readonly #item: CompiledItem;
  /** W_e = F_e ∪ entry_e ascending, and where F_e's and the entry coordinates sit in it. */
  readonly #write: { w: Int32Array; fp: Int32Array; entry: Int32Array };
  /** x on W_e (ascending): all a column reads of x. */
  readonly #xW: Float64Array;
  /** Coordinate of W_e → its position in W_e. */
  readonly #position = new Map<number, number>();
  #resident: { blocks: ResidentBlocks; value: Blocks } | undefined;

  constructor(item: CompiledItem, dim: number, x: ArrayLike<number>) {
    if (x.length !== dim) throw new ArgumentError('x', x, `must have length ${dim}`);
    const write = writeSet(item);
    // checked and kept on W_e only: DP_e is the identity off W_e whatever x holds there, so one
    // O(|W_e|) check instead of a pass over all d coordinates per item (~3 ms each at Nmax 1024)
    const xW = Float64Array.from(write.w, (j) => x[j]!);
    const bad = firstNonFinite(xW);
    if (bad >= 0)
      throw new ArgumentError(`x[${write.w[bad]!}]`, xW[bad], 'must be finite (NaN and ±Infinity are rejected)');
    // DP_e is diagonal on the entry coordinates and F_e's columns are cheap: always combine
    // columns, never a directional difference
    super(dim, dim, 'fd', FD_RELATIVE_ACCURACY, Infinity);
    this.#item = item;
    this.#write = write;
    this.#xW = xW;
    for (let k = 0; k < this.#write.w.length; k++) this.#position.set(this.#write.w[k]!, k);
  }

  #blocks(): Blocks {
    const m = Math.max(1, this.#write.w.length);
    const { target, rates } = this.#item;
    const { fp, entry } = this.#write;
    this.#resident ??= residentBlocks((a) => ({
      work: a.alloc(m),
      plus: a.alloc(m),
      local: a.fromI32(fp.length ? fp : [0]),
      localEntry: a.fromI32(entry.length ? entry : [0]),
      target: a.from(target.length ? target : [0]),
      rates: a.from(rates.length ? rates : [0]),
    }));
    return this.#resident.value;
  }

  /** P_e's values on W_e at θ_W with θ_W[k] = v, into `into` (wasm). */
  #expand(into: F64Block, k: number, v: number): void {
    const b = this.#blocks();
    const { fp, entry } = this.#write;
    const view = into.view;
    view.set(this.#xW);
    view[k] = v;
    const kernels = graphKernels();
    kernels.graphBlendFootprintInPlace(into.ptr, b.local.ptr, b.target.ptr, b.rates.ptr, fp.length);
    kernels.graphEntryConfidenceInPlace(into.ptr, b.localEntry.ptr, entry.length);
    this.stats.evaluations++;
  }

  /** Off W_e, DP_e is the identity. */
  protected override isIdentityColumn(j: number): boolean {
    return !this.#position.has(j);
  }

  protected computeColumn(j: number): SparseVector {
    const k = this.#position.get(j);
    if (k === undefined) return unitVector(this.dim, j);
    const xj = this.#xW[k]!;
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    const b = this.#blocks();
    this.#expand(b.plus, k, p);
    this.#expand(b.work, k, m);
    const fp = b.plus.view;
    const fm = b.work.view;
    const f = this.#write.w;
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
