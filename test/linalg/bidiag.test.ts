/**
 * Singular values without vectors by Householder bidiagonalisation and dqds on the bidiagonal
 * (root-free QL on the Golub–Kahan tridiagonal as its fallback; src/linalg/bidiag.ts,
 * assembly/linalg/dgebrd.ts), the path svdvals, rank and StreamingQR.svdvals take for R with
 * balanced columns from PRECONDITION_MIN_SIZE on.
 *
 * The bound every comparison uses, BOUND·m·eps·σ_max with BOUND = 4: the path is normwise backward
 * stable — each of the 2m reflectors is applied with a backward error of a few eps times the norm
 * of what it acts on (Higham, Lemma 19.2), at most ||sA||, and dqds (or QL) adds c'·eps·||B|| with
 * c' at most a few m (dqds is relatively accurate, see the last block; QL's deflation is relative,
 * below eps·||B||) — so by Weyl |σ̂_i − σ_i| <= (2·c·m + c')·eps·σ_max; BOUND = 4 allows c = 2
 * eps per reflector application (seen against LAPACK dgesdd: <= 15·eps·σ_max, i.e.
 * <= 0.05·m·eps·σ_max, at m = 256 … 1024).
 * The independent reference is plain one-sided Jacobi on Rᵀ (the reference kernel, relative
 * accuracy ~m·eps·κ(column-scaled R), far inside the bound here), or a closed-form spectrum.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { referenceNorm } from '../../src/blas1/dnrm2.js';
import { rank, svdvals } from '../../src/linalg/api.js';
import { bidiagonalValues, dqdsValues, golubKahanValues } from '../../src/linalg/bidiag.js';
import { referenceGesvj } from '../../src/linalg/gesvj.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { PRECONDITION_MIN_SIZE, svdOfR } from '../../src/linalg/svdFromR.js';
import { EPS, hadamard, randn, transpose } from './cases.js';
import { wasm } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS } from '../util/backends.js';
import type { BackendName } from '../../src/wasm/backend.js';

useArenaGuard();

/** Multiple of m·eps·σ_max within which computed σ lie (derived in the file comment). */
const BOUND = 4;

/** Singular values of R (m×m) by plain one-sided Jacobi on Rᵀ (reference kernel), descending. */
function jacobiValues(R: Float64Array, m: number): Float64Array {
  const Y = transpose(R, m, m);
  expect(referenceGesvj(Y, m, new Float64Array(m * m), new Float64Array(m))).toBeGreaterThanOrEqual(0);
  // row norms by the overflow- and underflow-safe norm (the squared norms underflow at 1e-300)
  return Float64Array.from({ length: m }, (_, i) => referenceNorm(Y.subarray(i * m, (i + 1) * m)))
    .sort()
    .reverse();
}

/** R of a rows×m stack through the streaming QR. */
function rOf(A: Float64Array, rows: number, m: number, backend: BackendName): Float64Array {
  return new StreamingQR(m, { backend }).push(A, rows).r();
}

/** A 2m×m Gaussian stack with column m−1 = col 1 + col 2 (rounded) and m−2 = 2·col 3 (exact): numerical rank m−2. */
function dependentStack(seed: number, m: number): Float64Array {
  const rows = 2 * m;
  const A = randn(seed, rows * m);
  for (let r = 0; r < rows; r++) {
    A[r * m + m - 1] = A[r * m + 1]! + A[r * m + 2]!;
    A[r * m + m - 2] = 2 * A[r * m + 3]!;
  }
  return A;
}

function expectWithin(got: Float64Array, want: Float64Array, m: number, smax: number): void {
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

describeBackends(LINALG_BACKENDS, 'bidiagonal singular values (%s)', (name, b) => {
  it.each([48, 64, 101, 200])(
    'random R of a 2m×m stack, m = %i: the bidiagonal path, σ within the bound of plain Jacobi',
    (m) => {
      const R = rOf(randn(m, 2 * m * m), 2 * m, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0); // the bidiagonal path ran
      expect(got.rightVectorsT.length).toBe(0);
      const want = jacobiValues(R, m);
      expectWithin(got.singularValues, want, m, want[0]!);
    },
  );

  it.each([64, 160])(
    'two exact dependencies, m = %i: two σ at the rounding level, the same rank and tolerance as the vectors path',
    (m) => {
      const rows = 2 * m;
      const A = dependentStack(m + 3, m);
      const qr = new StreamingQR(m, { backend: name }).push(A, rows);
      const R = qr.r();
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      const want = jacobiValues(R, m);
      expectWithin(got.singularValues, want, m, want[0]!);
      expect(got.singularValues[m - 2]!).toBeLessThanOrEqual(BOUND * m * EPS * want[0]!);
      // rank decisions: StreamingQR.rank and rank(R) (values) against nullSpace (vectors, Jacobi)
      const byValues = qr.rank();
      const onR = rank(R, m, m, { backend: name });
      const byVectors = qr.nullSpace();
      expect(byValues.rank).toBe(m - 2);
      expect(onR.rank).toBe(m - 2);
      expect(byVectors.rank).toBe(m - 2);
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

  it.each([64, 128])(
    'graded spectrum σ_i = 10^(−12·i/(m−1)) (κ = 1e12) with equal column norms, m = %i: σ to the bound',
    (m) => {
      // A = diag(σ)·H with H the orthogonal Hadamard matrix: σ(A) = σ exactly up to H's rounding,
      // and every column of A has the same norm (||σ||/√m), so the path is the normwise one.
      const sigma = Float64Array.from({ length: m }, (_, i) => 10 ** ((-12 * i) / (m - 1)));
      const H = hadamard(m);
      const A = new Float64Array(m * m);
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) A[i * m + j] = sigma[i]! * H[i * m + j]!;
      const R = rOf(A, m, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      expectWithin(got.singularValues, jacobiValues(R, m), m, 1);
      // against the closed form: the QR's own backward error (c·m·eps·||A||) adds to the bound
      expectWithin(got.singularValues, sigma, 2 * m, 1);
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

  it('entries near 1e300 and 1e-300 in a balanced R: finite, within the bound of plain Jacobi', () => {
    const m = 64;
    for (const scale of [1e300, 1e-300]) {
      const A = dependentStack(5, m).map((x) => x * scale);
      const R = rOf(A, 2 * m, m, name);
      const got = svdOfR(b, R, m, false);
      expect(got.sweeps).toBe(0);
      const want = jacobiValues(R, m);
      expectWithin(got.singularValues, want, m, want[0]!);
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
    expect(b.bidiagSvdvals(Z, m, 1, out)).toBeGreaterThanOrEqual(0);
    expect(Array.from(out)).toEqual(new Array<number>(m).fill(0));
  });

  it('m crossing PRECONDITION_MIN_SIZE: Jacobi below, the bidiagonal from it on, the same σ to the bound and the same rank', () => {
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

  it('the kernel on 2^-665·G (every |α − β| below 2^-500: the next w by its own pass, no underflowing z) = 2^-665·σ(G)', () => {
    const m = 40;
    const G = randn(17, m * m);
    const want = new Float64Array(m);
    expect(b.bidiagSvdvals(G, m, 1, want)).toBeGreaterThanOrEqual(0);
    const got = new Float64Array(m);
    expect(
      b.bidiagSvdvals(
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
    b.bidiagSvdvals(Float64Array.of(-3), 1, 1, one);
    expect(one[0]).toBe(3);
    // [[a, b], [0, d]]: σ1·σ2 = |a·d|, σ1² + σ2² = a² + b² + d²
    const two = new Float64Array(2);
    b.bidiagSvdvals(Float64Array.of(3, 4, 0, 5), 2, 1, two);
    expect(Math.abs(two[0]! * two[1]! - 15)).toBeLessThanOrEqual(8 * EPS * 15);
    expect(Math.abs(two[0]! ** 2 + two[1]! ** 2 - 50)).toBeLessThanOrEqual(8 * EPS * 50);
  });
});

describe('bidiagonal singular values: wasm and TypeScript agree', () => {
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
      expect(LINALG.reference.bidiagSvdvals(A, m, s, ts)).toBeGreaterThanOrEqual(0);
      expect(LINALG.wasm.bidiagSvdvals(A, m, s, wa)).toBeGreaterThanOrEqual(0);
      // each within BOUND·m·eps·σ_max of the exact σ(s·A), so of each other within twice that
      expectWithin(wa, ts, 2 * m, ts[0]!);
      // Σσ_i² = ||sA||_F²: |Σσ̂² − Σσ²| <= Σ 2σ_i·δ + δ² with δ = BOUND·m·eps·σ_max
      const sum2 = ts.reduce((acc, x) => acc + x * x, 0);
      const delta = BOUND * m * EPS * ts[0]!;
      expect(Math.abs(sum2 - f2)).toBeLessThanOrEqual(m * (2 * ts[0]! * delta + delta * delta) + m * EPS * f2);
    },
  );
});

describe('singular values of a bidiagonal (Golub–Kahan tridiagonal and QL)', () => {
  /** σ of the bidiagonal (d, e) by the wasm kernel dbdsvdvals. */
  function wasmBidiagonal(d: Float64Array, e: Float64Array, m: number): Float64Array {
    const k = wasm().exports;
    return wasm().arena.scope((s) => {
      const bd = s.from(d);
      const be = s.from(e);
      const o = s.alloc(m);
      expect(k.dbdsvdvals(bd.ptr, be.ptr, m, o.ptr, s.alloc(k.dbdsvdvalsWork(m)).ptr)).toBeGreaterThanOrEqual(0);
      return Float64Array.from(o.view);
    });
  }

  it.each([1, 2, 7, 100, 300])(
    'all-ones bidiagonal, m = %i: σ_k = 2·cos(kπ/(2m+1)) (the path graph on 2m vertices), both backends',
    (m) => {
      const d = new Float64Array(m).fill(1);
      const e = new Float64Array(m).fill(1);
      const want = Float64Array.from({ length: m }, (_, k) => 2 * Math.cos(((k + 1) * Math.PI) / (2 * m + 1)));
      const ts = new Float64Array(m);
      expect(golubKahanValues(d, e, m, ts)).toBeGreaterThanOrEqual(0);
      expectWithin(ts, want, m, 2);
      expectWithin(wasmBidiagonal(d, e, m), want, m, 2);
    },
  );

  it('a zero on the diagonal: one σ at the rounding level, the others those of the two blocks', () => {
    const m = 50;
    const d = Float64Array.from({ length: m }, (_, i) => (i === 20 ? 0 : 1 + (i % 7) / 8));
    const e = Float64Array.from({ length: m }, (_, i) => (i % 3) / 4 + 0.5);
    const ts = new Float64Array(m);
    golubKahanValues(d, e, m, ts);
    const wa = wasmBidiagonal(d, e, m);
    expectWithin(wa, ts, 2 * m, ts[0]!);
    // det B = Π d_i = 0: σ_min = 0 exactly, computed within the bound
    expect(ts[m - 1]!).toBeLessThanOrEqual(BOUND * m * EPS * ts[0]!);
    expect(wa[m - 1]!).toBeLessThanOrEqual(BOUND * m * EPS * ts[0]!);
  });

  it('entries at 1e-200 and 1e200: the exact scaling before QL keeps every σ (QL multiplies two off-diagonals)', () => {
    const m = 30;
    const d = new Float64Array(m).fill(1);
    const e = new Float64Array(m).fill(1);
    const want = Float64Array.from({ length: m }, (_, k) => 2 * Math.cos(((k + 1) * Math.PI) / (2 * m + 1)));
    for (const scale of [2 ** -665, 2 ** 665]) {
      const got = wasmBidiagonal(
        d.map((x) => x * scale),
        e.map((x) => x * scale),
        m,
      );
      expectWithin(
        got.map((x) => x / scale),
        want,
        m,
        2,
      );
    }
  });
});

/**
 * dqds (LAPACK dlasq1–dlasq6, both backends) has HIGH RELATIVE accuracy: each σ of a bidiagonal
 * comes out to a small multiple of m·eps of ITSELF, however small it is against σ_max. Small
 * relative changes of the entries of a bidiagonal move each σ by at most the same relative
 * amount times 2m−1 (Demmel–Kahan 1990, Thm 2), every qd transform changes each entry by a few
 * ulps (Fernando–Parlett 1994), and deflation is relative (100·eps), so the bound used is
 * BOUND·m·eps·σ_k per value (BOUND as above: 4). The independent reference is Kahan's bisection on
 * the zero-diagonal Golub–Kahan tridiagonal, which Demmel–Kahan (1990, §5) show to be relatively
 * accurate too: the Sturm pivots p_0 = −x, p_i = −x − b_{i−1}·(b_{i−1}/p_{i−1}) (b = d_0, e_0,
 * d_1, …; the quotient first so nothing squares and underflows at 1e-300), bisected on a
 * geometric scale until the bracket is 2 ulps wide.
 */
describe('singular values of a bidiagonal by dqds (high relative accuracy)', () => {
  /** Number of eigenvalues < x (x > 0) of the Golub–Kahan tridiagonal: m + #{σ_i < x}. */
  function sturmCount(d: Float64Array, e: Float64Array, m: number, x: number): number {
    let count = 0;
    let p = -x;
    const pivmin = Number.MIN_VALUE;
    if (p < 0) count++;
    for (let i = 1; i < 2 * m; i++) {
      const b = i % 2 === 1 ? d[(i - 1) / 2]! : e[i / 2 - 1]!;
      if (p === 0) p = -pivmin;
      p = -x - b * (b / p);
      if (p < 0) count++;
    }
    return count;
  }

  /** σ_k (descending) of the bidiagonal by bisection on the Golub–Kahan tridiagonal, σ > 0 assumed. */
  function bisectValues(d: Float64Array, e: Float64Array, m: number): Float64Array {
    let hi = 0;
    for (let i = 0; i < m; i++)
      hi = Math.max(hi, Math.abs(d[i]!) + (i > 0 ? Math.abs(e[i - 1]!) : 0) + (i < m - 1 ? Math.abs(e[i]!) : 0));
    return Float64Array.from({ length: m }, (_, k) => {
      // σ_k is the (m−k)-th smallest: the smallest x with #{σ < x} >= m − k
      let lo = Number.MIN_VALUE;
      let up = hi * (1 + 4 * EPS);
      while (up - lo > 2 * EPS * up) {
        const mid = lo < 1e-300 * up ? Math.sqrt(lo) * Math.sqrt(up) : lo + (up - lo) / 2;
        const x = mid > lo && mid < up ? mid : lo + (up - lo) / 2;
        if (sturmCount(d, e, m, x) - m >= m - k) up = x;
        else lo = x;
      }
      return up;
    });
  }

  /** Each got[k] within BOUND·m·eps·want[k] of want[k] (relative, per value), descending, finite. */
  function expectRelative(got: Float64Array, want: Float64Array, m: number): void {
    expect(got.length).toBe(want.length);
    for (let k = 0; k < want.length; k++) {
      expect(Number.isFinite(got[k]!)).toBe(true);
      if (k > 0) expect(got[k]!).toBeLessThanOrEqual(got[k - 1]!);
      expect(Math.abs(got[k]! - want[k]!)).toBeLessThanOrEqual(BOUND * Math.max(m, 2) * EPS * want[k]!);
    }
  }

  /** σ by both backends' dqds (wasm dbdsvdvals, TypeScript bidiagonalValues), checked to agree bit for bit. */
  function bothBackends(d: Float64Array, e: Float64Array, m: number): Float64Array {
    const ts = new Float64Array(m);
    expect(dqdsValues(d, e, m, ts)).toBeGreaterThanOrEqual(0);
    const k = wasm().exports;
    const wa = wasm().arena.scope((s) => {
      const bd = s.from(d);
      const be = s.from(e);
      const o = s.alloc(m);
      expect(k.dbdsvdvals(bd.ptr, be.ptr, m, o.ptr, s.alloc(k.dbdsvdvalsWork(m)).ptr)).toBeGreaterThanOrEqual(0);
      return Float64Array.from(o.view);
    });
    // the same operations in the same order (no lanes in dqds)
    expect(Array.from(wa)).toEqual(Array.from(ts));
    return ts;
  }

  /** The graded bidiagonal d_i = 10^(−5i)·(1 + (i mod 3)/4), e_i = 10^(−5i)·(0.3 + (i mod 2)/5), i < 61. */
  function graded(): { d: Float64Array; e: Float64Array; m: number } {
    const m = 61;
    const d = Float64Array.from({ length: m }, (_, i) => 10 ** (-5 * i) * (1 + (i % 3) / 4));
    const e = Float64Array.from({ length: m }, (_, i) => (i < m - 1 ? 10 ** (-5 * i) * (0.3 + (i % 2) / 5) : 0));
    return { d, e, m };
  }

  it('graded bidiagonal, entries 1 … 1e-300: every σ to BOUND·m·eps of itself (bisection reference)', () => {
    const { d, e, m } = graded();
    const want = bisectValues(d, e, m);
    expect(want[m - 1]!).toBeLessThan(1e-290); // the grading spans the range
    expectRelative(bothBackends(d, e, m), want, m);
  });

  it('graded bidiagonal reversed (entries 1e-300 … 1): the same σ, every one relatively accurate', () => {
    const { d, e, m } = graded();
    // the flip P·Bᵀ·P of an upper bidiagonal is upper bidiagonal with d and e reversed: same σ
    const dr = Float64Array.from({ length: m }, (_, i) => d[m - 1 - i]!);
    const er = Float64Array.from({ length: m }, (_, i) => (i < m - 1 ? e[m - 2 - i]! : 0));
    expectRelative(bothBackends(dr, er, m), bisectValues(d, e, m), m);
  });

  it.each([1, 2, 3, 7, 100, 300])('all-ones bidiagonal, m = %i: σ_k = 2·cos(kπ/(2m+1)), each relatively', (m) => {
    const d = new Float64Array(m).fill(1);
    const e = new Float64Array(m).fill(1);
    const want = Float64Array.from({ length: m }, (_, k) => 2 * Math.cos(((k + 1) * Math.PI) / (2 * m + 1)));
    expectRelative(bothBackends(d, e, m), want, m);
  });

  it.each([1e300, 1e-300, 2 ** 1000, 2 ** -1000])(
    'all-ones bidiagonal times %s: σ scale with it, each relatively',
    (c) => {
      const m = 40;
      const d = new Float64Array(m).fill(c);
      const e = new Float64Array(m).fill(c);
      const want = Float64Array.from({ length: m }, (_, k) => 2 * Math.cos(((k + 1) * Math.PI) / (2 * m + 1)) * c);
      expectRelative(bothBackends(d, e, m), want, m);
    },
  );

  it('m = 1: |d_0|; m = 2: σ_1·σ_2 = |d_0·d_1| and σ_1² + σ_2² = d_0² + e_0² + d_1²', () => {
    expect(Array.from(bothBackends(Float64Array.of(-3.5), Float64Array.of(0), 1))).toEqual([3.5]);
    for (const [a, b, c] of [
      [1, 1, 1],
      [3, 1e-8, -2],
      [1e-200, 1, 1e-200],
      [1, 1e150, 1e-150],
    ]) {
      const [s1, s2] = bothBackends(Float64Array.of(a!, c!), Float64Array.of(b!, 0), 2);
      expect(Math.abs(s1! * s2! - Math.abs(a! * c!))).toBeLessThanOrEqual(8 * EPS * Math.abs(a! * c!));
      const f2 = a! * a! + b! * b! + c! * c!;
      expect(Math.abs(s1! * s1! + s2! * s2! - f2)).toBeLessThanOrEqual(8 * EPS * f2);
    }
  });

  it('m = 3, random entries: each σ relatively within the bisection reference', () => {
    const r = randn(3, 5);
    const d = Float64Array.of(r[0]!, r[1]!, r[2]!);
    const e = Float64Array.of(r[3]!, r[4]!, 0);
    expectRelative(bothBackends(d, e, 3), bisectValues(d, e, 3), 3);
  });

  it('a zero on the diagonal: σ_min = 0, the others relatively within bisection', () => {
    const m = 50;
    const d = Float64Array.from({ length: m }, (_, i) => (i === 20 ? 0 : 1 + (i % 7) / 8));
    const e = Float64Array.from({ length: m }, (_, i) => (i % 3) / 4 + 0.5);
    const got = bothBackends(d, e, m);
    // det B = Π d_i = 0 exactly and dqds keeps zero pivots zero
    expect(got[m - 1]!).toBeLessThanOrEqual(BOUND * m * EPS * got[0]!);
    const want = bisectValues(d, e, m);
    expectRelative(got.subarray(0, m - 1), want.subarray(0, m - 1), m);
  });

  it('a zero off-diagonal splits B: σ are those of the two blocks, computed apart', () => {
    const m = 30;
    const r = randn(7, 2 * m);
    const d = r.subarray(0, m).map((x) => x + 2);
    const e = r.subarray(m).map((x) => x / 2);
    e[11] = 0;
    e[m - 1] = 0;
    const top = bothBackends(d.slice(0, 12), e.slice(0, 12), 12);
    const bottom = bothBackends(d.slice(12), e.slice(12), m - 12);
    const want = Float64Array.from([...top, ...bottom])
      .sort()
      .reverse();
    expectRelative(bothBackends(d, e, m), want, m);
  });

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
      const got = bothBackends(d, e, m);
      const gk = new Float64Array(m);
      expect(golubKahanValues(d, e, m, gk)).toBeGreaterThanOrEqual(0);
      expectWithin(got, gk, 2 * m, gk[0]!);
      const both = new Float64Array(m);
      expect(bidiagonalValues(d, e, m, both)).toBeGreaterThanOrEqual(0);
      expect(Array.from(both)).toEqual(Array.from(got));
      expectRelative(got, bisectValues(d, e, m), m);
    },
  );
});
