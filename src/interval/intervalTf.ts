/**
 * The interval tfjs namespace and {@link encloseForm}: a map written as a tfjs form
 * (`(tf, X) => Y`, the `consolidateTf` / `expandTf` of a system's linearisation capability),
 * evaluated with {@link intervalTf} in place of `tf`, yields rigorous enclosures over a box B
 * (per-coordinate intervals): of Q(B), and by forward-mode derivatives carried in interval
 * arithmetic, of the Jacobian DQ over B along chosen seed coordinates (PROOFS.md, "Derivatives
 * over a box"). The user's form needs no change.
 *
 * Supported: tidy, keep, dispose (no-ops); tensor, tensor1d, tensor2d, scalar, zeros, ones, fill,
 * zerosLike, onesLike, eye; reshape, slice, concat, transpose, gather, expandDims, squeeze;
 * add, sub, mul, div, maximum, minimum (a JS number on either side, numpy broadcasting); neg,
 * square, sqrt, abs, exp, log, tanh, sigmoid, softplus, relu, clipByValue; greater, greaterEqual,
 * less, lessEqual, equal, notEqual and where; sum, mean, max, min; softmax; matMul (2-D and
 * batched, transposeA / transposeB). Tensors carry the same ops as methods (`x.transpose()`) and
 * `shape`, `rank`, `size`, `dtype`. Anything else is an {@link ArgumentError} naming it, and so is
 * reading a tensor's data (`dataSync`, `array`, …): a form that branches on values has no
 * interval meaning.
 *
 * Semantics, accuracy and limits of each op: ./tfOps.ts (elementwise, kinks, `where`),
 * ./tfReduce.ts (reductions, softmax, matMul), ./tfShape.ts (shapes, constructors: constants are
 * exact f64 point intervals of the data given). Derivative enclosures at kinks (relu, abs, max,
 * min, clip, undecided `where`) enclose Clarke's generalised Jacobian: valid for Lipschitz bounds
 * over the box, not classical derivatives there.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteVector, integerInRange } from '../util/validate.js';
import { IntervalTensor, withTangentPool, type Tangent } from './tensor.js';
import { binary, clipByValue, compare, unary, where, type BinaryOp, type CompareOp, type UnaryOp } from './tfOps.js';
import { matMul, reduce, softmax, type ReduceOp } from './tfReduce.js';
import {
  concat,
  expandDims,
  eye,
  fill,
  gather,
  reshape,
  scalar,
  slice,
  squeeze,
  tensor,
  tensor1d,
  tensor2d,
  transpose,
} from './tfShape.js';

/** An operand of an op: an interval tensor, a JS number or tfjs tensor-like data (exact constants). */
function operand(op: string, x: unknown): IntervalTensor {
  if (x instanceof IntervalTensor) return x;
  if (typeof x === 'number') return scalar(x);
  if (Array.isArray(x) || ArrayBuffer.isView(x)) return tensor(x);
  throw new ArgumentTypeError(`tf.${op}(x)`, x, 'must be a tensor of the interval evaluation, a number or an array');
}

const UNARY: readonly UnaryOp[] = ['neg', 'square', 'exp', 'log', 'sqrt', 'tanh', 'sigmoid', 'softplus', 'relu', 'abs'];
const BINARY: readonly BinaryOp[] = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum'];
const COMPARE: readonly CompareOp[] = ['greater', 'greaterEqual', 'less', 'lessEqual', 'equal', 'notEqual'];
const REDUCE: readonly ReduceOp[] = ['sum', 'mean', 'max', 'min'];

type Op = (...args: never[]) => unknown;

/** The ops that take a tensor first, by name (also the tensor methods). */
function tensorOps(): Record<string, Op> {
  const ops: Record<string, Op> = {};
  for (const name of UNARY) ops[name] = (x: unknown) => unary(name, operand(name, x));
  for (const name of BINARY) ops[name] = (a: unknown, b: unknown) => binary(name, operand(name, a), operand(name, b));
  for (const name of COMPARE) ops[name] = (a: unknown, b: unknown) => compare(name, operand(name, a), operand(name, b));
  for (const name of REDUCE)
    ops[name] = (x: unknown, axis?: unknown, keepDims?: boolean) =>
      reduce(name, operand(name, x), axis, keepDims === true);
  return Object.assign(ops, {
    clipByValue: (x: unknown, lo: number, hi: number) => clipByValue(operand('clipByValue', x), lo, hi),
    softmax: (x: unknown, dim?: number) => softmax(operand('softmax', x), dim),
    matMul: (a: unknown, b: unknown, ta?: boolean, tb?: boolean) =>
      matMul(operand('matMul', a), operand('matMul', b), ta === true, tb === true),
    reshape: (x: unknown, shape: number[]) => reshape(operand('reshape', x), shape),
    slice: (x: unknown, begin: number | number[], size?: number | number[]) => slice(operand('slice', x), begin, size),
    transpose: (x: unknown, perm?: number[]) => transpose(operand('transpose', x), perm),
    gather: (x: unknown, indices: unknown, axis?: number, batchDims?: number) =>
      gather(operand('gather', x), indices, axis, batchDims),
    expandDims: (x: unknown, axis?: number) => expandDims(operand('expandDims', x), axis),
    squeeze: (x: unknown, axis?: number | number[]) => squeeze(operand('squeeze', x), axis),
    zerosLike: (x: unknown) => fill(operand('zerosLike', x).shape, 0),
    onesLike: (x: unknown) => fill(operand('onesLike', x).shape, 1),
  });
}

function namespaceOps(): Record<string, Op> {
  return {
    ...tensorOps(),
    where: (c: unknown, a: unknown, b: unknown) => where(operand('where', c), operand('where', a), operand('where', b)),
    concat: (ts: unknown, axis?: number) => {
      if (!Array.isArray(ts)) throw new ArgumentTypeError('tf.concat(tensors)', ts, 'must be an array of tensors');
      return concat(
        ts.map((t) => operand('concat', t)),
        axis,
      );
    },
    tensor,
    tensor1d,
    tensor2d,
    scalar,
    fill,
    eye,
    zeros: (shape: number[], dtype?: unknown) => fill(shape, 0, dtype),
    ones: (shape: number[], dtype?: unknown) => fill(shape, 1, dtype),
    tidy: (nameOrFn: unknown, fn?: unknown) => {
      const f = typeof nameOrFn === 'function' ? nameOrFn : fn;
      if (typeof f !== 'function') throw new ArgumentTypeError('tf.tidy(fn)', f, 'must be a function');
      return (f as () => unknown)();
    },
    keep: (x: unknown) => x,
    dispose: () => undefined,
  };
}

const OPS = Object.freeze(namespaceOps());
const SUPPORTED = Object.keys(OPS).sort().join(', ');

function unsupported(what: string): ArgumentError {
  return new ArgumentError('form', what, `is not supported by the interval evaluation (supported: ${SUPPORTED})`);
}

/**
 * The interval tfjs namespace: pass it where a tfjs form expects `tf`. Every supported op acts on
 * {@link IntervalTensor}s (see the file header); reading any other property throws an
 * {@link ArgumentError} naming it (`form = "tf.conv2d": is not supported by the interval
 * evaluation (supported: …)`).
 */
export const intervalTf: Readonly<Record<string, Op>> = new Proxy(OPS, {
  get(target, prop) {
    if (typeof prop === 'symbol' || prop in target) return target[prop as string];
    if (prop === 'then') return undefined; // not a thenable
    throw unsupported(`tf.${prop}`);
  },
});

/** Tensor methods: the tensor-first ops with the tensor as their first argument. */
function installTensorMethods(): void {
  const methods: PropertyDescriptorMap = {};
  const ops = tensorOps();
  for (const [name, f] of Object.entries(ops))
    methods[name] = {
      value(this: IntervalTensor, ...args: unknown[]) {
        return (f as (...a: unknown[]) => unknown)(this, ...args);
      },
    };
  methods.concat = {
    value(this: IntervalTensor, x: unknown, axis?: number) {
      const rest = Array.isArray(x) ? x : [x];
      return concat([this, ...rest.map((t) => operand('concat', t))], axis);
    },
  };
  methods.dispose = { value: () => undefined };
  for (const name of ['dataSync', 'data', 'array', 'arraySync', 'buffer', 'bufferSync', 'print'])
    methods[name] = {
      value: () => {
        throw unsupported(`tensor.${name}()`);
      },
    };
  Object.defineProperties(IntervalTensor.prototype, methods);
}
installTensorMethods();

/** A tfjs-form map X [1, d] → [1, d'] (a system's `consolidateTf`, or `expandTf` with its id bound). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's form is typed against tfjs's own namespace
export type TfForm = (tf: any, X: any) => any;

/** Options of {@link encloseForm}. */
export interface EncloseFormOptions {
  /** Input coordinates whose Jacobian columns to enclose (default: none, values only). */
  seeds?: ArrayLike<number>;
  /** Output coordinates of the Jacobian's rows (default: all outputs, in order). */
  rows?: ArrayLike<number>;
  /** Seeds per evaluation of the form (default {@link DEFAULT_SEED_CHUNK}): memory O(size·chunk). */
  chunk?: number;
}

/** An enclosure of Jacobian entries: [lo, hi][r·cols + s] ∋ ∂f_{rows[r]}/∂x_{seeds[s]} over the box. */
export interface JacobianEnclosure {
  lo: Float64Array;
  hi: Float64Array;
  rows: number;
  cols: number;
}

/** The result of {@link encloseForm}. */
export interface FormEnclosure {
  /** Low ends of f over the box, per output. */
  lo: Float64Array;
  /** High ends. */
  hi: Float64Array;
  /** The Jacobian columns along the seeds (null without seeds). */
  jacobian: JacobianEnclosure | null;
}

/** Default seeds per evaluation in {@link encloseForm}: tangents cost 32 intervals per element. */
export const DEFAULT_SEED_CHUNK = 32;

/** The input X = the box [lo, hi] as a [1, d] tensor with unit tangents along `seeds`. */
function inputTensor(lo: Float64Array, hi: Float64Array, seeds: Int32Array | null): IntervalTensor {
  if (seeds === null || seeds.length === 0) return new IntervalTensor([1, lo.length], lo, hi);
  const m = seeds.length;
  let first = Infinity;
  let last = -1;
  for (const j of seeds) {
    first = Math.min(first, j);
    last = Math.max(last, j);
  }
  const dn = last - first + 1;
  const g: Tangent = { m, d0: first, dn, dlo: new Float64Array(dn * m), dhi: new Float64Array(dn * m) };
  seeds.forEach((j, s) => {
    g.dlo[(j - first) * m + s] = 1;
    g.dhi[(j - first) * m + s] = 1;
  });
  return new IntervalTensor([1, lo.length], lo, hi, g);
}

/** Runs the form on X and checks it returned a [1, d'] interval tensor. */
function evaluate(form: TfForm, X: IntervalTensor): IntervalTensor {
  const Y: unknown = form(intervalTf, X);
  if (!(Y instanceof IntervalTensor))
    throw new ArgumentTypeError('form', Y, 'must return a tensor of the interval evaluation (its result for X)');
  if (Y.rank !== 2 || Y.shape[0] !== 1)
    throw new ArgumentError(
      'form',
      `[${Y.shape.join(', ')}]`,
      'must return a tensor of shape [1, d] for X of shape [1, d]',
    );
  return Y;
}

function indexList(name: string, value: ArrayLike<number>, bound: number): Int32Array {
  const out = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = integerInRange(`${name}[${i}]`, value[i], 0, bound - 1);
  return out;
}

/**
 * Encloses f over the box [lo, hi] (length d, f a batched tfjs-form map X [1, d] → [1, d'])
 * and its Jacobian columns along the seed coordinates: `lo[i] <= f_i(x) <= hi[i]` and
 * `jacobian.lo[r·cols + s] <= ∂f_{rows[r]}/∂x_{seeds[s]}(x) <= jacobian.hi[r·cols + s]` for every
 * real x in the box (at kinks: Clarke's generalised Jacobian, see the file header). A NaN end
 * means no enclosure was obtained for that entry (e.g. log of an interval below 0); a NaN value
 * makes its Jacobian row NaN too. The form runs once per chunk of seeds (values from the first);
 * each run costs about as many interval operations as f has tfjs element operations, times
 * (1 + chunk) where tensors depend on the seeds (a tensor that does not costs no tangent work).
 * @throws {ArgumentError} lo/hi not finite, of different lengths or lo > hi; a seed or row out of
 *   range; chunk not a positive integer; the form using an unsupported op or returning anything
 *   but a [1, d'] tensor.
 * @example
 * ```ts
 * const r = encloseForm((tf, X) => tf.mul(X, X), Float64Array.of(1), Float64Array.of(2), { seeds: [0] });
 * [r.lo[0], r.hi[0]];                      // ≈ [1, 4]
 * [r.jacobian!.lo[0], r.jacobian!.hi[0]];  // ≈ [2, 4]
 * ```
 */
export function encloseForm(
  form: TfForm,
  lo: Float64Array,
  hi: Float64Array,
  options: EncloseFormOptions = {},
): FormEnclosure {
  if (typeof form !== 'function') throw new ArgumentTypeError('form', form, 'must be a function (tf, X) => Y');
  const blo = finiteVector('lo', lo);
  const bhi = finiteVector('hi', hi, blo.length);
  for (let i = 0; i < blo.length; i++)
    if (!(blo[i]! <= bhi[i]!)) throw new ArgumentError(`lo[${i}]`, blo[i], `must be <= hi[${i}] = ${bhi[i]}`);
  const d = blo.length;
  const seeds = options.seeds === undefined ? null : indexList('options.seeds', options.seeds, d);
  const chunk = integerInRange('options.chunk', options.chunk ?? DEFAULT_SEED_CHUNK, 1);
  // each evaluation's tangents are recycled once its outputs are copied out (values and the
  // Jacobian's columns are copies): the next chunk, or the next call inside a pooled search,
  // reuses them instead of allocating
  return withTangentPool((recycle) => {
    const first = evaluate(form, inputTensor(blo, bhi, seeds === null ? null : seeds.subarray(0, chunk)));
    const dOut = first.shape[1]!;
    const vlo = Float64Array.from(first.lo);
    const vhi = Float64Array.from(first.hi);
    for (let i = 0; i < dOut; i++) if (Number.isNaN(vlo[i]!) || Number.isNaN(vhi[i]!)) vlo[i] = vhi[i] = NaN;
    if (seeds === null) {
      recycle();
      return { lo: vlo, hi: vhi, jacobian: null };
    }
    const rows = indexList('options.rows', options.rows ?? Array.from({ length: dOut }, (_, i) => i), dOut);
    const cols = seeds.length;
    const J: JacobianEnclosure = {
      lo: new Float64Array(rows.length * cols),
      hi: new Float64Array(rows.length * cols),
      rows: rows.length,
      cols,
    };
    for (let c0 = 0; c0 < cols; c0 += chunk) {
      const Y = c0 === 0 ? first : evaluate(form, inputTensor(blo, bhi, seeds.subarray(c0, c0 + chunk)));
      copyColumns(Y.tangent, rows, J, c0, Math.min(chunk, cols - c0));
      recycle();
    }
    rows.forEach((o, r) => {
      if (!Number.isNaN(vlo[o]!)) return;
      J.lo.fill(NaN, r * cols, r * cols + cols);
      J.hi.fill(NaN, r * cols, r * cols + cols);
    });
    return { lo: vlo, hi: vhi, jacobian: J };
  });
}

/** Writes the output tangent's rows (m seeds each) into the Jacobian's columns c0..c0+m−1. */
function copyColumns(g: Tangent | null, rows: Int32Array, J: JacobianEnclosure, c0: number, m: number): void {
  if (g === null) return; // f is constant along these seeds: the entries stay exactly 0
  rows.forEach((o, r) => {
    const k = o - g.d0;
    if (k < 0 || k >= g.dn) return;
    for (let s = 0; s < m; s++) {
      let l = g.dlo[k * m + s]!;
      let h = g.dhi[k * m + s]!;
      if (Number.isNaN(l) || Number.isNaN(h)) l = h = NaN;
      J.lo[r * J.cols + c0 + s] = l;
      J.hi[r * J.cols + c0 + s] = h;
    }
  });
}
