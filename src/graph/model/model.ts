/**
 * The epistemic state graph of Def. 2.1: S = (V, E, ℓ, c, w).
 *
 * - Nodes are `claim`, `answer` (PartialAnswer) or `question` (OpenQuestion), each with a
 *   stable id, an attribute vector ℓ(v) ∈ R^k (text embedding + source code) and a confidence
 *   c(v) ∈ (0, 1]. An answer names the question it answers (`question`): which answer slots
 *   compete for one question is part of the layout, not of the embedded state.
 * - Edges are typed and directed with weight w ∈ (0, 1]. Type rules (Sec. 2.2):
 *   Supports: claim → claim | claim → answer (a claim's self-Supports edge is its direct
 *   evidential support from its source), and question → itself (its resolution support: the
 *   question is promoted to a PartialAnswer, Sec. 3.1, once it reaches the promotion threshold);
 *   Requires: answer | claim → question;
 *   Contradicts: claim — claim (stored as given, read symmetrically; no self-loop).
 * - Consistency at δ ∈ (0, 1): no Contradicts edge joins two nodes with both c > δ.
 *
 * Graph objects are plain frozen data; every constructor validates (see ./schema.ts for the
 * JSON form) and never returns a half-valid graph.
 */
import { ArgumentError } from '../../util/errors.js';
import { openInterval } from '../../util/validate.js';

/** Node types of Def. 2.1, in the canonical slot order of the embedding. */
export const NODE_TYPES = ['claim', 'answer', 'question'] as const;
/** A node type. */
export type NodeType = (typeof NODE_TYPES)[number];

/** A node type with its indefinite article, for messages: "a claim", "an answer", "a question". */
export function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** Edge types of Def. 2.1, in the type-major order of the edge block. */
export const EDGE_TYPES = ['Supports', 'Requires', 'Contradicts'] as const;
/** An edge type. */
export type EdgeType = (typeof EDGE_TYPES)[number];

/** One node. */
export interface GraphNode {
  readonly id: string;
  readonly type: NodeType;
  /** ℓ(v) ∈ R^k. */
  readonly attributes: readonly number[];
  /** c(v) ∈ (0, 1]. For a question, its openness. */
  readonly confidence: number;
  /** For answers: the id of the question this answer competes for. */
  readonly question?: string;
  /** Human-readable text (not embedded). */
  readonly text?: string;
  /** Source name (not embedded; its numeric code may live in ℓ). */
  readonly source?: string;
}

/** One typed, directed, weighted edge. */
export interface GraphEdge {
  readonly type: EdgeType;
  readonly source: string;
  readonly target: string;
  /** w(e) ∈ (0, 1]. */
  readonly weight: number;
}

/** Slot capacities per node type; Nmax is their sum. */
export interface Capacities {
  readonly claims: number;
  readonly answers: number;
  readonly questions: number;
}

/** An epistemic state graph with its attribute dimension k and capacities. */
export interface EpistemicGraph {
  /** Attribute dimension k >= 1. */
  readonly k: number;
  readonly capacities: Capacities;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /**
   * Pending edges: edges an evidence item has written before one or both of their endpoints is a
   * node — a node another item will add, which has a reserved slot in the layout
   * (./layout.ts) but is not in `nodes` yet. Same fields and type rules as `edges`; absent when
   * there are none. They are part of the embedded state (φ writes them, φ⁻¹ reports them) but
   * not of the graph's structure: consistency and everything else read `edges` only.
   */
  readonly pendingEdges?: readonly GraphEdge[];
}

/**
 * Whether an edge of type `type` may run from a node of type `from` to one of type `to`
 * (Sec. 2.2); `self`: the edge runs from a node to itself. Self-loops are allowed only for
 * Supports, on a claim (its direct support) or a question (its resolution support); a question
 * has no other Supports edge.
 */
export function edgeTypeFits(type: EdgeType, from: NodeType, to: NodeType, self = false): boolean {
  switch (type) {
    case 'Supports':
      if (from === 'question') return self && to === 'question';
      return from === 'claim' && (to === 'claim' || to === 'answer');
    case 'Requires':
      return (from === 'answer' || from === 'claim') && to === 'question';
    case 'Contradicts':
      return from === 'claim' && to === 'claim';
  }
}

/** Human-readable statement of the type rule for errors. */
export const EDGE_TYPE_RULES: Readonly<Record<EdgeType, string>> = Object.freeze({
  Supports:
    "Supports runs claim -> claim or claim -> answer, or from a question to itself (the question's resolution support)",
  Requires: 'Requires runs answer -> question or claim -> question',
  Contradicts: 'Contradicts joins two different claims',
});

/** A Contradicts edge whose two endpoints both exceed δ. */
export interface ConsistencyViolation {
  readonly source: string;
  readonly target: string;
  readonly weight: number;
  readonly sourceConfidence: number;
  readonly targetConfidence: number;
}

/** Result of {@link checkConsistency}. */
export interface ConsistencyReport {
  readonly delta: number;
  readonly consistent: boolean;
  readonly violations: readonly ConsistencyViolation[];
}

/**
 * Consistency at threshold δ (Sec. 2.2): the graph is consistent iff no Contradicts edge joins
 * u, v with c(u) > δ and c(v) > δ. Returns every violating pair. Cost O(|V| + |E|).
 * @throws {ArgumentError} δ outside (0, 1).
 * @example
 * ```ts
 * checkConsistency(graph, 0.5).violations; // [{ source: 'c1', target: 'c2', ... }]
 * ```
 */
export function checkConsistency(graph: EpistemicGraph, delta: number): ConsistencyReport {
  openInterval('delta', delta, 0, 1);
  const conf = new Map(graph.nodes.map((n) => [n.id, n.confidence]));
  const violations: ConsistencyViolation[] = [];
  for (const e of graph.edges) {
    if (e.type !== 'Contradicts') continue;
    const cu = conf.get(e.source);
    const cv = conf.get(e.target);
    if (cu === undefined || cv === undefined) {
      throw new ArgumentError('graph.edges', `${e.source} -> ${e.target}`, 'names a node the graph does not have');
    }
    if (cu > delta && cv > delta) {
      violations.push(
        Object.freeze({
          source: e.source,
          target: e.target,
          weight: e.weight,
          sourceConfidence: cu,
          targetConfidence: cv,
        }),
      );
    }
  }
  return Object.freeze({ delta, consistent: violations.length === 0, violations: Object.freeze(violations) });
}

/** Nmax = claims + answers + questions. */
export function nmaxOf(capacities: Capacities): number {
  return capacities.claims + capacities.answers + capacities.questions;
}
