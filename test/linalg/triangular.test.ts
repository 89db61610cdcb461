/**
 * The products of an upper-triangular R that leave out its lower triangle: the Gramian RᵀR
 * (LinalgBackend.syrk with `upperTriangular`) and C = A·Rᵀ (LinalgBackend.trmmUpperT), on the
 * real wasm kernels, against the full products.
 *
 * Why bit for bit: every entry of both kernels is a recursive sum in row (syrk) or k (gemm)
 * order, starting from +0, in both the full and the triangular form. The triangular form leaves
 * out only products with a zero factor of the lower triangle; for finite entries such a product is
 * ±0, and a sum that starts at +0 is unchanged by adding ±0 (x + ±0 = x for x ≠ 0, +0 + ±0 = +0 in
 * round-to-nearest, so the sum is never −0). The order of the remaining products is the same, so
 * the results agree bit for bit — sign of zero, NaN and ±Infinity from overflow included. The
 * reference kernels sum in the same order too (syrk row by row, gemm in k order), so they agree
 * bit for bit as well. An independent sum in a different order (descending) checks the value
 * itself, within the recursive-summation bound (see expectWithinBound).
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { LinalgBackend } from '../../src/linalg/backend.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { PRECONDITION_MIN_SIZE, GRAM_GUIDED_MIN_SIZE, svdOfR } from '../../src/linalg/svdFromR.js';
import { TRMM_BLOCK } from '../../src/linalg/wasmBackend.js';
import { syrkChunkRows } from '../../src/linalg/wasmKernels.js';
import { wasm } from '../../src/wasm/module.js';
import { dependentStack, EPS, patterns, randn } from './cases.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { LINALG } from '../util/backends.js';

const { reference: referenceLinalg, wasm: wasmLinalg } = LINALG;

useArenaGuard();

/** A rows×cols matrix with the upper triangle (j >= i) from `upper` (cycled) and `lower` below it. */
function upperTriangular(rows: number, cols: number, upper: Float64Array, lower = 0): Float64Array {
  const R = new Float64Array(rows * cols);
  let t = 0;
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) R[i * cols + j] = j >= i ? upper[t++ % upper.length]! : lower;
  return R;
}

/** Index of the first entry where a and b differ as f64 values (Object.is), or −1. */
function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return 0;
  for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) return k;
  return -1;
}

function expectBitEqual(got: Float64Array, want: Float64Array, what: string): void {
  const k = firstDifference(got, want);
  expect(k, `${what}: entry ${k} is ${got[k]} against ${want[k]}`).toBe(-1);
}

interface SyrkRun {
  G: Float64Array;
  amax: number;
  nonFinite: number;
}

function runSyrk(
  backend: LinalgBackend,
  A: Float64Array,
  rows: number,
  cols: number,
  scale: number,
  upper: boolean,
  resident = false,
): SyrkRun {
  const G = new Float64Array(cols * cols);
  let amax = NaN;
  let nonFinite = -1;
  const accept = (a: number, nf: number): boolean => {
    amax = a;
    nonFinite = nf;
    return true;
  };
  if (resident)
    wasm().arena.scope((s) => {
      backend.syrk({
        A: s.from(A).view,
        rows,
        cols,
        scale,
        weight: 1,
        G,
        overwrite: true,
        accept,
        upperTriangular: upper,
      });
    });
  else backend.syrk({ A, rows, cols, scale, weight: 1, G, overwrite: true, accept, upperTriangular: upper });
  return { G, amax, nonFinite };
}

/** Triangular wasm syrk (staged and resident) = full wasm syrk = reference syrk, bit for bit. */
function checkSyrk(A: Float64Array, rows: number, cols: number, scale = 1): void {
  const full = runSyrk(wasmLinalg, A, rows, cols, scale, false);
  const ref = runSyrk(referenceLinalg, A, rows, cols, scale, false);
  for (const resident of [false, true]) {
    const tri = runSyrk(wasmLinalg, A, rows, cols, scale, true, resident);
    expectBitEqual(tri.G, full.G, `syrk ${rows}×${cols} resident=${resident}`);
    expect(tri.nonFinite).toBe(full.nonFinite);
    expect(tri.amax).toBe(full.amax); // the lower triangle is zero, so the max over what is read
  }
  expectBitEqual(full.G, ref.G, `syrk ${rows}×${cols} against the reference`);
}

function runTrmm(backend: LinalgBackend, A: Float64Array, M: number, R: Float64Array, n: number): Float64Array {
  const C = new Float64Array(M * n).fill(NaN); // C is not read
  backend.trmmUpperT(M, n, A, R, C);
  return C;
}

/** Triangular wasm product = full wasm gemm('N', 'T') = reference, bit for bit. */
function checkTrmm(A: Float64Array, M: number, R: Float64Array, n: number): Float64Array {
  const tri = runTrmm(wasmLinalg, A, M, R, n);
  const full = new Float64Array(M * n);
  wasmLinalg.gemm({ transA: 'N', transB: 'T', M, N: n, K: n, alpha: 1, A, B: R, beta: 0, C: full });
  expectBitEqual(tri, full, `trmm ${M}×${n}`);
  expectBitEqual(runTrmm(referenceLinalg, A, M, R, n), full, `trmm ${M}×${n} against the reference`);
  return tri;
}

/**
 * got (M×n) against Σ_q x(i, j, q)·y(i, j, q) over q < count(i, j), summed in descending q: both
 * are recursive sums of the same K = count(i, j) products, each within γ_K·Σ|x||y| of the exact
 * sum (γ_K = K·eps/(1 − K·eps)), so they differ by at most 2·γ_K·Σ|x·y| (the computed Σ|x·y|,
 * itself within a factor 1 + γ_K of the exact one; the bound carries that factor).
 */
function expectWithinBound(
  got: Float64Array,
  M: number,
  n: number,
  count: (i: number, j: number) => number,
  product: (i: number, j: number, q: number) => number,
): void {
  let worst = 0;
  let where = '';
  for (let i = 0; i < M; i++)
    for (let j = 0; j < n; j++) {
      const K = count(i, j);
      let s = 0;
      let abs = 0;
      for (let q = K - 1; q >= 0; q--) {
        const p = product(i, j, q);
        s += p;
        abs += Math.abs(p);
      }
      const gamma = (K * EPS) / (1 - K * EPS);
      const err = Math.abs(got[i * n + j]! - s);
      const ratio = err === 0 ? 0 : err / (2 * gamma * abs * (1 + gamma));
      if (ratio > worst) [worst, where] = [ratio, `(${i}, ${j})`];
    }
  expect(worst, `error over the bound at ${where}`).toBeLessThanOrEqual(1);
}

/** Sizes across the chunk edges of the Gramian, its 4-column tiles and the product's column blocks. */
const SIZES = [1, 3, 4, 5, 63, 64, 65, TRMM_BLOCK - 1, TRMM_BLOCK, TRMM_BLOCK + 1, 257, 300];

describe('syrk with upperTriangular', () => {
  it.each(SIZES)('m = %i: random R, equal to the full Gramian bit for bit and within the bound', (m) => {
    const R = upperTriangular(m, m, randn(m, (m * (m + 1)) / 2));
    checkSyrk(R, m, m);
    const G = runSyrk(wasmLinalg, R, m, m, 1, true).G;
    // entry (i, j) of RᵀR: Σ_{r <= min(i, j)} r_ri·r_rj
    expectWithinBound(
      G,
      m,
      m,
      (i, j) => Math.min(i, j) + 1,
      (i, j, r) => R[r * m + i]! * R[r * m + j]!,
    );
  });

  it('the chunks start at their tile rows: m = 520 has chunks of 63 rows (starts not on tile edges)', () => {
    expect(syrkChunkRows(520)).toBe(63);
    const m = 520;
    checkSyrk(upperTriangular(m, m, randn(520, (m * (m + 1)) / 2)), m, m);
  });

  it('trapezoids: rows < cols and rows > cols (rows from cols on are zero)', () => {
    for (const [rows, cols] of [
      [5, 9],
      [9, 5],
      [130, 70],
      [70, 301],
    ] as const) {
      checkSyrk(upperTriangular(rows, cols, randn(rows + cols, rows * cols)), rows, cols);
    }
  });

  it('entries left of the first tile of each chunk are not read: NaN there gives the result of zeros', () => {
    for (const m of [5, 64, 65, 300]) {
      const kc = syrkChunkRows(m);
      const upper = randn(m + 7, (m * (m + 1)) / 2);
      const R = upperTriangular(m, m, upper);
      const want = runSyrk(wasmLinalg, R, m, m, 1, false);
      const poisoned = R.slice();
      for (let i = 0; i < m; i++)
        for (let j = 0; j < 4 * ((Math.floor(i / kc) * kc) >> 2); j++) poisoned[i * m + j] = NaN;
      for (const resident of [false, true]) {
        const got = runSyrk(wasmLinalg, poisoned, m, m, 1, true, resident);
        expectBitEqual(got.G, want.G, `m = ${m} resident=${resident}`);
        expect(got.amax).toBe(want.amax);
      }
    }
  });

  it.each(patterns().map((p) => [p.name, p] as const))(
    'f64 edges, %s: equal to the full Gramian bit for bit (at the pattern’s scale)',
    (_title, p) => {
      const m = 67;
      const { map, scale } = p.build();
      checkSyrk(upperTriangular(m, m, map(randn(m + 11, (m * (m + 1)) / 2))), m, m, scale);
    },
  );

  fcTest.prop(
    [
      fc.integer({ min: 1, max: 140 }),
      fc.integer({ min: 1, max: 140 }),
      fc.integer({ min: 1, max: 2 ** 30 }),
      fc.integer({ min: -600, max: 600 }),
    ],
    { numRuns: 25 },
  )('random trapezoids at random magnitudes: equal to the full Gramian bit for bit', (rows, cols, seed, e) => {
    checkSyrk(
      upperTriangular(
        rows,
        cols,
        randn(seed, rows * cols).map((x) => x * 2 ** e),
      ),
      rows,
      cols,
    );
  });
});

describe('trmmUpperT', () => {
  it.each(SIZES)('n = %i: random A and R, equal to the full gemm bit for bit and within the bound', (n) => {
    const M = n + 3;
    const A = randn(n + 1, M * n);
    const R = upperTriangular(n, n, randn(n + 2, (n * (n + 1)) / 2));
    const C = checkTrmm(A, M, R, n);
    // entry (i, j) of A·Rᵀ: Σ_{k >= j} a_ik·r_jk
    expectWithinBound(
      C,
      M,
      n,
      (_i, j) => n - j,
      (i, j, q) => A[i * n + j + q]! * R[j * n + j + q]!,
    );
  });

  it('rectangular A across the row blocks (M = 1, 7, 129, 260) and the inner chunk edge (n = 300)', () => {
    const n = 300;
    const R = upperTriangular(n, n, randn(5, (n * (n + 1)) / 2));
    for (const M of [1, 7, 129, 260]) checkTrmm(randn(M, M * n), M, R, n);
  });

  it('entries of R left of each diagonal block are not read: NaN there gives the result of zeros', () => {
    for (const n of [5, TRMM_BLOCK + 1, 300]) {
      const A = randn(n, n * n);
      const R = upperTriangular(n, n, randn(n + 9, (n * (n + 1)) / 2));
      const poisoned = R.slice();
      for (let i = 0; i < n; i++)
        for (let j = 0; j < Math.floor(i / TRMM_BLOCK) * TRMM_BLOCK; j++) poisoned[i * n + j] = NaN;
      expectBitEqual(runTrmm(wasmLinalg, A, n, poisoned, n), runTrmm(wasmLinalg, A, n, R, n), `n = ${n}`);
    }
  });

  it('f64 edges: zeros, signed zeros, 1e±300, subnormals', () => {
    const n = TRMM_BLOCK + 5;
    const tri = (n * (n + 1)) / 2;
    const g = randn(n + 13, tri);
    const a = randn(n + 14, n * n);
    const cases: Array<[string, Float64Array, Float64Array]> = [
      ['zero R', a, new Float64Array(tri)],
      ['zero A', new Float64Array(n * n), g],
      ['signed zeros', a.map((x) => (x < 0 ? -0 : x)), g.map((x) => (x < 0 ? -0 : 0))],
      ['1e300 (overflow to ±Infinity and NaN)', a.map((x) => x * 1e300), g.map((x) => x * 1e10)],
      ['1e-300 (underflow)', a.map((x) => x * 1e-300), g.map((x) => x * 1e-10)],
      ['subnormal products', a.map((x) => x * 1e-160), g.map((x) => x * 1e-160)],
      ['subnormal entries', a, g.map((x) => Math.round(x * 8) * 2 ** -1074)],
    ];
    for (const [what, A, upper] of cases) {
      expect(() => checkTrmm(A, n, upperTriangular(n, n, upper), n), what).not.toThrow();
    }
  });

  fcTest.prop(
    [
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 1, max: 2 * TRMM_BLOCK + 10 }),
      fc.integer({ min: 1, max: 2 ** 30 }),
      fc.integer({ min: -500, max: 500 }),
    ],
    { numRuns: 25 },
  )('random shapes at random magnitudes: equal to the full gemm bit for bit', (M, n, seed, e) => {
    const R = upperTriangular(
      n,
      n,
      randn(seed, (n * (n + 1)) / 2).map((x) => x * 2 ** e),
    );
    checkTrmm(randn(seed + 1, M * n), M, R, n);
  });
});

describe('the SVD of R on the triangular products', () => {
  /** The wasm backend with the full products in place of the triangular ones. */
  const fullProducts: LinalgBackend = {
    ...wasmLinalg,
    syrk: (call) => wasmLinalg.syrk({ ...call, upperTriangular: false }),
    trmmUpperT: (M, n, A, R, C) =>
      void wasmLinalg.gemm({ transA: 'N', transB: 'T', M, N: n, K: n, alpha: 1, A, B: R, beta: 0, C }),
  };

  it.each([PRECONDITION_MIN_SIZE, 97, GRAM_GUIDED_MIN_SIZE + 1])(
    'm = %i, R of a stack with two exact dependencies: values, vectors and sweeps as with the full products',
    (m) => {
      const rows = 2 * m;
      const A = dependentStack(m + 11, m);
      const R = new StreamingQR(m, { backend: 'wasm' }).push(A, rows).r();
      const got = svdOfR(wasmLinalg, R, m);
      const want = svdOfR(fullProducts, R, m);
      expect(got.sweeps).toBe(want.sweeps);
      expectBitEqual(got.singularValues, want.singularValues, 'singular values');
      expectBitEqual(got.rightVectorsT, want.rightVectorsT, 'right singular vectors');
    },
  );
});
