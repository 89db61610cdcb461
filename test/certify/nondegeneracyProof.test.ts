/**
 * Proofs of the non-degeneracy verdict over an enclosure of the fixed point
 * (src/certify/nondegeneracyProof.ts): the example module (tfjs forms), the same affine system
 * through an interval form (chain rule), a numerically tiny kernel, a nonlinear system on a narrow
 * and a wide box, and the size limit.
 */
import { fileURLToPath } from 'node:url';
import type * as TfCore from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { proveNonDegeneracy } from '../../src/certify/nondegeneracyProof.js';
import { R, add, scale } from '../../src/interval/arith.js';
import { defineSystem, extendSystem } from '../../src/system/define.js';
import { loadSystemModule } from '../../src/system/registry.js';
import type { FormEnclosure, OperatorSystem, Tf } from '../../src/system/types.js';
import { identity, linearSystem, matvec, type Mat } from './linearSystems.js';

const example = await loadSystemModule(fileURLToPath(new URL('../../examples/systems/linear.mjs', import.meta.url)));

// The example's constants (examples/systems/linear.mjs): Q(θ) = (0.5·b + 0.3·M s, s),
// P_e(θ) = θ with s_e ← s_e + a_e (t_e − s_e).
const M: Mat = [
  [1, 0.5, 0],
  [0, 1, 0.5],
  [0.5, 0, 1],
];
const a = [0.5, 0.3, 0.2];
const t = [0.9, 0.6, 0.3];
const items = ['e0', 'e1', 'e2'].map((id) => ({ id, p: 1 / 3 }));

/**
 * DF_e = −a_e (DQ E_e − E_e DQ) (E_e the unit on s_e) has one nonzero column, s_e's:
 * −a_e·0.3·M[:, e] on the beliefs. So G_structure is diagonal with p·(0.3·a_e)²·‖M[:, e]‖² =
 * (1/3)·0.09·1.25·a_e² = 0.009375, 0.003375, 0.0015: λ_min = 0.0015 (e2, a = 0.2), and every
 * belief column of every DF_e is exactly 0.
 */
const LAMBDA_MIN = (1 / 3) * (0.3 * 0.2) ** 2 * 1.25;

/** The fixed point: s = t (every P_e fixes it), b = 0.5 b + 0.3 M s, so b = 0.6·M t. */
const thetaStar = Float64Array.from([...matvec(M, t).map((v) => 0.6 * v), ...t]);

function boxAround(theta: Float64Array, r: number) {
  return { lo: theta.map((v) => v - r), hi: theta.map((v) => v + r) };
}

const structure = Int32Array.of(3, 4, 5);
const beliefs = Int32Array.of(0, 1, 2);
const nonDegenerate = { nonDegenerate: true, kernelDim: 0, lambdaMin: LAMBDA_MIN };
const beliefsDegenerate = { nonDegenerate: false, kernelDim: 3, lambdaMin: 0 };
const withoutE2 = items.map((it) => (it.id === 'e2' ? { ...it, p: 0 } : it));

/** The example as an affine spec: A = DQ, B_e = DP_e, b_e = a_e t_e on s_e. */
function exampleSpec() {
  const A: Mat = identity(6).map((row, i) =>
    i < 3 ? row.map((v, j) => (j < 3 ? 0.5 * v : 0.3 * M[i]![j - 3]!)) : row,
  );
  return {
    A,
    items: items.map(({ id, p }, e) => {
      const B = identity(6);
      B[3 + e]![3 + e] = 1 - a[e]!;
      const b = new Array<number>(6).fill(0);
      b[3 + e] = a[e]! * t[e]!;
      return { id, p, B, b };
    }),
  };
}

/** An interval form of x ↦ A x + c: values by outward-rounded dot products, the Jacobian exact (points A[r][s]). */
function affineForm(A: Mat, c: readonly number[]) {
  return (lo: Float64Array, hi: Float64Array, seeds: Int32Array | null, rows: Int32Array | null): FormEnclosure => {
    const d = A.length;
    const vlo = new Float64Array(d);
    const vhi = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let [l, h] = [c[i]!, c[i]!];
      for (let j = 0; j < d; j++) {
        scale(lo[j]!, hi[j]!, A[i]![j]!);
        add(l, h, R.lo, R.hi);
        [l, h] = [R.lo, R.hi];
      }
      [vlo[i], vhi[i]] = [l, h];
    }
    if (!seeds) return { lo: vlo, hi: vhi, jacobian: null };
    const rr = rows ?? Int32Array.from({ length: d }, (_, i) => i);
    const J = Float64Array.from({ length: rr.length * seeds.length }, (_, k) => {
      return A[rr[Math.floor(k / seeds.length)]!]![seeds[k % seeds.length]!]!;
    });
    return { lo: vlo, hi: vhi, jacobian: { lo: J, hi: J.slice(), rows: rr.length, cols: seeds.length } };
  };
}

/** The example with an interval form (which takes precedence over its tfjs forms). */
function exampleWithIntervalForm(): OperatorSystem {
  const spec = exampleSpec();
  const byId = new Map(spec.items.map((it) => [it.id, it]));
  return extendSystem(linearSystem(spec), {
    intervalForm: {
      consolidate: affineForm(spec.A, new Array<number>(6).fill(0)),
      expand: (id, lo, hi, seeds, rows) => affineForm(byId.get(id)!.B, byId.get(id)!.b)(lo, hi, seeds, rows),
    },
  });
}

describe('the example module (tfjs forms) on a tiny box around its fixed point', () => {
  const box = boxAround(thetaStar, 1e-9);

  it('structure: non-degenerate proved, the bound within 1e-6 of λ_min = 0.0015 and below it', () => {
    const r = proveNonDegeneracy(example, box, structure, items, nonDegenerate);
    expect(r.proof).toBe('proved');
    expect(r.exactKernel).toEqual([]);
    expect(r.lambdaMinLowerBound).toBeGreaterThan(0);
    expect(r.lambdaMinLowerBound).toBeLessThanOrEqual(LAMBDA_MIN);
    expect(r.lambdaMinLowerBound).toBeGreaterThanOrEqual(LAMBDA_MIN * (1 - 1e-6));
    expect(r.statement).toMatch(/^λ_min\(G_W\) >= \S+ > 0 for every θ in the enclosure .*: non-degenerate at θ\*$/);
  });

  it('a float λ_min above the true one does not raise the bound (λ_max = 0.009375 given as λ_min)', () => {
    const r = proveNonDegeneracy(example, box, structure, items, { ...nonDegenerate, lambdaMin: 0.009375 });
    expect(r.proof).toBe('proved');
    expect(r.lambdaMinLowerBound).toBeLessThan(LAMBDA_MIN);
  });

  it('beliefs: the degenerate verdict is proved by structural zeros on the 3 belief coordinates', () => {
    const r = proveNonDegeneracy(example, box, beliefs, items, beliefsDegenerate);
    expect(r.proof).toBe('proved');
    expect(r.exactKernel).toEqual([0, 1, 2]);
    expect(r.lambdaMinLowerBound).toBeNull();
    expect(r.statement).toMatch(
      /^the kernel is exact: DF_e is exactly 0 on b0, b1, b2 for every item .*: G_W is singular at θ\*, with 3 exact kernel directions, all of W$/,
    );
  });

  it('all coordinates: the kernel is exactly the beliefs (the structure part is proved definite)', () => {
    const r = proveNonDegeneracy(example, box, Int32Array.of(0, 1, 2, 3, 4, 5), items, beliefsDegenerate);
    expect(r.proof).toBe('proved');
    expect(r.exactKernel).toEqual([0, 1, 2]);
    expect(r.statement).toMatch(/positive definite there, so the kernel is exactly these coordinates/);
  });

  it('the float verdict "non-degenerate" on the beliefs is contradicted by the exact zeros', () => {
    const r = proveNonDegeneracy(example, box, beliefs, items, { nonDegenerate: true, kernelDim: 0, lambdaMin: 1 });
    expect(r.proof).toBe('numerical');
    expect(r.exactKernel).toEqual([0, 1, 2]);
    expect(r.statement).toMatch(/G_W is singular for every θ in the enclosure/);
  });

  it('an item with p = 0 contributes nothing: structure without e2 is not proved definite', () => {
    // s2's column of DF_e0 and DF_e1 is 0, but the tfjs matMul's tangent encloses it as ±1e-16
    const r = proveNonDegeneracy(example, box, structure, withoutE2, nonDegenerate);
    expect(r.proof).toBe('numerical');
    expect(r.lambdaMinLowerBound).toBeNull();
  });

  it('d·|W| above maxEntries: not attempted', () => {
    const r = proveNonDegeneracy(example, box, structure, items, nonDegenerate, { maxEntries: 17 });
    expect(r.proof).toBe('numerical');
    expect(r.statement).toMatch(/not attempted, d·\|W\| = 6·3 = 18 entries > maxEntries = 17/);
  });

  it('bad arguments are one-line errors naming them', () => {
    expect(() => proveNonDegeneracy(example, box, Int32Array.of(3, 3), items, nonDegenerate)).toThrow(
      /^coordinates = .*: must not repeat a coordinate/,
    );
    expect(() => proveNonDegeneracy(example, box, Int32Array.of(6), items, nonDegenerate)).toThrow(/^coordinates\[0\]/);
    expect(() =>
      proveNonDegeneracy(example, { lo: box.lo, hi: box.lo.subarray(1) }, structure, items, nonDegenerate),
    ).toThrow(/^enclosure\.hi = .*: must be a Float64Array of length d = 6/);
    expect(() => proveNonDegeneracy(example, box, structure, [{ id: 'e0', p: -1 }], nonDegenerate)).toThrow(
      /^items\[0\]\.p = -1: must be >= 0/,
    );
  });
});

describe('an interval form: the chain rule with interval matrices', () => {
  const system = exampleWithIntervalForm();
  const box = boxAround(thetaStar, 1e-9);

  it('structure: proved with the same bound as the tfjs forms give', () => {
    const r = proveNonDegeneracy(system, box, structure, items, nonDegenerate);
    expect(r.proof).toBe('proved');
    expect(r.lambdaMinLowerBound).toBeLessThanOrEqual(LAMBDA_MIN);
    expect(r.lambdaMinLowerBound).toBeGreaterThanOrEqual(LAMBDA_MIN * (1 - 1e-6));
  });

  it('beliefs: the unit columns of DP_e keep the cancellation exact, so the kernel is proved', () => {
    const r = proveNonDegeneracy(system, box, beliefs, items, beliefsDegenerate);
    expect(r.proof).toBe('proved');
    expect(r.exactKernel).toEqual([0, 1, 2]);
  });

  it('an item with p = 0 contributes nothing: s2 is then an exact kernel direction', () => {
    const r = proveNonDegeneracy(system, box, structure, withoutE2, nonDegenerate);
    expect(r.proof).toBe('numerical');
    expect(r.exactKernel).toEqual([5]);
    expect(r.statement).toMatch(/the float verdict is non-degenerate, but DF_e is exactly 0 on x5/);
  });

  it('an interval form without expand: numerical, saying why', () => {
    const spec = exampleSpec();
    const noExpand = extendSystem(linearSystem(spec), {
      intervalForm: { consolidate: affineForm(spec.A, new Array<number>(6).fill(0)) },
    });
    const r = proveNonDegeneracy(noExpand, box, structure, items, nonDegenerate);
    expect(r.proof).toBe('numerical');
    expect(r.statement).toMatch(/interval form of Q without expand/);
  });
});

describe('what stays numerical', () => {
  it('a kernel that is only numerically small (DF_e = −1.5e-12 on x1) is not proved to be zero', () => {
    // Σ = AB − BA = [[0, 1e-12·(0.5 − 2)], [0, 0]]: G_W = (1.5e-12)² on W = {x1}
    const system = linearSystem({
      A: [
        [1, 1e-12],
        [0, 0.5],
      ],
      items: [
        {
          id: 'e',
          p: 1,
          B: [
            [2, 0],
            [0, 0.5],
          ],
        },
      ],
    });
    const box = boxAround(Float64Array.of(0, 0), 1e-9);
    const r = proveNonDegeneracy(system, box, Int32Array.of(1), [{ id: 'e', p: 1 }], {
      nonDegenerate: false,
      kernelDim: 1,
      lambdaMin: 2.25e-24,
    });
    expect(r.proof).toBe('numerical');
    expect(r.exactKernel).toEqual([]);
    // the enclosure shows G_W > 0: the float tolerance called a real (tiny) eigenvalue zero
    expect(r.lambdaMinLowerBound).toBeGreaterThanOrEqual(0);
    expect(r.statement).toMatch(/the float verdict is degenerate, but G_W is positive definite/);
  });

  /**
   * Q(x) = (0.5·x0 + 0.3·x1², x1), P(x) = (x0, 0.5·x1 + 0.45): DF = [[0, 0.135 − 0.45·x1], [0, 0]],
   * at the fixed point x1 = 0.9, x0 = 0.6·0.81: G_W = 0.27² = 0.0729 on W = {x1}. The enclosure
   * of the two compositions' columns (0.15·x1 + 0.135 and 0.6·x1, subtracted) contains 0 once
   * x1 ranges over 0.9 ± 0.5.
   */
  const quadratic = defineSystem({
    name: 'quadratic',
    dim: 2,
    theta0: [0.486, 0.9],
    consolidate: (x) => Float64Array.of(0.5 * x[0]! + 0.3 * x[1]! ** 2, x[1]!),
    expand: (_id, x) => Float64Array.of(x[0]!, 0.5 * x[1]! + 0.45),
    evidence: [{ id: 'e', p: 1 }],
    linearization: {
      consolidateTf: (tf: Tf, X: TfCore.Tensor2D) => {
        const x0 = tf.slice(X, [0, 0], [-1, 1]);
        const x1 = tf.slice(X, [0, 1], [-1, 1]);
        return tf.concat([tf.add(tf.mul(x0, 0.5), tf.mul(tf.square(x1), 0.3)), x1], 1);
      },
      expandTf: (tf: Tf, _id: string, X: TfCore.Tensor2D) =>
        tf.add(tf.mul(X, tf.tensor1d([1, 0.5])), tf.tensor1d([0, 0.45])),
    },
  });
  const fixed = Float64Array.of(0.6 * 0.81, 0.9);
  const verdict = { nonDegenerate: true, kernelDim: 0, lambdaMin: 0.0729 };

  it('a nonlinear system: proved on a narrow box, numerical on a wide one', () => {
    const narrow = proveNonDegeneracy(
      quadratic,
      boxAround(fixed, 1e-8),
      Int32Array.of(1),
      [{ id: 'e', p: 1 }],
      verdict,
    );
    expect(narrow.proof).toBe('proved');
    expect(narrow.lambdaMinLowerBound).toBeGreaterThanOrEqual(0.0729 * (1 - 1e-6));
    expect(narrow.lambdaMinLowerBound).toBeLessThan(0.0729 * (1 + 1e-6));
    const wide = proveNonDegeneracy(quadratic, boxAround(fixed, 0.5), Int32Array.of(1), [{ id: 'e', p: 1 }], verdict);
    expect(wide.proof).toBe('numerical');
    expect(wide.lambdaMinLowerBound).toBeNull();
    expect(wide.statement).toMatch(/the enclosures are too wide for this margin/);
  });

  it('no form to enclose with: numerical', () => {
    const bare = defineSystem({
      name: 'bare',
      dim: 1,
      consolidate: (x) => x,
      expand: (_id, x) => x,
      evidence: [{ id: 'e', p: 1 }],
    });
    const r = proveNonDegeneracy(
      bare,
      boxAround(Float64Array.of(0), 1),
      Int32Array.of(0),
      [{ id: 'e', p: 1 }],
      verdict,
    );
    expect(r.proof).toBe('numerical');
    expect(r.statement).toMatch(/no interval form and no tfjs forms/);
  });
});
