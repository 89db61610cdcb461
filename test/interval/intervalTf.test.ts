/**
 * The interval tfjs namespace and encloseForm: enclosures of values and Jacobians of tfjs forms
 * (the reference graph's Q and P_e, the linear example module, small generic forms) checked
 * against plain f64 evaluations and central differences, the ops' semantics against tfjs itself,
 * kinks, undecided conditions, NaN and errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { encloseForm, intervalTf, type TfForm } from '../../src/interval/intervalTf.js';
import { IntervalTensor } from '../../src/interval/tensor.js';
import { slice } from '../../src/interval/tfShape.js';
import { createScenario } from '../../src/graph/scenarios/scenario.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { jacobianCentral } from '../../src/linearize/finiteDifference.js';
import { loadTf, type Tf } from '../../src/linearize/autodiff.js';
import { ArgumentError } from '../../src/util/errors.js';
import { EPS } from '../util/compare.js';
import { smallGraphDoc } from '../graph/fixtures.js';
import { confidenceBlock } from '../../src/graph/model/layout.js';

/** The parts of the example operator module (examples/systems/linear.mjs) used here. */
interface ExampleModule {
  theta0: number[];
  consolidate(theta: Float64Array): Float64Array;
  linearization: { consolidateTf: TfForm; expandTf: (tf: unknown, id: string, X: unknown) => unknown };
}
const linear = (
  (await import(new URL('../../examples/systems/linear.mjs', import.meta.url).href)) as { default: ExampleModule }
).default;

/** A small reference-graph scenario: smallGraphDoc (Nmax 6, d = 126) and two items, one adding a claim near c1 (merge path). */
const evidence = {
  items: [
    {
      id: 'e1',
      strength: 0.8,
      claims: [{ id: 'c3', attributes: [0.12, 0.21], support: 0.7 }],
      edges: [
        { type: 'Supports', source: 'c3', target: 'a', weight: 0.6 },
        { type: 'Contradicts', source: 'c3', target: 'c2', weight: 0.4 },
      ],
    },
    {
      id: 'e2',
      strength: 0.5,
      edges: [
        { type: 'Requires', source: 'a', target: 'q', weight: 0.3 },
        { type: 'Supports', source: 'c2', target: 'a', weight: 0.5 },
      ],
    },
  ],
};
const sc = createScenario(smallGraphDoc(), evidence);
const sys = referenceGraphSystem(sc, { backend: 'reference' });
const lin = sys.capabilities.linearization!;
const Qform: TfForm = lin.consolidateTf!;
const d = sys.dim;
const nmax = sc.layout.nmax;

/** θ0 and states along a run (items applied, then Q). */
const states: Float64Array[] = (() => {
  let t: Float64Array = Float64Array.from(sys.theta0!);
  const out = [t];
  for (const id of ['e1', 'e2', 'e1', 'e2']) {
    t = sys.consolidate(sys.expand(id, t));
    out.push(t);
  }
  return out;
})();

// Tolerances.
// The f64 reference Q and P_e round: each output is a chain of at most Nmax + 30 f64 operations
// on quantities of magnitude O(max(1, |x|)) (confidences and weights in [0, 1], sums of up to
// Nmax such terms), each adding at most eps relative error, carried through steps of Lipschitz
// constant O(1) (the graph's confidence bound < 1; exp(g/τ_A) turns an absolute error of g into a
// relative one of 1/τ_A ≈ 7, within the factor 8). So |ref − exact| <= 8·(Nmax + 30)·eps·max(1, |ref|):
// the enclosure of the exact value must hold the reference within that distance.
const REF_TOL = 8 * (nmax + 30) * EPS;
// Central differences (docs/certify.md): error <= h²/6·|f'''| + 2·eps·|f|/h with h = eps^(1/3)·max(1, |x|),
// i.e. r·(max(1, |x|)²·|f'''|/6 + 2|f|) with r = eps^(2/3). Here |x| <= 1, |f| <= 1 and the
// steepest stage is exp(g/τ_A) (τ_A = 0.15) normalised by sums of the same exponentials, whose
// third derivative is <= (1/τ_A)³ ≈ 300 times factors <= 1: the error is <= (50 + 2)·r, so 64·r.
const R_FD = EPS ** (2 / 3);
const FD_TOL = 64 * R_FD;

/** max over i of how far v[i] lies outside [lo[i], hi[i]] relative to max(1, |v[i]|) (0 inside, Infinity for NaN ends). */
function outside(v: ArrayLike<number>, lo: ArrayLike<number>, hi: ArrayLike<number>): { err: number; index: number } {
  let err = 0;
  let index = -1;
  for (let i = 0; i < v.length; i++) {
    const e = Math.max(lo[i]! - v[i]!, v[i]! - hi[i]!, 0) / Math.max(1, Math.abs(v[i]!));
    const bad = Number.isNaN(lo[i]!) || Number.isNaN(hi[i]!) ? Infinity : e;
    if (bad > err) {
      err = bad;
      index = i;
    }
  }
  return { err, index };
}

const all = (n: number) => Array.from({ length: n }, (_, i) => i);
const referenceQ = (x: ArrayLike<number>) => sys.consolidate(Float64Array.from(x));

describe('reference graph Q and P_e (tfjs forms of the system)', () => {
  it('on a point box [θ, θ]: Q(θ) and DQ(θ) inside narrow enclosures', () => {
    for (const t of states) {
      const r = encloseForm(Qform, t, t, { seeds: all(d) });
      expect(outside(sys.consolidate(t), r.lo, r.hi).err).toBeLessThanOrEqual(REF_TOL);
      // narrow: a few ulps per operation along the chain, far below the reference's own error bound
      for (let i = 0; i < d; i++)
        expect(r.hi[i]! - r.lo[i]!).toBeLessThanOrEqual(REF_TOL * Math.max(1, Math.abs(r.lo[i]!)));
      const J = jacobianCentral(referenceQ, t);
      const jac = r.jacobian!;
      expect([jac.rows, jac.cols]).toEqual([d, d]);
      const { err, index } = outside(J.data, jac.lo, jac.hi);
      expect(err, `worst at row ${Math.floor(index / d)}, column ${index % d}`).toBeLessThanOrEqual(FD_TOL);
    }
  });

  it("P_e on a point box: the blend with the form's float32 rates and targets, identity elsewhere", () => {
    // the form holds rates and targets as Float32Array: the map it encloses is P_e with those
    // constants, x + r32·(t32 − x) on the footprint (three f64 roundings: within 4·eps·max(1, |x|))
    for (const id of ['e1', 'e2']) {
      const item = sc.itemById.get(id)!;
      const form: TfForm = (tf, X) => lin.expandTf!(tf, id, X);
      const t = states[2]!;
      const r = encloseForm(form, t, t, { seeds: all(d) });
      const want = Float64Array.from(t);
      const slope = new Float64Array(d).fill(1);
      item.footprint.forEach((f, i) => {
        const r32 = Math.fround(item.rates[i]!);
        want[f] = t[f]! + r32 * (Math.fround(item.target[i]!) - t[f]!);
        slope[f] = 1 - r32; // exact: r32 has 24 significant bits
      });
      expect(outside(want, r.lo, r.hi).err).toBeLessThanOrEqual(4 * EPS);
      const jac = r.jacobian!;
      // the tangent 1 − r32 passes one product and one sum: two roundings outward
      for (let i = 0; i < d; i++)
        for (let j = 0; j < d; j++) {
          const exact = i === j ? slope[i]! : 0;
          const [lo, hi] = [jac.lo[i * d + j]!, jac.hi[i * d + j]!];
          expect(lo <= exact && exact <= hi && hi - lo <= 4 * EPS, `∂${i}/∂${j}: [${lo}, ${hi}] ∌ ${exact}`).toBe(true);
        }
    }
  });

  it('seeds on the confidences: edge rows are exact zeros (their tangents are never formed), chunks agree bit for bit', () => {
    const t = states[3]!;
    const seeds = confidenceBlock(sc.layout);
    const a = encloseForm(Qform, t, t, { seeds });
    const b = encloseForm(Qform, t, t, { seeds, chunk: 2 });
    expect(b).toEqual(a);
    const jac = a.jacobian!;
    for (let o = sc.layout.edgeOffset; o < d; o++)
      for (let s = 0; s < seeds.length; s++) {
        expect(jac.lo[o * jac.cols + s]).toBe(0);
        expect(jac.hi[o * jac.cols + s]).toBe(0);
      }
    const rows = [seeds[1]!, 0];
    const c = encloseForm(Qform, t, t, { seeds, rows });
    expect(Array.from(c.jacobian!.lo)).toEqual([
      ...jac.lo.subarray(rows[0]! * jac.cols, rows[0]! * jac.cols + jac.cols),
      ...jac.lo.subarray(0, jac.cols),
    ]);
  });

  /** A box around a state: nonzero coordinates widened by up to 20 % of their size (same sign), zeros kept exact. */
  const boxAround = (t: Float64Array, u: number[], v: number[], rho: number) => {
    const lo = Float64Array.from(t, (x, i) => (x === 0 ? 0 : x - rho * Math.abs(x) * u[i % u.length]!));
    const hi = Float64Array.from(t, (x, i) => (x === 0 ? 0 : x + rho * Math.abs(x) * v[i % v.length]!));
    return { lo, hi };
  };
  const unit = fc.double({ min: 0, max: 1, noNaN: true });

  test.prop(
    [
      fc.nat(states.length - 1),
      fc.double({ min: 1e-6, max: 0.2, noNaN: true }),
      fc.array(unit, { minLength: 7, maxLength: 7 }),
      fc.array(unit, { minLength: 11, maxLength: 11 }),
      fc.array(unit, { minLength: 13, maxLength: 13 }),
    ],
    { numRuns: 15 },
  )('random boxes: Q and DQ at random points inside lie in the enclosures', (k, rho, u, v, w) => {
    const { lo, hi } = boxAround(states[k]!, u, v, rho);
    const seeds = [...confidenceBlock(sc.layout), sc.layout.edgeOffset + 7, 3];
    const r = encloseForm(Qform, lo, hi, { seeds });
    for (let p = 0; p < 3; p++) {
      const x = Float64Array.from(lo, (l, i) => l + (hi[i]! - l) * w[(i + 5 * p) % w.length]!);
      expect(outside(referenceQ(x), r.lo, r.hi).err).toBeLessThanOrEqual(REF_TOL);
      const J = jacobianCentral(referenceQ, x, { columns: seeds });
      expect(outside(J.data, r.jacobian!.lo, r.jacobian!.hi).err).toBeLessThanOrEqual(FD_TOL);
    }
  });
});

describe('the linear example module (examples/systems/linear.mjs)', () => {
  const theta = Float64Array.from(linear.theta0);
  const M = [
    [1, 0.5, 0],
    [0, 1, 0.5],
    [0.5, 0, 1],
  ];
  /** [lo, hi] holds x and is at most `ulps` ulps of x wide (an exact point when x is 0). */
  const tight = (lo: number, hi: number, x: number, ulps: number) => {
    expect(lo <= x && x <= hi, `[${lo}, ${hi}] ∌ ${x}`).toBe(true);
    expect(hi - lo).toBeLessThanOrEqual(ulps * EPS * Math.abs(x));
  };

  it('Q: ∂b_i/∂b_i = 0.5, ∂b_i/∂s_j = 0.3·M_ij, identity on the structure, in narrow enclosures', () => {
    const r = encloseForm(linear.linearization.consolidateTf, theta, theta, { seeds: all(6) });
    const J = r.jacobian!;
    for (let i = 0; i < 6; i++)
      for (let j = 0; j < 6; j++) {
        const exact = i < 3 ? (j < 3 ? (i === j ? 0.5 : 0) : 0.3 * M[i]![j - 3]!) : i === j ? 1 : 0;
        // 0.3·M_ij is exact in f64 for M_ij ∈ {0, 0.5, 1}; the tangent passes two roundings
        tight(J.lo[i * 6 + j]!, J.hi[i * 6 + j]!, exact, 8);
      }
    const q = linear.consolidate(theta);
    for (let i = 0; i < 6; i++) tight(r.lo[i]!, r.hi[i]!, q[i]!, 16);
  });

  it('P_e: ∂s_e/∂s_e = 1 − a_e, every other entry the identity', () => {
    const a = [0.5, 0.3, 0.2];
    ['e0', 'e1', 'e2'].forEach((id, e) => {
      const form: TfForm = (tf, X) => linear.linearization.expandTf(tf, id, X);
      const J = encloseForm(form, theta, theta, { seeds: all(6) }).jacobian!;
      for (let i = 0; i < 6; i++)
        for (let j = 0; j < 6; j++) {
          const exact = i === j ? (i === 3 + e ? 1 - a[e]! : 1) : 0;
          tight(J.lo[i * 6 + j]!, J.hi[i * 6 + j]!, exact, 8);
        }
    });
  });
});

/** A deterministic pseudo-random matrix (sfc-like LCG: the values only need to be fixed). */
function matrix(rows: number, cols: number, seed: number): number[][] {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31 - 0.5;
  };
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => 2 * next()));
}

describe('tanh(Wx + b): Jacobian enclosure over a box', () => {
  const n = 4;
  const W = matrix(3, n, 7);
  const b = [0.3, -0.2, 0.1];
  const form: TfForm = (tf, X) =>
    tf.tanh(tf.add(tf.matMul(X, tf.tensor2d(W.flat(), [3, n]), false, true), tf.tensor1d(b)));
  // f64 evaluation at a point: z = Wx + b has error <= (n + 1)·eps·S (S = Σ|W_j x_j| + |b|), tanh
  // adds 1 ulp, 1 − t² doubles |t|'s error and adds eps, times W_ij: below 4·(n + 3)·eps·(1 + S)·max(1, |W_ij|).
  const tol = (S: number, w: number) => 4 * (n + 3) * EPS * (1 + S) * Math.max(1, Math.abs(w));

  test.prop(
    [
      fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: n, maxLength: n }),
      fc.double({ min: 0, max: 0.5, noNaN: true }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    ],
    { numRuns: 40 },
  )('diag(1 − tanh²(Wx + b))·W at a point inside lies in the enclosure', (x0, rad, t) => {
    const lo = Float64Array.from(x0, (x) => x - rad);
    const hi = Float64Array.from(x0, (x) => x + rad);
    const r = encloseForm(form, lo, hi, { seeds: all(n) });
    const x = x0.map((c, i) => c - rad + 2 * rad * t[i]!);
    for (let i = 0; i < 3; i++) {
      let z = b[i]!;
      let S = Math.abs(b[i]!);
      for (let j = 0; j < n; j++) {
        z += W[i]![j]! * x[j]!;
        S += Math.abs(W[i]![j]! * x[j]!);
      }
      const th = Math.tanh(z);
      expect(th).toBeGreaterThanOrEqual(r.lo[i]! - tol(S, 1));
      expect(th).toBeLessThanOrEqual(r.hi[i]! + tol(S, 1));
      for (let j = 0; j < n; j++) {
        const Jij = (1 - th * th) * W[i]![j]!;
        expect(Jij).toBeGreaterThanOrEqual(r.jacobian!.lo[i * n + j]! - tol(S, W[i]![j]!));
        expect(Jij).toBeLessThanOrEqual(r.jacobian!.hi[i * n + j]! + tol(S, W[i]![j]!));
      }
    }
  });
});

/** Every supported op once, shapes mixed; its output flattened to [1, n]. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the form runs on both namespaces
const allOps = (t: any, X: any) =>
  t.tidy(() => {
    const a = t.reshape(t.slice(X, [0, 0], [-1, 6]), [2, 3]);
    const b = t.tensor2d([0.5, -1, 2, 1.5, 0.25, -0.75], [2, 3]);
    const c3 = t.slice(t.reshape(X, [1, 2, 4]), [0, 1], [1, 1, -1]);
    const parts = [
      t.matMul(a, b, false, true),
      t.matMul(t.expandDims(a, 0), t.expandDims(b, 0), true, false),
      t.add(t.mul(t.tanh(a), t.sigmoid(b)), t.div(t.exp(t.neg(a)), t.add(2, t.square(b)))),
      t.softmax(t.sub(a, 0.5)),
      t.gather(a, [2, 0, 2], 1),
      t.where(t.greater(a, b), t.relu(a), t.clipByValue(t.mul(a, b), -0.5, 0.5)),
      t.where(t.lessEqual(a, 0.25), t.maximum(a, b), t.minimum(a, 1)),
      t.sum(b, 1),
      t.mean(a, 0, true),
      t.max(t.add(a, b), [0, 1]),
      t.min(a, -1),
      t.softplus(t.sub(1, a)),
      t.sqrt(t.abs(t.log(t.add(t.abs(a), 1)))),
      t.transpose(t.concat([c3, t.reshape(t.eye(2, 4), [1, 2, 4])], 1), [2, 0, 1]),
      a.transpose().mul(2).sum(0, true),
      t.squeeze(t.tensor([[[3]]])),
      t.add(t.zeros([2]), t.ones([2])),
      t.fill([1, 2], 0.75),
      t.onesLike(t.scalar(2)),
      t.sub(t.tensor1d([1, 2]), t.zerosLike(t.tensor1d([5, 5]))),
    ];
    return t.concat(
      parts.map((p) => t.reshape(p, [1, -1])),
      1,
    );
  });

describe('op semantics agree with tfjs (a point box, float32 inputs)', () => {
  let tf: Tf;
  beforeAll(async () => {
    tf = (await loadTf()).tf;
  });
  it('a form using every op gives tfjs float32 results inside float32 distance', () => {
    const x = Float64Array.of(0.75, -0.5, 1.25, 0.125, -1.5, 0.375, 2, -0.25);
    const r = encloseForm(allOps, x, x);
    const y = tf.tidy(() => allOps(tf, tf.tensor2d(Float32Array.from(x), [1, 8])));
    expect(y.shape).toEqual([1, r.lo.length]);
    const ref = y.dataSync();
    y.dispose();
    // float32 rounding along chains of <= 10 operations on values of magnitude <= 8 (u = 2^-24)
    const tol32 = 10 * 8 * 2 ** -24;
    for (let i = 0; i < ref.length; i++) {
      expect(r.hi[i]! - r.lo[i]!).toBeLessThan(1e-12);
      expect(Math.abs(ref[i]! - r.lo[i]!), `element ${i}`).toBeLessThanOrEqual(tol32);
    }
  });
});

describe('tangents of every op agree with central differences of its values', () => {
  test.prop([fc.array(fc.double({ min: -0.05, max: 0.05, noNaN: true }), { minLength: 8, maxLength: 8 })], {
    numRuns: 10,
  })('allOps: the Jacobian enclosure at x holds the difference quotients of point-box midpoints', (dx) => {
    const x = Float64Array.from([0.75, -0.5, 1.25, 0.125, -1.5, 0.375, 2, -0.25], (v, i) => v + dx[i]!);
    const r = encloseForm(allOps, x, x, { seeds: all(8) });
    let width = 0;
    const mid = (p: ArrayLike<number>) => {
      const e = encloseForm(allOps, Float64Array.from(p), Float64Array.from(p));
      return Float64Array.from(e.lo, (l, i) => {
        width = Math.max(width, e.hi[i]! - l);
        return (l + e.hi[i]!) / 2;
      });
    };
    const J = jacobianCentral(mid, x);
    // the difference quotient of values known to within width/2 adds width/(2h) (h >= eps^(1/3))
    const tol = FD_TOL + width / EPS ** (1 / 3);
    const { err, index } = outside(J.data, r.jacobian!.lo, r.jacobian!.hi);
    expect(err, `worst at output ${Math.floor(index / 8)}, input ${index % 8}`).toBeLessThanOrEqual(tol);
  });
});

describe('kinks, undecided conditions, NaN', () => {
  const box = (lo: number[], hi: number[]) => [Float64Array.from(lo), Float64Array.from(hi)] as const;
  const enclose1 = (form: TfForm, lo: number[], hi: number[]) => {
    const [l, h] = box(lo, hi);
    return encloseForm(form, l, h, { seeds: all(lo.length) });
  };

  it('relu, abs, maximum, clipByValue: the hull of the one-sided slopes where the box holds the kink, exact slopes elsewhere', () => {
    const cases: [TfForm, number, number, number, number][] = [
      // form, box lo, box hi, slope lo, slope hi
      [(tf, X) => tf.relu(X), -1, 2, 0, 1],
      [(tf, X) => tf.relu(X), 0.5, 2, 1, 1],
      [(tf, X) => tf.relu(X), -2, -0.5, 0, 0],
      [(tf, X) => tf.abs(X), -1, 2, -1, 1],
      [(tf, X) => tf.abs(X), -3, -1, -1, -1],
      [(tf, X) => tf.maximum(X, 1), 0, 2, 0, 1],
      [(tf, X) => tf.maximum(1, X), 1.5, 2, 1, 1],
      [(tf, X) => tf.minimum(X, 1), 1.5, 2, 0, 0],
      [(tf, X) => tf.clipByValue(X, 0, 1), 0.25, 0.75, 1, 1],
      [(tf, X) => tf.clipByValue(X, 0, 1), 0.5, 1.5, 0, 1],
      // relu written with where: the switch is not told from a jump (next test), so unbounded
      [(tf, X) => tf.where(tf.greater(X, 0), X, 0), -1, 2, -Infinity, Infinity],
      [(tf, X) => tf.where(tf.greater(X, 0), X, 0), 1, 2, 1, 1],
    ];
    for (const [form, lo, hi, slo, shi] of cases) {
      const J = enclose1(form, [lo], [hi]).jacobian!;
      expect([J.lo[0], J.hi[0]], `${form.toString()} on [${lo}, ${hi}]`).toEqual([slo, shi]);
    }
  });

  it('a switch that may jump inside the box has no finite tangent: comparisons used as numbers, where on them', () => {
    // x ↦ 0.5x + 0.1·(x > 0 ? 1 : −1): two fixed points, ±0.2; no Lipschitz bound on a box holding 0
    const jump: TfForm = (tf, X) => tf.add(tf.mul(X, 0.5), tf.sub(tf.mul(tf.greater(X, 0), 0.2), 0.1));
    const viaWhere: TfForm = (tf, X) => tf.add(tf.mul(X, 0.5), tf.where(tf.greater(X, 0), 0.1, -0.1));
    for (const form of [jump, viaWhere]) {
      const across = enclose1(form, [-1], [1]);
      expect(across.lo[0]).toBeCloseTo(-0.6, 14);
      expect(across.hi[0]).toBeCloseTo(0.6, 14);
      expect([across.jacobian!.lo[0], across.jacobian!.hi[0]]).toEqual([-Infinity, Infinity]);
      const aside = enclose1(form, [0.1], [0.3]).jacobian!; // decided: locally 0.5x + 0.1
      expect([aside.lo[0], aside.hi[0]]).toEqual([0.5, 0.5]);
    }
    // a condition on a coordinate that is not seeded (an uncertain parameter) is one branch for
    // every value of the seeded one: the hull of the branches' tangents encloses it
    const param: TfForm = (tf, X) => {
      const [x, p] = [tf.slice(X, [0, 0], [-1, 1]), tf.slice(X, [0, 1], [-1, 1])];
      return tf.where(tf.greater(p, 0), tf.mul(x, 2), tf.mul(x, 3));
    };
    const r = encloseForm(param, Float64Array.of(-1, -1), Float64Array.of(1, 1), { seeds: [0] }).jacobian!;
    expect([r.lo[0], r.hi[0]]).toEqual([2, 3]);
  });

  it('undecided where: the hull of both branches; max over an axis: the hull over the elements that can attain it', () => {
    const w = enclose1((tf, X) => tf.where(tf.greater(X, 0), X, 0), [-1], [2]);
    expect([w.lo[0], w.hi[0]]).toEqual([-1, 2]);
    const m = enclose1((tf, X) => tf.max(X, 1, true), [0, 2], [1, 3]);
    expect([m.lo[0], m.hi[0], m.jacobian!.lo[0], m.jacobian!.hi[0], m.jacobian!.lo[1], m.jacobian!.hi[1]]).toEqual([
      2, 3, 0, 0, 1, 1,
    ]);
    const m2 = enclose1((tf, X) => tf.max(X, 1, true), [0, 0.5], [1, 3]); // either can be the maximum
    expect([m2.jacobian!.lo[0], m2.jacobian!.hi[0], m2.jacobian!.lo[1], m2.jacobian!.hi[1]]).toEqual([0, 1, 0, 1]);
    const sig = enclose1((tf, X) => tf.sigmoid(X), [-1], [1]).jacobian!;
    const s1 = 1 / (1 + Math.exp(-1));
    expect(sig.hi[0]).toBe(0.25); // σ' peaks at 0, inside the box
    expect(sig.lo[0]).toBeLessThanOrEqual(s1 * (1 - s1));
    expect(sig.lo[0]).toBeGreaterThan(s1 * (1 - s1) * (1 - 1e-12));
  });

  it('NaN (no enclosure) propagates through products with 0, matMul and undecided where; a decided where drops it', () => {
    const neg = [-2];
    const negHi = [-1];
    const nan = (form: TfForm) => {
      const r = enclose1(form, neg, negHi);
      return [Number.isNaN(r.lo[0]!) && Number.isNaN(r.hi[0]!), Number.isNaN(r.jacobian!.lo[0]!)];
    };
    expect(nan((tf, X) => tf.log(X))).toEqual([true, true]);
    expect(nan((tf, X) => tf.mul(tf.log(X), 0))).toEqual([true, true]);
    expect(nan((tf, X) => tf.div(0, tf.sqrt(X)))).toEqual([true, true]);
    expect(nan((tf, X) => tf.matMul(tf.log(X), tf.tensor2d([[0]])))).toEqual([true, true]);
    expect(nan((tf, X) => tf.where(tf.greater(X, -1.5), tf.log(X), 0))).toEqual([true, true]);
    expect(nan((tf, X) => tf.where(tf.greater(X, 0), tf.log(X), 0))).toEqual([false, false]);
    const decided = enclose1((tf, X) => tf.where(tf.greater(X, 0), tf.log(X), tf.neg(X)), neg, negHi);
    expect([decided.lo[0], decided.hi[0], decided.jacobian!.lo[0], decided.jacobian!.hi[0]]).toEqual([1, 2, -1, -1]);
  });
});

describe('tangent storage', () => {
  it('a slice of the input without seeded coordinates is constant; one with them keeps only its range', () => {
    const lo = new Float64Array(10);
    const g = { m: 1, d0: 6, dn: 1, dlo: Float64Array.of(1), dhi: Float64Array.of(1) };
    const X = new IntervalTensor([1, 10], lo, lo, g);
    expect(slice(X, [0, 0], [1, 5]).tangent).toBeNull();
    expect(slice(X, [0, 4], [1, -1]).tangent).toMatchObject({ m: 1, d0: 2, dn: 1 });
  });
});

describe('errors', () => {
  const x = Float64Array.of(0.5, 1);
  it('an unsupported op or tensor method is a one-line ArgumentError naming it', () => {
    const f: TfForm = (tf, X) => tf.conv2d(X, X, 1, 'same');
    expect(() => encloseForm(f, x, x)).toThrow(ArgumentError);
    expect(() => encloseForm(f, x, x)).toThrow(
      /^form = "tf\.conv2d": is not supported by the interval evaluation \(supported: abs, add, .*where, zeros, zerosLike\)$/,
    );
    expect(() => encloseForm((_tf, X) => X.dataSync(), x, x)).toThrow(
      /^form = "tensor\.dataSync\(\)": is not supported/,
    );
    expect(() => intervalTf.cumsum).toThrow(/"tf\.cumsum"/);
  });

  it('bad boxes, seeds, rows, chunks and results name the argument', () => {
    const id: TfForm = (_tf, X) => X;
    expect(() => encloseForm(id, Float64Array.of(2), Float64Array.of(1))).toThrow(
      /^lo\[0\] = 2: must be <= hi\[0\] = 1/,
    );
    expect(() => encloseForm(id, x, Float64Array.of(1))).toThrow(/^hi = /);
    expect(() => encloseForm(id, x, x, { seeds: [2] })).toThrow(/^options\.seeds\[0\] = 2/);
    expect(() => encloseForm(id, x, x, { seeds: [0], rows: [-1] })).toThrow(/^options\.rows\[0\] = -1/);
    expect(() => encloseForm(id, x, x, { seeds: [0], chunk: 0 })).toThrow(/^options\.chunk = 0/);
    expect(() => encloseForm((tf) => tf.scalar(1), x, x)).toThrow(
      /^form = "\[\]": must return a tensor of shape \[1, d\]/,
    );
    expect(() => encloseForm(() => 3, x, x)).toThrow(/^form = 3: must return a tensor/);
    expect(() => encloseForm((tf, X) => tf.add(X, tf.ones([3])), x, x)).toThrow(/^tf\.add = .*do not broadcast/);
    expect(() => encloseForm((tf, X) => tf.slice(X, [0, 1], [1, 2]), x, x)).toThrow(/^tf\.slice\(begin, size\)/);
    expect(() => encloseForm((tf, X) => tf.reshape(X, [3, -1]), x, x)).toThrow(/^tf\.reshape\(shape\) = "\[3, -1\]"/);
    expect(() => encloseForm((tf, X) => tf.matMul(X, X), x, x)).toThrow(
      /^tf\.matMul\(a, b\) = .*inner dimensions 2 and 1/,
    );
  });
});
