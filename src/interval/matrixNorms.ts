/**
 * The cheap rigorous pieces of the matrix bounds (./matrixBounds.ts): exact scaling by powers of
 * two, upward-rounded Frobenius, 1- and ∞-norms, Collatz's bound for nonnegative symmetric
 * matrices, and a Lanczos estimate of ‖M‖₂ that only proposes (never proves anything).
 * Matrices are row-major Float64Array with explicit rows and cols.
 */
import { down, ETA, up } from './round.js';

/** The smallest positive normal f64, 2⁻¹⁰²²: products by powers of two above it are exact. */
const MIN_NORMAL = 2 ** -1022;

/** max |m_i| over the array; NaN when an entry is NaN, Infinity when one is infinite. */
export function maxAbsOrNaN(M: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < M.length; i++) m = Math.max(m, Math.abs(M[i]!));
  return m;
}

/** k with 2^k·maxAbs in [1, 2) up to the rounding of log2 (any k is valid: it only steers the range). */
export function unitExponent(maxAbs: number): number {
  return -Math.floor(Math.log2(maxAbs));
}

/** x·2^k (k in [−1074, 2098]), rounded to nearest; exact whenever the result is finite and > 2⁻¹⁰²². */
export function mulPow2(x: number, k: number): number {
  return k > 1023 ? x * 2 ** 1023 * 2 ** (k - 1023) : x * 2 ** k;
}

/** A float >= x·2^k (exact when that product is a finite normal float). */
export function mulPow2Up(x: number, k: number): number {
  if (x === 0) return 0;
  const r = mulPow2(x, k);
  return Math.abs(r) > MIN_NORMAL && r < Infinity ? r : up(r);
}

/** A float <= x·2^k (exact when that product is a finite normal float). */
export function mulPow2Down(x: number, k: number): number {
  if (x === 0) return 0;
  const r = mulPow2(x, k);
  return Math.abs(r) > MIN_NORMAL && r > -Infinity ? r : down(r);
}

/** A matrix scaled by 2^k: S = fl(2^k·M) and an upper bound `extra` of ‖S − 2^k·M‖₂. */
export interface Scaled {
  S: Float64Array;
  /** 0 when every entry scaled exactly (always when k >= 0). */
  extra: number;
}

/**
 * fl(2^k·M) entrywise. Scaling up is exact (the caller picks k so nothing overflows); scaling
 * down rounds only entries that land among the subnormals, each by at most η/2, so
 * ‖S − 2^k·M‖₂ <= ‖·‖_F <= √(len)·η/2 <= len·η, the `extra` returned when some entry moved.
 */
export function scaleBy(M: Float64Array, k: number): Scaled {
  const S = new Float64Array(M.length);
  let inexact = false;
  const back = k < 0 ? 2 ** -k : 1;
  for (let i = 0; i < M.length; i++) {
    const x = M[i]!;
    const s = mulPow2(x, k);
    S[i] = s;
    if (k < 0 && s * back !== x) inexact = true;
  }
  return { S, extra: inexact ? up(M.length * ETA) : 0 };
}

/** Upward-rounded norms of a rows×cols matrix and the better of the two cheap bounds on ‖·‖₂. */
export interface CheapNorms {
  /** >= ‖M‖_F². */
  frobSq: number;
  /** >= ‖M‖₁·‖M‖∞ (largest column sum times largest row sum of |M|). */
  oneInf: number;
  /** >= ‖M‖₂: min(√frobSq, √oneInf) rounded up. */
  bound: number;
  /** Which of the two gave `bound`. */
  method: 'frobenius' | 'oneInf';
}

/**
 * ‖M‖_F² and ‖M‖₁·‖M‖∞ with every product and sum rounded up (zeros skipped, so structural zeros
 * cost nothing), and the bound ‖M‖₂ <= min(‖M‖_F, √(‖M‖₁‖M‖∞)) (Hölder: ‖M‖₂² <= ‖M‖₁‖M‖∞), exact
 * up to a few ulps for a diagonal M. Overflow gives Infinity, never a wrong bound.
 */
export function cheapNorms(M: Float64Array, rows: number, cols: number): CheapNorms {
  const colSum = new Float64Array(cols);
  let frobSq = 0;
  let inf = 0;
  for (let i = 0; i < rows; i++) {
    const row = i * cols;
    let r = 0;
    for (let j = 0; j < cols; j++) {
      const x = M[row + j]!;
      if (x === 0) continue;
      const a = Math.abs(x);
      r = up(r + a);
      colSum[j] = up(colSum[j]! + a);
      frobSq = up(frobSq + up(a * a));
    }
    inf = Math.max(inf, r);
  }
  let one = 0;
  for (let j = 0; j < cols; j++) one = Math.max(one, colSum[j]!);
  const oneInf = up(one * inf);
  const frob = up(Math.sqrt(frobSq));
  const hoelder = up(Math.sqrt(oneInf));
  return hoelder <= frob
    ? { frobSq, oneInf, bound: hoelder, method: 'oneInf' }
    : { frobSq, oneInf, bound: frob, method: 'frobenius' };
}

/** y = R·x for a nonnegative n×n R and x >= 0, every product and sum rounded up (so y >= R·x). */
function matVecUp(R: Float64Array, n: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const row = i * n;
    let s = 0;
    for (let j = 0; j < n; j++) {
      const r = R[row + j]!;
      if (r !== 0) s = up(s + up(r * x[j]!));
    }
    y[i] = s;
  }
}

/** max_i y_i / x_i rounded up: Collatz's bound on ρ(R) when y >= R·x and x > 0. */
function collatzRatio(y: Float64Array, x: Float64Array): number {
  let m = 0;
  for (let i = 0; i < y.length; i++) if (y[i] !== 0) m = Math.max(m, up(y[i]! / x[i]!));
  return m;
}

/**
 * An upper bound of ‖R‖₂ for a symmetric nonnegative n×n R: Collatz–Wielandt, ρ(R) <= max_i
 * (R·x)_i / x_i for every x > 0 (it is ‖D⁻¹RD‖∞ with D = diag(x)), and ‖R‖₂ = ρ(R) for symmetric
 * R. Evaluated rounded up with x = 1 (the largest row sum) and with x from eight plain power steps
 * (any x > 0 is valid: only the final ratios need the rounding), and against the Frobenius norm;
 * the smallest is returned.
 */
export function symmetricNonnegNormUpper(R: Float64Array, n: number): number {
  const ones = new Float64Array(n).fill(1);
  const y = new Float64Array(n);
  matVecUp(R, n, ones, y);
  const rowSums = collatzRatio(y, ones);
  if (rowSums === 0) return 0;
  const x = new Float64Array(n);
  for (let step = 0; step < 8; step++) {
    let m = 0;
    for (let i = 0; i < n; i++) m = Math.max(m, y[i]!);
    // the next x: R·x normalised, kept away from 0 so every ratio stays defined
    for (let i = 0; i < n; i++) x[i] = Math.max(y[i]! / m, 2 ** -30);
    mulM(R, n, n, x, y);
  }
  matVecUp(R, n, x, y);
  return Math.min(rowSums, collatzRatio(y, x), cheapNorms(R, n, n).bound);
}

/** y = M·x for the rows×cols M. */
function mulM(M: Float64Array, rows: number, cols: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < rows; i++) {
    const row = i * cols;
    let s = 0;
    for (let j = 0; j < cols; j++) s += M[row + j]! * x[j]!;
    y[i] = s;
  }
}

/** x = Mᵀ·y for the rows×cols M, accumulated row by row so M is read contiguously. */
function mulMt(M: Float64Array, rows: number, cols: number, y: Float64Array, x: Float64Array): void {
  x.fill(0);
  for (let i = 0; i < rows; i++) {
    const row = i * cols;
    const yi = y[i]!;
    if (yi !== 0) for (let j = 0; j < cols; j++) x[j] = x[j]! + M[row + j]! * yi;
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Pivots smaller than this are replaced by −TINY, so the Sturm recurrence never divides by 0. */
const TINY = Number.MIN_VALUE / Number.EPSILON;

/**
 * The number of eigenvalues below x of the symmetric tridiagonal with diagonal a[0..m) and
 * off-diagonal b[0..m−1): the negative pivots of the LDLᵀ factorisation of T − xI (Sylvester's
 * law of inertia).
 */
function sturmBelow(a: Float64Array, b: Float64Array, m: number, x: number): number {
  let count = 0;
  let q = 1;
  for (let i = 0; i < m; i++) {
    q = a[i]! - x - (i === 0 ? 0 : (b[i - 1]! * b[i - 1]!) / q);
    if (Math.abs(q) < TINY) q = -TINY;
    if (q < 0) count++;
  }
  return count;
}

/** The largest eigenvalue of that tridiagonal, bisected from its Gershgorin interval to a few ulps. */
function tridiagonalMax(a: Float64Array, b: Float64Array, m: number): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < m; i++) {
    const r = (i > 0 ? Math.abs(b[i - 1]!) : 0) + (i < m - 1 ? Math.abs(b[i]!) : 0);
    lo = Math.min(lo, a[i]! - r);
    hi = Math.max(hi, a[i]! + r);
  }
  for (let it = 0; it < 200 && hi - lo > 4 * Number.EPSILON * Math.max(Math.abs(lo), Math.abs(hi)); it++) {
    const x = lo + (hi - lo) / 2;
    if (sturmBelow(a, b, m, x) === m) hi = x;
    else lo = x;
  }
  return hi;
}

/**
 * ‖M‖₂ estimated by the Lanczos process (with full reorthogonalisation) on MᵀM or MMᵀ, whichever
 * is smaller — power iteration accelerated by keeping the whole Krylov basis, which reaches full
 * accuracy in a few dozen steps where plain power iteration stalls on the close top singular
 * values of random matrices. Plain f64; an estimate (usually within a few ulps below ‖M‖₂ once
 * converged), never a bound. At most `maxSteps` steps (and the dimension); stops when the largest
 * Ritz value has changed by less than 1e-15 relative in two consecutive steps, or the Krylov space
 * is invariant. A fixed pseudo-random start makes results reproducible. For matrices scaled to
 * entries of order 1.
 */
export function lanczosNormEstimate(M: Float64Array, rows: number, cols: number, maxSteps = 100): number {
  const wide = rows < cols; // iterate on MMᵀ (rows) instead of MᵀM (cols)
  const d = wide ? rows : cols;
  const steps = Math.min(maxSteps, d);
  const V = new Float64Array(steps * d);
  const alpha = new Float64Array(steps);
  const beta = new Float64Array(steps);
  const t = new Float64Array(wide ? cols : rows);
  const w = new Float64Array(d);
  let seed = 0x2545f491;
  for (let j = 0; j < d; j++) {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    w[j] = (seed >>> 8) / 2 ** 24 - 0.5 + 1e-3;
  }
  let b = Math.sqrt(dot(w, w));
  let theta = 0;
  let stable = 0;
  for (let j = 0; j < steps; j++) {
    const v = V.subarray(j * d, (j + 1) * d);
    for (let i = 0; i < d; i++) v[i] = w[i]! / b;
    if (wide) {
      mulMt(M, rows, cols, v, t);
      mulM(M, rows, cols, t, w);
    } else {
      mulM(M, rows, cols, v, t);
      mulMt(M, rows, cols, t, w);
    }
    // w ⊥ v_0..v_j by classical Gram–Schmidt, twice ("twice is enough"); the v_j coefficient is α_j
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i <= j; i++) {
        const vi = V.subarray(i * d, (i + 1) * d);
        const h = dot(w, vi);
        if (i === j) alpha[j] = alpha[j]! + h;
        for (let l = 0; l < d; l++) w[l] = w[l]! - h * vi[l]!;
      }
    b = Math.sqrt(dot(w, w));
    beta[j] = b;
    const next = tridiagonalMax(alpha, beta, j + 1);
    stable = Math.abs(next - theta) <= 1e-15 * next ? stable + 1 : 0;
    theta = Math.max(theta, next);
    if (stable >= 2 || !(b > 1e-14 * theta)) break;
  }
  return Math.sqrt(theta);
}
