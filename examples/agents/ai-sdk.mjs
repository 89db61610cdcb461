// An AI SDK agent loop that stops on the order-gap, run offline with the SDK's own mock model.
// The model fills the LLM evidence schema as the input of a `record` tool (a structured-output
// call); the tool turns each output into an evidence item against the agent state; stopWhen
// applies the items and stops when the windowed order-gap falls below ε and the coverage check
// holds (policy 'continue': a blind stop is refused), or at the step cap.
//   node examples/agents/ai-sdk.mjs      (after npm run build)
import { readFileSync } from 'node:fs';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { graph, CoverageStopper, stopping } from 'ordergap';
import { orderGapStopWhen } from 'ordergap/ai-sdk';

const read = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
const { outputs } = read('./chunks.json');
const schema = read('../../schema/llm-evidence.schema.json');

const state = graph.AgentState.fromGraph(read('../scenario/graph.json'));
const stopper = new CoverageStopper(null, new stopping.OrderGapRule({ epsilon: 0.01, window: 4 }), {
  policy: 'continue',
  maxSteps: 60,
});
// candidates of the coverage check: by default every evidence item seen so far
const stop = orderGapStopWhen({ state, stopper });

// the mock model reads the chunks in turn (round robin) and reports each as structured output
let call = 0;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const i = call++;
    const input = JSON.stringify(outputs[i % outputs.length]);
    return {
      content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'record', input }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  },
});

const record = tool({
  description: 'Record the claims of the chunk just read',
  inputSchema: jsonSchema(schema),
  execute: async (output) => graph.toEvidenceItem(state, output),
});

const result = await generateText({
  model,
  tools: { record },
  prompt: 'Who wrote The Glass Orchard, and where was the author born?',
  stopWhen: [stop, stepCountIs(200)],
});
const r = stop.report;
console.log(
  `SDK steps: ${result.steps.length}; stop: ${r.reason} at step ${r.step} (verdict ${r.verdict}); Ω̂ = ${r.statistic?.toFixed(4)}; tool errors: ${r.toolErrors.length}`,
);
for (const c of stopper.checks) console.log(`  candidate stop: ${c.verdict} — ${c.detail}`);
console.log(r.detail);
for (const a of state.describe().answers.filter((x) => x.best))
  console.log(`  ${a.question}: ${a.text ?? a.answer} (${a.confidence.toFixed(3)})`);
