/**
 * The structured state's φ, φ⁻¹, coordinate reads, export and conversions against the dense θ,
 * and the coordinate sets that name blocks without enumerating them.
 */
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createLayout, decode, describeCoordinate, edgeBlock, embed } from '../../../src/graph/model/layout.js';
import { parseGraph } from '../../../src/graph/model/schema.js';
import { operatorShape } from '../../../src/graph/model/shape.js';
import { DEFAULT_PARAMS } from '../../../src/graph/operators/params.js';
import {
  copyStructured,
  copyStructuredInto,
  decodeStructured,
  embedStructured,
  structuredEntries,
  structuredFromDense,
  structuredFromEntries,
  structuredFromSparse,
  structuredExpand,
  structuredMergeNeighbours,
  structuredResidual,
  structuredStep,
  structuredToDense,
  structuredValue,
  type StructuredGraphState,
} from '../../../src/graph/state/state.js';
import type { OperatorShape } from '../../../src/graph/model/shape.js';
import type { GraphOperatorParams } from '../../../src/graph/operators/params.js';
import { syntheticScenario } from '../../../src/graph/scenarios/synthetic.js';
import { csrEdges, densify } from '../../../src/graph/operators/orderGap.js';
import {
  referenceConsolidate,
  slotStructure,
  structureSums,
  type StructureSums,
} from '../../../src/graph/operators/consolidate.js';
import { expansionResidual, referenceExpand } from '../../../src/graph/operators/expand.js';
import { referenceDistance } from '../../../src/blas1/dnrm2.js';
import {
  checkCoordinateSet,
  coordinateArray,
  coordinateAt,
  coordinateCount,
  coordinateHas,
} from '../../../src/system/coordinates.js';
import { arbGraphDoc, smallGraphDoc } from '../fixtures.js';

const bits = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/** Item draws, a merge radius of 1, 4 or 30 times the default, a scenario seed. */
const mergeDraws = [
  fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 }),
  fc.constantFrom(1, 4, 30),
  fc.integer({ min: 0, max: 1000 }),
] as const;

/** A synthetic state whose merge radius is `scale` times the default: wider radii put many claims near each other. */
function wideMerge(scale: number, seed: number) {
  const sc = syntheticScenario(40, { items: 6, seed });
  const params = { ...DEFAULT_PARAMS, mergeRadius: DEFAULT_PARAMS.mergeRadius * scale };
  return { sc, params, st: structuredFromDense(sc.shape, params, densify(sc.shape, sc.state)) };
}

/**
 * Ways to place the claims' merge attributes: over a box, on a lattice of cell boundaries
 * (multiples of h, and of the grid's cell width h·(1 + 2⁻²⁰)), in tight clusters, beyond the
 * cells' number keys, a multiple of 1024 cells (± one) apart in an attribute — cells that
 * agree modulo 1024 but lie far apart —, or all near cell (1, 1, …) but for the fourth
 * attribute, which straddles cell 2³¹ (beyond the exact cells the kept fine cells hold).
 */
const PLACEMENTS = ['box', 'lattice', 'clusters', 'far', 'wrap', 'huge'] as const;

/** `shape`'s synthetic node block with the claims' first mergeDims attributes placed `how`. */
function placed(shape: OperatorShape, h: number, how: (typeof PLACEMENTS)[number], seed: number): Float64Array {
  const sc = syntheticScenario(shape.nmax, { k: shape.k, items: 2, seed });
  const nodes = Float64Array.from(sc.state.nodes);
  let r = seed + 1;
  const rnd = () => (r = (r * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const w = h * (1 + 2 ** -20);
  const value = (t: number): number => {
    if (how === 'huge') return (t === 3 ? 2 ** 31 * w : 1.5 * w) + 0.4 * h * (rnd() - 0.5);
    if (how === 'box') return 4 * rnd() - 1;
    if (how === 'lattice') return Math.floor(6 * rnd() - 3) * (rnd() < 0.5 ? h : w);
    if (how === 'clusters') return Math.floor(3 * rnd()) + 0.5 * h * rnd();
    if (how === 'wrap') return (Math.floor(3 * rnd() - 1) * 1024 + Math.floor(3 * rnd() - 1)) * w + 0.5 * h * rnd();
    return (rnd() < 0.5 ? 1 : -1) * (rnd() < 0.5 ? 2 ** 17 : 10) * h * (1 + rnd());
  };
  const k1 = shape.k + 1;
  for (let i = 0; i < shape.claims; i++) for (let t = 0; t < shape.mergeDims; t++) nodes[i * k1 + t] = value(t);
  return nodes;
}

/** Every claim's merge neighbours are the live claims within the radius, every pair tested. */
function expectAllPairsNeighbours(shape: OperatorShape, params: GraphOperatorParams, st: StructuredGraphState): void {
  const isLive = (i: number) => structuredValue(shape, st, shape.edgeOffset + i * shape.nmax + i) !== 0;
  const h2 = params.mergeRadius * params.mergeRadius;
  const k1 = shape.k + 1;
  const nodes = st.nodes;
  for (let i = 0; i < shape.claims; i++) {
    const expected: number[] = [];
    if (isLive(i))
      for (let j = 0; j < shape.claims; j++) {
        if (j === i || !isLive(j)) continue;
        let r2 = 0;
        for (let t = 0; t < shape.mergeDims; t++) {
          const d = nodes[j * k1 + t]! - nodes[i * k1 + t]!;
          r2 += d * d;
        }
        if (r2 < h2) expected.push(j);
      }
    expect(structuredMergeNeighbours(shape, params, st, i), `claim ${i}`).toEqual(expected);
  }
}

/** Every claim's merge neighbours in `a` equal those in `b`. */
function expectSameNeighbours(
  shape: OperatorShape,
  params: GraphOperatorParams,
  a: StructuredGraphState,
  b: StructuredGraphState,
): void {
  for (let i = 0; i < shape.claims; i++)
    expect(structuredMergeNeighbours(shape, params, a, i), `claim ${i}`).toEqual(
      structuredMergeNeighbours(shape, params, b, i),
    );
}

describe('structured state: φ, φ⁻¹ and reads as on the dense θ', () => {
  test.prop([arbGraphDoc], { numRuns: 100 })(
    'φ straight into the structured state is φ; φ⁻¹ decodes the same graph',
    (doc) => {
      const graph = parseGraph(doc);
      const lay = createLayout(graph);
      const shape = operatorShape(lay);
      const theta = embed(graph, lay);
      const st = embedStructured(graph, lay, shape, DEFAULT_PARAMS);
      expect(bits(structuredToDense(shape, st), theta)).toBe(true);
      expect(decodeStructured(st, lay)).toEqual(decode(theta, lay));
      const pairs: Array<[number, number]> = [];
      theta.forEach((v, i) => v !== 0 && pairs.push([i, v]));
      expect(structuredEntries(shape, st)).toEqual(pairs);
      for (let i = 0; i < lay.dim; i++) expect(Object.is(structuredValue(shape, st, i), theta[i])).toBe(true);
      // the export leaves zeros out, −0 among them (as the dense export does): equal up to the sign of 0
      const back = structuredToDense(shape, structuredFromEntries(shape, DEFAULT_PARAMS, pairs));
      expect(back.every((x, i) => x === theta[i])).toBe(true);
    },
  );

  it('φ⁻¹ of a state that is no graph names the coordinate as the dense decoder does', () => {
    const graph = parseGraph(smallGraphDoc());
    const lay = createLayout(graph);
    const shape = operatorShape(lay);
    const theta = embed(graph, lay);
    const c1 = 2; // confidence of c1 (k = 2)
    theta[c1] = 1.5;
    const st = structuredFromDense(shape, DEFAULT_PARAMS, theta);
    const dense = (() => {
      try {
        decode(theta, lay);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(dense).toMatch(/^theta\[2\] \(c\[c1\]\)/);
    expect(() => decodeStructured(st, lay)).toThrow(dense!);
  });

  it('a copy is independent; stepping it leaves the original unchanged', () => {
    const sc = syntheticScenario(40, { items: 3 });
    const st = structuredFromDense(sc.shape, DEFAULT_PARAMS, densify(sc.shape, sc.state));
    const before = structuredToDense(sc.shape, st);
    const c = copyStructured(st);
    structuredStep(sc.shape, DEFAULT_PARAMS, c, sc.items[1]!);
    expect(bits(structuredToDense(sc.shape, st), before)).toBe(true);
    expect(bits(structuredToDense(sc.shape, c), before)).toBe(false);
  });

  test.prop([...mergeDraws], { numRuns: 30 })(
    'the merge neighbour lists kept up to date by the steps equal those built afresh',
    (draws, scale, seed) => {
      const { sc, params, st } = wideMerge(scale, seed);
      for (const d of draws) {
        structuredStep(sc.shape, params, st, sc.items[d % sc.items.length]!);
        expectSameNeighbours(sc.shape, params, st, copyStructured(st)); // the copy builds its lists afresh
      }
    },
  );

  test.prop([...mergeDraws, fc.boolean()], { numRuns: 25 })(
    'every step of a run equals the reference operators on the dense θ (Ω and θ′ bit for bit; CSC as rebuilt)',
    (draws, scale, seed, absorbing) => {
      const { sc, params: wide } = wideMerge(scale, seed);
      const params = absorbing ? { ...wide, absorbRadius: wide.mergeRadius / 2 } : wide;
      let theta = densify(sc.shape, sc.state);
      const st = structuredFromDense(sc.shape, params, theta);
      for (const d of draws) {
        const item = sc.items[d % sc.items.length]!;
        const next = referenceConsolidate(sc.shape, params, referenceExpand(item, theta));
        const generic = referenceDistance(next, referenceExpand(item, referenceConsolidate(sc.shape, params, theta)));
        expect(Object.is(structuredStep(sc.shape, params, st, item), generic)).toBe(true);
        expect(bits(structuredToDense(sc.shape, st), next)).toBe(true);
        // the edges inserted in place: the by-column index is the one built from the rows
        const rebuilt = structuredFromSparse(sc.shape, params, { nodes: st.nodes, edges: st.indexed().edges });
        const [kept, built] = [st.indexed(), rebuilt.indexed()];
        for (let t = 0; t < 3; t++) {
          for (const key of ['rowStart', 'cols', 'vals'] as const)
            expect([...kept.edges[t]![key]], `block ${t} ${key}`).toEqual([...built.edges[t]![key]]);
          for (const key of ['colStart', 'rows', 'vals'] as const)
            expect([...kept.columns[t]![key]], `block ${t} columns ${key}`).toEqual([...built.columns[t]![key]]);
        }
        theta = next;
      }
    },
  );

  test.prop(
    [
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat(11), fc.nat(11), fc.double({ min: -2, max: 2, noNaN: true })),
        {
          maxLength: 120,
        },
      ),
    ],
    { numRuns: 100 },
  )('one slot’s structure sums formed again equal the pass over all rows (diagonals, any weights)', (edges) => {
    const shape = syntheticScenario(12, { items: 1 }).shape;
    const n = shape.nmax;
    const pairs = edges.map(([t, j, i, w]): [number, number] => [shape.edgeOffset + t * n * n + j * n + i, w]);
    const st = structuredFromEntries(shape, DEFAULT_PARAMS, pairs);
    const source = csrEdges(st.indexed());
    const fresh = structureSums(source);
    const slot = structureSums(source);
    for (const key of Object.keys(slot) as (keyof StructureSums)[]) slot[key].fill(NaN);
    for (let x = 0; x < n; x++) slotStructure(slot, x, source);
    for (const key of Object.keys(fresh) as (keyof StructureSums)[])
      for (let x = 0; x < n; x++) expect(Object.is(slot[key][x], fresh[key][x]), `${key}[${x}]`).toBe(true);
  });

  test.prop([...mergeDraws, fc.boolean()], { numRuns: 30 })(
    'the structure sums kept across steps equal a pass over the edges, bit for bit',
    (draws, scale, seed, absorbing) => {
      const { sc, params: wide } = wideMerge(scale, seed);
      // with the absorbing merge Q writes edges too (the diagonals among them)
      const params = absorbing ? { ...wide, absorbRadius: wide.mergeRadius / 2 } : wide;
      const st = structuredFromDense(sc.shape, params, densify(sc.shape, sc.state));
      for (const d of draws) {
        structuredStep(sc.shape, params, st, sc.items[d % sc.items.length]!);
        const fresh = structureSums(csrEdges(st.indexed()));
        const kept = st.sums!;
        for (const key of Object.keys(fresh) as (keyof StructureSums)[])
          for (let x = 0; x < sc.shape.nmax; x++)
            if (!st.staleSums.has(x)) expect(Object.is(kept[key][x], fresh[key][x]), `${key}[${x}]`).toBe(true);
      }
    },
  );

  test.prop([...mergeDraws], { numRuns: 20 })(
    'a copy with its neighbour lists steps as the original, and both stay independent',
    (draws, scale, seed) => {
      const { sc, params, st } = wideMerge(scale, seed);
      structuredStep(sc.shape, params, st, sc.items[draws[0]! % sc.items.length]!);
      const before = structuredToDense(sc.shape, st);
      const c = copyStructured(st, true);
      const fresh = copyStructured(st); // rebuilds its lists on first use
      for (const d of draws) {
        const item = sc.items[d % sc.items.length]!;
        const omega = structuredStep(sc.shape, params, c, item);
        expect(Object.is(omega, structuredStep(sc.shape, params, fresh, item))).toBe(true);
        expect(bits(structuredToDense(sc.shape, c), structuredToDense(sc.shape, fresh))).toBe(true);
        expectSameNeighbours(sc.shape, params, c, fresh);
      }
      expect(bits(structuredToDense(sc.shape, st), before)).toBe(true);
      // the original's lists and grid are its own: they still give its own steps
      const again = copyStructured(st);
      const item = sc.items[draws.at(-1)! % sc.items.length]!;
      expect(Object.is(structuredStep(sc.shape, params, st, item), structuredStep(sc.shape, params, again, item))).toBe(
        true,
      );
      expectSameNeighbours(sc.shape, params, st, again);
    },
  );

  test.prop(
    [
      fc.integer({ min: 2, max: 9 }),
      fc.constantFrom(0.05, 0.3, 1, 3),
      fc.constantFrom(...PLACEMENTS),
      fc.integer({ min: 0, max: 1000 }),
    ],
    { numRuns: 60 },
  )(
    'the neighbour lists built at once are every pair within the merge radius (all pairs tested)',
    (k, h, how, seed) => {
      const sc = syntheticScenario(120, { k, items: 2, seed });
      const params = { ...DEFAULT_PARAMS, mergeRadius: h };
      const st = structuredFromSparse(sc.shape, params, {
        nodes: placed(sc.shape, h, how, seed),
        edges: sc.state.edges,
      });
      expectAllPairsNeighbours(sc.shape, params, st);
    },
  );

  test.prop(
    [
      fc.constantFrom(0.05, 0.3, 1),
      fc.constantFrom(...PLACEMENTS),
      fc.integer({ min: 0, max: 1000 }),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
    ],
    { numRuns: 40 },
  )(
    'the lists kept by steps that move claims among such placements are every pair within the radius',
    (h, how, seed, draws) => {
      // P_e writes its claims' attributes and Q merges near claims: the moved claims' lists are
      // found again among the claims of their cells (the kept cells of the next attributes,
      // modulo 1024, rule out only pairs two or more cells apart there)
      const sc = syntheticScenario(120, { k: 6, items: 4, seed });
      const params = { ...DEFAULT_PARAMS, mergeRadius: h };
      const st = structuredFromSparse(sc.shape, params, {
        nodes: placed(sc.shape, h, how, seed),
        edges: sc.state.edges,
      });
      structuredMergeNeighbours(sc.shape, params, st, 0); // the lists built before the steps
      for (const d of draws) {
        structuredStep(sc.shape, params, st, sc.items[d]!);
        expectAllPairsNeighbours(sc.shape, params, st);
      }
    },
  );

  it('a copy into an earlier copy reuses its storage and steps exactly as the original', () => {
    const sc = syntheticScenario(40, { items: 3 });
    const st = structuredFromDense(sc.shape, DEFAULT_PARAMS, densify(sc.shape, sc.state));
    const first = copyStructuredInto(st, null);
    structuredStep(sc.shape, DEFAULT_PARAMS, st, sc.items[2]!);
    const nodes = first.nodes;
    const again = copyStructuredInto(st, first);
    expect(again).toBe(first);
    expect(again.nodes).toBe(nodes); // same length: overwritten in place
    expect(bits(structuredToDense(sc.shape, again), structuredToDense(sc.shape, st))).toBe(true);
    // a copy for reading holds the rows only (and fewer bytes); stepped, it forms the index from them
    expect(again.blocks.every((b) => b.csc === null)).toBe(true);
    expect(again.bytes).toBeLessThan(st.bytes);
    // the copy rebuilds its merge neighbours on first use: both step to the same state and Ω
    const a = structuredStep(sc.shape, DEFAULT_PARAMS, st, sc.items[1]!);
    const b = structuredStep(sc.shape, DEFAULT_PARAMS, again, sc.items[1]!);
    expect(Object.is(a, b)).toBe(true);
    expect(bits(structuredToDense(sc.shape, again), structuredToDense(sc.shape, st))).toBe(true);
    const [x, y] = [again.indexed().columns, st.indexed().columns];
    for (let t = 0; t < 3; t++)
      for (const key of ['colStart', 'rows', 'vals'] as const) expect([...x[t]![key]]).toEqual([...y[t]![key]]);
    expect(again.bytes).toBe(st.bytes);
  });

  it('a copy into an earlier copy whose edges grew reuses the room its buffers have, and stays independent', () => {
    const sc = syntheticScenario(40, { items: 6 });
    const st = structuredFromDense(sc.shape, DEFAULT_PARAMS, densify(sc.shape, sc.state));
    let copy = copyStructuredInto(st, null);
    const grown = new Set<number>();
    const reused = new Set<number>();
    for (const item of sc.items) {
      const before = copy.blocks.map((b) => [b.cols.length, b.cols.buffer, b.vals.buffer] as const);
      structuredStep(sc.shape, DEFAULT_PARAMS, st, item);
      const again = copyStructuredInto(st, copy);
      expect(again).toBe(copy);
      again.blocks.forEach((b, t) => {
        const [len, cols, vals] = before[t]!;
        if (b.cols.length === len) return;
        grown.add(t);
        // an array whose old buffer holds the new length is a view on that buffer
        if (cols.byteLength >= b.cols.byteLength) {
          expect(b.cols.buffer).toBe(cols);
          reused.add(t);
        }
        if (vals.byteLength >= b.vals.byteLength) expect(b.vals.buffer).toBe(vals);
      });
      expect(bits(structuredToDense(sc.shape, again), structuredToDense(sc.shape, st))).toBe(true);
      copy = again;
    }
    // the items add edges, past the exact-size first copy and then within the slack of the regrown one
    expect(grown.size).toBeGreaterThan(0);
    expect(reused.size).toBeGreaterThan(0);
    // stepping the copy (its edges grow in its own buffers) leaves the original as it was
    const original = structuredToDense(sc.shape, st);
    structuredStep(sc.shape, DEFAULT_PARAMS, copy, sc.items[0]!);
    structuredStep(sc.shape, DEFAULT_PARAMS, copy, sc.items[3]!);
    expect(bits(structuredToDense(sc.shape, st), original)).toBe(true);
  });

  it('a step whose item adds a claim (the entry confidence acts): P_e, its residual, Ω and θ′ as on the dense θ', () => {
    const sc = syntheticScenario(40, { items: 3 });
    const item = sc.items[0]!;
    const theta = densify(sc.shape, sc.state);
    expect(theta[item.entry[0]!]).toBe(0); // its claim's slot is empty: P_e writes c₀ there
    const expanded = referenceExpand(item, theta);
    const st = structuredFromDense(sc.shape, DEFAULT_PARAMS, theta);
    expect(Object.is(structuredResidual(sc.shape, st, item), expansionResidual(item, theta))).toBe(true);
    const ex = copyStructured(st);
    structuredExpand(sc.shape, DEFAULT_PARAMS, ex, item);
    expect(bits(structuredToDense(sc.shape, ex), expanded)).toBe(true);
    const omega = structuredStep(sc.shape, DEFAULT_PARAMS, st, item);
    const next = referenceConsolidate(sc.shape, DEFAULT_PARAMS, expanded);
    const generic = referenceDistance(
      next,
      referenceExpand(item, referenceConsolidate(sc.shape, DEFAULT_PARAMS, theta)),
    );
    expect(Object.is(omega, generic)).toBe(true);
    expect(bits(structuredToDense(sc.shape, st), next)).toBe(true);
  });

  it('reads outside [0, d) and bad entries are refused naming the argument', () => {
    const sc = syntheticScenario(24, { items: 2 });
    const st = structuredFromDense(sc.shape, DEFAULT_PARAMS, densify(sc.shape, sc.state));
    expect(() => structuredValue(sc.shape, st, sc.shape.dim)).toThrow(/^index = \d+: must be an integer in/);
    expect(() => structuredFromEntries(sc.shape, DEFAULT_PARAMS, [[0, NaN]])).toThrow(/^entries\[0\]\[1\] = NaN/);
  });
});

describe('coordinate sets', () => {
  it('an edge block is a range: counted, indexed and tested in O(1), enumerated only on request', () => {
    const lay = createLayout(parseGraph(smallGraphDoc()));
    const set = edgeBlock(lay, 'Requires');
    const n = lay.nmax;
    expect(coordinateCount(set)).toBe(n * n);
    expect(describeCoordinate(lay, coordinateAt(set, 0))).toMatch(/^Requires\[/);
    expect(coordinateHas(set, coordinateAt(set, n * n - 1))).toBe(true);
    expect(coordinateHas(set, coordinateAt(set, n * n - 1) + 1)).toBe(false);
    expect(coordinateArray(set)).toHaveLength(n * n);
    expect(() => coordinateArray(set, 'edges:Requires', 10)).toThrow(
      /^edges:Requires = "36 coordinates": is too large/,
    );
  });

  it('validation: lists and typed arrays without duplicates, ranges inside [0, d)', () => {
    expect(checkCoordinateSet('w', [3, 1], 5)).toEqual([3, 1]);
    expect(checkCoordinateSet('w', Int32Array.of(0, 4), 5)).toEqual(Int32Array.of(0, 4));
    expect(() => checkCoordinateSet('w', [1, 2, 1], 5)).toThrow(/^w\[2\] = 1: is a duplicate index/);
    expect(() => checkCoordinateSet('w', { start: 2, count: 3, stride: 2 }, 5)).toThrow(/^w.count = 3: runs past/);
    expect(checkCoordinateSet('w', { start: 1, count: 2, stride: 3 }, 5)).toEqual({ start: 1, count: 2, stride: 3 });
    expect(() => checkCoordinateSet('w', 'x', 5)).toThrow(/^w = "x"/);
  });

  test.prop([fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 5 })])(
    'a range and its enumeration agree on count, order and membership',
    (start, count, stride) => {
      const r = { start, count, stride };
      const arr = coordinateArray(r);
      expect(arr).toHaveLength(coordinateCount(r));
      arr.forEach((x, i) => expect(coordinateAt(r, i)).toBe(x));
      for (let x = 0; x < start + count * stride + 2; x++) expect(coordinateHas(r, x)).toBe(arr.includes(x));
    },
  );
});
