// A LangGraph.js loop that routes to END on the order-gap stop, checkpointed, run offline with
// LangChain's FakeListChatModel. The model answers each "read the next chunk" turn with a
// structured output (JSON text filling the LLM evidence schema); a tool turns it into an evidence
// item against the agent state; the orderGap node applies it and writes the stop report into the
// graph state; a conditional edge ends the run when the report says stop. LangGraph's own stop
// would be its recursion limit (GraphRecursionError); here the limit cuts the run midway, and a
// graph built from scratch resumes it from LangGraph's MemorySaver: the order-gap state lives in
// the graph state (OrderGapAnnotation), so the checkpoint holds it with the messages, and the
// resumed run stops where the uninterrupted one does (the AI SDK example's loop).
//   node examples/agents/langgraph.mjs      (after npm run build)
import { readFileSync } from 'node:fs';
import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import {
  Annotation,
  GraphRecursionError,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { graph, CoverageStopper, stopping } from 'ordergap';
import { OrderGapAnnotation, orderGapNode, routeOnOrderGap } from 'ordergap/langgraph';

const read = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
const { outputs } = read('./chunks.json');

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...OrderGapAnnotation.spec });

/** The graph with its own agent state, stopper and model: what a process resuming the run builds again. */
function build(checkpointer) {
  const state = graph.AgentState.fromGraph(read('../scenario/graph.json'));
  const stopper = new CoverageStopper(null, new stopping.OrderGapRule({ epsilon: 0.01, window: 4 }), {
    policy: 'continue',
    maxSteps: 60,
  });
  const checkStop = orderGapNode({ state, stopper });
  const record = tool(async ({ output }) => JSON.stringify(graph.toEvidenceItem(state, JSON.parse(output))), {
    name: 'record',
    description: 'Turn the structured output of the chunk just read into an evidence item',
    schema: { type: 'object', properties: { output: { type: 'string' } }, required: ['output'] },
  });
  const app = new StateGraph(State)
    .addNode('agent', async (s) => {
      // the fake model answers the n-th turn with the n-th output (round robin): its answer
      // depends on the conversation only, as a real model's does
      const turn = s.messages.filter((m) => m.getType() === 'ai').length;
      const model = new FakeListChatModel({ responses: [JSON.stringify(outputs[turn % outputs.length])] });
      return { messages: [await model.invoke(s.messages)] };
    })
    .addNode('tools', async (s) => {
      checkStop.sync(s); // the tool builds the item against the state: bring it to the checkpoint's first
      const last = s.messages[s.messages.length - 1];
      const content = await record.invoke({ output: String(last.content) });
      return { messages: [new ToolMessage({ content, tool_call_id: `t${s.messages.length}`, name: 'record' })] };
    })
    .addNode('checkStop', checkStop)
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', 'checkStop')
    .addConditionalEdges('checkStop', routeOnOrderGap('agent'))
    .compile({ checkpointer });
  return { app, state, stopper };
}

const checkpointer = new MemorySaver();
const thread = { configurable: { thread_id: 'glass-orchard' } };
const question = {
  messages: [{ role: 'user', content: 'Who wrote The Glass Orchard, and where was the author born?' }],
};
try {
  await build(checkpointer).app.invoke(question, { ...thread, recursionLimit: 40 });
} catch (e) {
  if (!(e instanceof GraphRecursionError)) throw e;
  const cut = await build(checkpointer).app.getState(thread);
  console.log(
    `cut by the recursion limit after ${cut.values.orderGap?.step ?? 0} evidence items; resumed by a new graph`,
  );
}
const { app, state, stopper } = build(checkpointer);
const out = await app.invoke(null, { ...thread, recursionLimit: 1000 });
const r = out.orderGap;
console.log(
  `evidence items: ${out.messages.filter((m) => m.getType() === 'tool').length}; stop: ${r.reason} at step ${r.step} (verdict ${r.verdict}); Ω̂ = ${r.statistic?.toFixed(4)}`,
);
for (const c of stopper.checks) console.log(`  candidate stop: ${c.verdict} — ${c.detail}`);
console.log(r.detail);
for (const a of state.describe().answers.filter((x) => x.best))
  console.log(`  ${a.question}: ${a.text ?? a.answer} (${a.confidence.toFixed(3)})`);
