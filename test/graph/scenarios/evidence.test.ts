import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileItem, parseEvidencePool } from '../../../src/graph/scenarios/evidence.js';
import { createScenario, defaultScenario, DEFAULT_SCENARIO_FILES } from '../../../src/graph/scenarios/scenario.js';
import { referenceExpand } from '../../../src/graph/operators/expand.js';
import { confidenceIndex, edgeIndex, nodeOffset } from '../../../src/graph/model/layout.js';
import { GraphFormatError, parseGraph } from '../../../src/graph/model/schema.js';
import { openGraphDoc as graphDoc, openItem, smallGraphDoc } from '../fixtures.js';

/** The GraphFormatError's issues of parsing `items` against the graph. */
function issuesOf(items: unknown[]): Array<{ path: string; message: string }> {
  try {
    parseEvidencePool({ items }, parseGraph(graphDoc()));
  } catch (e) {
    expect(e).toBeInstanceOf(GraphFormatError);
    return (e as GraphFormatError).issues.map((i) => ({ path: i.path, message: i.message }));
  }
  throw new Error('expected a GraphFormatError');
}

describe('evidence items that add answers and questions', () => {
  it('the layout reserves their slots: an answer joins its question’s group, a new question forms one and keeps its parent', () => {
    const sc = createScenario(graphDoc(), { items: [openItem()] });
    const { layout, shape } = sc;
    const slot = (id: string) => layout.slotOf.get(id)!;
    expect(layout.slots[slot('a:pub:acme')]).toMatchObject({ type: 'answer', questionSlot: slot('q:pub') });
    expect(layout.slots[slot('a:pub:acme')]!.text).toBe('Acme Press');
    expect(layout.slots[slot('q:pub')]).toMatchObject({ type: 'question', parentSlot: slot('q') });
    expect(shape.groups.map((g) => [g.question, Array.from(g.answers)])).toEqual([
      [slot('q'), [slot('a'), slot('a:other')]],
      [slot('q:pub'), [slot('a:pub:acme')]],
    ]);
    expect(shape.maxAnswersPerQuestion).toBe(2);
    // θ0 = φ(graph): the reserved slots start empty
    for (const id of ['c:pub', 'a:pub:acme', 'a:other', 'q:pub'])
      for (let j = 0; j <= layout.k; j++) expect(sc.theta0[nodeOffset(layout, slot(id)) + j]).toBe(0);
  });

  it('compileItem writes each added node’s attributes at the attribute strength and names its confidence as an entry coordinate', () => {
    const pool = parseEvidencePool({ attributeStrength: 0.5, items: [openItem()] }, parseGraph(graphDoc()));
    const sc = createScenario(graphDoc(), { attributeStrength: 0.5, items: [openItem()] });
    const { layout } = sc;
    const item = compileItem(pool.items[0]!, layout, 0.5);
    const slot = (id: string) => layout.slotOf.get(id)!;
    const written = new Map<number, [number, number]>();
    Array.from(item.footprint).forEach((f, i) => written.set(f, [item.target[i]!, item.rates[i]!]));
    const attr = (id: string, j: number) => written.get(nodeOffset(layout, slot(id)) + j);
    expect(attr('a:pub:acme', 0)).toEqual([0.4, 0.5]);
    expect(attr('a:pub:acme', 1)).toEqual([0.1, 0.5]);
    expect(attr('a:other', 1)).toEqual([0.5, 0.5]);
    expect(attr('q:pub', 0)).toEqual([0.2, 0.5]);
    expect(attr('q:pub', 1)).toEqual([0.9, 0.5]);
    // edges at the item's strength; no Supports diagonal for answers; the question whose answer
    // the item supports gets its resolution support (target 1, rate a_e·w = 0.6·0.8)
    expect(written.get(edgeIndex(layout, 'Requires', slot('a'), slot('q:pub')))).toEqual([1, 0.6]);
    expect(written.get(edgeIndex(layout, 'Supports', slot('q:pub'), slot('q:pub')))).toEqual([1, 0.6 * 0.8]);
    expect(written.has(edgeIndex(layout, 'Supports', slot('a:other'), slot('a:other')))).toBe(false);
    // footprint: 2 attributes + 1 diagonal (claim), 2 + 2 (answers), 2 (question), 4 edges, 1 resolution support
    expect(item.footprint.length).toBe(3 + 4 + 2 + 4 + 1);
    expect(Array.from(item.entry)).toEqual(
      ['c:pub', 'a:pub:acme', 'a:other', 'q:pub'].map((id) => confidenceIndex(layout, slot(id))).sort((x, y) => x - y),
    );
    // the new sub-question is one of the questions the item writes (R(e)): P(e|θ) reads its openness
    expect(item.questionSlots).toEqual([slot('q:pub')]);
  });

  it('an item may only add a question (an open question, nothing else written)', () => {
    const items = [{ id: 'e:ask', strength: 0.5, questions: [{ id: 'q:why', attributes: [0, 1] }] }];
    const pool = parseEvidencePool({ items }, parseGraph(graphDoc()));
    expect(pool.items[0]!.questions).toEqual([{ id: 'q:why', attributes: [0, 1] }]);
    expect(pool.items[0]!.answers).toEqual([]);
    expect(issuesOf([{ id: 'e:none', strength: 0.5 }])).toEqual([
      { path: 'evidence.items[0]', message: 'writes nothing (no claims, answers, questions or edges)' },
    ]);
  });

  it('a node one item adds may be added again by a later item alike (reserved once), not differently', () => {
    const second = { ...openItem(), id: 'e:again', claims: [] };
    const edges = second.edges.filter((e: { source: string }) => e.source !== 'c:pub');
    const sc = createScenario(graphDoc(), { items: [openItem(), { ...second, edges }] });
    expect(sc.layout.slots.filter((s) => s.id === 'a:pub:acme')).toHaveLength(1);
    expect(sc.items.map((it) => it.id)).toEqual(['e:open', 'e:again']);
    const moved = {
      ...second,
      edges,
      answers: second.answers.map((a: { attributes: number[] }) => ({ ...a, attributes: [0, 0] })),
    };
    expect(issuesOf([openItem(), moved])).toContainEqual({
      path: 'evidence.items[1].answers[0].id',
      message: expect.stringMatching(/declared differently by evidence\.items\[0\]\.answers\[0\]/) as unknown as string,
    });
  });

  it('bad answers and questions are refused, each problem with its JSON path', () => {
    const item = openItem() as ReturnType<typeof openItem> & Record<string, unknown>;
    item.answers[0]!.question = 'q:nowhere';
    item.answers[1]!.question = 'c1';
    item.questions.push({ id: 'a', attributes: [0, 0], text: 'x', parent: 'q' });
    item.questions.push({ id: 'q:self', attributes: [0], text: 'x', parent: 'q:self' });
    expect(issuesOf([item])).toEqual([
      { path: 'evidence.items[0].questions[1].id', message: 'duplicate node id "a"' },
      { path: 'evidence.items[0].questions[2].attributes', message: 'has length 1, expected k = 2' },
      { path: 'evidence.items[0].answers[0].question', message: 'names no question "q:nowhere"' },
      { path: 'evidence.items[0].answers[1].question', message: '"c1" is a claim node, not a question' },
      { path: 'evidence.items[0].questions[2].parent', message: 'a question cannot be its own parent' },
    ]);
    // unknown fields and missing ones are schema errors at their path
    const bad = openItem() as unknown as {
      answers: Array<Record<string, unknown>>;
      questions: Array<Record<string, unknown>>;
    };
    bad.answers[0]!.confidence = 0.5;
    delete bad.questions[0]!.attributes;
    expect(issuesOf([bad]).map((i) => i.path)).toEqual([
      'evidence.items[0].answers[0]',
      'evidence.items[0].questions[0].attributes',
    ]);
    // an edge may name a node a pool item adds, and only with a type that fits it
    const wrong = openItem();
    wrong.edges.push({ type: 'Supports', source: 'c:pub', target: 'q:pub', weight: 0.5 });
    expect(issuesOf([wrong])).toEqual([
      {
        path: 'evidence.items[0].edges[4].type',
        message: expect.stringMatching(/^a Supports edge cannot run from claim "c:pub" to question "q:pub"/),
      },
    ]);
  });

  it('a scenario whose pool adds more answers or questions than the graph holds is refused, naming the capacity', () => {
    const small = { ...smallGraphDoc(), capacities: { claims: 4, answers: 2, questions: 2 } };
    expect(() => createScenario(small, { items: [openItem()] })).toThrow(
      /^reserved\[2\] = "a:other": capacity exceeded: more than 2 answer nodes/,
    );
  });
});

/** Question slot → the largest weight > 0 of the item's Supports edges into its answers, read from the pool document. */
function expectedSupport(sc: ReturnType<typeof defaultScenario>, itemId: string): Map<number, number> {
  const { layout } = sc;
  const item = sc.pool.items.find((it) => it.id === itemId)!;
  const answerOf = new Map(sc.graph.nodes.filter((n) => n.type === 'answer').map((n) => [n.id, n.question!]));
  const out = new Map<number, number>();
  for (const e of item.edges) {
    const question = answerOf.get(e.target);
    if (e.type !== 'Supports' || question === undefined || e.weight === 0) continue;
    const q = layout.slotOf.get(question)!;
    out.set(q, Math.max(out.get(q) ?? 0, e.weight));
  }
  return out;
}

describe("compileItem: a question's resolution support S_qq (P_e promotes the questions an item resolves)", () => {
  it('every item writes Supports[q -> q] with target 1 and rate a_e·w_max for exactly the questions it supports an answer of', () => {
    const sc = defaultScenario();
    const { layout } = sc;
    let written = 0;
    for (const it of sc.items) {
      const expected = expectedSupport(sc, it.id);
      for (let q = sc.shape.firstQuestion; q < layout.nmax; q++) {
        const idx = edgeIndex(layout, 'Supports', q, q);
        const at = Array.from(it.footprint).indexOf(idx);
        const w = expected.get(q);
        if (w === undefined) {
          expect(at, `${it.id} writes no S_qq of slot ${q}`).toBe(-1);
          continue;
        }
        written++;
        expect(at, `${it.id} writes S_qq of slot ${q}`).toBeGreaterThanOrEqual(0);
        expect(it.target[at]).toBe(1);
        expect(it.rates[at]).toBe(it.strength * w);
        expect(it.questionCoordinates.get(q)).toContain(idx);
      }
    }
    expect(written).toBeGreaterThan(0); // the default pool supports answers of every question
  });

  it('takes the largest weight over the answers of one question; a weight-0 Supports edge writes nothing', () => {
    const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { items: unknown[] };
    const evidence = read(DEFAULT_SCENARIO_FILES.evidence);
    evidence.items.push({
      id: 'both',
      strength: 0.5,
      claims: [{ id: 'c:x', attributes: [0.5, 0.5, 0.5, 0], support: 0.8 }],
      edges: [
        { type: 'Supports', source: 'c:x', target: 'a:author:holt', weight: 0.4 },
        { type: 'Supports', source: 'c:x', target: 'a:author:vance', weight: 0.6 },
        { type: 'Supports', source: 'c:x', target: 'a:country', weight: 0 },
      ],
    });
    const s2 = createScenario(read(DEFAULT_SCENARIO_FILES.graph), evidence);
    const it = s2.itemById.get('both')!;
    const author = s2.layout.slotOf.get('q:author')!;
    const country = s2.layout.slotOf.get('q:country')!;
    const idx = edgeIndex(s2.layout, 'Supports', author, author);
    const at = Array.from(it.footprint).indexOf(idx);
    expect(it.rates[at]).toBe(0.5 * 0.6);
    expect(Array.from(it.footprint)).not.toContain(edgeIndex(s2.layout, 'Supports', country, country));
    // P_e closes the share a_e·w_max of the gap 1 − S_qq: from 0 to 0.3, then to 0.3 + 0.3·0.7
    const once = referenceExpand(it, s2.theta0);
    expect(once[idx]).toBe(0.5 * 0.6);
    expect(referenceExpand(it, once)[idx]).toBe(once[idx]! + 0.5 * 0.6 * (1 - once[idx]!));
  });
});
