/**
 * The Gram-guided Jacobi sweeps after eigh preconditioning (src/linalg/svdFromR.ts): the pair
 * listings never leave out a pair above the Jacobi threshold, and the sweeps give the singular
 * values, null spaces and sweep counts of the full sweeps on the same preconditioned Y.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { referenceNorm } from '../../src/blas1/dnrm2.js';
import type { LinalgBackend } from '../../src/linalg/backend.js';
import { JACOBI_ROUNDING, JACOBI_SMALL_NORM, JACOBI_TOL_FACTOR } from '../../src/linalg/gesvj.js';
import { safeScale } from '../../src/linalg/shape.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import {
  GRAM_GUIDED_MIN_SIZE,
  gramGuidedJacobi,
  gramPairs,
  preconditioned,
  recheckPairs,
  svdOfR,
} from '../../src/linalg/svdFromR.js';
import { decideRank, defaultRtol } from '../../src/linalg/tolerance.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG_BACKENDS } from '../util/backends.js';
import { cases, EPS, randn, transpose } from './cases.js';

useArenaGuard();

/** The kernel's threshold sqrt(m)·eps. */
const tolOf = (m: number): number => JACOBI_TOL_FACTOR * Math.sqrt(m) * EPS;

/** Row Gramian Y·Yᵀ as gramGuidedJacobi forms it (Gramian kernel on Yᵀ). */
function rowGram(b: LinalgBackend, Y: Float64Array, m: number): Float64Array {
  const G = new Float64Array(m * m);
  b.syrk({ A: transpose(Y, m, m), rows: m, cols: m, scale: 1, weight: 1, G, overwrite: true, accept: () => true });
  return G;
}

/** Cosine of rows i, j the way a full sweep tests it: one dot product over the row norms. */
function kernelCosine(Y: Float64Array, m: number, i: number, j: number): number {
  let c = 0;
  for (let k = 0; k < m; k++) c += Y[i * m + k]! * Y[j * m + k]!;
  const ni = referenceNorm(Y.subarray(i * m, (i + 1) * m));
  const nj = referenceNorm(Y.subarray(j * m, (j + 1) * m));
  return ni === 0 || nj === 0 ? 0 : c / ni / nj;
}

function pairSet(p: Int32Array): Set<number> {
  const s = new Set<number>();
  for (let k = 0; k < p.length; k += 2) s.add(p[k]! * 100000 + p[k + 1]!);
  return s;
}

/**
 * Rows D·(Q + E): Q orthogonal (Householder reflector I − 2uuᵀ), E random of size `noise`, D
 * graded over `grade` decades: nearly orthogonal rows whose cosines straddle the threshold.
 */
function nearlyOrthogonal(seed: number, m: number, noise: number, grade: number): Float64Array {
  const u = randn(seed, m);
  const nu = referenceNorm(u);
  const E = randn(seed + 1, m * m);
  const Y = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    const d = 10 ** (-grade * (i / Math.max(1, m - 1)));
    for (let k = 0; k < m; k++)
      Y[i * m + k] = d * ((i === k ? 1 : 0) - (2 * u[i]! * u[k]!) / (nu * nu) + noise * E[i * m + k]!);
  }
  return Y;
}

describeBackends(LINALG_BACKENDS, 'Gram-guided Jacobi (%s)', (name, b) => {
  fcTest.prop(
    [
      fc.integer({ min: 2, max: 40 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.constantFrom(1e-17, 1e-16, 3e-16, 1e-15, 1e-14, 1e-12),
      fc.constantFrom(0, 3, 8),
    ],
    { numRuns: 25 },
  )('gramPairs lists every pair a full sweep would rotate', (m, seed, noise, grade) => {
    const Y = nearlyOrthogonal(seed, m, noise, grade);
    const pairs = gramPairs(rowGram(b, Y, m), m);
    expect(pairs).not.toBeNull();
    const listed = pairSet(pairs!);
    const tol = tolOf(m);
    let above = 0;
    let nearlyAbove = 0;
    for (let i = 0; i < m; i++)
      for (let j = i + 1; j < m; j++) {
        const g = Math.abs(kernelCosine(Y, m, i, j));
        if (g > tol) {
          above++;
          expect(listed.has(i * 100000 + j), `pair (${i}, ${j}) with |cos| ${g} > ${tol}`).toBe(true);
        }
        if (g > tol / 4) nearlyAbove++;
      }
    // selective: what is listed is above a quarter of the threshold (the margin is 1/2, the
    // rounding of the two sums far below tol/4), so the listing is not "everything"
    expect(listed.size).toBeGreaterThanOrEqual(above);
    expect(listed.size).toBeLessThanOrEqual(nearlyAbove);
  });

  fcTest.prop(
    [
      fc.integer({ min: 8, max: 40 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.constantFrom(1e-30, 1e-20, 1e-15, 1e-10),
      fc.integer({ min: 0, max: 2 }),
    ],
    { numRuns: 25 },
  )('recheckPairs lists every pair above the threshold after rows moved', (m, seed, move, strong) => {
    const Y0 = nearlyOrthogonal(seed, m, 1e-16, 2);
    const G0 = rowGram(b, Y0, m);
    // every row moved by `move` relative; `strong` rows by 1e-3 (those get fresh Gram rows)
    const Y = Float64Array.from(Y0);
    const E = randn(seed + 7, m * m);
    for (let i = 0; i < m; i++) {
      const n = referenceNorm(Y0.subarray(i * m, (i + 1) * m));
      const r = i < strong ? 1e-3 : move;
      for (let k = 0; k < m; k++) Y[i * m + k] = Y0[i * m + k]! + (r * n * E[i * m + k]!) / Math.sqrt(m);
    }
    const pairs = recheckPairs(b, G0, Y0, Y, m);
    expect(pairs).not.toBeNull();
    const listed = pairSet(pairs!);
    const tol = tolOf(m);
    for (let i = 0; i < m; i++)
      for (let j = i + 1; j < m; j++) {
        const g = Math.abs(kernelCosine(Y, m, i, j));
        if (g > tol) expect(listed.has(i * 100000 + j), `pair (${i}, ${j}) with |cos| ${g}`).toBe(true);
      }
    // rows moved by 1e-3 make their pairs' cosines ~1e-3/sqrt(m): all of them listed
    if (strong > 0) expect(listed.size).toBeGreaterThanOrEqual(m - 1);
  });

  it('recheckPairs declines when more than m/4 rows moved; gramPairs declines on rows near underflow', () => {
    const m = 16;
    const Y0 = nearlyOrthogonal(5, m, 1e-16, 0);
    const G0 = rowGram(b, Y0, m);
    const Y = Y0.map((x, k) => (k < 5 * m ? x * (1 + 1e-3) + 1e-3 : x));
    expect(recheckPairs(b, G0, Y0, Y, m)).toBeNull();
    const T = Float64Array.from(Y0);
    for (let k = 0; k < m; k++) T[3 * m + k]! *= JACOBI_SMALL_NORM / 4;
    const G = new Float64Array(m * m);
    // the Gram of such a row: squared norm below 2^-960 (formed here directly, not via syrk)
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) {
        let c = 0;
        for (let k = 0; k < m; k++) c += T[i * m + k]! * T[j * m + k]!;
        G[i * m + j] = c;
      }
    expect(gramPairs(G, m)).toBeNull();
  });

  it('the kernel on a pair list: only listed pairs move, the return says whether the sweeps would stop', () => {
    const m = 12;
    const Y = nearlyOrthogonal(11, m, 1e-6, 1);
    const y = Float64Array.from(Y);
    const V = new Float64Array(m * m);
    for (let i = 0; i < m; i++) V[i * m + i] = 1;
    const n2 = new Float64Array(m);
    // cosines ~1e-6 > ROUNDING·m·eps: not a stopping sweep
    expect(JACOBI_ROUNDING * m * EPS).toBeLessThan(1e-7);
    expect(b.gesvj(y, m, V, n2, true, true, 0, Int32Array.from([2, 5]))).toBe(0);
    for (let i = 0; i < m; i++)
      if (i !== 2 && i !== 5)
        expect(Array.from(y.subarray(i * m, (i + 1) * m))).toEqual(Array.from(Y.subarray(i * m, (i + 1) * m)));
    expect(Math.abs(kernelCosine(y, m, 2, 5))).toBeLessThanOrEqual(4 * m * EPS);
    // the same pair again: now at rounding level, a stopping sweep (1)
    expect(b.gesvj(y, m, V, n2, true, true, 0, Int32Array.from([2, 5]))).toBe(1);
  });

  // R factors of stacks (random, columns graded over a factor 4, two exact dependencies) on either
  // side of GRAM_GUIDED_MIN_SIZE
  const factors = cases({ tags: ['stack'] }).filter((c) => [64, GRAM_GUIDED_MIN_SIZE].includes(c.build().cols));
  for (const c of factors)
    it(`${c.name}: σ, rank, null space and sweeps as the full sweeps on the same Y`, () => {
      const { A, rows, cols: m, rank: exactRank } = c.build();
      const R = new StreamingQR(m, { backend: name }).push(A, rows).r();
      let amax = 0;
      for (const x of R) amax = Math.max(amax, Math.abs(x));
      const s = safeScale(amax);
      const pre = preconditioned(b, R, m, s);
      expect(pre).not.toBeNull();
      const run = (guided: boolean) => {
        const Y = Float64Array.from(pre!.Y);
        const V = Float64Array.from(pre!.VT);
        const n2 = new Float64Array(m);
        const sweeps = guided ? gramGuidedJacobi(b, Y, m, V, n2, true) : b.gesvj(Y, m, V, n2, true, true);
        const sv = Array.from({ length: m }, (_, i) => referenceNorm(Y.subarray(i * m, (i + 1) * m)) / s);
        const order = sv.map((_, i) => i).sort((p, q) => sv[q]! - sv[p]!);
        return { sweeps, sv: Float64Array.from(order, (i) => sv[i]!), V, order };
      };
      const full = run(false);
      const guided = run(true);
      expect(guided.sweeps).toBe(full.sweeps);
      const smax = full.sv[0]!;
      // both are one-sided Jacobi on the same nearly orthogonal Y: each σ_i within 4·m·eps of
      // its own size from the exact σ of Y (rows of D⁻¹Y orthonormal to ~tol, κ(D⁻¹Y) ~ 1), and
      // the rounding-level σ of the null directions within 4·m·eps·σ_max (normwise)
      for (let i = 0; i < m; i++)
        expect(Math.abs(guided.sv[i]! - full.sv[i]!)).toBeLessThanOrEqual(
          8 * m * EPS * full.sv[i]! + 4 * m * EPS * smax,
        );
      const rtol = defaultRtol(rows, m);
      const dFull = decideRank(full.sv, rtol, 0);
      const dGuided = decideRank(guided.sv, rtol, 0);
      expect(dGuided.rank).toBe(dFull.rank);
      expect(dGuided.rank).toBe(exactRank);
      // the null spaces: the projector distance sin θ <= (4·m·eps·σ_max)/gap, gap ~ σ_{m−2}
      const k = m - dFull.rank;
      if (k > 0) {
        const gap = full.sv[dFull.rank - 1]!;
        let worst = 0;
        for (let c = 0; c < k; c++) {
          // component of the guided null vector outside the full run's null space
          const vg = guided.V.subarray(guided.order[m - 1 - c]! * m, (guided.order[m - 1 - c]! + 1) * m);
          const res = Float64Array.from(vg);
          for (let d = 0; d < k; d++) {
            const vf = full.V.subarray(full.order[m - 1 - d]! * m, (full.order[m - 1 - d]! + 1) * m);
            let dot = 0;
            for (let t = 0; t < m; t++) dot += vg[t]! * vf[t]!;
            for (let t = 0; t < m; t++) res[t]! -= dot * vf[t]!;
          }
          worst = Math.max(worst, referenceNorm(res));
        }
        expect(worst).toBeLessThanOrEqual((8 * m * EPS * smax) / gap);
      }
      // and svdOfR with vectors (the null space's path) is the guided one from GRAM_GUIDED_MIN_SIZE on
      const lib = svdOfR(b, R, m, true);
      const taken = m >= GRAM_GUIDED_MIN_SIZE ? guided : full;
      expect(lib.sweeps).toBe(taken.sweeps);
      expect(Array.from(lib.singularValues)).toEqual(Array.from(taken.sv));
    });
});
