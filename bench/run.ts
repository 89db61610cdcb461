/**
 * Runs every benchmark script in bench/ (each writes its JSON to bench/results/) one after
 * another, in separate processes so that one benchmark's memory does not disturb the next.
 * Then regenerates docs/benchmarks.md from all of bench/results/*.json (scripts/bench-table.mjs).
 * Usage: `npm run bench` (all) or `npm run bench -- linalg certify` (by name).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_') && !f.endsWith('.d.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort();
let failed = 0;
for (const f of scripts) {
  process.stdout.write(`== bench/${f}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${f}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
if (spawnSync(process.execPath, [`${dir}../scripts/bench-table.mjs`], { stdio: 'inherit' }).status !== 0) failed++;
process.exitCode = failed ? 1 : 0;
