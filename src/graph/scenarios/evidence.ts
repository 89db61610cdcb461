/**
 * The evidence pool and P(·|θ) (Sec. 3.2, 7.3). Each item names the claims it adds (attributes
 * and direct support = source reliability), the edges it writes (weights in [0, 1]; 0 decays an
 * edge, e.g. the Requires edge of a question it resolves), its strength a_e and a base weight.
 *
 * JSON (validated with zod; errors name the JSON path):
 * ```json
 * { "adaptiveGain": 2,
 *   "operators": { "lambda": 0.5 },
 *   "run": { "epsilon": 0.01, "window": 3, "maxSteps": 80, "seed": 1 },
 *   "items": [ { "id": "e1", "text": "...", "strength": 0.7, "weight": 1,
 *     "claims": [ { "id": "c:x", "attributes": [..k..], "support": 0.9, "source": "wiki" } ],
 *     "edges": [ { "type": "Supports", "source": "c:x", "target": "a:author", "weight": 0.9 },
 *                { "type": "Requires", "source": "a:author", "target": "q:author", "weight": 0 } ] },
 *   { "id": "e2", "strength": 0.7,
 *     "claims": [ { "id": "c:y", "attributes": [..k..], "support": 0.8 } ],
 *     "answers": [ { "id": "a:pub:acme", "question": "q:publisher", "attributes": [..k..], "text": "Acme" } ],
 *     "questions": [ { "id": "q:publisher", "attributes": [..k..], "text": "Who published it?", "parent": "q:author" } ],
 *     "edges": [ { "type": "Supports", "source": "c:y", "target": "a:pub:acme", "weight": 0.8 },
 *                { "type": "Requires", "source": "a:pub:acme", "target": "q:publisher", "weight": 1 },
 *                { "type": "Requires", "source": "c:y", "target": "q:publisher", "weight": 1 } ] } ] }
 * ```
 * An item may add nodes of every type: claims, candidate answers (under a known question or one
 * the pool adds) and open (sub-)questions (`parent`: the question whose answers depend on it).
 * Every added node gets a slot reserved from the start; its presence in Q comes from the edges
 * evidence writes (an answer's Supports in-edges and Requires out-edges, a question's Requires
 * in-edges: docs/graph.md, "Reference operators").
 * Adaptive extraction (Sec. 7.3): P(e|θ) ∝ w_e (1 + γ Σ_{q ∈ R(e)} max(c_q, 0)), where R(e) are
 * the questions e writes (a Supports edge into one of q's answers, or a Requires edge into q)
 * and c_q is q's openness in θ: items that resolve questions still open are drawn more often.
 */
import { z } from 'zod';
import { ArgumentError } from '../../util/errors.js';
import { finiteNumber } from '../../util/validate.js';
import {
  EDGE_TYPE_RULES,
  EDGE_TYPES,
  article,
  edgeTypeFits,
  type EpistemicGraph,
  type NodeType,
} from '../model/model.js';
import type { CompiledItem } from '../operators/expand.js';
import { confidenceIndex, edgeIndex, nodeOffset, type Layout, type ReservedNode } from '../model/layout.js';
import { GraphFormatError, toFormatIssues, type FormatIssue } from '../model/schema.js';
import type { EvidenceWeight } from '../../system/types.js';

const id = z.string().min(1, 'must be a non-empty id');

/** Schema of an evidence pool document (field types; see {@link parseEvidencePool}). */
export const evidencePoolSchema = z.strictObject({
  adaptiveGain: z.number().min(0, 'must be >= 0').optional(),
  attributeStrength: z.number().gt(0, 'must lie in (0, 1]').lte(1, 'must lie in (0, 1]').optional(),
  operators: z.record(z.string(), z.number()).optional(),
  run: z
    .strictObject({
      epsilon: z.number().gt(0, 'must be > 0').optional(),
      window: z.number().int().min(1).optional(),
      maxSteps: z.number().int().min(1).optional(),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional(),
    })
    .optional(),
  items: z
    .array(
      z.strictObject({
        id,
        text: z.string().optional(),
        strength: z.number().gt(0, 'must lie in (0, 1]').lte(1, 'must lie in (0, 1]'),
        weight: z.number().gt(0, 'a base weight must be > 0').optional(),
        claims: z
          .array(
            z.strictObject({
              id,
              attributes: z.array(z.number()),
              support: z.number().gt(0, 'must lie in (0, 1]').lte(1, 'must lie in (0, 1]'),
              source: z.string().optional(),
              text: z.string().optional(),
            }),
          )
          .default([]),
        answers: z
          .array(
            z.strictObject({
              id,
              question: id,
              attributes: z.array(z.number()),
              text: z.string().optional(),
            }),
          )
          .default([]),
        questions: z
          .array(
            z.strictObject({
              id,
              attributes: z.array(z.number()),
              text: z.string().optional(),
              parent: id.optional(),
            }),
          )
          .default([]),
        edges: z
          .array(
            z.strictObject({
              type: z.enum(EDGE_TYPES),
              source: id,
              target: id,
              weight: z.number().min(0, 'must lie in [0, 1]').lte(1, 'must lie in [0, 1]'),
            }),
          )
          .default([]),
      }),
    )
    .min(1, 'must list at least one evidence item'),
});

/** A validated evidence pool document. */
export type EvidencePoolDocument = z.infer<typeof evidencePoolSchema>;

/** An evidence item after validation, with what it writes. */
export interface EvidenceItem {
  readonly id: string;
  readonly text?: string;
  readonly strength: number;
  /** Base weight w_e > 0 (default 1). */
  readonly weight: number;
  readonly claims: readonly {
    id: string;
    attributes: readonly number[];
    support: number;
    source?: string;
    text?: string;
  }[];
  /** Candidate answers e adds, each under its question (known, or one a pool item adds). */
  readonly answers: readonly { id: string; question: string; attributes: readonly number[]; text?: string }[];
  /** Open (sub-)questions e adds; `parent`: the question whose answers depend on this one. */
  readonly questions: readonly { id: string; attributes: readonly number[]; text?: string; parent?: string }[];
  readonly edges: readonly { type: (typeof EDGE_TYPES)[number]; source: string; target: string; weight: number }[];
}

/** A validated pool. */
export interface EvidencePool {
  readonly items: readonly EvidenceItem[];
  /** γ >= 0 of adaptive extraction (default 2). */
  readonly adaptiveGain: number;
  /** Blend rate of claim attributes in (0, 1] (default 1: copied). */
  readonly attributeStrength: number;
  readonly operators: Readonly<Record<string, number>>;
  readonly run: Readonly<{ epsilon?: number; window?: number; maxSteps?: number; seed?: number }>;
}

/**
 * Validates an evidence pool against the graph it extends: ids unique across graph and pool —
 * except that a node one item adds may be added again by a later item alike (same list,
 * attributes, question or parent: two extractions that find the same new answer), which
 * reserves it once — attribute lengths k, an added answer's question and an added question's parent are question
 * nodes (of the graph or the pool), edge endpoints exist (graph nodes or nodes the pool adds),
 * edge types fit their endpoints, no item writes one coordinate twice, every item writes
 * something.
 * @throws {GraphFormatError} listing every problem with its JSON path (`evidence.items[2].edges[0].target`).
 */
export function parseEvidencePool(doc: unknown, graph: EpistemicGraph): EvidencePool {
  const r = evidencePoolSchema.safeParse(doc);
  if (!r.success) throw new GraphFormatError('evidence', doc, toFormatIssues('evidence', r.error.issues, doc));
  const d = r.data;
  const issues: FormatIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const types = new Map<string, NodeType>(graph.nodes.map((n) => [n.id, n.type]));
  // where each added node was first declared, and what as (another item may declare it again alike)
  const firstDeclared = new Map<string, { at: string; item: number; same: string }>();
  const itemIds = new Set<string>();
  d.items.forEach((it, i) => {
    if (itemIds.has(it.id)) add(`evidence.items[${i}].id`, `duplicate evidence id "${it.id}"`);
    itemIds.add(it.id);
    const declare = (list: 'claims' | 'answers' | 'questions', type: NodeType) =>
      it[list].forEach((c, j) => {
        const at = `evidence.items[${i}].${list}[${j}]`;
        const same = JSON.stringify([
          list,
          c.attributes,
          (c as { question?: string }).question,
          (c as { parent?: string }).parent,
        ]);
        const first = firstDeclared.get(c.id);
        if (first !== undefined && first.item !== i && first.same !== same)
          add(
            `${at}.id`,
            `"${c.id}" is declared differently by ${first.at} (an added node may be declared again only alike)`,
          );
        else if (types.has(c.id) && (first === undefined || first.item === i))
          add(`${at}.id`, `duplicate node id "${c.id}"`);
        else if (first === undefined) {
          types.set(c.id, type);
          firstDeclared.set(c.id, { at, item: i, same });
        }
        if (c.attributes.length !== graph.k)
          add(
            `evidence.items[${i}].${list}[${j}].attributes`,
            `has length ${c.attributes.length}, expected k = ${graph.k}`,
          );
      });
    declare('claims', 'claim');
    declare('answers', 'answer');
    declare('questions', 'question');
  });
  const needQuestion = (path: string, ref: string) => {
    const t = types.get(ref);
    if (t !== 'question')
      add(path, t ? `"${ref}" is ${article(t)} node, not a question` : `names no question "${ref}"`);
  };
  d.items.forEach((it, i) => {
    it.answers.forEach((a, j) => needQuestion(`evidence.items[${i}].answers[${j}].question`, a.question));
    it.questions.forEach((q, j) => {
      if (q.parent !== undefined) needQuestion(`evidence.items[${i}].questions[${j}].parent`, q.parent);
      if (q.parent === q.id) add(`evidence.items[${i}].questions[${j}].parent`, 'a question cannot be its own parent');
    });
    const written = new Set<string>();
    it.edges.forEach((e, j) => {
      const p = `evidence.items[${i}].edges[${j}]`;
      const s = types.get(e.source);
      const t = types.get(e.target);
      if (!s) add(`${p}.source`, `unknown node id "${e.source}"`);
      if (!t) add(`${p}.target`, `unknown node id "${e.target}"`);
      if (s && t && (!edgeTypeFits(e.type, s, t) || e.source === e.target))
        add(
          `${p}.type`,
          `a ${e.type} edge cannot run from ${s} "${e.source}" to ${t} "${e.target}" (${EDGE_TYPE_RULES[e.type]}; an item writes no self-edge: a claim's self-support is its "support" field, a question's resolution support follows from the item's Supports edges into its answers)`,
        );
      const key = `${e.type} ${e.source} ${e.target}`;
      if (written.has(key)) add(p, `writes ${e.type} ${e.source} -> ${e.target} twice`);
      written.add(key);
    });
    if (it.claims.length + it.answers.length + it.questions.length + it.edges.length === 0)
      add(`evidence.items[${i}]`, 'writes nothing (no claims, answers, questions or edges)');
  });
  const operators = d.operators ?? {};
  if (issues.length > 0) throw new GraphFormatError('evidence', doc, issues);
  const items: EvidenceItem[] = d.items.map((it) => {
    const item: { -readonly [K in keyof EvidenceItem]: EvidenceItem[K] } = {
      id: it.id,
      strength: it.strength,
      weight: it.weight ?? 1,
      claims: frozenNodes(it.claims),
      answers: frozenNodes(it.answers),
      questions: frozenNodes(it.questions),
      edges: Object.freeze(it.edges.map((e) => Object.freeze({ ...e }))),
    };
    if (it.text !== undefined) item.text = it.text;
    return Object.freeze(item);
  });
  return Object.freeze({
    items: Object.freeze(items),
    adaptiveGain: d.adaptiveGain ?? 2,
    attributeStrength: d.attributeStrength ?? 1,
    operators: Object.freeze({ ...operators }),
    run: Object.freeze({ ...(d.run ?? {}) }),
  });
}

/** Frozen copies of validated node entries (attribute arrays copied). */
function frozenNodes<T extends { attributes: readonly number[] }>(nodes: readonly T[]): readonly T[] {
  return Object.freeze(nodes.map((c) => Object.freeze({ ...c, attributes: Object.freeze([...c.attributes]) })));
}

/**
 * The nodes a pool's items add — claims, then answers (with their question), then questions
 * (with their parent), item by item — as reserved layout nodes (their slots start empty).
 */
export function reservedNodes(pool: { readonly items: readonly EvidenceItem[] }): ReservedNode[] {
  const out: ReservedNode[] = [];
  type Mutable = { -readonly [K in keyof ReservedNode]: ReservedNode[K] };
  const record = (r: Mutable, n: { text?: string; source?: string }) => {
    if (n.text !== undefined) r.text = n.text;
    if (n.source !== undefined) r.source = n.source;
    out.push(r);
  };
  const seen = new Set<string>();
  const meta = (r: Mutable, n: { text?: string; source?: string }) => {
    if (seen.has(r.id)) return; // declared again by a later item, alike (parseEvidencePool)
    seen.add(r.id);
    record(r, n);
  };
  for (const it of pool.items) {
    for (const c of it.claims) meta({ id: c.id, type: 'claim' }, c);
    for (const a of it.answers) meta({ id: a.id, type: 'answer', question: a.question }, a);
    for (const q of it.questions)
      meta(
        q.parent === undefined ? { id: q.id, type: 'question' } : { id: q.id, type: 'question', parent: q.parent },
        q,
      );
  }
  return out;
}

/** A compiled item plus the questions it writes. */
export interface CompiledEvidence extends CompiledItem {
  readonly weight: number;
  /** Slots of the questions this item writes (R(e)). */
  readonly questionSlots: readonly number[];
  /** Per question slot: the coordinates of q this item writes. */
  readonly questionCoordinates: ReadonlyMap<number, readonly number[]>;
}

/**
 * The resolution support an item writes (Sec. 3.1, 7.2: P_e promotes the OpenQuestions e
 * directly resolves): for each question q such that e writes a Supports edge of weight w > 0
 * into one of q's answers, the coordinate Supports[q → q] (q's resolution support) with target 1
 * and rate a_e·w_max, w_max the largest such weight of e for q. Every item has the same target,
 * so items never pull the coordinate in different directions; weak evidence closes a smaller
 * share of the gap 1 − S_qq. Returns question slot → [coordinate, rate]. O(|edges|).
 */
function resolutionSupport(item: EvidenceItem, layout: Layout): Map<number, readonly [number, number]> {
  const best = new Map<number, number>();
  for (const e of item.edges) {
    if (e.type !== 'Supports' || !(e.weight > 0)) continue;
    const q = layout.slots[layout.slotOf.get(e.target)!]!.questionSlot;
    if (q !== undefined && q >= 0) best.set(q, Math.max(best.get(q) ?? 0, e.weight));
  }
  const out = new Map<number, readonly [number, number]>();
  for (const [q, w] of best) out.set(q, [edgeIndex(layout, 'Supports', q, q), item.strength * w]);
  return out;
}

/**
 * Compiles an item against a layout: footprint = the k attributes and the Supports diagonal of
 * each claim it adds, the k attributes of each answer and question it adds (rate: the attribute
 * strength), plus each edge coordinate it writes, plus the resolution support of each question
 * it supports an answer of ({@link resolutionSupport}); targets accordingly; `entry` = the
 * confidence coordinate of each node it adds. O(|F_e| log |F_e|).
 */
export function compileItem(item: EvidenceItem, layout: Layout, attributeStrength = 1): CompiledEvidence {
  const entries = new Map<number, number>();
  const attributeCoords = new Set<number>();
  const added: number[] = [];
  // the attributes of a node e adds (rate: the attribute strength) and its entry coordinate
  const addNode = (type: NodeType, id: string, attributes: readonly number[]): number => {
    const s = layout.slotOf.get(id);
    if (s === undefined) throw new ArgumentError(`evidence ${item.id}: ${type}`, id, 'has no slot in the layout');
    const o = nodeOffset(layout, s);
    added.push(confidenceIndex(layout, s));
    attributes.forEach((v, j) => {
      entries.set(o + j, v);
      attributeCoords.add(o + j);
    });
    return s;
  };
  for (const c of item.claims) {
    const s = addNode('claim', c.id, c.attributes);
    entries.set(edgeIndex(layout, 'Supports', s, s), c.support);
  }
  for (const a of item.answers) addNode('answer', a.id, a.attributes);
  for (const q of item.questions) addNode('question', q.id, q.attributes);
  const questionCoordinates = new Map<number, number[]>();
  const firstQ = layout.firstSlot.question;
  for (const e of item.edges) {
    const s = layout.slotOf.get(e.source)!;
    const t = layout.slotOf.get(e.target)!;
    const idx = edgeIndex(layout, e.type, s, t);
    entries.set(idx, e.weight);
    let q = -1;
    if (e.type === 'Requires' && t >= firstQ) q = t;
    if (e.type === 'Supports') q = layout.slots[t]!.questionSlot ?? -1;
    if (q >= 0) {
      const list = questionCoordinates.get(q) ?? [];
      list.push(idx);
      questionCoordinates.set(q, list);
    }
  }
  const resolution = resolutionSupport(item, layout);
  for (const [q, [idx]] of resolution) {
    entries.set(idx, 1);
    questionCoordinates.set(q, [...(questionCoordinates.get(q) ?? []), idx]);
  }
  const resolutionRate = new Map([...resolution.values()]);
  const sortedKeys = [...entries.keys()].sort((a, b) => a - b);
  const footprint = layout.dim <= 2 ** 31 - 1 ? Int32Array.from(sortedKeys) : Float64Array.from(sortedKeys);
  const target = Float64Array.from(footprint, (i) => entries.get(i)!);
  const rates = Float64Array.from(
    footprint,
    (i) => resolutionRate.get(i) ?? (attributeCoords.has(i) ? attributeStrength : item.strength),
  );
  return Object.freeze({
    id: item.id,
    strength: item.strength,
    rates,
    weight: item.weight,
    footprint,
    target,
    entry: Int32Array.from(added.sort((a, b) => a - b)),
    questionSlots: Object.freeze([...questionCoordinates.keys()].sort((a, b) => a - b)),
    questionCoordinates,
  });
}

/**
 * P(·|θ) with adaptive extraction (module comment). γ = 0 gives the base weights normalised.
 * Cost O(|pool| · |R(e)|).
 * @throws {ArgumentError} γ negative, not finite, or so large that γ·(open confidences) overflows.
 */
export function evidenceDistribution(
  items: readonly CompiledEvidence[],
  layout: Layout,
  theta: Float64Array,
  adaptiveGain: number,
): EvidenceWeight[] {
  const gamma = finiteNumber('adaptiveGain', adaptiveGain);
  if (gamma < 0) throw new ArgumentError('adaptiveGain', gamma, 'must be >= 0');
  // the weights scaled by a power of two that brings the largest to [1, 2): exact, so p is the
  // same bit for bit, and base weights up to MAX_VALUE cannot overflow the sum
  const wmax = items.reduce((m, it) => Math.max(m, it.weight), 0);
  const scale = wmax > 0 ? 2 ** -Math.max(-1022, Math.min(1023, Math.floor(Math.log2(wmax)))) : 1;
  const raw = items.map((it) => {
    let open = 0;
    for (const q of it.questionSlots) open += Math.max(theta[confidenceIndex(layout, q)]!, 0);
    return it.weight * scale * (1 + gamma * open);
  });
  const total = raw.reduce((a, b) => a + b, 0);
  if (!Number.isFinite(total))
    throw new ArgumentError('adaptiveGain', gamma, 'is so large that the extraction weights overflow f64');
  return items.map((it, i) => ({ id: it.id, p: raw[i]! / total }));
}

/**
 * Consolidation scheduling (Sec. 7.3): run Q when the order-gap accumulated since the last
 * consolidation exceeds a cost threshold, rather than on a fixed schedule.
 */
export class ConsolidationSchedule {
  #accumulated = 0;
  /**
   * @param threshold accumulated Ω that triggers consolidation (> 0)
   * @throws {ArgumentError} threshold not a finite number > 0.
   */
  constructor(readonly threshold: number) {
    if (!(finiteNumber('threshold', threshold) > 0)) throw new ArgumentError('threshold', threshold, 'must be > 0');
  }
  /** Adds one order-gap value; returns whether consolidation is now due. */
  record(omega: number): boolean {
    if (!(omega >= 0) || !Number.isFinite(omega))
      throw new ArgumentError('omega', omega, 'must be a finite number >= 0');
    this.#accumulated += omega;
    return this.due();
  }
  /** True iff the accumulated order-gap exceeds the threshold. */
  due(): boolean {
    return this.#accumulated > this.threshold;
  }
  /** Σ Ω since the last consolidation. */
  get accumulated(): number {
    return this.#accumulated;
  }
  /** Call after running Q. */
  consolidated(): void {
    this.#accumulated = 0;
  }
}
