/**
 * Rigorous matrix bounds in f64: statements about the real matrices given by float entries (or
 * by midpoint–radius enclosures), true whatever the rounding of the floats that computed them.
 * Built on the outward rounding of ./round.ts and Rump's positive-definiteness test (./isspd.ts).
 * Matrices are row-major Float64Array with explicit rows and cols.
 *
 * - ‖M‖₂ from above: the Frobenius norm, √(‖M‖₁‖M‖∞), or α slightly above a Lanczos
 *   estimate with α²I − MᵀM proved positive definite (a proof that ‖M‖₂ < α).
 * - Interval matrices [mid − rad, mid + rad]: sup ‖J‖₂ <= ‖mid‖₂ + ‖rad‖₂ (the midpoint–radius
 *   bound keeps the signs of mid, unlike a bound on the magnitude matrix |J|).
 * - λ_min of every symmetric G with |G − midG| <= radG from below, by Weyl's inequality
 *   λ_min(G) >= λ_min(midG) − ‖radG‖₂ and the definiteness test.
 *
 * Every function first scales its matrices by an exact power of two so that the largest entry
 * lies in [1, 2) (./matrixNorms.ts; the rare rounding of entries pushed into the subnormals is
 * bounded and added back), so entries from subnormal to 1e308 neither overflow nor underflow in
 * the products. A non-finite entry (NaN means "no enclosure") gives "not proved" / Infinity,
 * never a number that is wrong.
 */
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { assertSymmetric, isspdLower } from './isspd.js';
import {
  cheapNorms,
  maxAbsOrNaN,
  mulPow2,
  mulPow2Down,
  mulPow2Up,
  lanczosNormEstimate,
  scaleBy,
  symmetricNonnegNormUpper,
  unitExponent,
  type CheapNorms,
} from './matrixNorms.js';
import { down, ETA, up } from './round.js';

export { provePositiveDefinite } from './isspd.js';

/** The unit roundoff of f64, u = 2⁻⁵³. */
const U = 2 ** -53;

/**
 * Relative margins δ tried above a norm estimate (α = estimate·(1 + δ)), smallest first: the
 * first α that the definiteness test accepts is returned. 1e-14 is about the accuracy of a
 * converged Lanczos estimate; beyond 1e-2 the cheap bounds are usually as good.
 */
const NORM_MARGINS = [1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2];

/** Relative margins δ tried below a λ_min estimate (μ = estimate·(1 − δ)) before μ = 0. */
const LAMBDA_MARGINS = [1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2, 0.1, 0.5];

/** A midpoint–radius enclosure of an interval vector or matrix. */
export interface MidRad {
  mid: Float64Array;
  rad: Float64Array;
}

/** An upper bound of ‖M‖₂ and the route that gave it. */
export interface SpectralNormBound {
  /** A float >= ‖M‖₂ (Infinity when M has a non-finite entry). */
  bound: number;
  /**
   * 'isspd': ‖M‖₂ < alpha = bound proved by Rump's test; 'frobenius' / 'oneInf': the rounded-up
   * ‖M‖_F or √(‖M‖₁‖M‖∞); 'zero': M = 0; 'nonFinite': an entry is NaN or ±Infinity.
   */
  method: 'isspd' | 'frobenius' | 'oneInf' | 'zero' | 'nonFinite';
  /** For 'isspd': the α with α²I − MᵀM proved positive definite (`normBelow(M, …, alpha)` holds). */
  alpha?: number;
}

/** A lower bound of λ_min over a symmetric interval matrix. */
export interface LambdaMinBound {
  /** λ_min(G) > bound for every symmetric G in the enclosure; −Infinity when nothing was proved. */
  bound: number;
  /** Whether some μ >= 0 was proved (false: not even λ_min > 0 could be shown). */
  proved: boolean;
}

/** An upper bound of a − b: the rounded difference, moved up only when TwoSum shows it fell short. */
function diffUp(a: number, b: number): number {
  const s = a - b;
  const bv = s - a;
  const err = a - (s - bv) + (-b - bv);
  return err <= 0 ? s : up(s);
}

/**
 * Midpoint and radius of the interval vector (or matrix, entrywise) [lo, hi]: mid = fl((lo + hi)/2)
 * (as lo/2 + hi/2 when lo + hi overflows) and rad the smallest float found >= max(mid − lo,
 * hi − mid), so [mid − rad, mid + rad] ⊇ [lo, hi] in the reals for every entry (a point interval
 * gets rad = 0). An infinite end gives rad = Infinity with a finite mid (an end, or 0); a NaN end
 * gives NaN in both ("no enclosure").
 * @throws ArgumentError when the lengths differ or some lo[i] > hi[i].
 */
export function midRad(lo: Float64Array, hi: Float64Array): MidRad {
  if (hi.length !== lo.length)
    throw new ArgumentError('hi', hi, `must have the length of lo (${lo.length}), got ${hi.length}`);
  const mid = new Float64Array(lo.length);
  const rad = new Float64Array(lo.length);
  for (let i = 0; i < lo.length; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    if (Number.isNaN(l) || Number.isNaN(h)) {
      mid[i] = NaN;
      rad[i] = NaN;
      continue;
    }
    if (l > h) throw new ArgumentError(`lo[${i}]`, l, `must be <= hi[${i}] = ${h}`);
    if (!Number.isFinite(l) || !Number.isFinite(h)) {
      mid[i] = Number.isFinite(l) ? l : Number.isFinite(h) ? h : 0;
      rad[i] = Infinity;
      continue;
    }
    let m = (l + h) / 2;
    if (!Number.isFinite(m)) m = l / 2 + h / 2;
    mid[i] = m;
    rad[i] = Math.max(diffUp(m, l), diffUp(h, m));
  }
  return { mid, rad };
}

function checkShape(name: string, M: Float64Array, rows: number, cols: number): void {
  integerInRange('rows', rows, 0);
  integerInRange('cols', cols, 0);
  if (M.length !== rows * cols)
    throw new ArgumentError(name, M, `must have length rows·cols = ${rows * cols}, got ${M.length}`);
}

function checkSquare(name: string, A: Float64Array, n: number): void {
  if (A.length !== n * n) throw new ArgumentError(name, A, `must have length n² = ${n * n}, got ${A.length}`);
}

function checkRadius(name: string, R: Float64Array): void {
  for (let i = 0; i < R.length; i++)
    if (R[i]! < 0) throw new ArgumentError(`${name}[${i}]`, R[i], 'must be >= 0 (a radius)');
}

/** M scaled by 2^k to max entry in [1, 2), with what every route needs. */
interface NormProblem {
  S: Float64Array;
  rows: number;
  cols: number;
  k: number;
  /** >= ‖S − 2^k·M‖₂. */
  extra: number;
  /** max |m_ij| of M, unscaled: ‖M‖₂ >= maxAbs. */
  maxAbs: number;
  cheap: CheapNorms;
  gram?: Gram;
}

type Prepared = NormProblem | 'zero' | 'nonFinite';

function prepareNorm(M: Float64Array, rows: number, cols: number): Prepared {
  const maxAbs = maxAbsOrNaN(M);
  if (!(maxAbs < Infinity)) return 'nonFinite';
  if (maxAbs === 0) return 'zero';
  const k = unitExponent(maxAbs);
  const { S, extra } = scaleBy(M, k);
  return { S, rows, cols, k, extra, maxAbs, cheap: cheapNorms(S, rows, cols) };
}

/** The cheap bound of ‖M‖₂ (Frobenius or Hölder) in M's units, rounded up. */
function cheapBound(p: Prepared): number {
  if (p === 'nonFinite') return Infinity;
  if (p === 'zero') return 0;
  return mulPow2Up(p.extra > 0 ? up(p.cheap.bound + p.extra) : p.cheap.bound, -p.k);
}

/** The Gram matrix of the scaled M (lower triangle and diagonal) and a bound of its error. */
interface Gram {
  C: Float64Array;
  k: number;
  /** >= ‖C − X·Xᵀ‖₂ (see {@link gramOf}). */
  err: number;
}

function gramError(p: NormProblem): number {
  const k = Math.min(p.rows, p.cols);
  const m = Math.max(p.rows, p.cols);
  const gamma = up((m * U) / down(1 - m * U));
  return up(up(gamma * Math.min(p.cheap.frobSq, p.cheap.oneInf)) + up(k * m * ETA));
}

/**
 * C = fl(X·Xᵀ) for the k×m matrix X (X = S when S has fewer rows than columns, Sᵀ otherwise, so C
 * is the smaller of SᵀS and SSᵀ, which share their nonzero eigenvalues) and err >= ‖C − X·Xᵀ‖₂.
 * Each entry is an m-term dot product, so (Higham, Accuracy and Stability, Sec. 3.1, for any
 * order of summation, plus at most η/2 per product for underflow, amplified by 1 + γ_{m−1} <= 2)
 * |C − XXᵀ| <= γ_m·|X||X|ᵀ + mη·𝟙𝟙ᵀ entrywise; for nonnegative matrices the 2-norm is monotone,
 * so err = γ_m·‖|X|‖₂² + k·m·η with ‖|X|‖₂² <= min(‖X‖_F², ‖X‖₁‖X‖∞), evaluated rounded up.
 */
function gramOf(p: NormProblem): Gram {
  const { S, rows, cols } = p;
  const k = Math.min(rows, cols);
  const m = Math.max(rows, cols);
  let X = S;
  if (cols <= rows) {
    X = new Float64Array(rows * cols);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) X[j * rows + i] = S[i * cols + j]!;
  }
  const C = new Float64Array(k * k);
  const m4 = m - (m % 4);
  for (let i = 0; i < k; i++) {
    const ri = i * m;
    for (let j = 0; j <= i; j++) {
      const rj = j * m;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let l = 0; l < m4; l += 4) {
        s0 += X[ri + l]! * X[rj + l]!;
        s1 += X[ri + l + 1]! * X[rj + l + 1]!;
        s2 += X[ri + l + 2]! * X[rj + l + 2]!;
        s3 += X[ri + l + 3]! * X[rj + l + 3]!;
      }
      for (let l = m4; l < m; l++) s0 += X[ri + l]! * X[rj + l]!;
      C[i * k + j] = s0 + s1 + (s2 + s3);
    }
  }
  return { C, k, err: gramError(p) };
}

/**
 * Proves ‖S‖₂ < a, i.e. a²I − XXᵀ positive definite: a²I − XXᵀ = (a²I − C − err·I) + (C − XXᵀ +
 * err·I) and the second term is positive semidefinite, so it suffices that the float matrix with off-diagonal −C_ij and diagonal
 * down(down(a²) − C_ii − err) (<= the real one) passes Rump's test.
 */
function gramBelow(g: Gram, a: number): boolean {
  const { C, k, err } = g;
  const a2 = down(a * a);
  const A = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    const row = i * k;
    for (let j = 0; j < i; j++) A[row + j] = -C[row + j]!;
    A[row + i] = down(down(a2 - C[row + i]!) - err);
  }
  return isspdLower(A, k);
}

/** ‖M‖₂ < alpha, for the prepared M. */
function belowPrepared(p: Prepared, alpha: number): boolean {
  if (p === 'nonFinite' || !(alpha > 0)) return false;
  if (p === 'zero') return true;
  if (alpha <= p.maxAbs) return false; // ‖M‖₂ >= max |m_ij|: nothing to try
  // prove ‖S‖₂ < target: then ‖2^k·M‖₂ <= ‖S‖₂ + extra < target + extra <= 2^k·alpha
  const a = mulPow2Down(alpha, p.k);
  const target = p.extra > 0 ? down(a - p.extra) : a;
  if (!(target > 0)) return false;
  if (p.cheap.bound < target) return true;
  p.gram ??= gramOf(p);
  return gramBelow(p.gram, target);
}

/**
 * Proves ‖M‖₂ < alpha for the rows×cols matrix M (entries taken as exact reals): α²I − MᵀM is
 * shown positive definite by Rump's test (./isspd.ts), with MᵀM (or MMᵀ, whichever is smaller)
 * formed in floating point and its rounding error bounded by γ_m·‖|M|‖₂² + k·m·η (m the inner,
 * k the outer dimension) and subtracted from the diagonal. When the rounded-up Frobenius or
 * Hölder bound already lies below alpha, that is the proof. True is a proof; false means "not
 * proved" (alpha <= ‖M‖₂, alpha too close to ‖M‖₂ for the rounding errors — about
 * (k + m)·u·‖M‖_F²/α² relative —, or a non-finite entry). Cost: the Gram matrix (k²m/2) and one
 * Cholesky decomposition (k³/6).
 * @throws ArgumentError for a shape mismatch or a NaN alpha.
 */
export function normBelow(M: Float64Array, rows: number, cols: number, alpha: number): boolean {
  checkShape('M', M, rows, cols);
  if (typeof alpha !== 'number' || Number.isNaN(alpha)) throw new ArgumentError('alpha', alpha, 'must be a number');
  return belowPrepared(prepareNorm(M, rows, cols), alpha);
}

/**
 * Whether trying α = est·(1 + δ) (scaled units) is pointless: λ_min(α²I − SᵀS) ≈ α² − est² ≈
 * 2δ·est² must exceed the shifts err + c, c >= (k + 1)u·tr with tr >= k·α² − ‖S‖_F² (a low
 * estimate of c, so an attempt that could succeed is not skipped). A heuristic only: what is
 * returned is always proved by the test itself.
 */
function hopeless(p: NormProblem, est: number, delta: number): boolean {
  const k = Math.min(p.rows, p.cols);
  const a2 = est * est * (1 + delta) * (1 + delta);
  const c = (k + 1) * U * Math.max(0, k * a2 - p.cheap.frobSq);
  return 2 * delta * est * est < gramError(p) + c;
}

/**
 * An upper bound of ‖M‖₂ for the rows×cols matrix M: the smallest of the rounded-up Frobenius
 * norm, √(‖M‖₁‖M‖∞) rounded up (exact up to a few ulps for diagonal M), and α = estimate·(1 + δ)
 * for the first δ in 1e-14, 1e-12, …, 1e-2 for which {@link normBelow} proves ‖M‖₂ < α (tried only
 * while α is below the cheap bounds). `estimate` (of ‖M‖₂, >= 0) defaults to a Lanczos estimate
 * (at most 100 steps in plain f64, ./matrixNorms.ts). For a well-conditioned dense n×n M the isspd route is within
 * about n²·u relative of ‖M‖₂ (δ = 1e-10 at n = 256).
 * @throws ArgumentError for a shape mismatch or an estimate that is negative or not finite.
 */
export function spectralNormUpper(M: Float64Array, rows: number, cols: number, estimate?: number): SpectralNormBound {
  checkShape('M', M, rows, cols);
  if (estimate !== undefined && !(Number.isFinite(estimate) && estimate >= 0))
    throw new ArgumentError('estimate', estimate, 'must be a finite number >= 0');
  const p = prepareNorm(M, rows, cols);
  if (p === 'nonFinite') return { bound: Infinity, method: 'nonFinite' };
  if (p === 'zero') return { bound: 0, method: 'zero' };
  const best: SpectralNormBound = { bound: cheapBound(p), method: p.cheap.method };
  const est = estimate ?? mulPow2(lanczosNormEstimate(p.S, rows, cols), -p.k);
  const estScaled = mulPow2(est, p.k);
  if (!(est > 0)) return best;
  for (const delta of NORM_MARGINS) {
    const alpha = est * (1 + delta);
    if (!(alpha < best.bound)) break;
    if (hopeless(p, estScaled, delta)) continue;
    if (belowPrepared(p, alpha)) return { bound: alpha, method: 'isspd', alpha };
  }
  return best;
}

/**
 * An upper bound of sup ‖J‖₂ over the interval matrix |J − mid| <= rad (rows×cols, rad >= 0):
 * ‖J‖₂ <= ‖mid‖₂ + ‖J − mid‖₂ <= ‖mid‖₂ + ‖rad‖₂ (the 2-norm is monotone on nonnegative
 * matrices), evaluated as up({@link spectralNormUpper}(mid) + min(‖rad‖_F, √(‖rad‖₁‖rad‖∞))) with
 * every sum and product rounded up. Infinity when an entry of mid or rad is not finite.
 * @throws ArgumentError for a shape mismatch, a negative radius or a bad estimate.
 */
export function intervalNormUpper(
  mid: Float64Array,
  rad: Float64Array,
  rows: number,
  cols: number,
  estimate?: number,
): number {
  checkShape('rad', rad, rows, cols);
  checkRadius('rad', rad);
  const b1 = spectralNormUpper(mid, rows, cols, estimate).bound;
  const b2 = cheapBound(prepareNorm(rad, rows, cols));
  return b2 === 0 ? b1 : up(b1 + b2);
}

/** midG and radG scaled by one power of two, with the shift that the radius and scaling cost. */
interface LambdaProblem {
  G: Float64Array;
  n: number;
  k: number;
  /** >= ‖2^k·midG − G‖₂ + ‖2^k·radG‖₂ (scaled units). */
  shift: number;
  /** >= ‖G‖₂ (scaled units): below −(gNorm + shift) every μ holds trivially. */
  gNorm: number;
}

function prepareLambda(midG: Float64Array, radG: Float64Array, n: number): LambdaProblem | undefined {
  integerInRange('n', n, 1);
  checkSquare('midG', midG, n);
  checkSquare('radG', radG, n);
  checkRadius('radG', radG);
  assertSymmetric('midG', midG, n);
  assertSymmetric('radG', radG, n);
  const mx = Math.max(maxAbsOrNaN(midG), maxAbsOrNaN(radG));
  if (!(mx < Infinity)) return undefined;
  const k = mx === 0 ? 0 : unitExponent(mx);
  const g = scaleBy(midG, k);
  const r = scaleBy(radG, k);
  const shift = up(up(symmetricNonnegNormUpper(r.S, n) + r.extra) + g.extra);
  return { G: g.S, n, k, shift, gNorm: cheapNorms(g.S, n, n).bound };
}

/**
 * λ_min(G) > mu for every symmetric G in the prepared enclosure: by Weyl, λ_min(2^k·G) >=
 * λ_min(G_s) − shift (G_s the scaled midG), so G_s − s·I positive definite with
 * s >= 2^k·mu + shift suffices.
 */
function aboveProblem(p: LambdaProblem, mu: number): boolean {
  if (mu === -Infinity) return true;
  const m = mulPow2Up(mu, p.k);
  if (m < -up(p.gNorm + p.shift)) return true; // λ_min(2^k·G) >= −‖2^k·G‖₂
  const s = up(m + p.shift);
  const { G, n } = p;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j < i; j++) A[row + j] = G[row + j]!;
    A[row + i] = down(G[row + i]! - s);
  }
  return isspdLower(A, n);
}

/**
 * Proves λ_min(G) > mu for every symmetric G with |G − midG| <= radG (n×n, midG and radG
 * symmetric, radG >= 0): Weyl's inequality λ_min(G) >= λ_min(midG) − ‖G − midG‖₂ >= λ_min(midG) −
 * ‖radG‖₂, with ‖radG‖₂ bounded by Collatz's bound or its Frobenius norm, and midG − (mu + r)·I
 * proved positive definite by Rump's test. True is a proof; false means "not proved" (also for a
 * non-finite entry).
 * @throws ArgumentError for a shape mismatch, an asymmetric midG or radG, a negative radius or a
 *   NaN mu.
 */
export function lambdaMinAbove(midG: Float64Array, radG: Float64Array, n: number, mu: number): boolean {
  if (typeof mu !== 'number' || Number.isNaN(mu)) throw new ArgumentError('mu', mu, 'must be a number');
  const p = prepareLambda(midG, radG, n);
  return p !== undefined && aboveProblem(p, mu);
}

/**
 * The largest μ among estimate·(1 − δ), δ = 1e-14, 1e-12, …, 1e-2, 0.1, 0.5 (tried when
 * estimate > 0), and finally 0, for which {@link lambdaMinAbove} proves λ_min(G) > μ for every
 * symmetric G with |G − midG| <= radG. `estimate` is an approximation of λ_min(midG) (e.g. from
 * an eigensolver). `proved: false` (bound −Infinity) when not even λ_min > 0 could be shown.
 * @throws ArgumentError as {@link lambdaMinAbove}, or for an estimate that is not finite.
 */
export function lambdaMinLower(midG: Float64Array, radG: Float64Array, n: number, estimate: number): LambdaMinBound {
  if (!Number.isFinite(estimate)) throw new ArgumentError('estimate', estimate, 'must be a finite number');
  const p = prepareLambda(midG, radG, n);
  if (p === undefined) return { bound: -Infinity, proved: false };
  const candidates = estimate > 0 ? LAMBDA_MARGINS.map((d) => estimate * (1 - d)) : [];
  candidates.push(0);
  for (const mu of candidates) if (aboveProblem(p, mu)) return { bound: mu, proved: true };
  return { bound: -Infinity, proved: false };
}
