/**
 * Validating BLAS-1 functions (the friendly tier). Inputs are checked (lengths, finiteness)
 * before anything is computed or written; errors name the argument and its value. They run on
 * the wasm kernels once `init()` has completed and on the TypeScript reference otherwise, or
 * on the backend named by `options.backend`.
 */
import { ArgumentError } from '../util/errors.js';
import { assertFiniteVector, finiteNumber, toFloat64 } from '../util/validate.js';
import { selectBackend, type BackendOption } from '../wasm/backend.js';
import { type Blas1Backend, referenceBlas1, wasmBlas1 } from './backend.js';

/** Options shared by the BLAS-1 functions: the backend (default 'wasm' once `init()` has completed). */
export type Blas1Options = BackendOption;

const BACKENDS = { reference: referenceBlas1, wasm: wasmBlas1 } as const;

function pick(options: Blas1Options | undefined): Blas1Backend {
  return selectBackend(BACKENDS, options?.backend);
}

function vec(name: string, x: unknown): Float64Array {
  const v = x instanceof Float64Array ? x : toFloat64(name, x);
  assertFiniteVector(name, v);
  return v;
}

function sameLength(nx: string, x: Float64Array, ny: string, y: Float64Array): void {
  if (x.length !== y.length)
    throw new ArgumentError(ny, y, `must have the length of ${nx} (${x.length}), got ${y.length}`);
}

/**
 * Euclidean norm ||x||_2, overflow-safe: `norm([3e200, 4e200])` is 5e200, not Infinity.
 * Relative error <= (n/2 + 1)·eps. Cost O(n), two passes.
 * @throws {ArgumentError} an entry of x is NaN or infinite.
 * @example
 * ```ts
 * norm([3, 4]); // 5
 * ```
 */
export function norm(x: ArrayLike<number>, options?: Blas1Options): number {
  return pick(options).norm(vec('x', x));
}

/**
 * Euclidean distance ||x - y||_2, overflow-safe (the order-gap's norm, Eq. 2).
 * @throws {ArgumentError} lengths differ, or an entry is NaN or infinite.
 * @example
 * ```ts
 * distance([1, 1], [4, 5]); // 5
 * ```
 */
export function distance(x: ArrayLike<number>, y: ArrayLike<number>, options?: Blas1Options): number {
  const vx = vec('x', x);
  const vy = vec('y', y);
  sameLength('x', vx, 'y', vy);
  return pick(options).distance(vx, vy);
}

/**
 * y <- a·x + y in place (y must be a Float64Array); returns y. Nothing is written if
 * validation fails.
 * @throws {ArgumentError} a is not finite, lengths differ, or an entry is NaN or infinite.
 * @example
 * ```ts
 * const y = Float64Array.of(1, 1);
 * axpy(2, [1, 2], y); // y = [3, 5]
 * ```
 */
export function axpy(a: number, x: ArrayLike<number>, y: Float64Array, options?: Blas1Options): Float64Array {
  finiteNumber('a', a);
  const vx = vec('x', x);
  if (!(y instanceof Float64Array)) throw new ArgumentError('y', y, 'must be a Float64Array (it is updated in place)');
  assertFiniteVector('y', y);
  sameLength('x', vx, 'y', y);
  pick(options).axpy(a, vx, y);
  return y;
}

/**
 * y <- x in place (y must be a Float64Array); returns y.
 * @throws {ArgumentError} lengths differ, or an entry of x is NaN or infinite.
 */
export function copy(x: ArrayLike<number>, y: Float64Array, options?: Blas1Options): Float64Array {
  const vx = vec('x', x);
  if (!(y instanceof Float64Array)) throw new ArgumentError('y', y, 'must be a Float64Array (it is updated in place)');
  sameLength('x', vx, 'y', y);
  pick(options).copy(vx, y);
  return y;
}
