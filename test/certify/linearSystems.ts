/**
 * Affine operator systems for tests: Q(x) = A x + a, P_e(x) = B_e x + b_e, so DQ = A,
 * DP_e = B_e and Σ_e = A B_e − B_e A exactly (Eq. 4 as a direct matrix product).
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystem } from '../../src/system/types.js';
import type { Tf } from '../../src/system/types.js';
import { createRng } from '../../src/ordergap/rng.js';

/** Row-major n×n matrices as number[][]. */
export type Mat = number[][];

export function matmul(A: Mat, B: Mat): Mat {
  const n = A.length;
  const k = B.length;
  const m = B[0]!.length;
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: m }, (_, j) => {
      let s = 0;
      for (let t = 0; t < k; t++) s += A[i]![t]! * B[t]![j]!;
      return s;
    }),
  );
}
export const sub = (A: Mat, B: Mat): Mat => A.map((r, i) => r.map((a, j) => a - B[i]![j]!));
export const transpose = (A: Mat): Mat => A[0]!.map((_, j) => A.map((r) => r[j]!));
export const matvec = (A: Mat, x: ArrayLike<number>): Float64Array =>
  Float64Array.from(A, (r) => r.reduce((s, a, j) => s + a * x[j]!, 0));
export const identity = (n: number): Mat =>
  Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
export const commutator = (A: Mat, B: Mat): Mat => sub(matmul(A, B), matmul(B, A));

/** A seeded random n×n matrix with entries uniform in [-s, s]. */
export function randomMatrix(n: number, seed: number, s = 1): Mat {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => Array.from({ length: n }, () => s * (2 * rng.next() - 1)));
}

/** A random orthogonal n×n matrix (Gram–Schmidt of a seeded random matrix). */
export function randomOrthogonal(n: number, seed: number): Mat {
  const R = randomMatrix(n, seed);
  const Q: number[][] = [];
  for (let j = 0; j < n; j++) {
    const v = R.map((r) => r[j]!);
    for (let pass = 0; pass < 2; pass++)
      for (const q of Q) {
        const d = q.reduce((s, a, i) => s + a * v[i]!, 0);
        q.forEach((a, i) => (v[i]! -= d * a));
      }
    const nv = Math.hypot(...v);
    Q.push(v.map((a) => a / nv));
  }
  return transpose(Q); // columns orthonormal
}

export interface LinearSpec {
  A: Mat;
  a?: number[];
  items: { id: string; p: number; B: Mat; b?: number[]; footprint?: number[] }[];
  theta0?: number[];
  subspaces?: Record<string, number[]>;
  questions?: Record<string, number[]>;
  lipschitz?: Record<string, number>;
}

/** The affine system of a spec, with tfjs forms (for autodiff) and footprints when given. */
export function linearSystem(spec: LinearSpec, name = 'linear-test'): OperatorSystem {
  const n = spec.A.length;
  const a = spec.a ?? new Array<number>(n).fill(0);
  const byId = new Map(spec.items.map((it) => [it.id, it]));
  const flatT = (M: Mat): number[] => transpose(M).flat();
  const hasFootprints = spec.items.every((it) => it.footprint !== undefined);
  return defineSystem({
    name,
    dim: n,
    theta0: spec.theta0 ?? new Array<number>(n).fill(0.5),
    evidence: spec.items.map(({ id, p }) => ({ id, p })),
    consolidate: (x) => matvec(spec.A, x).map((v, i) => v + a[i]!),
    expand: (id, x) => {
      const it = byId.get(id)!;
      const b = it.b ?? new Array<number>(n).fill(0);
      return matvec(it.B, x).map((v, i) => v + b[i]!);
    },
    subspaces: spec.subspaces ?? {},
    questions: spec.questions ?? {},
    describeCoordinate: (i) => `x${i}`,
    ...(spec.lipschitz
      ? { lipschitz: Object.fromEntries(Object.entries(spec.lipschitz).map(([k, bound]) => [k, { bound }])) }
      : {}),
    linearization: {
      ...(hasFootprints ? { footprint: (id: string) => byId.get(id)!.footprint! } : {}),
      consolidateTf: (tf: Tf, X: TfCore.Tensor2D) =>
        tf.add(tf.matMul(X, tf.tensor2d(flatT(spec.A), [n, n])), tf.tensor1d(a)),
      expandTf: (tf: Tf, id: string, X: TfCore.Tensor2D) => {
        const it = byId.get(id)!;
        return tf.add(
          tf.matMul(X, tf.tensor2d(flatT(it.B), [n, n])),
          tf.tensor1d(it.b ?? new Array<number>(n).fill(0)),
        );
      },
    },
  });
}
