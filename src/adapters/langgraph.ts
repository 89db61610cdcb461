/**
 * `ordergap/langgraph`: the order-gap stop for LangGraph.js. LangGraph's own stop is a step cap
 * (`recursionLimit`, which raises GraphRecursionError); here a node applies the evidence items
 * that arrived since its last run to the `AgentState` and writes the `CoverageStopper`'s stop
 * report into the graph state (channel `orderGap`), and a conditional edge routes to END when
 * that report says stop — the windowed order-gap below ε (Eq. 3) with the coverage check and
 * policy of src/coverageStop.
 *
 * ```ts
 * import { Annotation, MemorySaver, MessagesAnnotation, StateGraph, START } from '@langchain/langgraph';
 * import { OrderGapAnnotation, orderGapNode, routeOnOrderGap } from 'ordergap/langgraph';
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...OrderGapAnnotation.spec });
 * const checkStop = orderGapNode({ state, stopper });
 * const graph = new StateGraph(State)
 *   .addNode('agent', callModel).addNode('tools', toolNode)
 *   .addNode('checkStop', checkStop)
 *   .addEdge(START, 'agent').addEdge('agent', 'tools').addEdge('tools', 'checkStop')
 *   .addConditionalEdges('checkStop', routeOnOrderGap('agent'))
 *   .compile({ checkpointer: new MemorySaver() });
 * ```
 *
 * Checkpoints. `OrderGapAnnotation` adds two fields: `orderGap`, the stop report, and
 * `orderGapState`, the order-gap state as plain JSON (`OrderGapCheckpoint`: the AgentState's
 * document `state.toJSON()`, the stopper's `snapshot()`, the Ω of every applied item, the
 * failed tool calls, and `processed`, how many messages the node has consumed). The node writes
 * both in one update, so a checkpointer saves them with the messages they account for. The
 * AgentState and stopper given to `orderGapNode` hold the state of the run's start; at each run
 * the node makes them, in place, those of the graph state's `orderGapState` (a no-op while they
 * already are). A graph compiled with a checkpointer and stopped midway — `interruptBefore` /
 * `interruptAfter`, a GraphRecursionError, a stream left early — and resumed on the same
 * thread (`invoke(null, { configurable: { thread_id } })`), also by a graph built from scratch
 * with new objects, or from an earlier checkpoint (time travel), applies each item once and
 * stops at the step, with the report and θ (bit for bit), of the uninterrupted run; a thread
 * without a checkpoint starts from the state the node was built with. A node that reads the
 * state or the stopper before `checkStop` in a step (an agent aiming at
 * `stopper.targetQuestions`, a tool building items against the state) calls
 * `checkStop.sync(graphState)` first. Limits: the objects serve one run at a time (concurrent
 * runs of one compiled graph need a graph each); the stopper's rule must have `snapshot()` /
 * `restore()` (the order-gap rule has); the checkpoint grows with the state's document and the
 * stopper's checks (a JSON copy per step). With `orderGapChannel()` alone the order-gap state
 * lives only in the node's objects: the run cannot be resumed from a checkpoint, and a node
 * whose stopper is not at the step of the graph state's report refuses to run.
 *
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
 * `documentQaGraph` is a prebuilt graph: the document-QA loop of `answerQuestion` (Sec. 7.1–7.3)
 * with its whole state in the graph state, resumable from a checkpoint the same way
 * (src/adapters/langgraph/documentQaGraph.ts).
 *
 * `@langchain/langgraph` is an optional peer: importing this subpath needs it installed.
 */
import { Annotation, END } from '@langchain/langgraph';
import type { CoverageStopper } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { pushAll } from '../util/arrays.js';
import { integerInRange } from '../util/validate.js';
import { CheckpointCache, lastValue } from './langgraph/checkpoint.js';
import { checkAdapterOptions, errorMessage, EvidenceFeed, isEvidenceItem } from './evidence.js';
import type { FeedSnapshot, ToolCallError, ToolErrorsReport } from './evidence.js';

export { isEvidenceItem, type ToolCallError } from './evidence.js';
export { documentQaGraph, type DocumentQaGraphState, type DocumentQaReport } from './langgraph/documentQaGraph.js';
export type { AnswerQuestionOptions, AnswerEvent, DocumentQaProgress } from './documentQa/answerQuestion.js';

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
  return lastValue<LangGraphStopReport>();
}

/**
 * The order-gap state {@link orderGapNode} keeps in the graph state (channel `orderGapState`):
 * plain JSON, so a checkpointer saves it with the messages (module comment).
 */
export interface OrderGapCheckpoint extends FeedSnapshot<LangGraphToolCallError> {
  /** How many `messages` the node has consumed: the next run reads from this index. */
  readonly processed: number;
}

/**
 * The graph-state fields of the order-gap stop, to spread into a state annotation:
 * `orderGap` (the stop report, {@link orderGapChannel}) and `orderGapState` (the
 * {@link OrderGapCheckpoint} a checkpointer saves and a resumed run restores; module comment).
 */
export const OrderGapAnnotation = Annotation.Root({
  orderGap: orderGapChannel(),
  orderGapState: lastValue<OrderGapCheckpoint>(),
});

/** A graph state with messages (the default source of evidence), the stop report and the order-gap state. */
export interface OrderGapGraphState {
  messages?: readonly unknown[];
  orderGap?: LangGraphStopReport | null;
  /** Present (null before the first run) when the state has the field of {@link OrderGapAnnotation}. */
  orderGapState?: OrderGapCheckpoint | null;
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

/** The update {@link orderGapNode} writes: the stop report, and the order-gap state when the graph state has its field. */
export interface OrderGapUpdate {
  orderGap: LangGraphStopReport | null;
  orderGapState?: OrderGapCheckpoint;
}

/** The node {@link orderGapNode} returns, with the failed tool calls and the Ω of every applied item. */
export type OrderGapNode<S> = ((graphState: S) => Promise<OrderGapUpdate>) & {
  /** Every failed tool call read so far, also before the first evidence item. */
  readonly toolErrors: readonly LangGraphToolCallError[];
  /** Ω(θ; e) of each applied item, in order. */
  readonly omegas: readonly number[];
  /**
   * Makes the node's AgentState and stopper (in place) those of `graphState`'s `orderGapState`
   * — the state at the start of the run when it is null — unless they already are; nothing
   * without the field. The node does it first; a node that reads the state or the stopper
   * before it in a step (an agent aiming at `stopper.targetQuestions`, a tool building items
   * against the state) calls it first too (module comment).
   * @throws {ArgumentError} an `orderGapState` that is not the state of this node's configuration.
   */
  sync(graphState: S): void;
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
 * again once one said stop; null before the first evidence item), and `orderGapState` when the
 * graph state has that field (`OrderGapAnnotation`). The failed calls are read from the same new
 * `messages` as the evidence. `state` and `stopper` are the state of the run's start; with
 * `orderGapState` they follow the graph state's (module comment, "Checkpoints").
 * @throws {ArgumentTypeError} state, stopper or a callback of the wrong type; at a run, a
 *   stopper whose rule cannot be saved (with `orderGapState`). {@link ArgumentError} at a run:
 *   an `orderGapState` of another configuration; without it, a graph state whose report is not
 *   at the stopper's step (restored from a checkpoint).
 */
export function orderGapNode<S extends OrderGapGraphState = OrderGapGraphState>(
  options: OrderGapNodeOptions<S>,
): OrderGapNode<S> {
  checkAdapterOptions(options);
  const { stopper } = options;
  const evidenceOf = options.evidenceOf ?? evidenceFromToolMessages;
  const feed = new EvidenceFeed<LangGraphToolCallError>(
    options.state,
    stopper,
    options.candidates,
    options.adaptiveGain,
  );
  let processed = 0;
  // With the orderGapState field, the state, the stopper and `processed` are a cache of the graph
  // state's checkpoint; a thread without one starts from their state at the first run.
  const cache = new CheckpointCache<OrderGapCheckpoint>(
    () => ({ ...feed.snapshot(), processed }),
    (want) => {
      const at = integerInRange('orderGapState.processed', want.processed, 0);
      feed.restore(want);
      processed = at;
    },
  );
  const sync = (graphState: S): boolean => {
    if (graphState === null || typeof graphState !== 'object' || !('orderGapState' in graphState)) return false;
    cache.sync(graphState.orderGapState ?? null);
    return true;
  };
  const run = async (graphState: S, checkpointed: boolean): Promise<OrderGapUpdate> => {
    const prev = graphState.orderGap ?? null;
    if (!checkpointed && prev !== null && prev.step !== stopper.steps)
      throw new ArgumentError(
        'graphState.orderGap.step',
        prev.step,
        `is not the stopper's step ${stopper.steps}: the graph state was restored from a checkpoint this node's ` +
          "state and stopper did not reach; keep them in the graph state (OrderGapAnnotation's orderGapState)",
      );
    // a graph state with no report while this node's stopper has taken steps: a second run on the
    // node of an earlier one, which would read its stop and none of its own evidence
    if (!checkpointed && prev === null && stopper.steps > 0)
      throw new ArgumentError(
        'graphState.orderGap',
        prev,
        `is a new run's, but this node's stopper has taken ${stopper.steps} step(s) of an earlier run: give each ` +
          "run a node and stopper of its own, or keep them in the graph state (OrderGapAnnotation's orderGapState)",
      );
    if (prev?.stop) return { orderGap: prev };
    const next = evidenceOf(graphState, processed);
    pushAll(feed.toolErrors, toolErrorsIn(graphState.messages ?? [], processed, next.processed));
    processed = next.processed;
    await feed.feed(next.items);
    const orderGap = feed.report({}) ?? prev;
    if (!checkpointed) return { orderGap };
    return { orderGap, orderGapState: cache.save() };
  };
  const node = async (graphState: S): Promise<OrderGapUpdate> => {
    const checkpointed = sync(graphState);
    try {
      return await run(graphState, checkpointed);
    } catch (e) {
      if (checkpointed) cache.forget(); // the run may have applied items before it threw: restore at the next
      throw e;
    }
  };
  Object.defineProperties(node, {
    toolErrors: { get: () => feed.toolErrors, enumerable: true },
    omegas: { get: () => feed.omegas, enumerable: true },
    sync: { value: (graphState: S) => void sync(graphState), enumerable: true },
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
