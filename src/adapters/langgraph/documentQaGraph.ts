/**
 * The document-QA loop (Sec. 7.1–7.3, Algorithm 1) as a prebuilt LangGraph.js StateGraph whose
 * whole loop state lives in the graph state as plain JSON, so that a checkpointer saves it and a
 * new graph instance resumes it. The graph runs the steps of `answerQuestion` (one
 * implementation: the loop's `next`, `retrieve`, `extract`, `apply`, `reapply` and `report`), one
 * step per node run.
 */
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import {
  checkOptions,
  Loop,
  nextAction,
  type AnswerQuestionOptions,
  type AnswerReport,
  type DocumentQaProgress,
  type LoopAction,
} from '../documentQa/answerQuestion.js';
import { jsonCopy } from '../../util/json.js';
import { CheckpointCache, lastValue } from './checkpoint.js';

/** The result of the graph's run: `answerQuestion`'s report without the live state (rebuild it from `documentQa.state`). */
export type DocumentQaReport = Omit<AnswerReport, 'state'>;

/**
 * The graph state of {@link documentQaGraph}: `documentQa`, the loop's whole state as plain JSON
 * (null before the first node), and `report`, written by the last node.
 */
export const DocumentQaAnnotation = Annotation.Root({
  documentQa: lastValue<DocumentQaProgress>(),
  report: lastValue<DocumentQaReport>(),
});

/** The values of {@link documentQaGraph}'s state. */
export type DocumentQaGraphState = typeof DocumentQaAnnotation.State;

/** The graph's nodes: one per step of the loop, 'apply' for both kinds of observation. */
const NODE_OF = {
  retrieve: 'retrieve',
  extract: 'extract',
  apply: 'apply',
  reapply: 'apply',
  done: 'finish',
} as const satisfies Record<LoopAction, string>;
type NodeName = (typeof NODE_OF)[LoopAction];
const NODES = ['retrieve', 'extract', 'apply', 'finish'] as const satisfies readonly NodeName[];

/** The options' abort signal and the run's, as one (undefined when neither is given). */
function abortSignalOf(options: AnswerQuestionOptions, config?: LangGraphRunnableConfig): AbortSignal | undefined {
  const signals = [options.abortSignal, config?.signal].filter((s): s is AbortSignal => s !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/**
 * The document-QA loop of `answerQuestion` (same options, same steps, same report) as a LangGraph
 * StateGraph to compile: nodes `retrieve` (the next chunk in BM25 order for the question or the
 * questions the stopper is after, Sec. 7.3) → `extract` (one structured-output call through the
 * AI SDK, with the repairs of an invalid output and the finalize request of a cut-off one) →
 * `apply` (P_e then Q, Ω and Algorithm 1's stop with the coverage check, Eq. 3) → back to
 * `retrieve`, or, once the reading pass is over, `apply` again for each reprocessed item of the
 * later passes; `finish` (writes `report`) → END once the stopper stops or the passes run out. Every step is one
 * node run (one LangGraph super-step).
 *
 * The loop's whole state — the AgentState's document, the stopper's snapshot, the chunks read,
 * the extracted items, the counts, the Ω values, the pass and its position, a chunk retrieved
 * and not yet extracted, an extraction not yet applied — is the graph state's `documentQa`
 * (plain JSON, `DocumentQaProgress`), written by every node; the final `report` is
 * `answerQuestion`'s without the live AgentState. Compiled with a checkpointer and stopped
 * midway (`interruptBefore` / `interruptAfter`, a GraphRecursionError, a stream left early), the
 * run resumed on the same thread (`invoke(null, { configurable: { thread_id } })`) — also by a
 * graph built anew from the same options — calls the model for no chunk already extracted,
 * applies no chunk's items twice, and stops at the step and with the report of the uninterrupted
 * run. A node cut inside its model call runs again on resume: that call is made again.
 *
 * A run takes at most 3·maxChunks + (passes − 1)·maxChunks + 2 super-steps; give
 * `recursionLimit` accordingly (LangGraph's default is 25). Limits: a graph instance serves one
 * run at a time (its loop objects follow the graph state of the node running); a checkpoint
 * resumes only in a graph of the same options (the same document and chunking, or a retriever
 * that returns the same chunk for the same query and count); `onEvent` sees the events of the
 * steps this instance runs.
 * @throws {ArgumentError} bad options, named, as `answerQuestion` (before any model call); at a
 *   node, the model's or provider's errors, and a `documentQa` that is no loop state of these
 *   options.
 * @example
 * ```ts
 * import { MemorySaver } from '@langchain/langgraph';
 * import { documentQaGraph } from 'ordergap/langgraph';
 * const graph = documentQaGraph({ model, question: 'Who wrote it?', document: text })
 *   .compile({ checkpointer: new MemorySaver() });
 * const config = { configurable: { thread_id: 't' }, recursionLimit: 200 };
 * const { report } = await graph.invoke({}, config); // or, after an interruption: invoke(null, config)
 * report.answer; // { id, text, confidence } or null
 * ```
 */
export function documentQaGraph(options: AnswerQuestionOptions) {
  const limits = checkOptions(options);
  const loop = new Loop(options, limits);
  const cache = new CheckpointCache<DocumentQaProgress>(
    () => loop.snapshot(),
    (p) => loop.restore(p),
  );
  /** Runs `body` on the loop made that of the graph state; the loop is restored at the next node when it throws. */
  const onLoop = async <T>(s: DocumentQaGraphState, body: () => Promise<T> | T): Promise<T> => {
    cache.sync(s.documentQa);
    try {
      return await body();
    } catch (e) {
      cache.forget();
      throw e;
    }
  };
  const step = (s: DocumentQaGraphState, config?: LangGraphRunnableConfig) =>
    onLoop(s, async () => {
      const action = loop.next();
      const signal = abortSignalOf(options, config);
      if (action === 'retrieve' || action === 'reapply') signal?.throwIfAborted();
      if (action !== 'done') await loop[action](signal ? { ...options, abortSignal: signal } : options);
      return { documentQa: cache.save() };
    });
  const finish = (s: DocumentQaGraphState) =>
    onLoop(s, () => {
      const { state: _state, ...rest } = loop.report();
      return { report: jsonCopy(rest) };
    });
  const route = (s: DocumentQaGraphState): NodeName =>
    s.documentQa === null ? 'retrieve' : NODE_OF[nextAction(s.documentQa, limits)];
  return new StateGraph(DocumentQaAnnotation)
    .addNode('retrieve', step)
    .addNode('extract', step)
    .addNode('apply', step)
    .addNode('finish', finish)
    .addConditionalEdges(START, route, [...NODES])
    .addConditionalEdges('retrieve', route, [...NODES])
    .addConditionalEdges('extract', route, [...NODES])
    .addConditionalEdges('apply', route, [...NODES])
    .addEdge('finish', END);
}
