/**
 * Jacobians by 3-point central differences in f64, matrix-free.
 *
 * Step (scipy.optimize.approx_derivative, method '3-point'): for coordinate j,
 * h_j = eps^(1/3) · max(1, |x_j|), and the step actually taken is (x_j + h_j) − (x_j − h_j)
 * as rounded, so the quotient divides by the true distance between the two points. With
 * f ∈ C³ the truncation error is h²/6 · f''' and the rounding error ~eps·|f|/h; both are
 * ~eps^(2/3) relative at this h. Along a general direction v the step is
 * t = eps^(1/3) · max(1, max_{j∈supp v} |x_j|) / ‖v‖_∞, so that t·v moves no coordinate by more
 * than the coordinate step would.
 *
 * Error estimate by step refinement: with D(t) = (f(x+tv) − f(x−tv)) / 2t = Jv + c t² + O(t⁴),
 * D(2t) − D(t) ≈ 3 c t², so |D(2t) − D(t)| / 3 estimates D(t)'s truncation error; the rounding
 * part eps·(|f(x+tv)| + |f(x−tv)|)/(2t) is added.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteVector, firstNonFinite } from '../util/validate.js';
import { CachedJacobian, FD_RELATIVE_ACCURACY, FD_RELATIVE_STEP } from './operator.js';
import { sparseFromDense, sparseScaledDifference, type SparseVector, unitVector } from './sparse.js';

/**
 * f: R^n -> R^m on Float64Arrays; must not modify its argument. It should return a fresh array
 * ({@link FdJacobian} detects a reused output buffer and copies; the one-shot functions do not).
 */
export type VectorMap = (x: Float64Array) => Float64Array;

/**
 * A batched f: `points` holds `count` points row-major (count × n); returns count × m row-major.
 * A batched map lets a dense f (e.g. tanh(Wx)) evaluate all 2n perturbed points as one GEMM.
 * `points` is a scratch buffer that {@link jacobianCentral} reuses from call to call: read it, do
 * not keep it.
 */
export type BatchedVectorMap = (points: Float64Array, count: number) => Float64Array;

/**
 * A Float64Array copy of x after one fast finiteness pass (the generic validator checks the
 * type of every element, which costs ~50 ms at d = 2e5 — more than an operator evaluation).
 * @throws {ArgumentError} x not array-like, or an entry not finite (named).
 */
export function finiteCopy(name: string, x: ArrayLike<number>): Float64Array {
  if (!(x instanceof Float64Array)) return finiteVector(name, x);
  const y = new Float64Array(x);
  if (firstNonFinite(y) >= 0) return finiteVector(name, y); // names the first non-finite entry
  return y;
}

let scratch = new Float64Array(0);
let scratchInUse = false;

/**
 * A buffer of `length` values for the batched points, reused across calls: the first write to a
 * fresh array costs a page fault per 4 KiB (~12 µs each on the VM this was measured on: ~50 ms
 * for the 16 MiB of points of an n = 1024 Jacobian), more than building the points themselves.
 */
function pointsScratch(length: number): Float64Array {
  if (scratch.length < length) scratch = new Float64Array(length);
  return scratch.subarray(0, length);
}

/** Central step for coordinate value xj: eps^(1/3)·max(1, |xj|). */
export function centralStep(xj: number): number {
  return FD_RELATIVE_STEP * Math.max(1, Math.abs(xj));
}

/** Result of {@link jvpCentral}. */
export interface JvpResult {
  /** J v (dense, length m). */
  value: Float64Array;
  /** The step t along v (the points are x ± t·v; the quotient divides by the distance actually taken, {@link takenStep}). */
  step: number;
  /** Estimated ‖error‖₂ (refinement + rounding), or null if refinement was not asked. */
  errorEstimate: number | null;
  /** Evaluations of f used (2, or 4 with refinement). */
  evaluations: number;
}

function denseOf(name: string, v: Float64Array | SparseVector, n: number): SparseVector {
  if (v instanceof Float64Array) {
    if (v.length !== n) throw new ArgumentError(name, v, `must have length ${n}, got ${v.length}`);
    return sparseFromDense(v);
  }
  if (v.dim !== n) throw new ArgumentError(`${name}.dim`, v.dim, `must equal ${n}`);
  return v;
}

function norm2(x: Float64Array): number {
  let amax = 0;
  for (let i = 0; i < x.length; i++) amax = Math.max(amax, Math.abs(x[i]!));
  if (amax === 0) return 0;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const t = x[i]! / amax;
    s += t * t;
  }
  return amax * Math.sqrt(s);
}

/** Step along v: eps^(1/3)·max(1, max_{supp v}|x_j|)/‖v‖_∞ (0 when v = 0). */
export function directionalStep(x: Float64Array, v: SparseVector): number {
  return directionalStepGathered(gathered(x, v), v.value);
}

/** x at v's entries, in v's order. */
function gathered(x: Float64Array, v: SparseVector): Float64Array {
  const out = new Float64Array(v.index.length);
  for (let k = 0; k < out.length; k++) out[k] = x[v.index[k]!]!;
  return out;
}

/**
 * {@link directionalStep} from x's values at v's entries only (`xv[k]` = x where v has
 * `values[k]`): for an engine that holds x as something other than one array, or for a dense v
 * (`xv` = x, `values` = v). An entry with v_k = 0 is not in the support: its x_k is not read.
 */
export function directionalStepGathered(xv: ArrayLike<number>, values: ArrayLike<number>): number {
  let vmax = 0;
  let xmax = 1;
  for (let k = 0; k < values.length; k++) {
    const a = values[k]!;
    if (a === 0) continue;
    vmax = Math.max(vmax, Math.abs(a));
    xmax = Math.max(xmax, Math.abs(xv[k]!));
  }
  return directionalStepOfScales(vmax, xmax);
}

/**
 * {@link directionalStep} from its scales: vmax = ‖v‖_∞, xmax = max(1, max_{supp v}|x_j|) (an
 * engine that finds them elsewhere, e.g. in wasm).
 */
export function directionalStepOfScales(vmax: number, xmax: number): number {
  return vmax === 0 ? 0 : (FD_RELATIVE_STEP * xmax) / vmax;
}

function shifted(x: Float64Array, v: SparseVector, t: number): Float64Array {
  const y = Float64Array.from(x);
  for (let k = 0; k < v.index.length; k++) y[v.index[k]!]! += t * v.value[k]!;
  return y;
}

/**
 * The step actually taken along v between the points x + t·v and x − t·v as they are rounded
 * (each coordinate x_j ± t·v_j computed as {@link shifted} does): the s with
 * (x + tv) − (x − tv) ≈ s·v in least squares, s = ⟨Δ, v⟩/⟨v, v⟩, Δ_j = fl(x_j + t v_j) −
 * fl(x_j − t v_j). For a one-coordinate direction s·v_j = Δ_j exactly up to
 * one rounding, so the quotient divides by the true distance, as the coordinate columns do;
 * 2t instead errs by up to ulp(x_j)/(2t) ≈ eps^(2/3)·|x_j|/max(1, |x|) relative (the
 * rounding of x ± t·v), which for a linear map is the whole error. Returns 0 when v = 0.
 */
export function takenStep(x: Float64Array, v: SparseVector, t: number): number {
  return takenStepGathered(gathered(x, v), v.value, t);
}

/**
 * {@link takenStep} from x's values at v's entries only (`xv[k]` = x where v has `values[k]`;
 * a dense v: `xv` = x, `values` = v, whose zeros add exact zeros to both sums).
 */
export function takenStepGathered(xv: ArrayLike<number>, values: ArrayLike<number>, t: number): number {
  let num = 0;
  let den = 0;
  let vmax = 0;
  for (let k = 0; k < values.length; k++) vmax = Math.max(vmax, Math.abs(values[k]!));
  if (vmax === 0) return 0;
  for (let k = 0; k < values.length; k++) {
    const xj = xv[k]!;
    const vj = values[k]!;
    const delta = xj + t * vj - (xj + -t * vj);
    const u = vj / vmax; // scaled: ⟨v, v⟩ neither overflows nor underflows
    num += delta * u;
    den += u * u;
  }
  return num / den / vmax;
}

/**
 * J v by central differences (see the module comment), optionally with the refinement error
 * estimate (two more evaluations at step 2t).
 * @param f the map (must not modify its argument)
 * @param x base point (length n, finite)
 * @param v direction (dense length n or sparse)
 * @throws {ArgumentError} x not finite, v of the wrong length, or f returns a non-finite value.
 * @example
 * ```ts
 * jvpCentral((x) => Float64Array.of(x[0]! * x[0]!), Float64Array.of(3), Float64Array.of(1)).value; // ≈ [6]
 * ```
 */
export function jvpCentral(
  f: VectorMap,
  x: ArrayLike<number>,
  v: Float64Array | SparseVector,
  options: { refine?: boolean } = {},
): JvpResult {
  if (typeof f !== 'function') throw new ArgumentTypeError('f', f, 'must be a function (x) => Float64Array');
  const x0 = finiteVector('x', x);
  const dir = denseOf('v', v, x0.length);
  const t = directionalStep(x0, dir);
  const evalChecked = (y: Float64Array): Float64Array => {
    const out = f(y);
    if (!(out instanceof Float64Array)) throw new ArgumentTypeError('f(x)', out, 'must return a Float64Array');
    for (let i = 0; i < out.length; i++)
      if (!Number.isFinite(out[i])) throw new ArgumentError(`f(x)[${i}]`, out[i], 'must be finite');
    return out;
  };
  if (t === 0) {
    const m = evalChecked(x0).length;
    return { value: new Float64Array(m), step: 0, errorEstimate: 0, evaluations: 1 };
  }
  const quotient = (s: number): { d: Float64Array; fnorm: number } => {
    const fp = evalChecked(shifted(x0, dir, s));
    const fm = evalChecked(shifted(x0, dir, -s));
    const taken = takenStep(x0, dir, s); // (x + s·v) − (x − s·v) as rounded, not 2s
    const d = new Float64Array(fp.length);
    for (let i = 0; i < d.length; i++) d[i] = (fp[i]! - fm[i]!) / taken;
    return { d, fnorm: norm2(fp) + norm2(fm) };
  };
  const a = quotient(t);
  if (!options.refine) return { value: a.d, step: t, errorEstimate: null, evaluations: 2 };
  const b = quotient(2 * t);
  const diff = new Float64Array(a.d.length);
  for (let i = 0; i < diff.length; i++) diff[i] = b.d[i]! - a.d[i]!;
  const errorEstimate = norm2(diff) / 3 + (Number.EPSILON * a.fnorm) / (2 * t);
  return { value: a.d, step: t, errorEstimate, evaluations: 4 };
}

/**
 * Throws for the first column k whose central quotient (F[2k] − F[2k+1])·inv[k] is not finite in
 * some row (F: 2m rows of `rows` outputs, the batch's output), naming the evaluation; returns if
 * all are finite.
 */
/** The error of a difference quotient that is not finite, naming the evaluation it came from. */
function nonFiniteQuotient(i: number, j: number, fp: number, fm: number): ArgumentError {
  if (!Number.isFinite(fp)) return new ArgumentError(`f(x)[${i}]`, fp, `must be finite (at x + h·e_${j})`);
  if (!Number.isFinite(fm)) return new ArgumentError(`f(x)[${i}]`, fm, `must be finite (at x − h·e_${j})`);
  return new ArgumentError(`f(x)[${i}]`, fp, `minus ${fm} (at x ∓ h·e_${j}) overflows its difference quotient`);
}

/** Every entry of a sparse column finite, else the error naming the evaluation behind it. */
function finiteColumn(col: SparseVector, j: number, fp: Float64Array, fm: Float64Array): SparseVector {
  for (let k = 0; k < col.value.length; k++)
    if (!Number.isFinite(col.value[k]!)) {
      const i = col.index[k]!;
      throw nonFiniteQuotient(i, j, fp[i]!, fm[i]!);
    }
  return col;
}

function checkQuotients(F: Float64Array, rows: number, m: number, inv: Float64Array): void {
  for (let k = 0; k < m; k++) {
    const p0 = 2 * k * rows;
    for (let i = 0; i < rows; i++) {
      const d = (F[p0 + i]! - F[p0 + rows + i]!) * inv[k]!;
      if (!Number.isFinite(d)) {
        const [at, value] = Number.isFinite(F[p0 + i]) ? [2 * k + 1, F[p0 + rows + i]] : [2 * k, F[p0 + i]];
        throw new ArgumentError(`batch(points)[${at}][${i}]`, value, 'must be finite (its difference quotient is not)');
      }
    }
  }
}

/** A dense Jacobian block, row-major (rows = outputs, cols = the requested inputs). */
export interface DenseJacobian {
  rows: number;
  cols: number;
  /** row-major rows × cols. */
  data: Float64Array;
  /** The input coordinates of the columns. */
  columns: Int32Array;
  /** The step taken per column (x_j + h) − (x_j − h), halved. */
  steps: Float64Array;
  evaluations: number;
}

/** Options of {@link jacobianCentral}. */
export interface JacobianCentralOptions {
  /** The input coordinates to differentiate along (default: all of them, in order). */
  columns?: readonly number[];
  /** Evaluates f on many points in one call (points row-major, count × n → count × m). */
  batch?: BatchedVectorMap;
  /**
   * Float64Array of rows × |columns| to write J into instead of a new one (it becomes `data`):
   * for loops that form Jacobians of one size — a fresh 8 MiB result (n = 1024) costs ~25 ms of
   * page faults on this VM. Written only once every entry is known finite.
   */
  out?: Float64Array;
}

/**
 * Dense Jacobian columns J[:, cols] by central differences; with `batch`, all 2·|cols|
 * perturbed points are evaluated in one call (a dense f becomes one GEMM).
 * Cost: 2·|cols| evaluations of f (or one batched call on 2·|cols| points) + O(m·|cols|).
 * @throws {ArgumentError} x not finite, a column index out of range, f's output malformed, or
 *   `out` not a Float64Array of rows·|columns| values (then `out` is left untouched).
 * @example
 * ```ts
 * const J = jacobianCentral((x) => Float64Array.of(x[0]! * x[1]!, x[1]!), Float64Array.of(2, 3));
 * J.data; // ≈ [3, 2, 0, 1]
 * ```
 */
export function jacobianCentral(
  f: VectorMap,
  x: ArrayLike<number>,
  options: JacobianCentralOptions = {},
): DenseJacobian {
  const x0 = finiteVector('x', x);
  const given = options.out;
  if (given !== undefined && !(given instanceof Float64Array))
    throw new ArgumentTypeError('options.out', given, 'must be a Float64Array');
  const n = x0.length;
  const cols = Int32Array.from(options.columns ?? Array.from({ length: n }, (_, j) => j));
  cols.forEach((j, k) => {
    if (!(j >= 0 && j < n)) throw new ArgumentError(`columns[${k}]`, j, `must be an index in [0, ${n})`);
  });
  const m = cols.length;
  /** The result array for `rows` outputs: options.out once its length is checked, else a new one. */
  const result = (rows: number): Float64Array => {
    if (given === undefined) return new Float64Array(rows * m);
    if (given.length !== rows * m)
      throw new ArgumentError(
        'options.out',
        given,
        `must hold rows·columns = ${rows}·${m} = ${rows * m} values, got ${given.length}`,
      );
    return given;
  };
  const steps = new Float64Array(m);
  const plus = new Float64Array(m);
  const minus = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const j = cols[k]!;
    const h = centralStep(x0[j]!);
    plus[k] = x0[j]! + h;
    minus[k] = x0[j]! - h;
    steps[k] = (plus[k]! - minus[k]!) / 2;
  }
  let out: Float64Array | undefined;
  let rows = 0;
  let evaluations = 0;
  if (options.batch) {
    // A batch function that itself asks for a batched Jacobian gets fresh points, not ours.
    const nested = scratchInUse;
    const points = nested ? new Float64Array(2 * m * n) : pointsScratch(2 * m * n);
    scratchInUse = true;
    for (let k = 0; k < m; k++) {
      const j = cols[k]!;
      points.set(x0, 2 * k * n);
      points.set(x0, (2 * k + 1) * n);
      points[2 * k * n + j] = plus[k]!;
      points[(2 * k + 1) * n + j] = minus[k]!;
    }
    let F: Float64Array;
    try {
      F = options.batch(points, 2 * m);
    } finally {
      scratchInUse = nested;
    }
    if (!(F instanceof Float64Array) || F.length % (2 * m) !== 0 || (m === 0 && F.length !== 0)) {
      throw new ArgumentError('batch(points)', F, `must return a Float64Array of ${2 * m} rows`);
    }
    rows = m === 0 ? 0 : F.length / (2 * m);
    const target = result(rows);
    const inv = Float64Array.from(steps, (s) => 1 / (2 * s));
    // A caller's `out` is written only once every quotient is known finite: one read-only pass
    // first (2–4 ms at n = 1024, 1–2 % of the batched evaluation it follows).
    if (given !== undefined) checkQuotients(F, rows, m, inv);
    // blocks of 32 columns: the writes to row-major `target` stay contiguous, the reads stream
    // through 64 rows of F at a time (a plain transpose would write with stride m)
    let bad = 0;
    for (let k0 = 0; k0 < m; k0 += 32) {
      const k1 = Math.min(m, k0 + 32);
      for (let i = 0; i < rows; i++) {
        const o = i * m;
        for (let k = k0; k < k1; k++) {
          const p = 2 * k * rows + i;
          const d = (F[p]! - F[p + rows]!) * inv[k]!;
          target[o + k] = d;
          bad += d * 0; // NaN/±Infinity poison the sum: one check at the end
        }
      }
    }
    if (bad !== 0) checkQuotients(F, rows, m, inv); // throws, naming the evaluation
    out = target;
    evaluations = 2 * m;
  } else {
    const work = Float64Array.from(x0);
    // One column at a time; with a caller's `out` the columns go to a temporary first, so that
    // an error in a later column leaves `out` untouched.
    for (let k = 0; k < m; k++) {
      const j = cols[k]!;
      work[j] = plus[k]!;
      const fp = f(work);
      work[j] = minus[k]!;
      const fm = f(work);
      work[j] = x0[j]!;
      if (out === undefined) {
        rows = fp.length;
        const dest = result(rows); // checks options.out's length
        out = given === undefined ? dest : new Float64Array(dest.length);
      }
      if (fp.length !== rows || fm.length !== rows)
        throw new ArgumentError('f(x)', fp, `must keep its output length ${rows}`);
      const inv = 1 / (2 * steps[k]!);
      for (let i = 0; i < rows; i++) {
        const d = (fp[i]! - fm[i]!) * inv;
        if (!Number.isFinite(d)) throw nonFiniteQuotient(i, j, fp[i]!, fm[i]!);
        out[i * m + k] = d;
      }
      evaluations += 2;
    }
    if (out === undefined) out = result(0);
    else if (given !== undefined) {
      given.set(out);
      out = given;
    }
  }
  return { rows, cols: m, data: out!, columns: cols, steps, evaluations };
}

/** (a − b)·scale at the sorted positions `at` only (exact zeros dropped). */
function differenceOn(at: Int32Array, a: Float64Array, b: Float64Array, scale: number, dim: number): SparseVector {
  const idx: number[] = [];
  const val: number[] = [];
  for (let k = 0; k < at.length; k++) {
    const i = at[k]!;
    if (a[i] !== b[i]) {
      idx.push(i);
      val.push((a[i]! - b[i]!) * scale);
    }
  }
  return { dim, index: Int32Array.from(idx), value: Float64Array.from(val) };
}

/** Options of {@link FdJacobian}. */
export interface FdJacobianOptions {
  /**
   * Inputs that f may read beyond the identity: for j outside this set, J e_j = e_j is taken
   * without evaluating f, and columns are read off the set's rows only (declare it only if
   * f(x)_i = x_i for i outside the set and f's values on the set depend on the set only — the
   * footprint of a blend expansion P_e).
   */
  readSet?: ArrayLike<number>;
  /**
   * Directions with at most this many non-zeros are applied as a combination of (cached)
   * columns; longer ones by one directional difference. Default 64.
   */
  columnThreshold?: number;
}

/**
 * J = Df(x) by central differences as a {@link JacobianOperator}: columns cached, directions
 * applied either as combinations of columns or by one directional difference.
 * Cost per column: 2 evaluations of f + O(output length) to extract the non-zeros.
 * @throws {ArgumentError} x not finite; a readSet index out of range; (when a column or direction is
 *   computed) f giving a non-finite value, naming the evaluation — a NaN column is never cached.
 */
export class FdJacobian extends CachedJacobian<'fd'> {
  readonly #f: VectorMap;
  readonly #x: Float64Array;
  readonly #work: Float64Array;
  readonly #reads: Uint8Array | undefined;
  readonly #readList: Int32Array | undefined;

  constructor(f: VectorMap, x: ArrayLike<number>, options: FdJacobianOptions = {}) {
    if (typeof f !== 'function') throw new ArgumentTypeError('f', f, 'must be a function (x) => Float64Array');
    const x0 = finiteCopy('x', x);
    super(x0.length, x0.length, 'fd', FD_RELATIVE_ACCURACY, options.columnThreshold ?? 64);
    this.#f = f;
    this.#x = x0;
    this.#work = Float64Array.from(this.#x);
    if (options.readSet !== undefined) {
      const reads = new Uint8Array(this.dim);
      for (let k = 0; k < options.readSet.length; k++) {
        const j = options.readSet[k]!;
        if (!(Number.isInteger(j) && j >= 0 && j < this.dim))
          throw new ArgumentError(`readSet[${k}]`, j, `must be an index in [0, ${this.dim})`);
        reads[j] = 1;
      }
      this.#reads = reads;
      const sorted = Int32Array.from(options.readSet).sort();
      this.#readList = sorted.filter((j, k) => k === 0 || j !== sorted[k - 1]); // sorted, distinct
    }
  }

  /** The base point x (a copy). */
  get basePoint(): Float64Array {
    return Float64Array.from(this.#x);
  }

  protected override isIdentityColumn(j: number): boolean {
    return this.#reads !== undefined && this.#reads[j] === 0;
  }

  protected computeColumn(j: number): SparseVector {
    if (this.isIdentityColumn(j)) return unitVector(this.dim, j);
    const xj = this.#x[j]!;
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    this.#work[j] = p;
    let fp = this.#f(this.#work);
    this.#work[j] = m;
    const fm = this.#f(this.#work);
    if (fm === fp) {
      // f reuses its output buffer: evaluate the + point again into a copy
      this.#work[j] = p;
      fp = Float64Array.from(this.#f(this.#work));
      this.#work[j] = m;
      this.#f(this.#work);
      this.stats.evaluations += 2;
    }
    this.#work[j] = xj;
    this.stats.evaluations += 2;
    const col = this.#readList
      ? differenceOn(this.#readList, fp, fm, 1 / (p - m), this.dim) // f writes only its read set
      : sparseScaledDifference(fp, fm, 1 / (p - m));
    return finiteColumn(col, j, fp, fm); // a NaN column would be cached and reused silently
  }

  protected override directional(v: SparseVector): SparseVector {
    const t = directionalStep(this.#x, v);
    const fp = Float64Array.from(this.#f(shifted(this.#x, v, t))); // copy: f may reuse its buffer
    const fm = this.#f(shifted(this.#x, v, -t));
    this.stats.evaluations += 2;
    this.stats.directional++;
    const out = sparseScaledDifference(fp, fm, 1 / takenStep(this.#x, v, t));
    for (let k = 0; k < out.value.length; k++)
      if (!Number.isFinite(out.value[k]!))
        throw new ArgumentError(`f(x)[${out.index[k]}]`, out.value[k], 'must be finite (a directional difference)');
    return out;
  }
}
