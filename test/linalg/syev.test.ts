import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { eigh, gram } from '../../src/linalg/api.js';
import { linalgKernels } from '../../src/linalg/wasmKernels.js';
import { wasm } from '../../src/wasm/module.js';
import { cases, dependentStack, EPS, kernelSyev, maxAbs, orthoError, randn, randomSymmetric } from './cases.js';
import { expectEigenpairs } from './eigenpairs.js';
import { tridiagonalBisection, tridiagonalOf } from './oracles.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS } from '../util/backends.js';

useArenaGuard();

/** ||S||_F: an upper bound of ||S||_2 used to scale the backward-error bounds. */
function frobNorm(S: ArrayLike<number>): number {
  let s = 0;
  for (let k = 0; k < S.length; k++) s += S[k]! * S[k]!;
  return Math.sqrt(s);
}

describeBackends(LINALG_BACKENDS, 'eigh (%s)', (backend) => {
  it('size-0 and 1x1', () => {
    const e0 = eigh(new Float64Array(0), 0, { backend });
    expect(e0.values.length).toBe(0);
    const e1 = eigh([-7.5], 1, { backend });
    expect(e1.values).toEqual(Float64Array.of(-7.5));
    expect(Math.abs(e1.vectors[0]!)).toBe(1);
  });

  it('diagonal matrix: eigenvalues are the sorted diagonal, exactly', () => {
    const d = [3, -1, 2, 0, 5];
    const S = new Float64Array(25);
    d.forEach((x, i) => (S[i * 5 + i] = x));
    expect(Array.from(eigh(S, 5, { backend }).values)).toEqual([-1, 0, 2, 3, 5]);
  });

  it.each(cases({ tags: ['random', 'symmetric'] }).map((c) => [c.name, c] as const))(
    '%s: residual and orthogonality in units of n·eps',
    (_title, c) => {
      const { A: S, rows: n } = c.build();
      const { values, vectors } = eigh(S, n, { backend });
      expectEigenpairs(S, n, values, vectors);
    },
  );

  it.each(cases({ tags: ['symmetric', 'tridiagonal', 'clustered', 'integer'] }).map((c) => [c.name, c] as const))(
    'clustered %s (pairs of eigenvalues agreeing to ~1e-14): bounds, exact invariants, the Sturm oracle',
    (_title, c) => {
      const { A: W, rows: n } = c.build();
      const { values, vectors } = eigh(W, n, { backend });
      expectEigenpairs(W, n, values, vectors);
      // Exact invariants: Σλ = tr W and Σλ² = ||W||_F² (integers: 2Σ_{i<=h} i² + 2(n−1)).
      const h = (n - 1) / 2;
      const trace = h * (h + 1);
      const frob2 = (h * (h + 1) * (2 * h + 1)) / 3 + 2 * (n - 1);
      const sum = values.reduce((a, b) => a + b, 0);
      const sum2 = values.reduce((a, b) => a + b * b, 0);
      // |λ̂ − λ| <= 8·n·eps·||W||_F each, so the sums are within n times that.
      const eBound = 8 * n * EPS * Math.sqrt(frob2);
      expect(Math.abs(sum - trace)).toBeLessThanOrEqual(n * eBound);
      expect(Math.abs(sum2 - frob2)).toBeLessThanOrEqual(n * eBound * 2 * (h + 1));
      // The two largest eigenvalues form the tightest cluster: both resolved, in order.
      expect(values[n - 1]! - values[n - 2]!).toBeLessThan(1e-10);
      expect(values[n - 1]! - values[n - 2]!).toBeGreaterThanOrEqual(0);
      // Sturm-count bisection on the tridiagonal (./oracles.ts: within ~4·eps·||W||_∞ each)
      const { d, e } = tridiagonalOf(W, n);
      const want = tridiagonalBisection(d, e, n);
      for (let j = 0; j < n; j++) expect(Math.abs(values[j]! - want[j]!)).toBeLessThanOrEqual(eBound);
    },
  );

  it.each(cases({ tags: ['symmetric', 'ill-conditioned'] }).map((c) => [c.name, c] as const))(
    'ill-conditioned: %s, λ_min within the backward-error bound of the exact value',
    (_title, c) => {
      const { A: H, rows: n, inverse } = c.build();
      const { values, vectors } = eigh(H, n, { backend });
      expectEigenpairs(H, n, values, vectors);
      // λ_min(H) = 1/λ_max(H⁻¹); H⁻¹ is exact integers rounded once (relative eps/2 per entry),
      // and the largest eigenvalue of the well-separated top of H⁻¹ is computed to ~n·eps
      // relative, so this reference is good to ~2n·eps relative — far below the bound below.
      const inv = eigh(inverse!, n, { backend: 'reference' });
      const lambdaMin = 1 / inv.values[n - 1]!;
      expect(Math.abs(values[0]! - lambdaMin)).toBeLessThanOrEqual(8 * n * EPS * frobNorm(H));
    },
  );

  it('scaled: 1e±200 entries give s·λ (power-of-two scaling, no overflow/underflow)', () => {
    const n = 12;
    const S = randomSymmetric(99, n);
    const base = eigh(S, n, { backend });
    for (const s of [1e200, 1e-200, 1e300]) {
      const r = eigh(
        S.map((x) => x * s),
        n,
        { backend },
      );
      expectEigenpairs(
        S,
        n,
        r.values.map((x) => x / s),
        r.vectors,
      );
      for (let j = 0; j < n; j++)
        expect(Math.abs(r.values[j]! / s - base.values[j]!)).toBeLessThanOrEqual(16 * n * EPS * frobNorm(S));
    }
  });

  it('a matrix that is not symmetric within the stated tolerance is an error naming S and the entry', () => {
    const S = Float64Array.of(1, 2, 2.001, 1);
    expect(() => eigh(S, 2, { backend })).toThrow(/S = .*not symmetric: \|S\[0\]\[1\] − S\[1\]\[0\]\|/);
    // Within tolerance (asymmetry of a rounding error) is accepted and reported.
    const T = Float64Array.of(1, 2, 2 * (1 + EPS), 1);
    const r = eigh(T, 2, { backend });
    expect(r.asymmetry).toBeGreaterThan(0);
    expect(r.asymmetry).toBeLessThanOrEqual(r.symmetryRtol);
    expect(() => eigh(S, 2, { backend, symmetryRtol: 1e-3 })).not.toThrow();
  });

  it('NaN/Infinity and bad shapes are rejected', () => {
    expect(() => eigh([1, NaN, NaN, 1], 2, { backend })).toThrow(/S\[0\]\[1\] = NaN/);
    expect(() => eigh([1, 2, 3], 3, { backend })).toThrow(/must hold rows·cols/);
    expect(() => eigh(new Matrix([[1, 2, 3]]), { backend })).toThrow(/must be square/);
  });

  it('ml-matrix in: eigenvectors come back as a Matrix (columns)', () => {
    const r = eigh(Matrix.from1DArray(2, 2, [2, 1, 1, 2]), { backend });
    expect(r.vectors).toBeInstanceOf(Matrix);
    expect(Array.from(r.values)).toEqual([1, 3]);
  });

  const entry = fc.double({ min: -10, max: 10, noNaN: true }).filter((v) => v === 0 || Math.abs(v) >= 1e-100);
  fcTest.prop([
    fc
      .integer({ min: 1, max: 9 })
      .chain((n) => fc.tuple(fc.constant(n), fc.array(entry, { minLength: n * n, maxLength: n * n }))),
  ])('S = V diag(λ) Vᵀ, VᵀV = I for any symmetric S', ([n, xs]) => {
    const S = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) S[i * n + j] = xs[i * n + j]! + xs[j * n + i]!;
    const { values, vectors } = eigh(S, n, { backend });
    expectEigenpairs(S, n, values, vectors);
  });
});

describeBackends(LINALG_BACKENDS, 'eigh options.out (%s)', (backend) => {
  it('writes into the given arrays and returns them: the bits of a fresh result', () => {
    const n = 40;
    const S = randomSymmetric(8, n);
    const fresh = eigh(S, n, { backend });
    const out = { values: new Float64Array(n).fill(7), vectors: new Float64Array(n * n).fill(7) };
    const r = eigh(S, n, { backend, out });
    expect(r.values).toBe(out.values);
    expect(r.vectors).toBe(out.vectors);
    expect(r.values).toEqual(fresh.values);
    expect(r.vectors).toEqual(fresh.vectors);
  });

  it('a bad out is an error naming it, and nothing is written', () => {
    const n = 3;
    const S = Float64Array.of(2, 1, 0, 1, 2, 0, 0, 0, 5);
    const values = new Float64Array(n).fill(7);
    const vectors = new Float64Array(n * n).fill(7);
    const bad: [unknown, RegExp][] = [
      [{ values, vectors: new Float64Array(8) }, /^options\.out\.vectors = .*: must hold 9 values, got 8/],
      [{ values: [0, 0, 0], vectors }, /^options\.out\.values = .*: must be a Float64Array/],
      [{ values: vectors.subarray(0, 3), vectors }, /^options\.out = .*: values and vectors must not share memory/],
      [42, /^options\.out = 42: must be \{ values: Float64Array, vectors: Float64Array \}/],
    ];
    for (const [out, message] of bad) {
      expect(() => eigh(S, n, { backend, out: out as never })).toThrow(message);
      expect(values.every((x) => x === 7) && vectors.every((x) => x === 7)).toBe(true);
    }
    expect(() =>
      eigh(
        new Matrix([
          [1, 0],
          [0, 1],
        ]),
        { backend, out: { values, vectors } },
      ),
    ).toThrow(/^options\.out = .*: is for Float64Array input/);
    // an input error comes first and leaves out alone too
    expect(() => eigh(Float64Array.of(1, 2, 3, NaN), 2, { backend, out: { values, vectors } })).toThrow(
      /S\[1\]\[1\] = NaN/,
    );
    expect(values.every((x) => x === 7) && vectors.every((x) => x === 7)).toBe(true);
  });
});

describe('syev kernels: wasm and reference agree', () => {
  it('eigenvalues within 8·n·eps·||S||_F on a 64×64 random symmetric matrix', () => {
    const n = 64;
    const S = randomSymmetric(3, n);
    const norm = frobNorm(S);
    const v1 = new Float64Array(n);
    const v2 = new Float64Array(n);
    const S0 = Float64Array.from(S);
    expect(LINALG.reference.syev(S, n, 1, v1, new Float64Array(n * n))).toBeGreaterThan(0);
    expect(LINALG.wasm.syev(S, n, 1, v2, new Float64Array(n * n))).toBeGreaterThan(0);
    expect(S).toEqual(S0); // the input is left alone by both
    expect(maxAbs(v1.map((x, i) => x - v2[i]!))).toBeLessThanOrEqual(8 * n * EPS * norm);
  });
});

describe('eigh layout kernels (assembly/linalg/square.ts)', () => {
  fcTest.prop([fc.integer({ min: 0, max: 70 }), fc.integer({ min: 1, max: 1000 })])(
    'dtranspose: B[j][i] = A[i][j] exactly, for sides across the 32×32 tiles',
    (n, seed) => {
      const { arena } = wasm();
      const k = linalgKernels();
      const A = randn(seed, n * n);
      arena.scope((s) => {
        const a = s.from(A);
        const b = s.alloc(n * n);
        k.dtranspose(a.ptr, n, b.ptr);
        const T = new Float64Array(n * n);
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) T[j * n + i] = A[i * n + j]!;
        expect(Float64Array.from(b.view)).toEqual(T);
      });
    },
  );

  fcTest.prop([
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: 1, max: 1000 }),
    fc.integer({ min: -600, max: 600 }),
  ])('dsymmetrize: 0.5·(S_ij·s + S_ji·s) on both sides, S_ii·s on the diagonal, exactly', (n, seed, e) => {
    const { arena } = wasm();
    const k = linalgKernels();
    const S = randn(seed, n * n);
    const s = 2 ** e;
    arena.scope((sc) => {
      const w = sc.from(S);
      k.dsymmetrize(w.ptr, n, s);
      const W = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) W[i * n + j] = 0.5 * (S[i * n + j]! * s + S[j * n + i]! * s);
      expect(Float64Array.from(w.view)).toEqual(W);
      for (let i = 0; i < n; i++) expect(W[i * n + i]).toBe(S[i * n + i]! * s);
    });
  });

  it('eigh of a symmetric S: the same bits on both backends’ layout steps (only the kernels differ)', () => {
    // Both backends symmetrise with the same expression and transpose exactly, so for a diagonal
    // S — where QL does nothing but sort — the two give identical values and vectors.
    const n = 37;
    const S = new Float64Array(n * n);
    for (let i = 0; i < n; i++) S[i * n + i] = ((i * 7919) % n) - 18.5;
    const a = eigh(S, n, { backend: 'wasm' });
    const b = eigh(S, n, { backend: 'reference' });
    expect(a.values).toEqual(b.values);
    expect(a.vectors).toEqual(b.vectors);
    expect(Array.from(a.values)).toEqual(Array.from(S.filter((_, k) => k % (n + 1) === 0)).sort((x, y) => x - y));
  });
});

/** max|S − V diag(λ) Vᵀ| (the reconstruction identity) and |VᵀV − I|. */
function reconstruction(S: Float64Array, n: number, values: Float64Array, V: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += V[i * n + k]! * values[k]! * V[j * n + k]!;
      worst = Math.max(worst, Math.abs(S[i * n + j]! - s));
    }
  return worst;
}

describe('blocked eigensolver kernel: panels, divide and conquer, WY back-transformation', () => {
  // Panels run while k0 + 2·nb + 2 <= n; the back-transformation groups 64 reflectors (n − 2 of
  // them): sizes on either side of both boundaries, and non-multiples.
  const shapes: [number, number][] = [
    [4, 9],
    [4, 10],
    [4, 11],
    [4, 12],
    [4, 13],
    [8, 17],
    [8, 18],
    [8, 19],
    [8, 37],
    [32, 65],
    [32, 66],
    [32, 67],
    [32, 97],
    [5, 130],
  ];
  it.each(shapes)('panel %i, n = %i: S = VΛVᵀ, VᵀV = I, values as the unblocked QL path', (panel, n) => {
    const S = randomSymmetric(1000 + n, n);
    const norm = frobNorm(S);
    const unblocked = kernelSyev(S, n, 0, 0);
    for (const method of [0, 1]) {
      const r = kernelSyev(S, n, panel, method);
      expect(r.it).toBeGreaterThan(0);
      // both are backward stable (|λ̂ − λ| <= 8·n·eps·||S||_F each)
      for (let j = 0; j < n; j++)
        expect(Math.abs(r.values[j]! - unblocked.values[j]!)).toBeLessThanOrEqual(16 * n * EPS * norm);
      expect(reconstruction(S, n, r.values, r.V), 'S − VΛVᵀ').toBeLessThanOrEqual(8 * n * EPS * norm);
      expect(orthoError(r.V, n, n)).toBeLessThanOrEqual(8 * n * EPS);
    }
    const valuesOnly = kernelSyev(S, n, panel, 2);
    for (let j = 0; j < n; j++)
      expect(Math.abs(valuesOnly.values[j]! - unblocked.values[j]!)).toBeLessThanOrEqual(16 * n * EPS * norm);
  });

  fcTest.prop([
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: 2, max: 6 }),
    fc.integer({ min: 1, max: 10_000 }),
    fc.constantFrom(0, 1),
  ])('any size and panel width: S = VΛVᵀ within 8·n·eps·||S||_F', (n, panel, seed, method) => {
    const S = randomSymmetric(seed, n);
    const r = kernelSyev(S, n, panel, method);
    expect(r.it).toBeGreaterThanOrEqual(0);
    expect(reconstruction(S, n, r.values, r.V)).toBeLessThanOrEqual(8 * n * EPS * frobNorm(S));
    expect(orthoError(r.V, n, n)).toBeLessThanOrEqual(8 * n * EPS);
    for (let j = 1; j < n; j++) expect(r.values[j]!).toBeGreaterThanOrEqual(r.values[j - 1]!);
  });

  it('multiple and tight eigenvalues (a 0 of multiplicity 12, a cluster 1e-14 apart, a Gramian with two null directions): orthonormal vectors of each', () => {
    // Shifts of eigenvalues closer than their QL accuracy must be pulled apart, or Gram–Schmidt
    // against the cluster leaves rounding noise (seen: |z_0ᵀz_1| = 0.79 for two eigenvalues ≈ 0).
    for (const c of cases({ tags: ['symmetric', 'clustered', 'rank-deficient'] })) {
      const { A: S, rows: n, lambda } = c.build();
      const r = kernelSyev(S, n, 8, 1);
      const norm = frobNorm(S);
      expect(reconstruction(S, n, r.values, r.V)).toBeLessThanOrEqual(8 * n * EPS * norm);
      expect(orthoError(r.V, n, n)).toBeLessThanOrEqual(8 * n * EPS);
      const sorted = lambda!;
      // S was formed with rounding ~n·eps·max λ per entry: values within 8·n·eps·||S||_F of λ
      for (let j = 0; j < n; j++) expect(Math.abs(r.values[j]! - sorted[j]!)).toBeLessThanOrEqual(8 * n * EPS * norm);
    }
    // The Gramian of a stack with two exact column dependencies: two eigenvalues within rounding
    // of 0, which QL places 3e-16 apart with errors of that size.
    for (const n of [64, 150]) {
      const A = dependentStack(3, n, [5, 9]);
      const G = gram(A, 2 * n, n).map((x) => x / 1024);
      const r = kernelSyev(G, n, 32, 1);
      expect(reconstruction(G, n, r.values, r.V)).toBeLessThanOrEqual(8 * n * EPS * frobNorm(G));
      expect(orthoError(r.V, n, n)).toBeLessThanOrEqual(8 * n * EPS);
    }
  });

  it('f64 edges on the blocked path: zero, subnormal diagonal, 1e±300 scaling', () => {
    const n = 140; // eigh takes the blocked path here
    const zero = eigh(new Float64Array(n * n), n, { backend: 'wasm' });
    expect(zero.values.every((x) => x === 0)).toBe(true);
    expect(orthoError(zero.vectors, n, n)).toBe(0);
    const D = new Float64Array(n * n);
    for (let i = 0; i < n; i++) D[i * n + i] = (i % 7) * 5e-324 * (i + 1);
    const dr = eigh(D, n, { backend: 'wasm' });
    expect(Array.from(dr.values)).toEqual(Array.from(D.filter((_, k) => k % (n + 1) === 0)).sort((a, b) => a - b));
    expect(orthoError(dr.vectors, n, n)).toBe(0);
    const S = randomSymmetric(5, n);
    const base = eigh(S, n, { backend: 'wasm' });
    for (const s of [1e300, 1e-300]) {
      const r = eigh(
        S.map((x) => x * s),
        n,
        { backend: 'wasm' },
      );
      // the same power-of-two-scaled matrix is decomposed: the same values up to the scaling
      for (let j = 0; j < n; j++)
        expect(Math.abs(r.values[j]! / s - base.values[j]!)).toBeLessThanOrEqual(16 * n * EPS * frobNorm(S));
      expect(orthoError(r.vectors, n, n)).toBeLessThanOrEqual(8 * n * EPS);
    }
  });
});
