/**
 * Layout and embedding of Def. 2.2: φ: S → θ ∈ R^d with d = (k+1)·Nmax + 3·Nmax².
 *
 * Row-major, f64. Node block first: Nmax slots in canonical order by type (all claim slots,
 * then all answer slots, then all question slots; the capacities fix the boundaries), slot s
 * occupying θ[s(k+1) .. s(k+1)+k] = [ℓ(v) (k values), c(v)]. Then the edge block: three
 * Nmax × Nmax weight matrices, type-major (Supports, Requires, Contradicts), row = source slot,
 * column = target slot: θ[E0 + t·Nmax² + src·Nmax + dst], E0 = (k+1)·Nmax. Empty slots and
 * absent edges are exactly 0.
 *
 * A {@link Layout} fixes which node id lives in which slot. It is built from a graph plus any
 * nodes that evidence will add later (their slots start empty), so ids keep their slots for the
 * whole run. The layout also keeps what is not embedded: node texts, sources, which question
 * each answer slot answers, and the parent of each question evidence adds as a sub-question.
 */
import { ArgumentError } from '../../util/errors.js';
import { finiteVector, integerInRange } from '../../util/validate.js';
import {
  EDGE_TYPE_RULES,
  EDGE_TYPES,
  edgeTypeFits,
  nmaxOf,
  type Capacities,
  type EdgeType,
  type EpistemicGraph,
  type GraphEdge,
  type GraphNode,
  type NodeType,
} from './model.js';
import { parseGraph } from './schema.js';
import { coordinateRange } from '../../system/coordinates.js';
import type { CoordinateRange } from '../../system/types.js';

/** What the layout knows about one slot. */
export interface SlotInfo {
  /** Node id, or null for a slot no node will ever use. */
  readonly id: string | null;
  readonly type: NodeType;
  /** Answers: slot of the question they answer. */
  readonly questionSlot?: number;
  /** Questions added as sub-questions: slot of the parent question (its answers depend on this one). */
  readonly parentSlot?: number;
  readonly text?: string;
  readonly source?: string;
}

/** A node that is not in the initial graph but may appear later (e.g. a claim evidence adds). */
export interface ReservedNode {
  readonly id: string;
  readonly type: NodeType;
  /** For answers: the question id. */
  readonly question?: string;
  /** For questions: the id of the parent question, when this one is a sub-question. */
  readonly parent?: string;
  readonly text?: string;
  readonly source?: string;
}

/** The fixed layout of the embedding. */
export interface Layout {
  /** Attribute dimension k. */
  readonly k: number;
  readonly capacities: Capacities;
  /** Nmax = Σ capacities. */
  readonly nmax: number;
  /** d = (k+1)·Nmax + 3·Nmax². */
  readonly dim: number;
  /** Offset of the edge block, (k+1)·Nmax. */
  readonly edgeOffset: number;
  /** First slot of each type: claims 0, answers = capacities.claims, questions after. */
  readonly firstSlot: Readonly<Record<NodeType, number>>;
  /** Per slot: id, type, metadata. Length Nmax. */
  readonly slots: readonly SlotInfo[];
  /** Slot of each node id. */
  readonly slotOf: ReadonlyMap<string, number>;
}

/** d = (k+1)·Nmax + 3·Nmax² (Def. 2.2). */
export function embeddingDimension(k: number, nmax: number): number {
  return (k + 1) * nmax + EDGE_TYPES.length * nmax * nmax;
}

/** Index of edge type in the edge block (Supports 0, Requires 1, Contradicts 2). */
export function edgeTypeIndex(type: EdgeType): number {
  return EDGE_TYPES.indexOf(type);
}

/**
 * Builds the layout of `graph` plus `reserved` nodes (which start empty). Within each type,
 * slots are assigned in order: the graph's nodes first, then reserved ones; remaining slots are
 * unnamed. Cost O(Nmax).
 * @throws {ArgumentError} a reserved id duplicates another id, a reserved answer names no
 *   question, a reserved question's parent is no question or a chain of parents returns to it,
 *   or a type's capacity is exceeded.
 * @example
 * ```ts
 * const layout = createLayout(graph, [{ id: 'c:new', type: 'claim' }]);
 * layout.dim; // (k+1)·Nmax + 3·Nmax²
 * ```
 */
export function createLayout(graph: EpistemicGraph, reserved: readonly ReservedNode[] = []): Layout {
  const { k, capacities } = graph;
  const nmax = nmaxOf(capacities);
  const firstSlot: Record<NodeType, number> = {
    claim: 0,
    answer: capacities.claims,
    question: capacities.claims + capacities.answers,
  };
  const capacity: Record<NodeType, number> = {
    claim: capacities.claims,
    answer: capacities.answers,
    question: capacities.questions,
  };
  const used: Record<NodeType, number> = { claim: 0, answer: 0, question: 0 };
  const slots: (SlotInfo | undefined)[] = new Array<SlotInfo | undefined>(nmax);
  const slotOf = new Map<string, number>();
  const pendingQuestion: Array<[number, string, string]> = [];
  const place = (n: GraphNode | ReservedNode, where: string) => {
    if (slotOf.has(n.id)) throw new ArgumentError(`${where}.id`, n.id, 'duplicates another node id');
    if (used[n.type] >= capacity[n.type])
      throw new ArgumentError(
        `${where}`,
        n.id,
        `capacity exceeded: more than ${capacity[n.type]} ${n.type} nodes (graph.capacities.${n.type}s)`,
      );
    const s = firstSlot[n.type] + used[n.type]++;
    slotOf.set(n.id, s);
    const info: { -readonly [K in keyof SlotInfo]: SlotInfo[K] } = { id: n.id, type: n.type };
    if (n.text !== undefined) info.text = n.text;
    if (n.source !== undefined) info.source = n.source;
    slots[s] = info;
    if (n.type === 'answer') {
      if (n.question === undefined)
        throw new ArgumentError(`${where}.question`, n.question, 'an answer must name its question');
      pendingQuestion.push([s, n.question, where]);
    }
  };
  graph.nodes.forEach((n, i) => place(n, `graph.nodes[${i}]`));
  reserved.forEach((n, i) => place(checkReserved(n, `reserved[${i}]`), `reserved[${i}]`));
  for (const [s, q, where] of pendingQuestion) {
    const qs = slotOf.get(q);
    if (qs === undefined || qs < firstSlot.question)
      throw new ArgumentError(`${where}.question`, q, 'names no question node');
    (slots[s] as { questionSlot?: number }).questionSlot = qs;
  }
  setParents(reserved, slotOf, slots, firstSlot.question);
  for (let s = 0; s < nmax; s++) {
    if (slots[s] === undefined) {
      const type: NodeType = s < firstSlot.answer ? 'claim' : s < firstSlot.question ? 'answer' : 'question';
      slots[s] = { id: null, type };
    }
    Object.freeze(slots[s]);
  }
  return Object.freeze({
    k,
    capacities,
    nmax,
    dim: embeddingDimension(k, nmax),
    edgeOffset: (k + 1) * nmax,
    firstSlot: Object.freeze(firstSlot),
    slots: Object.freeze(slots as SlotInfo[]),
    slotOf,
  });
}

/**
 * A reserved node's form (it may come from a saved state document): an object with a non-empty
 * string id, a node type, and string question/parent/text/source where given.
 * @throws {ArgumentError} named `where` (e.g. `reserved[2].type`).
 */
function checkReserved(n: unknown, where: string): ReservedNode {
  if (n === null || typeof n !== 'object' || Array.isArray(n))
    throw new ArgumentError(where, n, 'must be a node { id, type, question?, parent? }');
  const r = n as Record<string, unknown>;
  if (typeof r['id'] !== 'string' || r['id'] === '')
    throw new ArgumentError(`${where}.id`, r['id'], 'must be a non-empty string');
  if (r['type'] !== 'claim' && r['type'] !== 'answer' && r['type'] !== 'question')
    throw new ArgumentError(`${where}.type`, r['type'], "must be 'claim', 'answer' or 'question'");
  for (const key of ['question', 'parent', 'text', 'source'])
    if (r[key] !== undefined && typeof r[key] !== 'string')
      throw new ArgumentError(`${where}.${key}`, r[key], 'must be a string');
  return n as ReservedNode;
}

/**
 * Records each reserved question's parent slot (`parent` of a {@link ReservedNode}).
 * @throws {ArgumentError} a parent that is no question node, or a chain of parents that returns
 *   to the question it starts from.
 */
function setParents(
  reserved: readonly ReservedNode[],
  slotOf: ReadonlyMap<string, number>,
  slots: (SlotInfo | undefined)[],
  firstQuestion: number,
): void {
  const parentOf = new Map<number, number>();
  reserved.forEach((n, i) => {
    if (n.type !== 'question' || n.parent === undefined) return;
    const ps = slotOf.get(n.parent);
    if (ps === undefined || ps < firstQuestion)
      throw new ArgumentError(`reserved[${i}].parent`, n.parent, 'names no question node');
    const s = slotOf.get(n.id)!;
    parentOf.set(s, ps);
    (slots[s] as { parentSlot?: number }).parentSlot = ps;
  });
  reserved.forEach((n, i) => {
    if (n.type !== 'question' || n.parent === undefined) return;
    const start = slotOf.get(n.id)!;
    // a chain longer than the number of parents has met a slot twice
    let p = parentOf.get(start);
    for (let steps = 0; p !== undefined && steps <= parentOf.size; steps++) {
      if (p === start) throw new ArgumentError(`reserved[${i}].parent`, n.parent, `leads back to ${n.id} (a cycle)`);
      p = parentOf.get(p);
    }
  });
}

/** Offset of slot s's attribute vector ℓ (its confidence is at offset + k). */
export function nodeOffset(layout: Layout, slot: number): number {
  return slot * (layout.k + 1);
}

/** Index of the confidence c of slot s. */
export function confidenceIndex(layout: Layout, slot: number): number {
  return slot * (layout.k + 1) + layout.k;
}

/** Index of the weight of edge (type, source slot, target slot). */
export function edgeIndex(layout: Layout, type: EdgeType | number, source: number, target: number): number {
  const t = typeof type === 'number' ? type : edgeTypeIndex(type);
  return layout.edgeOffset + t * layout.nmax * layout.nmax + source * layout.nmax + target;
}

/** Slot of node `id`. @throws {ArgumentError} unknown id. */
export function slotOfId(layout: Layout, id: string, argument = 'id'): number {
  const s = layout.slotOf.get(id);
  if (s === undefined) throw new ArgumentError(argument, id, 'is not a node of the layout');
  return s;
}

/**
 * φ (Def. 2.2): embeds `graph` in the layout's coordinates. Every node of the graph must have
 * a slot in the layout (build the layout from this graph or a superset). Cost O(d) (the
 * output is zero-filled) + O(|V| k + |E|).
 * @throws {ArgumentError} k or capacities differ from the layout, or a node has no slot, or a
 *   node's type differs from its slot's type.
 */
export function embed(graph: EpistemicGraph, layout: Layout, out?: Float64Array): Float64Array {
  const pairs = graphEntries(graph, layout);
  const theta = out ?? new Float64Array(layout.dim);
  if (theta.length !== layout.dim) throw new ArgumentError('out', theta, `must have length d = ${layout.dim}`);
  theta.fill(0);
  for (const [i, v] of pairs) theta[i] = v;
  return theta;
}

/**
 * φ (Def. 2.2) as coordinates [index, value] instead of a dense vector: every coordinate of
 * every node (attributes, then confidence, zeros included) in slot order of the graph's node
 * list, then every edge weight; the dense θ is zero elsewhere. The one implementation behind
 * {@link embed} and the structured state (../state/state.ts). Cost O(|V| k + |E|), no O(d) memory.
 * @throws as {@link embed}.
 */
export function graphEntries(graph: EpistemicGraph, layout: Layout): Array<[number, number]> {
  if (graph.k !== layout.k) throw new ArgumentError('graph.k', graph.k, `differs from the layout's k = ${layout.k}`);
  for (const key of ['claims', 'answers', 'questions'] as const) {
    if (graph.capacities[key] !== layout.capacities[key])
      throw new ArgumentError(
        `graph.capacities.${key}`,
        graph.capacities[key],
        `differs from the layout's ${layout.capacities[key]}`,
      );
  }
  const slots = graph.nodes.map((n, i) => {
    const s = slotOfId(layout, n.id, `graph.nodes[${i}].id`);
    if (layout.slots[s]!.type !== n.type)
      throw new ArgumentError(`graph.nodes[${i}].type`, n.type, `slot ${s} holds a ${layout.slots[s]!.type}`);
    return s;
  });
  const out: Array<[number, number]> = [];
  graph.nodes.forEach((n, i) => {
    const o = nodeOffset(layout, slots[i]!);
    for (let j = 0; j < layout.k; j++) out.push([o + j, n.attributes[j]!]);
    out.push([o + layout.k, n.confidence]);
  });
  for (const e of graph.edges)
    out.push([edgeIndex(layout, e.type, layout.slotOf.get(e.source)!, layout.slotOf.get(e.target)!), e.weight]);
  (graph.pendingEdges ?? []).forEach((e, i) => {
    const where = `graph.pendingEdges[${i}]`;
    const s = slotOfId(layout, e.source, `${where}.source`);
    const u = slotOfId(layout, e.target, `${where}.target`);
    const from = layout.slots[s]!.type;
    const to = layout.slots[u]!.type;
    if (!edgeTypeFits(e.type, from, to, s === u))
      throw new ArgumentError(
        `${where}.type`,
        e.type,
        `cannot run from ${from} slot "${e.source}" to ${to} slot "${e.target}" (${EDGE_TYPE_RULES[e.type]})`,
      );
    out.push([edgeIndex(layout, e.type, s, u), e.weight]);
  });
  return out;
}

/**
 * φ⁻¹: decodes θ into a graph. A slot is a node iff any of its k+1 coordinates is non-zero; an
 * edge exists iff its weight is non-zero. An edge one or both of whose endpoint slots is empty
 * but reserved for a node (a node another evidence item will add: its slot has an id in the
 * layout) is a pending edge (`pendingEdges`, ./model.ts). The result is validated as a graph
 * document, so a θ that is no graph (a confidence outside [0, 1], an edge into a slot no node of
 * the layout will fill, a Supports edge into a question, …) throws an error naming the
 * coordinate. Nodes come out in slot order, edges and pending edges in (type, source slot,
 * target slot) order — the canonical order; for a graph whose nodes are listed in that order,
 * `decode(embed(S)) == S` exactly. Cost O(d).
 * @throws {ArgumentError} θ has the wrong length or non-finite entries; a non-zero slot has no
 *   id in the layout; the decoded document is not a valid graph (GraphFormatError).
 */
export function decode(theta: ArrayLike<number>, layout: Layout): EpistemicGraph {
  const x = finiteVector('theta', theta, layout.dim);
  const { nmax } = layout;
  return decodeParts(x.subarray(0, layout.edgeOffset), layout, (visit) => {
    for (let t = 0; t < EDGE_TYPES.length; t++)
      for (let s = 0; s < nmax; s++) {
        const row = layout.edgeOffset + t * nmax * nmax + s * nmax;
        for (let u = 0; u < nmax; u++) if (x[row + u] !== 0) visit(t, s, u, x[row + u]!);
      }
  });
}

/**
 * φ⁻¹ from a state's node block and its non-zero edges, visited in (type, source slot, target
 * slot) order: the one decoder behind {@link decode} (dense θ) and the structured state's
 * (../state/state.ts), so both give the same graph and the same errors. Cost O(Nmax·k + edges).
 * @throws as {@link decode}.
 */
export function decodeParts(
  nodes: ArrayLike<number>,
  layout: Layout,
  edgesOf: (visit: (type: number, source: number, target: number, weight: number) => void) => void,
): EpistemicGraph {
  const { k, nmax } = layout;
  const x = nodes;
  const nodeList: Record<string, unknown>[] = [];
  const present = new Array<boolean>(nmax).fill(false);
  for (let s = 0; s < nmax; s++) {
    const o = nodeOffset(layout, s);
    let any = false;
    for (let j = 0; j <= k; j++) if (x[o + j] !== 0) any = true;
    if (!any) continue;
    const info = layout.slots[s]!;
    if (info.id === null)
      throw new ArgumentError(`theta[${o}..${o + k}]`, `slot ${s}`, 'is non-zero but the layout has no node for it');
    // c = 0 beside non-zero attributes is a node Q consolidated to zero confidence (λ = 1 with a
    // zero target, or a confidence halved below the least subnormal): still present
    const c = x[o + k]!;
    if (!(c >= 0 && c <= 1))
      throw new ArgumentError(
        `theta[${o + k}] (${describeCoordinate(layout, o + k)})`,
        c,
        'a present node needs confidence in [0, 1]',
      );
    present[s] = true;
    const node: Record<string, unknown> = {
      id: info.id,
      type: info.type,
      attributes: Array.from({ length: k }, (_, j) => x[o + j]!),
      confidence: c,
    };
    if (info.questionSlot !== undefined) node.question = layout.slots[info.questionSlot]!.id;
    if (info.text !== undefined) node.text = info.text;
    if (info.source !== undefined) node.source = info.source;
    nodeList.push(node);
  }
  const edges: GraphEdge[] = [];
  const pending: GraphEdge[] = [];
  edgesOf((t, s, u, w) => {
    const at = layout.edgeOffset + t * nmax * nmax + s * nmax + u;
    const where = `theta[${at}] (${describeCoordinate(layout, at)})`;
    const from = layout.slots[s]!;
    const to = layout.slots[u]!;
    if ((!present[s] && from.id === null) || (!present[u] && to.id === null))
      throw new ArgumentError(where, w, 'an edge joins an empty slot that no node of the layout will fill');
    if (!(w > 0 && w <= 1)) throw new ArgumentError(where, w, 'an edge weight must lie in (0, 1]');
    const type = EDGE_TYPES[t]!;
    const edge = { type, source: from.id!, target: to.id!, weight: w };
    if (present[s] && present[u]) edges.push(edge);
    else if (!edgeTypeFits(type, from.type, to.type, s === u))
      throw new ArgumentError(where, w, `a pending ${type} edge cannot join these slots (${EDGE_TYPE_RULES[type]})`);
    else pending.push(edge); // an endpoint's node is still to come
  });
  return parseGraph({
    k,
    capacities: { ...layout.capacities },
    nodes: nodeList,
    edges,
    ...(pending.length ? { pendingEdges: pending } : {}),
  });
}

/**
 * The graph with nodes in slot order and edges in (type, source slot, target slot) order — the
 * order {@link decode} produces.
 */
export function canonicalGraph(graph: EpistemicGraph, layout: Layout): EpistemicGraph {
  const slot = (id: string) => layout.slotOf.get(id) ?? Number.MAX_SAFE_INTEGER;
  const nodes = [...graph.nodes].sort((a, b) => slot(a.id) - slot(b.id));
  const order = (list: readonly GraphEdge[]) =>
    Object.freeze(
      [...list].sort(
        (a, b) =>
          edgeTypeIndex(a.type) - edgeTypeIndex(b.type) ||
          slot(a.source) - slot(b.source) ||
          slot(a.target) - slot(b.target),
      ),
    );
  return Object.freeze({
    ...graph,
    nodes: Object.freeze(nodes),
    edges: order(graph.edges),
    ...(graph.pendingEdges ? { pendingEdges: order(graph.pendingEdges) } : {}),
  });
}

function slotName(layout: Layout, s: number): string {
  const info = layout.slots[s]!;
  return info.id ?? `${info.type} slot ${s - layout.firstSlot[info.type]} (empty)`;
}

/**
 * Names coordinate `index` for people: `l[c:x][2]` (attribute 2 of node c:x), `c[q:birthplace]`
 * (a confidence), `Supports[c3 -> a1]` (an edge weight); unnamed slots read
 * `c[claim slot 7 (empty)]`.
 * @throws {ArgumentError} index outside [0, d).
 */
export function describeCoordinate(layout: Layout, index: number): string {
  integerInRange('index', index, 0, layout.dim - 1);
  const { k, nmax } = layout;
  if (index < layout.edgeOffset) {
    const s = Math.floor(index / (k + 1));
    const j = index - s * (k + 1);
    return j === k ? `c[${slotName(layout, s)}]` : `l[${slotName(layout, s)}][${j}]`;
  }
  const r = index - layout.edgeOffset;
  const t = Math.floor(r / (nmax * nmax));
  const rr = r - t * nmax * nmax;
  const s = Math.floor(rr / nmax);
  const u = rr - s * nmax;
  return `${EDGE_TYPES[t]}[${slotName(layout, s)} -> ${slotName(layout, u)}]`;
}

/** Indices of every confidence coordinate (Nmax of them). */
export function confidenceBlock(layout: Layout): number[] {
  return Array.from({ length: layout.nmax }, (_, s) => confidenceIndex(layout, s));
}

/** Indices of every attribute coordinate (k·Nmax of them). */
export function attributeBlock(layout: Layout): number[] {
  const out: number[] = [];
  for (let s = 0; s < layout.nmax; s++) for (let j = 0; j < layout.k; j++) out.push(nodeOffset(layout, s) + j);
  return out;
}

/** The indices of one edge type's Nmax² block, as a range (never enumerated). */
export function edgeBlock(layout: Layout, type: EdgeType): CoordinateRange {
  return coordinateRange(edgeIndex(layout, type, 0, 0), layout.nmax * layout.nmax);
}

/** Indices of every attribute coordinate (k·Nmax of them) as a typed index array. */
export function attributeIndices(layout: Layout): Int32Array {
  const out = new Int32Array(layout.k * layout.nmax);
  let m = 0;
  for (let s = 0; s < layout.nmax; s++) for (let j = 0; j < layout.k; j++) out[m++] = nodeOffset(layout, s) + j;
  return out;
}

/** Indices of one node's k+1 coordinates (attributes, then confidence). */
export function nodeSubspace(layout: Layout, id: string): number[] {
  const o = nodeOffset(layout, slotOfId(layout, id));
  return Array.from({ length: layout.k + 1 }, (_, j) => o + j);
}
