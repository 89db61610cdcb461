/**
 * The edges of f64 for the rank/SVD/null-space path (streaming QR + one-sided Jacobi) and the
 * Gramian: subnormal and exactly zero columns, entries from 1e-300 to 1e300, columns of wildly
 * different sizes (the edge-block subspaces of certification are made of them). Expected values
 * come from the closed forms of the catalogue's 'edge' entries (./cases.ts) or from exact
 * power-of-two relations.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { eigh, gram, nullSpace, rank, svdvals } from '../../src/linalg/api.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { svdOfR } from '../../src/linalg/svdFromR.js';
import { cases, dependentStack, EPS, matmul, orthoError, randn, transpose } from './cases.js';
import { referenceGesvj } from '../../src/linalg/gesvj.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS } from '../util/backends.js';

useArenaGuard();

/** The smallest positive subnormal, 2^-1074: the absolute spacing of the subnormal range. */
const DENORM = 2 ** -1074;

describeBackends(LINALG_BACKENDS, 'f64 edges (%s)', (backend) => {
  for (const entry of cases({ tags: ['edge'] })) {
    it(`${entry.name}: singular values, rank, tolerance and null space`, () => {
      const built = entry.build();
      const c = { ...built, sigma: built.sigma!, rank: built.rank! };
      const sv = svdvals(c.A, c.rows, c.cols, { backend });
      const smax = c.sigma[0]!;
      // each σ within a small multiple of n·eps relative (Jacobi on Rᵀ: column-scaling
      // invariant), plus the rounding of the QR relative to σ_max (rank-deficient cases: the
      // exact zeros come back as rounding residue <= 4·n·eps·σ_max), plus the subnormal spacing
      for (let i = 0; i < c.sigma.length; i++) {
        const want = c.sigma[i]!;
        const err = Math.abs(sv[i]! - want);
        expect(Number.isFinite(sv[i]!)).toBe(true);
        expect(err).toBeLessThanOrEqual(16 * c.cols * EPS * (want === 0 ? smax : want) + 64 * DENORM);
      }
      const r = rank(c.A, c.rows, c.cols, { backend });
      expect(r.rank).toBe(c.rank);
      expect(Number.isFinite(r.tolerance)).toBe(true);
      expect(r.tolerance).toBeCloseTo(Math.max(c.rows, c.cols) * EPS * sv[0]!, 300);
      const ns = nullSpace(c.A, c.rows, c.cols, { backend });
      expect(ns.nullity).toBe(c.cols - c.rank);
      expect(orthoError(ns.basis, c.cols, ns.nullity)).toBeLessThanOrEqual(8 * c.cols * EPS);
      // ||A·N|| <= the largest dropped σ plus the backward error of the SVD (c·n·eps·σ_max)
      if (ns.nullity > 0 && smax > 0) {
        const s = 2 ** -Math.floor(Math.log2(smax)); // measure A·N on A scaled exactly to ~1
        const As = c.A.map((x) => x * s);
        const AN = matmul(As, ns.basis, c.rows, c.cols, ns.nullity);
        let worst = 0;
        for (const x of AN) worst = Math.max(worst, Math.abs(x));
        expect(worst).toBeLessThanOrEqual(
          (ns.largestDropped ?? 0) * s * Math.sqrt(ns.nullity) + 16 * c.cols * EPS * smax * s,
        );
      }
    });
  }

  it('gram(diag(1e150, 1e-150)) = diag(1e300, 1e-300): per-column scaling keeps the small column', () => {
    const G = gram([1e150, 0, 0, 1e-150], 2, 2, { backend });
    expect(G[1]).toBe(0);
    expect(G[2]).toBe(0);
    expect(Math.abs(G[0]! / 1e300 - 1)).toBeLessThanOrEqual(EPS);
    expect(Math.abs(G[3]! / 1e-300 - 1)).toBeLessThanOrEqual(EPS);
  });

  fcTest.prop(
    [
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.array(fc.integer({ min: -450, max: 450 }), { minLength: 5, maxLength: 5 }),
    ],
    {
      numRuns: 20,
    },
  )('gram(A·D) = D·gram(A)·D bit for bit for power-of-two column scales D out of the band', (seed, k) => {
    k[0] = 400; // at least one column outside [2^-256, 2^256]: the column-scaled path
    const rows = 7;
    const A = randn(seed, rows * 5);
    const AD = A.map((x, idx) => x * 2 ** k[idx % 5]!);
    const G = gram(A, rows, 5, { backend });
    const GD = gram(AD, rows, 5, { backend });
    for (let i = 0; i < 5; i++)
      for (let j = 0; j < 5; j++) expect(GD[i * 5 + j]).toBe(G[i * 5 + j]! * 2 ** (k[i]! + k[j]!));
  });

  fcTest.prop(
    [
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.array(fc.oneof(fc.constant(0), fc.integer({ min: -1000, max: 1000 })), { minLength: 6, maxLength: 6 }),
    ],
    { numRuns: 25 },
  )('random column scalings 2^-1000..2^1000 and zero columns: Jacobi converges, σ scaled exactly', (seed, k) => {
    // A = B·D with D = diag(2^k_j) (0 for k_j = 0 here: a zero column). σ(A) is not D·σ(B), but
    // for each column j, ||A e_j|| = 2^k_j·||B e_j|| bounds σ: every σ is finite, Σσ² = ||A||_F²
    // relative to ||A||_F² within 8·n·eps, the rank equals the number of columns that survive the
    // default tolerance (checked via the null space: A·N is at the dropped level).
    const rows = 8;
    const cols = 6;
    const B = randn(seed, rows * cols);
    const d = k.map((e) => (e === 0 ? 0 : 2 ** e));
    const A = B.map((x, idx) => x * d[idx % cols]!);
    const ns = nullSpace(A, rows, cols, { backend });
    for (const s of ns.singularValues) expect(Number.isFinite(s)).toBe(true);
    expect(orthoError(ns.basis, cols, ns.nullity)).toBeLessThanOrEqual(8 * cols * EPS);
    // zero columns are in the null space exactly: e_j lies in span(N)
    d.forEach((dj, j) => {
      if (dj !== 0) return;
      let proj = 0;
      for (let c = 0; c < ns.nullity; c++) proj += ns.basis[j * ns.nullity + c]! ** 2;
      expect(Math.abs(proj - 1)).toBeLessThanOrEqual(8 * cols * EPS);
    });
    expect(ns.nullity).toBeGreaterThanOrEqual(d.filter((x) => x === 0).length);
  });

  it('scaling by 2^±1000 scales the singular values (relative n·eps, no under/overflow)', () => {
    const rows = 9;
    const cols = 5;
    const A = randn(42, rows * cols);
    const base = svdvals(A, rows, cols, { backend });
    for (const e of [-1000, -600, 600, 1000]) {
      const sv = svdvals(
        A.map((x) => x * 2 ** e),
        rows,
        cols,
        { backend },
      );
      for (let i = 0; i < cols; i++)
        expect(Math.abs(sv[i]! / 2 ** e / base[i]! - 1)).toBeLessThanOrEqual(16 * cols * EPS);
    }
  });

  it('a stack like an edge-block subspace: zero, tiny and duplicate columns fed in weighted blocks', () => {
    // 60 columns: 20 random, 15 exactly zero, 10 copies of random ones, 15 random scaled to
    // 1e-300. Exact rank with the default tolerance: 20 (copies add nothing; the 1e-300 columns
    // are ~1e-300 below σ_max, under any tolerance ~n·eps·σ_max).
    const m = 60;
    const qr = new StreamingQR(m, { backend });
    const rowsTotal = 90;
    const full = new Float64Array(rowsTotal * m);
    const src = randn(9, rowsTotal * m);
    for (let r = 0; r < rowsTotal; r++)
      for (let j = 0; j < m; j++) {
        const x = src[r * m + j]!;
        full[r * m + j] = j < 20 ? x : j < 35 ? 0 : j < 45 ? full[r * m + (j - 35)]! : x * 1e-300;
      }
    for (let r0 = 0; r0 < rowsTotal; r0 += 30) qr.push(full.subarray(r0 * m, (r0 + 30) * m), 30, 0.5);
    const ns = qr.nullSpace();
    expect(ns.rank).toBe(20);
    expect(ns.nullity).toBe(40);
    expect(orthoError(ns.basis, m, ns.nullity)).toBeLessThanOrEqual(8 * m * EPS);
    // A·N at the level of the backward error, ||A|| ~ √90·√20
    const AN = matmul(full, ns.basis, rowsTotal, m, ns.nullity);
    let worst = 0;
    for (const x of AN) worst = Math.max(worst, Math.abs(x));
    expect(worst).toBeLessThanOrEqual(64 * m * EPS * ns.sigmaMax * 2);
  });
});

describe('Jacobi that cannot converge says why', () => {
  it('names the size, the column norms and the remaining cosine (R with a NaN, which the API rejects)', () => {
    const R = Float64Array.of(1, 2, 0, NaN);
    expect(() => svdOfR(LINALG.reference, R, 2)).toThrow(
      /did not converge in 2×60 sweeps for a 2×2 R factor \(column norms .*zero columns, largest remaining \|cos\|/,
    );
  });
});

describeBackends(LINALG_BACKENDS, 'eigh-preconditioned Jacobi on R (%s)', (backend, kernels) => {
  it('balanced columns, m = 64, two exact dependencies: σ normwise equal to plain Jacobi, exact null space, <= 3 sweeps', () => {
    const m = 64;
    const rows = 2 * m;
    const A = dependentStack(3, m, [5, 9]);
    const qr = new StreamingQR(m, { backend });
    qr.push(A, rows);
    const R = qr.r();
    const pre = svdOfR(kernels, R, m, true);
    expect(pre.sweeps).toBeLessThanOrEqual(3);
    // plain Jacobi on Rᵀ (the reference kernel, from I), the accuracy it is measured against
    const Y = transpose(R, m, m);
    const V = new Float64Array(m * m);
    const n2 = new Float64Array(m);
    expect(referenceGesvj(Y, m, V, n2)).toBeGreaterThan(3);
    const plain = Array.from(n2, Math.sqrt).sort((a, b) => b - a);
    const smax = plain[0]!;
    for (let i = 0; i < m; i++)
      expect(Math.abs(pre.singularValues[i]! - plain[i]!)).toBeLessThanOrEqual(4 * m * EPS * smax);
    const ns = qr.nullSpace();
    expect(ns.nullity).toBe(2);
    expect(orthoError(ns.basis, m, 2)).toBeLessThanOrEqual(8 * m * EPS);
    const AN = matmul(A, ns.basis, rows, m, 2);
    for (const x of AN) expect(Math.abs(x)).toBeLessThanOrEqual(16 * m * EPS * smax);
  });
});

describeBackends(LINALG_BACKENDS, 'results beyond the f64 range from finite entries (%s)', (backend) => {
  const MAX = Number.MAX_VALUE;

  it('σ_max beyond MAX_VALUE: rank and nullSpace refuse (a tolerance of ∞ would read rank 0); svdvals reads ∞', () => {
    // [[1e308, 1e308], [1e308, 1e308]]: rank 1, σ = (2e308, 0)
    const A = [1e308, 1e308, 1e308, 1e308];
    expect(() => rank(A, 2, 2, { backend })).toThrow(/^A = .*largest singular value overflows f64/);
    expect(() => nullSpace(A, 2, 2, { backend })).toThrow(/largest singular value overflows f64/);
    expect(svdvals(A, 2, 2, { backend })[0]).toBe(Infinity);
    const qr = new StreamingQR(2, { backend }).push(A, 2);
    expect(() => qr.rank()).toThrow(/^stack = "2 rows": its largest singular value overflows f64/);
  });

  it('σ_max just inside the range (1.6e308) from entries whose sums overflow: rank 1 and its null space', () => {
    // σ = ‖(a, a)‖·√2 = 2a with a = 0.8e308: 1.6e308 <= MAX_VALUE; the rows' rotation must not overflow
    const a = 0.8e308;
    const r = rank([a, a, a, a], 2, 2, { backend });
    expect(r.rank).toBe(1);
    expect(Math.abs(r.singularValues[0]! - 2 * a) / (2 * a)).toBeLessThanOrEqual(8 * EPS);
    const ns = nullSpace([a, a, a, a], 2, 2, { backend });
    expect(ns.nullity).toBe(1);
    expect(Math.abs(Math.abs(ns.basis[0]!) - Math.SQRT1_2)).toBeLessThanOrEqual(8 * EPS);
  });

  it('a block that makes a column norm overflow: push refuses and R, the row count and the rank stay as they were', () => {
    const qr = new StreamingQR(1, { backend }).push([1]);
    const before = qr.r();
    expect(() => qr.push([1.5e308, 1.5e308], 2)).toThrow(/^block = .*column norm of the QR factor overflow/);
    expect(qr.r()).toEqual(before);
    expect(qr.rowsSeen).toBe(1);
    expect(qr.rank().rank).toBe(1);
    expect(() => rank([1.5e308, 1.5e308], 2, 1, { backend })).toThrow(/^A = .*column norm of the QR factor overflow/);
  });

  it('eigh: an eigenvalue beyond MAX_VALUE is refused and out is left untouched; MAX·I is not', () => {
    const out = { values: new Float64Array(2).fill(7), vectors: new Float64Array(4).fill(7) };
    expect(() => eigh([MAX, MAX, MAX, MAX], 2, { backend, out })).toThrow(/^S = .*eigenvalue beyond the f64 range/);
    expect([...out.values, ...out.vectors]).toEqual(Array(6).fill(7));
    const ok = eigh([MAX, 0, 0, MAX], 2, { backend, out });
    expect(Array.from(out.values)).toEqual([MAX, MAX]);
    expect(ok.values).toBe(out.values);
    expect(ok.vectors).toBe(out.vectors);
  });

  it('eigh: an asymmetry whose difference overflows is measured, not ∞ (|MAX − (−MAX)| / MAX = 2)', () => {
    expect(eigh([0, MAX, -MAX, 0], 2, { backend, symmetryRtol: 10 }).asymmetry).toBe(2);
    expect(() => eigh([0, MAX, -MAX, 0], 2, { backend })).toThrow(/max\|S\| = 2\.000e\+0 > symmetryRtol/);
  });
});
