import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { StreamingQR, createStreamingQR } from '../../src/linalg/streamingQR.js';
import { caseNamed, EPS, hadamard, matmul, orthoError, randn, transpose } from './cases.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS } from '../util/backends.js';

useArenaGuard();

/** Column norms of A (rows×cols). */
function colNorms(A: Float64Array, rows: number, cols: number): Float64Array {
  const c = new Float64Array(cols);
  for (let r = 0; r < rows; r++) for (let j = 0; j < cols; j++) c[j]! += A[r * cols + j]! ** 2;
  return c.map(Math.sqrt);
}

/**
 * QR ≈ A, checked without Q: RᵀR = AᵀA exactly in exact arithmetic. Householder QR is columnwise
 * backward stable (R is the exact R of A + E, ||e_j|| <= c·rows·cols·eps·||a_j||), so
 * |(RᵀR − AᵀA)_ij| <= 2c·rows·cols·eps·||a_i||·||a_j|| + the rounding of forming both products
 * (another (rows + cols)·eps·||a_i||·||a_j||). c = 2 here.
 */
function expectQrOf(R: Float64Array, A: Float64Array, rows: number, m: number): void {
  const RtR = matmul(transpose(R, m, m), R, m, m, m);
  const AtA = matmul(transpose(A, rows, m), A, m, rows, m);
  const cn = colNorms(A, rows, m);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < m; j++) {
      const bound = (4 * rows * m + rows + m) * EPS * cn[i]! * cn[j]!;
      expect(Math.abs(RtR[i * m + j]! - AtA[i * m + j]!), `(${i},${j})`).toBeLessThanOrEqual(bound);
      if (i > j) expect(R[i * m + j]).toBe(0); // upper triangular
    }
}

describeBackends(LINALG_BACKENDS, 'StreamingQR (%s)', (backend) => {
  it('size-0: no columns, or no rows yet', () => {
    const q0 = new StreamingQR(0, { backend });
    expect(q0.rank().rank).toBe(0);
    const q3 = new StreamingQR(3, { backend });
    expect(q3.svdvals()).toEqual(new Float64Array(3));
    const ns = q3.nullSpace();
    expect(ns.rank).toBe(0);
    expect(ns.nullity).toBe(3);
  });

  it('1x1: |R| = |a|', () => {
    const q = new StreamingQR(1, { backend }).push([-4]);
    expect(Math.abs(q.r()[0]!)).toBe(4);
    expect(q.svdvals()).toEqual(Float64Array.of(4));
  });

  it('RᵀR ≈ AᵀA and R upper triangular, fed in uneven blocks (1, 7, 50, rest)', () => {
    const rows = 300;
    const m = 23;
    const A = randn(4, rows * m);
    const q = createStreamingQR(m, { backend });
    let r0 = 0;
    for (const b of [1, 7, 50, rows - 58]) {
      q.push(A.subarray(r0 * m, (r0 + b) * m), b);
      r0 += b;
    }
    expect(q.rowsSeen).toBe(rows);
    expectQrOf(q.r(), A, rows, m);
  });

  it('QᵀQ ≈ I with Q = A·R⁻¹ (well-conditioned 300×10; the solve adds ~κ·eps, κ from the computed σ)', () => {
    const rows = 300;
    const m = 10;
    const A = randn(31, rows * m);
    const q = new StreamingQR(m, { backend }).push(A, rows);
    const R = q.r();
    const sv = q.svdvals();
    const kappa = sv[0]! / sv[m - 1]!;
    // Q = A R⁻¹ row by row: back substitution x R = a (R upper triangular).
    const Q = new Float64Array(rows * m);
    for (let r = 0; r < rows; r++)
      for (let j = 0; j < m; j++) {
        let s = A[r * m + j]!;
        for (let i = 0; i < j; i++) s -= Q[r * m + i]! * R[i * m + j]!;
        Q[r * m + j] = s / R[j * m + j]!;
      }
    // Householder QR: ||QᵀQ − I|| <= c·rows·m·eps for the implicit Q; forming it as A R⁻¹ adds a
    // factor κ(A) (the solve's forward error): bound 4·rows·m·eps·κ.
    expect(orthoError(Q, rows, m)).toBeLessThanOrEqual(4 * rows * m * EPS * kappa);
  });

  it('block split does not matter: |R| agrees row by row with a one-block R', () => {
    const rows = 120;
    const m = 9;
    const A = randn(6, rows * m);
    const one = new StreamingQR(m, { backend }).push(A, rows).r();
    const many = new StreamingQR(m, { backend });
    for (let r = 0; r < rows; r += 13) many.push(A.subarray(r * m, Math.min(rows, r + 13) * m));
    const R2 = many.r();
    // R is unique up to the sign of each row; entries agree to the backward-error level.
    const cn = colNorms(A, rows, m);
    for (let i = 0; i < m; i++) {
      const sgn = Math.sign(one[i * m + i]!) * Math.sign(R2[i * m + i]!);
      for (let j = i; j < m; j++)
        expect(Math.abs(one[i * m + j]! - sgn * R2[i * m + j]!)).toBeLessThanOrEqual(8 * rows * m * EPS * cn[j]!);
    }
  });

  it('rank-deficient: a column equal to the sum of two others (fixed seed) gives rank m−1 and that null vector', () => {
    const { A, rows, cols: m, nullVector } = caseNamed('integer 500×12, column 10 = column 3 + column 7').build();
    const q = new StreamingQR(m, { backend });
    for (let r = 0; r < rows; r += 64) q.push(A.subarray(r * m, Math.min(rows, r + 64) * m));
    const ns = q.nullSpace();
    expect(ns.rank).toBe(m - 1);
    expect(ns.nullity).toBe(1);
    // The null vector is ±(e3 + e7 − e10)/√3.
    const v = ns.basis;
    const sgn = Math.sign(v[10]!);
    const expected = nullVector!;
    // Perturbation theory: the null vector moves by ~ (backward error)/σ_{m−1}, a few hundred eps here.
    for (let j = 0; j < m; j++) expect(Math.abs(sgn * v[j]! - expected[j]!)).toBeLessThan(1e3 * m * EPS);
    // The decision reports its tolerance and margin: numpy's max(rows, m)·eps·σ_max by default.
    expect(ns.rtol).toBe(rows * EPS);
    expect(ns.tolerance).toBe(rows * EPS * ns.sigmaMax);
    expect(ns.largestDropped!).toBeLessThan(ns.tolerance);
    expect(ns.smallestKept!).toBeGreaterThan(ns.tolerance);
    // The dropped σ sits at the rounding level (~eps·σ_max times a small factor), the tolerance
    // at rows·eps·σ_max = 500·eps·σ_max: the decision must be clear by at least 10×.
    expect(ns.marginRatio).toBeGreaterThan(10);
  });

  it('straddle: singular values 0.99× and 1.01× the default tolerance are dropped and kept', () => {
    // A = H·diag(σ) with H the 16×16 Sylvester–Hadamard matrix / 4 (entries ±1/4: exactly
    // orthogonal columns), so σ are the exact singular values and each column is computed with
    // relative accuracy ~ m·eps (QR + Jacobi are column-scaling invariant), far finer than 1 %.
    const m = 16;
    const H = hadamard(m);
    for (const [factor, expectedRank] of [
      [0.99, m - 1],
      [1.01, m],
    ] as const) {
      const tol = m * EPS; // σ_max = 1, rows = cols = 16
      const sigma = Array.from({ length: m }, (_, j) => 2 ** -j);
      sigma[0] = 1;
      sigma[m - 1] = factor * tol;
      const A = new Float64Array(m * m);
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) A[i * m + j] = H[i * m + j]! * sigma[j]!;
      const d = new StreamingQR(m, { backend }).push(A, m).rank();
      expect(d.rank).toBe(expectedRank);
      expect(d.tolerance).toBe(tol);
      const near = expectedRank === m ? d.smallestKept! : d.largestDropped!;
      expect(Math.abs(near / (factor * tol) - 1)).toBeLessThan(1e-12);
    }
  });

  it('scaled: entries 1e±200 give s·σ (no overflow in the reflector norms)', () => {
    const rows = 60;
    const m = 8;
    const A = randn(12, rows * m);
    const base = new StreamingQR(m, { backend }).push(A, rows).svdvals();
    for (const s of [1e200, 1e-200, 1e-300]) {
      const sv = new StreamingQR(m, { backend })
        .push(
          A.map((x) => x * s),
          rows,
        )
        .svdvals();
      // s·A is A·s rounded (eps/2 relative per entry); σ_i perturbs by <= that·||A|| plus the
      // algorithm's own O(rows·m·eps·σ_max): bound 8·rows·m·eps·σ_max.
      for (let i = 0; i < m; i++)
        expect(Math.abs(sv[i]! / s - base[i]!)).toBeLessThanOrEqual(8 * rows * m * EPS * base[0]!);
    }
  });

  it('push with scale multiplies the block (√p_e in the certification stack)', () => {
    const A = randn(1, 30);
    const a = new StreamingQR(3, { backend }).push(A, 10, 0.5).svdvals();
    const b = new StreamingQR(3, { backend })
      .push(
        A.map((x) => x * 0.5),
        10,
      )
      .svdvals();
    expect(a).toEqual(b);
  });

  it('bad blocks are rejected and leave the accumulator untouched', () => {
    const q = new StreamingQR(2, { backend }).push([1, 2, 3, 4]);
    const R = q.r();
    expect(() => q.push([1, NaN], 1)).toThrow(/block\[0\]\[1\] = NaN/);
    expect(() => q.push([1, 2, 3])).toThrow(/block = .*multiple of cols = 2/);
    expect(() => q.push([1, 2], 1, -1)).toThrow(/scale = -1/);
    expect(() => q.push(new Matrix([[1, 2, 3]]))).toThrow(/must have 2 columns/);
    expect(() => q.rank({ rtol: -1 })).toThrow(/options.rtol = -1/);
    expect(() => new StreamingQR(-1)).toThrow(/cols = -1/);
    expect(q.r()).toEqual(R);
    expect(q.rowsSeen).toBe(2);
    q.reset();
    expect(q.rowsSeen).toBe(0);
  });

  fcTest.prop([
    fc
      .tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 1000 }))
      .map(([rows, m, seed]) => ({ rows, m, A: randn(seed, rows * m) })),
  ])('RᵀR ≈ AᵀA for random shapes (tall and wide)', ({ rows, m, A }) => {
    const q = new StreamingQR(m, { backend }).push(A, rows);
    expectQrOf(q.r(), A, rows, m);
  });
});

describe('tpqrt kernels: wasm and reference agree', () => {
  it('R within the backward-error level on 400×33', () => {
    const rows = 400;
    const m = 33;
    const A = randn(77, rows * m);
    const R1 = new Float64Array(m * m);
    const R2 = new Float64Array(m * m);
    LINALG.reference.qrUpdate(R1, m, A, rows, 128);
    LINALG.wasm.qrUpdate(R2, m, A, rows, 128);
    const cn = colNorms(A, rows, m);
    // Same reflectors in the same order (same signs): only summation order differs.
    for (let i = 0; i < m; i++)
      for (let j = i; j < m; j++)
        expect(Math.abs(R1[i * m + j]! - R2[i * m + j]!)).toBeLessThanOrEqual(4 * rows * m * EPS * cn[j]!);
  });
});
