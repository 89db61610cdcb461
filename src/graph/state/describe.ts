/**
 * The state θ of a scenario in words: answers with confidences, questions with their openness
 * (and the parent of a sub-question evidence added), open questions left, questions promoted to
 * PartialAnswers (Sec. 3.1: resolution support S_qq >= τ_promote), contradictions left (and
 * those resolved by downweighting), merged claims, pending edges (edges an item has written
 * before one of their endpoints is a node: the `pendingEdges` of `decode`). Reads θ directly
 * (no decode).
 */
import { ArgumentError } from '../../util/errors.js';
import type {
  AnswerSummary,
  ContradictionSummary,
  MergeSummary,
  PromotionSummary,
  QuestionSummary,
  StateSummary,
} from '../../system/types.js';
import { openInterval } from '../../util/validate.js';
import { maxOf } from '../../util/arrays.js';
import type { EdgeBlockIndex } from '../operators/consolidate.js';
import { confidenceIndex, edgeIndex, edgeTypeIndex, nodeOffset } from '../model/layout.js';
import { EDGE_TYPES } from '../model/model.js';
import type { Scenario } from '../scenarios/scenario.js';
import {
  forEachStructuredEdge,
  structuredEdge,
  structuredMergeNeighbours,
  type StructuredGraphState,
} from './state.js';

/** What {@link summarise} reads of a state: the dense θ and the structured state answer alike. */
interface StateReader {
  /** θ at a node-block index. */
  node(index: number): number;
  /** S_ss, the Supports diagonal of slot s (a claim's direct support, a question's resolution support). */
  support(s: number): number;
  /** Calls f(i, j, w) for every non-zero Contradicts edge i → j between claims, i then j ascending. */
  contradictions(f: (i: number, j: number, w: number) => void): void;
  /** Claims j > i that may lie within the merge radius of claim i, ascending (a superset of those that do). */
  mergeCandidates(i: number): Iterable<number>;
  /** Calls f(t, j, i, w) for every non-zero edge j → i of block t, in (t, j, i) order. */
  edges(f: (t: number, j: number, i: number, w: number) => void): void;
}

/**
 * Summarises θ. δ is the consistency threshold and the openness threshold. O(Nmax² + C²k).
 * @throws {ArgumentError} θ of the wrong length; δ outside (0, 1).
 */
export function describeState(scenario: Scenario, theta: Float64Array, delta = 0.5): StateSummary {
  openInterval('delta', delta, 0, 1);
  const { layout, shape } = scenario;
  if (theta.length !== layout.dim) throw new ArgumentError('theta', theta, `must have length d = ${layout.dim}`);
  const t = edgeTypeIndex('Contradicts');
  return summarise(scenario, delta, {
    node: (index) => theta[index]!,
    support: (s) => theta[edgeIndex(layout, 'Supports', s, s)]!,
    contradictions: (f) => {
      for (let i = 0; i < shape.claims; i++)
        for (let j = 0; j < shape.claims; j++) {
          const w = theta[edgeIndex(layout, t, i, j)]!;
          if (w !== 0) f(i, j, w);
        }
    },
    mergeCandidates: function* (i) {
      for (let j = i + 1; j < shape.claims; j++) yield j;
    },
    edges: (f) => {
      const n = shape.nmax;
      for (let b = 0; b < 3; b++)
        for (let j = 0; j < n; j++)
          for (let i = 0; i < n; i++) {
            const w = theta[edgeIndex(layout, b, j, i)]!;
            if (w !== 0) f(b, j, i, w);
          }
    },
  });
}

/**
 * {@link describeState} of a structured state ({@link StructuredGraphState}): the same summary,
 * entry for entry, as `describeState(scenario, structuredToDense(shape, state), delta)`, without
 * forming the dense θ. O(Nmax + present edges + merge neighbours): the contradictions are read
 * from the Contradicts block's non-zeros and the merged pairs from the state's neighbour lists
 * (built on first use), which hold every pair of live claims within the merge radius.
 * @throws {ArgumentError} δ outside (0, 1); a state of another shape.
 */
export function describeStructured(scenario: Scenario, state: StructuredGraphState, delta = 0.5): StateSummary {
  openInterval('delta', delta, 0, 1);
  const { shape, params } = scenario;
  if (state.nodes.length !== shape.edgeOffset)
    throw new ArgumentError('state', `node block of ${state.nodes.length}`, `must have ${shape.edgeOffset} entries`);
  const t = edgeTypeIndex('Contradicts');
  return summarise(scenario, delta, {
    node: (index) => state.nodes[index]!,
    support: (s) => structuredEdge(state, edgeTypeIndex('Supports') as EdgeBlockIndex, s, s),
    contradictions: (f) =>
      forEachStructuredEdge(state, (b, i, j, w) => {
        if (b === t && i < shape.claims && j < shape.claims) f(i, j, w);
      }),
    mergeCandidates: (i) => structuredMergeNeighbours(shape, params, state, i).filter((j) => j > i),
    edges: (f) => forEachStructuredEdge(state, f),
  });
}

function summarise(scenario: Scenario, delta: number, read: StateReader): StateSummary {
  const { layout, shape } = scenario;
  const conf = (s: number) => read.node(confidenceIndex(layout, s));
  const idOf = (s: number) => layout.slots[s]!.id ?? `slot ${s}`;
  const answers: AnswerSummary[] = [];
  const bestAnswer = new Map<number, number>(); // question slot → its best answer's slot
  for (const g of shape.groups) {
    const cs = Array.from(g.answers, (a) => conf(a));
    const bestC = maxOf(cs);
    g.answers.forEach((a, t) =>
      answers.push({
        question: idOf(g.question),
        answer: idOf(a),
        text: layout.slots[a]!.text ?? null,
        confidence: cs[t]!,
        best: cs[t] === bestC && bestC > 0,
      }),
    );
    if (bestC > 0) bestAnswer.set(g.question, g.answers[cs.indexOf(bestC)]!);
  }
  const questions: QuestionSummary[] = [];
  const promoted: PromotionSummary[] = [];
  const threshold = scenario.params.promotionThreshold;
  for (let q = shape.firstQuestion; q < shape.nmax; q++) {
    if (layout.slots[q]!.id === null) continue;
    const c = conf(q);
    const text = layout.slots[q]!.text ?? null;
    const support = read.support(q);
    const isPromoted = support >= threshold;
    const summary: QuestionSummary = {
      question: idOf(q),
      text,
      openness: c,
      open: c > delta && !isPromoted,
      promoted: isPromoted,
    };
    const parent = layout.slots[q]!.parentSlot;
    if (parent !== undefined) summary.parent = idOf(parent);
    questions.push(summary);
    if (!isPromoted) continue;
    const a = bestAnswer.get(q);
    promoted.push({
      question: idOf(q),
      text,
      support,
      threshold,
      answer: a === undefined ? null : idOf(a),
      answerText: a === undefined ? null : (layout.slots[a]!.text ?? null),
      confidence: a === undefined ? 0 : conf(a),
    });
  }
  const present = (s: number) => read.support(s) > 0 && conf(s) > 0;
  const contradictions: ContradictionSummary[] = [];
  read.contradictions((i, j, w) => {
    if (!present(i) || !present(j)) return;
    const ci = conf(i);
    const cj = conf(j);
    contradictions.push({
      source: idOf(i),
      target: idOf(j),
      weight: w,
      sourceConfidence: ci,
      targetConfidence: cj,
      violating: ci > delta && cj > delta,
      weaker: ci <= cj ? idOf(i) : idOf(j),
    });
  });
  const targets = new Map<number, Float64Array>();
  for (const it of scenario.items)
    for (const c of scenario.pool.items.find((x) => x.id === it.id)!.claims)
      targets.set(layout.slotOf.get(c.id)!, Float64Array.from(c.attributes));
  const graphAttr = new Map(
    scenario.graph.nodes.map((n) => [layout.slotOf.get(n.id)!, Float64Array.from(n.attributes)]),
  );
  const md = shape.mergeDims;
  const h = scenario.params.mergeRadius;
  const merged: MergeSummary[] = [];
  for (let i = 0; i < shape.claims; i++) {
    if (!present(i)) continue;
    for (const j of read.mergeCandidates(i)) {
      if (!present(j)) continue;
      const oi = nodeOffset(layout, i);
      const oj = nodeOffset(layout, j);
      let d2 = 0;
      for (let t = 0; t < md; t++) d2 += (read.node(oi + t) - read.node(oj + t)) ** 2;
      if (d2 >= h * h) continue;
      const ti = targets.get(i) ?? graphAttr.get(i);
      const tj = targets.get(j) ?? graphAttr.get(j);
      let o2: number | null = null;
      if (ti && tj) {
        o2 = 0;
        for (let t = 0; t < md; t++) o2 += (ti[t]! - tj[t]!) ** 2;
      }
      merged.push({
        claims: [idOf(i), idOf(j)],
        sources: [layout.slots[i]!.source ?? null, layout.slots[j]!.source ?? null],
        distance: Math.sqrt(d2),
        originalDistance: o2 === null ? null : Math.sqrt(o2),
      });
    }
  }
  const claims: StateSummary['claims'] = [];
  for (let i = 0; i < shape.claims; i++)
    if (present(i)) claims.push({ id: idOf(i), confidence: conf(i), source: layout.slots[i]!.source ?? null });
  // decode's rule: a slot is a node iff one of its k + 1 coordinates is non-zero
  const isNode = (s: number) => {
    for (let j = 0, o = nodeOffset(layout, s); j <= layout.k; j++) if (read.node(o + j) !== 0) return true;
    return false;
  };
  const pendingEdges: NonNullable<StateSummary['pendingEdges']> = [];
  read.edges((t, j, i, w) => {
    if (!isNode(j) || !isNode(i))
      pendingEdges.push({ type: EDGE_TYPES[t]!, source: idOf(j), target: idOf(i), weight: w });
  });
  return {
    delta,
    answers,
    questions,
    openQuestions: questions.filter((q) => q.open).map((q) => q.question),
    promoted,
    contradictions,
    contradictionsLeft: contradictions.filter((c) => c.violating).length,
    merged,
    claims,
    pendingEdges,
  };
}
