/**
 * The JSON format of an epistemic state graph, validated with zod. Every problem is reported
 * with its JSON path (`graph.nodes[3].confidence`) and what is wrong; loading either returns a
 * whole, valid, frozen graph or throws — it never returns or modifies anything half-loaded.
 *
 * ```json
 * { "k": 4,
 *   "capacities": { "claims": 16, "answers": 4, "questions": 3 },
 *   "nodes": [ { "id": "q:author", "type": "question", "attributes": [0,0,0,0], "confidence": 1 },
 *              { "id": "a:author", "type": "answer", "question": "q:author",
 *                "attributes": [0,0,0,0], "confidence": 0.05 } ],
 *   "edges": [ { "type": "Requires", "source": "a:author", "target": "q:author", "weight": 1 } ] }
 * ```
 * Checks beyond the field types: ids unique; every edge endpoint exists; the edge type fits
 * its endpoints (Sec. 2.2); no duplicate (type, source, target); `question` of an answer names
 * a question node; per-type node counts within capacity; the confidences of the answers to one
 * question sum to at most 1 (they are competing alternatives; consolidation keeps this
 * invariant, see ./operators.ts); attribute vectors have length k. An optional `pendingEdges`
 * list (edges written before an endpoint is a node, ./model.ts) has the edges' fields; each names
 * at least one id that is not a node of the graph, fits the type rule at the endpoints that are,
 * and duplicates no edge or other pending edge.
 */
import { checkGraphMemory, readInputText } from '../../util/resources.js';
import { z } from 'zod';
import { ArgumentError } from '../../util/errors.js';
import {
  EDGE_TYPE_RULES,
  EDGE_TYPES,
  NODE_TYPES,
  article,
  edgeTypeFits,
  type EpistemicGraph,
  type GraphEdge,
  type GraphNode,
  type NodeType,
} from './model.js';

/** One validation problem: where (JSON path) and what. */
export interface FormatIssue {
  readonly path: string;
  readonly message: string;
  /** The offending value, where there is one. */
  readonly value?: unknown;
}

/**
 * A document failed validation. `argument` is the JSON path of the first problem; `issues`
 * lists all of them; the message names every path and problem (up to 20).
 */
export class GraphFormatError extends ArgumentError {
  readonly issues: readonly FormatIssue[];
  constructor(what: string, value: unknown, issues: readonly FormatIssue[]) {
    const first = issues[0] ?? { path: what, message: 'is invalid' };
    const rest = issues.slice(1, 20).map((i) => `; ${i.path}: ${i.message}`);
    const more = issues.length > 20 ? `; and ${issues.length - 20} more` : '';
    super(
      first.path,
      'value' in first ? first.value : valueAtPath(value, first.path),
      `${first.message}${rest.join('')}${more}`,
    );
    this.name = 'GraphFormatError';
    this.issues = Object.freeze([...issues]);
  }
}

/** The value at a rendered path (`root.a[3].b`) inside `doc` (undefined if absent). */
export function valueAtPath(doc: unknown, path: string): unknown {
  const keys = path.match(/\[(\d+)\]|\.([^.[\]]+)/g) ?? [];
  let v = doc;
  for (const k of keys) {
    const key = k.startsWith('[') ? Number(k.slice(1, -1)) : k.slice(1);
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return v;
}

/** Renders a zod path as `root.a[3].b`. */
export function jsonPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

/** Converts zod issues to {@link FormatIssue}s under `root`. */
export function toFormatIssues(root: string, issues: readonly z.core.$ZodIssue[], doc?: unknown): FormatIssue[] {
  return issues.map((i) => {
    let v: unknown = doc;
    for (const key of i.path)
      v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
    return { path: jsonPath(root, i.path), message: i.message, value: v };
  });
}

const id = z.string().min(1, 'must be a non-empty id');
const unitWeight = z
  .number()
  .gt(0, 'must lie in (0, 1]: a weight of 0 means no edge, so leave the edge out')
  .lte(1, 'must lie in (0, 1]');

/** Schema of one node. */
export const nodeSchema = z.strictObject({
  id,
  type: z.enum(NODE_TYPES),
  attributes: z.array(z.number()),
  confidence: z.number().gte(0, 'must lie in [0, 1]').lte(1, 'must lie in [0, 1]'),
  question: id.optional(),
  text: z.string().optional(),
  source: z.string().optional(),
});

/** Schema of one edge. */
export const edgeSchema = z.strictObject({
  type: z.enum(EDGE_TYPES),
  source: id,
  target: id,
  weight: unitWeight,
});

const count = z.number().int('must be an integer').min(0, 'must be >= 0');

/** Schema of a whole graph document (field types only; see {@link parseGraph} for the rest). */
export const graphSchema = z.strictObject({
  k: z.number().int('must be an integer').min(1, 'must be >= 1'),
  capacities: z.strictObject({ claims: count, answers: count, questions: count }),
  nodes: z.array(nodeSchema),
  edges: z.array(edgeSchema),
  pendingEdges: z.array(edgeSchema).optional(),
});

/** Cross-field checks of a document whose fields have the right types. */
function crossCheck(g: z.infer<typeof graphSchema>): FormatIssue[] {
  const issues: FormatIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const byId = new Map<string, { type: NodeType; index: number }>();
  const perType: Record<NodeType, number> = { claim: 0, answer: 0, question: 0 };
  g.nodes.forEach((n, i) => {
    if (byId.has(n.id))
      add(`graph.nodes[${i}].id`, `duplicate id "${n.id}" (first at nodes[${byId.get(n.id)!.index}])`);
    else byId.set(n.id, { type: n.type, index: i });
    perType[n.type]++;
    if (n.attributes.length !== g.k)
      add(`graph.nodes[${i}].attributes`, `has length ${n.attributes.length}, expected k = ${g.k}`);
    // θ holds a node as its attributes and confidence: all zero is an empty slot
    if (n.confidence === 0 && n.attributes.every((a) => a === 0))
      add(
        `graph.nodes[${i}].confidence`,
        'is 0 with every attribute 0: θ could not tell this node from an empty slot (give it confidence > 0)',
      );
    if (n.type !== 'answer' && n.question !== undefined)
      add(`graph.nodes[${i}].question`, `only answer nodes name a question (this node is ${article(n.type)})`);
  });
  const capacity: Record<NodeType, number> = {
    claim: g.capacities.claims,
    answer: g.capacities.answers,
    question: g.capacities.questions,
  };
  for (const t of NODE_TYPES) {
    if (perType[t] > capacity[t])
      add(`graph.capacities.${t}s`, `capacity exceeded: ${perType[t]} ${t} nodes > capacity ${capacity[t]}`);
  }
  if (g.capacities.claims + g.capacities.answers + g.capacities.questions < 1)
    add('graph.capacities', 'Nmax = claims + answers + questions must be >= 1');
  const answerMass = new Map<string, number>();
  g.nodes.forEach((n, i) => {
    if (n.type !== 'answer') return;
    if (n.question === undefined) {
      add(`graph.nodes[${i}].question`, 'an answer must name the question it answers');
      return;
    }
    const q = byId.get(n.question);
    if (!q) add(`graph.nodes[${i}].question`, `unknown node id "${n.question}"`);
    else if (q.type !== 'question')
      add(`graph.nodes[${i}].question`, `"${n.question}" is ${article(q.type)}, not a question`);
    else answerMass.set(n.question, (answerMass.get(n.question) ?? 0) + n.confidence);
  });
  for (const [q, m] of answerMass) {
    if (m > 1 + 4 * Number.EPSILON)
      add(
        'graph.nodes',
        `the answers to question "${q}" have confidences summing to ${m} > 1 (competing answers share mass <= 1)`,
      );
  }
  const seen = new Map<string, string>();
  g.edges.forEach((e, i) => {
    const s = byId.get(e.source);
    const t = byId.get(e.target);
    if (!s) add(`graph.edges[${i}].source`, `unknown node id "${e.source}"`);
    if (!t) add(`graph.edges[${i}].target`, `unknown node id "${e.target}"`);
    if (s && t) {
      const selfLoop = e.source === e.target;
      if (!edgeTypeFits(e.type, s.type, t.type, selfLoop) || (selfLoop && e.type !== 'Supports'))
        add(
          `graph.edges[${i}].type`,
          `a ${e.type} edge cannot run from ${s.type} "${e.source}" to ${t.type} "${e.target}" (${EDGE_TYPE_RULES[e.type]})`,
        );
    }
    const key = `${e.type}\u0000${e.source}\u0000${e.target}`;
    if (seen.has(key))
      add(`graph.edges[${i}]`, `duplicate ${e.type} edge ${e.source} -> ${e.target} (first at ${seen.get(key)})`);
    else seen.set(key, `edges[${i}]`);
  });
  checkPendingEdges(g.pendingEdges ?? [], byId, seen, add);
  return issues;
}

/**
 * The checks of the pending edges: each names at least one id that is not a node (else it is an
 * edge), fits the type rule at its endpoints that are nodes (some type of the missing endpoint
 * fits), is no self-loop but a Supports one, and duplicates no edge (`seen` holds the edges').
 */
function checkPendingEdges(
  pending: readonly z.infer<typeof edgeSchema>[],
  byId: ReadonlyMap<string, { type: NodeType }>,
  seen: Map<string, string>,
  add: (path: string, message: string) => void,
): void {
  pending.forEach((e, i) => {
    const s = byId.get(e.source)?.type;
    const t = byId.get(e.target)?.type;
    if (s !== undefined && t !== undefined)
      add(
        `graph.pendingEdges[${i}]`,
        `both "${e.source}" and "${e.target}" are nodes of the graph: an edge between nodes belongs in edges`,
      );
    const loop = e.source === e.target; // both endpoints the one pending node: one type for both
    const fits = NODE_TYPES.some((a) =>
      NODE_TYPES.some((b) => edgeTypeFits(e.type, s ?? a, t ?? (loop ? a : b), loop)),
    );
    if (!fits || (loop && e.type !== 'Supports'))
      add(
        `graph.pendingEdges[${i}].type`,
        `a ${e.type} edge cannot run from ${s ?? 'a pending node'} "${e.source}" to ${t ?? 'a pending node'} "${e.target}" (${EDGE_TYPE_RULES[e.type]})`,
      );
    const key = `${e.type}\u0000${e.source}\u0000${e.target}`;
    if (seen.has(key))
      add(
        `graph.pendingEdges[${i}]`,
        `duplicate ${e.type} edge ${e.source} -> ${e.target} (first at ${seen.get(key)})`,
      );
    else seen.set(key, `pendingEdges[${i}]`);
  });
}

function freezeGraph(g: z.infer<typeof graphSchema>): EpistemicGraph {
  const nodes: GraphNode[] = g.nodes.map((n) => {
    const node: { -readonly [K in keyof GraphNode]: GraphNode[K] } = {
      id: n.id,
      type: n.type,
      attributes: Object.freeze([...n.attributes]),
      confidence: n.confidence,
    };
    if (n.question !== undefined) node.question = n.question;
    if (n.text !== undefined) node.text = n.text;
    if (n.source !== undefined) node.source = n.source;
    return Object.freeze(node);
  });
  const edge = (e: z.infer<typeof edgeSchema>): GraphEdge =>
    Object.freeze({ type: e.type, source: e.source, target: e.target, weight: e.weight });
  const pending = g.pendingEdges ?? [];
  return Object.freeze({
    k: g.k,
    capacities: Object.freeze({ ...g.capacities }),
    nodes: Object.freeze(nodes),
    edges: Object.freeze(g.edges.map(edge)),
    // only when there are some: a graph without pending edges has no such field
    ...(pending.length ? { pendingEdges: Object.freeze(pending.map(edge)) } : {}),
  });
}

/**
 * Validates a graph document (already parsed from JSON, or built in code) and returns a frozen
 * copy. Cost O(|V| k + |E|).
 * @throws {GraphFormatError} listing every problem with its JSON path; {@link ArgumentError}
 *   named `graph.capacities` when the states of d = (k+1)·Nmax + 3·Nmax² numbers a run allocates
 *   cannot fit in memory (src/util/resources.ts).
 * @example
 * ```ts
 * parseGraph({ k: 1, capacities: { claims: 1, answers: 0, questions: 0 },
 *   nodes: [{ id: 'c1', type: 'claim', attributes: [0.5], confidence: 2 }], edges: [] });
 * // throws GraphFormatError: graph.nodes[0].confidence = 2: must lie in [0, 1]
 * ```
 */
export function parseGraph(doc: unknown): EpistemicGraph {
  const r = graphSchema.safeParse(doc);
  if (!r.success) throw new GraphFormatError('graph', doc, toFormatIssues('graph', r.error.issues, doc));
  checkGraphMemory(r.data.k, r.data.capacities); // before anything of size d is allocated
  const issues = crossCheck(r.data);
  if (issues.length > 0) throw new GraphFormatError('graph', doc, issues);
  return freezeGraph(r.data);
}

/**
 * Reads and validates a graph JSON file.
 * @throws {ArgumentError} the file cannot be read or is not JSON; {@link GraphFormatError} as
 *   {@link parseGraph}.
 */
export async function loadGraphFile(file: string): Promise<EpistemicGraph> {
  return parseGraph(await readJsonFile('graph', file));
}

/**
 * Reads a JSON file; errors name the argument and the file. The file's size is checked before it
 * is read (src/util/resources.ts), and a folder, a device (which may never end) or an empty file
 * is refused.
 */
export async function readJsonFile(argument: string, file: string): Promise<unknown> {
  const text = await readInputText(argument, file);
  if (text.trim() === '') throw new ArgumentError(argument, file, 'is empty; expected a JSON document');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ArgumentError(argument, file, `is not valid JSON (${(e as Error).message})`);
  }
}

/** The graph as a plain JSON-ready document (inverse of {@link parseGraph}). */
export function graphToJson(graph: EpistemicGraph): unknown {
  return {
    k: graph.k,
    capacities: { ...graph.capacities },
    nodes: graph.nodes.map((n) => ({ ...n, attributes: [...n.attributes] })),
    edges: graph.edges.map((e) => ({ ...e })),
    ...(graph.pendingEdges?.length ? { pendingEdges: graph.pendingEdges.map((e) => ({ ...e })) } : {}),
  };
}
