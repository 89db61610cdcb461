/**
 * Jacobians by tfjs reverse-mode autodiff (float32) for operators written as tfjs functions.
 *
 * Backends, in order: `@tensorflow/tfjs-node` when installed (it is an optional extra: its
 * installer downloads a native library, so it is absent on machines without internet), then the
 * `wasm` backend, then `cpu`. tfjs-core registers no gradients by itself; `@tensorflow/tfjs`
 * (the union package) registers all of them, so it is imported once before any gradient runs.
 *
 * - VJPs are batched: k cotangents u_i at once, by differentiating Σ_i ⟨u_i, f(X)_i⟩ with
 *   respect to X = k copies of x (one forward and one backward pass for all k rows).
 * - JVPs use the double-VJP identity: g(U) = ∂/∂X Σ⟨U, f(X)⟩ = Jᵀ U is linear in U, so
 *   ∂/∂U Σ⟨g(U), V⟩ = J V — also batched over rows, matrix-free in d.
 * Results are float32 (relative accuracy {@link AUTODIFF_F32_RELATIVE_ACCURACY}).
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import type { Tf } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteVector, integerInRange } from '../util/validate.js';
import { finiteCopy } from './finiteDifference.js';
import { AUTODIFF_F32_RELATIVE_ACCURACY, CachedJacobian } from './operator.js';
import { sparseFromDense, type SparseVector } from './sparse.js';

/** The tfjs-core namespace. */
export type { Tf };

/**
 * An operator as a tfjs function on a batch: `X` is [batch, n] (one state per row), the result
 * [batch, m]. It must use differentiable tfjs ops only.
 */
export type TfBatchMap = (tf: Tf, X: TfCore.Tensor2D) => TfCore.Tensor2D;

/** Which backend {@link loadTf} settled on and what it tried. */
export interface TfRuntime {
  tf: Tf;
  backend: string;
  /** Each attempt with its outcome, e.g. `tfjs-node: not installed`. */
  attempts: string[];
}

let runtime: Promise<TfRuntime> | undefined;

/** Module names kept in variables so bundlers and tsc do not require them to exist. */
const TFJS_NODE = '@tensorflow/tfjs-node';

/**
 * Loads tfjs once: tfjs-node if installed, else the wasm backend, else cpu; registers all
 * gradients. Numeric code does not log, so tfjs's own console warnings are switched off (PROD).
 * @example
 * ```ts
 * const { backend } = await loadTf(); // 'wasm' on a machine without tfjs-node
 * ```
 */
export function loadTf(): Promise<TfRuntime> {
  runtime ??= (async () => {
    const attempts: string[] = [];
    const tf = (await import('@tensorflow/tfjs-core')) as Tf;
    tf.env().set('PROD', true);
    await import('@tensorflow/tfjs');
    try {
      await import(TFJS_NODE);
      if (await tf.setBackend('tensorflow')) {
        attempts.push('tfjs-node: ok');
        return { tf, backend: 'tensorflow', attempts };
      }
      attempts.push('tfjs-node: backend did not initialise');
    } catch (e) {
      attempts.push(`tfjs-node: not installed (${(e as Error).message.split('\n')[0]})`);
    }
    try {
      await import('@tensorflow/tfjs-backend-wasm');
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        attempts.push('wasm: ok');
        return { tf, backend: 'wasm', attempts };
      }
      attempts.push('wasm: backend did not initialise');
    } catch (e) {
      attempts.push(`wasm: failed (${(e as Error).message.split('\n')[0]})`);
    }
    await import('@tensorflow/tfjs-backend-cpu');
    await tf.setBackend('cpu');
    await tf.ready();
    attempts.push('cpu: ok');
    return { tf, backend: 'cpu', attempts };
  })();
  return runtime;
}

function checkRows(name: string, V: Float64Array, k: number, n: number): void {
  if (!(V instanceof Float64Array)) throw new ArgumentTypeError(name, V, 'must be a Float64Array');
  if (V.length !== k * n) throw new ArgumentError(name, V, `must hold ${k} rows of length ${n} (${k * n} values)`);
}

/** k copies of x as the rows of a float32 [k, n] tensor. */
function tiled(tf: Tf, x: Float64Array, k: number): TfCore.Tensor2D {
  return tf.tile(tf.tensor2d(Float32Array.from(x), [1, x.length], 'float32'), [k, 1]) as TfCore.Tensor2D;
}

/** Jᵀ U row by row: the gradient of Σ ⟨U, f(X)⟩ with respect to X. */
function transposeProduct(tf: Tf, f: TfBatchMap, X: TfCore.Tensor2D, U: TfCore.Tensor): TfCore.Tensor {
  return tf.grad((Xv: TfCore.Tensor) => tf.sum(tf.mul(f(tf, Xv as TfCore.Tensor2D), U)))(X);
}

/** The tensor `build` returns (inside tf.tidy), read back as f64 and disposed. */
function tfRows(tf: Tf, build: () => TfCore.Tensor): Float64Array {
  const out = tf.tidy(build);
  const data = out.dataSync();
  out.dispose();
  return Float64Array.from(data);
}

/** What {@link reserveBackendHeap} uses of the tfjs wasm backend's emscripten module. */
interface EmscriptenHeap {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
}

/**
 * Heap bytes a batched autodiff pass is given ahead, per row and per float of the wider of the
 * map's input and output. The double VJP of the reference graph's Q holds about 100 such floats
 * at its peak (measured on the wasm backend: the heap grew from 16 to 100 MB for 16 rows at
 * d = 12,864); 128 leaves room for maps with a few more intermediates. A map that needs more
 * only grows the heap in steps as before.
 */
const AUTODIFF_HEAP_FLOATS_PER_ROW = 128;
/** Reservations stop here (wasm32 addresses 4 GiB, and the heap is never given back). */
const AUTODIFF_HEAP_CAP = 2 ** 30;

/**
 * Gives the wasm backend's heap room for a batch of `rows` rows of width `width` in one step, when
 * the heap is smaller than the batch's share ({@link AUTODIFF_HEAP_FLOATS_PER_ROW}). That
 * heap (emscripten's) grows by about a fifth whenever an allocation does not fit, and V8 answers
 * each growth of a wasm memory as it answers any external allocation: with a garbage collection
 * once enough has accumulated. One batch of the certification's cross-check (16 rows at
 * d = 12,864) grew it ten times and cost about 15 collections; reserved ahead, it grows once. A
 * block of the size is allocated and freed at once: memory.grow maps the pages but nothing
 * touches them, so the reservation costs address space, not resident memory. Other backends
 * (tfjs-node, cpu) keep no such heap, and nothing is done for them.
 */
function reserveBackendHeap(tf: Tf, rows: number, width: number): void {
  const heap = (tf.backend() as { wasm?: Partial<EmscriptenHeap> }).wasm;
  if (!(heap?.HEAPU8 instanceof Uint8Array && typeof heap._malloc === 'function' && typeof heap._free === 'function'))
    return;
  const bytes = Math.min(AUTODIFF_HEAP_CAP, rows * width * 4 * AUTODIFF_HEAP_FLOATS_PER_ROW);
  if (heap.HEAPU8.length >= bytes) return;
  const ptr = heap._malloc(bytes);
  if (ptr !== 0) heap._free(ptr);
}

/**
 * Batched VJPs: rows u_i of `U` (k × m) → rows Jᵀu_i (k × n), J = Df(x), float32.
 * Cost: one forward and one backward pass of f on a batch of k.
 * @throws {ArgumentError} shapes do not match.
 */
export function vjpBatch(tf: Tf, f: TfBatchMap, x: Float64Array, U: Float64Array, k: number, m: number): Float64Array {
  checkRows('U', U, k, m);
  return tfRows(tf, () => {
    const Ut = tf.tensor2d(Float32Array.from(U), [k, m], 'float32');
    return transposeProduct(tf, f, tiled(tf, x, k), Ut);
  });
}

/**
 * Batched JVPs by the double-VJP identity: rows v_i of `V` (k × n) → rows J v_i (k × m).
 * Cost: about three passes of f on a batch of k (forward, backward, backward of backward).
 * @throws {ArgumentError} shapes do not match.
 */
export function jvpBatch(tf: Tf, f: TfBatchMap, x: Float64Array, V: Float64Array, k: number, m: number): Float64Array {
  const n = x.length;
  checkRows('V', V, k, n);
  return tfRows(tf, () => {
    const X = tiled(tf, x, k);
    const Vt = tf.tensor2d(Float32Array.from(V), [k, n], 'float32');
    return tf.grad((U: TfCore.Tensor) => tf.sum(tf.mul(transposeProduct(tf, f, X, U), Vt)))(tf.zeros([k, m]));
  });
}

/**
 * The full Jacobian (m × n, row-major) by batched VJPs: the cotangents are the rows of I_m,
 * `chunk` at a time (n copies of x per chunk).
 * Cost: ⌈m/chunk⌉ forward+backward passes on batches of `chunk`.
 * @example
 * ```ts
 * const { tf } = await loadTf();
 * jacobianByVjp(tf, (tf, X) => tf.mul(X, X), Float64Array.of(1, 2), 2); // [2, 0, 0, 4]
 * ```
 */
export function jacobianByVjp(tf: Tf, f: TfBatchMap, x: ArrayLike<number>, m: number, chunk = 64): Float64Array {
  integerInRange('m', m, 0);
  integerInRange('chunk', chunk, 1);
  const x0 = finiteVector('x', x);
  const n = x0.length;
  const J = new Float64Array(m * n);
  reserveBackendHeap(tf, Math.min(chunk, m), Math.max(m, n));
  for (let r0 = 0; r0 < m; r0 += chunk) {
    const k = Math.min(chunk, m - r0);
    const U = new Float64Array(k * m);
    for (let i = 0; i < k; i++) U[i * m + r0 + i] = 1;
    J.set(vjpBatch(tf, f, x0, U, k, m), r0 * n);
  }
  return J;
}

/**
 * J = Df(x) by tfjs autodiff as a {@link JacobianOperator} (float32). Columns are computed in
 * batches of JVPs (unit rows); directions with many non-zeros by one JVP.
 * @throws {ArgumentError} x not finite; outDim not an integer >= 0; options.chunk not an integer >= 1.
 */
export class TfJacobian extends CachedJacobian<'autodiff'> {
  readonly #tf: Tf;
  readonly #f: TfBatchMap;
  readonly #x: Float64Array;
  readonly #chunk: number;

  /**
   * @param outDim output dimension m of f
   * @param options.chunk rows per batched JVP (default: as many as fit in ~8M floats, at most 64)
   */
  constructor(
    tf: Tf,
    f: TfBatchMap,
    x: ArrayLike<number>,
    outDim: number,
    options: { chunk?: number; columnThreshold?: number } = {},
  ) {
    if (typeof f !== 'function') throw new ArgumentTypeError('f', f, 'must be a function (tf, X) => Tensor2D');
    integerInRange('outDim', outDim, 0);
    if (options.chunk !== undefined) integerInRange('options.chunk', options.chunk, 1);
    const x0 = finiteCopy('x', x);
    super(x0.length, outDim, 'autodiff', AUTODIFF_F32_RELATIVE_ACCURACY, options.columnThreshold ?? 64);
    this.#tf = tf;
    this.#f = f;
    this.#x = x0;
    this.#chunk = options.chunk ?? Math.max(1, Math.min(64, Math.floor(8e6 / Math.max(this.dim, outDim))));
  }

  protected computeColumn(j: number): SparseVector {
    let col: SparseVector | undefined;
    this.computeColumns([j], (_j, c) => (col = c));
    return col!;
  }

  /** Batches of `chunk` JVPs along unit rows. */
  protected override computeColumns(cols: readonly number[], store: (j: number, col: SparseVector) => void): void {
    reserveBackendHeap(this.#tf, Math.min(this.#chunk, cols.length), Math.max(this.dim, this.outDim));
    for (let s = 0; s < cols.length; s += this.#chunk) {
      const part = cols.slice(s, s + this.#chunk);
      const V = new Float64Array(part.length * this.dim);
      part.forEach((j, i) => (V[i * this.dim + j] = 1));
      const out = jvpBatch(this.#tf, this.#f, this.#x, V, part.length, this.outDim);
      this.stats.evaluations += 3;
      part.forEach((j, i) => store(j, sparseFromDense(out.subarray(i * this.outDim, (i + 1) * this.outDim))));
    }
  }

  protected override directional(v: SparseVector): SparseVector {
    const V = new Float64Array(this.dim);
    // added, not assigned: a repeated index counts each of its entries, as apply's sum does
    for (let k = 0; k < v.index.length; k++) V[v.index[k]!]! += v.value[k]!;
    this.stats.evaluations += 3;
    this.stats.directional++;
    return sparseFromDense(jvpBatch(this.#tf, this.#f, this.#x, V, 1, this.outDim));
  }

  /** Jᵀ u for a dense cotangent u (length outDim). */
  transposeApply(u: Float64Array): Float64Array {
    this.stats.evaluations += 2;
    return vjpBatch(this.#tf, this.#f, this.#x, u, 1, this.outDim);
  }
}
