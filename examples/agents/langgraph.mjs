// A LangGraph.js loop that routes to END on the order-gap stop, run offline with LangChain's
// FakeListChatModel. The model answers each "read the next chunk" turn with a structured output
// (JSON text filling the LLM evidence schema); a tool turns it into an evidence item against the
// agent state; the orderGap node applies it and writes the stop report into the graph state; a
// conditional edge ends the run when the report says stop. LangGraph's own stop would be its
// recursion limit (GraphRecursionError); here the limit is only a safety cap.
//   node examples/agents/langgraph.mjs      (after npm run build)
import { readFileSync } from 'node:fs';
import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { graph, CoverageStopper, stopping } from 'ordergap';
import { orderGapChannel, orderGapNode, routeOnOrderGap } from 'ordergap/langgraph';

const read = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
const { outputs } = read('./chunks.json');

const state = graph.AgentState.fromGraph(read('../scenario/graph.json'));
const stopper = new CoverageStopper(null, new stopping.OrderGapRule({ epsilon: 0.01, window: 4 }), {
  policy: 'continue',
  maxSteps: 60,
});

// the fake model replays one structured output per turn (round robin)
const model = new FakeListChatModel({ responses: outputs.map((o) => JSON.stringify(o)) });
const record = tool(async ({ output }) => JSON.stringify(graph.toEvidenceItem(state, JSON.parse(output))), {
  name: 'record',
  description: 'Turn the structured output of the chunk just read into an evidence item',
  schema: { type: 'object', properties: { output: { type: 'string' } }, required: ['output'] },
});

const State = Annotation.Root({ ...MessagesAnnotation.spec, orderGap: orderGapChannel() });
const app = new StateGraph(State)
  .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
  .addNode('tools', async (s) => {
    const last = s.messages[s.messages.length - 1];
    const content = await record.invoke({ output: String(last.content) });
    return { messages: [new ToolMessage({ content, tool_call_id: `t${s.messages.length}`, name: 'record' })] };
  })
  .addNode('checkStop', orderGapNode({ state, stopper }))
  .addEdge(START, 'agent')
  .addEdge('agent', 'tools')
  .addEdge('tools', 'checkStop')
  .addConditionalEdges('checkStop', routeOnOrderGap('agent'))
  .compile();

const out = await app.invoke(
  { messages: [{ role: 'user', content: 'Who wrote The Glass Orchard, and where was the author born?' }] },
  { recursionLimit: 1000 },
);
const r = out.orderGap;
console.log(
  `evidence items: ${out.messages.filter((m) => m.getType() === 'tool').length}; stop: ${r.reason} at step ${r.step} (verdict ${r.verdict}); Ω̂ = ${r.statistic?.toFixed(4)}`,
);
for (const c of stopper.checks) console.log(`  candidate stop: ${c.verdict} — ${c.detail}`);
console.log(r.detail);
for (const a of state.describe().answers.filter((x) => x.best))
  console.log(`  ${a.question}: ${a.text ?? a.answer} (${a.confidence.toFixed(3)})`);
