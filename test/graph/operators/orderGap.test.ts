import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
// the entries under test, then the storages they run on
import {
  graphOrderGap,
  graphOrderGapSparse,
  graphStep,
  orderGapOver,
  csrEdges,
  withColumns,
  extractCsr,
  densify,
  type SparseGraphState,
} from '../../../src/graph/operators/orderGap.js';
import { syntheticProblem } from '../../../src/graph/scenarios/synthetic.js';
import { DEFAULT_PARAMS, type GraphOperatorParams } from '../../../src/graph/operators/params.js';
import {
  consolidateNodes,
  denseEdges,
  readConfidences,
  referenceConsolidate,
  structureSums,
  weightedSums,
} from '../../../src/graph/operators/consolidate.js';
import { ENTRY_CONFIDENCE, referenceExpand, type CompiledItem } from '../../../src/graph/operators/expand.js';
import type { OperatorShape } from '../../../src/graph/model/shape.js';
import { referenceDistance } from '../../../src/blas1/dnrm2.js';
import { createScenario, defaultScenario } from '../../../src/graph/scenarios/scenario.js';
import { openGraphDoc, openItem } from '../fixtures.js';

/** Ω by the definition (Eq. 2): two full Q and two full P_e applications. */
function generic(shape: OperatorShape, theta: Float64Array, item: CompiledItem, p = DEFAULT_PARAMS): number {
  return referenceDistance(
    referenceConsolidate(shape, p, referenceExpand(item, theta)),
    referenceExpand(item, referenceConsolidate(shape, p, theta)),
  );
}

/** Every path's Ω, by name: each storage and region, the two entries and the step. */
function allPaths(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
  state: SparseGraphState = extractCsr(shape, theta, 1 << 30)!,
): Record<string, number> {
  const indexed = withColumns(state, shape.nmax);
  return {
    'dense, all': orderGapOver(shape, p, theta, denseEdges(shape, theta), item, 'all'),
    'dense, neighbourhood': orderGapOver(shape, p, theta, denseEdges(shape, theta), item, 'neighbourhood'),
    'CSR, all': orderGapOver(shape, p, state.nodes, csrEdges(state), item, 'all'),
    'CSR without columns, neighbourhood': orderGapOver(shape, p, state.nodes, csrEdges(state), item, 'neighbourhood'),
    'CSR + CSC, neighbourhood': orderGapOver(shape, p, indexed.nodes, csrEdges(indexed), item, 'neighbourhood'),
    graphOrderGap: graphOrderGap(shape, p, theta, item),
    graphOrderGapSparse: graphOrderGapSparse(shape, p, state, item),
    'graphOrderGapSparse (indexed)': graphOrderGapSparse(shape, p, indexed, item),
    'graphStep.omega': graphStep(shape, p, theta, item).omega,
  };
}

/** Asserts every path returns `expected` bit for bit (Object.is: 0 and −0 differ, NaN equals NaN). */
function expectAll(paths: Record<string, number>, expected: number): void {
  for (const [name, v] of Object.entries(paths))
    expect(Object.is(v, expected), `${name}: ${v} vs ${expected}`).toBe(true);
}

function expectSameBits(a: Float64Array, b: Float64Array): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) expect([i, a[i]]).toEqual([i, b[i]]);
}

/**
 * A synthetic problem whose questions carry resolution support (S_qq, `supports` cycled over the
 * question slots; 0 leaves one absent) and whose item also writes the S_qq of the question of
 * the answer it supports, towards 1 at a_e·w (as compileItem does). Without `decay` the item
 * leaves that answer's Requires edge alone, so the question's belief changes only through S_qq.
 */
function withResolutionSupport(
  problem: ReturnType<typeof syntheticProblem>,
  supports: readonly number[],
  decay: boolean,
): { shape: OperatorShape; theta: Float64Array; item: CompiledItem } {
  const { shape, state, item } = problem;
  const n = shape.nmax;
  const theta = densify(shape, state);
  const diagonal = (q: number) => shape.edgeOffset + q * n + q;
  for (let q = shape.firstQuestion; q < n; q++)
    theta[diagonal(q)] = supports[(q - shape.firstQuestion) % supports.length]!;
  const q = shape.answerQuestion[0]!;
  if (q < 0) return { shape, theta, item };
  const entries = new Map<number, [number, number]>();
  item.footprint.forEach((f, t) => entries.set(f, [item.rates[t]!, item.target[t]!]));
  entries.set(diagonal(q), [item.strength * 0.8, 1]);
  if (!decay) entries.delete(shape.edgeOffset + n * n + shape.firstAnswer * n + q);
  const keys = [...entries.keys()].sort((a, b) => a - b);
  return {
    shape,
    theta,
    item: {
      ...item,
      footprint: Int32Array.from(keys),
      rates: Float64Array.from(keys, (x) => entries.get(x)![0]),
      target: Float64Array.from(keys, (x) => entries.get(x)![1]),
    },
  };
}

const scenario = fc.record({
  nmax: fc.integer({ min: 20, max: 120 }),
  k: fc.integer({ min: 2, max: 6 }),
  edgesPerNode: fc.integer({ min: 2, max: 16 }),
  seed: fc.integer({ min: 1, max: 2 ** 31 }),
});

/** Confidences uniform on [0, 2c₀] (fc.double favours tiny magnitudes), c₀ itself included. */
const aroundEntry = fc.integer({ min: 0, max: 2 ** 20 }).map((i) => (i / 2 ** 19) * ENTRY_CONFIDENCE);

describe('structure-aware order-gap (Eq. 2) and step', () => {
  test.prop([scenario], { numRuns: 40 })(
    'every storage and region, both entries and the step give the generic Ω bit for bit',
    ({ nmax, k, edgesPerNode, seed }) => {
      const { shape, state, item } = syntheticProblem(nmax, k, edgesPerNode, seed);
      const theta = densify(shape, state);
      const before = Float64Array.from(theta);
      // the item adds a claim in an empty slot: P_e writes its entry confidence c₀/3
      expect(item.entry).toHaveLength(1);
      expect(theta[item.entry[0]!]).toBe(0);
      expect(referenceExpand(item, theta)[item.entry[0]!]).toBe(ENTRY_CONFIDENCE / 3);
      const ref = generic(shape, theta, item);
      expect(ref).toBeGreaterThan(0);
      expectAll(allPaths(shape, DEFAULT_PARAMS, theta, item, state), ref);
      expectSameBits(theta, before); // θ untouched
    },
  );

  test.prop(
    [scenario, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }), fc.boolean()],
    { numRuns: 30 },
  )(
    "with questions' resolution support: stored S_qq and an item that writes one, Ω and θ' bit for bit",
    ({ nmax, k, edgesPerNode, seed }, supports, decay) => {
      const p = withResolutionSupport(syntheticProblem(nmax, k, edgesPerNode, seed), supports, decay);
      const { shape, item } = p;
      const theta = p.theta;
      const ref = generic(shape, theta, item);
      expectAll(allPaths(shape, DEFAULT_PARAMS, theta, item), ref);
      expectSameBits(
        graphStep(shape, DEFAULT_PARAMS, theta, item).next,
        referenceConsolidate(shape, DEFAULT_PARAMS, referenceExpand(item, theta)),
      );
    },
  );

  test.prop([scenario], { numRuns: 25 })(
    'graphStep.next is Q(P_e(θ)) bit for bit, and Q does not depend on the edge storage',
    ({ nmax, k, edgesPerNode, seed }) => {
      const { shape, state, item } = syntheticProblem(nmax, k, edgesPerNode, seed);
      const theta = densify(shape, state);
      const expanded = referenceExpand(item, theta);
      const ref = referenceConsolidate(shape, DEFAULT_PARAMS, expanded);
      expectSameBits(graphStep(shape, DEFAULT_PARAMS, theta, item).next, ref);
      const nodes = new Float64Array(shape.edgeOffset);
      consolidateNodes(shape, DEFAULT_PARAMS, state.nodes, csrEdges(state), nodes);
      expectSameBits(nodes, referenceConsolidate(shape, DEFAULT_PARAMS, theta).subarray(0, shape.edgeOffset));
    },
  );

  // the CSR source hands Q's second pass its arrays (EdgeSource.csr) where the dense source hands
  // it rows: with 20 to 60 edges a node, most slots take 3 and more terms in each sum, whose
  // rounding depends on their order (two terms would add the same either way)
  test.prop([fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 20, max: 60 })], { numRuns: 12 })(
    "Q's weighted sums are the same bit for bit from CSR arrays as from dense rows, on busy blocks",
    (seed, edgesPerNode) => {
      const { shape, state } = syntheticProblem(48, 3, edgesPerNode, seed);
      const theta = densify(shape, state);
      const c = readConfidences(shape, state.nodes);
      const fromCsr = csrEdges(state);
      const fromRows = denseEdges(shape, theta);
      expect(fromCsr.csr).toBeDefined();
      expect(fromRows.csr).toBeUndefined();
      const a = weightedSums(fromCsr, DEFAULT_PARAMS, c, structureSums(fromCsr));
      const b = weightedSums(fromRows, DEFAULT_PARAMS, c, structureSums(fromRows));
      expectSameBits(a.support, b.support);
      expectSameBits(a.require, b.require);
      expectSameBits(a.contradict, b.contradict);
    },
  );

  test.prop([fc.integer({ min: 1, max: 2 ** 31 })], { numRuns: 8 })(
    'dense edge blocks (no CSR extraction, neighbourhood over budget) give the generic Ω too',
    (seed) => {
      const { shape, state, item } = syntheticProblem(56, 3, 90, seed);
      const theta = densify(shape, state);
      // the case the dense entry runs in place: more than max(1024, Nmax²/2) non-zeros
      expect(extractCsr(shape, theta, Math.max(1024, (56 * 56) / 2))).toBeNull();
      expectAll(allPaths(shape, DEFAULT_PARAMS, theta, item, state), generic(shape, theta, item));
    },
  );

  test.prop([scenario], { numRuns: 20 })(
    'Ω = 0 exactly for an item already incorporated when nothing merges',
    ({ nmax, k, edgesPerNode, seed }) => {
      const { shape, state, item } = syntheticProblem(nmax, k, edgesPerNode, seed);
      const theta = densify(shape, state);
      item.footprint.forEach((f, t) => (theta[f] = item.target[t]!));
      // its new claim present with the entry confidence: P_e θ = θ (the entry is the identity at c₀)
      for (const x of item.entry) theta[x] = ENTRY_CONFIDENCE;
      expect(referenceExpand(item, theta)).toEqual(theta);
      const p = { ...DEFAULT_PARAMS, mergeRate: 0 };
      expect(generic(shape, theta, item, p)).toBe(0);
      expectAll(allPaths(shape, p, theta, item), 0);
    },
  );

  test.prop([scenario, fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: 0.1, max: 1, noNaN: true })], {
    numRuns: 20,
  })('Ω = 0 exactly for evidence that writes only what Q neither reads nor writes', (sc, target, rate) => {
    const { shape, state } = syntheticProblem(sc.nmax, sc.k, sc.edgesPerNode, sc.seed);
    const theta = densify(shape, state);
    // the source-code attribute (index k − 1 >= mergeDims) of claim 0 and of an answer
    const k1 = shape.k + 1;
    const footprint = Int32Array.of(shape.k - 1, shape.firstAnswer * k1 + shape.k - 1);
    const item: CompiledItem = {
      id: 'source-codes',
      strength: rate,
      footprint,
      rates: Float64Array.of(rate, rate),
      target: Float64Array.of(target, target),
      entry: new Int32Array(0),
    };
    expect(generic(shape, theta, item)).toBe(0);
    expectAll(allPaths(shape, DEFAULT_PARAMS, theta, item), 0);
  });

  test.prop([scenario, fc.array(aroundEntry, { minLength: 3, maxLength: 3 })], {
    numRuns: 30,
  })('entry confidences of nodes that other edges already reach: every path gives the generic Ω', (sc, cs) => {
    const { shape, state } = syntheticProblem(sc.nmax, sc.k, sc.edgesPerNode, sc.seed);
    const theta = densify(shape, state);
    const n = shape.nmax;
    const k1 = shape.k + 1;
    const edge = (t: number, j: number, i: number, w: number) => (theta[shape.edgeOffset + t * n * n + j * n + i] = w);
    // the empty claim slot, an answer and its question, with confidences around c₀, reached by
    // edges e does not write (written by other items before these nodes appear)
    const j = shape.claims - 1;
    const a = shape.firstAnswer;
    const q = shape.answerQuestion[0]!;
    edge(0, j, 5, 0.6); // Supports j -> 5: 5 reads c_j
    edge(0, 6, j, 0.4);
    edge(2, 3, j, 0.7); // Contradicts 3 -> j: 3 reads c_j
    edge(2, j, 7, 0.5);
    edge(1, j, q, 0.8);
    edge(1, 8, q, 0.3); // Requires 8 -> q: 8 reads c_q
    [j, a, q].forEach((s, t) => (theta[s * k1 + shape.k] = cs[t]!));
    // all three, and each alone (an answer's question then reads its confidence through its openness)
    for (const slots of [[j, a, q], [j], [a], [q]]) {
      const item: CompiledItem = {
        id: 'entry-only',
        strength: 1,
        footprint: new Int32Array(0),
        rates: new Float64Array(0),
        target: new Float64Array(0),
        entry: Int32Array.from(slots, (s) => s * k1 + shape.k),
      };
      expectAll(allPaths(shape, DEFAULT_PARAMS, theta, item), generic(shape, theta, item));
    }
  });

  it('an item that adds a claim, answers and a sub-question (entry confidences on all three): every path along a run', () => {
    const sc = createScenario(openGraphDoc(), { items: [openItem()] });
    const item = sc.items[0]!;
    expect(item.entry).toHaveLength(4);
    let t = sc.theta0;
    for (let step = 0; step < 4; step++) {
      expectAll(allPaths(sc.shape, sc.params, t, item), generic(sc.shape, t, item, sc.params));
      t = referenceConsolidate(sc.shape, sc.params, referenceExpand(item, t));
    }
  });

  it('extractCsr recovers the stored edges exactly and declines above its cap', () => {
    const { shape, state } = syntheticProblem(64, 4, 10, 3);
    const theta = densify(shape, state);
    expect(extractCsr(shape, theta, 1 << 30)!.edges).toEqual(state.edges);
    expect(extractCsr(shape, theta, 3)).toBeNull();
  });

  it('default scenario: every one of the 16 items along a run, Ω and θ′ bit for bit', () => {
    const sc = defaultScenario();
    expect(sc.items.length).toBe(16);
    let t = sc.theta0;
    for (let step = 0; step < 12; step++) {
      for (const item of sc.items) {
        const ref = generic(sc.shape, t, item, sc.params);
        expectAll(allPaths(sc.shape, sc.params, t, item), ref);
        const next = referenceConsolidate(sc.shape, sc.params, referenceExpand(item, t));
        expectSameBits(graphStep(sc.shape, sc.params, t, item).next, next);
      }
      const it = sc.items[(step * 5) % sc.items.length]!;
      t = referenceConsolidate(sc.shape, sc.params, referenceExpand(it, t));
    }
  });
});
