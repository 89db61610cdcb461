/**
 * The friendly, validating linalg API. Inputs are row-major Float64Array (or arrays of numbers)
 * with explicit shapes, or ml-matrix `Matrix` objects (results then come back as `Matrix`).
 * Every input is checked before anything is computed or written (shape; NaN/±Infinity rejected
 * with the entry named); in-place outputs are written only after the result is known to be
 * finite. Runs on the wasm kernels once `init()` has completed, else on the TypeScript
 * reference (or on `options.backend`).
 */
import type { AbstractMatrix, Matrix } from 'ml-matrix';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import type { BackendOption } from '../wasm/backend.js';
import { qrBlockRows } from './backend.js';
import type { SyrkAccept, ThreadOption, Transpose } from './calls.js';
import { pickBackend } from './select.js';
import {
  gramUnscaled,
  isMlMatrix,
  readMatrix,
  readShape,
  safeScale,
  scanFinite,
  toMlMatrix,
  type DenseMatrix,
  type MatrixInput,
  type MatrixShape,
} from './shape.js';
import type { NullSpaceResult } from './streamingQR.js';
import { basisFromRows, checkFactor, representable, svdOfR, type SvdOfR } from './svdFromR.js';
import { EPS, decideRank, resolveTolerance, type RankDecision, type RankToleranceOptions } from './tolerance.js';

/** Options of {@link gram} and {@link gramAccumulate}. */
export interface GramOptions extends BackendOption, ThreadOption {}

/** Options of {@link gram}. */
export interface GramOutOptions extends GramOptions {
  /**
   * cols×cols Float64Array to write AᵀA into (overwritten, and only once the result is known to
   * be finite) instead of allocating a new one: for loops that form many Gramians of one size.
   * Float64Array input only (ml-matrix input returns a new Matrix).
   */
  out?: Float64Array;
}

function overflowError(A: MatrixShape, amax: number): ArgumentError {
  return new ArgumentError(
    'A',
    A.data,
    `the Gramian overflows f64 (max|a_ij| = ${amax}, ${A.rows} rows); ` +
      'decide rank on A itself with linalg.rank / linalg.StreamingQR, which never square it',
  );
}

/**
 * G ← weight·AᵀA (`overwrite`) or G + weight·AᵀA, writing G only if the result is finite.
 * When A has not been scanned yet (`amax` undefined) the kernel runs optimistically unscaled and
 * checks A in its pack pass: if max|a_ij| is in the unscaled band (see gramScale) that is the
 * answer; otherwise (a NaN/±Infinity entry, or entries too large or small) A is scanned — which
 * names a bad entry — and the Gramian is formed again with the exact power-of-two scale.
 */
function syrkInto(
  G: Float64Array,
  A: MatrixShape & { readonly amax?: number },
  weight: number,
  overwrite: boolean,
  options: GramOptions | undefined,
): void {
  const backend = pickBackend(options);
  const { data, rows, cols } = A;
  const pool = options ?? {};
  const run = (scale: number, accept: SyrkAccept): boolean =>
    backend.syrk({ A: data, rows, cols, scale, weight, G, overwrite, accept, pool });
  let amax = A.amax;
  if (amax === undefined) {
    let seen = NaN;
    if (run(1, (m, nonFinite) => ((seen = m), gramUnscaled(m) && nonFinite === 0))) return;
    if (gramUnscaled(seen)) throw overflowError(A, seen);
    amax = scanFinite('A', A);
  }
  if (gramUnscaled(amax)) {
    if (!run(1, (_m, nonFinite) => nonFinite === 0)) throw overflowError(A, amax);
    return;
  }
  columnScaledSyrk(G, A, amax, weight, overwrite, options);
}

/**
 * The Gramian of A whose largest entry is outside the unscaled band, on A scaled column by column:
 * column j times d_j = 2^k_j (k_j clamped to ±511, so d_i·d_j is a normal number) puts its largest
 * entry in [1, 2); G_ij = (AD)ᵀ(AD)_ij / (d_i·d_j), one exact multiplication, rounded only if the
 * true entry is itself subnormal, zero or infinite. One global scale could not do this: with
 * max|a| = 1e150 it maps a column of 1e-150 to 1e-300 and its square to 0 (gram(diag(1e150,
 * 1e-150))[1][1] must be 1e-300). Costs a scaled copy of A (rows·cols), only on this path.
 */
function columnScaledSyrk(
  G: Float64Array,
  A: MatrixShape,
  amax: number,
  weight: number,
  overwrite: boolean,
  options: GramOptions | undefined,
): void {
  const { rows, cols, data } = A;
  const colMax = new Float64Array(cols);
  for (let r = 0; r < rows; r++)
    for (let j = 0; j < cols; j++) colMax[j] = Math.max(colMax[j]!, Math.abs(data[r * cols + j]!));
  const e = Array.from(colMax, (x) => (x > 0 ? Math.max(-511, Math.min(511, Math.log2(safeScale(x)))) : 0));
  const d = e.map((k) => 2 ** k);
  const As = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let j = 0; j < cols; j++) As[r * cols + j] = data[r * cols + j]! * d[j]!;
  const T = new Float64Array(cols * cols);
  const accept = (_m: number, nf: number): boolean => nf === 0;
  const call = { A: As, rows, cols, scale: 1, weight: 1, G: T, overwrite: true, accept, pool: options ?? {} };
  const ok = pickBackend(options).syrk(call);
  if (!ok) throw overflowError(A, amax);
  const next = new Float64Array(cols * cols);
  for (let i = 0; i < cols; i++)
    for (let j = 0; j < cols; j++) {
      const v = weight * (T[i * cols + j]! * 2 ** -(e[i]! + e[j]!));
      next[i * cols + j] = overwrite ? v : G[i * cols + j]! + v;
      if (!Number.isFinite(next[i * cols + j]!)) throw overflowError(A, amax);
    }
  G.set(next);
}

/**
 * Gramian G = AᵀA (cols×cols, symmetric PSD) of A (rows×cols): the building block of Eq. (5).
 * When max|a_ij| is outside [2^-256, 2^256] the products are formed on A with each column scaled
 * by its own exact power of two (and unscaled exactly), so entries from subnormal to ~1e300 give
 * the right answer whenever it is representable, columns of very different sizes included
 * (inside that band scaling changes nothing that matters: see gramScale in ./shape.ts). Entry
 * error <= rows·eps·Σ_r|a_ri||a_rj| + rows·2^-1074·max(1, 4·c_i·c_j) with c_j = max_r|a_rj| (the
 * second term is the underflow of products, which matters only for entries near the subnormal
 * range). Cost rows·cols² flops (only tiles on and above the diagonal are
 * computed). A is streamed through wasm memory in chunks, so it need not fit there. An F64Block
 * from the arena (or a Float64Array view of a live one) is already there and is read in place,
 * with no copy: at 16384×128 that copy is ~6 % of the one-thread time (docs/linalg.md).
 * @param A rows×cols row-major: Float64Array, array of numbers, ml-matrix Matrix or F64Block
 * @param options.threads use the worker pool (see {@link startThreads}); default: use it if running
 * @param options.out write into this cols×cols Float64Array instead of a new one
 * @throws {ArgumentError} bad shape, a NaN/±Infinity entry (named `A[i][j]`), or a Gramian that
 *   overflows f64 (the message points to rank/StreamingQR, which never square A).
 * @example
 * ```ts
 * gram([1, 2, 3, 4], 2, 2); // Float64Array [10, 14, 14, 20]
 * ```
 */
export function gram(A: AbstractMatrix, options?: GramOptions): Matrix;
export function gram(A: MatrixInput, rows: number, cols: number, options?: GramOutOptions): Float64Array;
export function gram(
  A: MatrixInput,
  rowsOrOptions?: number | GramOutOptions,
  cols?: number,
  options?: GramOutOptions,
): Float64Array | Matrix {
  const [rows, opts] = typeof rowsOrOptions === 'number' ? [rowsOrOptions, options] : [undefined, rowsOrOptions];
  const M = readShape('A', A, rows, cols);
  const out = opts?.out;
  if (out !== undefined) {
    if (!(out instanceof Float64Array)) throw new ArgumentTypeError('options.out', out, 'must be a Float64Array');
    if (M.wasMatrix)
      throw new ArgumentError('options.out', out, 'is for Float64Array input (ml-matrix input returns a new Matrix)');
    if (out.length !== M.cols * M.cols)
      throw new ArgumentError('options.out', out, `must hold cols² = ${M.cols * M.cols} values, got ${out.length}`);
  }
  const G = out ?? new Float64Array(M.cols * M.cols);
  syrkInto(G, M, 1, true, opts);
  return M.wasMatrix ? toMlMatrix(G, M.cols, M.cols) : G;
}

/**
 * G += weight·AᵀA in place (one term of Eq. (5) with weight = p_e). G is cols×cols (row-major
 * Float64Array, or an ml-matrix Matrix together with a Matrix A). Nothing is written unless the
 * whole update is finite.
 * Cost rows·cols² flops.
 * @throws {ArgumentError} shapes disagree, weight not finite, NaN/±Infinity in G or A, or an
 *   update that overflows — AᵀA itself included, before the weight scales it (A = [1e200] with
 *   weight 1e-300 is refused though the update would be 1e100: pass √weight·A and weight 1).
 * @example
 * ```ts
 * const G = new Float64Array(4);
 * gramAccumulate(G, [1, 2, 3, 4], 2, 2, 0.5); // G = [5, 7, 7, 10]
 * ```
 */
export function gramAccumulate(G: AbstractMatrix, A: AbstractMatrix, weight: number, options?: GramOptions): Matrix;
export function gramAccumulate(
  G: Float64Array,
  A: MatrixInput,
  rows: number,
  cols: number,
  weight: number,
  options?: GramOptions,
): Float64Array;
export function gramAccumulate(
  G: Float64Array | AbstractMatrix,
  A: MatrixInput,
  a3: number,
  a4?: number | GramOptions,
  a5?: number,
  a6?: GramOptions,
): Float64Array | Matrix {
  const matrixForm = isMlMatrix(G);
  const rows = matrixForm ? undefined : a3;
  const cols = matrixForm ? undefined : (a4 as number);
  const weight = matrixForm ? a3 : a5;
  const opts = matrixForm ? (a4 as GramOptions | undefined) : a6;
  if (!matrixForm && !(G instanceof Float64Array))
    throw new ArgumentTypeError('G', G, 'must be a Float64Array (updated in place) or an ml-matrix Matrix');
  const M = readShape('A', A, rows, cols);
  finiteNumber('weight', weight);
  const Gm = readMatrix('G', G, matrixForm ? undefined : M.cols, matrixForm ? undefined : M.cols);
  if (Gm.rows !== M.cols || Gm.cols !== M.cols)
    throw new ArgumentError('G', G, `must be ${M.cols}×${M.cols} (cols of A), got ${Gm.rows}×${Gm.cols}`);
  // Gm.data is G itself for Float64Array input (written only once the update is known finite)
  // and a copy for a Matrix.
  syrkInto(Gm.data, M, weight!, false, opts);
  if (matrixForm) {
    const Gmat = G as Matrix;
    for (let i = 0; i < M.cols; i++) for (let j = 0; j < M.cols; j++) Gmat.set(i, j, Gm.data[i * M.cols + j]!);
    return Gmat;
  }
  return G as Float64Array;
}

/** Options of {@link gemm}. */
export interface GemmOptions extends BackendOption, ThreadOption {
  /** Use Aᵀ instead of A. */
  transA?: boolean;
  /** Use Bᵀ instead of B. */
  transB?: boolean;
  /** Default 1. */
  alpha?: number;
  /** Default 0 (C is then not read). */
  beta?: number;
  /** M×N output updated in place (required for beta ≠ 0; row-major Float64Array). */
  C?: Float64Array;
}

/**
 * C = α·op(A)·op(B) + β·C (op = identity or transpose), row-major. With `options.C` the product
 * is written into it (after validation and only if finite); otherwise a new M×N array is returned.
 * Error per entry <= K·eps·|α|·Σ_k|a_ik||b_kj| (+ the β term) while α·a_ik stays in the normal
 * range: the wasm kernel scales A by α as it packs it (reference BLAS scales B), so α = 1e-200 on
 * a = 1e-200 underflows to 0 whatever B holds (docs/linalg.md). Cost 2·M·N·K flops.
 * @throws {ArgumentError} inner dimensions disagree, NaN/±Infinity inputs, α/β not finite,
 *   beta ≠ 0 without C, C of the wrong length, or an overflowing result.
 * @example
 * ```ts
 * gemm([1, 2, 3, 4], 2, 2, [1, 0, 0, 1], 2, 2, { transA: true }); // [1, 3, 2, 4]
 * ```
 */
export function gemm(A: AbstractMatrix, B: AbstractMatrix, options?: GemmOptions): Matrix;
export function gemm(
  A: MatrixInput,
  aRows: number,
  aCols: number,
  B: MatrixInput,
  bRows: number,
  bCols: number,
  options?: GemmOptions,
): Float64Array;
export function gemm(A: MatrixInput, ...rest: unknown[]): Float64Array | Matrix {
  const matrixForm = isMlMatrix(A);
  const Am = readMatrix(
    'A',
    A,
    matrixForm ? undefined : (rest[0] as number),
    matrixForm ? undefined : (rest[1] as number),
  );
  const Bm = matrixForm ? readMatrix('B', rest[0]) : readMatrix('B', rest[2], rest[3] as number, rest[4] as number);
  const opts = (matrixForm ? rest[1] : rest[5]) as GemmOptions | undefined;
  const tA: Transpose = opts?.transA ? 'T' : 'N';
  const tB: Transpose = opts?.transB ? 'T' : 'N';
  const M = tA === 'N' ? Am.rows : Am.cols;
  const K = tA === 'N' ? Am.cols : Am.rows;
  const Kb = tB === 'N' ? Bm.rows : Bm.cols;
  const N = tB === 'N' ? Bm.cols : Bm.rows;
  if (K !== Kb)
    throw new ArgumentError('B', Bm.data, `inner dimensions disagree: op(A) is ${M}×${K}, op(B) is ${Kb}×${N}`);
  const alpha = finiteNumber('options.alpha', opts?.alpha ?? 1);
  const beta = finiteNumber('options.beta', opts?.beta ?? 0);
  const Cin = opts?.C;
  if (Cin !== undefined) {
    if (!(Cin instanceof Float64Array)) throw new ArgumentTypeError('options.C', Cin, 'must be a Float64Array');
    readMatrix('options.C', Cin, M, N);
  } else if (beta !== 0) throw new ArgumentError('options.beta', beta, 'needs options.C (β·C with no C)');
  // Written in place (Cin) or into a new array, and only once the product is known finite: no
  // JavaScript temporary (a fresh M×N array costs page faults — ~12 µs per 4 KiB on this VM).
  const C = Cin ?? new Float64Array(M * N);
  const accept = (nonFinite: number): boolean => nonFinite === 0;
  const call = { transA: tA, transB: tB, M, N, K, alpha, A: Am.data, B: Bm.data, beta, C, accept, pool: opts ?? {} };
  const written = pickBackend(opts).gemm(call);
  if (!written) throw new ArgumentError('A', Am.data, 'the product overflows f64');
  if (matrixForm) return toMlMatrix(C, M, N);
  return Cin ?? C;
}

/** Options of {@link eigh}. */
export interface EighOptions extends BackendOption {
  /**
   * Largest accepted asymmetry max|s_ij − s_ji| / max|s_ij|. Default 64·n·eps: a matrix that
   * is symmetric in exact arithmetic but was computed in two orders (e.g. BᵀGB) differs from its
   * transpose by about n·eps relative; anything larger is not a rounding artefact.
   */
  symmetryRtol?: number;
  /**
   * Arrays to write the result into instead of new ones (Float64Array input only): `values` of
   * length n and `vectors` of n². For loops that decompose many matrices of one size: a new n×n
   * array costs its page faults on first touch (~1.6 ms at n = 256 on this VM). Written only once
   * the decomposition has succeeded; the result then returns these same arrays.
   */
  out?: { values: Float64Array; vectors: Float64Array };
}

/** Checks {@link EighOptions.out}: two Float64Arrays of n and n² values, for Float64Array input. */
function eighOut(
  out: unknown,
  n: number,
  wasMatrix: boolean,
): { values: Float64Array; vectors: Float64Array } | undefined {
  if (out === undefined) return undefined;
  if (typeof out !== 'object' || out === null)
    throw new ArgumentTypeError('options.out', out, 'must be { values: Float64Array, vectors: Float64Array }');
  if (wasMatrix)
    throw new ArgumentError('options.out', out, 'is for Float64Array input (ml-matrix input returns a new Matrix)');
  const { values, vectors } = out as { values?: unknown; vectors?: unknown };
  for (const [name, a, len] of [
    ['options.out.values', values, n],
    ['options.out.vectors', vectors, n * n],
  ] as const) {
    if (!(a instanceof Float64Array)) throw new ArgumentTypeError(name, a, 'must be a Float64Array');
    if (a.length !== len) throw new ArgumentError(name, a, `must hold ${len} values, got ${a.length}`);
  }
  if ((values as Float64Array).buffer === (vectors as Float64Array).buffer)
    throw new ArgumentError('options.out', out, 'values and vectors must not share memory');
  return { values: values as Float64Array, vectors: vectors as Float64Array };
}

/** Result of {@link eigh}. */
export interface EighResult<V = Float64Array> {
  readonly n: number;
  /** Eigenvalues, ascending. */
  readonly values: Float64Array;
  /** n×n; column j is the unit eigenvector of values[j] (row-major Float64Array or Matrix). */
  readonly vectors: V;
  /** max|s_ij − s_ji| / max|s_ij| of the input (the symmetric part (S + Sᵀ)/2 is decomposed). */
  readonly asymmetry: number;
  /** The tolerance the asymmetry was checked against. */
  readonly symmetryRtol: number;
  /** QL iterations used. */
  readonly iterations: number;
}

/**
 * Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric n×n matrix (Householder
 * tridiagonalisation + implicit QL, ./syev.ts; on wasm from n = 96 a blocked reduction, divide and
 * conquer on the tridiagonal and a blocked back-transformation, assembly/linalg/dsyev.ts and
 * assembly/linalg/dstedc.ts). Used on G_W (Prop. 5.2): λ_min(G_W) > tol decides
 * non-degeneracy on W. For a rank decision prefer {@link rank}/{@link StreamingQR} on the stack:
 * the eigenvalues of a Gramian carry errors ~ n·eps·λ_max, i.e. relative errors that explode for
 * small λ.
 * Accuracy (backward stable): |λ̂_j − λ_j| <= O(n·eps)·||S||_2, ||S v̂ − λ̂ v̂|| <= O(n·eps)·||S||_2,
 * |V̂ᵀV̂ − I| <= O(n·eps) on both paths (tested: 8·n·eps; divide and conquer recomputes the rank-one
 * vector of each merge from the computed roots, so its vectors stay orthogonal whatever the
 * eigenvalue gaps). Entries ~1e±200 are handled by an exact power-of-two scaling.
 * Cost from n = 96: 4/3·n³ flops of reduction, at most 4/3·n³ of divide and conquer (all gemm;
 * deflation of close or decoupled eigenvalues removes part of it) and 2n³ of back-transformation
 * (gemm); below: ~(8/3 + 6)n³ (QL with vectors).
 * @throws {ArgumentError} not square/shape mismatch, NaN/±Infinity entries, asymmetry above
 *   `symmetryRtol`.
 * @throws Error if QL does not converge (30·n iterations; never observed; a secular equation of
 *   divide and conquer that does not converge falls back to QL rotations).
 * @example
 * ```ts
 * eigh([2, 1, 1, 2], 2).values; // Float64Array [1, 3]
 * ```
 */
export function eigh(S: AbstractMatrix, options?: EighOptions): EighResult<Matrix>;
export function eigh(S: MatrixInput, n: number, options?: EighOptions): EighResult;
export function eigh(
  S: MatrixInput,
  nOrOptions?: number | EighOptions,
  options?: EighOptions,
): EighResult | EighResult<Matrix> {
  const [n0, opts] = typeof nOrOptions === 'number' ? [nOrOptions, options] : [undefined, nOrOptions];
  const M = readMatrix('S', S, n0, n0);
  if (M.rows !== M.cols) throw new ArgumentError('S', S, `must be square, got ${M.rows}×${M.cols}`);
  const n = M.rows;
  const symmetryRtol =
    opts?.symmetryRtol === undefined
      ? 64 * Math.max(n, 1) * EPS
      : finiteNumber('options.symmetryRtol', opts.symmetryRtol);
  if (symmetryRtol < 0) throw new ArgumentError('options.symmetryRtol', symmetryRtol, 'must be >= 0');
  let asymmetry = 0; // max |s_ij − s_ji| / max|S|, each pair divided (division by max|S| is monotone)
  let where = [0, 0];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const [a, b] = [M.data[i * n + j]!, M.data[j * n + i]!];
      const d = Math.abs(a - b);
      // a difference beyond MAX_VALUE (max|S| >= MAX/2 then): halves, exact at that size
      const r = d === Infinity ? Math.abs(a / 2 - b / 2) / (M.amax / 2) : d / M.amax;
      if (r > asymmetry) {
        asymmetry = r;
        where = [i, j];
      }
    }
  if (asymmetry > symmetryRtol)
    throw new ArgumentError(
      'S',
      S,
      `is not symmetric: |S[${where[0]}][${where[1]}] − S[${where[1]}][${where[0]}]| / max|S| = ` +
        `${asymmetry.toExponential(3)} > symmetryRtol = ${symmetryRtol.toExponential(3)}`,
    );
  const out = eighOut(opts?.out, n, M.wasMatrix);
  const s = safeScale(M.amax);
  // |λ| <= ‖S‖₂ <= n·max|S|: only then can an eigenvalue leave the f64 range, and only then is
  // the result formed apart from `out` and checked before it is copied there
  const mayOverflow = M.amax > Number.MAX_VALUE / Math.max(n, 1);
  const values = (!mayOverflow && out?.values) || new Float64Array(n);
  const V = (!mayOverflow && out?.vectors) || new Float64Array(n * n);
  // the decomposition of (s·S + s·Sᵀ)/2: exactly s·S for symmetric S, and the nearest symmetric
  // matrix (scaled) when S is symmetric only within symmetryRtol
  const iterations = pickBackend(opts).syev(M.data, n, s, values, V);
  if (iterations < 0) throw new Error(`eigh: implicit QL did not converge for n = ${n}`);
  for (let i = 0; i < n; i++) values[i]! /= s;
  if (mayOverflow) {
    for (let i = 0; i < n; i++)
      if (!Number.isFinite(values[i]!))
        throw new ArgumentError('S', S, 'has an eigenvalue beyond the f64 range (|λ| > 1.8e308); scale it down');
    if (out) {
      out.values.set(values);
      out.vectors.set(V);
    }
  }
  const base = { n, values: out?.values ?? values, asymmetry, symmetryRtol, iterations };
  return M.wasMatrix ? { ...base, vectors: toMlMatrix(V, n, n) } : { ...base, vectors: out?.vectors ?? V };
}

/** Rank/SVD options. */
export interface RankOptions extends RankToleranceOptions, BackendOption {}

/** The SVD of A's R factor; σ_max may read Infinity when it exceeds the f64 range. */
function svdOfInput(M: DenseMatrix, opts: BackendOption | undefined, vectors: boolean): SvdOfR {
  const backend = pickBackend(opts);
  const R = new Float64Array(M.cols * M.cols);
  backend.qrUpdate(R, M.cols, M.data, M.rows, qrBlockRows(M.cols));
  checkFactor('A', M.data, R);
  return svdOfR(backend, R, M.cols, vectors);
}

function parseShapeArgs<O>(args: unknown[]): [number | undefined, number | undefined, O | undefined] {
  if (typeof args[0] === 'number') return [args[0], args[1] as number, args[2] as O | undefined];
  return [undefined, undefined, args[0] as O | undefined];
}

/**
 * Singular values of A (rows×cols), descending; min(rows, cols) values. Computed as QR
 * (Householder, streamed in blocks) followed by the singular values of R (./svdFromR.ts): for
 * cols < 48, or R's column norms more than 16× apart, one-sided Jacobi on Rᵀ, so small singular
 * values are accurate relative to the column scaling of A (see ./gesvj.ts), not only to σ_max;
 * otherwise Householder bidiagonalisation of R and dqds on the bidiagonal
 * (assembly/linalg/dgebrd.ts; the reference backend: plain Jacobi), normwise backward stable: |σ̂_i − σ_i| <= c·cols·eps·σ_max, the LAPACK dgesdd
 * class, at most 16× plain Jacobi's bound for such R (see PRECONDITION_MAX_COLUMN_RATIO).
 * Cost 2·rows·cols² (QR) + 8/3·cols³ (bidiagonalisation, one pass over the trailing block per
 * step) + O(cols²) (dqds); on the Jacobi path ~5·cols³ per sweep (5–10 sweeps).
 * A singular value beyond the f64 range (finite entries near MAX_VALUE) reads Infinity.
 * @throws {ArgumentError} bad shape or NaN/±Infinity entries; a column norm of A that overflows f64.
 * @example
 * ```ts
 * svdvals([3, 0, 0, 4], 2, 2); // Float64Array [4, 3]
 * ```
 */
export function svdvals(A: AbstractMatrix, options?: BackendOption): Float64Array;
export function svdvals(A: MatrixInput, rows: number, cols: number, options?: BackendOption): Float64Array;
export function svdvals(A: MatrixInput, ...rest: unknown[]): Float64Array {
  const [rows, cols, opts] = parseShapeArgs<BackendOption>(rest);
  const M = readMatrix('A', A, rows, cols);
  return svdOfInput(M, opts, false).singularValues.slice(0, Math.min(M.rows, M.cols));
}

/**
 * Numerical rank of A: the number of singular values > tol = max(atol, rtol·σ_max), default
 * rtol = max(rows, cols)·eps (numpy's matrix_rank; see ./tolerance.ts for why and when to
 * override). The result reports the tolerance, which part set it, and the margin (the singular
 * values on either side of it).
 * Cost as {@link svdvals}.
 * @throws {ArgumentError} bad shape, NaN/±Infinity entries, negative or non-finite rtol/atol; a
 *   column norm or σ_max of A that overflows f64 (every tolerance would be ∞).
 * @example
 * ```ts
 * rank([1, 2, 2, 4], 2, 2).rank; // 1
 * ```
 */
export function rank(A: AbstractMatrix, options?: RankOptions): RankDecision;
export function rank(A: MatrixInput, rows: number, cols: number, options?: RankOptions): RankDecision;
export function rank(A: MatrixInput, ...rest: unknown[]): RankDecision {
  const [rows, cols, opts] = parseShapeArgs<RankOptions>(rest);
  const M = readMatrix('A', A, rows, cols);
  const { rtol, atol } = resolveTolerance(M.rows, M.cols, opts);
  const sv = representable(svdOfInput(M, opts, false), 'A', M.data).singularValues.slice(0, Math.min(M.rows, M.cols));
  return decideRank(sv, rtol, atol);
}

/**
 * Orthonormal basis of the numerical null space of A: the right singular vectors whose singular
 * value is <= tol (same tolerance as {@link rank}; when rows < cols the cols − rows directions
 * without a singular value are included). `basis` is cols×nullity row-major (a Matrix for Matrix
 * input via `basisMatrix`).
 * Cost as {@link svdvals} plus the accumulated rotations.
 * @throws {ArgumentError} as {@link rank}.
 * @example
 * ```ts
 * nullSpace([1, 1], 1, 2).basis; // ≈ ±[0.7071, −0.7071] (2×1)
 * ```
 */
export function nullSpace(A: AbstractMatrix, options?: RankOptions): NullSpaceResult & { basisMatrix: Matrix };
export function nullSpace(A: MatrixInput, rows: number, cols: number, options?: RankOptions): NullSpaceResult;
export function nullSpace(
  A: MatrixInput,
  ...rest: unknown[]
): NullSpaceResult | (NullSpaceResult & { basisMatrix: Matrix }) {
  const [rows, cols, opts] = parseShapeArgs<RankOptions>(rest);
  const M = readMatrix('A', A, rows, cols);
  const { rtol, atol } = resolveTolerance(M.rows, M.cols, opts);
  const svd = representable(svdOfInput(M, opts, true), 'A', M.data);
  // The decision is taken on the cols singular values of R (zeros beyond min(rows, cols)).
  const dec = decideRank(svd.singularValues, rtol, atol);
  const basis = basisFromRows(svd.rightVectorsT, M.cols, dec.rank);
  const res: NullSpaceResult = { ...dec, cols: M.cols, nullity: M.cols - dec.rank, basis };
  return M.wasMatrix ? { ...res, basisMatrix: toMlMatrix(basis, M.cols, M.cols - dec.rank) } : res;
}
