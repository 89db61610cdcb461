/**
 * Rump's floating-point test of positive definiteness (S. M. Rump, "Verification of positive
 * definiteness", BIT Numerical Mathematics 46 (2006) 433–452, Corollary 2.4; INTLAB's isspd.m):
 * a floating-point Cholesky decomposition, in rounding to nearest, that runs to completion on
 * A − c·I, with c a bound on every rounding error the decomposition can commit (underflow
 * included), proves the real symmetric matrix A positive definite.
 *
 * The theorem, in the form formally proved in Coq by P. Roux ("Formal proofs of rounding error
 * bounds", J. Autom. Reasoning 57 (2016); ValidSDP, `corollary_2_4_with_c_upper_bound`): let
 * A ∈ F^{n×n} be symmetric with a_ii >= 0, 4(n + 1)u < 1 (u = 2⁻⁵³), η = 2⁻¹⁰⁷⁴ and
 *
 *   c >= γ·tr(A) + 4nη·(2(n + 1) + max a_ii),  γ = (n + 1)u / (1 − 2(n + 1)u) = γ_{n+1}/(1 − γ_{n+1}).
 *
 * Let Ã agree with A off the diagonal and have ã_ii <= a_ii − c. If the floating-point Cholesky
 * of Ã, r_ij = (ã_ij − Σ_{k<i} r_ki·r_kj)/r_ii and r_jj = √(ã_jj − Σ_{k<j} r_kj²) with each
 * sum taken term by term from ã, produces only finite numbers and r_jj > 0 for every j, then A
 * is positive definite. The shift used here is the larger of that η term and the one isspd.m
 * uses, 6n(n + max a_ii)η, each constant evaluated with upward rounding: it satisfies both.
 *
 * JavaScript rounds every + − × ÷ √ to nearest and never contracts a·b − c into a fused
 * multiply-add, so the loops below are the algorithm the theorem analyses. Success implies that
 * nothing overflowed: an infinity or NaN produced in row j of the factor reaches the pivot of
 * row j (as ã_jj − ∞ or NaN), which then fails the test `> 0`.
 *
 * Like isspd.m, badly scaled diagonals (max a_ii / min a_ii > √n, all within [1e-100, 1e100]) are
 * first balanced by van der Sluis scaling D·A·D with D_ii powers of two; A is positive definite
 * exactly when D·A·D is, and the scaled matrix is used only when every scaled entry is exact.
 */
import { firstNonFinite, integerInRange } from '../util/validate.js';
import { ArgumentError } from '../util/errors.js';
import { down, ETA, up } from './round.js';

/** The unit roundoff of f64, u = 2⁻⁵³. */
const U = 2 ** -53;

/**
 * An upper bound of the shift c of Corollary 2.4 for an n×n matrix with the given trace and
 * largest diagonal entry (both >= 0): γ·tr + max(4n(2(n + 1) + maxDiag), 6n(n + maxDiag))·η.
 * Infinity when the trace overflowed.
 */
export function isspdShift(n: number, trace: number, maxDiag: number): number {
  const k = (n + 1) * U; // exact: an integer times a power of two
  const gamma = up(k / down(1 - 2 * k));
  const etaRump = up(up(4 * n * ETA) * up(2 * (n + 1) + maxDiag));
  const etaIntlab = up(up(6 * n * ETA) * up(n + maxDiag));
  return up(up(gamma * trace) + Math.max(etaRump, etaIntlab));
}

/**
 * D·A·D with D_ii = 2^(−⌈log2(a_ii)/2⌉) (so 1/4 <= scaled a_ii < 1), lower triangle and diagonal
 * only, or undefined when some scaled entry would not be exact (it became subnormal or zero).
 */
function vanDerSluis(A: Float64Array, n: number): Float64Array | undefined {
  const e = new Int32Array(n);
  for (let i = 0; i < n; i++) e[i] = -Math.ceil(0.5 * Math.log2(A[i * n + i]!));
  const B = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j <= i; j++) {
      const s = 2 ** (e[i]! + e[j]!);
      const a = A[row + j]!;
      const b = a * s;
      if (b / s !== a) return undefined; // scaling down lost bits of a subnormal result
      B[row + j] = b;
    }
  }
  return B;
}

/**
 * Rows j and j1 of L = Rᵀ left of column j (j1 = j + 1, or j itself for a last odd row):
 * l_ji = (a_ji − Σ_{k<i} l_ik·l_jk)/l_ii for i < j. Each entry is the theorem's sum, term by term
 * in the order k = 0, 1, …; the two rows only run side by side (independent dependency chains).
 */
function rowPair(A: Float64Array, L: Float64Array, n: number, j: number, j1: number): void {
  const r0 = j * n;
  const r1 = j1 * n;
  for (let i = 0; i < j; i++) {
    const ri = i * n;
    let s0 = A[r0 + i]!;
    let s1 = A[r1 + i]!;
    for (let k = 0; k < i; k++) {
      const l = L[ri + k]!;
      s0 -= l * L[r0 + k]!;
      s1 -= l * L[r1 + k]!;
    }
    const d = L[ri + i]!;
    L[r0 + i] = s0 / d;
    L[r1 + i] = s1 / d;
  }
}

/** The pivot of row j, down(a_jj − c) − Σ_{k<j} l_jk², and l_jj = √ of it; false when it is not > 0. */
function pivot(A: Float64Array, L: Float64Array, n: number, j: number, c: number): boolean {
  const rj = j * n;
  let s = down(A[rj + j]! - c);
  for (let k = 0; k < j; k++) {
    const l = L[rj + k]!;
    s -= l * l;
  }
  if (!(s > 0)) return false;
  L[rj + j] = Math.sqrt(s);
  return true;
}

/**
 * The floating-point Cholesky of Ã (Ã = A off the diagonal, ã_jj = down(a_jj − c)), row by row
 * into L = Rᵀ (row-major, so every sum runs along contiguous rows), two rows at a time. True
 * when every pivot is > 0.
 */
function choleskyShifted(A: Float64Array, n: number, c: number): boolean {
  const L = new Float64Array(n * n);
  for (let j = 0; j < n; j += 2) {
    const j1 = Math.min(j + 1, n - 1);
    rowPair(A, L, n, j, j1);
    if (!pivot(A, L, n, j, c)) return false;
    if (j1 === j) break;
    const r0 = j * n;
    const r1 = j1 * n;
    let s = A[r1 + j]!;
    for (let k = 0; k < j; k++) s -= L[r0 + k]! * L[r1 + k]!;
    L[r1 + j] = s / L[r0 + j]!;
    if (!pivot(A, L, n, j1, c)) return false;
  }
  return true;
}

/** Trace (rounded up), smallest and largest diagonal entry, and whether the lower triangle is finite. */
function diagonalStats(
  A: Float64Array,
  n: number,
): { trace: number; minDiag: number; maxDiag: number; finite: boolean } {
  let trace = 0;
  let minDiag = Infinity;
  let maxDiag = 0;
  let nf = 0;
  for (let i = 0; i < n; i++) {
    const d = A[i * n + i]!;
    trace = up(trace + d);
    minDiag = Math.min(minDiag, d);
    maxDiag = Math.max(maxDiag, d);
    for (let j = 0; j <= i; j++) nf += A[i * n + j]! * 0;
  }
  return { trace, minDiag, maxDiag, finite: nf === 0 };
}

/**
 * Rump's test on the symmetric matrix whose lower triangle and diagonal are those of A (n×n,
 * row-major; the upper triangle is not read). True only when that matrix is proved positive
 * definite; false means "not proved" (a non-positive or non-finite diagonal entry, a non-finite
 * entry, or a failed pivot).
 */
export function isspdLower(A: Float64Array, n: number): boolean {
  if (n === 0) return true;
  let st = diagonalStats(A, n);
  if (!st.finite || !(st.minDiag > 0) || st.maxDiag === Infinity) return false;
  if (n === 1) return true; // a positive 1×1 matrix
  let B = A;
  if (st.maxDiag / st.minDiag > Math.sqrt(n) && st.maxDiag <= 1e100 && st.minDiag >= 1e-100) {
    const scaled = vanDerSluis(A, n);
    if (scaled !== undefined) {
      B = scaled;
      st = diagonalStats(B, n);
    }
  }
  const c = isspdShift(n, st.trace, st.maxDiag);
  if (!(c < Infinity)) return false;
  return choleskyShifted(B, n, c);
}

/**
 * Proves the symmetric matrix A (n×n, row-major, its entries taken as exact reals) positive
 * definite by Rump's test (BIT 46 (2006), Corollary 2.4; see this module's header for the
 * theorem and the shift c = γ_{n+1}/(1 − γ_{n+1})·tr(A) + max(4n(2(n + 1) + max a_ii),
 * 6n(n + max a_ii))·η). True is a proof; false means "not proved" — A may still be positive
 * definite but too ill-conditioned for the test (roughly λ_min(A) <= n·u·tr(A)), or have a
 * non-finite entry. Costs one Cholesky decomposition, n³/6 multiply-adds.
 * @throws ArgumentError when n is not a positive integer, A's length is not n², or A is not
 *   exactly symmetric.
 */
export function provePositiveDefinite(A: Float64Array, n: number): boolean {
  integerInRange('n', n, 1);
  if (A.length !== n * n) throw new ArgumentError('A', A, `must have length n² = ${n * n}, got ${A.length}`);
  if (firstNonFinite(A) >= 0) return false;
  assertSymmetric('A', A, n);
  return isspdLower(A, n);
}

/**
 * Throws an ArgumentError naming the first entry of the n×n matrix `name` that differs from its
 * mirror image (two NaN count as equal: a NaN entry means "no enclosure", which callers handle).
 */
export function assertSymmetric(name: string, A: Float64Array, n: number): void {
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) {
      const a = A[i * n + j]!;
      const b = A[j * n + i]!;
      if (a !== b && !(Number.isNaN(a) && Number.isNaN(b)))
        throw new ArgumentError(
          `${name}[${i * n + j}]`,
          a,
          `must equal ${name}[${j * n + i}] = ${b} (${name} must be symmetric)`,
        );
    }
}
