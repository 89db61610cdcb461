/**
 * Reductions, softmax and matMul of the interval tfjs namespace.
 *
 * - sum / mean over axes (a number, an array, or all; keepDims): outward-rounded interval sums
 *   (each partial sum rounded outward, exact zero terms skipped), tangents summed alike; mean
 *   divides by the count.
 * - max / min over axes: exact values (the max of the low ends, the max of the high ends); the
 *   tangent is the hull of the tangents of every element that can attain the extremum over the
 *   box — the Clarke generalised Jacobian's enclosure where several can (see ./tfOps.ts).
 * - softmax along the last axis: s_j = e_j/(e_j + Σ_{k≠j} e_k) with e_k = exp(x_k − c) (c a
 *   point shift), increasing in e_j and decreasing in the others' sum, so its ends come from the
 *   ends of e_j and of the others' sum (prefix and suffix sums: O(L) per row and tight for
 *   independent inputs); tangent ds_j = s_j·(dx_j − Σ_k s_k dx_k).
 * - matMul, 2-D or batched (batch dimensions broadcast), transposeA / transposeB: interval
 *   products accumulated with outward rounding; tangent d(AB) = dA·B + A·dB.
 *
 * Accuracy: a sum of n terms moves each end outward by at most n roundings (one per partial sum);
 * a product adds one more per term. NaN ends propagate (products check their operands).
 */
import { R, add, div, exp, mul, sub } from './arith.js';
import {
  IntervalTensor,
  broadcastShape,
  denseTangent,
  normalizeAxis,
  operandIndex,
  seedCount,
  sizeOf,
  zeroTangent,
  type Tangent,
} from './tensor.js';
import { elementwise } from './tfOps.js';
import { ArgumentError } from '../util/errors.js';

/** The reductions over axes. */
export type ReduceOp = 'sum' | 'mean' | 'max' | 'min';

/** Adds [l, h] into (lo, hi)[i] with outward rounding (adding to or adding an exact 0 is exact). */
export function accumulate(lo: Float64Array, hi: Float64Array, i: number, l: number, h: number): void {
  if (l === 0 && h === 0) return;
  if (lo[i] === 0 && hi[i] === 0) {
    lo[i] = l;
    hi[i] = h;
    return;
  }
  add(lo[i]!, hi[i]!, l, h);
  lo[i] = R.lo;
  hi[i] = R.hi;
}

/** Sum (or max/min) of x viewed as [outer, len, inner] over the middle axis. */
function reduceAxis(op: ReduceOp, x: IntervalTensor, outer: number, len: number, inner: number): IntervalTensor {
  const n = outer * inner;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const extremum = op === 'max' || op === 'min';
  if (extremum) {
    lo.fill(op === 'max' ? -Infinity : Infinity);
    hi.fill(op === 'max' ? -Infinity : Infinity);
  }
  for (let o = 0; o < outer; o++)
    for (let l = 0; l < len; l++)
      for (let r = 0; r < inner; r++) {
        const j = (o * len + l) * inner + r;
        const i = o * inner + r;
        if (!extremum) accumulate(lo, hi, i, x.lo[j]!, x.hi[j]!);
        else if (op === 'max') {
          lo[i] = Math.max(lo[i]!, x.lo[j]!);
          hi[i] = Math.max(hi[i]!, x.hi[j]!);
        } else {
          lo[i] = Math.min(lo[i]!, x.lo[j]!);
          hi[i] = Math.min(hi[i]!, x.hi[j]!);
        }
      }
  const g = x.tangent;
  if (g === null) return new IntervalTensor([n], lo, hi);
  return new IntervalTensor([n], lo, hi, reduceTangent(op, x, g, lo, hi, [outer, len, inner]));
}

/**
 * The tangent of a reduction over the middle axis of [outer, len, inner]: the sum of the
 * tangents, or for max/min the hull of the tangents of the elements that can attain the extremum
 * (value ends lo/hi already reduced). Walks x in memory order; elements outside g's range have
 * tangent 0.
 */
function reduceTangent(
  op: ReduceOp,
  x: IntervalTensor,
  g: Tangent,
  lo: Float64Array,
  hi: Float64Array,
  [outer, len, inner]: [number, number, number],
): Tangent {
  const m = g.m;
  const extremum = op === 'max' || op === 'min';
  const out = zeroTangent(m, 0, outer * inner);
  const { dlo: ol, dhi: oh } = out;
  const { dlo: gl, dhi: gh, d0, dn } = g;
  const { lo: xl, hi: xh } = x;
  if (extremum) {
    ol.fill(Infinity);
    oh.fill(-Infinity);
  }
  for (let o = 0; o < outer; o++)
    for (let l = 0; l < len; l++)
      for (let r = 0; r < inner; r++) {
        const j = (o * len + l) * inner + r;
        const i = o * inner + r;
        const k = j - d0;
        const has = k >= 0 && k < dn;
        if (!extremum) {
          if (has) for (let s = 0; s < m; s++) accumulate(ol, oh, i * m + s, gl[k * m + s]!, gh[k * m + s]!);
          continue;
        }
        if (!(op === 'max' ? xh[j]! >= lo[i]! : xl[j]! <= hi[i]!)) continue; // cannot attain it
        for (let s = 0; s < m; s++) {
          ol[i * m + s] = Math.min(ol[i * m + s]!, has ? gl[k * m + s]! : 0);
          oh[i * m + s] = Math.max(oh[i * m + s]!, has ? gh[k * m + s]! : 0);
        }
      }
  // no element could attain it only where the value is NaN
  if (extremum) for (let e = 0; e < ol.length; e++) if (ol[e]! > oh[e]!) ol[e] = oh[e] = NaN;
  return out;
}

/** The axes argument of a reduction as sorted indices (all axes when absent). */
function reductionAxes(op: ReduceOp, axis: unknown, rank: number): number[] {
  if (axis === undefined || axis === null) return Array.from({ length: rank }, (_, k) => k);
  const list = typeof axis === 'number' ? [axis] : Array.isArray(axis) ? (axis as unknown[]) : null;
  if (list === null) throw new ArgumentError(`tf.${op}(axis)`, axis, 'must be a number or an array of numbers');
  return [...new Set(list.map((a) => normalizeAxis(op, a, rank)))].sort((a, b) => a - b);
}

/** sum / mean / max / min of x over `axis` (number, array or all), keeping reduced dimensions as 1 with keepDims. */
export function reduce(op: ReduceOp, x: IntervalTensor, axis?: unknown, keepDims = false): IntervalTensor {
  const axes = reductionAxes(op, axis, x.rank);
  let t = x;
  let shape = x.shape.slice();
  let count = 1;
  // one axis at a time, the last first, so the earlier axes keep their positions
  for (let q = axes.length - 1; q >= 0; q--) {
    const a = axes[q]!;
    const len = shape[a]!;
    count *= len;
    if (len === 0 && (op === 'max' || op === 'min'))
      throw new ArgumentError(`tf.${op}(x)`, `[${x.shape.join(', ')}]`, `has no elements along axis ${a}`);
    const r = reduceAxis(op === 'mean' ? 'sum' : op, t, sizeOf(shape.slice(0, a)), len, sizeOf(shape.slice(a + 1)));
    shape = [...shape.slice(0, a), 1, ...shape.slice(a + 1)];
    t = new IntervalTensor(shape, r.lo, r.hi, r.tangent);
  }
  if (op === 'mean') t = divideByCount(t, count);
  const outShape = keepDims ? shape : shape.filter((_, k) => !axes.includes(k));
  return new IntervalTensor(outShape, t.lo, t.hi, t.tangent);
}

/** t / count elementwise (values and tangents), count a positive integer (exact). */
function divideByCount(t: IntervalTensor, count: number): IntervalTensor {
  return elementwise(
    t,
    (l, h, i) => div(l[i]!, h[i]!, count, count),
    () => div(1, 1, count, count),
  );
}

/** Softmax values of one row (x[off .. off+len)) into lo/hi, using e (2·len scratch) and sums. */
function softmaxRow(
  x: IntervalTensor,
  off: number,
  len: number,
  lo: Float64Array,
  hi: Float64Array,
  e: Float64Array,
): void {
  let c = -Infinity;
  for (let j = 0; j < len; j++) if (x.hi[off + j]! < Infinity) c = Math.max(c, x.hi[off + j]!);
  if (!(c > -Infinity)) c = 0;
  for (let j = 0; j < len; j++) {
    sub(x.lo[off + j]!, x.hi[off + j]!, c, c);
    exp(R.lo, R.hi);
    e[2 * j] = R.lo;
    e[2 * j + 1] = R.hi;
  }
  // suffix sums of e in lo/hi (Σ_{k>j}), then a running prefix sum
  let sl = 0;
  let sh = 0;
  for (let j = len - 1; j >= 0; j--) {
    lo[off + j] = sl;
    hi[off + j] = sh;
    add(sl, sh, e[2 * j]!, e[2 * j + 1]!);
    sl = R.lo;
    sh = R.hi;
  }
  let pl = 0;
  let ph = 0;
  for (let j = 0; j < len; j++) {
    add(pl, ph, lo[off + j]!, hi[off + j]!); // Σ_{k≠j} e_k
    const ol = R.lo;
    const oh = R.hi;
    const el = e[2 * j]!;
    const eh = e[2 * j + 1]!;
    add(el, el, oh, oh);
    div(el, el, R.lo, R.hi);
    const vl = R.lo;
    add(eh, eh, ol, ol);
    div(eh, eh, R.lo, R.hi);
    const vh = R.hi;
    add(pl, ph, el, eh);
    pl = R.lo;
    ph = R.hi;
    const none = Number.isNaN(vl) || Number.isNaN(vh);
    lo[off + j] = none ? NaN : Math.max(0, vl);
    hi[off + j] = none ? NaN : Math.min(1, vh);
  }
}

/** softmax(logits, dim) along the last axis (dim −1 or rank − 1, as tfjs). */
export function softmax(x: IntervalTensor, dim = -1): IntervalTensor {
  if (x.rank === 0 || normalizeAxis('softmax', dim, x.rank) !== x.rank - 1)
    throw new ArgumentError('tf.softmax(dim)', dim, 'must be the last axis (tfjs supports no other)');
  const len = x.shape[x.rank - 1]!;
  const rows = len === 0 ? 0 : x.size / len;
  const lo = new Float64Array(x.size);
  const hi = new Float64Array(x.size);
  const e = new Float64Array(2 * len);
  for (let r = 0; r < rows; r++) softmaxRow(x, r * len, len, lo, hi, e);
  const g = denseTangent(x);
  if (g === null) return new IntervalTensor(x.shape, lo, hi);
  const m = g.m;
  const out = zeroTangent(m, 0, x.size);
  for (let r = 0; r < rows; r++)
    for (let s = 0; s < m; s++) {
      // T = Σ_k s_k dx_k, then ds_j = s_j (dx_j − T)
      let tl = 0;
      let th = 0;
      for (let k = r * len; k < r * len + len; k++) {
        mul(lo[k]!, hi[k]!, g.dlo[k * m + s]!, g.dhi[k * m + s]!);
        if (R.lo === 0 && R.hi === 0) continue;
        add(tl, th, R.lo, R.hi);
        tl = R.lo;
        th = R.hi;
      }
      for (let j = r * len; j < r * len + len; j++) {
        sub(g.dlo[j * m + s]!, g.dhi[j * m + s]!, tl, th);
        mul(lo[j]!, hi[j]!, R.lo, R.hi);
        out.dlo[j * m + s] = R.lo;
        out.dhi[j * m + s] = R.hi;
      }
    }
  return new IntervalTensor(x.shape, lo, hi, out);
}

/** Strides of a matrix operand: element (i, j) of op(X) at i·si + j·sj within its batch. */
interface MatView {
  si: number;
  sj: number;
  size: number;
}

/** The view of a stored rows × cols matrix as op(X) = X or Xᵀ (Xᵀ(i, j) = X(j, i) at j·cols + i). */
function matView(rows: number, cols: number, transposed: boolean): MatView {
  return transposed ? { si: 1, sj: cols, size: rows * cols } : { si: cols, sj: 1, size: rows * cols };
}

/** True when an end of some element is NaN. */
function hasNaN(t: IntervalTensor): boolean {
  let s = 0;
  // every lo − hi is <= 0 or NaN (the point [∞, ∞] too: then the exact scan below decides)
  for (let i = 0; i < t.size; i++) s += t.lo[i]! - t.hi[i]!;
  if (!Number.isNaN(s)) return false;
  for (let i = 0; i < t.size; i++) if (Number.isNaN(t.lo[i]!) || Number.isNaN(t.hi[i]!)) return true;
  return false;
}

/**
 * The value block C = A·B of one batch: A (p × q) at ao, B (q × r) at bo, C at co (zeroed).
 * Zero entries of A skip their products; `checkNaN` then marks C(i, k) NaN wherever row i of A
 * or column k of B has a NaN end (a product with 0 would hide it).
 */
function matMulValues(
  a: IntervalTensor,
  av: MatView,
  ao: number,
  b: IntervalTensor,
  bv: MatView,
  bo: number,
  lo: Float64Array,
  hi: Float64Array,
  co: number,
  dims: [number, number, number],
  checkNaN: boolean,
): void {
  const [p, q, r] = dims;
  for (let i = 0; i < p; i++)
    for (let j = 0; j < q; j++) {
      const ai = ao + i * av.si + j * av.sj;
      const al = a.lo[ai]!;
      const ah = a.hi[ai]!;
      if (al === 0 && ah === 0) continue;
      for (let k = 0; k < r; k++) {
        const bi = bo + j * bv.si + k * bv.sj;
        mul(al, ah, b.lo[bi]!, b.hi[bi]!);
        accumulate(lo, hi, co + i * r + k, R.lo, R.hi);
      }
    }
  if (!checkNaN) return;
  const bad = (t: IntervalTensor, e: number) => Number.isNaN(t.lo[e]!) || Number.isNaN(t.hi[e]!);
  for (let i = 0; i < p; i++)
    for (let k = 0; k < r; k++)
      for (let j = 0; j < q; j++)
        if (bad(a, ao + i * av.si + j * av.sj) || bad(b, bo + j * bv.si + k * bv.sj)) {
          lo[co + i * r + k] = NaN;
          hi[co + i * r + k] = NaN;
          break;
        }
}

/** The tangent block dC = dA·B + A·dB of one batch (dims p, q, r; offsets of A, B, C in elements). */
function matMulTangent(
  a: IntervalTensor,
  ga: Tangent | null,
  av: MatView,
  ao: number,
  b: IntervalTensor,
  gb: Tangent | null,
  bv: MatView,
  bo: number,
  out: Tangent,
  co: number,
  dims: [number, number, number],
): void {
  const [p, q, r] = dims;
  const m = out.m;
  for (let i = 0; i < p; i++)
    for (let j = 0; j < q; j++) {
      const ai = ao + i * av.si + j * av.sj;
      const al = a.lo[ai]!;
      const ah = a.hi[ai]!;
      const aZero = al === 0 && ah === 0;
      for (let k = 0; k < r; k++) {
        const bi = bo + j * bv.si + k * bv.sj;
        const bl = b.lo[bi]!;
        const bh = b.hi[bi]!;
        const c = (co + i * r + k) * m;
        if (ga !== null && !(bl === 0 && bh === 0))
          for (let s = 0; s < m; s++) {
            mul(ga.dlo[ai * m + s]!, ga.dhi[ai * m + s]!, bl, bh);
            accumulate(out.dlo, out.dhi, c + s, R.lo, R.hi);
          }
        if (gb !== null && !aZero)
          for (let s = 0; s < m; s++) {
            mul(al, ah, gb.dlo[bi * m + s]!, gb.dhi[bi * m + s]!);
            accumulate(out.dlo, out.dhi, c + s, R.lo, R.hi);
          }
      }
    }
}

/** matMul(a, b, transposeA, transposeB): rank >= 2, batch dimensions broadcast. */
export function matMul(a: IntervalTensor, b: IntervalTensor, transposeA = false, transposeB = false): IntervalTensor {
  if (a.rank < 2 || b.rank < 2)
    throw new ArgumentError('tf.matMul(a, b)', `[${a.shape.join(', ')}] · [${b.shape.join(', ')}]`, 'needs rank >= 2');
  const [ar, ac] = a.shape.slice(-2) as [number, number];
  const [br, bc] = b.shape.slice(-2) as [number, number];
  const [p, q] = transposeA ? [ac, ar] : [ar, ac];
  const [q2, r] = transposeB ? [bc, br] : [br, bc];
  if (q !== q2)
    throw new ArgumentError(
      'tf.matMul(a, b)',
      `[${a.shape.join(', ')}] · [${b.shape.join(', ')}]`,
      `inner dimensions ${q} and ${q2} differ (transposeA ${transposeA}, transposeB ${transposeB})`,
    );
  const batch = broadcastShape('matMul', a.shape.slice(0, -2), b.shape.slice(0, -2));
  const nb = sizeOf(batch);
  const ia = operandIndex(batch, a.shape.slice(0, -2));
  const ib = operandIndex(batch, b.shape.slice(0, -2));
  const av = matView(ar, ac, transposeA);
  const bv = matView(br, bc, transposeB);
  const shape = [...batch, p, r];
  const lo = new Float64Array(nb * p * r);
  const hi = new Float64Array(nb * p * r);
  const dims: [number, number, number] = [p, q, r];
  const batchOf = (ix: typeof ia, t: number) => (ix.map === null ? t * ix.stride : ix.map[t]!);
  const checkNaN = hasNaN(a) || hasNaN(b);
  for (let t = 0; t < nb; t++)
    matMulValues(a, av, batchOf(ia, t) * av.size, b, bv, batchOf(ib, t) * bv.size, lo, hi, t * p * r, dims, checkNaN);
  const m = seedCount(a, b);
  if (m === 0) return new IntervalTensor(shape, lo, hi);
  const ga = denseTangent(a);
  const gb = denseTangent(b);
  const out = zeroTangent(m, 0, nb * p * r);
  for (let t = 0; t < nb; t++)
    matMulTangent(a, ga, av, batchOf(ia, t) * av.size, b, gb, bv, batchOf(ib, t) * bv.size, out, t * p * r, dims);
  return new IntervalTensor(shape, lo, hi, out);
}
