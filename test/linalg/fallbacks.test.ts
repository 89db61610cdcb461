/**
 * The fallbacks behind eigh and the singular values, reached by lowering the iteration caps
 * (src/linalg/iterationCaps.ts; on real inputs these methods always converge):
 * - divide and conquer → QL on the tridiagonal (dsyev method 1, when a secular equation fails);
 * - dqds → root-free QL on the Golub–Kahan tridiagonal (the wasm kernel dbdsvdvals);
 * - both QL runs → the preconditioned Jacobi of svdOfR, or plain Jacobi when eigh fails too.
 * Each test shows that the fallback ran — its result equals, bit for bit, what the fallback method
 * gives as a path of its own where it has one (QL's eigenvalues: dsyev values-only; Jacobi: the
 * values of the vectors path), and otherwise the property that tells the two methods apart
 * (Golub–Kahan QL is accurate only normwise, dqds relatively: on a graded bidiagonal the small σ
 * of the capped kernel leave dqds's relative bound and stay within QL's absolute one of Kahan's
 * bisection) — and that the result keeps the documented accuracy. Bounds as in dstedc.test.ts
 * (eigenpairs: residual and orthogonality <= 8 in units of n·eps) and bidiag.test.ts (absolute σ:
 * within c·m·eps·σ_max, c = 8 for each of the two backward-stable methods compared).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eigh, nullSpace, svdvals } from '../../src/linalg/api.js';
import { DEFAULT_ITERATION_CAPS, iterationCaps, setIterationCaps } from '../../src/linalg/iterationCaps.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { SYEV_METHOD } from '../../src/linalg/wasmBackend.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { LINALG_BACKENDS } from '../util/backends.js';
import {
  bidiagonals,
  kernelBidiagonal,
  dependentStack,
  EPS,
  frob,
  kernelSyev,
  orthoError,
  randomBidiagonal,
  randomSymmetric,
} from './cases.js';
import { bidiagonalBisection } from './oracles.js';

useArenaGuard();
afterEach(() => setIterationCaps());

/** ||SV − VΛ||_F / (n·eps·||S||_F), V with column j the eigenvector of values[j]. */
function scaledResidual(S: Float64Array, n: number, values: ArrayLike<number>, V: ArrayLike<number>): number {
  let r = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += S[i * n + k]! * V[k * n + j]!;
      r += (s - values[j]! * V[i * n + j]!) ** 2;
    }
  return Math.sqrt(r) / (n * EPS * frob(S));
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, m: number): void {
  const bound = 2 * 8 * m * EPS * Math.max(...Array.from(want, Math.abs));
  for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!), `σ_${i}`).toBeLessThanOrEqual(bound);
}

/** R of a 2m×m Gaussian stack whose last column is the sum of columns 1 and 2 (nullity 1, balanced). */
function rFactor(seed: number, m: number): StreamingQR {
  return new StreamingQR(m).push(dependentStack(seed, m, [m - 1]), 2 * m);
}

describe('divide and conquer gives up: QL on the tridiagonal', () => {
  const n = 128; // >= SYEV_BLOCKED_MIN: the divide-and-conquer path

  it('wasm dsyev method 1 with no secular iteration allowed: eigenvalues are QL’s, eigenpairs within the bounds', () => {
    const S = randomSymmetric(31, n);
    const ql = kernelSyev(S, n, 32, SYEV_METHOD.valuesOnly).values;
    const dc = kernelSyev(S, n, 32, SYEV_METHOD.divideAndConquer);
    // uncapped, the eigenvalues are the secular roots, not QL's (some differ in the last bits)
    expect(Array.from(dc.values)).not.toEqual(Array.from(ql));
    setIterationCaps({ secular: 0 });
    const fb = kernelSyev(S, n, 32, SYEV_METHOD.divideAndConquer);
    expect(fb.it).toBeGreaterThan(0);
    // QL's eigenvalue iteration does not depend on whether vectors are accumulated: bit for bit
    expect(Array.from(fb.values)).toEqual(Array.from(ql));
    expect(scaledResidual(S, n, fb.values, fb.V)).toBeLessThanOrEqual(8);
    expect(orthoError(fb.V, n, n) / (n * EPS)).toBeLessThanOrEqual(8);
  });

  it('the public eigh takes the same fallback and reports QL’s iterations', () => {
    const S = randomSymmetric(32, n);
    setIterationCaps({ secular: 0 });
    const r = eigh(S, n);
    expect(Array.from(r.values)).toEqual(Array.from(kernelSyev(S, n, 32, SYEV_METHOD.valuesOnly).values));
    expect(scaledResidual(S, n, r.values, r.vectors)).toBeLessThanOrEqual(8);
  });

  it('when QL cannot converge either, eigh throws (wasm and TypeScript backends) instead of returning numbers', () => {
    const S = randomSymmetric(33, n);
    setIterationCaps({ secular: 0, qlPerValue: 0 });
    expect(() => eigh(S, n)).toThrow(/did not converge for n = 128/);
    expect(() => eigh(S, n, { backend: 'reference' })).toThrow(/did not converge for n = 128/);
  });
});

describe('dqds gives up: QL on the Golub–Kahan tridiagonal', () => {
  it.each(bidiagonals({ tags: ['random'], exclude: ['split'] }).map((c) => [c.name, c] as const))(
    '%s: the capped kernel reports QL’s iterations, σ within the bound of dqds and of bisection',
    (_title, c) => {
      const { d, e, m } = c.build();
      const dqds = kernelBidiagonal(d, e, m);
      expect(dqds.it).toBeGreaterThanOrEqual(0);
      setIterationCaps({ dqdsPerValue: 0 });
      const gk = kernelBidiagonal(d, e, m);
      expect(gk.it).toBeGreaterThan(0);
      expect(Array.from(gk.sigma)).not.toEqual(Array.from(dqds.sigma)); // another method ran
      expectClose(gk.sigma, dqds.sigma, m);
      expectClose(gk.sigma, bidiagonalBisection(d, e, m), m);
    },
  );

  it('on a graded bidiagonal the fallback is QL’s: small σ only to the absolute bound, where dqds is relatively exact', () => {
    const { d, e, m } = bidiagonals({ tags: ['graded', 'tiny'] })[0]!.build();
    const want = bidiagonalBisection(d, e, m);
    const relative = (sigma: Float64Array): number =>
      Math.max(...Array.from(sigma, (x, k) => Math.abs(x - want[k]!) / (m * EPS * want[k]!)));
    const dqds = kernelBidiagonal(d, e, m).sigma;
    expect(relative(dqds)).toBeLessThanOrEqual(4); // bidiag.test.ts: dqds is relatively accurate
    setIterationCaps({ dqdsPerValue: 0 });
    const gk = kernelBidiagonal(d, e, m);
    expect(gk.it).toBeGreaterThan(0);
    // σ down to 1e-300 against σ_max = 1.25: QL's absolute error ~m·eps is far above them
    expect(relative(gk.sigma)).toBeGreaterThan(1e10);
    expectClose(gk.sigma, want, m);
  });

  it('svdvals of a balanced R through the bidiagonal path still gives σ within the bound', () => {
    const qr = rFactor(43, 64);
    const want = qr.svdvals();
    setIterationCaps({ dqdsPerValue: 0 });
    expectClose(qr.svdvals(), want, 64);
  });
});

describe('both QL runs give up: Jacobi', () => {
  it('dbdsvdvals reports failure (−1) and writes nothing', () => {
    const { d, e, m } = randomBidiagonal(51, 52, 20);
    setIterationCaps({ dqdsPerValue: 0, qlPerValue: 0 });
    const r = kernelBidiagonal(d, e, m);
    expect(r.it).toBe(-1);
    expect(Array.from(r.sigma)).toEqual(new Array(m).fill(0));
  });

  it.each(LINALG_BACKENDS)(
    'svdvals and nullSpace of a balanced R (%s backend): the Jacobi fallback gives the same σ and rank',
    (backend) => {
      const m = 64;
      const qr = rFactor(53, m);
      const R = qr.r();
      const want = svdvals(R, m, m, { backend });
      const rank = nullSpace(R, m, m, { backend });
      expect(rank.nullity).toBe(1);
      // eigh fails too (its QL leaves and the QL fallback), so svdOfR takes plain Jacobi
      setIterationCaps({ dqdsPerValue: 0, qlPerValue: 0 });
      const got = svdvals(R, m, m, { backend });
      expectClose(got, want, m);
      const ns = nullSpace(R, m, m, { backend });
      expect(ns.rank).toBe(rank.rank);
      expect(Array.from(ns.singularValues)).toEqual(Array.from(got)); // one Jacobi, with and without vectors
    },
  );
});

describe('setIterationCaps', () => {
  it('restores the defaults when called without caps, and rejects a bad cap without changing any', () => {
    setIterationCaps({ secular: 3, qlPerValue: 7 });
    expect(iterationCaps).toEqual({ ...DEFAULT_ITERATION_CAPS, secular: 3, qlPerValue: 7 });
    expect(() => setIterationCaps({ dqdsPerValue: -1 })).toThrow(
      'caps.dqdsPerValue = -1: must be an integer in [0, 1000]',
    );
    expect(() => setIterationCaps({ secular: 2.5 })).toThrow(/caps\.secular = 2\.5/);
    expect(iterationCaps).toEqual({ ...DEFAULT_ITERATION_CAPS, secular: 3, qlPerValue: 7 });
    setIterationCaps();
    expect(iterationCaps).toEqual(DEFAULT_ITERATION_CAPS);
  });
});
