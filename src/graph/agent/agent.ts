/**
 * The agent-loop API: keep an epistemic state, expand it with evidence as it arrives,
 * consolidate, measure the order-gap, and stop when the windowed order-gap falls below ε
 * (Algorithm 1, Sec. 6) — instead of after a fixed number of steps. The stopping test is the
 * package's one order-gap rule (`OrderGapRule`), the same that Algorithm 1 applies.
 *
 * ```ts
 * const state = AgentState.fromGraph(graphDoc);
 * const rule = new OrderGapRule({ epsilon: 0.01, window: 4, maxSteps: 100 }); // src/stopping
 * for (const chunk of retrieve()) {
 *   const omega = state.step(chunk);          // Ω(θ; e), then θ ← Q(P_e(θ))
 *   const decision = rule.observe({ t: state.steps, omega });
 *   if (decision.stop) { console.log(decision.reason, decision.detail); break; }
 * }
 * await state.save('state.json');             // atomic: temp file + rename
 * ```
 * The claims, candidate answers and open (sub-)questions an evidence item adds take free slots
 * of their type (ids keep their slots for the life of the state; an answer joins its question's
 * group, a sub-question keeps its parent); when none is free the capacities grow
 * (../model/grow.ts: re-layout with every coordinate's name kept). Every method validates first
 * and changes nothing on error.
 */
import { type AtomicWriteIo, nodeAtomicWriteIo, writeFileAtomic } from '../../util/atomicWrite.js';
import { ArgumentError } from '../../util/errors.js';
import { finiteNumber, integerInRange } from '../../util/validate.js';
import { frozenCopy } from '../../util/json.js';
import type { StateSummary } from '../../system/types.js';
import { describeStructured } from '../state/describe.js';
import {
  compileItem,
  parseEvidencePool,
  type CompiledEvidence,
  type ConsolidationSchedule,
  type EvidenceItem,
  type EvidencePool,
  reservedNodes,
} from '../scenarios/evidence.js';
import {
  structuredConsolidate,
  structuredEntries,
  structuredExpand,
  structuredFromDense,
  structuredFromEntries,
  structuredOrderGap,
  structuredStep,
  structuredToDense,
  type StructuredGraphState,
} from '../state/state.js';
import { createLayout, type Layout, type ReservedNode, type SlotInfo } from '../model/layout.js';
import type { EpistemicGraph } from '../model/model.js';
import {
  confidenceLipschitzBound,
  resolveParams,
  type GraphOperatorParams,
  type LipschitzBound,
} from '../operators/params.js';
import { graphToJson, parseGraph } from '../model/schema.js';
import { operatorShape, type OperatorShape } from '../model/shape.js';
import { graphEntries } from '../model/layout.js';
import { layoutWithGrowth, relayout } from '../model/grow.js';
import { GRAPH_RUN_DEFAULTS, type Scenario } from '../scenarios/scenario.js';

/** Version tag of the exported state document. */
export const STATE_FORMAT = 'ordergap-state/1';

/** The exported state (JSON). */
export interface StateDocument {
  format: typeof STATE_FORMAT;
  graph: unknown;
  reserved: ReservedNode[];
  params: GraphOperatorParams;
  attributeStrength: number;
  /** θ as sparse pairs [index, value] of its non-zero entries (exact: JSON numbers round-trip f64). */
  theta: Array<[number, number]>;
  dim: number;
  steps: number;
  /**
   * The evidence items applied ({@link AgentState.evidence}): one per id, each in the form it was
   * last applied in, in the order of first application. A document without the field restores
   * a state that has applied none: the coverage check's default pool then holds only the items
   * applied after the restore, so pass the candidates to `agentCheckSite` for such a state.
   */
  evidence?: EvidenceInput[];
  summary: StateSummary;
}

/** An evidence item for {@link AgentState.expand}: the JSON form of one pool item. */
export type EvidenceInput = unknown;

/**
 * The applied items of a state document by id (`state.evidence`; a missing field is an empty
 * list).
 * @throws {ArgumentError} not an array, an entry that is not an object with a string id, or an id
 *   given twice.
 */
function appliedOf(evidence: unknown): Map<string, EvidenceInput> {
  const out = new Map<string, EvidenceInput>();
  if (evidence === undefined) return out;
  if (!Array.isArray(evidence))
    throw new ArgumentError('state.evidence', evidence, 'must be an array of evidence items');
  const first = new Map<string, number>();
  evidence.forEach((item: unknown, i) => {
    const id = (item as { id?: unknown } | null)?.id;
    if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof id !== 'string')
      throw new ArgumentError(`state.evidence[${i}]`, item, 'must be an evidence item (an object with a string id)');
    if (first.has(id))
      throw new ArgumentError(`state.evidence[${i}].id`, id, `is the id of state.evidence[${first.get(id)}]`);
    first.set(id, i);
    out.set(id, item);
  });
  return out;
}

/** The attribute strength a_e·s of a state, checked: a number in (0, 1]. */
function attributeStrengthOf(name: string, value: unknown): number {
  const as = finiteNumber(name, value);
  if (!(as > 0 && as <= 1)) throw new ArgumentError(name, as, 'must lie in (0, 1]');
  return as;
}

type MutableReserved = { -readonly [K in keyof ReservedNode]: ReservedNode[K] };

/**
 * The nodes evidence items declare (claims, answers with their question, questions with their
 * parent), read from their JSON before validation (entries without a string id are skipped:
 * validation reports them).
 */
function declaredNodes(items: readonly EvidenceInput[]): ReservedNode[] {
  const out: ReservedNode[] = [];
  const lists = [
    ['claims', 'claim'],
    ['answers', 'answer'],
    ['questions', 'question'],
  ] as const;
  for (const e of items) {
    if (e === null || typeof e !== 'object') continue;
    for (const [list, type] of lists) {
      const raw = (e as Record<string, unknown>)[list];
      if (!Array.isArray(raw)) continue;
      for (const n of raw as Array<Record<string, unknown> | null>) {
        if (typeof n?.id !== 'string') continue;
        const r: MutableReserved = { id: n.id, type };
        if (type === 'answer' && typeof n.question === 'string') r.question = n.question;
        if (type === 'question' && typeof n.parent === 'string') r.parent = n.parent;
        out.push(r);
      }
    }
  }
  return out;
}

/** The reserved layout node of a named slot (its question or parent by id). */
function reservedOfSlot(layout: Layout, s: SlotInfo): ReservedNode {
  const r: MutableReserved = { id: s.id!, type: s.type };
  if (s.questionSlot !== undefined) r.question = layout.slots[s.questionSlot]!.id!;
  if (s.parentSlot !== undefined) r.parent = layout.slots[s.parentSlot]!.id!;
  if (s.text !== undefined) r.text = s.text;
  if (s.source !== undefined) r.source = s.source;
  return r;
}

/**
 * Drops a structured state's scratch before it is read under a new shape: Q's per-group scratch
 * is sized by the largest answer group, which an added answer may enlarge. Rebuilt on next use.
 */
function dropScratch(state: StructuredGraphState): void {
  state.scratch = null;
  state.omegaScratch = null;
}

/** File operations used by {@link AgentState.save} (replaceable in tests to simulate crashes). */
export type SaveIo = AtomicWriteIo;

/**
 * A mutable epistemic state θ with the reference operators, held structured (../state/state.ts: the
 * node block dense, the edges sparse), so a step costs what it touches, not d. Every operation is
 * bit for bit the same operation on the dense θ; {@link theta} and {@link describe} build the
 * dense θ (O(d): for small capacities).
 */
export class AgentState {
  #graph: EpistemicGraph;
  #reserved: ReservedNode[];
  #layout: Layout;
  #shape: OperatorShape;
  #params: GraphOperatorParams;
  #state: StructuredGraphState;
  #attributeStrength: number;
  #steps = 0;
  /** Bumped by every change of θ, the layout or the applied items ({@link revision}). */
  #revision = 0;
  /** The evidence items applied so far by id, each in its latest form, in first-application order. */
  readonly #applied = new Map<string, EvidenceInput>();

  private constructor(
    graph: EpistemicGraph,
    reserved: ReservedNode[],
    params: GraphOperatorParams,
    attributeStrength: number,
    theta?: Float64Array,
  ) {
    this.#graph = graph;
    this.#reserved = reserved;
    this.#params = params;
    this.#attributeStrength = attributeStrength;
    this.#layout = createLayout(graph, reserved);
    this.#shape = operatorShape(this.#layout, params.mergeDims);
    this.#state = theta
      ? structuredFromDense(this.#shape, params, theta)
      : structuredFromEntries(this.#shape, params, graphEntries(graph, this.#layout));
  }

  /**
   * A state θ = φ(graph) (Def. 2.2) from a graph document or graph.
   * @throws {GraphFormatError} invalid graph; {@link ArgumentError} bad parameters.
   */
  static fromGraph(
    graph: unknown,
    options: { params?: Partial<GraphOperatorParams>; attributeStrength?: number } = {},
  ): AgentState {
    const g = parseGraph(graph);
    const params = resolveParams(options.params ?? {});
    return new AgentState(g, [], params, attributeStrengthOf('attributeStrength', options.attributeStrength ?? 1));
  }

  /** A state at the start of a scenario (θ0, the scenario's parameters; the nodes its pool adds reserved). */
  static fromScenario(scenario: Scenario): AgentState {
    const inGraph = new Set(scenario.graph.nodes.map((n) => n.id));
    const reserved = scenario.layout.slots
      .filter((s) => s.id !== null && !inGraph.has(s.id))
      .map((s) => reservedOfSlot(scenario.layout, s));
    return new AgentState(
      scenario.graph,
      reserved,
      scenario.params,
      scenario.pool.attributeStrength,
      Float64Array.from(scenario.theta0),
    );
  }

  /**
   * Restores a state exported by {@link toJSON}, with the evidence items it had applied (none
   * when the document has no `evidence`, see {@link StateDocument.evidence}). The items are
   * checked for form here (objects with distinct string ids); their content is checked where it
   * is used, as that of candidates given to `agentCheckSite`.
   * @throws {ArgumentError} not a state document, θ does not fit the layout, or `evidence` is not
   *   a list of items with distinct ids.
   */
  static fromJSON(doc: unknown): AgentState {
    const d = doc as Partial<StateDocument> | null;
    if (!d || typeof d !== 'object' || d.format !== STATE_FORMAT)
      throw new ArgumentError('state.format', d?.format, `must be "${STATE_FORMAT}"`);
    const g = parseGraph(d.graph);
    if (!Array.isArray(d.reserved)) throw new ArgumentError('state.reserved', d.reserved, 'must be an array');
    const st = new AgentState(
      g,
      [...d.reserved],
      resolveParams(d.params ?? {}),
      attributeStrengthOf('state.attributeStrength', d.attributeStrength ?? 1),
    );
    if (d.dim !== st.#layout.dim)
      throw new ArgumentError('state.dim', d.dim, `must equal the layout's d = ${st.#layout.dim}`);
    if (!Array.isArray(d.theta)) throw new ArgumentError('state.theta', d.theta, 'must be an array of [index, value]');
    const pairs: Array<[number, number]> = d.theta.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new ArgumentError(`state.theta[${i}]`, pair, 'must be [index, value]');
      return [
        integerInRange(`state.theta[${i}][0]`, pair[0], 0, st.#layout.dim - 1),
        finiteNumber(`state.theta[${i}][1]`, pair[1]),
      ];
    });
    st.#state = structuredFromEntries(st.#shape, st.#params, pairs, 'state.theta');
    st.#steps = d.steps === undefined ? 0 : integerInRange('state.steps', d.steps, 0);
    for (const [id, item] of appliedOf(d.evidence)) st.#applied.set(id, frozenCopy(item));
    return st;
  }

  /**
   * Makes this state the one `doc` describes, in place: as {@link fromJSON}, for a loop whose
   * code holds this object (a checkpointed agent loop restoring its state).
   * @throws as {@link fromJSON} (the state is unchanged).
   */
  restore(doc: unknown): void {
    const r = AgentState.fromJSON(doc);
    this.#graph = r.#graph;
    this.#reserved = r.#reserved;
    this.#layout = r.#layout;
    this.#shape = r.#shape;
    this.#params = r.#params;
    this.#state = r.#state;
    this.#attributeStrength = r.#attributeStrength;
    this.#steps = r.#steps;
    this.#revision++;
    this.#applied.clear();
    for (const [id, item] of r.#applied) this.#applied.set(id, item);
  }

  /** A copy of θ, dense (length d). */
  get theta(): Float64Array {
    return structuredToDense(this.#shape, this.#state);
  }
  /** The bytes the structured state holds. */
  get stateBytes(): number {
    return this.#state.bytes;
  }
  /** The layout (slots of every id known so far). */
  get layout(): Layout {
    return this.#layout;
  }
  /** Steps taken by {@link step}. */
  get steps(): number {
    return this.#steps;
  }
  /**
   * A number that changes whenever θ, the layout or the applied evidence change ({@link step},
   * {@link expand}, {@link consolidate}, {@link restore}) and only then: what is computed from the
   * state alone (its summary, an extraction prompt) may be kept while it stays the same.
   */
  get revision(): number {
    return this.#revision;
  }
  /**
   * Every evidence item applied so far ({@link step}, {@link expand}, {@link expandScheduled}),
   * one per id (the form it was last applied in), in the order of first application: what the
   * loop has seen, and the default candidates of the coverage check (`agentCheckSite`). Saved by
   * {@link toJSON} and restored by {@link fromJSON}. Each is a frozen copy taken when it was
   * applied: changing the caller's object afterwards changes nothing here.
   */
  get evidence(): readonly EvidenceInput[] {
    return [...this.#applied.values()];
  }
  /**
   * The nodes beyond the graph's that the state holds slots for: those evidence has added (for a
   * state from a scenario, also those its pool will add), each with its question (answers) or
   * parent (questions), in order of reservation.
   */
  get reserved(): readonly ReservedNode[] {
    return this.#reserved.map((r) => ({ ...r }));
  }
  /** The analytic Lipschitz bound of Q's confidence update for this state's parameters. */
  get confidenceBound(): LipschitzBound {
    return confidenceLipschitzBound(this.#params, this.#shape.maxAnswersPerQuestion);
  }

  /**
   * Validates evidence items against the current state: their JSON as a pool over the state's
   * graph and reserved nodes, and the reserved nodes after them. A node an item declares that
   * the state already reserves with the same type (and question, or parent) is the same evidence
   * drawn again (a re-application), not a duplicate id. Nothing is committed.
   * @throws {GraphFormatError} as `parseEvidencePool` (JSON paths `evidence.items[i]...`).
   */
  #validate(
    items: readonly EvidenceInput[],
    extra: { adaptiveGain?: number; attributeStrength?: number } = {},
  ): { pool: EvidencePool; reserved: ReservedNode[] } {
    // ids are non-empty, so '' stands for "no question" / "no parent"
    const key = (r: ReservedNode) => [r.type, r.id, r.question ?? '', r.parent ?? ''].join('\u0000');
    const declared = new Set(declaredNodes(items).map(key));
    const again = new Set(this.#reserved.filter((r) => declared.has(key(r))).map((r) => r.id));
    const known: EpistemicGraph = {
      ...this.#graph,
      nodes: [
        ...this.#graph.nodes,
        ...this.#reserved
          .filter((r) => !again.has(r.id))
          .map((r) => ({
            id: r.id,
            type: r.type,
            attributes: new Array<number>(this.#graph.k).fill(0),
            confidence: 1,
          })),
      ],
    };
    const pool = parseEvidencePool({ items: [...items], ...extra }, known);
    const have = new Set(this.#reserved.map((r) => r.id));
    return { pool, reserved: [...this.#reserved, ...reservedNodes(pool).filter((r) => !have.has(r.id))] };
  }

  /**
   * Validates an evidence item against the current state ({@link #validate}) and compiles it;
   * the nodes it adds get free slots of their type in a tentative layout. Nothing is committed.
   */
  #prepare(evidence: EvidenceInput): {
    item: CompiledEvidence;
    reserved: ReservedNode[];
    layout: Layout;
    graph: EpistemicGraph;
    state: StructuredGraphState;
  } {
    const { pool, reserved } = this.#validate([evidence]);
    const it: EvidenceItem = pool.items[0]!;
    if (reserved.length === this.#reserved.length)
      return {
        item: compileItem(it, this.#layout, this.#attributeStrength),
        reserved,
        layout: this.#layout,
        graph: this.#graph,
        state: this.#state,
      };
    const grown = layoutWithGrowth(this.#graph, reserved);
    // growth re-lays θ out by coordinate name (O(d), once per doubling of a capacity)
    const state = grown.grew
      ? structuredFromDense(
          operatorShape(grown.layout, this.#params.mergeDims),
          this.#params,
          relayout(this.theta, this.#layout, grown.layout),
        )
      : this.#state;
    return {
      item: compileItem(it, grown.layout, this.#attributeStrength),
      reserved,
      layout: grown.layout,
      graph: grown.graph,
      state,
    };
  }

  #commitLayout(p: {
    reserved: ReservedNode[];
    layout: Layout;
    graph: EpistemicGraph;
    state: StructuredGraphState;
  }): void {
    if (p.layout === this.#layout) return;
    this.#reserved = p.reserved;
    this.#layout = p.layout;
    this.#graph = p.graph;
    this.#shape = operatorShape(p.layout, this.#params.mergeDims);
    if (p.state === this.#state) dropScratch(p.state);
    this.#state = p.state;
  }

  /**
   * θ ← P_e(θ): incorporates one evidence item (the JSON form of a pool item: `{ id, strength,
   * claims, edges }`; claims are new nodes, edges may name any known node).
   * @throws {GraphFormatError} invalid item (JSON paths `evidence.items[0]...`), capacity exceeded;
   *   the state is unchanged.
   */
  expand(evidence: EvidenceInput): void {
    const p = this.#prepare(evidence);
    this.#commitLayout(p);
    structuredExpand(this.#shape, this.#params, this.#state, p.item);
    this.#revision++;
    this.#applied.set(p.item.id, frozenCopy(evidence));
  }

  /** θ ← Q(θ): two passes over the present edges and the merge. */
  consolidate(): void {
    structuredConsolidate(this.#shape, this.#params, this.#state);
    this.#revision++;
  }

  /**
   * Ω(θ; e) = ‖Q(P_e(θ)) − P_e(Q(θ))‖ (Eq. 2) for one evidence item, exactly, by the
   * neighbourhood pass (no pass of Q over the whole state); the state is not changed.
   * @throws as {@link expand}.
   */
  orderGap(evidence: EvidenceInput): number {
    const { item, layout, state } = this.#prepare(evidence);
    if (layout === this.#layout) return structuredOrderGap(this.#shape, this.#params, state, item);
    // a scratch built under this shape may be too small for the committed one: drop it after too
    if (state === this.#state) dropScratch(state);
    const omega = structuredOrderGap(operatorShape(layout, this.#params.mergeDims), this.#params, state, item);
    if (state === this.#state) dropScratch(state);
    return omega;
  }

  /**
   * One step of Algorithm 1: returns Ω(θ; e), then θ ← Q(P_e(θ)) — the graph's fused step on the
   * structured state (../state/state.ts), bit for bit as two full Q's give them.
   * @throws as {@link expand}; the state is unchanged on error.
   */
  step(evidence: EvidenceInput): number {
    const p = this.#prepare(evidence);
    this.#commitLayout(p);
    const omega = structuredStep(this.#shape, this.#params, this.#state, p.item);
    this.#steps++;
    this.#revision++;
    this.#applied.set(p.item.id, frozenCopy(evidence));
    return omega;
  }

  /**
   * Expansion with consolidation scheduling (Sec. 7.3): measures Ω(θ; e) exactly without running
   * Q ({@link orderGap}), applies P_e, records Ω in `schedule`, and runs Q (then resets the
   * schedule) only once the order-gap accumulated since the last consolidation exceeds its
   * threshold — so a step that does not consolidate costs no pass of Q.
   * @throws as {@link expand}; nothing changes on error.
   */
  expandScheduled(evidence: EvidenceInput, schedule: ConsolidationSchedule): { omega: number; consolidated: boolean } {
    const omega = this.orderGap(evidence);
    this.expand(evidence);
    const due = schedule.record(omega);
    if (due) {
      this.consolidate();
      schedule.consolidated();
    }
    return { omega, consolidated: due };
  }

  /**
   * A scenario at the current state whose pool is `candidates` — the items the loop could still
   * draw (drawn already or not): its layout holds the state's nodes and the nodes the candidates
   * add (capacities grow if needed, names kept), its θ0 is the current θ carried over, and
   * P(·|θ) is the adaptive distribution with gain `adaptiveGain` (default 2, as the default
   * scenario). `referenceGraphSystem(scenario)` makes it an operator system for the pool check,
   * the coverage check and certify. Nothing is committed.
   * @throws {GraphFormatError} an invalid candidate (JSON paths `evidence.items[i]...`).
   */
  scenarioWith(candidates: readonly EvidenceInput[], options: { adaptiveGain?: number } = {}): Scenario {
    const { pool, reserved } = this.#validate(candidates, {
      adaptiveGain: options.adaptiveGain ?? 2,
      attributeStrength: this.#attributeStrength,
    });
    const grown = layoutWithGrowth(this.#graph, reserved);
    const theta = relayout(this.theta, this.#layout, grown.layout);
    const shape = operatorShape(grown.layout, this.#params.mergeDims);
    const items = pool.items.map((it) => compileItem(it, grown.layout, this.#attributeStrength));
    return Object.freeze({
      graph: grown.graph,
      pool,
      layout: grown.layout,
      shape,
      params: this.#params,
      items: Object.freeze(items),
      itemById: new Map(items.map((it) => [it.id, it])),
      theta0: theta,
      run: { ...GRAPH_RUN_DEFAULTS, ...pool.run },
      bound: confidenceLipschitzBound(this.#params, shape.maxAnswersPerQuestion),
    });
  }

  /**
   * The state in words (answers, open questions, questions promoted to PartialAnswers,
   * contradictions, merged claims) at δ, read from the structured state (no dense θ is formed;
   * see {@link describeStructured}).
   */
  describe(delta = 0.5): StateSummary {
    return describeStructured(this.#asScenario(), this.#state, delta);
  }

  /** The agent as a scenario with no pool; θ0 (dense, O(d)) is formed only if read. */
  #asScenario(): Scenario {
    const dense = () => this.theta;
    return {
      graph: this.#graph,
      pool: { items: [], adaptiveGain: 0, attributeStrength: this.#attributeStrength, operators: {}, run: {} },
      layout: this.#layout,
      shape: this.#shape,
      params: this.#params,
      items: [],
      itemById: new Map(),
      get theta0() {
        return dense();
      },
      run: GRAPH_RUN_DEFAULTS,
      bound: this.confidenceBound,
    };
  }

  /** The state as a JSON document (see {@link StateDocument}). */
  toJSON(): StateDocument {
    // the non-zeros in ascending index order: entry for entry the dense vector's
    const theta = structuredEntries(this.#shape, this.#state);
    return {
      format: STATE_FORMAT,
      graph: graphToJson(this.#graph),
      reserved: this.#reserved.map((r) => ({ ...r })),
      params: { ...this.#params },
      attributeStrength: this.#attributeStrength,
      theta,
      dim: this.#layout.dim,
      steps: this.#steps,
      // a JSON copy: what save() writes, and a document independent of the state
      evidence: JSON.parse(JSON.stringify(this.evidence)) as EvidenceInput[],
      summary: this.describe(),
    };
  }

  /**
   * Writes {@link toJSON} to `file` atomically: the document goes to a fresh temporary file in
   * the same directory, which is then renamed over `file`. A failure at any point (including a
   * crash mid-write) leaves the previous `file` intact; the temporary file is removed on error.
   * @throws the underlying I/O error (after cleaning up).
   */
  async save(file: string, io: SaveIo = nodeAtomicWriteIo): Promise<void> {
    await writeFileAtomic(file, JSON.stringify(this.toJSON()) + '\n', io);
  }
}
