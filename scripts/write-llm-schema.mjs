// Writes schema/llm-evidence.schema.json: the JSON Schema of the LLM evidence output, generated
// from its zod schema (src/graph/agent/llmEvidence.ts) so the two cannot drift. Needs `npm run build:ts`.
// test/graph/agent/llmEvidence.test.ts fails when the committed file differs from the generated one.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { graph } from '../dist/index.js';

const file = fileURLToPath(new URL('../schema/llm-evidence.schema.json', import.meta.url));

async function main() {
  // formatted as the repository formats JSON, so `prettier --check` holds after a regeneration
  const options = (await prettier.resolveConfig(file)) ?? {};
  const text = JSON.stringify(graph.llmEvidenceJsonSchema(), null, 2);
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  process.stdout.write(`${file}\n`);
}

main().catch((e) => {
  process.stderr.write(`write-llm-schema: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
