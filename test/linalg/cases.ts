/**
 * The tagged case catalogue of the linalg tests (STYLE.md, "Keep a tagged case catalogue"): lists
 * of entries `{ name, tags, build }` and a filter, {@link cases} (dense matrices, general and
 * symmetric), {@link bidiagonals} (upper bidiagonals d, e) and {@link patterns} (f64 value patterns
 * laid onto a kernel's own shapes). A test selects its matrices by tags — `cases({ tags:
 * ['ill-conditioned'], exclude: ['symmetric'] })` — and runs every entry that matches; what is
 * known about an entry in closed form (σ, λ, rank, a null vector, an exact inverse) travels with
 * it. Every matrix is built from a fixed seed or a closed formula; expected values are derived
 * here, not stored. The builders are exported for the sweeps over a kernel's own sizes (its
 * blocking, its leaf size), which stay with that kernel's test. Plus small exact helpers.
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

/** A (rows×cols) with column `dep` = column a + column b exactly (entries small integers, seeded): rank loss by construction. */
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

/** What a tag says about an entry. */
export type CaseTag =
  /** Seeded Gaussian entries. */
  | 'random'
  /** Numerically rank-deficient by construction (exact dependencies, zero columns or pivots). */
  | 'rank-deficient'
  /** Its singular values (or eigenvalues) are known in closed form: `sigma` / `lambda`. */
  | 'exact-rank'
  /** κ >= 1e10 (Hilbert matrices, spectra graded over 12 decades or more). */
  | 'ill-conditioned'
  /** Entries or values graded over many orders of magnitude. */
  | 'graded'
  /** Eigenvalues or singular values in tight clusters or of high multiplicity. */
  | 'clustered'
  /** Entries of 1e-100 and below (normal). */
  | 'tiny'
  /** Entries of 1e100 and above. */
  | 'huge'
  /** Subnormal entries. */
  | 'subnormal'
  /** Exactly zero entries where a kernel divides or scales (zero columns, pivots, matrices). */
  | 'zero'
  /** Small integers: products and sums exact in f64. */
  | 'integer'
  /** Symmetric (for eigh). */
  | 'symmetric'
  /** Symmetric tridiagonal (the Sturm-count oracle applies). */
  | 'tridiagonal'
  /** A 2m×m stack, as the R of the streaming QR sees it. */
  | 'stack'
  /** rows > cols. */
  | 'tall'
  /** rows < cols. */
  | 'wide'
  /** The f64 edge catalogue of the rank path (edge-block subspaces of certification). */
  | 'edge'
  /** A zero off-diagonal splits it into independent blocks. */
  | 'split'
  /** −0 entries next to +0. */
  | 'signed-zero';

/** One catalogue entry: a name for the test title, its tags, and how to build it. */
export interface CatalogueEntry<T> {
  readonly name: string;
  readonly tags: readonly CaseTag[];
  readonly build: () => T;
}

/** Selects entries carrying every tag of `tags` and none of `exclude`. */
export interface CaseFilter {
  readonly tags?: readonly CaseTag[];
  readonly exclude?: readonly CaseTag[];
}

function select<T>(list: readonly CatalogueEntry<T>[], filter: CaseFilter): CatalogueEntry<T>[] {
  const { tags = [], exclude = [] } = filter;
  const out = list.filter((c) => tags.every((t) => c.tags.includes(t)) && !exclude.some((t) => c.tags.includes(t)));
  // a filter that selects nothing would make the tests that loop over it pass vacuously
  if (out.length === 0) throw new Error(`no catalogue entry has tags ${tags.join(', ')} without ${exclude.join(', ')}`);
  return out;
}

/** A dense test matrix and what is known about it exactly. */
export interface DenseCase {
  readonly rows: number;
  readonly cols: number;
  /** rows×cols row-major. */
  readonly A: Float64Array;
  /** Exact singular values, descending (min(rows, cols) of them), when closed-form. */
  readonly sigma?: readonly number[];
  /** Exact eigenvalues, ascending (symmetric cases), when closed-form. */
  readonly lambda?: readonly number[];
  /** Exact rank with the default tolerance. */
  readonly rank?: number;
  /** A unit vector spanning the exact null space (nullity 1). */
  readonly nullVector?: readonly number[];
  /** The exact inverse, each entry rounded once (Hilbert). */
  readonly inverse?: Float64Array;
}

/** Seeded symmetric S = X + Xᵀ (X standard normal). */
export function randomSymmetric(seed: number, n: number): Float64Array {
  const X = randn(seed, n * n);
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) S[i * n + j] = X[i * n + j]! + X[j * n + i]!;
  return S;
}

/**
 * S = H·diag(λ)·H with H = I − 2uuᵀ/uᵀu for a seeded u (orthogonal to rounding): eigenvalues λ,
 * each entry formed with rounding ~n·eps·max|λ|.
 */
export function withSpectrum(seed: number, lambda: readonly number[]): Float64Array {
  const n = lambda.length;
  const u = randn(seed, n);
  const uu = u.reduce((a, x) => a + x * x, 0);
  const Hu = u.map((x) => x * Math.sqrt(2 / uu));
  // H diag(λ) H = diag(λ) − w·ûᵀ − û·wᵀ + (ûᵀΛû)·ûûᵀ with w = Λû (û = u·sqrt(2/uu))
  const w = Hu.map((x, i) => lambda[i]! * x);
  const q = Hu.reduce((a, x, i) => a + x * w[i]!, 0);
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      S[i * n + j] = (i === j ? lambda[i]! : 0) - w[i]! * Hu[j]! - Hu[i]! * w[j]! + q * Hu[i]! * Hu[j]!;
  return S;
}

/** k copies of W21+ on the diagonal, consecutive copies glued by off-diagonals δ (LAPACK's tester). */
export function gluedWilkinson(k: number, delta: number): Float64Array {
  const b = 21;
  const n = k * b;
  const W = wilkinsonPlus(b);
  const S = new Float64Array(n * n);
  for (let c = 0; c < k; c++)
    for (let i = 0; i < b; i++) for (let j = 0; j < b; j++) S[(c * b + i) * n + c * b + j] = W[i * b + j]!;
  for (let c = 1; c < k; c++) {
    const i = c * b;
    S[(i - 1) * n + i] = delta;
    S[i * n + i - 1] = delta;
  }
  return S;
}

/**
 * A seeded 2m×m Gaussian stack with exact column dependencies: column deps[0] = column 1 +
 * column 2 (rounded once) and, if given, column deps[1] = 2·column 3 (exact). Numerical rank m −
 * deps.length, the columns balanced (norms within a factor ~2).
 */
export function dependentStack(seed: number, m: number, deps: readonly number[] = [m - 1, m - 2]): Float64Array {
  const rows = 2 * m;
  const A = randn(seed, rows * m);
  for (let r = 0; r < rows; r++) {
    if (deps.length > 0) A[r * m + deps[0]!] = A[r * m + 1]! + A[r * m + 2]!;
    if (deps.length > 1) A[r * m + deps[1]!] = 2 * A[r * m + 3]!;
  }
  return A;
}

/** A = H·diag(d) with H the 4×4 Hadamard/2 (exactly orthogonal): σ = |d| sorted. */
function orthogonalColumns(d: number[]): Float64Array {
  const H = hadamard(4);
  const A = new Float64Array(16);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) A[i * 4 + j] = H[i * 4 + j]! * d[j]!;
  return A;
}

/** A = H_m(:, :cols)·diag(σ) (rows = m, Hadamard / √m exactly orthogonal for m = 4^k): exact σ. */
export function withSingularValues(m: number, sigma: readonly number[]): Float64Array {
  const H = hadamard(m);
  const c = sigma.length;
  const A = new Float64Array(m * c);
  for (let i = 0; i < m; i++) for (let j = 0; j < c; j++) A[i * c + j] = H[i * m + j]! * sigma[j]!;
  return A;
}

/**
 * A = diag(σ)·H (rows of the orthogonal Hadamard matrix scaled): σ(A) = σ exactly up to H's
 * rounding, and every column of A has the same norm ||σ||/√m (balanced columns).
 */
function gradedRows(sigma: readonly number[]): Float64Array {
  const m = sigma.length;
  const H = hadamard(m);
  const A = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) A[i * m + j] = sigma[i]! * H[i * m + j]!;
  return A;
}

const dense = (rows: number, cols: number, A: Float64Array, facts: Partial<DenseCase> = {}): DenseCase => ({
  rows,
  cols,
  A,
  ...facts,
});

/** The edge cases of f64 for the rank path: each with its exact σ (derived in the comment) and rank. */
const EDGE: CatalogueEntry<DenseCase>[] = [
  // c·ones(3, 3) = c·3·(u uᵀ), u = ones/√3: σ = (3c, 0, 0)
  {
    name: '3×3 filled with 1e-300',
    tags: ['edge', 'tiny', 'rank-deficient', 'exact-rank'],
    build: () => dense(3, 3, new Float64Array(9).fill(1e-300), { sigma: [3e-300, 0, 0], rank: 1 }),
  },
  // [[ε, 1], [0, 1]]: σ1² + σ2² = 2 + ε², σ1·σ2 = ε → σ1 = √2 (to eps), σ2 = ε/σ1; ε subnormal
  {
    name: '[[1e-310, 1], [0, 1]] (a subnormal pivot)',
    tags: ['edge', 'subnormal', 'rank-deficient', 'exact-rank'],
    build: () => dense(2, 2, Float64Array.of(1e-310, 1, 0, 1), { sigma: [Math.SQRT2, 1e-310 / Math.SQRT2], rank: 1 }),
  },
  // four equal rows r = c·[1, 2, 3, 4]: A = 1·rᵀ (rank one), σ1 = ||1||·||r|| = 2·c·√30
  {
    name: 'four equal rows [1, 2, 3, 4]·1e-300',
    tags: ['edge', 'tiny', 'rank-deficient', 'exact-rank'],
    build: () =>
      dense(
        4,
        4,
        Float64Array.from({ length: 16 }, (_, k) => ((k % 4) + 1) * 1e-300),
        { sigma: [2 * Math.sqrt(30) * 1e-300, 0, 0, 0], rank: 1 },
      ),
  },
  // orthogonal columns of norms 1e300 … 1e-300: σ = the column norms, each to relative accuracy
  // (Jacobi on Rᵀ is column-scaling invariant); the default tolerance keeps only 1e300
  {
    name: 'orthogonal columns of norms 1e300, 1e100, 1e-100, 1e-300',
    tags: ['edge', 'huge', 'tiny', 'graded', 'rank-deficient', 'exact-rank'],
    build: () =>
      dense(4, 4, orthogonalColumns([1e-100, 1e300, 1e-300, 1e100]), {
        sigma: [1e300, 1e100, 1e-100, 1e-300],
        rank: 1,
      }),
  },
  // a subnormal column next to unit ones: σ = (1, 1, 1, 1e-310) (orthogonal columns)
  {
    name: 'orthogonal columns with a subnormal one',
    tags: ['edge', 'subnormal', 'rank-deficient', 'exact-rank'],
    build: () => dense(4, 4, orthogonalColumns([1, 1e-310, 1, 1]), { sigma: [1, 1, 1, 1e-310], rank: 3 }),
  },
  // exactly zero columns between nonzero ones: σ = the nonzero column norms (orthogonal), then 0
  {
    name: 'exactly zero columns',
    tags: ['edge', 'zero', 'rank-deficient', 'exact-rank'],
    build: () => dense(4, 4, orthogonalColumns([0, 3, 0, 2]), { sigma: [3, 2, 0, 0], rank: 2 }),
  },
  // entries ~1e300: no overflow in the QR, the Jacobi or the norms
  {
    name: 'orthogonal columns of norm ~1e300',
    tags: ['edge', 'huge', 'exact-rank'],
    build: () =>
      dense(4, 4, orthogonalColumns([1e300, 2e300, 4e300, 8e300]), { sigma: [8e300, 4e300, 2e300, 1e300], rank: 4 }),
  },
  // the zero matrix
  {
    name: 'zero 3×2',
    tags: ['edge', 'zero', 'tall', 'rank-deficient', 'exact-rank'],
    build: () => dense(3, 2, new Float64Array(6), { sigma: [0, 0], rank: 0 }),
  },
];

/** Dense matrices for the SVD, rank and QR paths. */
const GENERAL: CatalogueEntry<DenseCase>[] = [
  ...(
    [
      [30, 10, 'tall'],
      [10, 30, 'wide'],
      [17, 17, 'random'],
    ] as const
  ).map(
    ([rows, cols, shape]): CatalogueEntry<DenseCase> => ({
      name: `Gaussian ${rows}×${cols}`,
      tags: shape === 'random' ? ['random'] : ['random', shape],
      build: () => dense(rows, cols, randn(rows * 100 + cols, rows * cols), { rank: Math.min(rows, cols) }),
    }),
  ),
  // Orthogonal columns scaled by σ_j = 10^-j: Jacobi after QR is column-scaling invariant, so every
  // σ comes back with a relative error of a small multiple of m·eps, 1e-15 included.
  {
    name: 'orthogonal columns graded 1 … 1e-15 (16×16)',
    tags: ['graded', 'ill-conditioned', 'exact-rank'],
    build: () => {
      const sigma = Array.from({ length: 16 }, (_, j) => 10 ** -j);
      return dense(16, 16, withSingularValues(16, sigma), { sigma });
    },
  },
  // column 8 = column 0 + column 5 of small integers: rank 8, null vector ∝ e_0 + e_5 − e_8
  {
    name: 'integer 40×9, column 8 = column 0 + column 5',
    tags: ['rank-deficient', 'integer', 'tall'],
    build: () => {
      const v = 1 / Math.sqrt(3);
      return dense(40, 9, rankLoss(7, 40, 9, 0, 5, 8), { rank: 8, nullVector: [-v, 0, 0, 0, 0, -v, 0, 0, v] });
    },
  },
  {
    name: 'integer 20×6, column 4 = column 1 + column 2',
    tags: ['rank-deficient', 'integer', 'tall'],
    build: () => dense(20, 6, rankLoss(3, 20, 6, 1, 2, 4), { rank: 5 }),
  },
  {
    name: 'integer 500×12, column 10 = column 3 + column 7',
    tags: ['rank-deficient', 'integer', 'tall'],
    build: () => {
      const v = 1 / Math.sqrt(3);
      const nullVector = new Array<number>(12).fill(0);
      [nullVector[3], nullVector[7], nullVector[10]] = [-v, -v, v];
      return dense(500, 12, rankLoss(2024, 500, 12, 3, 7, 10), { rank: 11, nullVector });
    },
  },
  // Gaussian stacks whose R the bidiagonal path takes (m >= 48, balanced columns)
  ...[48, 64, 101, 160, 200].map(
    (m): CatalogueEntry<DenseCase> => ({
      name: `Gaussian stack ${2 * m}×${m}`,
      tags: ['random', 'stack', 'tall'],
      build: () => dense(2 * m, m, randn(m, 2 * m * m), { rank: m }),
    }),
  ),
  ...[64, 160].map(
    (m): CatalogueEntry<DenseCase> => ({
      name: `stack ${2 * m}×${m} with two exact dependencies`,
      tags: ['random', 'stack', 'tall', 'rank-deficient'],
      build: () => dense(2 * m, m, dependentStack(m + 3, m), { rank: m - 2 }),
    }),
  ),
  // columns graded by 4^(c/(m−1)): ratio 4, within the preconditioning bound of 16
  ...[64, 160].map(
    (m): CatalogueEntry<DenseCase> => ({
      name: `stack ${2 * m}×${m} with columns graded over a factor 4`,
      tags: ['random', 'stack', 'tall', 'graded'],
      build: () => {
        const A = randn(m + 2, 2 * m * m);
        for (let r = 0; r < 2 * m; r++) for (let c = 0; c < m; c++) A[r * m + c]! *= 4 ** (c / (m - 1));
        return dense(2 * m, m, A, { rank: m });
      },
    }),
  ),
  // σ_i = 10^(−12·i/(m−1)) (κ = 1e12) with equal column norms: the normwise (bidiagonal) path
  ...[64, 128].map(
    (m): CatalogueEntry<DenseCase> => ({
      name: `rows of a Hadamard matrix graded 1 … 1e-12 (${m}×${m})`,
      tags: ['graded', 'ill-conditioned', 'exact-rank'],
      build: () => {
        const sigma = Array.from({ length: m }, (_, i) => 10 ** ((-12 * i) / (m - 1)));
        return dense(m, m, gradedRows(sigma), { sigma });
      },
    }),
  ),
];

/** Symmetric matrices for eigh. */
const SYMMETRIC: CatalogueEntry<DenseCase>[] = [
  ...[2, 3, 7, 16, 40].map(
    (n): CatalogueEntry<DenseCase> => ({
      name: `random symmetric ${n}×${n}`,
      tags: ['random', 'symmetric'],
      build: () => dense(n, n, randomSymmetric(n, n)),
    }),
  ),
  // pairs of eigenvalues agreeing to ~1e-14; Σλ = tr W and Σλ² = ||W||_F² are integers
  ...[21, 41].map(
    (n): CatalogueEntry<DenseCase> => ({
      name: `Wilkinson W${n}+`,
      tags: ['symmetric', 'tridiagonal', 'clustered', 'integer'],
      build: () => dense(n, n, wilkinsonPlus(n)),
    }),
  ),
  // δ = 1e-14 is above the split test eps·sqrt(|d_i·d_{i+1}|) = 2.2e-15 at the glue but ρ·|z| below
  // the deflation tolerance 64·eps·max(|d|, |z|): merges that deflate every component
  ...[1e-14, 1e-10, 1e-3].map(
    (delta): CatalogueEntry<DenseCase> => ({
      name: `10 copies of W21+ glued by δ = ${delta}`,
      tags: ['symmetric', 'tridiagonal', 'clustered'],
      build: () => dense(210, 210, gluedWilkinson(10, delta)),
    }),
  ),
  // H⁻¹ is exact integers (cases.ts invHilbert), rounded once per entry: λ_min(H) = 1/λ_max(H⁻¹)
  ...[8, 9, 10, 11, 12].map(
    (n): CatalogueEntry<DenseCase> => ({
      name: `Hilbert ${n}×${n}`,
      tags: ['symmetric', 'ill-conditioned'],
      build: () => dense(n, n, hilbert(n), { inverse: invHilbert(n) }),
    }),
  ),
  // gaps 1/n: no deflation in divide and conquer
  {
    name: 'evenly spread spectrum λ_i = i/n − 1/2 (300×300)',
    tags: ['symmetric', 'exact-rank'],
    build: () => {
      const lambda = Array.from({ length: 300 }, (_, i) => i / 300 - 0.5);
      return dense(300, 300, withSpectrum(1, lambda), { lambda });
    },
  },
  // three eigenvalues of multiplicity 80, 60, 60 and a cluster 1e-14 wide: deflation
  {
    name: 'multiplicities 80, 60, 60 and a cluster 1e-14 wide (220×220)',
    tags: ['symmetric', 'clustered', 'exact-rank'],
    build: () => {
      const lambda = Array.from({ length: 220 }, (_, i) =>
        i < 80 ? -1 : i < 140 ? 0 : i < 200 ? 2 : 3 + (i - 200) * 1e-14,
      );
      return dense(220, 220, withSpectrum(2, lambda), { lambda });
    },
  },
  // a 0 of multiplicity 12 and a cluster 1e-14 apart: shifts of eigenvalues closer than their QL
  // accuracy must be pulled apart, or Gram–Schmidt against the cluster leaves rounding noise
  ...[70, 140].map(
    (n): CatalogueEntry<DenseCase> => ({
      name: `a zero of multiplicity 12 and a cluster 1e-14 apart (${n}×${n})`,
      tags: ['symmetric', 'clustered', 'rank-deficient', 'exact-rank'],
      build: () => {
        const lambda = Array.from({ length: n }, (_, i) => (i < 12 ? 0 : i < 20 ? 1 + (i - 12) * 1e-14 : i / n + 2));
        return dense(n, n, withSpectrum(n, lambda), { lambda: [...lambda].sort((a, b) => a - b) });
      },
    }),
  ),
];

const MATRICES: readonly CatalogueEntry<DenseCase>[] = [...EDGE, ...GENERAL, ...SYMMETRIC];

/**
 * The dense entries carrying every tag of `filter.tags` and none of `filter.exclude`.
 * @throws Error if none does (a loop over nothing would pass vacuously).
 * @example
 * ```ts
 * for (const c of cases({ tags: ['edge'] })) { const { A, rows, cols, sigma } = c.build(); ... }
 * ```
 */
export function cases(filter: CaseFilter = {}): CatalogueEntry<DenseCase>[] {
  return select(MATRICES, filter);
}

/**
 * The dense entry of this name (for a test that checks facts of one matrix).
 * @throws Error if there is none.
 */
export function caseNamed(name: string): CatalogueEntry<DenseCase> {
  const c = MATRICES.find((x) => x.name === name);
  if (!c) throw new Error(`no catalogue entry is named ${name}`);
  return c;
}

/** An upper bidiagonal of side m: diagonal d, superdiagonal e (m values each, e[m−1] = 0 unused), exact σ if known. */
export interface BidiagonalCase extends Pick<DenseCase, 'sigma'> {
  readonly d: Float64Array;
  readonly e: Float64Array;
  readonly m: number;
}

/** All-ones bidiagonal of side m times c: σ_k = 2c·cos(kπ/(2m+1)) (the path graph on 2m vertices). */
export function onesBidiagonal(m: number, c = 1): BidiagonalCase {
  return {
    d: new Float64Array(m).fill(c),
    e: new Float64Array(m).fill(c),
    m,
    sigma: Array.from({ length: m }, (_, k) => 2 * Math.cos(((k + 1) * Math.PI) / (2 * m + 1)) * c),
  };
}

/** The graded bidiagonal d_i = 10^(−5i)·(1 + (i mod 3)/4), e_i = 10^(−5i)·(0.3 + (i mod 2)/5), i < 61. */
function gradedBidiagonal(): BidiagonalCase {
  const m = 61;
  const d = Float64Array.from({ length: m }, (_, i) => 10 ** (-5 * i) * (1 + (i % 3) / 4));
  const e = Float64Array.from({ length: m }, (_, i) => (i < m - 1 ? 10 ** (-5 * i) * (0.3 + (i % 2) / 5) : 0));
  return { d, e, m };
}

/** Seeded bidiagonal d_i = 1 + |x|, e_i = x/2: well away from zero pivots. */
export function randomBidiagonal(seedD: number, seedE: number, m: number): BidiagonalCase {
  return {
    d: Float64Array.from(randn(seedD, m), (x) => 1 + Math.abs(x)),
    e: Float64Array.from(randn(seedE, m), (x) => x / 2),
    m,
  };
}

const BIDIAGONALS: readonly CatalogueEntry<BidiagonalCase>[] = [
  {
    name: 'graded 1 … 1e-300 (m = 61)',
    tags: ['graded', 'tiny'],
    build: gradedBidiagonal,
  },
  // the flip P·Bᵀ·P of an upper bidiagonal is upper bidiagonal with d and e reversed: same σ
  {
    name: 'graded 1e-300 … 1 (m = 61, the flip of the above)',
    tags: ['graded', 'tiny'],
    build: () => {
      const { d, e, m } = gradedBidiagonal();
      return {
        d: Float64Array.from({ length: m }, (_, i) => d[m - 1 - i]!),
        e: Float64Array.from({ length: m }, (_, i) => (i < m - 1 ? e[m - 2 - i]! : 0)),
        m,
      };
    },
  },
  ...[1, 2, 3, 7, 100, 300].map(
    (m): CatalogueEntry<BidiagonalCase> => ({
      name: `all ones, m = ${m}`,
      tags: ['exact-rank'],
      build: () => onesBidiagonal(m),
    }),
  ),
  ...(
    [
      [1e300, 'huge'],
      [1e-300, 'tiny'],
      [2 ** 1000, 'huge'],
      [2 ** -1000, 'tiny'],
    ] as const
  ).map(
    ([c, size]): CatalogueEntry<BidiagonalCase> => ({
      name: `all ones times ${c}, m = 40`,
      tags: ['exact-rank', size],
      build: () => onesBidiagonal(40, c),
    }),
  ),
  // det B = Π d_i = 0: σ_min = 0 exactly
  {
    name: 'a zero on the diagonal (m = 50)',
    tags: ['zero', 'rank-deficient'],
    build: () => ({
      d: Float64Array.from({ length: 50 }, (_, i) => (i === 20 ? 0 : 1 + (i % 7) / 8)),
      e: Float64Array.from({ length: 50 }, (_, i) => (i % 3) / 4 + 0.5),
      m: 50,
    }),
  },
  {
    name: 'a zero off-diagonal after row 11 (m = 30)',
    tags: ['random', 'split'],
    build: () => {
      const m = 30;
      const r = randn(7, 2 * m);
      const d = r.subarray(0, m).map((x) => x + 2);
      const e = r.subarray(m).map((x) => x / 2);
      e[11] = 0;
      e[m - 1] = 0;
      return { d, e, m };
    },
  },
  {
    name: 'random, m = 3',
    tags: ['random'],
    build: () => {
      const r = randn(3, 5);
      return { d: Float64Array.of(r[0]!, r[1]!, r[2]!), e: Float64Array.of(r[3]!, r[4]!, 0), m: 3 };
    },
  },
  {
    name: 'random d = 1 + |x|, e = x/2, m = 60',
    tags: ['random'],
    build: () => randomBidiagonal(41, 42, 60),
  },
];

/**
 * The upper bidiagonals carrying every tag of `filter.tags` and none of `filter.exclude`.
 * @throws Error if none does.
 */
export function bidiagonals(filter: CaseFilter = {}): CatalogueEntry<BidiagonalCase>[] {
  return select(BIDIAGONALS, filter);
}

/**
 * An f64 value pattern: a seeded vector of standard normals mapped to the edge of f64 it probes,
 * and the power-of-two scale a kernel should apply to it (1: none). A kernel's test lays it onto
 * its own shape (an upper triangle, a matrix operand).
 */
export interface ValuePattern {
  readonly map: (g: Float64Array) => Float64Array;
  /** Power-of-two scale for kernels that take one (1 where the pattern is meant unscaled). */
  readonly scale: number;
}

const PATTERNS: readonly CatalogueEntry<ValuePattern>[] = [
  { name: 'zero', tags: ['zero'], build: () => ({ map: (g) => new Float64Array(g.length), scale: 1 }) },
  {
    name: 'signed zeros and units',
    tags: ['zero', 'signed-zero'],
    build: () => ({ map: (g) => g.map((x) => (x < -0.5 ? -0 : x < 0.5 ? 0 : Math.sign(x))), scale: 1 }),
  },
  {
    name: '1e300 (overflow to ±Infinity and NaN)',
    tags: ['huge'],
    build: () => ({ map: (g) => g.map((x) => x * 1e300), scale: 1 }),
  },
  {
    name: '1e300 scaled down',
    tags: ['huge'],
    build: () => ({ map: (g) => g.map((x) => x * 1e300), scale: 2 ** -1000 }),
  },
  { name: '1e-300 (underflow)', tags: ['tiny'], build: () => ({ map: (g) => g.map((x) => x * 1e-300), scale: 1 }) },
  {
    name: '1e-300 scaled up',
    tags: ['tiny'],
    build: () => ({ map: (g) => g.map((x) => x * 1e-300), scale: 2 ** 996 }),
  },
  {
    name: 'subnormal products',
    tags: ['tiny', 'subnormal'],
    build: () => ({ map: (g) => g.map((x) => x * 1e-160), scale: 1 }),
  },
  {
    name: 'subnormal entries',
    tags: ['subnormal'],
    build: () => ({ map: (g) => g.map((x) => Math.round(x * 8) * 2 ** -1074), scale: 1 }),
  },
  {
    name: 'mixed 1e300 and 1e-300',
    tags: ['huge', 'tiny', 'graded'],
    build: () => ({ map: (g) => g.map((x, k) => x * (k % 3 === 0 ? 1e300 : 1e-300)), scale: 2 ** -1000 }),
  },
];

/**
 * The value patterns carrying every tag of `filter.tags` and none of `filter.exclude`.
 * @throws Error if none does.
 */
export function patterns(filter: CaseFilter = {}): CatalogueEntry<ValuePattern>[] {
  return select(PATTERNS, filter);
}

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

/** The wasm kernel dbdsvdvals on the bidiagonal (d, e): its return value and σ (zeros where not written). */
export function kernelBidiagonal(d: Float64Array, e: Float64Array, m: number): { it: number; sigma: Float64Array } {
  const k = wasm().exports;
  return wasm().arena.scope((s) => {
    const bd = s.from(d);
    const be = s.from(e);
    const o = s.alloc(m, 0);
    const it = k.dbdsvdvals(bd.ptr, be.ptr, m, o.ptr, s.alloc(k.dbdsvdvalsWork(m)).ptr);
    return { it, sigma: Float64Array.from(o.view) };
  });
}
