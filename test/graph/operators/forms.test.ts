/**
 * ONE suite over the three forms of the reference operators: the pure-TypeScript f64 reference,
 * the AssemblyScript kernels (wasm, f64) and the tfjs ops (float32).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { init, wasm } from '../../../src/wasm/module.js';
import { loadTf, type Tf } from '../../../src/linearize/autodiff.js';
import { defaultScenario } from '../../../src/graph/scenarios/scenario.js';
import type { GraphBackend } from '../../../src/graph/operators/backend.js';
import { GRAPH as graphBackends } from '../../util/backends.js';
import { consolidateTf, expandTf } from '../../../src/graph/linearisation/tfjs.js';
import { referenceConsolidate } from '../../../src/graph/operators/consolidate.js';
import {
  ENTRY_CONFIDENCE,
  entryConfidence,
  referenceExpand,
  type CompiledItem,
} from '../../../src/graph/operators/expand.js';
import { confidenceIndex, describeCoordinate, edgeIndex, nodeOffset } from '../../../src/graph/model/layout.js';
import { encloseForm } from '../../../src/interval/intervalTf.js';
import type { GraphOperatorParams } from '../../../src/graph/operators/params.js';
import type { OperatorShape } from '../../../src/graph/model/shape.js';

const sc = defaultScenario();
const { shape, params, layout } = sc;
let tf: Tf;

beforeAll(async () => {
  await init();
  tf = (await loadTf()).tf;
});

/** tfjs form behind the same interface (float32 in, float32 out, widened to f64). */
const tfjsBackend = {
  name: 'tfjs',
  consolidate(s: OperatorShape, p: GraphOperatorParams, theta: Float64Array): Float64Array {
    const f = consolidateTf(s, p);
    const out = tf.tidy(() => f(tf, tf.tensor2d(Float32Array.from(theta), [1, theta.length])));
    const data = Float64Array.from(out.dataSync());
    out.dispose();
    return data;
  },
  expand(item: CompiledItem, theta: Float64Array): Float64Array {
    const f = expandTf(item, theta.length);
    const out = tf.tidy(() => f(tf, tf.tensor2d(Float32Array.from(theta), [1, theta.length])));
    const data = Float64Array.from(out.dataSync());
    out.dispose();
    return data;
  },
};

/** States to compare on: θ0, and states along a run (several items drawn, consolidated). */
function states(): Float64Array[] {
  const out = [sc.theta0];
  let t = sc.theta0;
  const order = [0, 2, 1, 3, 4, 0, 5, 8, 6, 3, 10, 11, 1, 15];
  for (const i of order) {
    t = referenceConsolidate(shape, params, referenceExpand(sc.items[i]!, t));
    out.push(t);
  }
  return out;
}

// Tolerances.
// wasm vs reference: the same f64 operations in the same order, e^x included (the kernels' exp
// is V8's Math.exp bit for bit: ./exp.test.ts), so the two agree exactly.
const WASM_TOL = 0;
// tfjs vs reference: inputs are rounded to float32 (relative u = 2^-24 ≈ 6e-8) and every output is
// a chain of ~30 float32 operations including sums of up to Nmax terms of magnitude <= 1 whose
// rounding adds <= Nmax·u; the map's Lipschitz constant on these states is O(1) (analytic
// confidence bound < 1, merge pull <= μ). So |Δ| <= 8·(Nmax + 30)·u·max(1, |x|) ≈ 2.7e-5 for Nmax = 26.
const TFJS_TOL = 8 * (layout.nmax + 30) * 2 ** -24;

function maxScaledError(a: Float64Array, b: Float64Array): { err: number; index: number } {
  let err = 0;
  let index = -1;
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs(a[i]! - b[i]!) / Math.max(1, Math.abs(b[i]!));
    if (!(e <= err)) {
      err = e;
      index = i;
    }
  }
  return { err, index };
}

type Form = { name: string; backend: Pick<GraphBackend, 'consolidate' | 'expand'>; tol: number };
const forms: Form[] = [
  { name: 'wasm', backend: graphBackends.wasm, tol: WASM_TOL },
  { name: 'tfjs', backend: tfjsBackend, tol: TFJS_TOL },
];

describe.each(forms)('$name form agrees with the f64 reference', ({ name, backend, tol }) => {
  it('Q on θ0 and along a run', () => {
    for (const t of states()) {
      const ref = graphBackends.reference.consolidate(shape, params, t);
      const got = backend.consolidate(shape, params, t);
      const { err, index } = maxScaledError(got, ref);
      expect(err, `${name}: worst at ${index >= 0 ? describeCoordinate(layout, index) : '-'}`).toBeLessThanOrEqual(tol);
    }
  });

  it('P_e for every item on states along a run', () => {
    for (const t of states().slice(0, 4))
      for (const item of sc.items) {
        const { err } = maxScaledError(backend.expand(item, t), graphBackends.reference.expand(item, t));
        expect(err).toBeLessThanOrEqual(tol);
      }
  });

  it('P_e writes only its footprint and entry confidences; empty slots stay exactly zero under Q; Q leaves edges unchanged', () => {
    const t = states()[6]!;
    const item = sc.items[7]!;
    const tin = name === 'tfjs' ? Float64Array.from(Float32Array.from(t)) : t; // tfjs sees float32 inputs
    const out = backend.expand(item, t);
    const inW = new Set([...item.footprint, ...item.entry]);
    for (let j = 0; j < t.length; j++) if (!inW.has(j)) expect(out[j]).toBe(tin[j]);
    const q = backend.consolidate(shape, params, sc.theta0);
    layout.slots.forEach((_s, slot) => {
      const o = nodeOffset(layout, slot);
      if (Array.from(sc.theta0.subarray(o, o + layout.k + 1)).every((x) => x === 0))
        for (let j = 0; j <= layout.k; j++) expect(q[o + j]).toBe(0);
    });
    const q6 = backend.consolidate(shape, params, t);
    for (let j = layout.edgeOffset; j < t.length; j++) expect(q6[j]).toBe(tin[j]);
  });
});

/**
 * The openness of question q after one Q from θ with its resolution support set to `support`,
 * by the formula of docs/graph.md: c'_q = (1 − λ) c_q + λ m_q σ(b_Q − b_res Σ_{A(q)} c_a − b_pro S_qq),
 * m_q = 1 − exp(−κ_q/ω).
 */
function expectedOpenness(theta: Float64Array, q: number, support: number): number {
  let kappa = 0;
  for (let j = 0; j < layout.nmax; j++) kappa += theta[edgeIndex(layout, 'Requires', j, q)]!;
  let answered = 0;
  for (let a = 0; a < layout.nmax; a++)
    if (layout.slots[a]!.questionSlot === q) answered += theta[confidenceIndex(layout, a)]!;
  const m = 1 - Math.exp(-kappa / params.presenceScale);
  const z = params.biasQuestion - params.resolve * answered - params.promotion * support;
  return (1 - params.lambda) * theta[confidenceIndex(layout, q)]! + (params.lambda * m) / (1 + Math.exp(-z));
}

// the formula is evaluated in another order than Q's: 4 ulps for the reference, plus each form's own tolerance
const FORMULA_TOL = 4 * 2 ** -52;
describe.each([
  { name: 'reference', backend: graphBackends.reference, tol: FORMULA_TOL },
  ...forms.map((f) => ({ ...f, tol: f.tol + FORMULA_TOL })),
])("$name form: a question's openness falls as its resolution support S_qq rises", ({ name, backend, tol }) => {
  it("Q's new openness is m_q σ(b_Q − b_res Σ c_a − b_pro S_qq) blended with the old, decreasing in S_qq", () => {
    expect(params.promotion).toBeGreaterThan(0);
    const run = states();
    let checked = 0;
    for (const t of [run[0]!, run[3]!])
      for (let q = shape.firstQuestion; q < layout.nmax; q++) {
        const idx = edgeIndex(layout, 'Supports', q, q);
        const got = [0, 0.25, 0.5, 1].map((support) => {
          const x = t.slice();
          x[idx] = support;
          return { support, open: backend.consolidate(shape, params, x)[confidenceIndex(layout, q)]!, x };
        });
        for (const g of got)
          expect(
            Math.abs(g.open - expectedOpenness(g.x, q, g.support)),
            `${name} ${layout.slots[q]!.id}`,
          ).toBeLessThanOrEqual(tol);
        // with a presence gate m_q well above 0 (Requires edges still in), each step of S_qq lowers it
        if (expectedOpenness(t, q, 0) - expectedOpenness(t, q, 1) < 1e-3) continue;
        for (let r = 1; r < got.length; r++) expect(got[r]!.open).toBeLessThan(got[r - 1]!.open - 10 * tol);
        checked++;
      }
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});

// The entry confidence in float32: c is rounded to float32 (|Δc| <= 2⁻²⁴c₀ on [0, 2c₀]), u = 1 − 2¹⁰c
// carries about 2·2⁻²⁴, u³ three times that, and c₀u³ and the sum one rounding each: the
// result is within 8·2⁻²⁴·c₀ of the f64 value.
const ENTRY_TFJS_TOL = 8 * 2 ** -24 * ENTRY_CONFIDENCE;

describe.each(forms)('$name form: the entry confidence', ({ name, backend }) => {
  it('c + (c₀/3)(1 − c/c₀)³₊ on the entry coordinates across [0, 2c₀] (the identity from c₀ on)', () => {
    const item = sc.items[7]!;
    const j = item.entry[0]!;
    for (let i = 0; i <= 16; i++) {
      const t = Float64Array.from(sc.theta0);
      t[j] = (i / 8) * ENTRY_CONFIDENCE;
      const got = backend.expand(item, t)[j]!;
      const want = entryConfidence(t[j]!);
      // wasm: the same operations as the reference, bit for bit
      if (name === 'wasm') expect(Object.is(got, want), `c = ${t[j]}`).toBe(true);
      else expect(Math.abs(got - want), `c = ${t[j]}`).toBeLessThanOrEqual(ENTRY_TFJS_TOL);
    }
  });
});

describe('tfjs form of P_e as its interval form (src/interval)', () => {
  it('encloses the entry confidence and its derivative 1 − (1 − c/c₀)²₊, on points and on a box across c₀', () => {
    const item = sc.items[7]!;
    const j = item.entry[0]!;
    const form = expandTf(item, layout.dim);
    const at = (lo: number, hi: number) => {
      const a = Float64Array.from(sc.theta0);
      const b = Float64Array.from(sc.theta0);
      a[j] = lo;
      b[j] = hi;
      const r = encloseForm(form, a, b, { seeds: [j], rows: [j] });
      return { value: [r.lo[j]!, r.hi[j]!], slope: [r.jacobian!.lo[0]!, r.jacobian!.hi[0]!] };
    };
    for (let i = 0; i <= 16; i++) {
      const c = (i / 8) * ENTRY_CONFIDENCE;
      const u = Math.max(0, 1 - c / ENTRY_CONFIDENCE);
      const { value, slope } = at(c, c);
      // a few outward roundings along the chain of ~6 operations
      expect(value[0]! <= entryConfidence(c) && entryConfidence(c) <= value[1]!, `c = ${c}`).toBe(true);
      expect(value[1]! - value[0]!).toBeLessThanOrEqual(16 * Number.EPSILON * ENTRY_CONFIDENCE);
      expect(slope[0]! <= 1 - u * u && 1 - u * u <= slope[1]!, `c = ${c}`).toBe(true);
    }
    // a box across the kink at c₀: its values and the derivative's range [1 − u², 1] enclosed
    const { value, slope } = at(0.5 * ENTRY_CONFIDENCE, 1.5 * ENTRY_CONFIDENCE);
    expect(value[0]).toBeLessThanOrEqual(entryConfidence(0.5 * ENTRY_CONFIDENCE));
    expect(value[1]).toBeGreaterThanOrEqual(1.5 * ENTRY_CONFIDENCE);
    expect(slope[0]).toBeLessThanOrEqual(1 - 0.25);
    expect(slope[1]).toBeGreaterThanOrEqual(1);
    // above c₀ the entry adds exactly nothing: the identity within the outward roundings, slope 1
    const above = at(0.2, 0.3);
    expect(above.slope).toEqual([1, 1]);
    expect(Math.abs(above.value[0]! - 0.2) + Math.abs(above.value[1]! - 0.3)).toBeLessThanOrEqual(4 * Number.EPSILON);
  });
});

describe.each([graphBackends.reference, graphBackends.wasm])('$name P_e in place', (backend) => {
  it('writing into θ itself gives P_e(θ) bit for bit, for every item on states along a run', () => {
    for (const t of states().slice(0, 4))
      for (const item of sc.items) {
        const x = t.slice();
        expect(backend.expand(item, x, x)).toBe(x);
        expect(x).toEqual(graphBackends.reference.expand(item, t));
      }
  });
});

describe('reference-graph system on the wasm form', () => {
  it('runs Algorithm 1 to the same stop as the reference form, with the same final state', async () => {
    const { referenceGraphSystem } = await import('../../../src/graph/system.js');
    const { runRecursive } = await import('../../../src/ordergap/algorithm1.js');
    const a = runRecursive(referenceGraphSystem(sc), { ...sc.run, recordStates: false });
    const sys = referenceGraphSystem(sc, { backend: 'wasm' });
    expect(sys.backend).toBe('wasm');
    const b = runRecursive(sys, { ...sc.run, recordStates: false });
    expect(b.stop.step).toBe(a.stop.step);
    expect(b.steps.map((s) => s.evidence)).toEqual(a.steps.map((s) => s.evidence));
    expect(maxScaledError(b.finalState, a.finalState).err).toBe(0);
  });
});

describe('wasm form: memory', () => {
  it('frees every temporary (arena back to its starting size)', () => {
    const { arena } = wasm();
    const before = arena.bytesInUse;
    graphBackends.wasm.consolidate(shape, params, states()[5]!);
    graphBackends.wasm.expand(sc.items[3]!, sc.theta0);
    expect(arena.bytesInUse).toBe(before);
  });
});

describe('tfjs form: gradients exist and match central differences', () => {
  it('d⟨u, Q(θ)⟩/dθ along a random direction agrees with the f64 central difference', () => {
    const t = states()[8]!;
    const f = consolidateTf(shape, params);
    let s = 11;
    const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5;
    const u = Float64Array.from({ length: t.length }, () => rnd());
    const v = Float64Array.from(t, (x, j) => (j < layout.edgeOffset || x !== 0 ? rnd() : 0));
    const g = tf.tidy(() => {
      const ut = tf.tensor2d(Float32Array.from(u), [1, t.length]);
      return tf.grad((X) => tf.sum(tf.mul(f(tf, X as never), ut)))(tf.tensor2d(Float32Array.from(t), [1, t.length]));
    });
    const grad = g.dataSync();
    g.dispose();
    let ad = 0;
    for (let j = 0; j < t.length; j++) ad += grad[j]! * v[j]!;
    const h = 1e-6;
    const qp = referenceConsolidate(
      shape,
      params,
      t.map((x, j) => x + h * v[j]!),
    );
    const qm = referenceConsolidate(
      shape,
      params,
      t.map((x, j) => x - h * v[j]!),
    );
    let fd = 0;
    for (let j = 0; j < t.length; j++) fd += (u[j]! * (qp[j]! - qm[j]!)) / (2 * h);
    // float32 gradient: relative accuracy ~ (Nmax + 30)·u per term, summed over d terms of mixed sign
    expect(Math.abs(ad - fd)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(fd)));
  });
});
