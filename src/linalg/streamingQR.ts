/**
 * Streaming tall-skinny QR: feed row blocks of a tall matrix with m columns, keep only the m×m
 * upper-triangular R. The stack is never held and its Gramian is never formed, so a rank decision
 * on [√p_e Σ_e B]_e (Prop. 5.2: G_W > 0 on W iff the stack has full column rank)
 * works on singular values σ_i = sqrt(λ_i(G_W)) computed from R directly — without squaring the
 * condition number as an eigen-decomposition of G_W would.
 *
 * Because [A_1; A_2; …] = Q·R with Q orthonormal columns, the singular values and right singular
 * vectors of the stack are those of R, and its null space is R's null space.
 */
import type { Matrix } from 'ml-matrix';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { qrBlockRows, type LinalgBackend } from './backend.js';
import type { BackendOption } from '../wasm/backend.js';
import { pickBackend } from './select.js';
import { isMlMatrix, readMatrix, toMlMatrix, type MatrixInput } from './shape.js';
import { basisFromRows, checkFactor, representable, svdOfR } from './svdFromR.js';
import { decideRank, resolveTolerance, type RankDecision, type RankToleranceOptions } from './tolerance.js';

/** A rank decision plus an orthonormal basis of the (numerical) null space. */
export interface NullSpaceResult extends RankDecision {
  /** Number of columns. */
  readonly cols: number;
  /** cols − rank. */
  readonly nullity: number;
  /**
   * cols×nullity row-major: orthonormal columns spanning the right singular vectors whose
   * singular value is <= tolerance.
   */
  readonly basis: Float64Array;
}

/**
 * Accumulates the R factor of a tall matrix fed as row blocks.
 *
 * Cost: 2·b·m² flops per block of b rows (Householder on [R; block]); memory m² values.
 * Numerical tolerance of the decisions: see ./tolerance.ts; the default uses
 * rows = {@link rowsSeen} (the height of the whole stack), numpy's `max(M, N)·eps·σ_max`.
 *
 * @example
 * ```ts
 * import { init, linalg } from 'ordergap';
 * await init();
 * const qr = new linalg.StreamingQR(3);
 * qr.push([1, 0, 1,  0, 1, 1], 2);     // 2 rows: the 3rd column is the sum of the first two
 * qr.push([2, 1, 3]);                  // rows inferred from the length
 * qr.rank().rank;                      // 2
 * qr.nullSpace().basis;                // ≈ ±[1, 1, −1]/√3 (3×1)
 * ```
 */
export class StreamingQR {
  /** Number of columns m. */
  readonly cols: number;
  readonly #backend: LinalgBackend;
  #R: Float64Array;
  #rows = 0;

  /**
   * @param cols number of columns m (>= 0)
   * @param options.backend force 'wasm' or 'reference' (default: wasm once `init()` completed)
   * @throws {ArgumentError} cols not a non-negative integer, or unknown backend.
   */
  constructor(cols: number, options?: BackendOption) {
    this.cols = integerInRange('cols', cols, 0);
    this.#backend = pickBackend(options);
    this.#R = new Float64Array(this.cols * this.cols);
  }

  /** Total rows fed so far. */
  get rowsSeen(): number {
    return this.#rows;
  }

  /**
   * Feeds a block of rows (row-major, `rows`×cols; `rows` may be omitted for flat input and is
   * then length/cols). An ml-matrix Matrix must have `cols` columns. Validated before anything
   * changes: a bad block leaves the accumulator untouched.
   * `scale` multiplies the block (e.g. √p_e for the stack [√p_e Σ_e B]); default 1.
   * @throws {ArgumentError} wrong length/shape, a NaN/±Infinity entry (named `block[i][j]`), a
   *   scale that is negative or not finite, or a block that makes a column norm of the stack
   *   overflow f64 (R left as it was).
   * @returns this (for chaining)
   */
  push(block: MatrixInput, rows?: number, scale = 1): this {
    if (typeof scale !== 'number' || !(scale >= 0) || !Number.isFinite(scale))
      throw new ArgumentError('scale', scale, 'must be a finite number >= 0');
    let r = rows;
    if (r === undefined && !isMlMatrix(block)) {
      const len = (block as ArrayLike<number>)?.length;
      if (typeof len !== 'number' || this.cols === 0 || len % this.cols !== 0)
        throw new ArgumentError('block', block, `length must be a multiple of cols = ${this.cols}`);
      r = len / this.cols;
    }
    const M = readMatrix('block', block, r, isMlMatrix(block) ? undefined : this.cols);
    if (M.cols !== this.cols) throw new ArgumentError('block', block, `must have ${this.cols} columns, got ${M.cols}`);
    if (M.rows === 0) return this;
    let data = M.data;
    if (scale !== 1) {
      data = Float64Array.from(data, (x) => x * scale);
      for (let k = 0; k < data.length; k++)
        if (!Number.isFinite(data[k]!))
          throw new ArgumentError('scale', scale, `overflows block entry ${M.data[k]} to ${data[k]}`);
    }
    const R = Float64Array.from(this.#R); // commit only on success
    this.#backend.qrUpdate(R, this.cols, data, M.rows, qrBlockRows(this.cols));
    checkFactor('block', block, R);
    this.#R = R;
    this.#rows += M.rows;
    return this;
  }

  /** A copy of the current R (cols×cols, upper triangular, row-major; signs of rows arbitrary). */
  r(): Float64Array {
    return Float64Array.from(this.#R);
  }

  /**
   * Singular values of the stack fed so far, descending (cols values; zeros while rows < cols).
   * Method, accuracy and cost as the library's `svdvals` after its QR: bidiagonalisation of R
   * (8/3·cols³; the reference backend: plain Jacobi) for cols >= 48 with column norms within 16×
   * of each other, else Jacobi on Rᵀ. A singular value beyond the f64 range reads Infinity.
   */
  svdvals(): Float64Array {
    return svdOfR(this.#backend, this.#R, this.cols, false).singularValues;
  }

  /**
   * Numerical rank of the stack with its tolerance and margin (see ./tolerance.ts).
   * Default tolerance max(rowsSeen, cols)·eps·σ_max.
   * @throws {ArgumentError} bad rtol/atol; σ_max beyond the f64 range (every tolerance would be ∞).
   */
  rank(options?: RankToleranceOptions): RankDecision {
    const { rtol, atol } = resolveTolerance(this.#rows, this.cols, options);
    const svd = representable(svdOfR(this.#backend, this.#R, this.cols, false), 'stack', `${this.#rows} rows`);
    return decideRank(svd.singularValues, rtol, atol);
  }

  /**
   * Rank decision plus an orthonormal basis of the numerical null space of the stack
   * (right singular vectors with σ <= tolerance).
   * @throws {ArgumentError} as {@link rank}.
   */
  nullSpace(options?: RankToleranceOptions): NullSpaceResult {
    const { rtol, atol } = resolveTolerance(this.#rows, this.cols, options);
    const svd = representable(svdOfR(this.#backend, this.#R, this.cols), 'stack', `${this.#rows} rows`);
    const dec = decideRank(svd.singularValues, rtol, atol);
    return {
      ...dec,
      cols: this.cols,
      nullity: this.cols - dec.rank,
      basis: basisFromRows(svd.rightVectorsT, this.cols, dec.rank),
    };
  }

  /** The null-space basis as an ml-matrix Matrix (cols×nullity). */
  nullSpaceMatrix(options?: RankToleranceOptions): Matrix {
    const ns = this.nullSpace(options);
    return toMlMatrix(ns.basis, this.cols, ns.nullity);
  }

  /** Forgets every row fed so far. */
  reset(): void {
    this.#R.fill(0);
    this.#rows = 0;
  }
}

/**
 * Same as `new StreamingQR(cols, options)`.
 * @throws {ArgumentError} cols not a non-negative integer, or unknown backend.
 * @example
 * ```ts
 * const qr = createStreamingQR(2).push([1, 1, 2, 2]);
 * qr.rank().rank; // 1
 * ```
 */
export function createStreamingQR(cols: number, options?: BackendOption): StreamingQR {
  return new StreamingQR(cols, options);
}
