/** Random valid graphs for property tests, a small hand-built graph, and an item that adds nodes of every type. */
import { fc } from '@fast-check/vitest';
import { EDGE_TYPES, edgeTypeFits, type EdgeType, type NodeType } from '../../src/graph/model/model.js';

/** A small valid graph document (two claims that contradict, one question with an answer). */
export function smallGraphDoc(): Record<string, unknown> {
  return {
    k: 2,
    capacities: { claims: 3, answers: 2, questions: 1 },
    nodes: [
      { id: 'c1', type: 'claim', attributes: [0.1, 0.2], confidence: 0.9 },
      { id: 'c2', type: 'claim', attributes: [0.5, 0.2], confidence: 0.7 },
      { id: 'q', type: 'question', attributes: [0, 1], confidence: 1 },
      { id: 'a', type: 'answer', question: 'q', attributes: [1, 0], confidence: 0.3 },
    ],
    edges: [
      { type: 'Supports', source: 'c1', target: 'c1', weight: 0.9 },
      { type: 'Supports', source: 'c1', target: 'a', weight: 0.8 },
      { type: 'Contradicts', source: 'c2', target: 'c1', weight: 0.5 },
      { type: 'Requires', source: 'a', target: 'q', weight: 1 },
    ],
  };
}

/** The small graph (k = 2: claims c1, c2; question q with answer a) with room for what {@link openItem} adds. */
export const openGraphDoc = (): Record<string, unknown> => ({
  ...smallGraphDoc(),
  capacities: { claims: 4, answers: 4, questions: 3 },
});

/** One item adding a claim, an answer to a new sub-question of q, that sub-question, and an answer to q. */
export const openItem = () => ({
  id: 'e:open',
  strength: 0.6,
  claims: [{ id: 'c:pub', attributes: [0.3, 0.7], support: 0.8, source: 'catalogue' }],
  answers: [
    { id: 'a:pub:acme', question: 'q:pub', attributes: [0.4, 0.1], text: 'Acme Press' },
    { id: 'a:other', question: 'q', attributes: [0.6, 0.5] },
  ],
  questions: [{ id: 'q:pub', attributes: [0.2, 0.9], text: 'Who published it?', parent: 'q' }],
  edges: [
    { type: 'Supports', source: 'c:pub', target: 'a:pub:acme', weight: 0.8 },
    { type: 'Requires', source: 'a:pub:acme', target: 'q:pub', weight: 1 },
    { type: 'Requires', source: 'c:pub', target: 'q:pub', weight: 1 },
    { type: 'Requires', source: 'a', target: 'q:pub', weight: 1 },
  ],
});

const unit = fc.double({ min: 0, max: 1, minExcluded: true, noNaN: true });
const attr = fc.double({ min: -10, max: 10, noNaN: true });

/** Arbitrary valid graph documents (any k in 1..3, capacities with spare slots). */
export const arbGraphDoc = fc
  .record({
    k: fc.integer({ min: 1, max: 3 }),
    nc: fc.integer({ min: 0, max: 4 }),
    na: fc.integer({ min: 0, max: 3 }),
    nq: fc.integer({ min: 0, max: 3 }),
    spare: fc.tuple(fc.nat(2), fc.nat(2), fc.nat(2)),
    attrs: fc.array(attr, { minLength: 30, maxLength: 30 }),
    confs: fc.array(unit, { minLength: 10, maxLength: 10 }),
    picks: fc.array(fc.record({ type: fc.nat(2), s: fc.nat(20), t: fc.nat(20), w: unit }), { maxLength: 25 }),
  })
  .map((r) => {
    const na = r.nq === 0 ? 0 : r.na;
    const ids: Array<{ id: string; type: NodeType }> = [];
    for (let i = 0; i < r.nc; i++) ids.push({ id: `c${i}`, type: 'claim' });
    for (let i = 0; i < r.nq; i++) ids.push({ id: `q${i}`, type: 'question' });
    for (let i = 0; i < na; i++) ids.push({ id: `a${i}`, type: 'answer' });
    const groupSize = (qi: number) => Array.from({ length: na }, (_, i) => i % r.nq).filter((x) => x === qi).length;
    let ai = 0;
    const nodes = ids.map((n, idx) => {
      const attributes = Array.from({ length: r.k }, (_, j) => r.attrs[(idx * 3 + j) % 30]!);
      const node: Record<string, unknown> = { id: n.id, type: n.type, attributes, confidence: r.confs[idx % 10]! };
      if (n.type === 'answer') {
        const qi = ai++ % r.nq;
        node.question = `q${qi}`;
        node.confidence = Math.max(r.confs[idx % 10]! / groupSize(qi), Number.MIN_VALUE); // never underflow to 0
      }
      return node;
    });
    const edges: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    for (const p of r.picks) {
      if (ids.length === 0) break;
      const type: EdgeType = EDGE_TYPES[p.type]!;
      const s = ids[p.s % ids.length]!;
      const t = ids[p.t % ids.length]!;
      if (!edgeTypeFits(type, s.type, t.type, s.id === t.id) || (s.id === t.id && type !== 'Supports')) continue;
      const key = `${type} ${s.id} ${t.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push({ type, source: s.id, target: t.id, weight: p.w });
    }
    return {
      k: r.k,
      capacities: { claims: r.nc + r.spare[0], answers: na + r.spare[1], questions: r.nq + r.spare[2] + 1 },
      nodes,
      edges,
    };
  });

/**
 * Arbitrary graph documents with pending edges: a random valid graph ({@link arbGraphDoc}) from
 * which some claims and answers are taken out and reserved in the layout instead (nodes evidence
 * will add); the edges that touch them become pending edges.
 */
export const arbPendingGraph = fc
  .tuple(arbGraphDoc, fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
  .map(([doc, drop]) => {
    type Node = { id: string; type: NodeType; question?: string };
    type Edge = { source: string; target: string };
    const nodes = doc.nodes as unknown as Node[];
    const out = new Set(nodes.filter((n, i) => n.type !== 'question' && drop[i % 20]).map((n) => n.id));
    const edges = doc.edges as unknown as Edge[];
    const touches = (e: Edge) => out.has(e.source) || out.has(e.target);
    const reserved = nodes
      .filter((n) => out.has(n.id))
      .map((n) => ({ id: n.id, type: n.type, ...(n.question !== undefined ? { question: n.question } : {}) }));
    return {
      doc: {
        ...doc,
        nodes: doc.nodes.filter((n) => !out.has((n as unknown as Node).id)),
        edges: edges.filter((e) => !touches(e)),
        pendingEdges: edges.filter(touches),
      },
      reserved,
    };
  });
