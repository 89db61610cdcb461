import { beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  ABSORB_PRESENCE,
  absorptionWeight,
  denseEdges,
  referenceConsolidate,
  smoothStep,
} from '../../../src/graph/operators/consolidate.js';
import { referenceExpand } from '../../../src/graph/operators/expand.js';
import { DEFAULT_PARAMS, resolveParams, type GraphOperatorParams } from '../../../src/graph/operators/params.js';
import {
  densify,
  graphOrderGap,
  graphOrderGapSparse,
  graphStep,
  orderGapOver,
  stepOver,
  withColumns,
  extractCsr,
} from '../../../src/graph/operators/orderGap.js';
import { wasmGraphBackend } from '../../../src/graph/operators/backend.js';
import {
  structuredConsolidate,
  structuredFromDense,
  structuredOrderGap,
  structuredStep,
  structuredToDense,
} from '../../../src/graph/state/state.js';
import { syntheticProblem } from '../../../src/graph/scenarios/synthetic.js';
import { defaultScenario } from '../../../src/graph/scenarios/scenario.js';
import { decode } from '../../../src/graph/model/layout.js';
import { AgentState } from '../../../src/graph/agent/agent.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { runRecursive } from '../../../src/ordergap/algorithm1.js';
import { referenceDistance } from '../../../src/blas1/dnrm2.js';
import type { OperatorShape } from '../../../src/graph/model/shape.js';
import type { CompiledItem } from '../../../src/graph/operators/expand.js';
import { init } from '../../../src/wasm/module.js';
import { smallGraphDoc } from '../fixtures.js';

beforeAll(async () => {
  await init();
});

/**
 * The small graph ({@link smallGraphDoc}) with c2 moved 0.02 from c1 on the merged attribute
 * (k = 2: mergeDims 1) and both claims supporting the answer.
 */
function duplicateClaimsDoc(): Record<string, unknown> {
  const doc = smallGraphDoc() as { nodes: Array<Record<string, unknown>>; edges: unknown[] };
  doc.nodes[1] = { ...doc.nodes[1], attributes: [0.12, 0.2] };
  const edge = (type: string, source: string, target: string, weight: number) => ({ type, source, target, weight });
  doc.edges = [
    edge('Supports', 'c1', 'c1', 0.9),
    edge('Supports', 'c2', 'c2', 0.6),
    edge('Supports', 'c1', 'a', 0.5),
    edge('Supports', 'c2', 'a', 0.4),
    edge('Requires', 'a', 'q', 1),
  ];
  return doc;
}

const ABSORBING: GraphOperatorParams = resolveParams({ absorbRadius: 0.2 });

/**
 * A synthetic problem (random edges, one item adding a claim) with near-duplicate claims planted:
 * claim 2p + 1 is put at claim 2p's merged attributes plus an offset of length `offsets[p]`·h_a
 * along the first attribute — inside h_a/2 (absorbed whole), between h_a/2 and h_a (partly) or
 * beyond h_a (not at all) — and, with `land` (default), the item's new claim lands on claim 0.
 * Other claims may lie near each other too (chains of absorptions) unless `isolate`.
 */
function plantedProblem(
  nmax: number,
  k: number,
  seed: number,
  offsets: readonly number[],
  { isolate = false, land = true }: { isolate?: boolean; land?: boolean } = {},
) {
  const p = ABSORBING;
  const { shape, state, item } = syntheticProblem(nmax, k, 6, seed);
  const theta = densify(shape, state);
  const k1 = k + 1;
  const n = shape.nmax;
  const live = (i: number) => theta[shape.edgeOffset + i * n + i]! !== 0;
  const claims = [...Array(shape.claims).keys()].filter(live);
  for (let q = 0; q + 1 < claims.length && q / 2 < offsets.length; q += 2) {
    const [i, j] = [claims[q]!, claims[q + 1]!];
    for (let t = 0; t < shape.mergeDims; t++) theta[j * k1 + t] = theta[i * k1 + t]!;
    theta[j * k1] = theta[i * k1]! + offsets[q / 2]! * p.absorbRadius;
  }
  // `isolate`: every other claim 10 merge radii from any other, so only the planted pairs interact
  if (isolate) claims.slice(2 * offsets.length).forEach((c, r) => (theta[c * k1] = 100 + 10 * r));
  // the item's new claim (its entry slot) lands on the first live claim
  const slot = Math.floor(item.entry[0]! / k1);
  const footprint = [...item.footprint];
  const at = (x: number) => footprint.indexOf(x);
  const target = Float64Array.from(item.target);
  if (land)
    for (let t = 0; t < shape.mergeDims; t++)
      if (at(slot * k1 + t) >= 0) target[at(slot * k1 + t)] = theta[claims[0]! * k1 + t]!;
  return { shape, theta, item: { ...item, target } as CompiledItem };
}

/** Ω by the definition (Eq. 2). */
function definition(shape: OperatorShape, p: GraphOperatorParams, theta: Float64Array, item: CompiledItem): number {
  return referenceDistance(
    referenceConsolidate(shape, p, referenceExpand(item, theta)),
    referenceExpand(item, referenceConsolidate(shape, p, theta)),
  );
}

function expectSameBits(a: Float64Array, b: Float64Array): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) expect([i, a[i]]).toEqual([i, b[i]]);
}

describe('the absorbing merge (Sec. 3.1: Q merges redundant claims)', () => {
  it('a merge leaves one node: the absorbed claim’s edges carried over by w ⊕ m·w′, its slot released', () => {
    const agent = AgentState.fromGraph(duplicateClaimsDoc(), { params: { absorbRadius: 0.2 } });
    expect(agent.describe().claims.map((c) => c.id)).toEqual(['c1', 'c2']);
    agent.consolidate();
    expect(agent.describe().claims.map((c) => c.id)).toEqual(['c1']);
    const g = decode(agent.theta, agent.layout);
    expect(g.nodes.filter((x) => x.type === 'claim').map((x) => x.id)).toEqual(['c1']);
    const w = (type: string, s: string, t: string) =>
      g.edges.find((e) => e.type === type && e.source === s && e.target === t)?.weight;
    // r = 0.02 <= h_a/2 = 0.1 and both reliabilities >= s₀: m = 1, so w' = w + w_j − w·w_j
    expect(w('Supports', 'c1', 'a')).toBe(0.5 + 0.4 - 0.5 * 0.4);
    expect(w('Supports', 'c1', 'c1')).toBe(0.9 + 0.6 - 0.9 * 0.6);
    expect(g.edges.some((e) => e.source === 'c2' || e.target === 'c2')).toBe(false);
    // slot c2 is all zeros: an empty slot the layout can fill again
    const slot = agent.layout.slots.findIndex((s) => s.id === 'c2');
    const k1 = agent.layout.k + 1;
    expect([...agent.theta.subarray(slot * k1, (slot + 1) * k1)].every((x) => x === 0)).toBe(true);
  });

  it('off by default (h_a = 0): Q keeps both claims and writes no edge', () => {
    const agent = AgentState.fromGraph(duplicateClaimsDoc());
    const edgesBefore = agent.theta.slice(agent.layout.edgeOffset);
    agent.consolidate();
    expect(agent.describe().claims.map((c) => c.id)).toEqual(['c1', 'c2']);
    expectSameBits(agent.theta.slice(agent.layout.edgeOffset), edgesBefore);
  });

  it('the weight m_ij: 1 within h_a/2 at reliabilities >= s₀, 0 from h_a on, a C² ramp between', () => {
    const p = ABSORBING;
    const h = p.absorbRadius;
    expect(absorptionWeight(p, (h / 2) ** 2, ABSORB_PRESENCE, 1)).toBe(1);
    expect(absorptionWeight(p, 0, 1, 1)).toBe(1);
    expect(absorptionWeight(p, h * h, 1, 1)).toBe(0);
    expect(absorptionWeight(p, 0, ABSORB_PRESENCE / 2, 1)).toBe(smoothStep(0.5));
    expect(absorptionWeight(DEFAULT_PARAMS, 0, 1, 1)).toBe(0);
    // ψ(t) = 6t⁵ − 15t⁴ + 10t³: ψ(½) = ½ by symmetry ψ(1 − t) = 1 − ψ(t); ψ' and ψ'' vanish at
    // 0 and 1, so the difference quotients over δ shrink like δ² and δ (ψ(δ) = 10δ³ − …)
    expect(smoothStep(0.5)).toBe(0.5);
    for (const d of [1e-2, 1e-3]) {
      expect(smoothStep(d) / d).toBeLessThan(10 * d * d);
      expect((1 - smoothStep(1 - d)) / d).toBeLessThan(10 * d * d);
    }
  });

  it('bad absorb radii are refused, naming the parameter', () => {
    expect(() => resolveParams({ absorbRadius: -0.1 })).toThrow(/params\.absorbRadius/);
    expect(() => resolveParams({ absorbRadius: 0.5 })).toThrow(/params\.absorbRadius.*mergeRadius = 0\.3/);
    expect(() => resolveParams({ absorbRadius: NaN })).toThrow(/params\.absorbRadius/);
    expect(resolveParams({ absorbRadius: 0.3 }).absorbRadius).toBe(0.3);
  });

  test.prop(
    [
      fc.integer({ min: 24, max: 80 }),
      fc.integer({ min: 2, max: 5 }),
      fc.integer({ min: 1, max: 2 ** 31 }),
      fc.array(fc.double({ min: 0, max: 1.3, noNaN: true }), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
    ],
    { numRuns: 40 },
  )(
    'every form of Q agrees bit for bit, and every entry of Ω is the definition bit for bit',
    (nmax, k, seed, offsets, isolate, land) => {
      // isolated pairs beyond h_a and an item that lands on no claim: nothing absorbs and the
      // structured state takes its neighbourhood pass; otherwise the definition's path
      const { shape, theta, item } = plantedProblem(nmax, k, seed, offsets, { isolate, land });
      const p = ABSORBING;
      const q = referenceConsolidate(shape, p, theta);
      // the wasm form: the same operations, e^x included (forms.test.ts), and the absorption reads only θ
      expectSameBits(wasmGraphBackend.consolidate(shape, p, theta), q);
      const st = structuredFromDense(shape, p, theta);
      structuredConsolidate(shape, p, st);
      expectSameBits(structuredToDense(shape, st), q);
      const omega = definition(shape, p, theta, item);
      const sparse = extractCsr(shape, theta, 1 << 30)!;
      for (const [name, v] of Object.entries({
        graphOrderGap: graphOrderGap(shape, p, theta, item),
        'graphStep.omega': graphStep(shape, p, theta, item).omega,
        graphOrderGapSparse: graphOrderGapSparse(shape, p, withColumns(sparse, shape.nmax), item),
        structuredOrderGap: structuredOrderGap(shape, p, structuredFromDense(shape, p, theta), item),
      }))
        expect(Object.is(v, omega), `${name}: ${v} vs ${omega}`).toBe(true);
      const step = structuredFromDense(shape, p, theta);
      expect(Object.is(structuredStep(shape, p, step, item), omega)).toBe(true);
      const next = referenceConsolidate(shape, p, referenceExpand(item, theta));
      expectSameBits(structuredToDense(shape, step), next);
      expectSameBits(graphStep(shape, p, theta, item).next, next);
    },
  );

  test.prop([fc.integer({ min: 24, max: 80 }), fc.integer({ min: 2, max: 5 }), fc.integer({ min: 1, max: 2 ** 31 })], {
    numRuns: 25,
  })(
    'a pair within h_a/2: the survivor holds the union of both claims’ edges and the absorbed slot is empty',
    (nmax, k, seed) => {
      const { shape, theta } = plantedProblem(nmax, k, seed, [0.25], { isolate: true });
      const p = ABSORBING;
      const n = shape.nmax;
      const k1 = k + 1;
      const q = referenceConsolidate(shape, p, theta);
      const e = (x: Float64Array, t: number, r: number, c: number) => x[shape.edgeOffset + (t * n + r) * n + c]!;
      // the planted pair: the first two live claims (reliabilities of the synthetic graph are >= s₀)
      const live = [...Array(shape.claims).keys()].filter((i) => e(theta, 0, i, i) !== 0);
      const [i, j] = [live[0]!, live[1]!];
      expect(e(theta, 0, i, i)).toBeGreaterThanOrEqual(ABSORB_PRESENCE);
      expect(e(theta, 0, j, j)).toBeGreaterThanOrEqual(ABSORB_PRESENCE);
      expect([...q.subarray(j * k1, (j + 1) * k1)].every((x) => x === 0)).toBe(true);
      for (let t = 0; t < 3; t++)
        for (let x = 0; x < n; x++) {
          expect(e(q, t, j, x)).toBe(0);
          expect(e(q, t, x, j)).toBe(0);
          if (x === i || x === j) continue;
          // present on i after iff present on i or j before (the pair's mutual edges aside)
          expect(e(q, t, i, x) !== 0).toBe(e(theta, t, i, x) !== 0 || e(theta, t, j, x) !== 0);
          expect(e(q, t, x, i) !== 0).toBe(e(theta, t, x, i) !== 0 || e(theta, t, x, j) !== 0);
          // ⊕ of weights in [0, 1] stays in [0, 1] and never loses what i held
          expect(e(q, t, i, x)).toBeLessThanOrEqual(1);
          expect(e(q, t, i, x)).toBeGreaterThanOrEqual(e(theta, t, i, x));
        }
    },
  );

  it('the structure-aware passes refuse the absorbing merge with a one-line error', () => {
    const { shape, theta, item } = plantedProblem(30, 3, 7, [0.25]);
    const edges = denseEdges(shape, theta);
    expect(() => orderGapOver(shape, ABSORBING, theta, edges, item, 'all')).toThrow(/params\.absorbRadius.*must be 0/);
    expect(() => stepOver(shape, ABSORBING, theta, edges, item)).toThrow(/params\.absorbRadius/);
  });

  it('on the default scenario: the run absorbs, its dense and structured forms agree step for step, and certify says why it has no proof', async () => {
    const sc = defaultScenario({ params: { absorbRadius: DEFAULT_PARAMS.mergeRadius } });
    const structured = runRecursive(referenceGraphSystem(sc), sc.run);
    const dense = runRecursive(referenceGraphSystem(sc, { backend: 'reference' }), {
      ...sc.run,
      representation: 'dense',
    });
    expect(structured.steps.length).toBe(dense.steps.length);
    structured.steps.forEach((s, t) => expect(Object.is(s.omega, dense.steps[t]!.omega)).toBe(true));
    const last = dense.steps.at(-1)!.theta!;
    const claims = (x: Float64Array) => decode(x, sc.layout).nodes.filter((n) => n.type === 'claim').length;
    const off = defaultScenario();
    const offRun = runRecursive(referenceGraphSystem(off, { backend: 'reference' }), {
      ...off.run,
      representation: 'dense',
    });
    expect(claims(last)).toBeLessThan(claims(offRun.steps.at(-1)!.theta!));
    // DQ's tfjs form and engines are Q without absorption: the system does not offer them
    const lin = referenceGraphSystem(sc).capabilities.linearization!;
    expect(lin.consolidateTf).toBeUndefined();
    expect(lin.consolidateJacobian).toBeUndefined();
  });
});
