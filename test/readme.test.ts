import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { EvidenceFeed } from '../src/adapters/evidence.js';
import { CoverageStopper, type CoveragePolicy } from '../src/coverageStop/stopper.js';
import { AgentState } from '../src/graph/agent/agent.js';
import { toEvidenceItem } from '../src/graph/agent/llmEvidence.js';
import { createRule } from '../src/stopping/registry.js';
import { BIN, tempFolder } from './util/builtCli.js';

// Every js/ts code block of README.md runs, as written, against the built package (`npm run
// build` first): `import ... from 'ordergap'` resolves to this checkout through a node_modules
// link in a temporary folder. What a snippet names as the reader's own input (`graphDoc`,
// `extractClaims`) the harness defines before the snippet; after it, the harness reads back
// the snippet's results: each line `expression; // value` is checked (≈: to 12 digits), and an
// agent loop's `report` is compared with the adapters' loop on the same input. The sh blocks'
// `ordergap` commands run through the built CLI; `npm install` and `npm test` do not (the network,
// and the whole suite).
const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const chunks = join(root, 'examples/agents/chunks.json');
const scenarioGraph = join(root, 'examples/scenario/graph.json');
/** tsx's loader, named by path: the snippets' folder has no node_modules of its own but `ordergap`. */
const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
const outputs = (JSON.parse(readFileSync(chunks, 'utf8')) as { outputs: unknown[] }).outputs;

interface Block {
  lang: string;
  line: number;
  code: string;
}

/** The fenced blocks of a language, with the line of their opening fence. */
function blocks(text: string, langs: readonly string[]): Block[] {
  const out: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(text); m !== null; m = re.exec(text))
    if (langs.includes(m[1]!)) out.push({ lang: m[1]!, line: text.slice(0, m.index).split('\n').length, code: m[2]! });
  return out;
}

/** The reader's inputs a snippet may name, defined by the harness (round robin over the example chunks, as examples/agents). */
const STUBS: Record<string, string> = {
  graphDoc: `const graphDoc = JSON.parse(__readFileSync(${JSON.stringify(scenarioGraph)}, 'utf8'));`,
  extractClaims:
    `async function* extractClaims() {\n` +
    `  const { outputs } = JSON.parse(__readFileSync(${JSON.stringify(chunks)}, 'utf8'));\n` +
    `  for (let i = 0; i < 1000; i++) yield outputs[i % outputs.length];\n}`,
};

/** Stubs a snippet uses without declaring them. */
function stubsOf(code: string): string[] {
  return Object.keys(STUBS).filter(
    (name) =>
      new RegExp(`\\b${name}\\b`).test(code) &&
      !new RegExp(`\\b(const|let|var|function\\*?|class)\\s+${name}\\b`).test(code),
  );
}

/** `expression; // value` lines: the value a snippet states for an expression. */
function claims(code: string): Array<{ line: number; expr: string; expected: string; approx: boolean }> {
  const re =
    /^(?!\s*(?:const|let|var|import|await|for|if|return)\b)\s*(\S.*?);\s*\/\/\s*(≈\s*)?('[^']*'|-?\d[\d.eE+-]*)(?=\s|$)/;
  return code.split('\n').flatMap((l, i) => {
    const m = re.exec(l);
    return m ? [{ line: i + 1, expr: m[1]!, expected: m[3]!, approx: m[2] !== undefined }] : [];
  });
}

/** The module the harness runs: the stubs, the snippet as written, then the read-back. */
function harnessed(code: string): string {
  const checks = claims(code)
    .map(
      (c) =>
        `__out.claims.push({ line: ${c.line}, expr: ${JSON.stringify(c.expr)}, actual: (${c.expr}), expected: (${c.expected}), approx: ${c.approx} });`,
    )
    .join('\n');
  return [
    "import { readFileSync as __readFileSync } from 'node:fs';",
    ...stubsOf(code).map((n) => STUBS[n]!),
    code,
    'const __out = { claims: [], report: null, stopper: null };',
    checks,
    "if (typeof report !== 'undefined' && report) __out.report = { stop: report.stop, step: report.step, reason: report.reason, verdict: report.verdict };",
    "if (typeof stopper !== 'undefined' && stopper) __out.stopper = { rule: stopper.rule.name, params: stopper.rule.params, policy: stopper.policy, maxSteps: stopper.maxSteps };",
    "console.log('README-RESULT ' + JSON.stringify(__out));",
    '',
  ].join('\n');
}

interface Result {
  claims: Array<{ line: number; expr: string; actual: unknown; expected: unknown; approx: boolean }>;
  report: { stop: boolean; step: number; reason: string; verdict: string | null } | null;
  stopper: {
    rule: string;
    params: Record<string, unknown>;
    policy: CoveragePolicy | false;
    maxSteps: number | null;
  } | null;
}

/** The adapters' loop (their default candidates) on the stub's input, with the snippet's stopper settings. */
async function adapterStop(s: NonNullable<Result['stopper']>) {
  const state = AgentState.fromGraph(JSON.parse(readFileSync(scenarioGraph, 'utf8')));
  const stopper = new CoverageStopper(null, createRule({ name: s.rule, params: s.params as Record<string, number> }), {
    policy: s.policy,
    ...(s.maxSteps !== null ? { maxSteps: s.maxSteps } : {}),
  });
  const feed = new EvidenceFeed(state, stopper);
  let r = null;
  for (let i = 0; !r?.stop; i++) r = await feed.feed([toEvidenceItem(state, outputs[i % outputs.length])]);
  return r!;
}

describe('README.md: its code runs as written against the built package', () => {
  const dir = tempFolder('readme');
  beforeAll(() => {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'ordergap'), 'dir');
  });
  const code = blocks(readme, ['js', 'ts']);

  it('has js/ts blocks to run, and values they state to check', () => {
    expect(code.length).toBeGreaterThanOrEqual(2);
    expect(code.flatMap((b) => claims(b.code)).length).toBeGreaterThanOrEqual(4);
  });

  it.each(code.map((b) => [`${b.lang} block at line ${b.line}`, b] as const))(
    '%s runs; every value it states holds',
    async (_name, b) => {
      const file = join(dir, `block-${b.line}.${b.lang === 'ts' ? 'mts' : 'mjs'}`);
      writeFileSync(file, harnessed(b.code));
      const args = b.lang === 'ts' ? ['--import', tsx, file] : [file];
      const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const line = r.stdout.split('\n').find((l) => l.startsWith('README-RESULT '));
      const result = JSON.parse(line!.slice('README-RESULT '.length)) as Result;
      for (const c of result.claims) {
        const where = `README line ${b.line + c.line}: ${c.expr}`;
        if (c.approx) expect(Math.abs((c.actual as number) / (c.expected as number) - 1), where).toBeLessThan(1e-12);
        else expect(c.actual, where).toEqual(c.expected);
      }
      if (stubsOf(b.code).includes('extractClaims')) {
        // an agent loop: it stops with a coverage verdict, where the adapters' loop stops
        expect(result.report, 'the loop keeps its last report in `report`').not.toBeNull();
        expect(result.report!.stop).toBe(true);
        expect(result.report!.verdict).not.toBeNull();
        const expected = await adapterStop(result.stopper!);
        expect(result.report).toEqual({
          stop: expected.stop,
          step: expected.step,
          reason: expected.reason,
          verdict: expected.verdict,
        });
      }
    },
    120_000,
  );

  it('the ordergap commands of its sh blocks exit 0 (npm install and npm test are not run)', () => {
    const commands = blocks(readme, ['sh']).flatMap((b) =>
      b.code
        .split('\n')
        .map((l) => l.replace(/#.*$/, '').trim())
        .filter(Boolean)
        .flatMap((l) => l.split('&&').map((c) => c.trim())),
    );
    const cli = commands.filter((c) => /^(npx )?ordergap\b/.test(c));
    expect(commands.filter((c) => !cli.includes(c)).sort()).toEqual(['npm install', 'npm test']);
    expect(cli.length).toBeGreaterThan(0);
    for (const c of cli) {
      const args = c
        .replace(/^(npx )?ordergap\s*/, '')
        .split(/\s+/)
        .filter(Boolean);
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8' });
      expect(r.status, `${c}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length, c).toBeGreaterThan(0);
    }
  }, 120_000);
});
