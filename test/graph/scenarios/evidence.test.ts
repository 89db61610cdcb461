import { describe, expect, it } from 'vitest';
import { compileItem, parseEvidencePool } from '../../../src/graph/scenarios/evidence.js';
import { createScenario } from '../../../src/graph/scenarios/scenario.js';
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
    // edges at the item's strength; no Supports diagonal for answers or questions
    expect(written.get(edgeIndex(layout, 'Requires', slot('a'), slot('q:pub')))).toEqual([1, 0.6]);
    expect(written.has(edgeIndex(layout, 'Supports', slot('q:pub'), slot('q:pub')))).toBe(false);
    expect(written.has(edgeIndex(layout, 'Supports', slot('a:other'), slot('a:other')))).toBe(false);
    // footprint: 2 attributes + 1 diagonal (claim), 2 + 2 (answers), 2 (question), 4 edges
    expect(item.footprint.length).toBe(3 + 4 + 2 + 4);
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
