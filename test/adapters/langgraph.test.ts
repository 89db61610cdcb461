import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, GraphRecursionError, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { orderGapChannel, orderGapNode, routeOnOrderGap } from '../../src/adapters/langgraph.js';
import type { CoverageStopper } from '../../src/coverageStop/stopper.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { itemDoc, paper, pool, scenario, scenarioStopper, sequence } from './fixtures.js';
import { orderGapEdges } from './loop.js';

const State = Annotation.Root({ ...MessagesAnnotation.spec, orderGap: orderGapChannel() });

const retrieve = tool(async ({ id }: { id: string }) => JSON.stringify(itemDoc(id)), {
  name: 'retrieve',
  description: 'retrieve one evidence item',
  schema: z.object({ id: z.string() }),
});

/** agent (fake chat model names the next item) → tools (the retrieve tool) → checkStop → agent | END. */
function buildGraph(stopper: CoverageStopper, withCandidates: boolean) {
  const model = new FakeListChatModel({ responses: [...sequence] });
  const state = AgentState.fromScenario(scenario);
  return orderGapEdges(
    new StateGraph(State)
      .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addNode('tools', async (s) => {
        const last = s.messages[s.messages.length - 1]!;
        const id = String(last.content);
        const content = (await retrieve.invoke({ id })) as string;
        return {
          messages: [new ToolMessage({ content, tool_call_id: `call-${s.messages.length}`, name: 'retrieve' })],
        };
      })
      .addNode('checkStop', orderGapNode({ state, stopper, ...(withCandidates ? { candidates: () => pool } : {}) })),
  ).compile();
}

describe('ordergap/langgraph: a conditional edge to END on the order-gap stop (FakeListChatModel loop)', () => {
  it("routes to END where Algorithm 1 stops, with the stop report in the graph state (the paper's rule)", async () => {
    const g = buildGraph(scenarioStopper(false), false);
    const out = await g.invoke({ messages: [{ role: 'user', content: 'research' }] }, { recursionLimit: 1000 });
    const tools = out.messages.filter((m) => m.getType() === 'tool');
    expect(tools).toHaveLength(paper.stop.step);
    expect(out.orderGap).toMatchObject({ stop: true, reason: 'order-gap', step: paper.stop.step });
  });

  it('a second run on the same node (its stopper done with the first) is refused by name, not given the first stop', async () => {
    const g = buildGraph(scenarioStopper(false), false);
    const first = await g.invoke({ messages: [{ role: 'user', content: 'research' }] }, { recursionLimit: 1000 });
    expect(first.orderGap).toMatchObject({ stop: true, step: paper.stop.step });
    await expect(
      g.invoke({ messages: [{ role: 'user', content: 'research again' }] }, { recursionLimit: 1000 }),
    ).rejects.toThrow(/^graphState\.orderGap = null: is a new run's, but this node's stopper has taken 56 step/);
  });

  it('the coverage check reports the same stop blind; LangGraph alone would only stop at its recursion limit', async () => {
    const g = buildGraph(scenarioStopper('stop'), true);
    const out = await g.invoke({ messages: [{ role: 'user', content: 'research' }] }, { recursionLimit: 1000 });
    expect(out.orderGap!.verdict).toBe('blind');
    expect(out.orderGap!.check!.movingItems.length).toBeGreaterThan(0);
    // the same graph with a router that never stops: LangGraph's own stop is GraphRecursionError
    const model = new FakeListChatModel({ responses: ['x'] });
    const capped = new StateGraph(State)
      .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', routeOnOrderGap('agent'))
      .compile();
    await expect(capped.invoke({ messages: [] }, { recursionLimit: 10 })).rejects.toThrow(GraphRecursionError);
  });
});

describe('ordergap/langgraph: failed tool calls are reported, not dropped', () => {
  it("a tool that throws inside LangGraph's ToolNode is listed in the stop report (message index, tool, call id, message)", async () => {
    let calls = 0;
    const thrown: string[] = [];
    const flaky = tool(
      async ({ id }: { id: string }) => {
        if (++calls % 5 === 0) {
          thrown.push(id);
          throw new Error(`index unavailable for ${id}`);
        }
        return JSON.stringify(itemDoc(id));
      },
      {
        name: 'retrieve',
        description: 'retrieve one evidence item; the index fails on every fifth call',
        schema: z.object({ id: z.string() }),
      },
    );
    const model = new FakeListChatModel({ responses: [...sequence] });
    const node = orderGapNode({ state: AgentState.fromScenario(scenario), stopper: scenarioStopper(false) });
    const g = orderGapEdges(
      new StateGraph(State)
        .addNode('agent', async (s) => {
          const id = String((await model.invoke(s.messages)).content);
          const call = { id: `call-${s.messages.length}`, name: 'retrieve', args: { id } };
          return { messages: [new AIMessage({ content: '', tool_calls: [call] })] };
        })
        .addNode('tools', new ToolNode([flaky]))
        .addNode('checkStop', node),
    ).compile();
    const out = await g.invoke({ messages: [{ role: 'user', content: 'research' }] }, { recursionLimit: 1000 });
    const report = out.orderGap!;
    const failed = out.messages.flatMap((m, i) =>
      m instanceof ToolMessage && m.status === 'error' ? [{ i, id: m.tool_call_id }] : [],
    );
    expect(report.stop).toBe(true);
    expect(thrown.length).toBeGreaterThan(0);
    expect(failed).toHaveLength(thrown.length);
    // the evidence count and the failed calls, each what it names
    expect(report.step).toBe(out.messages.filter((m) => m instanceof ToolMessage && m.status === 'success').length);
    expect(report.toolErrors).toHaveLength(thrown.length);
    expect(node.toolErrors).toEqual(report.toolErrors);
    expect(report.toolErrors.map((e) => [e.messageIndex, e.toolCallId])).toEqual(failed.map((f) => [f.i, f.id]));
    report.toolErrors.forEach((e, i) => {
      expect(e.toolName).toBe('retrieve');
      expect(e.message).toBe(`index unavailable for ${thrown[i]}`);
    });
  });

  it("a tool message without a status whose content is an error counts too (the tool's name from the call); status 'success' never does", async () => {
    const node = orderGapNode({ state: AgentState.fromScenario(scenario), stopper: scenarioStopper(false) });
    const calls = [
      { id: 'a', name: 'retrieve', args: { id: sequence[0] } },
      { id: 'b', name: 'retrieve', args: { id: sequence[1] } },
      { id: 'c', name: 'lookup', args: {} },
    ];
    const messages = [
      new AIMessage({ content: '', tool_calls: calls }),
      new ToolMessage({ content: JSON.stringify(itemDoc(sequence[0]!)), tool_call_id: 'a', name: 'retrieve' }),
      new ToolMessage({ content: 'Error: timeout after 30 s', tool_call_id: 'b' }),
      new ToolMessage({
        content: 'Error: is what the page says',
        tool_call_id: 'c',
        name: 'lookup',
        status: 'success',
      }),
    ];
    const r = await node({ messages });
    expect(r.orderGap!.step).toBe(1);
    expect(r.orderGap!.toolErrors).toEqual([
      { messageIndex: 2, toolName: 'retrieve', toolCallId: 'b', message: 'timeout after 30 s' },
    ]);
    // errors read before any evidence item: on the node, the report still null
    const early = orderGapNode({ state: AgentState.fromScenario(scenario), stopper: scenarioStopper(false) });
    expect((await early({ messages: messages.slice(2, 3) })).orderGap).toBeNull();
    expect(early.toolErrors).toEqual([
      { messageIndex: 0, toolName: '', toolCallId: 'b', message: 'timeout after 30 s' },
    ]);
  });
});
