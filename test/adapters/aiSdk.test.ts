import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { orderGapStopWhen, type OrderGapStopCondition } from '../../src/adapters/aiSdk.js';
import type { StopperSnapshot } from '../../src/coverageStop/stopper.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { itemDoc, paper, pool, scenario, scenarioStopper, sequence } from './fixtures.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A mock model that asks for the next retrieval at every step (ids from Algorithm 1's draws, from the `from`-th). */
function retrievingModel(from = 0) {
  let call = from;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const i = call++;
      return {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: `call-${i}`,
            toolName: 'retrieve',
            input: JSON.stringify({ id: sequence[i] }),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

const retrieve = tool({
  description: 'retrieve one evidence item',
  inputSchema: z.object({ id: z.string() }),
  execute: async ({ id }) => itemDoc(id),
});

/** The retrieving model's generateText loop on the default scenario, stopped by `stop` or at 200 steps. */
const research = (stop: OrderGapStopCondition) =>
  generateText({
    model: retrievingModel(),
    tools: { retrieve },
    prompt: 'research',
    stopWhen: [stop, stepCountIs(200)],
  });

describe('ordergap/ai-sdk: stopWhen in a real generateText loop (MockLanguageModelV3)', () => {
  it("without the coverage check it stops where Algorithm 1 does (the paper's rule), not at the step cap", async () => {
    const state = AgentState.fromScenario(scenario);
    const stop = orderGapStopWhen({ state, stopper: scenarioStopper(false) });
    const r = await research(stop);
    expect(paper.stop.reason).toBe('order-gap');
    expect(r.steps).toHaveLength(paper.stop.step);
    expect(stop.report).toMatchObject({ stop: true, reason: 'order-gap', step: paper.stop.step, verdict: null });
    expect(stop.omegas).toEqual(paper.steps.map((s) => s.omega));
  });

  it('with the coverage check over the pool the same stop is reported blind, naming the items that would still move the state', async () => {
    const state = AgentState.fromScenario(scenario);
    const stopper = scenarioStopper('stop');
    const stop = orderGapStopWhen({ state, stopper, candidates: () => pool });
    const r = await research(stop);
    expect(r.steps).toHaveLength(paper.stop.step);
    expect(stop.report!.verdict).toBe('blind');
    expect(stop.report!.check!.movingItems.length).toBeGreaterThan(0);
    expect(stop.report!.check!.movingItems.every((m) => m.omega > scenario.run.epsilon)).toBe(true);
  });

  it("policy 'continue' refuses the blind stop: the loop runs past the paper's stop", async () => {
    const state = AgentState.fromScenario(scenario);
    const stopper = scenarioStopper('continue', 75);
    const stop = orderGapStopWhen({ state, stopper, candidates: () => pool });
    const r = await research(stop);
    expect(r.steps.length).toBeGreaterThan(paper.stop.step);
    expect(stopper.checks[0]!.verdict).toBe('blind');
    expect(stop.report!.stop).toBe(true);
    expect(['order-gap', 'budget']).toContain(stop.report!.reason);
  });

  /** The `continue` loop's state and stopper, fresh. */
  const make = () => ({ state: AgentState.fromScenario(scenario), stopper: scenarioStopper('continue', 75) });
  /** One generateText call retrieving from draw `from` on, capped at `cap` SDK steps. */
  const call = (stop: OrderGapStopCondition, from: number, cap: number) =>
    generateText({
      model: retrievingModel(from),
      tools: { retrieve },
      prompt: 'research',
      stopWhen: [stop, stepCountIs(cap)],
    });
  /** The `continue` loop in one uninterrupted call. */
  const uninterrupted = async () => {
    const whole = make();
    const wholeStop = orderGapStopWhen({ ...whole, candidates: () => pool });
    await call(wholeStop, 0, 200);
    return { whole, wholeStop };
  };

  it('between generateText calls the loop persists as JSON (state.toJSON(), stopper.snapshot()): continued by new objects, it stops as one uninterrupted call', async () => {
    const { whole, wholeStop } = await uninterrupted();
    // cut after the first refused blind stop (the rule's window restarted), then saved
    const cut = paper.stop.step + 2;
    const first = make();
    const firstStop = orderGapStopWhen({ ...first, candidates: () => pool });
    await call(firstStop, 0, cut);
    expect(firstStop.report).toMatchObject({ stop: false, step: cut });
    expect(first.stopper.checks).toHaveLength(1);
    const saved = JSON.stringify({ state: first.state.toJSON(), stopper: first.stopper.snapshot() });
    // a later call, in another process: new objects from the saved JSON, a new condition
    const doc = JSON.parse(saved) as { state: unknown; stopper: StopperSnapshot };
    const later = { state: AgentState.fromJSON(doc.state), stopper: scenarioStopper('continue', 75) };
    later.stopper.restore(doc.stopper);
    const laterStop = orderGapStopWhen({ ...later, candidates: () => pool });
    await call(laterStop, cut, 200);
    const { sdkSteps, ...report } = laterStop.report!;
    const { sdkSteps: wholeSteps, ...wholeReport } = wholeStop.report!;
    expect(report).toEqual(wholeReport);
    expect(sdkSteps + cut).toBe(wholeSteps);
    expect([...firstStop.omegas, ...laterStop.omegas]).toEqual(wholeStop.omegas);
    expect(Buffer.from(later.state.theta.buffer).equals(Buffer.from(whole.state.theta.buffer))).toBe(true);
    expect(later.stopper.checks).toEqual(JSON.parse(JSON.stringify(whole.stopper.checks)));
  });

  it('one condition over two generateText calls (the same objects, no snapshot) reads every step of both', async () => {
    const { whole, wholeStop } = await uninterrupted();
    const cut = paper.stop.step + 2;
    const again = make();
    const stop = orderGapStopWhen({ ...again, candidates: () => pool });
    await call(stop, 0, cut);
    await call(stop, cut, 200);
    expect(stop.omegas).toEqual(wholeStop.omegas);
    expect(stop.report).toEqual(wholeStop.report);
    expect(Buffer.from(again.state.theta.buffer).equals(Buffer.from(whole.state.theta.buffer))).toBe(true);
  });

  it('a tool call that throws is reported (step, tool, message), and the SDK steps are counted apart from the evidence steps', async () => {
    let calls = 0;
    const thrown: string[] = [];
    const flaky = tool({
      description: 'retrieve one evidence item; the index fails on every fifth call',
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        if (++calls % 5 === 0) {
          thrown.push(id);
          throw new Error(`index unavailable for ${id}`);
        }
        return itemDoc(id);
      },
    });
    const state = AgentState.fromScenario(scenario);
    const stop = orderGapStopWhen({ state, stopper: scenarioStopper(false) });
    const r = await generateText({
      model: retrievingModel(),
      tools: { retrieve: flaky },
      prompt: 'research',
      stopWhen: [stop, stepCountIs(200)],
    });
    const report = stop.report!;
    expect(report.stop).toBe(true);
    expect(thrown.length).toBeGreaterThan(0);
    // the SDK's count and the evidence count, each what it names
    expect(report.sdkSteps).toBe(r.steps.length);
    expect(report.step).toBe(r.steps.length - thrown.length);
    expect(report.toolErrors).toHaveLength(thrown.length);
    expect(stop.toolErrors).toEqual(report.toolErrors);
    const errorSteps = r.steps.flatMap((s, i) => (s.content.some((p) => p.type === 'tool-error') ? [i] : []));
    expect(report.toolErrors.map((e) => e.sdkStep)).toEqual(errorSteps);
    report.toolErrors.forEach((e, i) => {
      expect(e.toolName).toBe('retrieve');
      expect(e.message).toBe(`index unavailable for ${thrown[i]}`);
      expect(e.toolCallId).toBe(`call-${e.sdkStep}`);
    });
  });
});
