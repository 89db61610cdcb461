// The sample outputs in README.md and docs/*.md, generated from the built CLI. A sample is a
// fenced block right after a marker line
//
//   <!-- sample: run --max-steps 5 | from /^Algorithm 1/ to /^Never drawn/ | stderr -->
//
// naming the command's arguments (`node dist/cli/main.js <args>`), optionally the lines to keep
// (from the first line matching `from` to the next matching `to`, both kept) and `stderr` to take
// the error output instead of stdout. `npm run docs:samples` rewrites every block from a fresh
// run of the built CLI; `--check` compares instead and exits 1 naming each stale sample
// (test/scripts/docSamples.test.ts runs it), so a sample in the docs is what the command prints.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'dist', 'cli', 'main.js');
const MARKER = /^<!-- sample: (.+?) -->$/;

/** The documents that may hold samples. */
export function sampleFiles() {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...docs];
}

/** `args | from /a/ to /b/ | stderr` → its parts. */
function parseMarker(text) {
  const [args, ...opts] = text.split('|').map((s) => s.trim());
  const out = { args: args.split(/\s+/).filter(Boolean), from: null, to: null, stderr: false };
  for (const o of opts) {
    const range = /^from \/(.+)\/ to \/(.+)\/$/.exec(o);
    if (range) [out.from, out.to] = [new RegExp(range[1]), new RegExp(range[2])];
    else if (o === 'stderr') out.stderr = true;
    else throw new Error(`sample marker "${text}": unknown option "${o}"`);
  }
  return out;
}

/** What the command prints, cut to the marker's lines. */
function sampleOutput(marker) {
  const r = spawnSync(process.execPath, [bin, ...marker.args], { cwd: root, encoding: 'utf8' });
  let lines = (marker.stderr ? r.stderr : r.stdout).replace(/\n+$/, '').split('\n');
  if (marker.from) {
    const a = lines.findIndex((l) => marker.from.test(l));
    const b = lines.findIndex((l, i) => i >= a && marker.to.test(l));
    if (a < 0 || b < 0)
      throw new Error(`sample "${marker.args.join(' ')}": no lines from ${marker.from} to ${marker.to}`);
    lines = lines.slice(a, b + 1);
  }
  return lines.join('\n');
}

/** The document with every sample block regenerated, and the markers whose block changed. */
export function regenerate(text) {
  const lines = text.split('\n');
  const stale = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]);
    if (!m) continue;
    if (lines[i + 1] !== '```') throw new Error(`sample marker "${m[1]}" must be followed by a fenced block`);
    const end = lines.indexOf('```', i + 2);
    if (end < 0) throw new Error(`sample marker "${m[1]}": the fenced block is not closed`);
    const fresh = sampleOutput(parseMarker(m[1])).split('\n');
    if (lines.slice(i + 2, end).join('\n') !== fresh.join('\n')) stale.push(m[1]);
    lines.splice(i + 2, end - (i + 2), ...fresh);
    i += 1 + fresh.length;
  }
  return { text: lines.join('\n'), stale };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let failed = false;
  for (const file of sampleFiles()) {
    const { text, stale } = regenerate(readFileSync(file, 'utf8'));
    if (stale.length === 0) continue;
    if (check) {
      failed = true;
      for (const s of stale)
        console.error(`${relative(root, file)}: the sample of "${s}" differs from the command's output`);
    } else {
      writeFileSync(file, text);
      console.log(`${relative(root, file)}: ${stale.length} sample(s) regenerated`);
    }
  }
  if (failed) {
    console.error('run node scripts/doc-samples.mjs to regenerate them');
    process.exit(1);
  }
}
