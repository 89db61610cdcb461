/**
 * Singular values without vectors (LinalgBackend.squareSvdvals), the path svdvals, rank and
 * StreamingQR.svdvals take for R with balanced columns from PRECONDITION_MIN_SIZE on. The wasm
 * kernel is Householder bidiagonalisation and dqds on the bidiagonal, with root-free QL on the
 * Golub–Kahan tridiagonal as its fallback (assembly/linalg/dgebrd.ts); the reference backend
 * computes the same values by plain one-sided Jacobi (src/linalg/gesvj.ts jacobiSvdvals). Neither
 * is checked against the other's code: both are held to independent oracles (./oracles.ts) —
 * ml-matrix's SVD, closed-form spectra, and Kahan's bisection for the bidiagonal itself.
 *
 * The bound every comparison uses, BOUND·m·eps·σ_max with BOUND = 4: the wasm path is normwise
 * backward stable — each of the 2m reflectors is applied with a backward error of a few eps times
 * the norm of what it acts on (Higham, Lemma 19.2), at most ||sA||, and dqds (or QL) adds
 * c'·eps·||B|| with c' at most a few m (dqds is relatively accurate, see the last block; QL's
 * deflation is relative, below eps·||B||) — so by Weyl |σ̂_i − σ_i| <= (2·c·m + c')·eps·σ_max;
 * BOUND = 4 allows c = 2 eps per reflector application (seen against LAPACK dgesdd:
 * <= 15·eps·σ_max, i.e. <= 0.05·m·eps·σ_max, at m = 256 … 1024). Jacobi is relatively accurate
 * (~m·eps·κ(column-scaled A) per value), far inside it. ml-matrix's SVD is normwise backward
 * stable too (within 0.6·m·eps·σ_max of Jacobi on these sizes), so a computed value and the oracle
 * are each within BOUND·m·eps·σ_max of the exact one: comparisons with it allow twice the bound.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { rank, svdvals } from '../../src/linalg/api.js';
import { setIterationCaps } from '../../src/linalg/iterationCaps.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { PRECONDITION_MIN_SIZE, svdOfR } from '../../src/linalg/svdFromR.js';
import type { BackendName } from '../../src/wasm/backend.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS } from '../util/backends.js';
import { bidiagonals, cases, dependentStack, EPS, kernelBidiagonal, onesBidiagonal, randn } from './cases.js';
import { bidiagonalBisection, svdvalsOracle } from './oracles.js';

useArenaGuard();
afterEach(() => setIterationCaps());

/** Multiple of m·eps·σ_max within which computed σ lie (derived in the file comment). */
const BOUND = 4;

/** R of a rows×m stack through the streaming QR. */
function rOf(A: Float64Array, rows: number, m: number, backend: BackendName): Float64Array {
  return new StreamingQR(m, { backend }).push(A, rows).r();
}

/** got descending, finite, >= 0, and each within BOUND·m·eps·smax of want. */
function expectWithin(got: Float64Array, want: ArrayLike<number>, m: number, smax: number): void {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    expect(Number.isFinite(got[i]!)).toBe(true);
    expect(got[i]!).toBeGreaterThanOrEqual(0);
    if (i > 0) expect(got[i]!).toBeLessThanOrEqual(got[i - 1]!);
    worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
  }
  expect(worst).toBeLessThanOrEqual(BOUND * m * EPS * smax);
}

/** got against the ml-matrix oracle on the same square matrix: each within the bound, so twice it. */
function expectOracle(got: Float64Array, A: Float64Array, m: number): void {
  const want = svdvalsOracle(A, m, m);
  expectWithin(got, want, 2 * m, want[0]!);
}

describeBackends(LINALG_BACKENDS, 'square singular values without vectors (%s)', (name, b) => {
  it.each(cases({ tags: ['stack'], exclude: ['rank-deficient'] }).map((c) => [c.name, c] as const))(
    '%s: the squareSvdvals path, σ of R within the bound of the ml-matrix oracle',
    (_title, c) => {
      const { A, rows, cols: m } = c.build();
      const R = rOf(A, rows, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0); // the squareSvdvals path ran
      expect(got.rightVectorsT.length).toBe(0);
      expectOracle(got.singularValues, R, m);
    },
  );

  it.each(cases({ tags: ['stack', 'rank-deficient'] }).map((c) => [c.name, c] as const))(
    '%s: two σ at the rounding level, the same rank and tolerance as the vectors path',
    (_title, c) => {
      const { A, rows, cols: m, rank: exactRank } = c.build();
      const qr = new StreamingQR(m, { backend: name }).push(A, rows);
      const R = qr.r();
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      expectOracle(got.singularValues, R, m);
      const smax = got.singularValues[0]!;
      expect(got.singularValues[m - 2]!).toBeLessThanOrEqual(2 * BOUND * m * EPS * smax);
      // rank decisions: StreamingQR.rank and rank(R) (values) against nullSpace (vectors, Jacobi)
      const byValues = qr.rank();
      const onR = rank(R, m, m, { backend: name });
      const byVectors = qr.nullSpace();
      expect(byValues.rank).toBe(exactRank);
      expect(onR.rank).toBe(exactRank);
      expect(byVectors.rank).toBe(exactRank);
      // the tolerance is rtol·σ_max: σ_max agrees to the bound, so the tolerances to BOUND·m·eps relative
      expect(Math.abs(byValues.tolerance - byVectors.tolerance)).toBeLessThanOrEqual(
        BOUND * m * EPS * byVectors.tolerance,
      );
      // rank(R) sees an m×m matrix: rtol = m·eps against the stack's 2m·eps
      expect(Math.abs(2 * onR.tolerance - byVectors.tolerance)).toBeLessThanOrEqual(
        2 * BOUND * m * EPS * byVectors.tolerance,
      );
    },
  );

  // the graded cases from PRECONDITION_MIN_SIZE on (below it Jacobi runs: gesvj.test.ts checks those relatively)
  const graded = cases({ tags: ['graded', 'exact-rank'], exclude: ['edge'] }).filter(
    (c) => c.build().cols >= PRECONDITION_MIN_SIZE,
  );
  it.each(graded.map((c) => [c.name, c] as const))(
    '%s: σ to the bound of the closed form and of the oracle',
    (_title, c) => {
      const { A, rows, cols: m, sigma } = c.build();
      const R = rOf(A, rows, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      expectOracle(got.singularValues, R, m);
      // against the closed form: the QR's own backward error (c·m·eps·||A||) adds to the bound
      expectWithin(got.singularValues, sigma!, 2 * m, 1);
      // the public svdvals on A takes the same path and gives the same values
      expect(Array.from(svdvals(A, m, m, { backend: name }))).toEqual(Array.from(got.singularValues));
    },
  );

  it('entries scaled by 2^±900 (1e±271): the exact power-of-two scaling gives the same σ scaled, bit for bit', () => {
    const m = 64;
    const R = rOf(dependentStack(11, m), 2 * m, m, name);
    let tiny = Infinity;
    for (const x of R) if (x !== 0) tiny = Math.min(tiny, Math.abs(x));
    expect(tiny * 2 ** -900).toBeGreaterThan(2 ** -1022); // every entry stays normal
    const base = svdOfR(b, R, m, false).singularValues;
    for (const e of [900, -900]) {
      const Rs = R.map((x) => x * 2 ** e);
      const got = svdOfR(b, Rs, m, false);
      expect(got.sweeps).toBe(0);
      expect(Array.from(got.singularValues)).toEqual(Array.from(base, (x) => x * 2 ** e));
      const d = rank(Rs, m, m, { backend: name });
      expect(d.rank).toBe(m - 2);
      expect(Number.isFinite(d.tolerance) && d.tolerance > 0).toBe(true);
    }
  });

  it('entries near 1e300 and 1e-300 in a balanced R: finite, within the bound of the oracle', () => {
    const m = 64;
    for (const scale of [1e300, 1e-300]) {
      const A = dependentStack(5, m).map((x) => x * scale);
      const R = rOf(A, 2 * m, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      expectOracle(got.singularValues, R, m); // the oracle scales exactly before its SVD
      expect(rank(A, 2 * m, m, { backend: name }).rank).toBe(m - 2);
    }
  });

  it('zero R: all σ = 0, rank 0 with tolerance 0 (the zero columns take plain Jacobi); the kernel itself gives zeros', () => {
    const m = 64;
    const Z = new Float64Array(m * m);
    expect(Array.from(svdvals(Z, m, m, { backend: name }))).toEqual(new Array<number>(m).fill(0));
    const d = rank(Z, m, m, { backend: name });
    expect(d.rank).toBe(0);
    expect(d.tolerance).toBe(0);
    const out = new Float64Array(m).fill(NaN);
    expect(b.squareSvdvals(Z, m, 1, out)).toBeGreaterThanOrEqual(0);
    expect(Array.from(out)).toEqual(new Array<number>(m).fill(0));
  });

  it('m crossing PRECONDITION_MIN_SIZE: Jacobi below, squareSvdvals from it on, the same σ to the bound and the same rank', () => {
    for (const m of [PRECONDITION_MIN_SIZE - 1, PRECONDITION_MIN_SIZE, PRECONDITION_MIN_SIZE + 1]) {
      const R = rOf(dependentStack(m, m), 2 * m, m, name);
      const values = svdOfR(b, R, m, false);
      const withVectors = svdOfR(b, R, m, true);
      if (m < PRECONDITION_MIN_SIZE) expect(values.sweeps).toBeGreaterThan(0);
      else expect(values.sweeps).toBe(0);
      expectWithin(values.singularValues, withVectors.singularValues, m, withVectors.singularValues[0]!);
      expect(rank(R, m, m, { backend: name }).rank).toBe(m - 2);
    }
  });

  it('the kernel on 2^-665·G (wasm: every |α − β| below 2^-500, the next w by its own pass) = 2^-665·σ(G)', () => {
    const m = 40;
    const G = randn(17, m * m);
    const want = new Float64Array(m);
    expect(b.squareSvdvals(G, m, 1, want)).toBeGreaterThanOrEqual(0);
    expectOracle(want, G, m);
    const got = new Float64Array(m);
    expect(
      b.squareSvdvals(
        G.map((x) => x * 2 ** -665),
        m,
        1,
        got,
      ),
    ).toBeGreaterThanOrEqual(0);
    expectWithin(
      got.map((x) => x * 2 ** 665),
      want,
      m,
      want[0]!,
    );
  });

  it('small sides: m = 1 gives |a|, m = 2 the closed form', () => {
    const one = new Float64Array(1);
    b.squareSvdvals(Float64Array.of(-3), 1, 1, one);
    expect(one[0]).toBe(3);
    // [[a, b], [0, d]]: σ1·σ2 = |a·d|, σ1² + σ2² = a² + b² + d²
    const two = new Float64Array(2);
    b.squareSvdvals(Float64Array.of(3, 4, 0, 5), 2, 1, two);
    expect(Math.abs(two[0]! * two[1]! - 15)).toBeLessThanOrEqual(8 * EPS * 15);
    expect(Math.abs(two[0]! ** 2 + two[1]! ** 2 - 50)).toBeLessThanOrEqual(8 * EPS * 50);
  });
});

describe('square singular values: the two backends’ independent methods agree', () => {
  fcTest.prop(
    [
      fc.integer({ min: 1, max: 90 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.double({ min: 0, max: 14, noNaN: true }),
      fc.integer({ min: -600, max: 600 }),
    ],
    { numRuns: 40 },
  )(
    'random sizes, spectra (column scales 10^0 … 10^-g) and power-of-two scales: within 2·BOUND·m·eps·σ_max, Σσ² = ||A||_F²',
    (m, seed, g, e) => {
      const A = randn(seed, m * m);
      for (let j = 0; j < m; j++) {
        const c = 10 ** ((-g * j) / Math.max(1, m - 1));
        for (let i = 0; i < m; i++) A[i * m + j]! *= c * 2 ** e;
      }
      let amax = 0;
      let f2 = 0;
      for (const x of A) amax = Math.max(amax, Math.abs(x));
      const s = 2 ** -Math.floor(Math.log2(amax)); // max|s·a| in [1, 2), exact
      for (const x of A) f2 += (x * s) ** 2;
      const ts = new Float64Array(m);
      const wa = new Float64Array(m);
      expect(LINALG.reference.squareSvdvals(A, m, s, ts)).toBeGreaterThanOrEqual(0);
      expect(LINALG.wasm.squareSvdvals(A, m, s, wa)).toBeGreaterThanOrEqual(0);
      // each within BOUND·m·eps·σ_max of the exact σ(s·A), so of each other within twice that
      expectWithin(wa, ts, 2 * m, ts[0]!);
      // Σσ_i² = ||sA||_F²: |Σσ̂² − Σσ²| <= Σ 2σ_i·δ + δ² with δ = BOUND·m·eps·σ_max
      const sum2 = wa.reduce((acc, x) => acc + x * x, 0);
      const delta = BOUND * m * EPS * wa[0]!;
      expect(Math.abs(sum2 - f2)).toBeLessThanOrEqual(m * (2 * wa[0]! * delta + delta * delta) + m * EPS * f2);
    },
  );
});

/** Which method of the wasm kernel dbdsvdvals runs: dqds, or (dqds capped at 0) Golub–Kahan QL. */
type BidiagonalPath = 'dqds' | 'golub-kahan';

/** σ of the bidiagonal (d, e) by the wasm kernel dbdsvdvals on the given path, with its return value. */
function wasmBidiagonal(
  d: Float64Array,
  e: Float64Array,
  m: number,
  path: BidiagonalPath,
): { it: number; sigma: Float64Array } {
  setIterationCaps(path === 'dqds' ? {} : { dqdsPerValue: 0 });
  try {
    return kernelBidiagonal(d, e, m);
  } finally {
    setIterationCaps();
  }
}

/** σ by the given path, checked to have converged. */
function sigmaOf(d: Float64Array, e: Float64Array, m: number, path: BidiagonalPath): Float64Array {
  const r = wasmBidiagonal(d, e, m, path);
  expect(r.it).toBeGreaterThanOrEqual(0);
  return r.sigma;
}

describe.each<BidiagonalPath>(['dqds', 'golub-kahan'])('singular values of a bidiagonal (wasm, %s)', (path) => {
  it.each(bidiagonals({ tags: ['exact-rank'], exclude: ['huge', 'tiny'] }).map((c) => [c.name, c] as const))(
    '%s: σ_k = 2·cos(kπ/(2m+1)) (the path graph on 2m vertices) to the normwise bound',
    (_title, c) => {
      const { d, e, m, sigma } = c.build();
      expectWithin(sigmaOf(d, e, m, path), sigma!, m, 2);
    },
  );

  it.each(bidiagonals({ tags: ['zero', 'rank-deficient'] }).map((c) => [c.name, c] as const))(
    '%s: one σ at the rounding level, the others those of the two blocks (bisection oracle)',
    (_title, c) => {
      const { d, e, m } = c.build();
      const got = sigmaOf(d, e, m, path);
      const want = bidiagonalBisection(d, e, m);
      // det B = Π d_i = 0: σ_min = 0 exactly, computed within the bound
      expect(got[m - 1]!).toBeLessThanOrEqual(BOUND * m * EPS * got[0]!);
      expectWithin(got.subarray(0, m - 1), want.subarray(0, m - 1), 2 * m, want[0]!);
    },
  );

  it('entries at 2^-665 and 2^665: the exact scaling before QL keeps every σ (QL multiplies two off-diagonals)', () => {
    const m = 30;
    const { d, e, sigma } = onesBidiagonal(m);
    for (const scale of [2 ** -665, 2 ** 665]) {
      const got = sigmaOf(
        d.map((x) => x * scale),
        e.map((x) => x * scale),
        m,
        path,
      );
      expectWithin(
        got.map((x) => x / scale),
        sigma!,
        m,
        2,
      );
    }
  });
});

/**
 * dqds (LAPACK dlasq1–dlasq6) has HIGH RELATIVE accuracy: each σ of a bidiagonal comes out to a
 * small multiple of m·eps of ITSELF, however small it is against σ_max. Small relative changes of
 * the entries of a bidiagonal move each σ by at most the same relative amount times 2m−1
 * (Demmel–Kahan 1990, Thm 2), every qd transform changes each entry by a few ulps
 * (Fernando–Parlett 1994), and deflation is relative (100·eps), so the bound used is
 * BOUND·m·eps·σ_k per value (BOUND as above: 4). The oracle is Kahan's bisection on the
 * zero-diagonal Golub–Kahan tridiagonal (./oracles.ts), relatively accurate too. The Golub–Kahan
 * QL fallback is only normwise accurate: on the graded bidiagonals it is held to the absolute
 * bound, and the relative test tells the two methods apart (fallbacks.test.ts).
 */
describe('singular values of a bidiagonal by dqds (high relative accuracy)', () => {
  /** Each got[k] within BOUND·m·eps·want[k] of want[k] (relative, per value), descending, finite. */
  function expectRelative(got: Float64Array, want: ArrayLike<number>, m: number): void {
    expect(got.length).toBe(want.length);
    for (let k = 0; k < want.length; k++) {
      expect(Number.isFinite(got[k]!)).toBe(true);
      if (k > 0) expect(got[k]!).toBeLessThanOrEqual(got[k - 1]!);
      expect(Math.abs(got[k]! - want[k]!)).toBeLessThanOrEqual(BOUND * Math.max(m, 2) * EPS * want[k]!);
    }
  }

  it.each(bidiagonals({ tags: ['graded', 'tiny'] }).map((c) => [c.name, c] as const))(
    '%s: every σ to BOUND·m·eps of itself (bisection oracle); the two orders give the same σ',
    (_title, c) => {
      const { d, e, m } = c.build();
      const want = bidiagonalBisection(d, e, m);
      expect(want[m - 1]!).toBeLessThan(1e-290); // the grading spans the range
      expectRelative(sigmaOf(d, e, m, 'dqds'), want, m);
      // the flip has the same σ: the oracle of the first entry holds for both
      const first = bidiagonals({ tags: ['graded', 'tiny'] })[0]!.build();
      expectRelative(sigmaOf(d, e, m, 'dqds'), bidiagonalBisection(first.d, first.e, first.m), m);
    },
  );

  it('the Golub–Kahan fallback on the bidiagonal graded downward (1 … 1e-300): within the absolute bound of bisection', () => {
    // Normwise only, and on this orientation: root-free QL squares the off-diagonals, and on the
    // flip (1e-300 first) the capped kernel is off by 2.4e-4·σ_max (docs/linalg.md, "Known
    // limitations"; the fallback runs only when dqds fails, never seen).
    const { d, e, m } = bidiagonals({ tags: ['graded', 'tiny'] })[0]!.build();
    const want = bidiagonalBisection(d, e, m);
    expectWithin(sigmaOf(d, e, m, 'golub-kahan'), want, 2 * m, want[0]!);
  });

  it.each(bidiagonals({ tags: ['exact-rank'] }).map((c) => [c.name, c] as const))(
    '%s: σ_k = 2c·cos(kπ/(2m+1)), each relatively',
    (_title, c) => {
      const { d, e, m, sigma } = c.build();
      expectRelative(sigmaOf(d, e, m, 'dqds'), sigma!, m);
    },
  );

  it('m = 1: |d_0|; m = 2: σ_1·σ_2 = |d_0·d_1| and σ_1² + σ_2² = d_0² + e_0² + d_1²', () => {
    expect(Array.from(sigmaOf(Float64Array.of(-3.5), Float64Array.of(0), 1, 'dqds'))).toEqual([3.5]);
    for (const [a, b, c] of [
      [1, 1, 1],
      [3, 1e-8, -2],
      [1e-200, 1, 1e-200],
      [1, 1e150, 1e-150],
    ]) {
      const [s1, s2] = sigmaOf(Float64Array.of(a!, c!), Float64Array.of(b!, 0), 2, 'dqds');
      expect(Math.abs(s1! * s2! - Math.abs(a! * c!))).toBeLessThanOrEqual(8 * EPS * Math.abs(a! * c!));
      const f2 = a! * a! + b! * b! + c! * c!;
      expect(Math.abs(s1! * s1! + s2! * s2! - f2)).toBeLessThanOrEqual(8 * EPS * f2);
    }
  });

  it.each(bidiagonals({ tags: ['random'], exclude: ['split'] }).map((c) => [c.name, c] as const))(
    '%s: each σ relatively within the bisection oracle',
    (_title, c) => {
      const { d, e, m } = c.build();
      expectRelative(sigmaOf(d, e, m, 'dqds'), bidiagonalBisection(d, e, m), m);
    },
  );

  it.each(bidiagonals({ tags: ['zero', 'rank-deficient'] }).map((c) => [c.name, c] as const))(
    '%s: σ_min = 0, the others relatively within bisection',
    (_title, c) => {
      const { d, e, m } = c.build();
      const got = sigmaOf(d, e, m, 'dqds');
      // det B = Π d_i = 0 exactly and dqds keeps zero pivots zero
      expect(got[m - 1]!).toBeLessThanOrEqual(BOUND * m * EPS * got[0]!);
      const want = bidiagonalBisection(d, e, m);
      expectRelative(got.subarray(0, m - 1), want.subarray(0, m - 1), m);
    },
  );

  it.each(bidiagonals({ tags: ['split'] }).map((c) => [c.name, c] as const))(
    '%s: σ are those of the two blocks, computed apart',
    (_title, c) => {
      const { d, e, m } = c.build();
      const cut = e.indexOf(0) + 1; // the first zero off-diagonal ends the top block
      const top = sigmaOf(d.slice(0, cut), e.slice(0, cut), cut, 'dqds');
      const bottom = sigmaOf(d.slice(cut), e.slice(cut), m - cut, 'dqds');
      const want = Float64Array.from([...top, ...bottom])
        .sort()
        .reverse();
      expectRelative(sigmaOf(d, e, m, 'dqds'), want, m);
      expectRelative(want, bidiagonalBisection(d, e, m), m);
    },
  );

  fcTest.prop(
    [fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 1 << 30 }), fc.integer({ min: -20, max: 20 })],
    {
      numRuns: 40,
    },
  )(
    'random bidiagonals: dqds within the absolute bound of the Golub–Kahan path and relatively within bisection',
    (m, seed, ex) => {
      const r = randn(seed, 2 * m);
      const c = 2 ** (10 * ex);
      const d = r.subarray(0, m).map((x) => x * c);
      const e = r.subarray(m).map((x, i) => (i < m - 1 ? x * c : 0));
      const got = sigmaOf(d, e, m, 'dqds');
      const gk = sigmaOf(d, e, m, 'golub-kahan');
      expectWithin(got, gk, 2 * m, gk[0]!);
      expectRelative(got, bidiagonalBisection(d, e, m), m);
    },
  );
});
