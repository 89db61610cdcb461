/**
 * `ordergap/langgraph`: the order-gap stop for LangGraph.js. LangGraph's own stop is a step cap
 * (`recursionLimit`, which raises GraphRecursionError); here a node applies the evidence items
 * that arrived since its last run to the `AgentState` and writes the `CoverageStopper`'s stop
 * report into the graph state (channel `orderGap`), and a conditional edge routes to END when
 * that report says stop — the windowed order-gap below ε (Eq. 3) with the coverage check and
 * policy of src/coverageStop.
 *
 * ```ts
 * import { Annotation, MessagesAnnotation, StateGraph, START } from '@langchain/langgraph';
 * import { orderGapChannel, orderGapNode, routeOnOrderGap } from 'ordergap/langgraph';
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, orderGap: orderGapChannel() });
 * const graph = new StateGraph(State)
 *   .addNode('agent', callModel).addNode('tools', toolNode)
 *   .addNode('checkStop', orderGapNode({ state, stopper }))
 *   .addEdge(START, 'agent').addEdge('agent', 'tools').addEdge('tools', 'checkStop')
 *   .addConditionalEdges('checkStop', routeOnOrderGap('agent'))
 *   .compile();
 * ```
 * `@langchain/langgraph` is an optional peer: importing this subpath needs it installed.
 */
import { Annotation, END } from '@langchain/langgraph';
import type { CoverageStopper, StopReport } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { ArgumentTypeError } from '../util/errors.js';
import { checkAdapterOptions, EvidenceFeed, isEvidenceItem } from './evidence.js';

export { isEvidenceItem } from './evidence.js';

/** The graph-state field holding the latest stop report (last value wins; null before any evidence). */
export function orderGapChannel() {
  return Annotation<StopReport | null>({ reducer: (_old, next) => next, default: () => null });
}

/** A graph state with messages (the default source of evidence) and the stop report. */
export interface OrderGapGraphState {
  messages?: readonly unknown[];
  orderGap?: StopReport | null;
}

/** Options of {@link orderGapNode}. */
export interface OrderGapNodeOptions<S> {
  state: AgentState;
  stopper: CoverageStopper;
  /**
   * The evidence items of the graph state that this node has not seen yet, given how many
   * `messages` it had processed (default: the tool messages after that index whose content — a
   * JSON string or an object, or their `artifact` — is an evidence item).
   */
  evidenceOf?: (graphState: S, processed: number) => { items: readonly EvidenceInput[]; processed: number };
  /** Candidates for the coverage check (default: every evidence item the state has applied, `AgentState.evidence`). */
  candidates?: () => readonly EvidenceInput[];
  /** Adaptive gain of P(·|θ) over the candidates in the coverage check (default 2, see `AgentState.scenarioWith`). */
  adaptiveGain?: number;
}

function parseContent(x: unknown): unknown {
  if (typeof x !== 'string') return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return undefined;
  }
}

/** The default `evidenceOf`: evidence items in tool messages after index `processed`. */
export function evidenceFromToolMessages(
  graphState: OrderGapGraphState,
  processed: number,
): { items: EvidenceInput[]; processed: number } {
  const msgs = graphState.messages ?? [];
  const items: EvidenceInput[] = [];
  for (let i = processed; i < msgs.length; i++) {
    const m = msgs[i] as { getType?: () => string; type?: string; content?: unknown; artifact?: unknown } | null;
    const type = typeof m?.getType === 'function' ? m.getType() : m?.type;
    if (type !== 'tool') continue;
    const cand = [m?.artifact, parseContent(m?.content)].find(isEvidenceItem);
    if (cand) items.push(cand);
  }
  return { items, processed: msgs.length };
}

/**
 * The node that applies new evidence and writes the stop report to `orderGap` (module comment).
 * Returns `{ orderGap }` (the previous report again when no new evidence arrived).
 * @throws {ArgumentTypeError} state, stopper or a callback of the wrong type.
 */
export function orderGapNode<S extends OrderGapGraphState = OrderGapGraphState>(
  options: OrderGapNodeOptions<S>,
): (graphState: S) => Promise<{ orderGap: StopReport | null }> {
  checkAdapterOptions(options);
  const { state, stopper } = options;
  const evidenceOf = options.evidenceOf ?? evidenceFromToolMessages;
  const feed = new EvidenceFeed(state, stopper, options.candidates, options.adaptiveGain);
  let processed = 0;
  return async (graphState: S) => {
    const prev = graphState.orderGap ?? null;
    if (prev?.stop) return { orderGap: prev };
    const next = evidenceOf(graphState, processed);
    processed = next.processed;
    const r = await feed.feed(next.items);
    return { orderGap: r ?? prev };
  };
}

/**
 * The conditional edge: END when the stop report says stop, else `next`.
 * @example
 * ```ts
 * graph.addConditionalEdges('checkStop', routeOnOrderGap('agent'));
 * ```
 */
export function routeOnOrderGap<N extends string>(next: N): (graphState: OrderGapGraphState) => N | typeof END {
  if (typeof next !== 'string' || next === '') throw new ArgumentTypeError('next', next, 'must be a node name');
  return (graphState) => (graphState.orderGap?.stop ? END : next);
}
