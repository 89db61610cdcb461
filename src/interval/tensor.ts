/**
 * The interval tensor of the interval tfjs namespace (./intervalTf.ts): a shape, the value ends
 * `lo`/`hi` (row-major Float64Array, one closed interval per element) and an optional tangent
 * holding, per element and seed direction s (m directions), an interval enclosing the directional
 * derivative: element i, seed s at `(i − d0)·m + s`. Only elements d0..d0+dn−1 store a tangent;
 * every other element's tangent is exactly 0 (a slice of the input that holds no seeded
 * coordinate, or the unchanged edge block a map concatenates back, costs nothing). A null tangent
 * means the tensor is constant in the seeded coordinates. Tensors are immutable: reshapes share
 * their arrays. A NaN end means "no enclosure" for that element.
 *
 * Also here: broadcasting (numpy rules) as per-operand index maps, and the remapping of a tensor
 * through an index map that slice, transpose, gather and concat share.
 */
import { ArgumentError } from '../util/errors.js';

/** Interval tangents of the elements d0..d0+dn−1 of a tensor along m seed directions. */
export interface Tangent {
  /** Number of seed directions. */
  readonly m: number;
  /** First element with a stored tangent. */
  readonly d0: number;
  /** Number of elements with a stored tangent (dlo.length = dn·m). */
  readonly dn: number;
  /** Low ends, element i and seed s at (i − d0)·m + s. */
  readonly dlo: Float64Array;
  /** High ends, same layout. */
  readonly dhi: Float64Array;
}

/** The element type a tfjs caller sees (`bool` for comparisons, `int32` for index tensors). */
export type IntervalDtype = 'float32' | 'int32' | 'bool';

/** A tensor of closed intervals with optional interval tangents (see the file header). */
export class IntervalTensor {
  /** Dimensions. */
  readonly shape: number[];
  /** Number of elements (product of the shape). */
  readonly size: number;
  /** Low ends, row-major. */
  readonly lo: Float64Array;
  /** High ends, row-major. */
  readonly hi: Float64Array;
  /** Tangents along the seed directions, null when constant. */
  readonly tangent: Tangent | null;
  /** The tfjs dtype reported to callers. */
  readonly dtype: IntervalDtype;

  constructor(
    shape: readonly number[],
    lo: Float64Array,
    hi: Float64Array,
    tangent: Tangent | null = null,
    dtype: IntervalDtype = 'float32',
  ) {
    this.shape = shape.slice();
    this.size = sizeOf(this.shape);
    this.lo = lo;
    this.hi = hi;
    this.tangent = tangent;
    this.dtype = dtype;
  }

  /** Number of dimensions. */
  get rank(): number {
    return this.shape.length;
  }
}

/** Product of a shape's dimensions (1 for a scalar). */
export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Whether two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A tangent of m directions for elements d0..d0+dn−1, all zero. */
export function zeroTangent(m: number, d0: number, dn: number): Tangent {
  const take = (n: number) => activePool?.take(n) ?? new Float64Array(n);
  return { m, d0, dn, dlo: take(dn * m), dhi: take(dn * m) };
}

/**
 * Tangent arrays recycled between the evaluations of a form ({@link withTangentPool}): every
 * array {@link zeroTangent} hands out is recorded; `recycle()` puts all of them on free lists by
 * length, and the next request of that length gets one back, zeroed. An evaluation allocates the
 * same arrays each time (a form is a fixed sequence of ops), so a contraction search that
 * encloses Q over thousands of boxes allocates one evaluation's tangents, not thousands.
 */
class TangentPool {
  readonly #free = new Map<number, Float64Array[]>();
  #taken: Float64Array[] = [];

  take(n: number): Float64Array {
    const reused = this.#free.get(n)?.pop();
    const out = reused ? reused.fill(0) : new Float64Array(n);
    this.#taken.push(out);
    return out;
  }

  recycle(): void {
    for (const a of this.#taken) {
      const list = this.#free.get(a.length);
      if (list) list.push(a);
      else this.#free.set(a.length, [a]);
    }
    this.#taken = [];
  }
}

let activePool: TangentPool | null = null;

/**
 * Runs `run` with tangent arrays pooled: `run` calls `recycle()` once nothing it holds refers to
 * a tangent made since the last call (in practice: after each evaluation's outputs are copied
 * out), and later evaluations reuse those arrays. Nested calls share the outermost pool, which
 * is dropped, with its arrays, when the outermost call returns. Synchronous work only: no
 * tensor may outlive a `recycle()` in use.
 */
export function withTangentPool<T>(run: (recycle: () => void) => T): T {
  const outer = activePool;
  const pool = outer ?? new TangentPool();
  activePool = pool;
  try {
    return run(() => pool.recycle());
  } finally {
    activePool = outer;
  }
}

/**
 * The tangent of `t` stored for every element (d0 = 0, dn = size): the tensor's own when it
 * already is, else a copy with the missing elements exactly 0; null for a constant tensor.
 */
export function denseTangent(t: IntervalTensor): Tangent | null {
  const g = t.tangent;
  if (g === null || (g.d0 === 0 && g.dn === t.size)) return g;
  const out = zeroTangent(g.m, 0, t.size);
  out.dlo.set(g.dlo, g.d0 * g.m);
  out.dhi.set(g.dhi, g.d0 * g.m);
  return out;
}

/** Seed count shared by the operands' tangents (0 when all are constant). */
export function seedCount(...ts: IntervalTensor[]): number {
  let m = 0;
  for (const t of ts) {
    const g = t.tangent;
    if (g === null) continue;
    if (m !== 0 && g.m !== m)
      throw new ArgumentError('tangent', g.m, `has ${g.m} seed directions, another operand ${m}`);
    m = g.m;
  }
  return m;
}

/** A tensor whose every element is the point interval of `data` (exact f64 values). */
export function pointTensor(
  shape: readonly number[],
  data: ArrayLike<number>,
  dtype: IntervalDtype = 'float32',
): IntervalTensor {
  const lo = Float64Array.from(data);
  return new IntervalTensor(shape, lo, lo, null, dtype);
}

/** Row-major strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const st = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    st[i] = s;
    s *= shape[i]!;
  }
  return st;
}

/** The broadcast shape of operands (numpy rules: align right, a dimension 1 stretches). */
export function broadcastShape(op: string, ...shapes: (readonly number[])[]): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes)
    for (let i = 0; i < s.length; i++) {
      const k = rank - s.length + i;
      const d = s[i]!;
      if (d === out[k] || d === 1) continue;
      if (out[k] !== 1)
        throw new ArgumentError(
          `tf.${op}`,
          shapes.map((x) => `[${x.join(', ')}]`).join(' with '),
          'operands do not broadcast (numpy rules)',
        );
      out[k] = d;
    }
  return out;
}

/**
 * How an operand of shape `inShape` is read for an output of shape `outShape`: `stride` 1 (the
 * same elements in order: equal sizes), 0 (a single element) or an index map (`map[i]` = the
 * operand's element for output element i).
 */
export interface OperandIndex {
  stride: 0 | 1;
  map: Int32Array | null;
}

/**
 * The element offsets met when walking a box of shape `shape` in row-major order, moving by
 * `strides[k]` along axis k, from `offset`: slices, transposes and broadcasts are such walks.
 */
export function stridedMap(shape: readonly number[], strides: readonly number[], offset = 0): Int32Array {
  const rank = shape.length;
  const n = sizeOf(shape);
  const map = new Int32Array(n);
  const idx = new Array<number>(rank).fill(0);
  let off = offset;
  for (let i = 0; i < n; i++) {
    map[i] = off;
    for (let k = rank - 1; k >= 0; k--) {
      idx[k]!++;
      off += strides[k]!;
      if (idx[k]! < shape[k]!) break;
      off -= strides[k]! * idx[k]!;
      idx[k] = 0;
    }
  }
  return map;
}

/** The {@link OperandIndex} of a broadcast operand. */
export function operandIndex(outShape: readonly number[], inShape: readonly number[]): OperandIndex {
  const size = sizeOf(inShape);
  if (size === sizeOf(outShape)) return { stride: 1, map: null };
  if (size === 1) return { stride: 0, map: null };
  const rank = outShape.length;
  const inStrides = stridesOf(inShape);
  // per output axis: the operand's stride along it (0 where the operand is stretched or absent)
  const st = new Array<number>(rank).fill(0);
  for (let i = 0; i < inShape.length; i++) {
    const k = rank - inShape.length + i;
    st[k] = inShape[i] === 1 ? 0 : inStrides[i]!;
  }
  const map = stridedMap(outShape, st);
  return { map, stride: 1 };
}

/** The operand element read for output element i. */
export function at(ix: OperandIndex, i: number): number {
  return ix.map === null ? i * ix.stride : ix.map[i]!;
}

/**
 * The tensor of shape `shape` whose element i is element `map[i]` of `t` (value and tangent
 * copied exactly). The tangent is stored only over the output elements whose source stores one.
 */
export function remap(t: IntervalTensor, shape: readonly number[], map: Int32Array): IntervalTensor {
  const n = map.length;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const { lo: tl, hi: th } = t;
  for (let i = 0; i < n; i++) {
    const j = map[i]!;
    lo[i] = tl[j]!;
    hi[i] = th[j]!;
  }
  return new IntervalTensor(shape, lo, hi, remapTangent(t.tangent, map), t.dtype);
}

function remapTangent(g: Tangent | null, map: Int32Array): Tangent | null {
  if (g === null) return null;
  const { m, d0, dn } = g;
  let first = -1;
  let last = -1;
  for (let i = 0; i < map.length; i++) {
    const j = map[i]! - d0;
    if (j >= 0 && j < dn) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0) return null;
  const out = zeroTangent(m, first, last - first + 1);
  for (let i = first; i <= last; i++) {
    const j = map[i]! - d0;
    if (j < 0 || j >= dn) continue;
    out.dlo.set(g.dlo.subarray(j * m, j * m + m), (i - first) * m);
    out.dhi.set(g.dhi.subarray(j * m, j * m + m), (i - first) * m);
  }
  return out;
}

/** An axis argument in [−rank, rank) as an index in [0, rank). */
export function normalizeAxis(op: string, axis: unknown, rank: number): number {
  if (typeof axis !== 'number' || !Number.isInteger(axis) || axis < -rank || axis >= rank)
    throw new ArgumentError(`tf.${op}(axis)`, axis, `must be an integer in [${-rank}, ${rank})`);
  return axis < 0 ? axis + rank : axis;
}
