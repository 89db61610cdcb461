import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphFormatError, graphToJson, loadGraphFile, parseGraph } from '../../../src/graph/model/schema.js';
import { checkConsistency } from '../../../src/graph/model/model.js';
import { smallGraphDoc } from '../fixtures.js';

type Doc = ReturnType<typeof smallGraphDoc> & {
  nodes: Record<string, unknown>[];
  edges: Record<string, unknown>[];
  pendingEdges?: Record<string, unknown>[];
};
const doc = () => smallGraphDoc() as Doc;
/** Adds a pending edge to the document. */
const pend = (d: Doc, e: Record<string, unknown>) => (d.pendingEdges ??= []).push(e);

function issuesOf(d: unknown): { path: string; message: string }[] {
  try {
    parseGraph(d);
  } catch (e) {
    expect(e).toBeInstanceOf(GraphFormatError);
    return [...(e as GraphFormatError).issues];
  }
  throw new Error('expected parseGraph to throw');
}

describe('graph JSON validation (every error names the JSON path and the problem)', () => {
  it('accepts a valid document and returns a frozen copy', () => {
    const d = doc();
    const g = parseGraph(d);
    expect(g.nodes).toHaveLength(4);
    expect(Object.isFrozen(g.nodes[0])).toBe(true);
    expect(g.nodes[0]).not.toBe(d.nodes[0]);
  });

  it('does not modify its input (a deeply frozen document parses)', () => {
    const d = doc();
    const deepFreeze = (o: unknown): void => {
      if (o && typeof o === 'object') {
        Object.values(o).forEach(deepFreeze);
        Object.freeze(o);
      }
    };
    deepFreeze(d);
    expect(() => parseGraph(d)).not.toThrow();
  });

  const cases: Array<[string, (d: Doc) => void, string, RegExp]> = [
    ['unknown node id', (d) => (d.edges[1]!.target = 'nope'), 'graph.edges[1].target', /unknown node id "nope"/],
    [
      'edge type that does not fit its endpoints',
      (d) => d.edges.push({ type: 'Supports', source: 'c1', target: 'q', weight: 0.5 }),
      'graph.edges[4].type',
      /Supports edge cannot run from claim "c1" to question "q"/,
    ],
    ['Requires from a question', (d) => (d.edges[3]!.source = 'q'), 'graph.edges[3].type', /Requires runs answer/],
    [
      'Supports from a question to another node',
      (d) => d.edges.push({ type: 'Supports', source: 'q', target: 'a', weight: 0.5 }),
      'graph.edges[4].type',
      /Supports edge cannot run from question "q" to answer "a" \(.*from a question to itself \(the question's resolution support\)\)/,
    ],
    [
      'Contradicts self-loop',
      (d) => d.edges.push({ type: 'Contradicts', source: 'c1', target: 'c1', weight: 0.5 }),
      'graph.edges[4].type',
      /Contradicts joins two different claims/,
    ],
    ['confidence above 1', (d) => (d.nodes[1]!.confidence = 1.5), 'graph.nodes[1].confidence', /\[0, 1\]/],
    ['confidence below 0', (d) => (d.nodes[1]!.confidence = -0.1), 'graph.nodes[1].confidence', /\[0, 1\]/],
    [
      'confidence 0 with every attribute 0',
      (d) => {
        d.nodes[1]!.confidence = 0;
        d.nodes[1]!.attributes = (d.nodes[1]!.attributes as number[]).map(() => 0);
      },
      'graph.nodes[1].confidence',
      /is 0 with every attribute 0: θ could not tell this node from an empty slot/,
    ],
    ['NaN confidence', (d) => (d.nodes[0]!.confidence = NaN), 'graph.nodes[0].confidence', /NaN/],
    ['NaN attribute', (d) => ((d.nodes[0]!.attributes as number[])[1] = NaN), 'graph.nodes[0].attributes[1]', /NaN/],
    ['edge weight 0', (d) => (d.edges[0]!.weight = 0), 'graph.edges[0].weight', /\(0, 1\]/],
    ['duplicate id', (d) => (d.nodes[1]!.id = 'c1'), 'graph.nodes[1].id', /duplicate id "c1"/],
    [
      'capacity exceeded',
      (d) => d.nodes.push({ id: 'q2', type: 'question', attributes: [0, 0], confidence: 1 }),
      'graph.capacities.questions',
      /capacity exceeded: 2 question nodes > capacity 1/,
    ],
    ['attribute length', (d) => (d.nodes[2]!.attributes = [1]), 'graph.nodes[2].attributes', /expected k = 2/],
    ['answer without question', (d) => delete d.nodes[3]!.question, 'graph.nodes[3].question', /must name/],
    ['answer naming a claim', (d) => (d.nodes[3]!.question = 'c1'), 'graph.nodes[3].question', /is a claim/],
    [
      'duplicate edge',
      (d) => d.edges.push({ ...d.edges[0]! }),
      'graph.edges[4]',
      /duplicate Supports edge c1 -> c1 \(first at edges\[0\]\)/,
    ],
    ['unknown field', (d) => ((d as Record<string, unknown>).extra = 1), 'graph', /Unrecognized key/],
    [
      'pending edge between two nodes',
      (d) => pend(d, { type: 'Supports', source: 'c2', target: 'c1', weight: 0.5 }),
      'graph.pendingEdges[0]',
      /both "c2" and "c1" are nodes of the graph: an edge between nodes belongs in edges/,
    ],
    [
      'pending edge that fits no type of its missing endpoint',
      (d) => pend(d, { type: 'Supports', source: 'q', target: 'c:new', weight: 0.5 }),
      'graph.pendingEdges[0].type',
      /a Supports edge cannot run from question "q" to a pending node "c:new"/,
    ],
    [
      'pending Supports from a question to another',
      (d) => pend(d, { type: 'Supports', source: 'q', target: 'q:new', weight: 0.5 }),
      'graph.pendingEdges[0].type',
      /a Supports edge cannot run from question "q" to a pending node "q:new"/,
    ],
    [
      'pending Contradicts self-loop',
      (d) => pend(d, { type: 'Contradicts', source: 'c:new', target: 'c:new', weight: 0.5 }),
      'graph.pendingEdges[0].type',
      /Contradicts joins two different claims/,
    ],
    [
      'pending edge written twice',
      (d) => {
        pend(d, { type: 'Supports', source: 'c1', target: 'c:new', weight: 0.5 });
        pend(d, { type: 'Supports', source: 'c1', target: 'c:new', weight: 0.6 });
      },
      'graph.pendingEdges[1]',
      /duplicate Supports edge c1 -> c:new \(first at pendingEdges\[0\]\)/,
    ],
    [
      'pending edge weight 0',
      (d) => pend(d, { type: 'Supports', source: 'c1', target: 'x', weight: 0 }),
      'graph.pendingEdges[0].weight',
      /\(0, 1\]/,
    ],
    ['bad node type', (d) => (d.nodes[0]!.type = 'fact'), 'graph.nodes[0].type', /claim|answer|question/],
  ];

  it.each(cases)('%s', (_name, mutate, path, problem) => {
    const d = doc();
    mutate(d);
    const issues = issuesOf(d);
    const hit = issues.find((i) => i.path === path);
    expect(hit, JSON.stringify(issues)).toBeDefined();
    expect(hit!.message).toMatch(problem);
    // the thrown message starts with the first path (ArgumentError format `name = value: problem`)
    try {
      parseGraph(d);
    } catch (e) {
      expect((e as Error).message.startsWith(issues[0]!.path + ' = ')).toBe(true);
    }
  });

  it("a question's Supports self-edge (its resolution support) is a valid edge; between two questions it is not", () => {
    const d = doc();
    d.edges.push({ type: 'Supports', source: 'q', target: 'q', weight: 0.6 });
    const g = parseGraph(d);
    expect(g.edges[4]).toEqual({ type: 'Supports', source: 'q', target: 'q', weight: 0.6 });
    const two = doc();
    two.capacities = { claims: 3, answers: 2, questions: 2 };
    two.nodes.push({ id: 'q2', type: 'question', attributes: [0, 0], confidence: 1 });
    two.edges.push({ type: 'Supports', source: 'q', target: 'q2', weight: 0.6 });
    expect(issuesOf(two)[0]).toMatchObject({
      path: 'graph.edges[4].type',
      message: expect.stringMatching(/Supports edge cannot run from question "q" to question "q2"/) as unknown,
    });
  });

  it('pending edges: kept (frozen, in order) and written back by graphToJson; none means no field', () => {
    const d = doc();
    pend(d, { type: 'Supports', source: 'c1', target: 'c:new', weight: 0.5 });
    pend(d, { type: 'Contradicts', source: 'c:new', target: 'c:other', weight: 0.25 });
    pend(d, { type: 'Supports', source: 'q:new', target: 'q:new', weight: 0.6 }); // a resolution support
    const g = parseGraph(d);
    expect(g.pendingEdges).toEqual(d.pendingEdges);
    expect(Object.isFrozen(g.pendingEdges)).toBe(true);
    expect(graphToJson(g)).toEqual(d);
    const none = parseGraph({ ...doc(), pendingEdges: [] });
    expect(none).not.toHaveProperty('pendingEdges');
    expect(none).toEqual(parseGraph(doc()));
    expect(graphToJson(none)).toEqual(doc());
    // consistency reads the graph's edges only
    expect(checkConsistency(g, 0.5).violations).toEqual(checkConsistency(parseGraph(doc()), 0.5).violations);
  });

  it('competing answers may not hold more than mass 1', () => {
    const d = doc();
    d.capacities = { claims: 3, answers: 2, questions: 1 };
    d.nodes.push({ id: 'a2', type: 'answer', question: 'q', attributes: [0, 0], confidence: 0.8 });
    expect(issuesOf(d)[0]!.message).toMatch(/summing to 1\.1 > 1/);
  });

  it('reports several problems at once', () => {
    const d = doc();
    d.nodes[1]!.id = 'c1';
    d.edges[1]!.target = 'zz';
    // renaming c2 also orphans the edge that starts at c2
    expect(issuesOf(d).map((i) => i.path)).toEqual([
      'graph.nodes[1].id',
      'graph.edges[1].target',
      'graph.edges[2].source',
    ]);
  });

  it('loadGraphFile: reads a file, or names the file and the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'og-graph-'));
    const good = join(dir, 'g.json');
    writeFileSync(good, JSON.stringify(doc()));
    expect((await loadGraphFile(good)).nodes).toHaveLength(4);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ not json');
    await expect(loadGraphFile(bad)).rejects.toThrow(/graph = ".*bad\.json": is not valid JSON/);
    await expect(loadGraphFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot be read \(ENOENT\)/);
  });
});

describe('consistency at δ (Sec. 2.2)', () => {
  it('lists the Contradicts pairs whose endpoints both exceed δ, straddling the threshold', () => {
    const g = parseGraph(doc()); // c1 = 0.9, c2 = 0.7, Contradicts c2 -> c1
    expect(checkConsistency(g, 0.5).violations).toEqual([
      { source: 'c2', target: 'c1', weight: 0.5, sourceConfidence: 0.7, targetConfidence: 0.9 },
    ]);
    expect(checkConsistency(g, 0.5).consistent).toBe(false);
    // δ exactly at the lower confidence: c > δ is strict, so the pair is consistent
    expect(checkConsistency(g, 0.7).consistent).toBe(true);
    expect(checkConsistency(g, 0.7 * (1 - Number.EPSILON)).consistent).toBe(false);
  });

  it('rejects δ outside (0, 1)', () => {
    const g = parseGraph(doc());
    expect(() => checkConsistency(g, 1)).toThrow(/delta = 1: must lie in the open interval/);
    expect(() => checkConsistency(g, NaN)).toThrow(/delta = NaN/);
  });
});
