/**
 * `ordergap/ai-sdk`: the order-gap stop as a Vercel AI SDK stop condition. `generateText` /
 * `streamText` take `stopWhen`, a condition over the steps so far; {@link orderGapStopWhen}
 * reads the evidence items the new steps' tool results carry, applies each to the `AgentState`
 * (Ω(θ; e), then θ ← Q(P_e θ)), and says stop when the `CoverageStopper` does — the windowed
 * order-gap below ε (Eq. 3), with the coverage check and policy of src/coverageStop — instead of
 * after a step count (`stepCountIs(n)`). Needs only the types of `ai`.
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { orderGapStopWhen } from 'ordergap/ai-sdk';
 * const stopper = new CoverageStopper(null, new OrderGapRule({ epsilon: 0.01, window: 4 }));
 * const stop = orderGapStopWhen({ state, stopper });
 * await generateText({ model, tools: { retrieve }, prompt, stopWhen: [stop, stepCountIs(200)] });
 * stop.report; // { stop: true, reason: 'order-gap', verdict: 'converged' | 'blind', sdkSteps, toolErrors, ... }
 * ```
 * Two step counts, named apart: the report's `step` counts the evidence items applied (the
 * rule's t, over which Ω̂ is windowed), `sdkSteps` the AI SDK's steps read. They differ when a
 * step brings no evidence item (a tool call that threw, a text-only step) or several. A tool
 * call that throws leaves the SDK a `tool-error` part and no tool result: it brings no evidence,
 * and the report lists it (`toolErrors`: step, tool name, message) instead of dropping it.
 *
 * With a stopper of policy `redirect`, a refused blind stop's report names the questions failing
 * the coverage check (`targetQuestions`: the question, what failed, the applied items addressing
 * it); the stopper keeps them until its next candidate stop, so a retrieval tool can aim at them:
 * `retrieve` reads `stopper.targetQuestions.map((q) => q.question)`.
 *
 * Between calls. A condition serves one `generateText` / `streamText` call (it reads that call's
 * steps); the loop's state is the AgentState and the stopper, both plain JSON when saved. A loop
 * cut by another condition (`stepCountIs(n)`) and continued by a later call — in another
 * process too — saves `state.toJSON()` and `stopper.snapshot()`, and continues with
 * `AgentState.fromJSON(doc)` and a stopper built as before with `stopper.restore(snapshot)`, under
 * a new condition: it stops at the step, with the report (but `sdkSteps`) and θ (bit for bit), of
 * one uninterrupted call. The new condition's `sdkSteps`, `toolErrors` and `omegas` cover its own
 * call.
 *
 * ```ts
 * const saved = JSON.stringify({ state: state.toJSON(), stopper: stopper.snapshot() }); // after a call
 * const doc = JSON.parse(saved);                                                          // later
 * const state2 = graph.AgentState.fromJSON(doc.state);
 * const stopper2 = new CoverageStopper(null, new OrderGapRule({ epsilon: 0.01, window: 4 }));
 * stopper2.restore(doc.stopper);
 * await generateText({ ..., stopWhen: [orderGapStopWhen({ state: state2, stopper: stopper2 }), stepCountIs(200)] });
 * ```
 */
import { pushAll } from '../util/arrays.js';
import type { StepResult, StopCondition, ToolSet } from 'ai';
import type { CoverageStopper } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { checkAdapterOptions, errorMessage, EvidenceFeed, isEvidenceItem } from './evidence.js';
import type { ToolCallError, ToolErrorsReport } from './evidence.js';

export { isEvidenceItem, type ToolCallError } from './evidence.js';
export {
  answerQuestion,
  type AnswerEvent,
  type AnswerQuestionOptions,
  type AnswerReport,
  type ExtractionCounts,
  type ExtractionKind,
} from './documentQa/answerQuestion.js';
export { chunkDocument, type Chunk, type ChunkOptions } from './documentQa/chunk.js';
export { solve, type CallCounts, type SolveOptions, type SolveResult } from '../recursion/solve.js';
export { TransportFailure, type CallOptions, type TokenUsage } from '../recursion/call.js';
export { grow, type GrowOptions, type GrowResult } from '../recursion/grow.js';
export { prune, type PruneOptions, type PruneResult } from '../recursion/prune.js';
export { branch, type BranchOptions, type BranchResult } from '../recursion/branch.js';
export {
  runRecursion,
  type MethodItemRecord,
  type RecursionItem,
  type RecursionRun,
  type RecursionRunOptions,
} from '../recursion/run.js';
export { scoreRecursion, truncationCorrelation, type MethodScore, type RecursionReport } from '../recursion/scoring.js';

/**
 * Any tool set: like the AI SDK's own `stepCountIs` (a `StopCondition<any>`), the condition fits
 * every `generateText` call whatever its tools.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTools = any;

/** Options of {@link orderGapStopWhen}. */
export interface OrderGapStopWhenOptions<TOOLS extends ToolSet = AnyTools> {
  state: AgentState;
  stopper: CoverageStopper;
  /**
   * The evidence items one step brought (default: every tool result whose output is an evidence
   * item, {@link isEvidenceItem}).
   */
  evidenceOf?: (step: StepResult<TOOLS>) => readonly EvidenceInput[];
  /** Candidates for the coverage check (default: every evidence item the state has applied, `AgentState.evidence`). */
  candidates?: () => readonly EvidenceInput[];
  /** Adaptive gain of P(·|θ) over the candidates in the coverage check (default 2, see `AgentState.scenarioWith`). */
  adaptiveGain?: number;
}

/** A tool call that threw: the AI SDK keeps a `tool-error` part for it in its step and no tool result. */
export interface AiSdkToolCallError extends ToolCallError {
  /** Index of the AI SDK step in `steps` (zero-based, the step's `stepNumber`). */
  readonly sdkStep: number;
}

/**
 * The stop report of {@link orderGapStopWhen}: the stopper's, with the loop's own step count and
 * every tool call that threw in the steps read (`toolErrors`).
 */
export interface AiSdkStopReport extends ToolErrorsReport<AiSdkToolCallError> {
  /**
   * The AI SDK steps read up to this report (`steps.length` when the condition runs after every
   * step, as `generateText` does): the SDK's count. `step` counts the evidence items applied
   * (module comment).
   */
  readonly sdkSteps: number;
}

/** A stop condition that also exposes the latest report, the tool errors and the Ω of every applied item. */
export type OrderGapStopCondition<TOOLS extends ToolSet = AnyTools> = StopCondition<TOOLS> & {
  /** The latest stop report (null before the first evidence item). */
  readonly report: AiSdkStopReport | null;
  /** Every tool call that threw so far, also before the first evidence item. */
  readonly toolErrors: readonly AiSdkToolCallError[];
  /** Ω(θ; e) of each applied item, in order. */
  readonly omegas: readonly number[];
};

/** The `tool-error` parts of one step. */
function toolErrorsOf<TOOLS extends ToolSet>(step: StepResult<TOOLS>, index: number): AiSdkToolCallError[] {
  return step.content
    .filter((part) => part.type === 'tool-error')
    .map((part) => ({
      sdkStep: index,
      toolName: part.toolName,
      toolCallId: part.toolCallId,
      message: errorMessage(part.error),
    }));
}

/** The default `evidenceOf`: tool outputs that are evidence items. */
export function evidenceFromToolResults<TOOLS extends ToolSet>(step: StepResult<TOOLS>): EvidenceInput[] {
  return step.toolResults.map((r) => (r as { output?: unknown }).output).filter(isEvidenceItem);
}

/**
 * The order-gap stop condition (module comment). Steps are processed once each, in order; a
 * step without evidence leaves the decision as it was.
 * @throws {ArgumentTypeError} state, stopper or a callback of the wrong type.
 */
export function orderGapStopWhen<TOOLS extends ToolSet = AnyTools>(
  options: OrderGapStopWhenOptions<TOOLS>,
): OrderGapStopCondition<TOOLS> {
  checkAdapterOptions(options);
  const { state, stopper } = options;
  const evidenceOf = options.evidenceOf ?? evidenceFromToolResults;
  const feed = new EvidenceFeed<AiSdkToolCallError>(state, stopper, options.candidates, options.adaptiveGain);
  // steps read of the current generateText call, the steps of earlier calls, and the first step
  // of the current call (a condition passed to a second call sees a new steps list)
  let processed = 0;
  let before = 0;
  let first: StepResult<TOOLS> | undefined;
  let report: AiSdkStopReport | null = null;
  const condition = async ({ steps }: { steps: Array<StepResult<TOOLS>> }): Promise<boolean> => {
    if (steps[0] !== first) {
      before += processed;
      processed = 0;
      first = steps[0];
    }
    for (; processed < steps.length && !feed.stopped; processed++) {
      const step = steps[processed]!;
      pushAll(feed.toolErrors, toolErrorsOf(step, before + processed));
      await feed.feed(evidenceOf(step));
    }
    if (!report?.stop) report = feed.report({ sdkSteps: before + processed });
    processed = steps.length;
    return feed.stopped;
  };
  Object.defineProperties(condition, {
    report: { get: () => report, enumerable: true },
    toolErrors: { get: () => feed.toolErrors, enumerable: true },
    omegas: { get: () => feed.omegas, enumerable: true },
  });
  return condition as unknown as OrderGapStopCondition<TOOLS>;
}
