/**
 * `ordergap/ai-sdk`: the order-gap stop as a Vercel AI SDK stop condition. `generateText` /
 * `streamText` take `stopWhen`, a condition over the steps so far; {@link orderGapStopWhen}
 * reads the evidence items the new steps' tool results carry, applies each to the `AgentState`
 * (Ω(θ; e), then θ ← Q(P_e θ)), and says stop when the `CoverageStopper` does — the windowed
 * order-gap below ε (Eq. 3), with the coverage check and policy of src/coverageStop — instead of
 * after a step count (`stepCountIs(n)`). Needs only the types of `ai` (an optional peer).
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { orderGapStopWhen } from 'ordergap/ai-sdk';
 * const stopper = new CoverageStopper(null, new OrderGapRule({ epsilon: 0.01, window: 4 }));
 * const stop = orderGapStopWhen({ state, stopper });
 * await generateText({ model, tools: { retrieve }, prompt, stopWhen: [stop, stepCountIs(200)] });
 * stop.report; // { stop: true, reason: 'order-gap', verdict: 'converged' | 'blind', ... }
 * ```
 */
import type { StepResult, StopCondition, ToolSet } from 'ai';
import type { CoverageStopper, StopReport } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput } from '../graph/agent/agent.js';
import { checkAdapterOptions, EvidenceFeed, isEvidenceItem } from './evidence.js';

export { isEvidenceItem } from './evidence.js';

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
  /** Candidates for the coverage check (default: every evidence item seen so far). */
  candidates?: () => readonly EvidenceInput[];
  /** Adaptive gain of P(·|θ) over the candidates in the coverage check (default 2, see `AgentState.scenarioWith`). */
  adaptiveGain?: number;
}

/** A stop condition that also exposes the stopper's latest report and the Ω of every applied item. */
export type OrderGapStopCondition<TOOLS extends ToolSet = AnyTools> = StopCondition<TOOLS> & {
  /** The latest stop report (null before the first evidence item). */
  readonly report: StopReport | null;
  /** Ω(θ; e) of each applied item, in order. */
  readonly omegas: readonly number[];
};

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
  const feed = new EvidenceFeed(state, stopper, options.candidates, options.adaptiveGain);
  let processed = 0;
  let report: StopReport | null = null;
  const condition = async ({ steps }: { steps: Array<StepResult<TOOLS>> }): Promise<boolean> => {
    for (; processed < steps.length && !report?.stop; processed++) {
      const r = await feed.feed(evidenceOf(steps[processed]!));
      if (r) report = r;
    }
    processed = steps.length;
    return report?.stop ?? false;
  };
  Object.defineProperties(condition, {
    report: { get: () => report, enumerable: true },
    omegas: { get: () => feed.omegas, enumerable: true },
  });
  return condition as unknown as OrderGapStopCondition<TOOLS>;
}
