/**
 * Proof of the non-degeneracy verdict of a coordinate block W (Prop. 5.2) over an enclosure of
 * the fixed point θ* (../../docs/certify.md, "Certification"), instead of a float decision at the
 * approximate fixed point θ̂:
 *
 *   G_W(θ) = Σ_{e: p_e > 0} p_e (DF_e(θ) B)ᵀ(DF_e(θ) B),   F_e = Q∘P_e − P_e∘Q,
 *
 * with B the coordinate columns of W. Over the box X (θ* ∈ X) the columns DF_e(θ)B are enclosed
 * for every θ ∈ X, all d rows, and G_W as a symmetric interval matrix [G̃ − R, G̃ + R]
 * (src/interval/gram.ts: outward-rounded products and sums; exact zero entries of the columns
 * are skipped, so the cost follows their nonzeros). Then
 * - non-degenerate: λ_min(G) >= λ_min(G̃) − ‖R‖₂ (Weyl) is shown positive by the definiteness
 *   test (src/interval/matrixBounds.ts, `lambdaMinLower`, aimed at the float λ_min);
 * - degenerate: a coordinate of W whose column is exactly the point 0 for every item is an
 *   exact kernel direction of G_W at every θ ∈ X (a structural zero). The float kernel is proved
 *   when it has no more directions than there are such coordinates; a numerically small
 *   eigenvalue proves nothing. G_W on the remaining coordinates is tested for definiteness too:
 *   when it passes, the kernel is exactly the structural zeros.
 *
 * The columns come from the forms the system has (as ./enclosure.ts: its interval form when
 * declared, else its tfjs forms):
 * - tfjs forms: Q∘P_e and P_e∘Q composed as forms and enclosed with their forward-mode interval
 *   tangents along W (src/interval/intervalTf.ts). The two compositions are enclosed separately
 *   and subtracted here, so that equal point enclosures cancel exactly: the interval difference
 *   [v, v] − [v, v] of one composed form is [−η, η], not 0, and would hide every structural zero;
 * - interval form (whose tangents cannot be composed through its API): the chain rule with
 *   interval matrices, D(Q∘P_e)(X)B ⊆ DQ(P_e(X))[:, S]·(DP_e(X)B)[S, :] with S the rows of
 *   DP_e(X)B that are not exactly 0, and likewise for P_e∘Q. The products keep 0 and ±1 factors
 *   exact (a unit column of DP_e copies the column of DQ), so exact cancellations survive.
 * Point enclosures are exact values: [v, v] ∋ ∂F/∂θ_j means the derivative equals v on X.
 */
import { R, mul, sub } from '../interval/arith.js';
import { addItem, gramMidRad, newGram, type IntervalGram } from '../interval/gram.js';
import { encloseForm, type JacobianEnclosure, type TfForm } from '../interval/intervalTf.js';
import { lambdaMinLower } from '../interval/matrixBounds.js';
import { accumulate } from '../interval/tfReduce.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, firstNonFinite, integerInRange, positiveNumber } from '../util/validate.js';
import type { BoxEnclosure, Encloser } from './contractionProof.js';
import { consolidateEncloser, expandEncloser } from './enclosure.js';

/** The result of {@link proveNonDegeneracy}. */
export interface NonDegeneracyProof {
  /** 'proved': the float verdict holds at θ* (see `statement`); 'numerical': it stays a float decision. */
  proof: 'proved' | 'numerical';
  /**
   * A rigorous lower bound on λ_min(G_W) over the enclosure: λ_min(G_W(θ)) > bound for every θ
   * in it, so bound >= 0 means G_W is positive definite there; null when none was proved.
   */
  lambdaMinLowerBound: number | null;
  /** Coordinates of W whose DF_e column is exactly the zero interval for every item e with p_e > 0 (structural zeros: exact kernel directions). */
  exactKernel: number[];
  /** What was proved or why it stays numerical, in words (the enclosure it holds on). */
  statement: string;
}

/** The float decision being proved (src/certify/nondegeneracy.ts). */
export interface FloatNonDegeneracy {
  nonDegenerate: boolean;
  kernelDim: number;
  lambdaMin: number;
}

/** Default of `options.maxEntries`: d·|W| entries per enclosed Jacobian (32 MB per interval matrix). */
export const DEFAULT_MAX_PROOF_ENTRIES = 4e6;

/** DF_e B enclosed for one item (d × m), or why it cannot be. */
type Columns = (id: string) => JacobianEnclosure | string;

const isZero = (l: number, h: number) => l === 0 && h === 0;
const isUnit = (l: number, h: number) => l === h && (l === 1 || l === -1);

/** a − b entrywise; equal points cancel exactly, an exact 0 on either side copies the other. */
function difference(a: JacobianEnclosure, b: JacobianEnclosure): JacobianEnclosure {
  const lo = new Float64Array(a.lo.length);
  const hi = new Float64Array(a.lo.length);
  for (let i = 0; i < lo.length; i++) {
    const al = a.lo[i]!;
    const ah = a.hi[i]!;
    const bl = b.lo[i]!;
    const bh = b.hi[i]!;
    if (al === ah && bl === bh && al === bl) continue;
    if (isZero(bl, bh)) [lo[i], hi[i]] = [al, ah];
    else if (isZero(al, ah)) [lo[i], hi[i]] = [-bh, -bl];
    else {
      sub(al, ah, bl, bh);
      [lo[i], hi[i]] = [R.lo, R.hi];
    }
  }
  return { lo, hi, rows: a.rows, cols: a.cols };
}

/** c·a into R: a ±1 point factor copies the other exactly (the caller skips exact zeros). */
function times(cl: number, ch: number, al: number, ah: number): void {
  if (isUnit(cl, ch)) [R.lo, R.hi] = cl === 1 ? [al, ah] : [-ah, -al];
  else if (isUnit(al, ah)) [R.lo, R.hi] = al === 1 ? [cl, ch] : [-ch, -cl];
  else mul(cl, ch, al, ah);
}

/** C·A[S, :] for C (d × |S|, the outer map's columns along S) and A (d × m), outward rounded. */
function product(C: JacobianEnclosure, A: JacobianEnclosure, S: Int32Array): JacobianEnclosure {
  const m = A.cols;
  const lo = new Float64Array(C.rows * m);
  const hi = new Float64Array(C.rows * m);
  for (let i = 0; i < C.rows; i++)
    for (let k = 0; k < S.length; k++) {
      const cl = C.lo[i * S.length + k]!;
      const ch = C.hi[i * S.length + k]!;
      if (isZero(cl, ch)) continue;
      const row = S[k]! * m;
      for (let s = 0; s < m; s++) {
        const al = A.lo[row + s]!;
        const ah = A.hi[row + s]!;
        if (isZero(al, ah)) continue;
        times(cl, ch, al, ah);
        accumulate(lo, hi, i * m + s, R.lo, R.hi);
      }
    }
  return { lo, hi, rows: C.rows, cols: m };
}

/** Index of the first non-finite end of an enclosure, or −1. */
function nonFinite(e: { lo: Float64Array; hi: Float64Array }): number {
  const i = firstNonFinite(e.lo);
  return i >= 0 ? i : firstNonFinite(e.hi);
}

/**
 * D(outer ∘ inner)(X)·B by the chain rule, from inner's enclosure over X (image and columns along
 * W): the outer map's columns along the rows S where inner's columns are not exactly 0, over the
 * image box, times those rows.
 */
function chain(outer: Encloser, inner: BoxEnclosure, what: string, maxEntries: number): JacobianEnclosure | string {
  const A = inner.jacobian!;
  if (nonFinite(inner) >= 0 || nonFinite(A) >= 0)
    return `the enclosure of ${what} over the box has a NaN or infinite end`;
  const S: number[] = [];
  for (let r = 0; r < A.rows; r++)
    for (let s = 0; s < A.cols; s++)
      if (!isZero(A.lo[r * A.cols + s]!, A.hi[r * A.cols + s]!)) {
        S.push(r);
        break;
      }
  const d = inner.lo.length;
  if (d * S.length > maxEntries)
    return `not attempted: the chain rule for ${what} needs d·|S| = ${d}·${S.length} entries > maxEntries = ${maxEntries}`;
  if (S.length === 0)
    return { lo: new Float64Array(d * A.cols), hi: new Float64Array(d * A.cols), rows: d, cols: A.cols };
  const seeds = Int32Array.from(S);
  const C = outer(Float64Array.from(inner.lo), Float64Array.from(inner.hi), seeds).jacobian!;
  if (nonFinite(C) >= 0) return `the enclosure of the Jacobian after ${what} has a NaN or infinite end`;
  return product(C, A, seeds);
}

/** The columns from an interval form: the chain rule through both compositions. */
function intervalFormColumns(system: OperatorSystem, lo: Float64Array, hi: Float64Array, W: Int32Array, max: number) {
  if (!system.capabilities.intervalForm?.expand)
    return 'the system declares an interval form of Q without expand: DP_e cannot be enclosed';
  const Q = consolidateEncloser(system)!;
  const atX = Q(lo, hi, W);
  return (id: string) => {
    const P = expandEncloser(system, id)!;
    const qp = chain(Q, P(lo, hi, W), `P_${id}`, max);
    if (typeof qp === 'string') return qp;
    const pq = chain(P, atX, 'Q', max);
    return typeof pq === 'string' ? pq : difference(qp, pq);
  };
}

/** The columns from tfjs forms: Q∘P_e and P_e∘Q enclosed as composed forms, then subtracted. */
function tfjsColumns(system: OperatorSystem, lo: Float64Array, hi: Float64Array, W: Int32Array): Columns | string {
  const lin = system.capabilities.linearization;
  const Q = lin?.consolidateTf as TfForm | undefined;
  const P = lin?.expandTf as ((tf: unknown, id: string, X: unknown) => unknown) | undefined;
  if (!Q || !P)
    return 'the system has no interval form and no tfjs forms of both Q and P_e (linearization.consolidateTf, expandTf)';
  return (id: string) => {
    const qp: TfForm = (tf, X) => Q(tf, P(tf, id, X));
    const pq: TfForm = (tf, X) => P(tf, id, Q(tf, X));
    const jacobian = (form: TfForm) => encloseForm(form, lo, hi, { seeds: W }).jacobian!;
    return difference(jacobian(qp), jacobian(pq));
  };
}

/** The coordinates as names: at most ten, then how many in all. */
function names(system: OperatorSystem, coords: number[]): string {
  const shown = coords.slice(0, 10).map((i) => system.describeCoordinate(i));
  return shown.join(', ') + (coords.length > 10 ? `, … (${coords.length} in all)` : '');
}

/** Checks the arguments; returns W as an Int32Array. */
function checkArguments(
  system: OperatorSystem,
  enclosure: { lo: Float64Array; hi: Float64Array },
  coordinates: Int32Array,
  items: readonly { id: string; p: number }[],
  floatVerdict: FloatNonDegeneracy,
): Int32Array {
  const d = system.dim;
  const { lo, hi } = enclosure ?? {};
  if (!(lo instanceof Float64Array) || lo.length !== d)
    throw new ArgumentError('enclosure.lo', lo, `must be a Float64Array of length d = ${d}`);
  if (!(hi instanceof Float64Array) || hi.length !== d)
    throw new ArgumentError('enclosure.hi', hi, `must be a Float64Array of length d = ${d}`);
  for (let i = 0; i < d; i++)
    if (lo[i]! > hi[i]!)
      throw new ArgumentError(`enclosure.lo[${i}]`, lo[i], `must be <= enclosure.hi[${i}] = ${hi[i]}`);
  if (!coordinates || coordinates.length === 0)
    throw new ArgumentError('coordinates', coordinates, 'must list at least one coordinate');
  const W = Int32Array.from(coordinates, (j, k) => integerInRange(`coordinates[${k}]`, j, 0, d - 1));
  if (new Set(W).size !== W.length) throw new ArgumentError('coordinates', coordinates, 'must not repeat a coordinate');
  if (!Array.isArray(items)) throw new ArgumentTypeError('items', items, 'must be an array of { id, p }');
  items.forEach((it, k) => {
    if (typeof it?.id !== 'string') throw new ArgumentTypeError(`items[${k}].id`, it?.id, 'must be a string');
    if (!(finiteNumber(`items[${k}].p`, it.p) >= 0)) throw new ArgumentError(`items[${k}].p`, it.p, 'must be >= 0');
  });
  if (typeof floatVerdict?.nonDegenerate !== 'boolean')
    throw new ArgumentTypeError('floatVerdict.nonDegenerate', floatVerdict?.nonDegenerate, 'must be a boolean');
  integerInRange('floatVerdict.kernelDim', floatVerdict.kernelDim, 0, W.length);
  return W;
}

/**
 * Proves the float non-degeneracy verdict of the coordinate block W (`coordinates`) for every θ
 * in `enclosure`, a box of θ containing the fixed point θ* (e.g. from a contraction proof), by
 * enclosing DF_e on W for every item with p_e > 0 and G_W = Σ_e p_e (DF_e B)ᵀ(DF_e B) as an
 * interval matrix (module comment):
 * - non-degenerate verdict: 'proved' when λ_min(G_W) > 0 is shown on the whole enclosure, with
 *   the largest of floatVerdict.lambdaMin·(1 − δ), δ = 1e-14 … 0.5, or 0 that the definiteness
 *   test accepts as `lambdaMinLowerBound`;
 * - degenerate verdict: 'proved' when the coordinates of W whose DF_e column is exactly 0 for
 *   every item (`exactKernel`) are at least floatVerdict.kernelDim (and at least one);
 * - otherwise 'numerical', with the reason: the system has no form to enclose, d·|W| (or d·|S|
 *   for the chain rule of an interval form) exceeds `options.maxEntries` (default
 *   {@link DEFAULT_MAX_PROOF_ENTRIES}), an enclosure has a NaN or infinite end, the enclosure is
 *   too wide for the margin, the kernel is only numerically small, or the enclosures contradict
 *   the float verdict (then `statement` says so).
 * Cost: two enclosures of d × |W| Jacobian columns per item (forward-mode tangents of the forms,
 * or up to two chain-rule products for an interval form), the Gramian over the columns'
 * nonzeros, and one or two Cholesky decompositions of order |W|.
 * @throws {ArgumentError} enclosure ends not Float64Arrays of length d or lo > hi, coordinates
 *   empty, out of range or repeated, an item's p not a finite number >= 0, a kernelDim outside
 *   0..|W|, a maxEntries that is not positive; or what the system's forms throw.
 * @example
 * ```ts
 * const r = proveNonDegeneracy(system, { lo, hi }, Int32Array.of(3, 4, 5), system.evidenceAt(theta),
 *   { nonDegenerate: true, kernelDim: 0, lambdaMin: 0.0015 });
 * r.proof;               // 'proved'
 * r.lambdaMinLowerBound; // 0.0015·(1 − 1e-14) or a little lower
 * ```
 */
export function proveNonDegeneracy(
  system: OperatorSystem,
  enclosure: { lo: Float64Array; hi: Float64Array },
  coordinates: Int32Array,
  items: readonly { id: string; p: number }[],
  floatVerdict: FloatNonDegeneracy,
  options: { maxEntries?: number } = {},
): NonDegeneracyProof {
  const W = checkArguments(system, enclosure, coordinates, items, floatVerdict);
  const maxEntries = positiveNumber('options.maxEntries', options.maxEntries ?? DEFAULT_MAX_PROOF_ENTRIES);
  const { lo, hi } = enclosure;
  const d = system.dim;
  const m = W.length;
  let width = 0;
  for (let i = 0; i < d; i++) width = Math.max(width, hi[i]! - lo[i]!);
  const box = `the enclosure of the fixed point (a box in all ${d} coordinates, widest side ${width.toExponential(3)})`;
  const numerical = (why: string): NonDegeneracyProof => ({
    proof: 'numerical',
    lambdaMinLowerBound: null,
    exactKernel: [],
    statement: `not proved over ${box}: ${why}`,
  });
  if (d * m > maxEntries)
    return numerical(`not attempted, d·|W| = ${d}·${m} = ${d * m} entries > maxEntries = ${maxEntries}`);
  if (nonFinite(enclosure) >= 0) return numerical('the enclosure has a NaN or infinite end');
  const columns = system.capabilities.intervalForm
    ? intervalFormColumns(system, lo, hi, W, maxEntries)
    : tfjsColumns(system, lo, hi, W);
  if (typeof columns === 'string') return numerical(columns);
  const g = newGram(m);
  for (const { id, p } of items) {
    if (!(p > 0)) continue;
    const J = columns(id);
    if (typeof J === 'string') return numerical(J);
    const bad = nonFinite(J);
    if (bad >= 0)
      return numerical(
        `the enclosure of DF_${id} has a NaN or infinite entry (row ${Math.floor(bad / m)}, coordinate ${W[bad % m]})`,
      );
    addItem(g, J, p);
  }
  if (nonFinite(g) >= 0) return numerical('the interval Gramian overflowed');
  return decide(system, g, W, floatVerdict, box);
}

/** The verdict from the interval Gramian (see {@link proveNonDegeneracy}). */
function decide(
  system: OperatorSystem,
  g: IntervalGram,
  W: Int32Array,
  float: FloatNonDegeneracy,
  box: string,
): NonDegeneracyProof {
  const m = W.length;
  const zero: number[] = [];
  const rest: number[] = [];
  for (let j = 0; j < m; j++) (g.zeroColumn[j] === 1 ? zero : rest).push(j);
  const exactKernel = zero.map((j) => W[j]!);
  const estimate = float.nonDegenerate && Number.isFinite(float.lambdaMin) && float.lambdaMin > 0 ? float.lambdaMin : 0;
  let lb = { bound: -Infinity, proved: false };
  let maxRad = 0;
  if (rest.length > 0) {
    const G = gramMidRad(g, rest);
    for (const r of G.rad) maxRad = Math.max(maxRad, r);
    lb = lambdaMinLower(G.mid, G.rad, G.n, estimate);
  }
  const result = (proof: NonDegeneracyProof['proof'], bound: number | null, statement: string) => ({
    proof,
    lambdaMinLowerBound: bound,
    exactKernel,
    statement,
  });
  const structural = `DF_e is exactly 0 on ${names(system, exactKernel)} for every item with p_e > 0`;
  if (float.nonDegenerate) {
    if (zero.length > 0)
      return result(
        'numerical',
        null,
        `the float verdict is non-degenerate, but ${structural}: G_W is singular for every θ in ${box}`,
      );
    if (lb.proved) {
      const claim = lb.bound > 0 ? `λ_min(G_W) >= ${lb.bound} > 0` : 'λ_min(G_W) > 0';
      return result('proved', lb.bound, `${claim} for every θ in ${box}: non-degenerate at θ*`);
    }
    return result(
      'numerical',
      null,
      `not proved over ${box}: λ_min(G_W) > 0 could not be shown (float λ_min = ${float.lambdaMin.toExponential(3)} at θ̂, ` +
        `largest radius of the interval Gramian ${maxRad.toExponential(3)}): the enclosures are too wide for this margin, ` +
        'or the float λ_min overstates λ_min(G_W)',
    );
  }
  if (zero.length > 0 && zero.length >= float.kernelDim) {
    const more = zero.length > float.kernelDim ? ` (the float verdict found ${float.kernelDim})` : '';
    const exactly =
      rest.length === 0
        ? ', all of W'
        : lb.proved
          ? `; G_W on the other ${rest.length} coordinates of W is positive definite there, so the kernel is exactly these coordinates`
          : '';
    return result(
      'proved',
      null,
      `the kernel is exact: ${structural} (structural zeros over ${box}): G_W is singular at θ*, ` +
        `with ${zero.length} exact kernel directions${more}${exactly}`,
    );
  }
  if (zero.length === 0 && lb.proved)
    return result(
      'numerical',
      lb.bound,
      `the float verdict is degenerate, but G_W is positive definite for every θ in ${box} (proved): its small eigenvalues are not zero`,
    );
  const some = zero.length > 0 ? `: ${structural}` : '';
  return result(
    'numerical',
    null,
    `not proved over ${box}: ${zero.length} of the ${float.kernelDim} kernel directions of the float verdict are structural zeros${some}; ` +
      'the others are only numerically small eigenvalues of G_W, which no enclosure can prove to be 0',
  );
}
