/**
 * The rigorous matrix bounds against independent oracles: ml-matrix's SVD and eigendecomposition
 * (normwise backward stable: within c·n·eps·‖A‖ of the exact values, the tolerance each check
 * states), exact rational arithmetic on the floats' bits (BigInt) for the midpoint–radius
 * enclosures, and matrices whose eigenvalues are known exactly by construction.
 */
import fc from 'fast-check';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import {
  intervalNormUpper,
  lambdaMinAbove,
  lambdaMinLower,
  midRad,
  normBelow,
  provePositiveDefinite,
  spectralNormUpper,
} from '../../src/interval/matrixBounds.js';
import { svdvalsOracle } from '../linalg/oracles.js';
import { EPS } from '../util/compare.js';
import { nextDown, nextUp } from '../../src/interval/round.js';

const MAX = Number.MAX_VALUE;

/** A seeded generator of uniform numbers in [−1, 1) (Park–Miller, exact in f64). */
function rng(seed: number): () => number {
  let s = (Math.abs(Math.trunc(seed)) % 2147483646) + 1;
  return () => {
    s = (s * 16807) % 2147483647;
    return (2 * s) / 2147483647 - 1;
  };
}

function randomMatrix(rows: number, cols: number, seed: number, scale = 1): Float64Array {
  const r = rng(seed);
  return Float64Array.from({ length: rows * cols }, () => r() * scale);
}

/** The exact value of a finite float times 2^1074, an integer. */
function exact(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const sign = bits >> 63n === 1n ? -1n : 1n;
  const e = (bits >> 52n) & 0x7ffn;
  const f = bits & ((1n << 52n) - 1n);
  return sign * (e === 0n ? f : (f | (1n << 52n)) << (e - 1n));
}

/**
 * ‖A‖₂ by the SVD oracle and that oracle's error allowance: 2·max(rows, cols)·eps·σ (its measured
 * error is below 0.6·max(rows, cols)·eps·σ) plus 2⁻¹⁰⁷⁴ for the rounding of a subnormal σ.
 */
function trueNorm(A: Float64Array, rows: number, cols: number): { sigma: number; tol: number } {
  const sigma = svdvalsOracle(A, rows, cols)[0] ?? 0;
  return { sigma, tol: 2 * Math.max(rows, cols) * EPS * sigma + 2 ** -1074 };
}

/** Eigenvalues (ascending) of the symmetric n×n A by ml-matrix, with tolerance 4n·eps·‖A‖_F. */
function eigenvalues(A: Float64Array, n: number): { values: number[]; tol: number } {
  const M = new Matrix(n, n);
  let f = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      M.set(i, j, A[i * n + j]!);
      f += A[i * n + j]! ** 2;
    }
  const values = new EigenvalueDecomposition(M, { assumeSymmetric: true }).realEigenvalues.sort((a, b) => a - b);
  return { values, tol: 4 * n * EPS * Math.sqrt(f) };
}

/**
 * B = X·Xᵀ for a random n×(n−1) X with integer entries in [−4, 4]: exactly representable,
 * positive semidefinite and exactly singular (rank <= n − 1).
 */
function singularPsd(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const X = Float64Array.from({ length: n * (n - 1) }, () => Math.round(4 * r()));
  const B = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n - 1; k++) s += X[i * (n - 1) + k]! * X[j * (n - 1) + k]!;
      B[i * n + j] = s;
    }
  return B;
}

/**
 * fl(B − ε·I): exact when the power of two ε is no finer than the ulps of B's diagonal, B itself
 * when ε is below half of them — singular or indefinite either way.
 */
function shiftedDiagonal(B: Float64Array, n: number, eps: number): Float64Array {
  const A = Float64Array.from(B);
  for (let i = 0; i < n; i++) A[i * n + i] = A[i * n + i]! - eps;
  return A;
}

/** A plain floating-point Cholesky without any shift: "succeeds" is no proof. */
function naiveCholeskySucceeds(A: Float64Array, n: number): boolean {
  const L = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i <= j; i++) {
      let s = A[j * n + i]!;
      for (let k = 0; k < i; k++) s -= L[j * n + k]! * L[i * n + k]!;
      if (i < j) L[j * n + i] = s / L[i * n + i]!;
      else if (!(s > 0)) return false;
      else L[j * n + j] = Math.sqrt(s);
    }
  }
  return true;
}

/** A random rows×cols matrix: its shape, the seed of its entries and their scale (subnormal to 1e300). */
const matrixCase = fc.record({
  rows: fc.integer({ min: 1, max: 9 }),
  cols: fc.integer({ min: 1, max: 9 }),
  seed: fc.integer(),
  scale: fc.constantFrom(1, 1e-300, 1e300, 1e-150, 1e150, 2 ** -1074, 1e-310),
});

describe('midRad', () => {
  it('encloses [lo, hi] exactly in the reals, point intervals get radius 0', () => {
    const ends = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, MAX, -MAX, 5e-324));
    fc.assert(
      fc.property(fc.array(fc.tuple(ends, ends), { minLength: 1, maxLength: 20 }), (pairs) => {
        const lo = Float64Array.from(pairs, ([a, b]) => Math.min(a, b));
        const hi = Float64Array.from(pairs, ([a, b]) => Math.max(a, b));
        const { mid, rad } = midRad(lo, hi);
        for (let i = 0; i < lo.length; i++) {
          expect(Number.isFinite(mid[i]!)).toBe(true);
          expect(rad[i]!).toBeGreaterThanOrEqual(0);
          if (rad[i] === Infinity) continue;
          expect(exact(mid[i]!) - exact(rad[i]!) <= exact(lo[i]!)).toBe(true);
          expect(exact(mid[i]!) + exact(rad[i]!) >= exact(hi[i]!)).toBe(true);
          if (lo[i] === hi[i]) expect(rad[i]).toBe(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is tight: rad within 2 ulps of the half-width for ordinary intervals', () => {
    const { mid, rad } = midRad(Float64Array.of(1, -3, 0.1), Float64Array.of(2, -1, 0.3));
    expect(Array.from(mid)).toEqual([1.5, -2, 0.2]);
    expect(rad[0]).toBe(0.5);
    expect(rad[1]).toBe(1);
    expect(Math.abs(rad[2]! - 0.1)).toBeLessThanOrEqual(2 * EPS * 0.1);
  });

  it('handles overflowing sums, infinite ends and NaN', () => {
    const { mid, rad } = midRad(Float64Array.of(MAX, -MAX, -Infinity, NaN), Float64Array.of(MAX, MAX, 1, 1));
    expect(mid[0]).toBe(MAX);
    expect(rad[0]).toBe(0);
    expect(mid[1]).toBe(0);
    expect(rad[1]).toBeGreaterThanOrEqual(MAX);
    expect([mid[2], rad[2]]).toEqual([1, Infinity]);
    expect(Number.isNaN(mid[3]!) && Number.isNaN(rad[3]!)).toBe(true);
  });

  it('rejects lo > hi and mismatched lengths, naming the argument', () => {
    expect(() => midRad(Float64Array.of(2), Float64Array.of(1))).toThrow(/lo\[0\] = 2/);
    expect(() => midRad(Float64Array.of(1), Float64Array.of(1, 2))).toThrow(/hi = /);
  });
});

describe('spectralNormUpper', () => {
  it('is >= ‖M‖₂ for random matrices from subnormal to 1e300, with zeros', () => {
    fc.assert(
      fc.property(matrixCase, fc.double({ min: 0, max: 0.9 }), ({ rows, cols, seed, scale }, z) => {
        const M = randomMatrix(rows, cols, seed, scale);
        const r = rng(seed + 1);
        for (let i = 0; i < M.length; i++) if ((r() + 1) / 2 < z) M[i] = 0;
        const { sigma, tol } = trueNorm(M, rows, cols);
        const b = spectralNormUpper(M, rows, cols);
        expect(b.bound).toBeGreaterThanOrEqual(sigma - tol);
        expect(Number.isFinite(b.bound)).toBe(true);
        if (b.method === 'isspd') expect(normBelow(M, rows, cols, b.alpha!)).toBe(true);
        // subnormal matrices carry relative errors of their own (few bits); others are tight
        if (scale >= 1e-300 && sigma > 0) expect(b.bound).toBeLessThanOrEqual(sigma * (1 + 1e-2) + tol);
      }),
      { numRuns: 150 },
    );
  });

  it('gives Infinity, never a wrong bound, when ‖M‖₂ overflows or an entry is not finite', () => {
    const big = new Float64Array(4).fill(1e308); // ‖M‖₂ = 2e308 > MAX
    expect(spectralNormUpper(big, 2, 2).bound).toBe(Infinity);
    expect(normBelow(big, 2, 2, MAX)).toBe(false);
    expect(spectralNormUpper(Float64Array.of(1, NaN), 1, 2)).toEqual({ bound: Infinity, method: 'nonFinite' });
    expect(spectralNormUpper(Float64Array.of(1, -Infinity), 2, 1).bound).toBe(Infinity);
    expect(spectralNormUpper(new Float64Array(6), 2, 3)).toEqual({ bound: 0, method: 'zero' });
    expect(spectralNormUpper(new Float64Array(0), 0, 3)).toEqual({ bound: 0, method: 'zero' });
  });

  it('is exact up to a few ulps for diagonal matrices: 0.5·I up to n = 512', () => {
    for (const n of [1, 2, 17, 128, 512]) {
      const M = new Float64Array(n * n);
      for (let i = 0; i < n; i++) M[i * n + i] = 0.5;
      const b = spectralNormUpper(M, n, n);
      expect(b.bound).toBeGreaterThanOrEqual(0.5);
      expect(b.bound).toBeLessThanOrEqual(0.5 * (1 + 1e-12));
      expect((b.bound - 0.5) / (0.5 * EPS)).toBeLessThanOrEqual(8);
    }
    const D = Float64Array.of(3e-310, 0, 0, -7e300);
    expect(spectralNormUpper(D, 2, 2).bound / 7e300 - 1).toBeLessThanOrEqual(8 * EPS);
  });

  it('reaches ‖W‖₂ = 0.8 within 1e-8 relative by the isspd route (random 64×64)', () => {
    for (const seed of [1, 2, 3]) {
      const W = randomMatrix(64, 64, seed);
      const s = 0.8 / trueNorm(W, 64, 64).sigma;
      for (let i = 0; i < W.length; i++) W[i] = W[i]! * s;
      const { sigma, tol } = trueNorm(W, 64, 64);
      const b = spectralNormUpper(W, 64, 64);
      expect(b.method).toBe('isspd');
      expect(b.bound).toBeGreaterThanOrEqual(sigma - tol);
      expect(Math.abs(b.bound - 0.8) / 0.8).toBeLessThanOrEqual(1e-8);
    }
  });

  it('uses a given estimate, in the matrix units, also for tall, wide and huge matrices', () => {
    for (const [rows, cols, scale] of [
      [40, 7, 1],
      [7, 40, 1e300],
      [30, 30, 1e-300],
    ] as const) {
      const M = randomMatrix(rows, cols, rows * cols, scale);
      const { sigma, tol } = trueNorm(M, rows, cols);
      const b = spectralNormUpper(M, rows, cols, sigma);
      expect(b.method).toBe('isspd');
      expect(b.bound).toBeGreaterThanOrEqual(sigma - tol);
      expect(b.bound / sigma - 1).toBeLessThanOrEqual(1e-10);
    }
  });
});

describe('normBelow', () => {
  it('never proves alpha <= ‖M‖₂ and proves alpha = ‖M‖₂·(1 + 1e-6)', () => {
    fc.assert(
      fc.property(matrixCase, ({ rows, cols, seed, scale }) => {
        const M = randomMatrix(rows, cols, seed, scale);
        const { sigma, tol } = trueNorm(M, rows, cols);
        expect(normBelow(M, rows, cols, sigma - tol)).toBe(false);
        expect(normBelow(M, rows, cols, (sigma - tol) * (1 - 1e-15))).toBe(false);
        if (scale >= 1e-300) expect(normBelow(M, rows, cols, sigma * (1 + 1e-6))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses the largest float below ‖x‖₂ for long vectors (the rounding of xᵀx is what it must cover)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 200, max: 2000 }), fc.integer(), fc.boolean(), (m, seed, column) => {
        const x = randomMatrix(1, m, seed);
        let sq = 0n; // ‖x‖₂²·2^2148, exact
        for (const v of x) sq += exact(v) ** 2n;
        let alpha = Math.sqrt(x.reduce((s, v) => s + v * v, 0));
        while (exact(alpha) ** 2n >= sq) alpha = nextDown(alpha);
        while (exact(nextUp(alpha)) ** 2n < sq) alpha = nextUp(alpha);
        // alpha < ‖x‖₂ <= nextUp(alpha): the tightest false claim there is
        expect(normBelow(x, column ? m : 1, column ? 1 : m, alpha)).toBe(false);
        expect(normBelow(x, column ? m : 1, column ? 1 : m, alpha * (1 + 4 * m * EPS))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('decides the trivial cases and rejects bad arguments', () => {
    const M = Float64Array.of(3, 4);
    expect(normBelow(M, 1, 2, 5)).toBe(false); // ‖M‖₂ = 5 exactly
    expect(normBelow(M, 1, 2, 0)).toBe(false);
    expect(normBelow(M, 1, 2, Infinity)).toBe(true);
    expect(normBelow(new Float64Array(4), 2, 2, 1e-300)).toBe(true);
    expect(normBelow(Float64Array.of(NaN), 1, 1, 1)).toBe(false);
    expect(() => normBelow(M, 2, 2, 1)).toThrow(/M = Float64Array\(2\)/);
    expect(() => normBelow(M, 1, 2, NaN)).toThrow(/alpha = NaN/);
  });
});

describe('provePositiveDefinite', () => {
  it('refuses matrices with λ_min = −2^-34 ≈ −1e-14·‖A‖ and exactly singular ones', () => {
    for (const seed of [11, 12, 13, 14, 15]) {
      const n = 20;
      const B = singularPsd(n, seed);
      const A = shiftedDiagonal(B, n, 2 ** -34);
      const norm = trueNorm(A, n, n).sigma;
      expect(2 ** -34 / norm).toBeGreaterThan(1e-15);
      expect(2 ** -34 / norm).toBeLessThan(1e-12);
      expect(provePositiveDefinite(A, n)).toBe(false);
      expect(provePositiveDefinite(B, n)).toBe(false);
    }
  });

  it('refuses every B − εI (B exactly singular) where a plain Cholesky is fooled', () => {
    let fooled = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const n = 12;
      const B = singularPsd(n, seed);
      for (let e = 34; e <= 60; e += 2) {
        const A = shiftedDiagonal(B, n, 2 ** -e);
        if (naiveCholeskySucceeds(A, n)) fooled++;
        expect(provePositiveDefinite(A, n)).toBe(false);
      }
    }
    expect(fooled).toBeGreaterThan(0); // the shift is what refuses these
  });

  it('applies the shift c ≈ (n + 1)·u·tr(A): refuses λ_min = c/2, proves λ_min ≈ 8c', () => {
    // diagonal 1, off-diagonal 1 − t: eigenvalues t (n − 1 times) and n − (n − 1)t, exactly
    const n = 64;
    const c = (n + 1) * 2 ** -53 * n; // the trace term of the shift, 4.6e-13
    for (const [t, proved] of [
      [2 ** -42, false],
      [2 ** -38, true],
    ] as const) {
      const A = new Float64Array(n * n).fill(1 - t);
      for (let i = 0; i < n; i++) A[i * n + i] = 1;
      expect(t / c).toBeGreaterThan(proved ? 7 : 0.4);
      expect(t / c).toBeLessThan(proved ? 9 : 0.6);
      expect(provePositiveDefinite(A, n)).toBe(proved);
    }
  });

  it('proves well-conditioned matrices, badly scaled ones through van der Sluis scaling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer(), (n, seed) => {
        const X = randomMatrix(n, n, seed);
        const A = new Float64Array(n * n);
        for (let i = 0; i < n; i++)
          for (let j = 0; j <= i; j++) {
            let s = i === j ? n : 0;
            for (let k = 0; k < n; k++) s += X[i * n + k]! * X[j * n + k]!;
            A[i * n + j] = s;
            A[j * n + i] = s;
          }
        expect(provePositiveDefinite(A, n)).toBe(true);
        // D·A·D with D = diag(10^(±8)): exact positive definiteness is kept by the float matrix
        const d = Float64Array.from({ length: n }, (_, i) => 10 ** (8 * ((i % 3) - 1)));
        const S = Float64Array.from(A, (a, idx) => a * d[Math.floor(idx / n)]! * d[idx % n]!);
        for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) S[j * n + i] = S[i * n + j]!;
        expect(provePositiveDefinite(S, n)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses non-positive diagonals and non-finite entries; rejects bad shapes', () => {
    expect(provePositiveDefinite(Float64Array.of(1, 0, 0, 0), 2)).toBe(false);
    expect(provePositiveDefinite(Float64Array.of(2), 1)).toBe(true);
    expect(provePositiveDefinite(Float64Array.of(5e-324), 1)).toBe(true);
    expect(provePositiveDefinite(Float64Array.of(1, NaN, NaN, 1), 2)).toBe(false);
    expect(provePositiveDefinite(Float64Array.of(Infinity, 0, 0, 1), 2)).toBe(false);
    expect(() => provePositiveDefinite(Float64Array.of(1, 0.5, 0.25, 1), 2)).toThrow(/A\[2\] = 0.25/);
    expect(() => provePositiveDefinite(Float64Array.of(1, 0, 0), 2)).toThrow(/length n² = 4/);
    expect(() => provePositiveDefinite(new Float64Array(0), 0)).toThrow(/n = 0/);
  });
});

/** A random symmetric n×n midpoint and a symmetric radius of relative size `r`. */
function symmetricBox(n: number, seed: number, r: number): { mid: Float64Array; rad: Float64Array } {
  const R = rng(seed);
  const mid = new Float64Array(n * n);
  const rad = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      const m = R() + (i === j ? 2 : 0);
      const q = r * Math.abs(R());
      mid[i * n + j] = mid[j * n + i] = m;
      rad[i * n + j] = rad[j * n + i] = q;
    }
  return { mid, rad };
}

/** A symmetric G = mid + s∘rad in the box (s symmetric, ±1) and the rounding of forming it. */
function memberOf(mid: Float64Array, rad: Float64Array, n: number, seed: number): Float64Array {
  const R = rng(seed);
  const G = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      const s = R() < 0 ? -1 : 1;
      G[i * n + j] = G[j * n + i] = mid[i * n + j]! + s * rad[i * n + j]!;
    }
  return G;
}

describe('lambdaMinAbove / lambdaMinLower', () => {
  it('agree with the eigenvalues of members of the box', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer(), fc.constantFrom(0, 1e-12, 1e-3, 0.3), (n, seed, r) => {
        const { mid, rad } = symmetricBox(n, seed, r);
        const lower = lambdaMinLower(mid, rad, n, eigenvalues(mid, n).values[0]!);
        for (let t = 0; t < 4; t++) {
          const G = memberOf(mid, rad, n, seed + t);
          const { values, tol } = eigenvalues(G, n);
          // forming G rounds each entry by <= eps·|G_ij|: ‖ΔG‖₂ <= eps·‖G‖_F, inside tol
          if (lower.proved) expect(values[0]!).toBeGreaterThan(lower.bound - tol);
          expect(lambdaMinAbove(mid, rad, n, values[0]! + tol)).toBe(false);
        }
        const { values, tol } = eigenvalues(mid, n);
        let radF = 0;
        for (const x of rad) radF += x * x;
        const mu = values[0]! - Math.sqrt(radF) - 1e-8 * (Math.abs(values[0]!) + 1) - tol;
        if (mu > -1e300) expect(lambdaMinAbove(mid, rad, n, mu)).toBe(true);
        expect(lambdaMinAbove(mid, rad, n, values[0]! + tol)).toBe(false);
      }),
      { numRuns: 120 },
    );
  });

  it('proves a tight lower bound for a well-conditioned point matrix, nothing for a singular one', () => {
    const n = 16;
    const { mid } = symmetricBox(n, 7, 0);
    for (let i = 0; i < n; i++) mid[i * n + i] = mid[i * n + i]! + 8; // λ_min ≈ 4, κ ≈ 3
    const zero = new Float64Array(n * n);
    const { values, tol } = eigenvalues(mid, n);
    const lower = lambdaMinLower(mid, zero, n, values[0]!);
    expect(lower.proved).toBe(true);
    expect(lower.bound).toBeLessThan(values[0]! + tol);
    expect(lower.bound).toBeGreaterThan(values[0]! * (1 - 1e-10));
    const ones = new Float64Array(n * n).fill(1); // λ_min = 0 exactly
    expect(lambdaMinLower(ones, zero, n, 1e-17)).toEqual({ bound: -Infinity, proved: false });
    expect(lambdaMinAbove(ones, zero, n, -1e-12)).toBe(true);
    expect(lambdaMinAbove(ones, zero, n, -MAX)).toBe(true);
    expect(lambdaMinAbove(ones, zero, n, -Infinity)).toBe(true);
  });

  it('scales: the same statements for the box times 2^-900 and 2^1000, nothing for non-finite entries', () => {
    const n = 6;
    const { mid, rad } = symmetricBox(n, 3, 1e-3);
    const est = eigenvalues(mid, n).values[0]!;
    const base = lambdaMinLower(mid, rad, n, est);
    for (const k of [-900, 1000]) {
      const s = 2 ** k;
      const m2 = Float64Array.from(mid, (x) => x * s);
      const r2 = Float64Array.from(rad, (x) => x * s);
      expect(lambdaMinLower(m2, r2, n, est * s)).toEqual({ bound: base.bound * s, proved: base.proved });
    }
    const bad = Float64Array.from(rad);
    bad[0] = NaN;
    expect(lambdaMinAbove(mid, bad, n, 0)).toBe(false);
    expect(lambdaMinLower(mid, bad, n, est)).toEqual({ bound: -Infinity, proved: false });
  });

  it('rejects asymmetric matrices, negative radii and a NaN mu', () => {
    const mid = Float64Array.of(2, 1, 0, 2);
    const rad = new Float64Array(4);
    expect(() => lambdaMinAbove(mid, rad, 2, 0)).toThrow(/midG\[2\] = 0/);
    expect(() => lambdaMinAbove(Float64Array.of(2, 0, 0, 2), Float64Array.of(-1, 0, 0, 0), 2, 0)).toThrow(
      /radG\[0\] = -1/,
    );
    expect(() => lambdaMinAbove(Float64Array.of(2, 0, 0, 2), rad, 2, NaN)).toThrow(/mu = NaN/);
  });
});

describe('intervalNormUpper', () => {
  it('bounds ‖J‖₂ for members J of the box, from subnormal to 1e300', () => {
    fc.assert(
      fc.property(matrixCase, fc.constantFrom(0, 1e-10, 0.1, 1), ({ rows, cols, seed, scale }, r) => {
        const mid = randomMatrix(rows, cols, seed, scale);
        const rad = Float64Array.from(randomMatrix(rows, cols, seed + 1, scale * r), Math.abs);
        const b = intervalNormUpper(mid, rad, rows, cols);
        for (let t = 0; t < 3; t++) {
          const R = rng(seed + 7 * t);
          const J = Float64Array.from(mid, (m, i) => m + (R() < 0 ? -rad[i]! : rad[i]!));
          // J is formed with a rounding of <= eps·|J_ij| per entry: inside the oracle's tolerance
          const { sigma, tol } = trueNorm(J, rows, cols);
          expect(b).toBeGreaterThanOrEqual(sigma - 2 * tol);
        }
        if (r === 0) expect(b).toBe(spectralNormUpper(mid, rows, cols).bound);
      }),
      { numRuns: 100 },
    );
  });

  it('is Infinity for a non-finite radius and rejects a negative one', () => {
    expect(intervalNormUpper(Float64Array.of(1), Float64Array.of(Infinity), 1, 1)).toBe(Infinity);
    expect(intervalNormUpper(Float64Array.of(1), Float64Array.of(NaN), 1, 1)).toBe(Infinity);
    expect(() => intervalNormUpper(Float64Array.of(1), Float64Array.of(-1), 1, 1)).toThrow(/rad\[0\] = -1/);
  });
});
