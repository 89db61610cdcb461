/**
 * Divide and conquer on the tridiagonal (assembly/linalg/dstedc.ts, dsyev method 1): the eigh main
 * path from n = SYEV_BLOCKED_MIN. Real wasm kernels, through the public `eigh` and StreamingQR and
 * through the dsyev kernel directly (to reach the sizes below the threshold and every panel width).
 *
 * Bounds, derived from backward stability as the existing eigh tests state it (syev.test.ts): the
 * computed pairs are exact for S + E with ||E||_F <= c·n·eps·||S||_F, c = 8 (Householder + QL or
 * the secular solves: a modest multiple of n·eps, room for the SIMD summation order). Hence
 * - scaled residual ||SV − VΛ||_F / (n·eps·||S||_F) = ||EV||_F / (n·eps·||S||_F) <= 8 (V orthogonal);
 * - orthogonality max|VᵀV − I| / (n·eps) <= 8: Gu–Eisenstat's recomputed z makes the vectors of
 *   each merge orthogonal to O(eps) whatever the eigenvalue gaps (no gap in the bound), the gemm
 *   products add O(n·eps);
 * - eigenvalues of two backward-stable methods agree within 2·8·n·eps·||S||_F (Weyl).
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { eigh, gram } from '../../src/linalg/api.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { SYEV_BLOCKED_MIN, SYEV_METHOD, syevMethod } from '../../src/linalg/wasmBackend.js';
import { cases, dependentStack, EPS, kernelSyev, orthoError, randomSymmetric, withSpectrum } from './cases.js';
import { tridiagonalBisection, tridiagonalOf } from './oracles.js';
import { useArenaGuard } from '../util/arenaGuard.js';

useArenaGuard();

const C = 8;

function frob(S: ArrayLike<number>): number {
  let s = 0;
  for (let k = 0; k < S.length; k++) s += S[k]! * S[k]!;
  return Math.sqrt(s);
}

/** ||SV − VΛ||_F / (n·eps·||S||_F) (0 for S = 0). */
function scaledResidual(S: Float64Array, n: number, values: ArrayLike<number>, V: Float64Array): number {
  const norm = frob(S);
  if (norm === 0) return 0;
  let r = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += S[i * n + k]! * V[k * n + j]!;
      const d = s - values[j]! * V[i * n + j]!;
      r += d * d;
    }
  return Math.sqrt(r) / (n * EPS * norm);
}

function expectEigenpairs(S: Float64Array, n: number, values: ArrayLike<number>, V: Float64Array): void {
  expect(scaledResidual(S, n, values, V), 'scaled residual').toBeLessThanOrEqual(C);
  expect(orthoError(V, n, n) / (n * EPS), 'scaled |VᵀV − I|').toBeLessThanOrEqual(C);
  for (let j = 1; j < n; j++) expect(values[j]!).toBeGreaterThanOrEqual(values[j - 1]!);
}

/** Eigenvalues of the D&C path against values-only QL (method 2): within 2·C·n·eps·||S||_F. */
function expectValuesAgree(S: Float64Array, n: number, values: ArrayLike<number>): void {
  const ref = kernelSyev(S, n, 32, SYEV_METHOD.valuesOnly).values;
  const bound = 2 * C * n * EPS * frob(S);
  for (let j = 0; j < n; j++) expect(Math.abs(values[j]! - ref[j]!)).toBeLessThanOrEqual(bound);
}

/** RᵀR/||R||²_max of the R factor of a 2m×m normal stack; with `deps`, two exact column dependencies. */
function gramOfR(seed: number, m: number, deps: boolean): Float64Array {
  const rows = 2 * m;
  const A = dependentStack(seed, m, deps ? [m - 1, m - 2] : []);
  const R = new StreamingQR(m).push(A, rows).r();
  const G = gram(R, m, m);
  let mx = 0;
  for (const x of G) mx = Math.max(mx, Math.abs(x));
  return G.map((x) => x / mx);
}

describe('eigh takes divide and conquer from SYEV_BLOCKED_MIN', () => {
  it('dispatch', () => {
    expect(syevMethod(SYEV_BLOCKED_MIN).method).toBe(SYEV_METHOD.divideAndConquer);
    expect(syevMethod(SYEV_BLOCKED_MIN - 1).method).toBe(SYEV_METHOD.qlRotations);
  });
});

describe('divide and conquer (dsyev method 1): residual and orthogonality in units of n·eps', () => {
  it.each([1, 2, 3, 25, 26, 27, 51, 100, 300])('random symmetric n = %i (leaf size 25 crossed)', (n) => {
    const S = randomSymmetric(n, n);
    const r = kernelSyev(S, n, 32, SYEV_METHOD.divideAndConquer);
    expect(r.it).toBeGreaterThanOrEqual(0);
    expectEigenpairs(S, n, r.values, r.V);
    expectValuesAgree(S, n, r.values);
  });

  it('the public eigh at n = 100 and 300 (the D&C path): the same bounds', () => {
    for (const n of [100, 300]) {
      const S = randomSymmetric(7 * n, n);
      const { values, vectors } = eigh(S, n);
      expectEigenpairs(S, n, values, vectors);
      expectValuesAgree(S, n, values);
    }
  });

  it('RᵀR of a random R and of an R with two exact dependencies (the null-space preconditioner), n = 100, 300', () => {
    for (const n of [100, 300])
      for (const deps of [false, true]) {
        const G = gramOfR(n + 11, n, deps);
        // as svdFromR hands it over: shifted by the mean eigenvalue
        let tr = 0;
        for (let i = 0; i < n; i++) tr += G[i * n + i]!;
        const Gs = Float64Array.from(G);
        for (let i = 0; i < n; i++) Gs[i * n + i]! -= tr / n;
        for (const M of [G, Gs]) {
          const { values, vectors } = eigh(M, n);
          expectEigenpairs(M, n, values, vectors);
          expectValuesAgree(M, n, values);
        }
        if (deps) {
          // two eigenvalues within the backward error of 0 (G is PSD with a 2-dimensional kernel)
          const { values } = eigh(G, n);
          const bound = C * n * EPS * frob(G);
          expect(Math.abs(values[0]!)).toBeLessThanOrEqual(bound);
          expect(Math.abs(values[1]!)).toBeLessThanOrEqual(bound);
          expect(values[2]!).toBeGreaterThan(1e3 * bound);
        }
      }
  });

  // the evenly spread spectrum (gaps 1/n: no deflation) and the heavily clustered one (three
  // eigenvalues of multiplicity 80, 60, 60 and a cluster 1e-14 wide: deflation), at D&C sizes
  it.each(cases({ tags: ['symmetric', 'exact-rank'], exclude: ['rank-deficient'] }).map((c) => [c.name, c] as const))(
    '%s: the eigenpair bounds, and the values within C·n·eps·||S||_F of λ',
    (_title, c) => {
      const { A: S, rows: n, lambda } = c.build();
      const { values, vectors } = eigh(S, n);
      expectEigenpairs(S, n, values, vectors);
      // S was formed with rounding ~n·eps per entry: the values within C·n·eps·||S||_F of λ
      for (let j = 0; j < n; j++) expect(Math.abs(values[j]! - lambda![j]!)).toBeLessThanOrEqual(C * n * EPS * frob(S));
    },
  );

  it.each(cases({ tags: ['symmetric', 'tridiagonal', 'clustered'] }).map((c) => [c.name, c] as const))(
    'Wilkinson %s: pairs agreeing to ~1e-14 (across copies when glued), the bounds and the Sturm oracle',
    (_title, c) => {
      const { A: S, rows: n } = c.build();
      const r = kernelSyev(S, n, n > 41 ? 32 : 8, SYEV_METHOD.divideAndConquer);
      expectEigenpairs(S, n, r.values, r.V);
      expectValuesAgree(S, n, r.values);
      // exact invariants: Σλ = tr S, Σλ² = ||S||_F²
      let tr = 0;
      for (let i = 0; i < n; i++) tr += S[i * n + i]!;
      const f2 = frob(S) ** 2;
      expect(Math.abs(r.values.reduce((a, b) => a + b, 0) - tr)).toBeLessThanOrEqual(C * n * EPS * frob(S) * n);
      expect(Math.abs(r.values.reduce((a, b) => a + b * b, 0) - f2)).toBeLessThanOrEqual(2 * C * n * EPS * f2 * n);
      // Sturm-count bisection on the tridiagonal (./oracles.ts): within C·n·eps·||S||_F each
      const { d, e } = tridiagonalOf(S, n);
      const want = tridiagonalBisection(d, e, n);
      for (let j = 0; j < n; j++) expect(Math.abs(r.values[j]! - want[j]!)).toBeLessThanOrEqual(C * n * EPS * frob(S));
    },
  );

  it('diagonal: the sorted diagonal exactly, the vectors a permutation (|VᵀV − I| = 0)', () => {
    const n = 150;
    const D = new Float64Array(n * n);
    const diag = Array.from({ length: n }, (_, i) => ((i * 37) % n) - 60);
    diag.forEach((x, i) => (D[i * n + i] = x));
    const { values, vectors } = eigh(D, n);
    expect(Array.from(values)).toEqual([...diag].sort((a, b) => a - b));
    expect(orthoError(vectors, n, n)).toBe(0);
  });

  it('zero matrix: zero values, identity vectors; n = 1 and 2', () => {
    const n = 130;
    const z = eigh(new Float64Array(n * n), n);
    expect(z.values.every((x) => x === 0)).toBe(true);
    expect(orthoError(z.vectors, n, n)).toBe(0);
    const one = kernelSyev(Float64Array.of(-3), 1, 32, SYEV_METHOD.divideAndConquer);
    expect(Array.from(one.values)).toEqual([-3]);
    expect(Math.abs(one.V[0]!)).toBe(1);
    const S2 = Float64Array.of(2, 1, 1, 2);
    const two = kernelSyev(S2, 2, 32, SYEV_METHOD.divideAndConquer);
    expectEigenpairs(S2, 2, two.values, two.V);
  });

  it('1e±300 scaled entries: s·λ of the unscaled matrix, orthonormal vectors', () => {
    const n = 140;
    const S = randomSymmetric(5, n);
    const base = eigh(S, n);
    for (const s of [1e300, 1e-300]) {
      const r = eigh(
        S.map((x) => x * s),
        n,
      );
      for (let j = 0; j < n; j++)
        expect(Math.abs(r.values[j]! / s - base.values[j]!)).toBeLessThanOrEqual(2 * C * n * EPS * frob(S));
      expect(orthoError(r.vectors, n, n) / (n * EPS)).toBeLessThanOrEqual(C);
      expect(
        scaledResidual(
          S,
          n,
          r.values.map((x) => x / s),
          r.vectors,
        ),
      ).toBeLessThanOrEqual(2 * C);
    }
  });

  fcTest.prop(
    [
      fc.integer({ min: 1, max: 140 }),
      fc.constantFrom(0, 8, 32),
      fc.integer({ min: 1, max: 10_000 }),
      fc.constantFrom('random', 'spread', 'clustered', 'graded'),
    ],
    { numRuns: 30 },
  )('any size, panel width and spectrum: the bounds hold', (n, panel, seed, kind) => {
    let S: Float64Array;
    if (kind === 'random') S = randomSymmetric(seed, n);
    else {
      const lambda = Array.from({ length: n }, (_, i) =>
        kind === 'spread' ? i / n : kind === 'clustered' ? (i * 7 + seed) % 4 : 2 ** -(i % 40),
      );
      S = withSpectrum(seed, lambda);
    }
    const r = kernelSyev(S, n, panel, SYEV_METHOD.divideAndConquer);
    expect(r.it).toBeGreaterThanOrEqual(0);
    expectEigenpairs(S, n, r.values, r.V);
    expectValuesAgree(S, n, r.values);
  });
});
