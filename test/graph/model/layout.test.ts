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
import { arbGraphDoc, smallGraphDoc } from '../fixtures.js';

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
      /theta\[2\] \(c\[c1\]\) = 1\.5: a present node needs confidence in \(0, 1\]/,
    );
    const t2 = embed(g, layout);
    t2[edgeIndex(layout, 'Supports', 0, 2)] = 0.5; // into the empty slot c:new
    expect(() => decode(t2, layout)).toThrow(/Supports\[c1 -> c:new\]\) = 0\.5: an edge joins an empty slot/);
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
