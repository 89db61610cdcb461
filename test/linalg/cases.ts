/**
 * Tagged case catalogue for the linalg tests, plus small exact helpers. Every matrix is built
 * from a fixed seed or a closed formula; expected values are derived here, not stored.
 *
 * Tags: 'size-0', '1x1', 'rank-deficient', 'ill-conditioned', 'clustered', 'straddle', 'scaled',
 * 'wide', 'tall'.
 */
import { createRng, seededNormals } from '../../src/ordergap/rng.js';
import { linalgKernels } from '../../src/linalg/wasmKernels.js';
import { wasm } from '../../src/wasm/module.js';

export const EPS = Number.EPSILON;

/** Seeded standard normals (src/ordergap/rng.ts). */
export const randn = seededNormals;

/** Hilbert matrix H_ij = 1/(i + j + 1). */
export function hilbert(n: number): Float64Array {
  const H = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) H[i * n + j] = 1 / (i + j + 1);
  return H;
}

function binom(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 0; i < k; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return r;
}

/**
 * The exact inverse of the Hilbert matrix (integer entries, computed in BigInt):
 * (H⁻¹)_ij = (−1)^(i+j) (i+j+1) C(n+i, n−j−1) C(n+j, n−i−1) C(i+j, i)², 0-based.
 * Rounded to f64 once per entry (relative error <= eps/2 each).
 */
export function invHilbert(n: number): Float64Array {
  const X = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const c = binom(i + j, i);
      const v = BigInt(i + j + 1) * binom(n + i, n - j - 1) * binom(n + j, n - i - 1) * c * c;
      X[i * n + j] = Number((i + j) % 2 === 0 ? v : -v);
    }
  return X;
}

/** Wilkinson W_n^+ (n odd): diagonal |i − (n−1)/2|, ones on the off-diagonals. */
export function wilkinsonPlus(n: number): Float64Array {
  const W = new Float64Array(n * n);
  const h = (n - 1) / 2;
  for (let i = 0; i < n; i++) {
    W[i * n + i] = Math.abs(i - h);
    if (i + 1 < n) {
      W[i * n + i + 1] = 1;
      W[(i + 1) * n + i] = 1;
    }
  }
  return W;
}

/** Sylvester Hadamard matrix of order n (a power of two) divided by √n: exactly orthogonal when n is a power of 4. */
export function hadamard(n: number): Float64Array {
  const H = new Float64Array(n * n);
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let b = i & j;
      let p = 0;
      while (b) {
        p ^= b & 1;
        b >>= 1;
      }
      H[i * n + j] = p ? -s : s;
    }
  return H;
}

/** A (rows×cols) with column `dep` = column a + column b exactly (entries small integers, seeded). */
export function rankLoss(seed: number, rows: number, cols: number, a: number, b: number, dep: number): Float64Array {
  const rng = createRng(seed);
  const A = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) A[i * cols + j] = Math.floor(rng.next() * 19) - 9; // integers: the sum is exact
  for (let i = 0; i < rows; i++) A[i * cols + dep] = A[i * cols + a]! + A[i * cols + b]!;
  return A;
}

/** Naive product (row-major) in plain loops: the test's own reference. */
export function matmul(A: ArrayLike<number>, B: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const C = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) {
      const a = A[i * k + p]!;
      for (let j = 0; j < n; j++) C[i * n + j]! += a * B[p * n + j]!;
    }
  return C;
}

export function transpose(A: ArrayLike<number>, m: number, n: number): Float64Array {
  const T = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) T[j * m + i] = A[i * n + j]!;
  return T;
}

/** max |x_i| */
export function maxAbs(x: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i]!));
  return m;
}

/** Frobenius norm (plain; callers use moderate values). */
export function frob(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s);
}

/** max |(QᵀQ − I)_ij| for Q m×k (columns). */
export function orthoError(Q: ArrayLike<number>, m: number, k: number): number {
  let e = 0;
  for (let a = 0; a < k; a++)
    for (let b = 0; b < k; b++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += Q[i * k + a]! * Q[i * k + b]!;
      e = Math.max(e, Math.abs(s - (a === b ? 1 : 0)));
    }
  return e;
}

/**
 * Edge cases of f64 (tag 'edge'): what the reproducers and the edge-block subspaces of
 * certification are made of. Each case carries its exact singular values (derived in the comment,
 * not measured) or the relation they satisfy.
 */
export interface EdgeCase {
  readonly name: string;
  readonly rows: number;
  readonly cols: number;
  readonly A: Float64Array;
  /** Exact singular values, descending (min(rows, cols)), when closed-form. */
  readonly sigma: readonly number[];
  /** Exact rank with the default tolerance. */
  readonly rank: number;
}

/** A = H·diag(d) with H the 4×4 Hadamard/2 (exactly orthogonal): σ = |d| sorted. */
function orthogonalColumns(d: number[]): Float64Array {
  const H = hadamard(4);
  const A = new Float64Array(16);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) A[i * 4 + j] = H[i * 4 + j]! * d[j]!;
  return A;
}

export const edgeCases: readonly EdgeCase[] = [
  // c·ones(3, 3) = c·3·(u uᵀ), u = ones/√3: σ = (3c, 0, 0)
  {
    name: '3×3 filled with 1e-300',
    rows: 3,
    cols: 3,
    A: new Float64Array(9).fill(1e-300),
    sigma: [3e-300, 0, 0],
    rank: 1,
  },
  // [[ε, 1], [0, 1]]: σ1² + σ2² = 2 + ε², σ1·σ2 = ε → σ1 = √2 (to eps), σ2 = ε/σ1; ε subnormal
  {
    name: '[[1e-310, 1], [0, 1]] (a subnormal pivot)',
    rows: 2,
    cols: 2,
    A: Float64Array.of(1e-310, 1, 0, 1),
    sigma: [Math.SQRT2, 1e-310 / Math.SQRT2],
    rank: 1,
  },
  // four equal rows r = c·[1, 2, 3, 4]: A = 1·rᵀ (rank one), σ1 = ||1||·||r|| = 2·c·√30
  {
    name: 'four equal rows [1, 2, 3, 4]·1e-300',
    rows: 4,
    cols: 4,
    A: Float64Array.from({ length: 16 }, (_, k) => ((k % 4) + 1) * 1e-300),
    sigma: [2 * Math.sqrt(30) * 1e-300, 0, 0, 0],
    rank: 1,
  },
  // orthogonal columns of norms 1e300 … 1e-300: σ = the column norms, each to relative accuracy
  // (Jacobi on Rᵀ is column-scaling invariant); the default tolerance keeps only 1e300
  {
    name: 'orthogonal columns of norms 1e300, 1e100, 1e-100, 1e-300',
    rows: 4,
    cols: 4,
    A: orthogonalColumns([1e-100, 1e300, 1e-300, 1e100]),
    sigma: [1e300, 1e100, 1e-100, 1e-300],
    rank: 1,
  },
  // a subnormal column next to unit ones: σ = (1, 1, 1, 1e-310) (orthogonal columns)
  {
    name: 'orthogonal columns with a subnormal one',
    rows: 4,
    cols: 4,
    A: orthogonalColumns([1, 1e-310, 1, 1]),
    sigma: [1, 1, 1, 1e-310],
    rank: 3,
  },
  // exactly zero columns between nonzero ones: σ = the nonzero column norms (orthogonal), then 0
  {
    name: 'exactly zero columns',
    rows: 4,
    cols: 4,
    A: orthogonalColumns([0, 3, 0, 2]),
    sigma: [3, 2, 0, 0],
    rank: 2,
  },
  // entries ~1e300: no overflow in the QR, the Jacobi or the norms
  {
    name: 'orthogonal columns of norm ~1e300',
    rows: 4,
    cols: 4,
    A: orthogonalColumns([1e300, 2e300, 4e300, 8e300]),
    sigma: [8e300, 4e300, 2e300, 1e300],
    rank: 4,
  },
  // the zero matrix
  { name: 'zero 3×2', rows: 3, cols: 2, A: new Float64Array(6), sigma: [0, 0], rank: 0 },
];

/**
 * The wasm kernel with an explicit panel width and eigenvector method (assembly/linalg/dsyev.ts):
 * values ascending and, unless values only, V with column j the eigenvector of values[j].
 */
export function kernelSyev(
  S: Float64Array,
  n: number,
  panel: number,
  method: number,
): { it: number; values: Float64Array; V: Float64Array } {
  const { arena } = wasm();
  const k = linalgKernels();
  return arena.scope((s) => {
    const a = s.from(S);
    const v = s.alloc(n);
    const vt = s.alloc(n * n, 0);
    const it = k.dsyev(a.ptr, n, v.ptr, vt.ptr, s.alloc(k.dsyevWork(n, panel)).ptr, panel, method);
    const VT = Float64Array.from(vt.view);
    const V = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) V[i * n + j] = VT[j * n + i]!;
    return { it, values: Float64Array.from(v.view), V };
  });
}
