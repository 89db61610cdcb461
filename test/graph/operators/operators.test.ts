import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { defaultScenario, createScenario } from '../../../src/graph/scenarios/scenario.js';
import {
  readConfidences,
  referenceConsolidate,
  sigmoid,
  structureSums,
  weightedSums,
} from '../../../src/graph/operators/consolidate.js';
import { csrEdges } from '../../../src/graph/operators/orderGap.js';
import {
  ENTRY_CONFIDENCE,
  entryConfidence,
  expansionResidual,
  referenceExpand,
} from '../../../src/graph/operators/expand.js';
import { confidenceIndex, decode, edgeIndex, embed, nodeOffset } from '../../../src/graph/model/layout.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { runRecursive } from '../../../src/ordergap/algorithm1.js';
import {
  copyStructured,
  decodeStructured,
  structuredExpand,
  structuredFromDense,
} from '../../../src/graph/state/state.js';
import { confidenceLipschitzBound, DEFAULT_PARAMS, resolveParams } from '../../../src/graph/operators/params.js';
import {
  ConsolidationSchedule,
  evidenceDistribution,
  parseEvidencePool,
} from '../../../src/graph/scenarios/evidence.js';
import { GraphFormatError, parseGraph } from '../../../src/graph/model/schema.js';
import type { Scenario } from '../../../src/graph/scenarios/scenario.js';
import { readFileSync } from 'node:fs';
import { openGraphDoc, openItem } from '../fixtures.js';
import { DEFAULT_SCENARIO_FILES } from '../../../src/graph/scenarios/scenario.js';

const sc = defaultScenario();
const { shape, params, layout } = sc;
const Q = (t: Float64Array, s: Scenario = sc) => referenceConsolidate(s.shape, s.params, t);

/** A state along the default run: θ0 with every item applied `times` times (structure only). */
function saturated(times: number): Float64Array {
  let t = sc.theta0;
  for (let r = 0; r < times; r++) for (const it of sc.items) t = referenceExpand(it, t);
  return t;
}

/**
 * The default scenario with `n` competing answers to q:author (the graph's two plus n − 2 more,
 * each supported by the encyclopedia claim and requiring q:author): a wide answer group.
 */
function wideScenario(n: number): Scenario {
  const graph = read('graph') as {
    nodes: Array<Record<string, unknown>>;
    edges: Array<Record<string, unknown>>;
    capacities: Record<string, number>;
  };
  const extra = n - 2;
  graph.capacities.answers = graph.capacities.answers! + extra;
  for (let i = 0; i < extra; i++) {
    const id = `a:author:extra${i}`;
    graph.nodes.push({
      id,
      type: 'answer',
      question: 'q:author',
      attributes: [0.2, 0.1 * i, 0.3, 0],
      confidence: 0.01,
    });
    graph.edges.push({ type: 'Requires', source: id, target: 'q:author', weight: 1 });
  }
  return createScenario(graph, read('evidence'));
}

const norm = (x: ArrayLike<number>) => Math.sqrt(Array.from(x).reduce((a, v) => a + v * v, 0));

describe('P_e: affine blend on the footprint, entry confidence on the nodes it adds (docs/graph.md)', () => {
  test.prop([fc.nat(sc.items.length - 1), fc.integer({ min: 0, max: 3 })])(
    'writes only its footprint (exactly the blend there) and the entry confidences of the nodes it adds',
    (i, times) => {
      const item = sc.items[i]!;
      const theta = Q(saturated(times));
      const out = referenceExpand(item, theta);
      const inF = new Set(item.footprint);
      const inEntry = new Set(item.entry);
      for (let j = 0; j < theta.length; j++) {
        if (!inF.has(j) && !inEntry.has(j)) expect(Object.is(out[j], theta[j])).toBe(true);
      }
      item.footprint.forEach((f, t) => {
        expect(out[f]).toBe(theta[f]! + item.rates[t]! * (item.target[t]! - theta[f]!));
        // a question's Supports self-edge (its resolution support) has its own rate: ../scenarios/evidence.test.ts
        const q = layout.slots.findIndex((_s, slot) => edgeIndex(layout, 'Supports', slot, slot) === f);
        if (q < shape.firstQuestion) expect([item.strength, sc.pool.attributeStrength]).toContain(item.rates[t]);
      });
      for (let s = 0; s < layout.nmax; s++) expect(inF.has(confidenceIndex(layout, s))).toBe(false);
      // the entry coordinates are the confidences of the nodes the item adds
      const { claims, answers, questions } = sc.pool.items[i]!;
      const added = [...claims, ...answers, ...questions].map((c) => confidenceIndex(layout, layout.slotOf.get(c.id)!));
      expect(Array.from(item.entry)).toEqual(added.sort((a, b) => a - b));
      for (const j of item.entry) {
        expect(Object.is(out[j], entryConfidence(theta[j]!))).toBe(true);
        expect(out[j]).toBeGreaterThan(0); // a claim P_e adds is present
      }
    },
  );

  it('the entry confidence: c₀/3 at an empty slot, the identity from c₀ on, C² at c₀ with derivative 1 − (1 − c/c₀)² ∈ [0, 1]', () => {
    const c0 = ENTRY_CONFIDENCE;
    expect(entryConfidence(0)).toBe(c0 / 3);
    for (const c of [c0, c0 * (1 + 2 ** -52), 2 * c0, 0.05, 0.5, 1])
      expect(Object.is(entryConfidence(c), c)).toBe(true);
    const h = c0 * 1e-4;
    for (let i = 1; i < 40; i++) {
      const c = (i / 32) * c0;
      const u = Math.max(0, 1 - c / c0);
      const slope = (entryConfidence(c + h) - entryConfidence(c - h)) / (2 * h);
      expect(Math.abs(slope - (1 - u * u))).toBeLessThan(1e-6);
      expect(slope).toBeGreaterThanOrEqual(0); // increasing: P_e stays non-expansive
      expect(slope).toBeLessThanOrEqual(1 + 1e-9);
      expect(entryConfidence(c)).toBeGreaterThan(c0 / 3); // its minimum is at c = 0
    }
  });

  it('the residual ‖P_e θ − θ‖ counts the entry confidence', () => {
    for (const item of sc.items) {
      const theta = Float64Array.from(sc.theta0);
      expect(expansionResidual(item, theta)).toBeCloseTo(
        norm(referenceExpand(item, theta).map((v, j) => v - theta[j]!)),
        15,
      );
      // incorporated on F_e but its claim not yet present: the entry confidence alone is pending
      item.footprint.forEach((f, t) => (theta[f] = item.target[t]!));
      expect(expansionResidual(item, theta)).toBe((ENTRY_CONFIDENCE / 3) * Math.sqrt(item.entry.length));
    }
  });

  it('is idempotent once incorporated: θ_F = t_e gives P_e(θ) = θ bit for bit', () => {
    for (const item of sc.items) {
      const theta = Q(saturated(1));
      item.footprint.forEach((f, t) => (theta[f] = item.target[t]!));
      expect(referenceExpand(item, theta)).toEqual(theta);
      expect(expansionResidual(item, theta)).toBe(0);
    }
  });
});

describe('P_e leaves a graph (Def. 2.1): decode succeeds after every P_e', () => {
  it('every state θ_t of the default run × every pool item: decode(P_e θ_t), dense and structured, and back', () => {
    const sys = referenceGraphSystem(sc, { backend: 'reference' });
    const run = runRecursive(sys, { ...sc.run, recordStates: true, representation: 'dense' });
    const states = [sc.theta0, ...run.steps.map((s) => s.theta!)];
    expect(states.length).toBeGreaterThan(20);
    let pending = 0;
    for (const theta of states) {
      const st = structuredFromDense(shape, params, theta);
      for (const item of sc.items) {
        const x = referenceExpand(item, theta);
        const g = decode(x, layout);
        // the claims the item adds are nodes of the graph
        for (const j of item.entry)
          expect(g.nodes.some((n) => n.id === layout.slots[(j - layout.k) / (layout.k + 1)]!.id)).toBe(true);
        const back = embed(g, layout);
        expect(
          back.every((v, i) => Object.is(v, x[i])),
          'embed(decode(x)) = x bit for bit',
        ).toBe(true);
        pending += g.pendingEdges?.length ?? 0;
        const s = copyStructured(st);
        structuredExpand(shape, params, s, item);
        expect(decodeStructured(s, layout)).toEqual(g);
      }
    }
    // the run reaches states where items have written edges to claims other items add
    expect(pending).toBeGreaterThan(0);
  });

  it('an item that adds a claim, answers and a sub-question: decode(P_e θ) along a run, all four nodes present', () => {
    const open = createScenario(openGraphDoc(), { items: [openItem()] });
    const item = open.items[0]!;
    let theta = open.theta0;
    for (let step = 0; step < 4; step++) {
      const x = referenceExpand(item, theta);
      const ids = new Set(decode(x, open.layout).nodes.map((n) => n.id));
      for (const id of ['c:pub', 'a:pub:acme', 'a:other', 'q:pub']) expect(ids.has(id)).toBe(true);
      theta = Q(x, open);
    }
  });
});

describe('Q: consolidation (docs/graph.md)', () => {
  test.prop(
    [
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 2 ** -1000, max: 1, noNaN: true }),
      fc.constantFrom(1e-300, 1e-3, 0.05, 1, 10),
    ],
    { numRuns: 500 },
  )('a Contradicts edge: σ(u) and σ(−u) from one exp are σ at both endpoints to a few ulps', (c0, c1, w, tau) => {
    // one edge 0 → 1 of weight w; the sums read c_0, c_1 and the degrees d_0 = d_1 = w
    const empty = { rowStart: Int32Array.of(0, 0, 0), cols: new Int32Array(0), vals: new Float64Array(0) };
    const edges = csrEdges({
      nodes: new Float64Array(0),
      edges: [empty, empty, { rowStart: Int32Array.of(0, 1, 1), cols: Int32Array.of(1), vals: Float64Array.of(w) }],
    });
    const c = Float64Array.of(c0, c1);
    const ws = weightedSums(edges, { ...DEFAULT_PARAMS, tauContradict: tau }, c, structureSums(edges));
    const f = w / (1 + w + w);
    // the oracle: σ(z) = 1/(1 + e^{−z}) at each endpoint, two exps. Each form is within 4 ulps of
    // σ (exp's ulp, 1 + E, the quotient, and E·r's product), the product f·c another half:
    // 10 eps relative; where e^{|u|} overflows the oracle's σ(−|u|) is 0 and E·r a subnormal
    const near = (got: number, want: number) => Math.abs(got - want) <= 10 * 2 ** -52 * Math.abs(want) + 2 ** -1000;
    expect(near(ws.contradict[0]!, f * c1 * sigmoid((c1 - c0) / tau))).toBe(true);
    expect(near(ws.contradict[1]!, f * c0 * sigmoid((c0 - c1) / tau))).toBe(true);
  });

  const theta = Q(saturated(2));

  it('leaves every edge weight unchanged and keeps empty slots exactly zero', () => {
    const out = Q(theta);
    for (let j = layout.edgeOffset; j < layout.dim; j++) expect(Object.is(out[j], theta[j])).toBe(true);
    // empty slots at θ0 (every pool claim slot and the spare slots) stay exactly zero
    const q0 = Q(sc.theta0);
    layout.slots.forEach((s, slot) => {
      const o = nodeOffset(layout, slot);
      const empty = Array.from(sc.theta0.subarray(o, o + layout.k + 1)).every((x) => x === 0);
      if (!empty) return;
      for (let j = 0; j <= layout.k; j++) expect(Object.is(q0[o + j], 0), `${s.id ?? 'spare'}[${j}]`).toBe(true);
    });
  });

  it('keeps confidences in [0, 1] and competing answer mass <= 1 along many applications', () => {
    let t = theta;
    for (let r = 0; r < 50; r++) t = Q(t);
    const c = readConfidences(shape, t);
    for (const x of c) expect(x >= 0 && x <= 1).toBe(true);
    for (const g of shape.groups) expect(Array.from(g.answers).reduce((a, s) => a + c[s]!, 0)).toBeLessThanOrEqual(1);
  });

  it('merges near-duplicate claims and leaves distinct ones alone', () => {
    const a = nodeOffset(layout, layout.slotOf.get('c:vance-wrote')!);
    const b = nodeOffset(layout, layout.slotOf.get('c:vance-wrote-pub')!);
    const dist = (t: Float64Array) => Math.hypot(t[a]! - t[b]!, t[a + 1]! - t[b + 1]!, t[a + 2]! - t[b + 2]!);
    const out = Q(theta);
    expect(dist(out)).toBeLessThan(dist(theta));
    // the source code (last attribute) is not merged
    expect(out[a + 3]).toBe(theta[a + 3]);
    const far = nodeOffset(layout, layout.slotOf.get('c:lark-prize')!);
    for (let j = 0; j < layout.k; j++) expect(out[far + j]).toBe(theta[far + j]);
  });

  it('downweights the lower-confidence endpoint of a Contradicts edge more', () => {
    const strong = confidenceIndex(layout, layout.slotOf.get('c:vance-wrote')!);
    const weak = confidenceIndex(layout, layout.slotOf.get('c:holt-wrote')!);
    const noX = createScenario(read('graph'), read('evidence'), { params: { contradict: 0 } });
    const withX = Q(theta);
    const without = Q(theta, noX);
    expect(theta[weak]!).toBeLessThan(theta[strong]!);
    expect(without[weak]! - withX[weak]!).toBeGreaterThan(without[strong]! - withX[strong]!);
    expect(without[weak]! - withX[weak]!).toBeGreaterThan(0);
  });

  it('sharpening preserves each question’s answer mass and shifts it to the best answer (λ = 1)', () => {
    const sharp = createScenario(read('graph'), read('evidence'), {
      params: { lambda: 1, sharpen: 0.8 },
      requireContraction: false,
    });
    const flat = createScenario(read('graph'), read('evidence'), {
      params: { lambda: 1, sharpen: 0 },
      requireContraction: false,
    });
    const a = Q(theta, sharp);
    const b = Q(theta, flat);
    const g = shape.groups.find((x) => x.answers.length === 2)!;
    const [i, j] = Array.from(g.answers).map((s) => confidenceIndex(layout, s));
    // mass preserved up to rounding of a 2-term sum and the softmax normalisation (a few ulps)
    expect(Math.abs(a[i!]! + a[j!]! - (b[i!]! + b[j!]!))).toBeLessThan(8 * Number.EPSILON);
    const best = b[i!]! > b[j!]! ? i! : j!;
    expect(a[best]!).toBeGreaterThan(b[best]!);
  });
});

function read(which: 'graph' | 'evidence'): unknown {
  return JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES[which], 'utf8'));
}

describe('the analytic Lipschitz bound of Q on the confidence block', () => {
  const L = sc.bound.modulus;

  it('is < 1 for the defaults and matches its formula', () => {
    const b = confidenceLipschitzBound(DEFAULT_PARAMS, 2);
    const p = DEFAULT_PARAMS;
    const C = (p.support + p.contradict * (1 + 1 / (2 * p.tauContradict)) + p.require) / 4;
    const JT = (1 - p.sharpen) / 2 + p.sharpen * (1 / 4 + 1 / (4 * p.tauAnswer));
    const A = JT * (p.support + p.require);
    const Qb = (p.resolve * Math.SQRT2) / 4;
    expect(b.modulus).toBe(1 - p.lambda + p.lambda * Math.sqrt(C * C + A * A + Qb * Qb));
    expect(b.modulus).toBeLessThan(1);
    expect(confidenceLipschitzBound({ support: 3 }, 2).modulus).toBeGreaterThan(1);
    // the sharpening term does not grow with the group: only the question rows' sqrt(n_A) does,
    // so the defaults stay a contraction up to 15 competing answers and not at 16
    expect(confidenceLipschitzBound(DEFAULT_PARAMS, 15).modulus).toBeLessThan(1);
    expect(confidenceLipschitzBound(DEFAULT_PARAMS, 16).modulus).toBeGreaterThan(1);
  });

  // Random structure (the scenario's, or a random non-negative edge block) and two random
  // confidence vectors in the unit cube: ‖Q_c(θ1) − Q_c(θ2)‖ <= L ‖c1 − c2‖ (+ rounding of O(Nmax) terms).
  // Run on the default scenario (two competing answers) and on one whose first question has 8;
  // with `absorb`, Q's absorbing merge is on (h_a = h: the scenario's near-duplicate claims are
  // absorbed, which scales their confidence by 1 − m and leaves the bound as it is).
  const wide = wideScenario(8);
  test.prop([fc.integer({ min: 0, max: 2 ** 31 }), fc.boolean(), fc.boolean(), fc.boolean()], { numRuns: 100 })(
    'holds for random pairs of confidence vectors (empirical ratio <= stated modulus), absorbing merge on or off',
    (seed, randomEdges, wideGroup, absorb) => {
      const plain = wideGroup ? wide : sc;
      const s0 = absorb ? { ...plain, params: { ...plain.params, absorbRadius: plain.params.mergeRadius } } : plain;
      const lay = s0.layout;
      let s = seed;
      const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
      const base = wideGroup ? Float64Array.from(s0.theta0) : saturated(1 + (seed % 3));
      if (randomEdges) for (let j = lay.edgeOffset; j < lay.dim; j++) base[j] = rnd() < 0.1 ? rnd() : 0;
      const t1 = Float64Array.from(base);
      const t2 = Float64Array.from(base);
      const scale = rnd() < 0.5 ? 1 : 1e-4; // large and small separations
      for (let sl = 0; sl < lay.nmax; sl++) {
        const ci = confidenceIndex(lay, sl);
        t1[ci] = rnd();
        t2[ci] = Math.min(1, Math.max(0, t1[ci]! + scale * (rnd() - 0.5)));
      }
      const c1 = readConfidences(s0.shape, t1);
      const c2 = readConfidences(s0.shape, t2);
      const dc = norm(c1.map((x, i) => x - c2[i]!));
      const q1 = readConfidences(s0.shape, Q(t1, s0));
      const q2 = readConfidences(s0.shape, Q(t2, s0));
      const dq = norm(q1.map((x, i) => x - q2[i]!));
      expect(dq).toBeLessThanOrEqual(s0.bound.modulus * dc + 64 * lay.nmax * Number.EPSILON);
    },
  );

  it('bounds the local Jacobian norm of the confidence update (power iteration on central differences)', () => {
    const theta = Q(saturated(2));
    const cIdx = Array.from({ length: layout.nmax }, (_, s) => confidenceIndex(layout, s));
    const h = 1e-6;
    const jv = (v: Float64Array) => {
      const p = Float64Array.from(theta);
      const m = Float64Array.from(theta);
      cIdx.forEach((ci, i) => ((p[ci] = p[ci]! + h * v[i]!), (m[ci] = m[ci]! - h * v[i]!)));
      const qp = readConfidences(shape, Q(p));
      const qm = readConfidences(shape, Q(m));
      return qp.map((x, i) => (x - qm[i]!) / (2 * h));
    };
    // ‖J‖₂ >= ‖J v‖ for every unit v; take the best of a few random unit directions.
    let best = 0;
    let s = 7;
    for (let r = 0; r < 20; r++) {
      const v = Float64Array.from({ length: layout.nmax }, () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5);
      const n = norm(v);
      best = Math.max(best, norm(jv(v.map((x) => x / n))));
    }
    expect(best).toBeLessThan(L);
    expect(best).toBeGreaterThan(1 - params.lambda - 1e-6); // the (1−λ)c part alone gives ‖J v‖ >= 1−λ − ...
  });
});

describe('Q is C¹: central-difference directional derivatives converge under step refinement', () => {
  test.prop([fc.integer({ min: 1, max: 2 ** 31 })], { numRuns: 10 })(
    'O(h²) convergence along random directions',
    (seed) => {
      let s = seed;
      const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5;
      const theta = Q(saturated(1 + (seed % 2)));
      const v = Float64Array.from(theta, (x, j) => (j < layout.edgeOffset || x !== 0 ? rnd() : 0));
      const nv = norm(v);
      const d = (h: number) => {
        const p = theta.map((x, j) => x + (h * v[j]!) / nv);
        const m = theta.map((x, j) => x - (h * v[j]!) / nv);
        const qp = Q(p);
        const qm = Q(m);
        return qp.map((x, j) => (x - qm[j]!) / (2 * h));
      };
      const d1 = d(4e-3);
      const d2 = d(2e-3);
      const d3 = d(1e-3);
      const e1 = norm(d1.map((x, j) => x - d2[j]!));
      const e2 = norm(d2.map((x, j) => x - d3[j]!));
      // For a C² map the differences shrink by ~4 per halving; allow 2 (a C¹ map with a
      // Lipschitz derivative still gives >= 2), plus a rounding floor eps·‖Q‖/h ≈ 1e-12.
      expect(e2).toBeLessThanOrEqual(e1 / 2 + 1e-10);
    },
  );
});

describe('evidence pool and P(·|θ)', () => {
  it('adaptive extraction favours items resolving still-open questions; γ = 0 is the base weights', () => {
    const p0 = evidenceDistribution(sc.items, layout, sc.theta0, 2);
    const sum = p0.reduce((a, e) => a + e.p, 0);
    expect(Math.abs(sum - 1)).toBeLessThan(sc.items.length * Number.EPSILON);
    const pOf = (d: typeof p0, id: string) => d.find((e) => e.id === id)!.p;
    // e04 (base 0.5, resolves q:birthplace) vs e07 (base 0.6, tangential): adaptive lifts e04 above
    expect(pOf(p0, 'e04')).toBeGreaterThan(pOf(p0, 'e07'));
    const flat = evidenceDistribution(sc.items, layout, sc.theta0, 0);
    const total = sc.items.reduce((a, it) => a + it.weight, 0);
    expect(pOf(flat, 'e04')).toBe(0.5 / total);
    // closing q:birthplace (openness 0) removes e04's boost
    const closed = Float64Array.from(sc.theta0);
    closed[confidenceIndex(layout, layout.slotOf.get('q:birthplace')!)] = 0;
    expect(pOf(evidenceDistribution(sc.items, layout, closed, 2), 'e04')).toBeLessThan(pOf(p0, 'e04'));
    expect(() => evidenceDistribution(sc.items, layout, sc.theta0, -1)).toThrow(/adaptiveGain = -1: must be >= 0/);
  });

  it('base weights up to MAX_VALUE: the same p as the weights scaled down by a power of two, bit for bit', () => {
    const huge = sc.items.map((it) => ({ ...it, weight: it.weight * 2 ** 1020 }));
    expect(Number.isFinite(huge.reduce((a, it) => a + it.weight * 4, 0))).toBe(false); // the plain sum overflows
    for (const gamma of [0, 2])
      expect(evidenceDistribution(huge, layout, sc.theta0, gamma)).toEqual(
        evidenceDistribution(sc.items, layout, sc.theta0, gamma),
      );
    expect(() => evidenceDistribution(sc.items, layout, sc.theta0, 1e308)).toThrow(
      /^adaptiveGain = 1e\+308: is so large that the extraction weights overflow/,
    );
  });

  it('consolidation scheduling triggers once the accumulated order-gap exceeds the threshold', () => {
    const s = new ConsolidationSchedule(0.5);
    expect(s.record(0.2)).toBe(false);
    expect(s.record(0.3)).toBe(false); // 0.5 is not > 0.5
    expect(s.record(0.01)).toBe(true);
    s.consolidated();
    expect(s.accumulated).toBe(0);
    expect(() => s.record(NaN)).toThrow(/omega = NaN/);
    expect(() => new ConsolidationSchedule(0)).toThrow(/threshold = 0: must be > 0/);
  });

  it('pool validation names JSON paths: unknown endpoint, bad type, duplicate claim id, strength', () => {
    const g = parseGraph(read('graph'));
    const ev = read('evidence') as { items: Array<Record<string, unknown> & { edges: Record<string, unknown>[] }> };
    ev.items[0]!.edges[0]!.target = 'a:nobody';
    ev.items[2]!.edges[0]!.type = 'Requires';
    ev.items[3]!.strength = 0;
    (ev.items[4]!.claims as Array<Record<string, unknown>>)[0]!.id = 'c:vance-wrote';
    try {
      parseEvidencePool(ev, g);
      throw new Error('expected a GraphFormatError');
    } catch (e) {
      expect(e).toBeInstanceOf(GraphFormatError);
      const paths = (e as GraphFormatError).issues.map((i) => i.path);
      expect(paths).toEqual(['evidence.items[3].strength']);
    }
    ev.items[3]!.strength = 0.5;
    try {
      parseEvidencePool(ev, g);
      throw new Error('expected a GraphFormatError');
    } catch (e) {
      const issues = (e as GraphFormatError).issues;
      expect(issues.map((i) => i.path)).toEqual([
        'evidence.items[4].claims[0].id',
        'evidence.items[0].edges[0].target',
        'evidence.items[2].edges[0].type',
        // renaming e05's claim orphans e05's own edge
        'evidence.items[4].edges[0].source',
      ]);
      expect(issues[2]!.message).toMatch(/Requires edge cannot run from claim "c:holt-wrote" to answer/);
    }
  });

  it('rejects operator parameters out of range, naming them', () => {
    expect(() => resolveParams({ lambda: 0 })).toThrow(/params\.lambda = 0: must lie in \(0, 1\]/);
    expect(() => resolveParams({ bogus: 1 } as never)).toThrow(/params\.bogus = 1: is not a parameter/);
    expect(() => resolveParams({ promotion: -1 })).toThrow(/params\.promotion = -1: must be >= 0/);
    for (const tau of [0, 1.5, NaN])
      expect(() => resolveParams({ promotionThreshold: tau })).toThrow(/^params\.promotionThreshold = /);
    expect(resolveParams({ promotionThreshold: 1 }).promotionThreshold).toBe(1);
    expect(() => createScenario(read('graph'), read('evidence'), { params: { support: 5 } })).toThrow(
      /params = .*: the analytic Lipschitz bound/,
    );
  });
});
void edgeIndex;
