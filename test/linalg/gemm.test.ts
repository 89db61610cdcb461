import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { gemm } from '../../src/linalg/api.js';
import type { Transpose } from '../../src/linalg/calls.js';
import { gemmBlocking, referenceGemm } from '../../src/linalg/gemm.js';
import { linalgKernels } from '../../src/linalg/wasmKernels.js';
import { wasm } from '../../src/wasm/module.js';
import { createRng } from '../../src/ordergap/rng.js';
import { EPS, matmul, randn, rankLoss, transpose } from './cases.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS, usePool } from '../util/backends.js';
import type { LinalgBackend } from '../../src/linalg/backend.js';

useArenaGuard();

function absProduct(A: Float64Array, B: Float64Array, m: number, k: number, n: number): Float64Array {
  return matmul(
    A.map((x) => Math.abs(x)),
    B.map((x) => Math.abs(x)),
    m,
    k,
    n,
  );
}

describeBackends(LINALG_BACKENDS, 'gemm (%s)', (backend) => {
  it('size-0 and 1x1', () => {
    expect(gemm(new Float64Array(0), 0, 3, new Float64Array(6), 3, 2, { backend })).toEqual(new Float64Array(0));
    expect(gemm(new Float64Array(0), 2, 0, new Float64Array(0), 0, 2, { backend })).toEqual(new Float64Array(4));
    expect(gemm([3], 1, 1, [-2], 1, 1, { backend })).toEqual(Float64Array.of(-6));
  });

  it('integer matrices, all four transpose combinations: exact', () => {
    const [m, k, n] = [7, 5, 6];
    const A = rankLoss(1, m, k, 0, 1, 2);
    const B = rankLoss(2, k, n, 0, 1, 2);
    const C = matmul(A, B, m, k, n);
    expect(gemm(A, m, k, B, k, n, { backend })).toEqual(C);
    expect(gemm(transpose(A, m, k), k, m, B, k, n, { backend, transA: true })).toEqual(C);
    expect(gemm(A, m, k, transpose(B, k, n), n, k, { backend, transB: true })).toEqual(C);
    expect(gemm(transpose(A, m, k), k, m, transpose(B, k, n), n, k, { backend, transA: true, transB: true })).toEqual(
      C,
    );
  });

  it('C = αAB + βC in place, random: within 2·k·eps·(|A||B|) + the β term', () => {
    const [m, k, n] = [9, 33, 11];
    const A = randn(1, m * k);
    const B = randn(2, k * n);
    const C0 = randn(3, m * n);
    const C = Float64Array.from(C0);
    const out = gemm(A, m, k, B, k, n, { backend, alpha: 2, beta: -0.5, C });
    expect(out).toBe(C);
    const P = matmul(A, B, m, k, n);
    const S = absProduct(A, B, m, k, n);
    for (let i = 0; i < m * n; i++) {
      const exact = 2 * P[i]! - 0.5 * C0[i]!;
      expect(Math.abs(C[i]! - exact)).toBeLessThanOrEqual((2 * k + 4) * EPS * (2 * S[i]! + 0.5 * Math.abs(C0[i]!)));
    }
  });

  it('rejects bad input without touching C', () => {
    const C = Float64Array.of(1, 2, 3, 4);
    expect(() => gemm([1, 2], 1, 2, [1, 2], 1, 2, { backend, C })).toThrow(/inner dimensions disagree/);
    expect(() => gemm([1, NaN], 1, 2, [1, 2], 2, 1, { backend })).toThrow(/A\[0\]\[1\] = NaN/);
    expect(() => gemm([1], 1, 1, [1], 1, 1, { backend, beta: 1 })).toThrow(/options.beta = 1: needs options.C/);
    expect(() => gemm([1, 1, 1, 1], 2, 2, [1, 1, 1, 1], 2, 2, { backend, alpha: Infinity, C })).toThrow(
      /options.alpha/,
    );
    expect(() => gemm([1e200, 1e200, 1, 1], 2, 2, [1e200, 1, 1, 1], 2, 2, { backend, C })).toThrow(/overflows/);
    expect(C).toEqual(Float64Array.of(1, 2, 3, 4));
  });

  it('ml-matrix in and out', () => {
    const P = gemm(new Matrix([[1, 2]]), new Matrix([[3], [4]]), { backend });
    expect(P).toBeInstanceOf(Matrix);
    expect(P.to2DArray()).toEqual([[11]]);
  });

  fcTest.prop([
    fc
      .tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), fc.nat())
      .map(([m, k, n, seed]) => ({ m, k, n, A: randn(seed, m * k), B: randn(seed + 1, k * n) })),
  ])('(AB)ᵀ = BᵀAᵀ', ({ m, k, n, A, B }) => {
    const AB = gemm(A, m, k, B, k, n, { backend });
    const BtAt = gemm(B, k, n, A, m, k, { backend, transA: true, transB: true });
    const S = absProduct(A, B, m, k, n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++)
        expect(Math.abs(AB[i * n + j]! - BtAt[j * m + i]!)).toBeLessThanOrEqual(2 * k * EPS * S[i * n + j]!);
  });
});

/** Seeded integers in [-8, 8]: every product and every partial sum below is an exact f64. */
function smallInts(seed: number, n: number): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => Math.floor(rng.next() * 17) - 8);
}

/** op(X) stored as the backend expects: X is rows×cols of op(X); stored transposed for 'T'. */
function stored(X: Float64Array, rows: number, cols: number, t: Transpose): Float64Array {
  return t === 'N' ? X : transpose(X, rows, cols);
}

/** be.gemm on op(A)·op(B) for op(A) = A (M×K) and op(B) = B (K×N), each stored as tA, tB say. */
function gemmStored(
  be: LinalgBackend,
  [tA, tB]: readonly [Transpose, Transpose],
  [M, N, K]: readonly [number, number, number],
  A: Float64Array,
  B: Float64Array,
  alpha: number,
  beta: number,
  C: Float64Array,
): void {
  be.gemm({ transA: tA, transB: tB, M, N, K, alpha, A: stored(A, M, K, tA), B: stored(B, K, N, tB), beta, C });
}

const TRANSPOSES: [Transpose, Transpose][] = [
  ['N', 'N'],
  ['N', 'T'],
  ['T', 'N'],
  ['T', 'T'],
];

// Unchecked backends, straight: the packed wasm kernel (4×4 tiles, edge tiles through a scratch,
// k-chunks of 256, row blocks of 128) against the same exact/derived expectations as the reference.
describeBackends(LINALG_BACKENDS, 'gemm backend (%s)', (_name, be) => {
  it('every M, N, K in 1..9 and all four transpose combinations: exact on small integers', () => {
    // Entries in [-8, 8], K <= 9, α = 1, β ∈ {0, 2}: |sums| <= 9·64 + 2·8, all exact in f64, so the
    // result must equal the integer product bit for bit — any packing/edge/transposition slip shows.
    for (let M = 1; M <= 9; M++)
      for (let N = 1; N <= 9; N++)
        for (let K = 1; K <= 9; K++) {
          const seed = 100 * M + 10 * N + K;
          const A = smallInts(seed, M * K);
          const B = smallInts(seed + 1, K * N);
          const C0 = smallInts(seed + 2, M * N);
          const P = matmul(A, B, M, K, N);
          for (const [tA, tB] of TRANSPOSES) {
            const beta = (M + N + K) % 2 === 0 ? 0 : 2;
            const C = beta === 0 ? new Float64Array(M * N).fill(NaN) : Float64Array.from(C0);
            gemmStored(be, [tA, tB], [M, N, K], A, B, 1, beta, C);
            const expected = P.map((p, i) => p + (beta === 0 ? 0 : beta * C0[i]!));
            expect({ M, N, K, tA, tB, C }).toEqual({ M, N, K, tA, tB, C: expected });
          }
        }
  });

  it('across block boundaries (K > 256, M > 128, N odd), random, α and β: within the rounding bound', () => {
    // Per entry the computed alpha·Σa·b + beta·c carries <= (K + 3) rounding errors (K for the dot
    // product, one each for folding α into A, scaling C by β and the final add) on the magnitude
    // |α|·Σ|a||b| + |β||c|; two such results (this backend and referenceGemm) differ by at most twice.
    const cases: [number, number, number][] = [
      [133, 9, 261],
      [6, 37, 517],
      [130, 131, 5],
    ];
    for (const [M, N, K] of cases) {
      const A = randn(M + 1, M * K);
      const B = randn(N + 2, K * N);
      const C0 = randn(K + 3, M * N);
      const [alpha, beta] = [0.75, -1.5];
      const S = absProduct(A, B, M, K, N);
      for (const [tA, tB] of TRANSPOSES) {
        const C = Float64Array.from(C0);
        gemmStored(be, [tA, tB], [M, N, K], A, B, alpha, beta, C);
        const R = Float64Array.from(C0);
        referenceGemm({ transA: 'N', transB: 'N', M, N, K, alpha, A, B, beta, C: R });
        for (let i = 0; i < M * N; i++) {
          const bound = 2 * (K + 3) * EPS * (Math.abs(alpha) * S[i]! + Math.abs(beta) * Math.abs(C0[i]!));
          if (!(Math.abs(C[i]! - R[i]!) <= bound))
            expect({ M, N, K, tA, tB, i, got: C[i], ref: R[i], bound }).toBeUndefined();
        }
      }
    }
  });

  it('K = 0: C ← β·C, and with β = 0 a NaN-filled C becomes exact zeros', () => {
    for (const [tA, tB] of TRANSPOSES) {
      const C = Float64Array.of(1, -2, 3, 4.5, 5, 6);
      be.gemm({
        transA: tA,
        transB: tB,
        M: 2,
        N: 3,
        K: 0,
        alpha: 7,
        A: new Float64Array(0),
        B: new Float64Array(0),
        beta: -2,
        C,
      });
      expect(C).toEqual(Float64Array.of(-2, 4, -6, -9, -10, -12));
      const Z = new Float64Array(6).fill(NaN);
      be.gemm({
        transA: tA,
        transB: tB,
        M: 3,
        N: 2,
        K: 0,
        alpha: 7,
        A: new Float64Array(0),
        B: new Float64Array(0),
        beta: 0,
        C: Z,
      });
      expect(Z).toEqual(new Float64Array(6));
    }
  });

  it('β = 0 never reads C: NaN-filled C on full and edge tiles gives the plain product', () => {
    // 13×10 with K = 300: full 4×4 tiles, edge rows/columns, and two k-chunks (the second chunk
    // accumulates into what the first wrote, so NaN read on the first would survive).
    const [M, N, K] = [13, 10, 300];
    const A = smallInts(7, M * K);
    const B = smallInts(8, K * N);
    const P = matmul(A, B, M, K, N); // |sums| <= 300·64: exact
    for (const [tA, tB] of TRANSPOSES) {
      const C = new Float64Array(M * N).fill(NaN);
      gemmStored(be, [tA, tB], [M, N, K], A, B, 1, 0, C);
      expect(C).toEqual(P);
    }
  });

  it('the wasm kernel itself never reads C when β = 0 (C in wasm memory filled with NaN)', () => {
    // The wasm backend does not even copy C in for β = 0, so the backend-level test above cannot
    // see a read of C: call the kernel on a NaN-filled C directly.
    const [M, N, K] = [13, 10, 300];
    const A = smallInts(9, M * K);
    const B = smallInts(10, K * N);
    const P = matmul(A, B, M, K, N);
    const { kc, mc, nc } = gemmBlocking(M, N, K);
    const out = wasm().arena.scope((s) => {
      const a = s.from(A);
      const b = s.from(B);
      const c = s.alloc(M * N, NaN);
      const PA = s.alloc(Math.ceil(mc / 4) * 4 * kc).ptr;
      const PB = s.alloc(kc * Math.ceil(nc / 4) * 4).ptr;
      linalgKernels().dgemm(0, 0, M, N, K, 1, a.ptr, b.ptr, 0, c.ptr, PA, PB, s.alloc(16).ptr, kc, mc, nc);
      return c.toFloat64Array();
    });
    expect(out).toEqual(P);
  });

  it('M = 0 or N = 0: nothing written', () => {
    const C = new Float64Array(0);
    be.gemm({
      transA: 'N',
      transB: 'N',
      M: 0,
      N: 4,
      K: 3,
      alpha: 1,
      A: new Float64Array(0),
      B: new Float64Array(12),
      beta: 0,
      C,
    });
    be.gemm({
      transA: 'T',
      transB: 'T',
      M: 4,
      N: 0,
      K: 3,
      alpha: 1,
      A: new Float64Array(12),
      B: new Float64Array(0),
      beta: 1,
      C,
    });
    expect(C.length).toBe(0);
  });
});

describe('gemm: wasm kernel and TypeScript reference are twins by contract', () => {
  it('the same bits for α = 1, β = 0 (each entry a sum in k order from +0), all transposes, across the blocks', () => {
    for (const [M, N, K] of [
      [133, 9, 261],
      [6, 37, 517],
      [130, 131, 5],
    ] as const) {
      const A = randn(M + 1, M * K);
      const B = randn(N + 2, K * N);
      for (const [tA, tB] of TRANSPOSES) {
        const [ref, wa] = [LINALG.reference, LINALG.wasm].map((be) => {
          const C = new Float64Array(M * N);
          gemmStored(be, [tA, tB], [M, N, K], A, B, 1, 0, C);
          return C;
        });
        expect(wa, `${M}×${N}×${K} ${tA}${tB}`).toEqual(ref);
      }
    }
  });
});

describe('gemm on the worker pool', () => {
  usePool(2);

  it('equals the one-thread result bit for bit (row blocks on multiples of 4; transB both ways)', () => {
    const cases: Array<[number, number, number, boolean]> = [
      [300, 130, 270, false],
      [301, 67, 33, true],
      [1030, 64, 300, true],
      [8, 5, 7, false],
      [517, 129, 64, false],
    ];
    for (const [M, N, K, transB] of cases) {
      const A = randn(M + N, M * K);
      const B = randn(K + 1, K * N);
      const C0 = randn(3, M * N);
      const opts = { transB, alpha: 0.75, beta: -1.25 };
      const [br, bc] = transB ? [N, K] : [K, N];
      const one = Float64Array.from(C0);
      gemm(A, M, K, B, br, bc, { ...opts, C: one, threads: 1 });
      const two = Float64Array.from(C0);
      gemm(A, M, K, B, br, bc, { ...opts, C: two, threads: 2 });
      expect(Array.from(two), `${M}x${N}x${K} transB=${transB}`).toEqual(Array.from(one));
    }
  });

  it('a transposed A falls back to one thread and still agrees with the reference', () => {
    const M = 64;
    const K = 80;
    const N = 48;
    const A = randn(9, K * M);
    const B = randn(10, K * N);
    const got = gemm(A, K, M, B, K, N, { transA: true, threads: 2 });
    const ref = gemm(A, K, M, B, K, N, { transA: true, backend: 'reference' });
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        // Same products, possibly another summation order: |error| <= 2·K·eps·Σ_k |A_ki||B_kj|.
        let abs = 0;
        for (let k = 0; k < K; k++) abs += Math.abs(A[k * M + i]! * B[k * N + j]!);
        expect(Math.abs(got[i * N + j]! - ref[i * N + j]!)).toBeLessThanOrEqual(2 * K * EPS * abs);
      }
    }
  });
});

describe('gemm threads option without a pool', () => {
  it('is an error naming options.threads', () => {
    expect(() => gemm([1], 1, 1, [1], 1, 1, { threads: 2 })).toThrow(/^options\.threads = 2: needs a running pool/);
  });
});
