/**
 * Shape ops and constructors of the interval tfjs namespace, with tfjs's argument conventions:
 * reshape (one −1 inferred), slice (begin/size as a number or a shorter array, size −1 = to the
 * end), concat, transpose (perm, default reversed), gather (constant integer indices),
 * expandDims, squeeze, and the constructors tensor, tensor1d, tensor2d, scalar, zeros, ones,
 * fill, zerosLike, onesLike, eye. Every op here moves values and tangents without arithmetic, so
 * it is exact; a reshape shares its arrays.
 *
 * Constants are exact f64 point intervals of the data given: a JS number as it is, a
 * Float32Array's floats widened exactly — the map enclosed is the real map with those constants
 * (not tfjs's float32 rounding of a JS number).
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import {
  IntervalTensor,
  normalizeAxis,
  pointTensor,
  remap,
  seedCount,
  sizeOf,
  stridedMap,
  stridesOf,
  zeroTangent,
  type IntervalDtype,
} from './tensor.js';

function checkShape(op: string, shape: unknown): number[] {
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 0))
    throw new ArgumentError(`tf.${op}(shape)`, shape, 'must be an array of non-negative integers');
  return shape as number[];
}

/** reshape(x, shape) (one dimension may be −1: inferred); shares x's arrays. */
export function reshape(x: IntervalTensor, shape: readonly number[]): IntervalTensor {
  if (!Array.isArray(shape)) throw new ArgumentError('tf.reshape(shape)', shape, 'must be an array of integers');
  const free = shape.indexOf(-1);
  const known = checkShape('reshape', free < 0 ? shape : shape.filter((_, i) => i !== free));
  const out = shape.slice();
  if (free >= 0) out[free] = sizeOf(known) === 0 ? 0 : x.size / sizeOf(known);
  if (!Number.isInteger(out[free] ?? 0) || sizeOf(out) !== x.size)
    throw new ArgumentError(
      'tf.reshape(shape)',
      `[${shape.join(', ')}]`,
      `does not fit a tensor of shape [${x.shape.join(', ')}]`,
    );
  return new IntervalTensor(out, x.lo, x.hi, x.tangent, x.dtype);
}

/** slice(x, begin, size) as tfjs: shorter begin pads with 0, shorter size with −1 (to the end). */
export function slice(
  x: IntervalTensor,
  begin: number | readonly number[],
  size?: number | readonly number[],
): IntervalTensor {
  const rank = x.rank;
  const b = typeof begin === 'number' ? [begin] : Array.isArray(begin) ? begin.slice() : null;
  const s = size === undefined ? [] : typeof size === 'number' ? [size] : Array.isArray(size) ? size.slice() : null;
  if (b === null || s === null || b.length > rank || s.length > rank)
    throw new ArgumentError(
      'tf.slice(begin, size)',
      [begin, size],
      `must be numbers or arrays of at most ${rank} integers`,
    );
  while (b.length < rank) b.push(0);
  while (s.length < rank) s.push(-1);
  for (let k = 0; k < rank; k++) {
    if (s[k] === -1) s[k] = x.shape[k]! - b[k]!;
    const ok =
      Number.isInteger(b[k]) && Number.isInteger(s[k]) && b[k]! >= 0 && s[k]! >= 0 && b[k]! + s[k]! <= x.shape[k]!;
    if (!ok)
      throw new ArgumentError(
        'tf.slice(begin, size)',
        `[${b.join(', ')}], [${s.join(', ')}]`,
        `is outside a tensor of shape [${x.shape.join(', ')}] (axis ${k})`,
      );
  }
  const st = stridesOf(x.shape);
  return remap(
    x,
    s,
    stridedMap(
      s,
      st,
      b.reduce((o, bk, k) => o + bk * st[k]!, 0),
    ),
  );
}

/** transpose(x, perm) (default: the axes reversed). */
export function transpose(x: IntervalTensor, perm?: readonly number[]): IntervalTensor {
  const rank = x.rank;
  const p = perm === undefined ? x.shape.map((_, i) => rank - 1 - i) : perm.slice();
  const seen = new Set(p);
  if (p.length !== rank || seen.size !== rank || !p.every((a) => Number.isInteger(a) && a >= 0 && a < rank))
    throw new ArgumentError('tf.transpose(perm)', perm, `must be a permutation of 0..${rank - 1}`);
  const shape = p.map((a) => x.shape[a]!);
  const st = stridesOf(x.shape);
  // the output walks x with the permuted strides
  const map = stridedMap(
    shape,
    p.map((a) => st[a]!),
  );
  return remap(x, shape, map);
}

/** concat(tensors, axis): equal ranks, equal dimensions off the axis. */
export function concat(tensors: readonly IntervalTensor[], axis = 0): IntervalTensor {
  if (tensors.length === 0)
    throw new ArgumentError('tf.concat(tensors)', tensors, 'must be a non-empty array of tensors');
  const first = tensors[0]!;
  const rank = first.rank;
  const ax = normalizeAxis('concat', axis, rank);
  for (const t of tensors)
    if (t.rank !== rank || t.shape.some((d, k) => k !== ax && d !== first.shape[k]))
      throw new ArgumentError(
        'tf.concat(tensors)',
        tensors.map((u) => `[${u.shape.join(', ')}]`).join(', '),
        `do not fit together along axis ${ax}`,
      );
  if (tensors.length === 1) return first;
  const shape = first.shape.slice();
  shape[ax] = tensors.reduce((a, t) => a + t.shape[ax]!, 0);
  const outer = sizeOf(shape.slice(0, ax));
  const inner = sizeOf(shape.slice(ax + 1));
  const rowOut = shape[ax]! * inner;
  const n = sizeOf(shape);
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  // each part's block of shape[ax]·inner elements per outer index lands at column offset `off`
  let off = 0;
  const offsets = tensors.map((t) => {
    const o = off;
    off += t.shape[ax]! * inner;
    return o;
  });
  tensors.forEach((t, p) => {
    const row = t.shape[ax]! * inner;
    for (let o = 0; o < outer; o++) {
      lo.set(t.lo.subarray(o * row, o * row + row), o * rowOut + offsets[p]!);
      hi.set(t.hi.subarray(o * row, o * row + row), o * rowOut + offsets[p]!);
    }
  });
  const m = seedCount(...tensors);
  if (m === 0) return new IntervalTensor(shape, lo, hi);
  // output element of part element e: (e div row)·rowOut + offset + e mod row
  const place = (p: number, e: number) => {
    const row = tensors[p]!.shape[ax]! * inner;
    return Math.floor(e / row) * rowOut + offsets[p]! + (e % row);
  };
  let t0 = n;
  let t1 = 0;
  tensors.forEach((t, p) => {
    const g = t.tangent;
    if (g === null || g.dn === 0) return;
    t0 = Math.min(t0, place(p, g.d0));
    t1 = Math.max(t1, place(p, g.d0 + g.dn - 1) + 1);
  });
  const out = zeroTangent(m, t0, Math.max(0, t1 - t0));
  tensors.forEach((t, p) => {
    const g = t.tangent;
    if (g === null) return;
    for (let r = 0; r < g.dn; r++) {
      const o = (place(p, g.d0 + r) - t0) * m;
      out.dlo.set(g.dlo.subarray(r * m, r * m + m), o);
      out.dhi.set(g.dhi.subarray(r * m, r * m + m), o);
    }
  });
  return new IntervalTensor(shape, lo, hi, out);
}

/** Integer index data of a gather: a tensor of point integers, an array or a typed array. */
function indexData(indices: unknown): { shape: number[]; data: ArrayLike<number> } {
  if (indices instanceof IntervalTensor) {
    for (let i = 0; i < indices.size; i++)
      if (indices.lo[i] !== indices.hi[i])
        throw new ArgumentError('tf.gather(indices)', indices.lo[i], 'must be constant integers (point values)');
    return { shape: indices.shape, data: indices.lo };
  }
  const t = tensorFromValues('gather(indices)', indices);
  return { shape: t.shape, data: t.lo };
}

/** gather(x, indices, axis): x's slices along `axis` at the given constant indices. */
export function gather(x: IntervalTensor, indices: unknown, axis = 0, batchDims = 0): IntervalTensor {
  if (batchDims !== 0) throw new ArgumentError('tf.gather(batchDims)', batchDims, 'only 0 is supported');
  const ax = normalizeAxis('gather', axis, x.rank);
  const { shape: ishape, data } = indexData(indices);
  const len = x.shape[ax]!;
  for (let i = 0; i < data.length; i++)
    if (!(Number.isInteger(data[i]) && data[i]! >= 0 && data[i]! < len))
      throw new ArgumentError(`tf.gather(indices)[${i}]`, data[i], `must be an integer in [0, ${len})`);
  const outer = sizeOf(x.shape.slice(0, ax));
  const inner = sizeOf(x.shape.slice(ax + 1));
  const shape = [...x.shape.slice(0, ax), ...ishape, ...x.shape.slice(ax + 1)];
  const map = new Int32Array(sizeOf(shape));
  let i = 0;
  for (let o = 0; o < outer; o++)
    for (let q = 0; q < data.length; q++) for (let r = 0; r < inner; r++) map[i++] = (o * len + data[q]!) * inner + r;
  return remap(x, shape, map);
}

/** expandDims(x, axis): a dimension 1 inserted at axis ∈ [−rank − 1, rank]. */
export function expandDims(x: IntervalTensor, axis = 0): IntervalTensor {
  const ax = normalizeAxis('expandDims', axis, x.rank + 1);
  const shape = x.shape.slice();
  shape.splice(ax, 0, 1);
  return new IntervalTensor(shape, x.lo, x.hi, x.tangent, x.dtype);
}

/** squeeze(x, axis): the given dimensions of size 1 removed (default: all of them). */
export function squeeze(x: IntervalTensor, axis?: number | readonly number[]): IntervalTensor {
  const axes =
    axis === undefined
      ? x.shape.map((d, k) => (d === 1 ? k : -1)).filter((k) => k >= 0)
      : (typeof axis === 'number' ? [axis] : axis).map((a) => normalizeAxis('squeeze', a, x.rank));
  for (const a of axes)
    if (x.shape[a] !== 1)
      throw new ArgumentError('tf.squeeze(axis)', axis, `names axis ${a} of size ${x.shape[a]}, not 1`);
  const shape = x.shape.filter((_, k) => !axes.includes(k));
  return new IntervalTensor(shape, x.lo, x.hi, x.tangent, x.dtype);
}

function checkDtype(op: string, dtype: unknown): IntervalDtype {
  if (dtype === undefined) return 'float32';
  if (dtype === 'float32' || dtype === 'int32' || dtype === 'bool') return dtype;
  throw new ArgumentError(`tf.${op}(dtype)`, dtype, "must be 'float32', 'int32' or 'bool'");
}

/**
 * Flattens nested arrays / typed arrays of numbers (or booleans) into `out` and infers their
 * shape (`shape[depth]` the length at that depth; a number ends the nesting at its depth).
 */
function flatten(op: string, values: unknown, out: number[], shape: number[], depth: number): void {
  const ragged = () => new ArgumentError(`tf.${op}(values)`, values, 'is not a rectangular array');
  if (typeof values === 'number' || typeof values === 'boolean') {
    if (depth !== shape.length) throw ragged();
    out.push(Number(values));
    return;
  }
  if (!(Array.isArray(values) || (ArrayBuffer.isView(values) && !(values instanceof DataView))))
    throw new ArgumentTypeError(
      `tf.${op}(values)`,
      values,
      'must be numbers, nested arrays of numbers or a typed array',
    );
  const arr = values as ArrayLike<unknown>;
  if (depth === shape.length) {
    if (out.length > 0) throw ragged(); // a number came first at this depth
    shape.push(arr.length);
  } else if (shape[depth] !== arr.length) throw ragged();
  for (let i = 0; i < arr.length; i++) flatten(op, arr[i], out, shape, depth + 1);
}

/** A point tensor of the data and shape of tfjs tensor values. */
function tensorFromValues(op: string, values: unknown, shape?: readonly number[], dtype?: unknown): IntervalTensor {
  const data: number[] = [];
  const inferred: number[] = [];
  if (ArrayBuffer.isView(values) && !(values instanceof DataView)) {
    const arr = values as unknown as ArrayLike<number>;
    for (let i = 0; i < arr.length; i++) data.push(Number(arr[i]));
    inferred.push(arr.length);
  } else flatten(op, values, data, inferred, 0);
  const s = shape === undefined ? inferred : checkShape(op, shape);
  if (sizeOf(s) !== data.length)
    throw new ArgumentError(`tf.${op}(shape)`, `[${s.join(', ')}]`, `does not hold the ${data.length} values given`);
  return pointTensor(s, data, checkDtype(op, dtype));
}

/** tensor(values, shape?, dtype?). */
export function tensor(values: unknown, shape?: readonly number[], dtype?: unknown): IntervalTensor {
  return tensorFromValues('tensor', values, shape, dtype);
}

/** tensor1d(values, dtype?). */
export function tensor1d(values: unknown, dtype?: unknown): IntervalTensor {
  const t = tensorFromValues('tensor1d', values, undefined, dtype);
  if (t.rank !== 1) throw new ArgumentError('tf.tensor1d(values)', values, 'must be one-dimensional');
  return t;
}

/** tensor2d(values, shape?, dtype?). */
export function tensor2d(values: unknown, shape?: readonly number[], dtype?: unknown): IntervalTensor {
  const t = tensorFromValues('tensor2d', values, shape, dtype);
  if (t.rank !== 2)
    throw new ArgumentError('tf.tensor2d(values)', values, 'must be two-dimensional (or give a shape of 2)');
  return t;
}

/** scalar(value, dtype?). */
export function scalar(value: unknown, dtype?: unknown): IntervalTensor {
  if (typeof value !== 'number' && typeof value !== 'boolean')
    throw new ArgumentTypeError('tf.scalar(value)', value, 'must be a number');
  return pointTensor([], [Number(value)], checkDtype('scalar', dtype));
}

/** fill(shape, value, dtype?). */
export function fill(shape: readonly number[], value: number, dtype?: unknown): IntervalTensor {
  const s = checkShape('fill', shape);
  if (typeof value !== 'number') throw new ArgumentTypeError('tf.fill(value)', value, 'must be a number');
  return pointTensor(s, new Float64Array(sizeOf(s)).fill(value), checkDtype('fill', dtype));
}

/** eye(numRows, numColumns?, batchShape?): the identity (rows × columns, repeated over batchShape). */
export function eye(
  numRows: number,
  numColumns?: number,
  batchShape?: readonly number[],
  dtype?: unknown,
): IntervalTensor {
  const cols = numColumns ?? numRows;
  const [r, c] = checkShape('eye', [numRows, cols]) as [number, number];
  const batch = batchShape === undefined ? [] : checkShape('eye', batchShape);
  const data = new Float64Array(sizeOf(batch) * r * c);
  for (let b = 0; b < sizeOf(batch); b++) for (let i = 0; i < Math.min(r, c); i++) data[b * r * c + i * c + i] = 1;
  return pointTensor([...batch, r, c], data, checkDtype('eye', dtype));
}
