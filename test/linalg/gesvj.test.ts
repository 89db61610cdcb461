import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { nullSpace, rank, svdvals } from '../../src/linalg/api.js';
import { caseNamed, cases, EPS, matmul, orthoError, randn, withSingularValues } from './cases.js';
import { eigh } from '../../src/linalg/api.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG_BACKENDS } from '../util/backends.js';

useArenaGuard();

function frob(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s);
}

describeBackends(LINALG_BACKENDS, 'svdvals / rank / nullSpace (%s)', (backend) => {
  it('size-0 and 1x1', () => {
    expect(svdvals(new Float64Array(0), 0, 0, { backend }).length).toBe(0);
    expect(svdvals(new Float64Array(0), 0, 4, { backend }).length).toBe(0);
    expect(rank(new Float64Array(0), 0, 4, { backend }).rank).toBe(0);
    expect(nullSpace(new Float64Array(0), 0, 3, { backend }).nullity).toBe(3);
    expect(svdvals([-2.5], 1, 1, { backend })).toEqual(Float64Array.of(2.5));
    expect(rank([0], 1, 1, { backend }).rank).toBe(0);
  });

  // Orthogonal columns scaled by σ: one-sided Jacobi after QR is column-scaling invariant, so
  // every σ comes back with a relative error of a small multiple of m·eps — including 1e-15.
  const graded = cases({ tags: ['graded', 'exact-rank'], exclude: ['edge'] }).filter((c) => c.build().cols < 48);
  it.each(graded.map((c) => [c.name, c] as const))(
    '%s: exact singular values with relative accuracy over 15 orders of magnitude (Jacobi path)',
    (_title, c) => {
      const { A, rows, cols, sigma } = c.build();
      const sv = svdvals(A, rows, cols, { backend });
      for (let j = 0; j < cols; j++) expect(Math.abs(sv[j]! / sigma![j]! - 1)).toBeLessThanOrEqual(4 * cols * EPS);
    },
  );

  it('Σσ² = ||A||_F² and A·N ≈ 0, NᵀN ≈ I (random, wide and tall)', () => {
    for (const c of cases({ tags: ['random'], exclude: ['stack', 'symmetric'] })) {
      const { A, rows, cols } = c.build();
      const sv = svdvals(A, rows, cols, { backend });
      expect(sv.length).toBe(Math.min(rows, cols));
      const f2 = frob(A) ** 2;
      const s2 = sv.reduce((a, b) => a + b * b, 0);
      // Backward stable: each σ within c·max(rows, cols)·eps·σ_max (c = 4), so Σσ² within 2·that·Σσ.
      expect(Math.abs(s2 - f2)).toBeLessThanOrEqual(8 * Math.max(rows, cols) * EPS * f2);
      const ns = nullSpace(A, rows, cols, { backend });
      expect(ns.rank).toBe(Math.min(rows, cols));
      expect(ns.nullity).toBe(cols - ns.rank);
      if (ns.nullity > 0) {
        const AN = matmul(A, ns.basis, rows, cols, ns.nullity);
        // ||A n|| = (dropped σ = 0 here) + backward error c·max(rows, cols)·eps·||A||.
        for (const x of AN) expect(Math.abs(x)).toBeLessThanOrEqual(8 * Math.max(rows, cols) * EPS * frob(A));
        expect(orthoError(ns.basis, cols, ns.nullity)).toBeLessThanOrEqual(8 * cols * EPS);
      }
    }
  });

  it('rank-deficient: column = sum of two others (fixed seed) → rank cols−1, null vector ∝ e_a + e_b − e_dep', () => {
    const { A, rows, cols, nullVector } = caseNamed('integer 40×9, column 8 = column 0 + column 5').build();
    const r = rank(A, rows, cols, { backend });
    expect(r.rank).toBe(cols - 1);
    expect(r.largestDropped!).toBeLessThan(r.tolerance);
    const ns = nullSpace(A, rows, cols, { backend });
    const v = ns.basis;
    const expected = nullVector!;
    const last = expected.findLastIndex((x) => x !== 0);
    const k = Math.sign(v[last]!) * Math.sign(expected[last]!);
    for (let j = 0; j < cols; j++) expect(Math.abs(k * v[j]! - expected[j]!)).toBeLessThan(1e3 * cols * EPS);
  });

  it('straddle: 0.99× / 1.01× the tolerance, for the default rtol, an explicit rtol and an atol', () => {
    const m = 16;
    for (const [kind, opts, tol] of [
      ['default', {}, m * EPS],
      ['rtol', { rtol: 1e-8 }, 1e-8],
      ['atol', { atol: 3e-5 }, 3e-5],
    ] as const) {
      for (const [factor, expected] of [
        [0.99, m - 1],
        [1.01, m],
      ] as const) {
        const sigma = Array.from({ length: m }, (_, j) => (j === m - 1 ? factor * tol : 1 / (j + 1)));
        const d = rank(withSingularValues(m, sigma), m, m, { backend, ...opts });
        expect(d.rank, `${kind} ${factor}`).toBe(expected);
        expect(d.tolerance).toBe(tol);
        expect(d.toleranceFrom).toBe(kind === 'atol' ? 'atol' : 'rtol');
        expect(d.marginRatio).toBeGreaterThan(1.005);
        expect(d.marginRatio).toBeLessThan(1.02);
      }
    }
  });

  it('ill-conditioned: Hilbert n = 8..12, σ_min within the backward-error bound; fragile decisions show a small margin', () => {
    for (const c of cases({ tags: ['symmetric', 'ill-conditioned'] })) {
      const { A: H, rows: n, inverse } = c.build();
      const sv = svdvals(H, n, n, { backend });
      // H is SPD: σ_min = λ_min = 1/λ_max(H⁻¹) with H⁻¹ exact integers (see cases.ts).
      const sigmaMin = 1 / eigh(inverse!, n, { backend: 'reference' }).values[n - 1]!;
      const errBound = 4 * n * EPS * sv[0]!;
      expect(Math.abs(sv[n - 1]! - sigmaMin)).toBeLessThanOrEqual(errBound);
      const d = rank(H, n, n, { backend });
      if (sigmaMin > d.tolerance + errBound) expect(d.rank).toBe(n);
      if (sigmaMin < d.tolerance - errBound) expect(d.rank).toBeLessThan(n);
      // Near the threshold the report shows it: a kept σ̂_min <= σ_min + errBound < tol + 2·errBound,
      // so the margin ratio smallestKept/tol is below 1 + 2·errBound/tol (n = 11 lands here).
      if (Math.abs(sigmaMin - d.tolerance) < errBound && d.rank === n)
        expect(d.marginRatio).toBeLessThan(1 + (2 * errBound) / d.tolerance);
    }
  });

  it('scaled: 1e±200 entries give s·σ and the same rank', () => {
    const { A } = caseNamed('integer 20×6, column 4 = column 1 + column 2').build();
    const base = svdvals(A, 20, 6, { backend });
    for (const s of [1e200, 1e-200]) {
      const As = A.map((x) => x * s);
      const sv = svdvals(As, 20, 6, { backend });
      for (let i = 0; i < 6; i++) expect(Math.abs(sv[i]! / s - base[i]!)).toBeLessThanOrEqual(8 * 20 * EPS * base[0]!);
      expect(rank(As, 20, 6, { backend }).rank).toBe(5);
    }
  });

  it('NaN/Infinity and bad options are rejected, naming the argument', () => {
    expect(() => svdvals([1, Infinity], 1, 2, { backend })).toThrow(/A\[0\]\[1\] = Infinity/);
    expect(() => rank([1, 2], 1, 2, { backend, atol: NaN })).toThrow(/options.atol = NaN/);
    expect(() => nullSpace([1, 2], 2, 2, { backend })).toThrow(/must hold rows·cols/);
  });

  it('ml-matrix in: rank and null-space basis as a Matrix', () => {
    const M = new Matrix([
      [1, 2, 3],
      [2, 4, 6],
    ]);
    expect(rank(M, { backend }).rank).toBe(1);
    const ns = nullSpace(M, { backend });
    expect(ns.basisMatrix).toBeInstanceOf(Matrix);
    expect(ns.basisMatrix.rows).toBe(3);
    expect(ns.basisMatrix.columns).toBe(2);
  });

  fcTest.prop([
    fc
      .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 1e6 }))
      .map(([r, c, seed]) => ({ r, c, A: randn(seed, r * c) })),
  ])('σ(A) = σ(Aᵀ) and rank(A) = rank(Aᵀ) for random shapes', ({ r, c, A }) => {
    const At = new Float64Array(r * c);
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) At[j * r + i] = A[i * c + j]!;
    const s1 = svdvals(A, r, c, { backend });
    const s2 = svdvals(At, c, r, { backend });
    for (let i = 0; i < s1.length; i++)
      expect(Math.abs(s1[i]! - s2[i]!)).toBeLessThanOrEqual(8 * Math.max(r, c) * EPS * s1[0]!);
    expect(rank(A, r, c, { backend }).rank).toBe(rank(At, c, r, { backend }).rank);
  });
});

describe('gesvj kernels: wasm and reference agree', () => {
  it('row norms within 4·m·eps·σ_max, rotations orthogonal, on a 48×48 matrix', () => {
    const m = 48;
    const Y = randn(9, m * m);
    const out = LINALG_BACKENDS.map(([, b]) => {
      const y = Float64Array.from(Y);
      const V = new Float64Array(m * m);
      const n2 = new Float64Array(m);
      expect(b.gesvj(y, m, V, n2)).toBeGreaterThan(0);
      expect(orthoError(V, m, m)).toBeLessThanOrEqual(8 * m * EPS);
      return Array.from(n2)
        .map(Math.sqrt)
        .sort((a, c) => c - a);
    });
    for (let i = 0; i < m; i++)
      expect(Math.abs(out[0]![i]! - out[1]![i]!)).toBeLessThanOrEqual(4 * m * EPS * out[0]![0]!);
  });
});
