/**
 * Matrix inputs of the linalg area: row-major Float64Array (or any array of numbers) with an
 * explicit shape, or an ml-matrix `Matrix` whose shape is its own. Row-major everywhere: entry
 * (i, j) of an r×c matrix is `data[i * c + j]`.
 *
 * {@link readMatrix} validates once (shape, finiteness) and measures max|a_ij|, which the kernels
 * use to pick an exact power-of-two scaling (see {@link safeScale}).
 */
import { AbstractMatrix, Matrix } from 'ml-matrix';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { checkMatrixMemory } from '../util/resources.js';
import { integerInRange } from '../util/validate.js';
import { F64Block } from '../wasm/arena.js';

/**
 * A dense matrix as accepted by the friendly API. An {@link F64Block} (or a Float64Array view of
 * one) already lives in wasm memory: the Gramian reads it in place, with no copy into wasm memory
 * (see gram); the other functions copy it like any array.
 */
export type MatrixInput = Float64Array | ArrayLike<number> | AbstractMatrix | F64Block;

/**
 * A dense matrix whose shape and element types are checked but whose entries are not yet scanned
 * for NaN/±Infinity (see {@link readShape}). `data` may be the caller's array: never write to it.
 */
export interface MatrixShape {
  readonly data: Float64Array;
  readonly rows: number;
  readonly cols: number;
  /** True when the input was an ml-matrix Matrix (results are then returned as Matrix too). */
  readonly wasMatrix: boolean;
}

/** A validated dense matrix (row-major): shape checked and every entry finite. */
export interface DenseMatrix extends MatrixShape {
  /** max |a_ij| (0 for an empty or zero matrix). */
  readonly amax: number;
}

/** True for ml-matrix matrices (any AbstractMatrix). */
export function isMlMatrix(x: unknown): x is AbstractMatrix {
  return AbstractMatrix.isMatrix(x);
}

/**
 * Validates a matrix argument: shape and finiteness (one pass that also measures max|a_ij|).
 * @param name argument name used in error messages (`A`, `S`, ...)
 * @param rows,cols required when `value` is not an ml-matrix Matrix; checked against it when it is
 * @throws {ArgumentTypeError} not an array of numbers / Matrix.
 * @throws {ArgumentError} bad shape, wrong length, or an entry that is NaN or ±Infinity (the
 *   message names the entry as `A[i][j]`).
 */
export function readMatrix(name: string, value: unknown, rows?: number, cols?: number): DenseMatrix {
  const m = readShape(name, value, rows, cols);
  return { ...m, amax: scanFinite(name, m) };
}

/**
 * Checks a matrix argument's type and shape only, leaving the finiteness scan to the caller: for
 * kernels that validate on the fly while they stream the data anyway (the Gramian's pack pass),
 * and that call {@link scanFinite} before trusting any result when their own check fails.
 * @throws {ArgumentTypeError} not an array of numbers / Matrix.
 * @throws {ArgumentError} bad shape or wrong length.
 */
export function readShape(name: string, value: unknown, rows?: number, cols?: number): MatrixShape {
  let data: Float64Array;
  let r: number;
  let c: number;
  let wasMatrix = false;
  if (isMlMatrix(value)) {
    wasMatrix = true;
    r = value.rows;
    c = value.columns;
    if (rows !== undefined && rows !== r) throw new ArgumentError('rows', rows, `does not match ${name}.rows = ${r}`);
    if (cols !== undefined && cols !== c)
      throw new ArgumentError('cols', cols, `does not match ${name}.columns = ${c}`);
    data = new Float64Array(r * c);
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) data[i * c + j] = value.get(i, j);
  } else {
    if (rows === undefined)
      throw new ArgumentError('rows', rows, `is required when ${name} is not an ml-matrix Matrix`);
    if (cols === undefined)
      throw new ArgumentError('cols', cols, `is required when ${name} is not an ml-matrix Matrix`);
    r = integerInRange('rows', rows, 0);
    c = integerInRange('cols', cols, 0);
    checkMatrixMemory(name, r, c); // before anything of the shape's size is allocated
    if (value instanceof F64Block) {
      if (value.freed) throw new ArgumentError(name, value, 'is an F64Block that was already freed');
      data = value.view;
    } else if (value instanceof Float64Array) data = value;
    else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
      const arr = value as ArrayLike<unknown>;
      data = new Float64Array(arr.length);
      for (let i = 0; i < arr.length; i++) {
        const x = arr[i];
        if (typeof x !== 'number') throw new ArgumentTypeError(`${name}[${i}]`, x, 'must be a number');
        data[i] = x;
      }
    } else {
      throw new ArgumentTypeError(
        name,
        value,
        'must be a Float64Array, an array of numbers, an ml-matrix Matrix or an F64Block',
      );
    }
    if (data.length !== r * c)
      throw new ArgumentError(name, value, `must hold rows·cols = ${r}·${c} = ${r * c} values, got ${data.length}`);
  }
  return { data, rows: r, cols: c, wasMatrix };
}

/**
 * max|a_ij| of a matrix read by {@link readShape}.
 * @throws {ArgumentError} an entry is NaN or ±Infinity (named `name[i][j]`).
 */
export function scanFinite(name: string, m: MatrixShape): number {
  const { data, cols: c } = m;
  const amax = maxAbsOrNaN(data);
  if (amax !== amax) {
    for (let k = 0; k < data.length; k++) {
      if (!Number.isFinite(data[k]!)) {
        const i = Math.floor(k / c);
        throw new ArgumentError(
          `${name}[${i}][${k - i * c}]`,
          data[k],
          'must be finite (NaN and ±Infinity are rejected)',
        );
      }
    }
  }
  return amax;
}

/**
 * max |x_i|, or NaN if some entry is NaN or ±Infinity. Branch-light: `x − x` is 0 for finite x
 * and NaN for NaN/±Infinity, so one running sum detects every non-finite entry.
 */
export function maxAbsOrNaN(x: Float64Array): number {
  let m0 = 0;
  let m1 = 0;
  let bad = 0;
  const n = x.length;
  let k = 0;
  for (; k + 1 < n; k += 2) {
    const a = x[k]!;
    const b = x[k + 1]!;
    bad += a - a + (b - b);
    const aa = Math.abs(a);
    const ab = Math.abs(b);
    if (aa > m0) m0 = aa;
    if (ab > m1) m1 = ab;
  }
  if (k < n) {
    const a = x[k]!;
    bad += a - a;
    if (Math.abs(a) > m0) m0 = Math.abs(a);
  }
  return bad === 0 ? Math.max(m0, m1) : NaN;
}

/** Lower end of the band of max|a_ij| in which the Gramian runs unscaled (see {@link gramScale}). */
export const GRAM_UNSCALED_MIN = 2 ** -256;
/** Upper end of the band of max|a_ij| in which the Gramian runs unscaled (see {@link gramScale}). */
export const GRAM_UNSCALED_MAX = 2 ** 256;

/** True when max|a_ij| = amax lets the Gramian run unscaled: 0, or in [2^-256, 2^256] (NaN/∞: false). */
export function gramUnscaled(amax: number): boolean {
  return amax === 0 || (amax >= GRAM_UNSCALED_MIN && amax <= GRAM_UNSCALED_MAX);
}

/**
 * The scale of the Gramian's products: 1 when {@link gramUnscaled}, else {@link safeScale}.
 *
 * Why the band is safe unscaled. Overflow: every partial sum is at most rows·amax² <= 2^31·2^512,
 * far below 2^1024. Underflow: a product can fall below 2^-1022 only if it is below
 * 2^-1022/amax² <= 2^-510 relative to amax², i.e. some 2^-458 below the rounding error
 * rows·eps·amax² the sum makes anyway (and scaling would not save such products: the final
 * multiplication by 1/s² rounds them into the subnormal range again). Outside the band the exact
 * power-of-two scaling keeps entries ~1e±200 from overflowing or flushing to zero. Inside it the
 * kernel can pack A unscaled while it scans A in the same pass, so the Gramian never reads A twice.
 */
export function gramScale(amax: number): number {
  return gramUnscaled(amax) ? 1 : safeScale(amax);
}

/** Wraps row-major data as an ml-matrix Matrix. */
export function toMlMatrix(data: Float64Array, rows: number, cols: number): Matrix {
  const m = new Matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) m.set(i, j, data[i * cols + j]!);
  return m;
}

/**
 * An exact power of two s with s·amax in [1, 2) (1 for amax = 0). Multiplying by s and later by
 * 1/s is exact for every normal number, so kernels that square entries (norms, dot products) run
 * on data of size ~1 and neither overflow (entries ~1e200) nor flush to zero (entries ~1e-200).
 * The exponent is clamped to ±1022 so that s and 1/s are both normal numbers.
 */
export function safeScale(amax: number): number {
  if (!(amax > 0) || !Number.isFinite(amax)) return 1;
  let e = Math.floor(Math.log2(amax));
  // log2 may be off by one next to powers of two: correct exactly.
  if (2 ** e > amax) e -= 1;
  else if (2 ** (e + 1) <= amax) e += 1;
  return 2 ** Math.max(-1022, Math.min(1022, -e));
}
