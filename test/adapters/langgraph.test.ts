import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, GraphRecursionError, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { orderGapChannel, orderGapNode, routeOnOrderGap } from '../../src/adapters/langgraph.js';
import type { CoverageStopper } from '../../src/coverageStop/stopper.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { itemDoc, paper, pool, scenario, scenarioStopper, sequence } from './fixtures.js';

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
  return new StateGraph(State)
    .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode('tools', async (s) => {
      const last = s.messages[s.messages.length - 1]!;
      const id = String(last.content);
      const content = (await retrieve.invoke({ id })) as string;
      return { messages: [new ToolMessage({ content, tool_call_id: `call-${s.messages.length}`, name: 'retrieve' })] };
    })
    .addNode('checkStop', orderGapNode({ state, stopper, ...(withCandidates ? { candidates: () => pool } : {}) }))
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', 'checkStop')
    .addConditionalEdges('checkStop', routeOnOrderGap('agent'))
    .compile();
}

describe('ordergap/langgraph: a conditional edge to END on the order-gap stop (FakeListChatModel loop)', () => {
  it("routes to END where Algorithm 1 stops, with the stop report in the graph state (the paper's rule)", async () => {
    const g = buildGraph(scenarioStopper(false), false);
    const out = await g.invoke({ messages: [{ role: 'user', content: 'research' }] }, { recursionLimit: 1000 });
    const tools = out.messages.filter((m) => m.getType() === 'tool');
    expect(tools).toHaveLength(paper.stop.step);
    expect(out.orderGap).toMatchObject({ stop: true, reason: 'order-gap', step: paper.stop.step });
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
