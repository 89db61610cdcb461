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
 * A failed tool call brings no evidence; the report lists it (`toolErrors`: message index, tool
 * name, call id, message) instead of dropping it. LangGraph's `ToolNode` turns a tool that throws
 * into a tool message with status 'error' and content `Error: <message>\n Please fix your
 * mistakes.`; a tool message with status 'error', or without a status whose content is an Error
 * or text starting `Error: ` (as earlier `ToolNode` releases and hand-written tool nodes write),
 * is a failed call. Its message is that text without the `Error: ` prefix and the `ToolNode`'s
 * closing line: the thrown error's message.
 *
 * With a stopper of policy `redirect`, the report a refused blind stop writes names the questions
 * failing the coverage check (`orderGap.targetQuestions`: the question, what failed, the applied
 * items addressing it); the stopper keeps them until its next candidate stop
 * (`stopper.targetQuestions`), for the agent node to aim its next retrieval at.
 *
 * `@langchain/langgraph` is an optional peer: importing this subpath needs it installed.
 */
import { Annotation, END } from '@langchain/langgraph';
import type { CoverageStopper } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { ArgumentTypeError } from '../util/errors.js';
import { pushAll } from '../util/arrays.js';
import { checkAdapterOptions, errorMessage, EvidenceFeed, isEvidenceItem } from './evidence.js';
import type { ToolCallError, ToolErrorsReport } from './evidence.js';

export { isEvidenceItem, type ToolCallError } from './evidence.js';

/** A failed tool call: a tool message that reports an error (module comment). */
export interface LangGraphToolCallError extends ToolCallError {
  /** Index of the tool message in the graph state's `messages`. */
  readonly messageIndex: number;
}

/**
 * The stop report {@link orderGapNode} writes: the stopper's, with every failed tool call read
 * (`toolErrors`). `step` counts the evidence items applied.
 */
export type LangGraphStopReport = ToolErrorsReport<LangGraphToolCallError>;

/** The graph-state field holding the latest stop report (last value wins; null before any evidence). */
export function orderGapChannel() {
  return Annotation<LangGraphStopReport | null>({ reducer: (_old, next) => next, default: () => null });
}

/** A graph state with messages (the default source of evidence) and the stop report. */
export interface OrderGapGraphState {
  messages?: readonly unknown[];
  orderGap?: LangGraphStopReport | null;
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

/** The node {@link orderGapNode} returns, with the failed tool calls and the Ω of every applied item. */
export type OrderGapNode<S> = ((graphState: S) => Promise<{ orderGap: LangGraphStopReport | null }>) & {
  /** Every failed tool call read so far, also before the first evidence item. */
  readonly toolErrors: readonly LangGraphToolCallError[];
  /** Ω(θ; e) of each applied item, in order. */
  readonly omegas: readonly number[];
};

function parseContent(x: unknown): unknown {
  if (typeof x !== 'string') return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return undefined;
  }
}

/** The fields of a tool message read here, from a message object or its plain form. */
interface ToolMessageFields {
  content?: unknown;
  artifact?: unknown;
  status?: unknown;
  name?: unknown;
  tool_call_id?: unknown;
}

/** The message as a tool message, or null when it is none. */
function asToolMessage(m: unknown): ToolMessageFields | null {
  const x = m as { getType?: () => string; type?: string } | null;
  const type = typeof x?.getType === 'function' ? x.getType() : x?.type;
  return type === 'tool' ? (x as ToolMessageFields) : null;
}

/** `Error: <message>`, with the closing line LangGraph's ToolNode adds (module comment). */
const ERROR_TEXT = /^Error: ([\s\S]*?)(?:\n Please fix your mistakes\.)?$/;

/** The text of a message's content: a string, the text of its content blocks, else its JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b) => (typeof b === 'string' ? b : String((b as { text?: unknown } | null)?.text ?? '')))
      .join('');
  return JSON.stringify(content) ?? String(content);
}

/** The error message of a tool message that reports a failed call, else null (module comment). */
function toolErrorMessage(m: ToolMessageFields): string | null {
  if (m.status === 'success') return null;
  if (m.content instanceof Error) return errorMessage(m.content);
  const text = contentText(m.content);
  const match = ERROR_TEXT.exec(text);
  if (m.status === 'error') return match ? match[1]! : text;
  return match && m.status === undefined ? match[1]! : null;
}

/** The tool's name: the message's own, else that of its call in an earlier AI message ('' when neither names it). */
function toolNameOf(msgs: readonly unknown[], index: number, m: ToolMessageFields): string {
  if (typeof m.name === 'string' && m.name !== '') return m.name;
  for (let j = index - 1; j >= 0; j--) {
    const calls = (msgs[j] as { tool_calls?: unknown } | null)?.tool_calls;
    const call = Array.isArray(calls)
      ? (calls as Array<{ id?: unknown; name?: unknown } | null>).find((c) => c?.id === m.tool_call_id)
      : undefined;
    if (typeof call?.name === 'string') return call.name;
  }
  return '';
}

/** The failed tool calls among `messages[from, to)` (module comment). */
function toolErrorsIn(msgs: readonly unknown[], from: number, to: number): LangGraphToolCallError[] {
  const out: LangGraphToolCallError[] = [];
  for (let i = from; i < Math.min(to, msgs.length); i++) {
    const m = asToolMessage(msgs[i]);
    const message = m && toolErrorMessage(m);
    if (m && message !== null)
      out.push({
        messageIndex: i,
        toolName: toolNameOf(msgs, i, m),
        toolCallId: typeof m.tool_call_id === 'string' ? m.tool_call_id : '',
        message,
      });
  }
  return out;
}

/**
 * The default `evidenceOf`: evidence items in tool messages after index `processed` (a failed
 * call's message brings none).
 */
export function evidenceFromToolMessages(
  graphState: OrderGapGraphState,
  processed: number,
): { items: EvidenceInput[]; processed: number } {
  const msgs = graphState.messages ?? [];
  const items: EvidenceInput[] = [];
  for (let i = processed; i < msgs.length; i++) {
    const m = asToolMessage(msgs[i]);
    if (!m || toolErrorMessage(m) !== null) continue;
    const cand = [m.artifact, parseContent(m.content)].find(isEvidenceItem);
    if (cand) items.push(cand);
  }
  return { items, processed: msgs.length };
}

/**
 * The node that applies new evidence and writes the stop report to `orderGap` (module comment):
 * `{ orderGap }`, the latest report with the failed tool calls read so far (the stop report
 * again once one said stop; null before the first evidence item). The failed calls are read
 * from the same new `messages` as the evidence.
 * @throws {ArgumentTypeError} state, stopper or a callback of the wrong type.
 */
export function orderGapNode<S extends OrderGapGraphState = OrderGapGraphState>(
  options: OrderGapNodeOptions<S>,
): OrderGapNode<S> {
  checkAdapterOptions(options);
  const { state, stopper } = options;
  const evidenceOf = options.evidenceOf ?? evidenceFromToolMessages;
  const feed = new EvidenceFeed<LangGraphToolCallError>(state, stopper, options.candidates, options.adaptiveGain);
  let processed = 0;
  const node = async (graphState: S) => {
    const prev = graphState.orderGap ?? null;
    if (prev?.stop) return { orderGap: prev };
    const next = evidenceOf(graphState, processed);
    pushAll(feed.toolErrors, toolErrorsIn(graphState.messages ?? [], processed, next.processed));
    processed = next.processed;
    await feed.feed(next.items);
    return { orderGap: feed.report({}) ?? prev };
  };
  Object.defineProperties(node, {
    toolErrors: { get: () => feed.toolErrors, enumerable: true },
    omegas: { get: () => feed.omegas, enumerable: true },
  });
  return node as OrderGapNode<S>;
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
