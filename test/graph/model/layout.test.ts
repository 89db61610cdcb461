import { coordinateArray } from '../../../src/system/coordinates.js';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  attributeBlock,
  attributeIndices,
  canonicalGraph,
  confidenceBlock,
  createLayout,
  decode,
  describeCoordinate,
  edgeBlock,
  edgeIndex,
  embed,
  nodeSubspace,
} from '../../../src/graph/model/layout.js';
import { parseGraph } from '../../../src/graph/model/schema.js';
import { operatorShape } from '../../../src/graph/model/shape.js';
import { DEFAULT_PARAMS } from '../../../src/graph/operators/params.js';
import { decodeStructured, embedStructured } from '../../../src/graph/state/state.js';
import { arbGraphDoc, arbPendingGraph, openGraphDoc, smallGraphDoc } from '../fixtures.js';
import { AgentState } from '../../../src/graph/agent/agent.js';

describe('layout and embedding (Def. 2.2)', () => {
  const g = parseGraph(smallGraphDoc());
  const layout = createLayout(g, [{ id: 'c:new', type: 'claim' }]);

  it('d = (k+1)·Nmax + 3·Nmax² and slots are in canonical type order', () => {
    expect(layout.nmax).toBe(6);
    expect(layout.dim).toBe(3 * 6 + 3 * 36);
    expect(layout.slots.map((s) => s.id)).toEqual(['c1', 'c2', 'c:new', 'a', null, 'q']);
    expect(layout.slots.map((s) => s.type)).toEqual(['claim', 'claim', 'claim', 'answer', 'answer', 'question']);
  });

  it('embeds each node as [ℓ, c] and each edge at type-major (row = source, col = target)', () => {
    const theta = embed(g, layout);
    expect(Array.from(theta.subarray(0, 3))).toEqual([0.1, 0.2, 0.9]);
    expect(theta[edgeIndex(layout, 'Supports', 0, 3)]).toBe(0.8);
    expect(theta[layout.edgeOffset + 2 * 36 + 1 * 6 + 0]).toBe(0.5); // Contradicts c2 -> c1
    let nonzero = 0;
    for (const x of theta) if (x !== 0) nonzero++;
    expect(nonzero).toBe(6 + 4 + 4); // six non-zero attributes, four confidences, four edges
  });

  it('names coordinates for people', () => {
    expect(describeCoordinate(layout, 2)).toBe('c[c1]');
    expect(describeCoordinate(layout, 1)).toBe('l[c1][1]');
    expect(describeCoordinate(layout, edgeIndex(layout, 'Supports', 0, 3))).toBe('Supports[c1 -> a]');
    expect(describeCoordinate(layout, 4 * 3 + 2)).toBe('c[answer slot 1 (empty)]');
    expect(describeCoordinate(layout, layout.dim - 1)).toBe('Contradicts[q -> q]');
    expect(() => describeCoordinate(layout, layout.dim)).toThrow(/index = 126: must be in \[0, 125\]/);
  });

  it('named subspaces partition the coordinates', () => {
    const all = [
      ...attributeBlock(layout),
      ...confidenceBlock(layout),
      ...coordinateArray(edgeBlock(layout, 'Supports')),
      ...coordinateArray(edgeBlock(layout, 'Requires')),
      ...coordinateArray(edgeBlock(layout, 'Contradicts')),
      ...attributeIndices(layout),
    ].sort((a, b) => a - b);
    expect(all.length).toBe(layout.dim + layout.k * layout.nmax);
    expect([...new Set(all)]).toEqual(Array.from({ length: layout.dim }, (_, i) => i));
    expect([...attributeIndices(layout)]).toEqual(attributeBlock(layout));
    expect(nodeSubspace(layout, 'q')).toEqual([15, 16, 17]);
  });

  it('decode names the offending coordinate of a θ that is no graph', () => {
    const theta = embed(g, layout);
    theta[2] = 1.5;
    expect(() => decode(theta, layout)).toThrow(
      /theta\[2\] \(c\[c1\]\) = 1\.5: a present node needs confidence in \[0, 1\]/,
    );
    const t2 = embed(g, layout);
    t2[edgeIndex(layout, 'Supports', 0, 4)] = 0.5; // into the empty answer slot no node will fill
    expect(() => decode(t2, layout)).toThrow(
      /Supports\[c1 -> answer slot 1 \(empty\)\]\) = 0\.5: an edge joins an empty slot that no node of the layout will fill/,
    );
    const t3 = embed(g, layout);
    t3[edgeIndex(layout, 'Requires', 2, 5)] = 1.5; // a pending edge is checked like any edge
    expect(() => decode(t3, layout)).toThrow(/Requires\[c:new -> q\]\) = 1\.5: an edge weight must lie in \(0, 1\]/);
    t3[edgeIndex(layout, 'Requires', 2, 5)] = 0;
    t3[edgeIndex(layout, 'Contradicts', 3, 2)] = 0.5; // answer — pending claim: no Contradicts edge fits
    expect(() => decode(t3, layout)).toThrow(
      /Contradicts\[a -> c:new\]\) = 0\.5: a pending Contradicts edge cannot join/,
    );
    expect(() => decode(new Float64Array(3), layout)).toThrow(/theta = Float64Array\(3\): must have length 126/);
  });

  it('reserves slots for answers and questions evidence adds: an answer joins its question, a sub-question keeps its parent', () => {
    const big = parseGraph({ ...smallGraphDoc(), capacities: { claims: 3, answers: 3, questions: 3 } });
    const lay = createLayout(big, [
      { id: 'a:new', type: 'answer', question: 'q:sub' },
      { id: 'q:sub', type: 'question', parent: 'q', text: 'Which one?' },
      { id: 'q:subsub', type: 'question', parent: 'q:sub' },
    ]);
    const slot = (id: string) => lay.slots[lay.slotOf.get(id)!]!;
    expect(slot('a:new').questionSlot).toBe(lay.slotOf.get('q:sub'));
    expect(slot('q:sub')).toMatchObject({ type: 'question', parentSlot: lay.slotOf.get('q'), text: 'Which one?' });
    expect(slot('q:subsub').parentSlot).toBe(lay.slotOf.get('q:sub'));
    expect(slot('q').parentSlot).toBeUndefined();
    expect(() => createLayout(big, [{ id: 'q:x', type: 'question', parent: 'c1' }])).toThrow(
      /^reserved\[0\]\.parent = "c1": names no question node/,
    );
    expect(() =>
      createLayout(big, [
        { id: 'q:x', type: 'question', parent: 'q:y' },
        { id: 'q:y', type: 'question', parent: 'q:x' },
      ]),
    ).toThrow(/^reserved\[0\]\.parent = "q:y": leads back to q:x \(a cycle\)/);
  });

  test.prop([arbGraphDoc], { numRuns: 200 })('φ⁻¹(φ(S)) = S exactly for random valid graphs', (doc) => {
    const graph = parseGraph(doc);
    const lay = createLayout(graph);
    const theta = embed(graph, lay);
    expect(theta).toHaveLength(lay.dim);
    expect(decode(theta, lay)).toEqual(canonicalGraph(graph, lay));
    // and φ(φ⁻¹(θ)) = θ bit for bit
    expect(embed(decode(theta, lay), lay)).toEqual(theta);
  });

  it('an edge into a slot reserved for a node still to come is a pending edge: decoded, listed, embedded back', () => {
    const theta = embed(g, layout);
    theta[edgeIndex(layout, 'Supports', 0, 2)] = 0.5; // c1 -> c:new, whose node is not there yet
    theta[edgeIndex(layout, 'Contradicts', 2, 1)] = 0.25;
    const d = decode(theta, layout);
    expect(d.nodes.map((n) => n.id)).toEqual(['c1', 'c2', 'a', 'q']);
    expect(d.edges).toEqual(canonicalGraph(g, layout).edges);
    expect(d.pendingEdges).toEqual([
      { type: 'Supports', source: 'c1', target: 'c:new', weight: 0.5 },
      { type: 'Contradicts', source: 'c:new', target: 'c2', weight: 0.25 },
    ]);
    expect(embed(d, layout)).toEqual(theta);
    expect(decode(embed(g, layout), layout)).not.toHaveProperty('pendingEdges');
  });

  it("a question's resolution support written before the question appears is a pending Supports self-edge", () => {
    const open = parseGraph(openGraphDoc());
    const lay = createLayout(open, [{ id: 'q:new', type: 'question' }]);
    const q = lay.slotOf.get('q:new')!;
    const theta = embed(open, lay);
    theta[edgeIndex(lay, 'Supports', q, q)] = 0.6;
    const d = decode(theta, lay);
    expect(d.pendingEdges).toEqual([{ type: 'Supports', source: 'q:new', target: 'q:new', weight: 0.6 }]);
    expect(embed(d, lay)).toEqual(theta);
    // from one question to another it fits no rule, pending or not
    theta[edgeIndex(lay, 'Supports', lay.slotOf.get('q')!, q)] = 0.5;
    expect(() => decode(theta, lay)).toThrow(/Supports\[q -> q:new\]\) = 0\.5: a pending Supports edge cannot join/);
  });

  it('embed refuses a pending edge the layout has no slot for, or whose slots do not fit its type', () => {
    const doc = {
      ...smallGraphDoc(),
      pendingEdges: [{ type: 'Supports', source: 'c1', target: 'c:other', weight: 0.5 }],
    };
    expect(() => embed(parseGraph(doc), layout)).toThrow(
      /^graph\.pendingEdges\[0\]\.target = "c:other": is not a node of the layout/,
    );
    const lay2 = createLayout(g, [{ id: 'a:new', type: 'answer', question: 'q' }]);
    const doc2 = {
      ...smallGraphDoc(),
      pendingEdges: [{ type: 'Requires', source: 'c1', target: 'a:new', weight: 0.5 }],
    };
    expect(() => embed(parseGraph(doc2), lay2)).toThrow(
      /^graph\.pendingEdges\[0\]\.type = "Requires": cannot run from claim slot "c1" to answer slot "a:new"/,
    );
  });

  test.prop([arbPendingGraph], { numRuns: 200 })(
    'with pending edges: φ⁻¹(φ(S)) = S and φ(φ⁻¹(θ)) = θ exactly, dense and structured',
    ({ doc, reserved }) => {
      const graph = parseGraph(doc);
      const lay = createLayout(graph, reserved);
      const theta = embed(graph, lay);
      const back = decode(theta, lay);
      expect(back).toEqual(canonicalGraph(graph, lay));
      expect(back.pendingEdges?.length ?? 0).toBe(doc.pendingEdges.length);
      expect(embed(back, lay)).toEqual(theta);
      const shape = operatorShape(lay);
      const st = embedStructured(graph, lay, shape, DEFAULT_PARAMS);
      expect(decodeStructured(st, lay)).toEqual(back);
    },
  );

  test.prop([arbGraphDoc])('empty slots are exactly zero', (doc) => {
    const graph = parseGraph(doc);
    const lay = createLayout(graph);
    const theta = embed(graph, lay);
    lay.slots.forEach((s, i) => {
      if (s.id !== null) return;
      for (let j = 0; j <= lay.k; j++) expect(Object.is(theta[i * (lay.k + 1) + j], 0)).toBe(true);
    });
  });
});
void fc;

describe('a node Q consolidated to zero confidence', () => {
  // one question nothing requires: its openness target is exactly 0 (gate 1 − e^(−κ_q/s) with κ_q = 0)
  const lone = {
    k: 2,
    capacities: { claims: 1, answers: 0, questions: 1 },
    nodes: [{ id: 'q', type: 'question', attributes: [0.5, 0.5], confidence: 1 }],
    edges: [],
  };

  it('λ = 1 gives confidence exactly 0 in one step; the node stays present and decodes, and the graph embeds back to θ', () => {
    const s = AgentState.fromGraph(lone, { params: { lambda: 1 } });
    s.consolidate();
    const g = decode(s.theta, s.layout);
    expect(g.nodes).toMatchObject([{ id: 'q', confidence: 0, attributes: [0.5, 0.5] }]);
    expect(embed(parseGraph(g), s.layout)).toEqual(s.theta);
  });

  it('λ = 1/2 halves it until it underflows to 0 (after 1075 halvings), and the state still decodes', () => {
    const s = AgentState.fromGraph(lone);
    for (let t = 0; t < 1100; t++) s.consolidate();
    expect(decode(s.theta, s.layout).nodes[0]!.confidence).toBe(0);
  });

  it('a graph document may hold confidence 0 only beside a non-zero attribute (all zero is an empty slot in θ)', () => {
    expect(() => parseGraph({ ...lone, nodes: [{ ...lone.nodes[0]!, confidence: 0 }] })).not.toThrow();
    expect(() => parseGraph({ ...lone, nodes: [{ ...lone.nodes[0]!, attributes: [0, 0], confidence: 0 }] })).toThrow(
      /graph\.nodes\[0\]\.confidence = 0: is 0 with every attribute 0/,
    );
  });
});
