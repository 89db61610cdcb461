import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  Linearization,
  commutatorColumns,
  commutatorGramian,
  consolidateImages,
  measureRedundancy,
  subspaceColumns,
} from '../../src/certify/commutator.js';
import { basisCombinations, coordinateBasis } from '../../src/certify/subspace.js';
import { decideNonDegeneracy, nondegeneracyTolerance } from '../../src/certify/nondegeneracy.js';
import { certify } from '../../src/certify/certify.js';
import { FD_RELATIVE_ACCURACY } from '../../src/linearize/operator.js';
import { eigh, svdvals } from '../../src/linalg/api.js';
import { sparseDot, toDense } from '../../src/linearize/sparse.js';
import { reportJson } from '../../src/report/json.js';
import { referenceDistance } from '../../src/blas1/dnrm2.js';
import { consolidateJacobian } from '../../src/linearize/systemJacobians.js';
import { consolidatedState } from '../graph/linearisation/fixtures.js';
import type { SparseVector } from '../../src/system/types.js';
import type { OperatorSystem } from '../../src/system/types.js';
import {
  commutator,
  identity,
  linearSystem,
  matmul,
  randomMatrix,
  randomOrthogonal,
  transpose,
  type Mat,
} from './linearSystems.js';

const frob = (A: Mat): number => Math.sqrt(A.flat().reduce((s, a) => s + a * a, 0));
const norm = (x: ArrayLike<number>): number => Math.sqrt(Array.from(x).reduce((s, a) => s + a * a, 0));

function sigmaColumns(
  sys: OperatorSystem,
  theta: Float64Array,
  e: string,
  kind: 'sigma' | 'exact' = 'sigma',
): SparseVector[] {
  using lin = new Linearization(sys, theta, { method: 'fd' });
  const basis = coordinateBasis(
    sys.dim,
    Array.from({ length: sys.dim }, (_, i) => i),
  );
  return commutatorColumns(lin, e, basis, consolidateImages(lin, basis), kind);
}
const dense = (cols: SparseVector[]): Mat => {
  const n = cols.length;
  const D = cols.map(toDense);
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => D[j]![i]!));
};

/*
 * Tolerance for Σ_e from central differences of affine maps: each Jacobian column then carries
 * rounding error only, eps·‖f(x ± h e_j)‖/h <= eps^(2/3)·(‖A‖_F(‖x‖ + 1) + ‖a‖) with
 * h = eps^(1/3)·max(1, |x_j|). Σ_e = DQ L_e − L_e DQ multiplies two such Jacobians, so its
 * entries err by at most 2·(err_Q·‖B‖ + ‖A‖·err_P); with every norm <= 2 and ‖x‖ <= 1 below, a
 * factor of 32·r covers it.
 */
const SIGMA_TOL = 32 * FD_RELATIVE_ACCURACY;

function randomSpec(seed: number, n: number, items: number) {
  const A = randomMatrix(n, seed, 0.5 / Math.sqrt(n));
  return {
    A,
    a: Array.from({ length: n }, (_, i) => 0.1 * Math.sin(seed + i)),
    items: Array.from({ length: items }, (_, k) => ({
      id: `e${k + 1}`,
      p: 1 / items,
      B: randomMatrix(n, seed * 31 + k + 1, 0.5 / Math.sqrt(n)),
      b: Array.from({ length: n }, (_, i) => 0.1 * Math.cos(seed + k + i)),
    })),
  };
}

describe('Σ_e on affine systems (Eq. 4 as a matrix product)', () => {
  test.prop([fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 2, max: 6 })])(
    'matches A B_e − B_e A; tr Σ_e = 0; swapping Q and P_e negates Σ_e',
    (seed, n) => {
      const spec = randomSpec(seed, n, 2);
      const sys = linearSystem(spec);
      const theta = Float64Array.from({ length: n }, (_, i) => 0.5 * Math.cos(i + seed));
      for (const it of spec.items) {
        const S = dense(sigmaColumns(sys, theta, it.id));
        const exact = commutator(spec.A, it.B);
        const scale = frob(spec.A) * frob(it.B) + 1;
        S.forEach((row, i) =>
          row.forEach((v, j) => expect(Math.abs(v - exact[i]![j]!)).toBeLessThanOrEqual(SIGMA_TOL * scale)),
        );
        const trace = S.reduce((s, row, i) => s + row[i]!, 0);
        expect(Math.abs(trace)).toBeLessThanOrEqual(n * SIGMA_TOL * scale);
        // swapped system: Q' = P_e, P'_e = Q
        const swapped = linearSystem({ A: it.B, a: it.b, items: [{ id: it.id, p: 1, B: spec.A, b: spec.a }] });
        const T = dense(sigmaColumns(swapped, theta, it.id));
        T.forEach((row, i) =>
          row.forEach((v, j) => expect(Math.abs(v + S[i]![j]!)).toBeLessThanOrEqual(2 * SIGMA_TOL * scale)),
        );
      }
    },
  );

  it('exact DF_e equals Σ_e for affine maps (their Jacobians do not depend on the point)', () => {
    const spec = randomSpec(5, 4, 1);
    const sys = linearSystem(spec);
    const theta = Float64Array.of(0.1, 0.2, 0.3, 0.4);
    const S = dense(sigmaColumns(sys, theta, 'e1', 'sigma'));
    const F = dense(sigmaColumns(sys, theta, 'e1', 'exact'));
    S.forEach((row, i) => row.forEach((v, j) => expect(Math.abs(v - F[i]![j]!)).toBeLessThanOrEqual(2 * SIGMA_TOL)));
  });

  it('exploits a declared footprint: off-footprint columns of DP_e cost no evaluation', () => {
    const n = 6;
    const B = identity(n);
    B[1]![1] = 0.4; // blend on coordinate 1 only
    const sys = linearSystem({
      A: randomMatrix(n, 3, 0.3),
      items: [{ id: 'e1', p: 1, B, b: [0, 0.6, 0, 0, 0, 0], footprint: [1] }],
    });
    const theta = Float64Array.from({ length: n }, () => 0.2);
    using lin = new Linearization(sys, theta, { method: 'fd' });
    const basis = coordinateBasis(n, [0, 2, 3]);
    commutatorColumns(lin, 'e1', basis, consolidateImages(lin, basis), 'sigma');
    // only column 1 of DP_e (the footprint) is evaluated: 2 evaluations
    expect(lin.expand('e1').stats.evaluations).toBe(2);
  });
});

describe('the commutator Gramian (Eq. 5) and Prop. 5.2', () => {
  test.prop([fc.integer({ min: 1, max: 500 })])('G is symmetric PSD and xᵀGx = Σ_e p_e ‖Σ_e x‖²', (seed) => {
    const n = 4;
    const spec = randomSpec(seed, n, 3);
    spec.items[0]!.p = 0.5;
    spec.items[1]!.p = 0.3;
    spec.items[2]!.p = 0.2;
    const sys = linearSystem(spec);
    const theta = Float64Array.of(0.3, -0.2, 0.1, 0.4);
    const cols = spec.items.map((it) => sigmaColumns(sys, theta, it.id));
    // G[i][j] = Σ_e p_e ⟨Σ_e e_i, Σ_e e_j⟩
    const G = Array.from({ length: n }, (_, i) =>
      Array.from({ length: n }, (_, j) =>
        spec.items.reduce((s, it, k) => s + it.p * sparseDot(cols[k]![i]!, cols[k]![j]!), 0),
      ),
    );
    G.forEach((row, i) => row.forEach((g, j) => expect(g).toBe(G[j]![i])));
    const x = Float64Array.of(Math.sin(seed), Math.cos(seed), 0.5, -0.25);
    const xGx = G.reduce((s, row, i) => s + x[i]! * row.reduce((t, g, j) => t + g * x[j]!, 0), 0);
    const expectation = spec.items.reduce((s, it) => {
      const Sx = toDense(cols[spec.items.indexOf(it)]![0]!).map(() => 0);
      cols[spec.items.indexOf(it)]!.forEach((c, j) => {
        const d = toDense(c);
        d.forEach((v, i) => (Sx[i]! += v * x[j]!));
      });
      return s + it.p * Sx.reduce((t, v) => t + v * v, 0);
    }, 0);
    // the same products summed in a different order: n² terms of size <= ‖G‖·‖x‖², eps each
    expect(Math.abs(xGx - expectation)).toBeLessThanOrEqual(
      4 * n * n * Number.EPSILON * (frob(G) * norm(x) ** 2 + 1e-300),
    );
    expect(xGx).toBeGreaterThanOrEqual(-4 * n * n * Number.EPSILON * frob(G));
    // the decision's eigenvalues are those of G (σ² of the stack)
    const basis = coordinateBasis(n, [0, 1, 2, 3]);
    const dec = decideNonDegeneracy(
      sys,
      basis,
      spec.items.map((it, k) => ({ evidence: it.id, weight: it.p, columns: cols[k]! })),
      (rows, m) => nondegeneracyTolerance(FD_RELATIVE_ACCURACY, 1, 1, rows, m, 'test'),
    );
    const traceG = G.reduce((s, row, i) => s + row[i]!, 0);
    const sumLambda = dec.singularValues.reduce((s, v) => s + v * v, 0);
    expect(Math.abs(sumLambda - traceG)).toBeLessThanOrEqual(64 * Number.EPSILON * traceG + 1e-300);
  });

  test.prop([fc.integer({ min: 1, max: 500 })])(
    'G = 0 when the Jacobians commute (kernel = the whole subspace)',
    (seed) => {
      const n = 4;
      // B_e = polynomials in A commute with A: B = c0 I + c1 A + c2 A²
      const A = randomMatrix(n, seed, 0.4);
      const A2 = matmul(A, A);
      const poly = (c0: number, c1: number, c2: number): Mat =>
        A.map((r, i) => r.map((a, j) => (i === j ? c0 : 0) + c1 * a + c2 * A2[i]![j]!));
      const sys = linearSystem({
        A,
        items: [
          { id: 'e1', p: 0.5, B: poly(0.5, 0.3, 0.1) },
          { id: 'e2', p: 0.5, B: poly(1, -0.2, 0.4) },
        ],
      });
      const theta = Float64Array.of(0.1, 0.2, 0.3, 0.4);
      using lin = new Linearization(sys, theta, { method: 'fd' });
      const basis = coordinateBasis(n, [0, 1, 2, 3]);
      const q = consolidateImages(lin, basis);
      const dec = decideNonDegeneracy(
        sys,
        basis,
        ['e1', 'e2'].map((e) => ({ evidence: e, weight: 0.5, columns: commutatorColumns(lin, e, basis, q, 'sigma') })),
        (rows, m) => nondegeneracyTolerance(FD_RELATIVE_ACCURACY, frob(A), 2, rows, m, 'test'),
      );
      expect(dec.lambdaMax).toBeLessThanOrEqual(dec.tolerance);
      expect(dec.nonDegenerate).toBe(false);
      expect(dec.kernelDim).toBe(n);
    },
  );

  test.prop([fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 3 })])(
    'finds a planted kernel intersection of known dimension k inside a coordinate subspace',
    (seed, k) => {
      const n = 7;
      // U orthogonal whose first k columns lie in W = span(e0..e3) (so K ⊂ W);
      // A = U diag(D1, A2) Uᵀ, B_e = U diag(D1e, B2e) Uᵀ with D diagonal: Σ_e K = 0 exactly,
      // and generic A2, B2e leave no further common kernel.
      const Wc = [0, 1, 2, 3];
      const Uw = randomOrthogonal(4, seed); // 4×4
      const Ur = randomOrthogonal(n - 4, seed + 7);
      const U: Mat = Array.from({ length: n }, () => new Array<number>(n).fill(0));
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) U[Wc[i]!]![j] = Uw[i]![j]!;
      for (let i = 0; i < n - 4; i++) for (let j = 0; j < n - 4; j++) U[4 + i]![4 + j] = Ur[i]![j]!;
      const blockMat = (diag: number[], seedM: number): Mat => {
        const M = randomMatrix(n, seedM, 0.4);
        for (let i = 0; i < k; i++)
          for (let j = 0; j < n; j++) {
            M[i]![j] = i === j ? diag[i]! : 0;
            M[j]![i] = i === j ? diag[i]! : 0;
          }
        return matmul(matmul(U, M), transpose(U));
      };
      const A = blockMat([0.3, -0.2, 0.5], seed + 11);
      const items = [1, 2, 3].map((t) => ({
        id: `e${t}`,
        p: 1 / 3,
        B: blockMat([0.1 * t, 0.7, -0.3 * t], seed + 100 * t),
      }));
      const sys = linearSystem({ A, items });
      const theta = Float64Array.from({ length: n }, (_, i) => 0.1 * i);
      using lin = new Linearization(sys, theta, { method: 'fd' });
      const basis = coordinateBasis(n, Wc);
      const q = consolidateImages(lin, basis);
      const dec = decideNonDegeneracy(
        sys,
        basis,
        items.map((it) => ({
          evidence: it.id,
          weight: it.p,
          columns: commutatorColumns(lin, it.id, basis, q, 'sigma'),
        })),
        (rows, m) =>
          nondegeneracyTolerance(
            FD_RELATIVE_ACCURACY,
            frob(A),
            Math.max(...items.map((it) => frob(it.B))),
            rows,
            m,
            'test',
          ),
      );
      expect(dec.kernelDim).toBe(k);
      expect(dec.nonDegenerate).toBe(false);
      // each reported kernel vector lies in span(U[:, 0..k−1]) to FD accuracy
      for (const v of dec.kernelVectors) {
        const x = toDense(v);
        const proj = Array.from({ length: k }, (_, j) => U.reduce((s, row, i) => s + row[j]! * x[i]!, 0));
        const resid = Math.sqrt(Math.max(0, 1 - proj.reduce((s, c) => s + c * c, 0)));
        expect(resid).toBeLessThan(1e-6);
      }
      // off the kernel, the next singular value is far above the tolerance
      expect(dec.singularValues[4 - k - 1]!).toBeGreaterThan(1e3 * Math.sqrt(dec.tolerance));
    },
  );
});

describe('redundancy', () => {
  it('measures ‖P_e(θ) − θ‖ and picks Σ_e or DF_e per item', () => {
    const n = 3;
    const sys = linearSystem({
      A: randomMatrix(n, 1, 0.3),
      items: [
        { id: 'fixed', p: 0.5, B: identity(n) }, // P = identity: redundancy holds exactly
        { id: 'moving', p: 0.5, B: identity(n), b: [0.1, 0, 0] }, // shifts by 0.1
      ],
    });
    using lin = new Linearization(sys, Float64Array.of(0.2, 0.3, 0.4), { method: 'fd' });
    const red = measureRedundancy(lin, sys.evidenceAt(lin.theta));
    expect(red[0]).toMatchObject({ evidence: 'fixed', residual: 0, holds: true, linearization: 'sigma' });
    expect(red[1]!.holds).toBe(false);
    expect(red[1]!.linearization).toBe('exact');
    expect(Math.abs(red[1]!.residual - 0.1)).toBeLessThan(1e-15);
  });
});

describe('P_e(θ) held as its change, DQ(P_e(θ)) built from DQ(θ)', () => {
  it('gives the residuals and the Jacobians of the dense P_e(θ), bit for bit', async () => {
    const { sys, theta } = await consolidatedState();
    using lin = new Linearization(sys, theta, { method: 'fd' });
    const pool = sys.evidenceAt(theta);
    const red = measureRedundancy(lin, pool);
    pool.forEach(({ id }, i) => {
      const dense = sys.expand(id, theta);
      expect(lin.expanded(id)).toEqual(dense);
      const { index } = lin.expandedChange(id);
      expect(index.length).toBeLessThan(theta.length / 10); // P_e writes its footprint only
      for (let j = 0, k = 0; j < theta.length; j++)
        if (k < index.length && index[k] === j) k++;
        else expect(Object.is(dense[j], theta[j])).toBe(true);
      expect(Object.is(red[i]!.residual, referenceDistance(dense, theta))).toBe(true);
    });
    const e = pool[0]!.id;
    const atP = lin.consolidateAtExpanded(e);
    using direct = consolidateJacobian(sys, sys.expand(e, theta), { method: 'fd' }) as Disposable &
      ReturnType<typeof consolidateJacobian>;
    const cols = [...lin.expandedChange(e).index, 0, 7, theta.length - 1];
    for (const j of cols) expect(atP.column(j)).toEqual(direct.column(j));
  });
});

describe('the non-degeneracy decision straddles its tolerance', () => {
  // One item with Σ B = diag(1, s) on W = span(e0, e1): σ(stack) = (1, s). The σ-tolerance is
  // fixed at 1e-6 (γ = 1e-6 / (4r + max(rows, m)·eps)), so s = 0.99e-6 must be degenerate and
  // s = 1.01e-6 non-degenerate (numpy TestMatrixRank's straddle).
  const sys = linearSystem({ A: identity(2), items: [{ id: 'e', p: 1, B: identity(2) }] });
  const basis = coordinateBasis(2, [0, 1]);
  const r = FD_RELATIVE_ACCURACY;
  const tol = (rows: number, m: number) => {
    const gamma = 1e-6 / (4 * r + Math.max(rows, m) * Number.EPSILON);
    return nondegeneracyTolerance(r, gamma, 1, rows, m, 'test');
  };
  const decide = (s: number) =>
    decideNonDegeneracy(
      sys,
      basis,
      [
        {
          evidence: 'e',
          weight: 1,
          columns: [
            { dim: 2, index: Int32Array.of(0), value: Float64Array.of(1) },
            { dim: 2, index: Int32Array.of(1), value: Float64Array.of(s) },
          ],
        },
      ],
      tol,
    );
  it('0.99·tol is degenerate with the e1 direction in the kernel; 1.01·tol is not', () => {
    const below = decide(0.99e-6);
    expect(Math.sqrt(below.tolerance)).toBeCloseTo(1e-6, 15);
    expect(below.nonDegenerate).toBe(false);
    expect(below.kernelDim).toBe(1);
    expect(below.kernel[0]![0]!.name).toBe('x1');
    expect(below.margin).toBeCloseTo(1 / 0.99 ** 2, 6);
    const above = decide(1.01e-6);
    expect(above.nonDegenerate).toBe(true);
    expect(above.kernelDim).toBe(0);
    expect(above.lambdaMin).toBeCloseTo(1.01e-6 ** 2, 20);
    expect(above.margin).toBeCloseTo(1.01 ** 2, 6);
  });
});

describe('the kernel vectors in θ coordinates', () => {
  // W = span of two unit vectors with overlapping supports in R⁴ (a rotation in the (x1, x2)
  // plane, and x3); Σ B = diag(1, 0) in the basis: the kernel is the second basis vector, which
  // the decision must give on the union {1, 2, 3} of the supports with its exact entries.
  it('are B·n on the union of the basis supports, ascending, orthonormal, named', () => {
    const sys = linearSystem({ A: identity(4), items: [{ id: 'e', p: 1, B: identity(4) }] });
    const [c, s] = [0.6, 0.8];
    const basis: SparseVector[] = [
      { dim: 4, index: Int32Array.of(2, 1), value: Float64Array.of(s, c) }, // any order
      { dim: 4, index: Int32Array.of(1, 2, 3), value: Float64Array.of(-s, c, 0) },
    ];
    const dec = decideNonDegeneracy(
      sys,
      basis,
      [
        {
          evidence: 'e',
          weight: 1,
          columns: [
            { dim: 4, index: Int32Array.of(0), value: Float64Array.of(1) },
            { dim: 4, index: Int32Array.of(0), value: Float64Array.of(0) },
          ],
        },
      ],
      (rows, m) => nondegeneracyTolerance(FD_RELATIVE_ACCURACY, 1, 1, rows, m, 'test'),
    );
    expect(dec.kernelDim).toBe(1);
    const v = dec.kernelVectors[0]!;
    expect(Array.from(v.index)).toEqual([1, 2, 3]);
    const sign = Math.sign(v.value[1]!);
    // the null-space vector n = ±e2 exactly (R = diag(1, 0)): B·n is the second basis vector
    expect(Array.from(v.value, (x) => sign * x)).toEqual([-s, c, 0]);
    expect(dec.kernel[0]!.map((k) => k.name).sort()).toEqual(['x1', 'x2']);
  });

  test.prop([fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 6, maxLength: 6 })])(
    'basisCombinations sums B·c in order over the union (or the moved supports) of the basis',
    (c) => {
      // three basis vectors on {0, 2}, {2, 5} and {7} of R⁸; two combinations (stride 2)
      const basis: SparseVector[] = [
        { dim: 8, index: Int32Array.of(0, 2), value: Float64Array.of(0.5, -0.25) },
        { dim: 8, index: Int32Array.of(2, 5), value: Float64Array.of(0.75, 1) },
        { dim: 8, index: Int32Array.of(7), value: Float64Array.of(-2) },
      ];
      const coef = Float64Array.from(c, (x) => x / 4);
      for (const support of ['union', 'moved'] as const) {
        const got = basisCombinations(8, basis, coef, 2, 2, support);
        for (let k = 0; k < 2; k++) {
          const want = new Map<number, number>();
          basis.forEach((b, j) => {
            const a = coef[j * 2 + k]!;
            if (support === 'moved' && a === 0) return;
            b.index.forEach((i, t) => want.set(i, (want.get(i) ?? 0) + a * b.value[t]!));
          });
          if (support === 'union') for (const i of [0, 2, 5, 7]) want.set(i, want.get(i) ?? 0);
          const idx = [...want.keys()].sort((a, b) => a - b);
          expect(Array.from(got[k]!.index)).toEqual(idx);
          expect(Array.from(got[k]!.value)).toEqual(idx.map((i) => want.get(i)));
        }
      }
    },
  );
});

describe('the stack’s zero columns are deflated: exact null directions, the rest decided on its own', () => {
  // items whose columns vanish on a random subset Z of W: the decision and G_W on the other
  // columns, with the zero singular values and unit null vectors of Z added, agree with the dense
  // stack's SVD and G_W's eigh (rounding of different operation orders: 1e-12 relative)
  test.prop([fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 3, max: 8 }), fc.boolean()], { numRuns: 40 })(
    'singular values, kernel and G_W as the dense stack gives them',
    (seed, m, allZero) => {
      let r = seed;
      const next = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
      const zeroCol = Array.from({ length: m }, (_, j) => allZero || j % 3 === seed % 3 || next() > 0.3);
      const rows = 5;
      const items = [0.25, 0.75].map((weight, e) => ({
        evidence: `e${e}`,
        weight,
        columns: Array.from({ length: m }, (_, j): SparseVector => {
          const idx = zeroCol[j] ? [j % rows] : [0, 1, 2, 3, 4].filter(() => next() > -0.3);
          const value = idx.map(() => (zeroCol[j] ? 0 : next())); // a zero column may store zeros
          return { dim: rows, index: Int32Array.from(idx), value: Float64Array.from(value) };
        }),
      }));
      const sys = linearSystem({ A: identity(m), items: [{ id: 'e', p: 1, B: identity(m) }] });
      const basis = coordinateBasis(
        m,
        Array.from({ length: m }, (_, j) => j),
      );
      const dec = decideNonDegeneracy(sys, basis, items, (rowsSeen, mm) =>
        nondegeneracyTolerance(FD_RELATIVE_ACCURACY, 1, 1, rowsSeen, mm, 'test'),
      );
      // the dense weighted stack [√w_e Σ_e B] (rows × m per item)
      const S: number[][] = [];
      for (const it of items)
        for (let i = 0; i < rows; i++)
          S.push(Array.from({ length: m }, (_, j) => Math.sqrt(it.weight) * (toDense(it.columns[j]!)[i] ?? 0)));
      const sv = svdvals(S.flat(), S.length, m);
      const smax = Math.max(sv[0]!, 1e-300);
      expect(dec.singularValues.length).toBe(m);
      dec.singularValues.forEach((x, k) => expect(Math.abs(x - sv[k]!)).toBeLessThan(1e-12 * smax + 1e-300));
      const isUnit = (v: SparseVector, j: number) => toDense(v).every((x, i) => x === (i === j ? 1 : 0));
      for (let j = 0; j < m; j++) if (zeroCol[j]) expect(dec.kernelVectors.some((v) => isUnit(v, j))).toBe(true);
      for (const v of dec.kernelVectors) {
        const x = toDense(v);
        const Sx = S.map((row) => row.reduce((a, b, j) => a + b * x[j]!, 0));
        expect(norm(Sx)).toBeLessThan(Math.sqrt(dec.tolerance) + 1e-12 * smax);
        expect(Math.abs(norm(x) - 1)).toBeLessThan(1e-12);
      }
      const g = commutatorGramian(sys, basis, items, dec.tolerance);
      const G = Array.from({ length: m * m }, (_, t) =>
        S.reduce((a, row) => a + row[Math.floor(t / m)]! * row[t % m]!, 0),
      );
      const gmax = Math.max(...G.map(Math.abs), 1e-300);
      g.matrix.forEach((x, t) => expect(Math.abs(x - G[t]!)).toBeLessThan(1e-12 * gmax));
      const ev = eigh(G, m).values;
      Array.from(g.eigenvalues)
        .reverse()
        .forEach((x, k) => expect(Math.abs(x - ev[k]!)).toBeLessThan(1e-12 * gmax));
      for (let j = 0; j < m; j++) if (zeroCol[j]) expect(g.kernelVectors.some((v) => isUnit(v, j))).toBe(true);
    },
  );
});

describe('commutatorGramian: G_W by the Gramian kernel, its eigenvalues and kernel', () => {
  test.prop([fc.integer({ min: 1, max: 500 }), fc.integer({ min: 2, max: 6 })])(
    'G_W = Σ_e p_e (Σ_e B)ᵀ(Σ_e B) entry by entry; its eigenvalues are the stack’s σ² (to m·eps·λ_max)',
    (seed, n) => {
      const spec = randomSpec(seed, n, 3);
      spec.items.forEach((it, k) => (it.p = [0.5, 0.3, 0.2][k]!));
      const sys = linearSystem(spec);
      const theta = Float64Array.from({ length: n }, (_, i) => 0.3 * Math.sin(i + seed));
      using lin = new Linearization(sys, theta, { method: 'fd' });
      const basis = coordinateBasis(
        n,
        Array.from({ length: n }, (_, i) => i),
      );
      const red = measureRedundancy(lin, sys.evidenceAt(theta), 'sigma');
      const items = subspaceColumns(lin, basis, red);
      const g = commutatorGramian(sys, basis, items, 0);
      // the definition, summed in another order: m terms of size <= p_e‖Σ_e b_i‖‖Σ_e b_j‖ each
      let scale = 0;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          let s = 0;
          let a = 0;
          for (const it of items) {
            const d = sparseDot(it.columns[i]!, it.columns[j]!);
            s += it.weight * d;
            a +=
              it.weight *
              Math.sqrt(sparseDot(it.columns[i]!, it.columns[i]!) * sparseDot(it.columns[j]!, it.columns[j]!));
          }
          scale = Math.max(scale, a);
          expect(Math.abs(g.matrix[i * n + j]! - s)).toBeLessThanOrEqual(8 * n * Number.EPSILON * a + 1e-300);
        }
      const dec = decideNonDegeneracy(sys, basis, items, (rows, m) =>
        nondegeneracyTolerance(FD_RELATIVE_ACCURACY, 1, 1, rows, m, 'test'),
      );
      expect(g.resolution).toBe(n * Number.EPSILON * g.eigenvalues[0]!);
      dec.singularValues.forEach((sv, k) =>
        expect(Math.abs(g.eigenvalues[k]! - sv * sv)).toBeLessThanOrEqual(8 * g.resolution + 1e-300),
      );
    },
  );

  it('the kernel of a degenerate direction is found, in named coordinates, at max(λ-tol, resolution)', () => {
    // x2 is fixed by Q and by every P_e (DQ e_2 = e_2, DP_e e_2 = e_2): Σ_e e_2 = 0 exactly
    const n = 3;
    const A = [
      [0.3, 0.1, 0],
      [0.2, 0.4, 0],
      [0, 0, 1],
    ];
    const B = [
      [0.5, 0, 0],
      [0.1, 0.9, 0],
      [0, 0, 1],
    ];
    const sys = linearSystem({ A, items: [{ id: 'e1', p: 1, B }] });
    const theta = Float64Array.of(0.1, 0.2, 0.3);
    using lin = new Linearization(sys, theta, { method: 'fd' });
    const basis = coordinateBasis(n, [0, 1, 2]);
    const items = subspaceColumns(lin, basis, measureRedundancy(lin, sys.evidenceAt(theta), 'sigma'));
    const tol = 1e-9 ** 2;
    const g = commutatorGramian(sys, basis, items, tol);
    expect(g.kernelThreshold).toBe(Math.max(tol, g.resolution));
    expect(g.kernel).toHaveLength(1);
    expect(g.kernel[0]![0]!.name).toBe('x2');
    expect(Math.abs(Math.abs(toDense(g.kernelVectors[0]!)[2]!) - 1)).toBeLessThan(1e-12);
    // exactly zero G_W: no eigh, every eigenvalue 0, the kernel is the basis itself
    const zero = commutatorGramian(
      sys,
      basis,
      [
        {
          evidence: 'e1',
          weight: 1,
          columns: basis.map((b) => ({ ...b, index: new Int32Array(0), value: new Float64Array(0) })),
        },
      ],
      0,
    );
    expect(Array.from(zero.eigenvalues)).toEqual([0, 0, 0]);
    expect(zero.kernel).toHaveLength(3);
    expect(() => commutatorGramian(sys, basis, [{ evidence: 'e1', weight: 1, columns: [] }], 0)).toThrow(
      /columns of e1/,
    );
  });
});

describe('the certification report carries G_W per decided subspace', () => {
  it('eigenvalues agree with the decision’s λ within the resolution; the matrix is there for m <= 64; --json encodes it', async () => {
    const spec = randomSpec(7, 4, 2);
    const sys = linearSystem({ ...spec, subspaces: { all4: [0, 1, 2, 3] } });
    const r = await certify(sys, { subspaces: ['all4'], questions: [], samples: 4 });
    const s = r.subspaces[0]!;
    const g = s.gramian;
    expect(g.eigenvalues).toHaveLength(4);
    expect(Math.abs(g.eigenvalues[0]! - s.lambdaMax)).toBeLessThanOrEqual(8 * g.resolution + 1e-300);
    expect(Math.abs(g.eigenvalues[3]! - s.lambdaMin)).toBeLessThanOrEqual(8 * g.resolution + 1e-300);
    expect(g.matrix).toHaveLength(16);
    expect(g.kernelThreshold).toBe(Math.max(s.tolerance, g.resolution));
    const json = JSON.parse(reportJson(r)) as { subspaces: { gramian: { eigenvalues: number[]; matrix: number[] } }[] };
    expect(json.subspaces[0]!.gramian.eigenvalues).toEqual(Array.from(g.eigenvalues));
    expect(json.subspaces[0]!.gramian.matrix).toEqual(Array.from(g.matrix!));
  });
});
