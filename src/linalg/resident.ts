/**
 * A matrix held in the WebAssembly memory for repeated products with vectors: checked for shape
 * and finiteness and copied once, when it is made resident, instead of on every call as
 * {@link gemm} must (it cannot know that its argument did not change). Each product then costs the
 * kernel's one pass over the matrix plus O(rows + cols) for the vector: the vector is checked and
 * copied in, and the result checked and copied out.
 *
 * The product is the wasm kernel `dgemv` (assembly/linalg/dgemv.ts): each y_i is one dot product of
 * row i with x in a fixed summation order, so |ŷ_i − y_i| <= γ_n·Σ_j |a_ij||x_j| with
 * γ_n = n·eps/(1 − n·eps) (Higham, Accuracy and Stability of Numerical Algorithms, Sec. 3.1), and
 * the same inputs give the same bits on every call.
 *
 * The matrix's blocks live until {@link ResidentMatrix.free} (or `using`, or the end of a scope
 * with `Symbol.dispose`); a resident matrix that is dropped without being freed is freed when the
 * garbage collector reclaims it, but when that happens is up to the engine.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import type { F64Block } from '../wasm/arena.js';
import { wasm } from '../wasm/module.js';
import { linalgKernels } from './wasmKernels.js';
import { countNonFinite } from './gemm.js';
import { readMatrix, type MatrixInput } from './shape.js';

/** Frees the blocks of a resident matrix that was garbage-collected without being freed. */
const leaked = new FinalizationRegistry<readonly F64Block[]>((blocks) => {
  for (const b of blocks) if (!b.freed) wasm().arena.free(b);
});

/**
 * A rows×cols matrix resident in the WebAssembly memory ({@link residentMatrix}); `times(x)` is
 * y = A·x.
 */
export class ResidentMatrix implements Disposable {
  readonly #a: F64Block;
  readonly #x: F64Block;
  readonly #y: F64Block;
  #freed = false;

  /** @internal Use {@link residentMatrix}. */
  constructor(
    /** Rows of A (the length of A·x). */
    readonly rows: number,
    /** Columns of A (the length of x). */
    readonly cols: number,
    data: Float64Array,
  ) {
    const arena = wasm().arena;
    const blocks: F64Block[] = [];
    try {
      blocks.push(arena.from(data), arena.alloc(cols), arena.alloc(rows));
    } catch (e) {
      for (const b of blocks) arena.free(b);
      throw e;
    }
    [this.#a, this.#x, this.#y] = blocks as [F64Block, F64Block, F64Block];
    leaked.register(this, blocks, this);
  }

  /**
   * y = A·x, written into `out` when given (a Float64Array of length rows) or into a new array.
   * Nothing is written when the call throws.
   * Error per entry <= γ_cols·Σ_j |a_ij||x_j| (module comment). Cost 2·rows·cols flops plus
   * O(rows + cols) to check and copy the vectors.
   * @throws {ArgumentError} x not of length cols or holding NaN/±Infinity, out of the wrong length,
   *   or a product that overflows f64.
   * @throws {Error} the matrix was freed.
   * @example
   * ```ts
   * const A = linalg.residentMatrix([1, 2, 3, 4], 2, 2);
   * A.times([1, 1]); // Float64Array [3, 7]
   * A.free();
   * ```
   */
  times(x: ArrayLike<number>, out?: Float64Array): Float64Array {
    if (this.#freed) throw new Error(`ordergap: this resident ${this.rows}×${this.cols} matrix was freed`);
    if (x === null || typeof x !== 'object' || typeof x.length !== 'number')
      throw new ArgumentTypeError('x', x, 'must be an array of numbers or a Float64Array');
    if (x.length !== this.cols) throw new ArgumentError('x.length', x.length, `must be ${this.cols} (columns of A)`);
    if (out !== undefined) {
      if (!(out instanceof Float64Array)) throw new ArgumentTypeError('out', out, 'must be a Float64Array');
      if (out.length !== this.rows)
        throw new ArgumentError('out.length', out.length, `must be ${this.rows} (rows of A)`);
    }
    const xv = this.#x.view;
    for (let j = 0; j < this.cols; j++) {
      const v = x[j]!;
      if (!Number.isFinite(v)) throw new ArgumentError(`x[${j}]`, v, 'must be a finite number');
      xv[j] = v;
    }
    linalgKernels().dgemv(this.rows, this.cols, this.#a.ptr, this.cols, this.#x.ptr, this.#y.ptr);
    const y = this.#y.view;
    if (countNonFinite(y) !== 0) throw new ArgumentError('x', x, 'its product with A overflows f64');
    const result = out ?? new Float64Array(this.rows);
    result.set(y);
    return result;
  }

  /** Whether {@link free} was called. */
  get freed(): boolean {
    return this.#freed;
  }

  /** Returns the matrix's memory to the arena; later calls of `times` throw. Freeing twice is a no-op. */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    leaked.unregister(this);
    const arena = wasm().arena;
    for (const b of [this.#a, this.#x, this.#y]) arena.free(b);
  }

  /** {@link free}, for `using A = residentMatrix(...)`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/**
 * Makes A (rows×cols, row-major, or an ml-matrix Matrix) resident in the WebAssembly memory for
 * repeated products A·x ({@link ResidentMatrix.times}): A is checked and copied once, here.
 * Needs `await init()`.
 * @throws {ArgumentError} a bad shape, NaN/±Infinity in A, or a matrix beyond wasm32's 4 GiB.
 * @example
 * ```ts
 * using W = linalg.residentMatrix(weights, 1024, 1024);
 * for (let t = 0; t < steps; t++) theta = W.times(theta); // one pass over W per step
 * ```
 */
export function residentMatrix(A: MatrixInput, rows?: number, cols?: number): ResidentMatrix {
  const m = readMatrix('A', A, rows, cols);
  return new ResidentMatrix(m.rows, m.cols, m.data);
}
