// Writes schema/llm-evidence.schema.json: the JSON Schema of the LLM evidence output, generated
// from its zod schema (src/graph/llmEvidence.ts) so the two cannot drift. Needs `npm run build:ts`.
// test/graph/llmEvidence.test.ts fails when the committed file differs from the generated one.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { graph } from '../dist/index.js';

const file = fileURLToPath(new URL('../schema/llm-evidence.schema.json', import.meta.url));
writeFileSync(file, JSON.stringify(graph.llmEvidenceJsonSchema(), null, 2) + '\n');
process.stdout.write(`${file}\n`);
