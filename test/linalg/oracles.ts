/**
 * Independent oracles for the iterative eigen- and singular-value kernels (docs/linalg.md, "Twin
 * policy"): methods that share no code and no algorithm with either backend, each with its own
 * accuracy stated where it is defined, so a test can hold the wasm kernel and the reference
 * backend to the same outside value.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { safeScale } from '../../src/linalg/shape.js';

const EPS = Number.EPSILON;

/**
 * Bisects each value on a geometric scale (arithmetic near 0) until its bracket is 2 ulps wide:
 * `below(x)` counts the values < x; values are returned descending, `count` of them, all in
 * (0, hi]. Cost O(count·log(range)) calls of `below`.
 */
function bisectDescending(count: number, hi: number, below: (x: number) => number): Float64Array {
  return Float64Array.from({ length: count }, (_, k) => {
    // value k (descending) is the (count−k)-th smallest: the smallest x with below(x) >= count − k
    let lo = Number.MIN_VALUE;
    let up = hi * (1 + 4 * EPS);
    while (up - lo > 2 * EPS * up) {
      const mid = lo < 1e-300 * up ? Math.sqrt(lo) * Math.sqrt(up) : lo + (up - lo) / 2;
      const x = mid > lo && mid < up ? mid : lo + (up - lo) / 2;
      if (below(x) >= count - k) up = x;
      else lo = x;
    }
    return up;
  });
}

/**
 * Singular values (descending, all > 0 assumed) of the upper bidiagonal with diagonal d and
 * superdiagonal e (m values each, e[m−1] unused) by Kahan's bisection on the zero-diagonal
 * Golub–Kahan tridiagonal, which Demmel–Kahan (1990, §5) show to be RELATIVELY accurate: each σ
 * to a few ulps of itself, however small against σ_max. The Sturm pivots are p_0 = −x,
 * p_i = −x − b_{i−1}·(b_{i−1}/p_{i−1}) (b = d_0, e_0, d_1, …; the quotient first, so nothing
 * squares and underflows at 1e-300); #{σ < x} = (negative pivots) − m. Cost O(m²·log).
 */
export function bidiagonalBisection(d: Float64Array, e: Float64Array, m: number): Float64Array {
  let hi = 0;
  for (let i = 0; i < m; i++)
    hi = Math.max(hi, Math.abs(d[i]!) + (i > 0 ? Math.abs(e[i - 1]!) : 0) + (i < m - 1 ? Math.abs(e[i]!) : 0));
  const below = (x: number): number => {
    let count = 0;
    let p = -x;
    if (p < 0) count++;
    for (let i = 1; i < 2 * m; i++) {
      const b = i % 2 === 1 ? d[(i - 1) / 2]! : e[i / 2 - 1]!;
      if (p === 0) p = -Number.MIN_VALUE;
      p = -x - b * (b / p);
      if (p < 0) count++;
    }
    return count - m;
  };
  return bisectDescending(m, hi, below);
}

/**
 * Eigenvalues (ascending) of the symmetric tridiagonal with diagonal d and off-diagonal e (n and
 * n − 1 values, e[i] coupling i and i + 1) by Sturm-count bisection: the pivots of T − xI,
 * q_0 = d_0 − x, q_i = (d_i − x) − e_{i−1}²/q_{i−1}, have as many negative entries as T has
 * eigenvalues below x (Sylvester's law of inertia), and the computed count is exact for a matrix
 * within a few eps·||T|| of T (Kahan; Demmel, Applied Numerical Linear Algebra, §5.3.4): each
 * eigenvalue to within c·eps·||T||_∞, c ~ 4. The bracket is [−g, g], g the Gershgorin bound,
 * bisected to 2·eps·g. For moderate entries (the squares e_i² neither overflow nor underflow).
 * Cost O(n²·log).
 */
export function tridiagonalBisection(d: ArrayLike<number>, e: ArrayLike<number>, n: number): Float64Array {
  let g = 0;
  for (let i = 0; i < n; i++)
    g = Math.max(g, Math.abs(d[i]!) + (i > 0 ? Math.abs(e[i - 1]!) : 0) + (i < n - 1 ? Math.abs(e[i]!) : 0));
  const pivmin = Number.MIN_VALUE / EPS;
  const below = (x: number): number => {
    let count = 0;
    let q = d[0]! - x;
    if (q < 0) count++;
    for (let i = 1; i < n; i++) {
      if (Math.abs(q) < pivmin) q = -pivmin;
      q = d[i]! - x - (e[i - 1]! * e[i - 1]!) / q;
      if (q < 0) count++;
    }
    return count;
  };
  return Float64Array.from({ length: n }, (_, k) => {
    let lo = -g * (1 + 4 * EPS) - Number.MIN_VALUE;
    let up = g * (1 + 4 * EPS) + Number.MIN_VALUE;
    while (up - lo > 2 * EPS * g) {
      const mid = lo + (up - lo) / 2;
      if (mid <= lo || mid >= up) break;
      if (below(mid) >= k + 1) up = mid;
      else lo = mid;
    }
    return lo + (up - lo) / 2;
  });
}

/** The diagonal and off-diagonal of a symmetric tridiagonal S (n×n row-major). */
export function tridiagonalOf(S: Float64Array, n: number): { d: Float64Array; e: Float64Array } {
  return {
    d: Float64Array.from({ length: n }, (_, i) => S[i * n + i]!),
    e: Float64Array.from({ length: Math.max(0, n - 1) }, (_, i) => S[i * n + i + 1]!),
  };
}

/**
 * Singular values (descending, min(rows, cols) of them) of A (rows×cols row-major) by ml-matrix's
 * SVD (JAMA's Golub–Kahan–Reinsch: Householder bidiagonalisation and implicit-shift QR on the
 * bidiagonal), on A scaled exactly by a power of two to max|a| in [1, 2) and unscaled after, so
 * entries near 1e±300 neither overflow nor flush. Normwise backward stable: within
 * c·max(rows, cols)·eps·σ_max of the exact values (measured against relatively accurate Jacobi:
 * c <= 0.6 on random 48…200-sided matrices; the tests allow the BOUND of the path they check).
 */
export function svdvalsOracle(A: Float64Array, rows: number, cols: number): Float64Array {
  let amax = 0;
  for (const x of A) amax = Math.max(amax, Math.abs(x));
  const s = safeScale(amax);
  const M = new Matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) M.set(i, j, A[i * cols + j]! * s);
  const svd = new SingularValueDecomposition(M, {
    computeLeftSingularVectors: false,
    computeRightSingularVectors: false,
    autoTranspose: true,
  });
  return Float64Array.from(svd.diagonal.slice(0, Math.min(rows, cols)), (x) => x / s)
    .sort()
    .reverse();
}
