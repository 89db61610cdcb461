/**
 * Sparse f64 vectors for Jacobian columns and commutator columns.
 *
 * A Jacobian column J e_j of a graph operator touches a handful of the d coordinates (Q changes
 * beliefs near slot j; P_e writes its footprint), so the certification keeps columns as sorted
 * (index, value) lists. Entries that are exactly zero are dropped: a central difference of an
 * output that does not depend on the perturbed input is computed from identical operands and is
 * exactly 0, so dropping exact zeros loses nothing.
 */
import { ArgumentError } from '../util/errors.js';

import type { SparseVector } from '../system/types.js';

export type { SparseVector };

/** The zero vector {@link zeroVector} lends out (one dimension at a time). */
let zero: SparseVector | undefined;

/**
 * The zero vector of length dim (no entries): one frozen object shared by every result that
 * comes out exactly zero (SparseVector is read-only, and its empty arrays hold nothing to write).
 * Most commutator columns of a certification are exactly zero (at Nmax 512, 27 783 of 29 056);
 * kept for the Gramian, each would otherwise be three more objects that every young-generation
 * collection copies until they are promoted.
 */
export function zeroVector(dim: number): SparseVector {
  if (zero?.dim !== dim) zero = Object.freeze({ dim, index: new Int32Array(0), value: new Float64Array(0) });
  return zero;
}

/** The unit vector e_j of length dim. */
export function unitVector(dim: number, j: number): SparseVector {
  if (!(Number.isInteger(j) && j >= 0 && j < dim)) throw new ArgumentError('j', j, `must be an index in [0, ${dim})`);
  return { dim, index: Int32Array.of(j), value: Float64Array.of(1) };
}

/** The non-zeros of a dense vector (exact zeros dropped). Cost O(n). */
export function sparseFromDense(x: ArrayLike<number>): SparseVector {
  let nnz = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== 0) nnz++;
  const index = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  let k = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v !== 0) {
      index[k] = i;
      value[k++] = v;
    }
  }
  return { dim: x.length, index, value };
}

/** (a − b)·scale as a sparse vector; entries where a_i = b_i exactly are dropped. Cost O(n). */
export function sparseScaledDifference(a: Float64Array, b: Float64Array, scale: number): SparseVector {
  const n = a.length;
  let nnz = 0;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) nnz++;
  const index = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) {
      index[k] = i;
      value[k++] = (a[i]! - b[i]!) * scale;
    }
  }
  return { dim: n, index, value };
}

/** Dense copy of a sparse vector. */
export function toDense(v: SparseVector): Float64Array {
  const out = new Float64Array(v.dim);
  for (let k = 0; k < v.index.length; k++) out[v.index[k]!] = v.value[k]!;
  return out;
}

/** ⟨u, v⟩ by merging the sorted index lists. */
export function sparseDot(u: SparseVector, v: SparseVector): number {
  let i = 0;
  let j = 0;
  let s = 0;
  while (i < u.index.length && j < v.index.length) {
    const a = u.index[i]!;
    const b = v.index[j]!;
    if (a === b) s += u.value[i++]! * v.value[j++]!;
    else if (a < b) i++;
    else j++;
  }
  return s;
}

/** ‖v‖₂, overflow-safe (scaled by the largest magnitude). */
export function sparseNorm(v: SparseVector): number {
  let amax = 0;
  for (let k = 0; k < v.value.length; k++) amax = Math.max(amax, Math.abs(v.value[k]!));
  if (amax === 0 || !Number.isFinite(amax)) return amax;
  let s = 0;
  for (let k = 0; k < v.value.length; k++) {
    const t = v.value[k]! / amax;
    s += t * t;
  }
  return amax * Math.sqrt(s);
}

/** ‖v‖_∞. */
export function sparseMaxAbs(v: SparseVector): number {
  let m = 0;
  for (let k = 0; k < v.value.length; k++) m = Math.max(m, Math.abs(v.value[k]!));
  return m;
}

/**
 * Accumulates Σ c_k v_k over sparse vectors of one length with a dense scratch buffer and a list
 * of touched positions, so a sum costs O(total non-zeros + touched·log touched), not O(dim).
 * One accumulator is reused across many sums (call {@link SparseAccumulator.take} to finish one).
 */
export class SparseAccumulator {
  readonly dim: number;
  readonly #buffer: Float64Array;
  readonly #mark: Uint8Array;
  /** The indices touched since the last take, in their first `#count` entries (grown by doubling, kept). */
  #touched = new Int32Array(64);
  #count = 0;

  constructor(dim: number) {
    this.dim = dim;
    this.#buffer = new Float64Array(dim);
    this.#mark = new Uint8Array(dim);
  }

  #touch(i: number): void {
    if (this.#count === this.#touched.length) {
      const grown = new Int32Array(2 * this.#touched.length);
      grown.set(this.#touched);
      this.#touched = grown;
    }
    this.#touched[this.#count++] = i;
  }

  /** buffer += c·v. */
  add(c: number, v: SparseVector): void {
    if (v.dim !== this.dim) throw new ArgumentError('v.dim', v.dim, `must equal the accumulator's ${this.dim}`);
    this.addRun(c, v.index, v.value, 0, v.index.length);
  }

  /**
   * buffer += c·(the entries index/value[start, end)), indices in [0, dim) (unchecked: a caller's
   * own storage, such as a Jacobian's packed column cache). Nothing when c = 0.
   */
  addRun(c: number, index: Int32Array, value: Float64Array, start: number, end: number): void {
    if (c === 0) return;
    const buf = this.#buffer;
    const mark = this.#mark;
    for (let k = start; k < end; k++) {
      const i = index[k]!;
      if (mark[i] === 0) {
        mark[i] = 1;
        this.#touch(i);
      }
      buf[i]! += c * value[k]!;
    }
  }

  /** buffer[i] += x. */
  addEntry(i: number, x: number): void {
    if (this.#mark[i] === 0) {
      this.#mark[i] = 1;
      this.#touch(i);
    }
    this.#buffer[i]! += x;
  }

  /** Returns the sum (exact zeros dropped) and resets the accumulator. */
  take(): SparseVector {
    const touched = this.#touched.subarray(0, this.#count).sort(); // ascending (numeric for typed arrays)
    const buf = this.#buffer;
    let nnz = 0;
    for (let t = 0; t < touched.length; t++) if (buf[touched[t]!] !== 0) nnz++;
    const index = new Int32Array(nnz);
    const value = new Float64Array(nnz);
    let k = 0;
    for (let t = 0; t < touched.length; t++) {
      const i = touched[t]!;
      if (buf[i] !== 0) {
        index[k] = i;
        value[k++] = buf[i]!;
      }
      buf[i] = 0;
      this.#mark[i] = 0;
    }
    this.#count = 0;
    return nnz === 0 ? zeroVector(this.dim) : { dim: this.dim, index, value };
  }
}

/** The accumulator {@link sharedAccumulator} lends out (one dimension at a time). */
let shared: SparseAccumulator | undefined;

/**
 * A zeroed accumulator of dimension `dim` shared by every caller that takes its sum before
 * anything else can use it (the Jacobian engines' `apply`): one O(dim) buffer instead of one per
 * operator — the certification holds ~3 operators per evidence item, and at d = 3·10⁶ each
 * buffer is 28 MB. A caller that stops between adding and taking must take (or discard) the sum
 * first. Holds the last dimension's buffer.
 */
export function sharedAccumulator(dim: number): SparseAccumulator {
  if (shared?.dim !== dim) shared = new SparseAccumulator(dim);
  return shared;
}

/** The position map {@link withPositions} lends out (all −1 between loans). */
let positions: Int32Array | undefined;
/** Whether {@link positions} is lent out (a nested loan gets an array of its own). */
let positionsLent = false;

/**
 * Runs `use(pos)` with pos[W[i]] = i for every i and −1 at every other index in [0, size) (a
 * coordinate listed twice maps to its last position). The map is one O(size) array shared by
 * every call and put back to −1 at W's entries only, so a call costs O(|W|) once the array
 * exists: the certification maps a footprint of a few hundred coordinates into a state of up to
 * 10⁷ per evidence item, where a fresh array per call would allocate (and fill) 4·d bytes each
 * time. `use` must not keep `pos`. Holds the largest map asked for.
 */
export function withPositions<T>(W: ArrayLike<number>, size: number, use: (pos: Int32Array) => T): T {
  const nested = positionsLent;
  let pos = positions;
  if (nested || pos === undefined || pos.length < size) {
    pos = new Int32Array(size).fill(-1);
    if (!nested) positions = pos;
  }
  positionsLent = true;
  try {
    for (let i = 0; i < W.length; i++) pos[W[i]!] = i;
    return use(pos);
  } finally {
    for (let i = 0; i < W.length; i++) pos[W[i]!] = -1;
    if (!nested) positionsLent = false;
  }
}

/** a·u + b·v by merging the sorted index lists (exact zeros dropped). Cost O(nnz(u) + nnz(v)). */
export function sparseCombine(a: number, u: SparseVector, b: number, v: SparseVector): SparseVector {
  if (u.dim !== v.dim) throw new ArgumentError('v.dim', v.dim, `must equal u.dim = ${u.dim}`);
  // at most nnz(u) + nnz(v) entries: typed arrays of that size, trimmed once at the end
  const idx = new Int32Array(u.index.length + v.index.length);
  const val = new Float64Array(idx.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < u.index.length || j < v.index.length) {
    const p = i < u.index.length ? u.index[i]! : Infinity;
    const q = j < v.index.length ? v.index[j]! : Infinity;
    let k: number;
    let x: number;
    if (p === q) {
      k = p;
      x = a * u.value[i++]! + b * v.value[j++]!;
    } else if (p < q) {
      k = p;
      x = a * u.value[i++]!;
    } else {
      k = q;
      x = b * v.value[j++]!;
    }
    if (x !== 0) {
      idx[n] = k;
      val[n++] = x;
    }
  }
  if (n === 0) return zeroVector(u.dim);
  return n === idx.length
    ? { dim: u.dim, index: idx, value: val }
    : { dim: u.dim, index: idx.slice(0, n), value: val.slice(0, n) };
}
