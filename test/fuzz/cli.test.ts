// Fuzzing every CLI command in process (runCli) on generated bad and edge-case inputs. Each case
// must end with a documented exit status (0 success, 1 failure inside user code, 2 bad input or
// destination), a single-line message naming what is wrong, no stack trace (no --debug), no
// output on stdout and no file written when it fails, and stay within LIMITS (time, RSS).
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cli, type CliResult } from '../cli/inProcess.js';
import { budget, LIMITS, LONG, TEST_TIMEOUT } from './budget.js';
import { applyMutations, flagValue, moduleText, modulePlan, mutation, oddPath, planIsValid } from './inputs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const graphDoc = JSON.parse(readFileSync(join(root, 'examples/scenario/graph.json'), 'utf8')) as unknown;
const evidenceDoc = JSON.parse(readFileSync(join(root, 'examples/scenario/evidence.json'), 'utf8')) as unknown;
const samplesFile = join(root, 'examples/samples/synthetic.jsonl');
const samplesText = readFileSync(samplesFile, 'utf8').split('\n').slice(0, 6).join('\n') + '\n';
const work = mkdtempSync(join(tmpdir(), 'ordergap-fuzz-'));
let n = 0;
const fresh = (name: string) => join(work, `${++n}-${name}`);

const cwd = process.cwd();

beforeAll(() => {
  // relative odd paths (' ', '-') resolve inside the scratch folder, not in the checkout
  process.chdir(work);
  process.env['ORDERGAP_MEMORY_LIMIT'] = String(LIMITS.memoryLimitBytes);
  writeFileSync(join(work, 'a-file'), 'x');
});
/** Cases per exit status, over the whole file (printed, and appended to FUZZ_REPORT). */
const outcomes: Record<string, number> = {};

afterAll(() => {
  const line = JSON.stringify({ property: 'CLI exit statuses', outcomes });
  process.stdout.write(`fuzz: ${line}\n`);
  if (process.env['FUZZ_REPORT']) appendFileSync(process.env['FUZZ_REPORT'], line + '\n');
  delete process.env['ORDERGAP_MEMORY_LIMIT'];
  process.chdir(cwd);
  rmSync(work, { recursive: true, force: true });
});

/** An argument name at the start of the message (`graph.nodes[3].confidence = …`, `--plot = …`) or commander's `option '--x <n>' …`. */
const NAMED =
  /^(ordergap: error: [^=]{1,300}? = |error: (option '--|unknown option '|missing required argument|required option '--|too many arguments))/;

/** The invariants every case is held to; `outputs` must not exist afterwards unless it succeeded. */
function check(r: CliResult, allowed: readonly number[], outputs: readonly string[] = [], json = false): void {
  outcomes[`exit ${r.code}`] = (outcomes[`exit ${r.code}`] ?? 0) + 1;
  const ctx = `exit ${r.code}\nstderr: ${r.stderr.slice(0, 600)}\nstdout: ${r.stdout.slice(0, 200)}`;
  if (!allowed.includes(r.code)) throw new Error(`exit status not in ${allowed.join('/')}: ${ctx}`);
  if (/\n\s+at /.test(r.stderr) || /^\s+at .*:\d+:\d+\)?$/m.test(r.stderr))
    throw new Error(`stack trace without --debug: ${ctx}`);
  if (r.ms > LIMITS.caseMs) throw new Error(`took ${r.ms.toFixed(0)} ms > ${LIMITS.caseMs}: ${ctx}`);
  const rss = process.memoryUsage.rss();
  if (rss > LIMITS.rssBytes) throw new Error(`RSS ${rss} > ${LIMITS.rssBytes}: ${ctx}`);
  if (r.code === 0) {
    if (r.stdout.length === 0) throw new Error(`exit 0 with nothing on stdout: ${ctx}`);
    if (json) JSON.parse(r.stdout);
    return;
  }
  const lines = r.stderr.trimEnd().split('\n');
  if (lines.length !== 1) throw new Error(`message is not one line: ${ctx}`);
  if (r.code === 2 && !NAMED.test(lines[0]!)) throw new Error(`message does not name the argument: ${ctx}`);
  if (r.code === 1 && !/^ordergap: error: \S+: \S+ threw /.test(lines[0]!))
    throw new Error(`exit 1 that is not a user operator's throw: ${ctx}`);
  if (r.stdout.length > 0) throw new Error(`partial output on stdout: ${ctx}`);
  for (const o of outputs)
    if (existsSync(o) && readdirSync(o).length > 0) throw new Error(`partial output in ${o}: ${ctx}`);
}

describe(`fuzz: CLI commands (${LONG ? 'long' : 'short'} budget)`, () => {
  it(
    'run --graph: mutated graph documents',
    async () => {
      const evidence = fresh('evidence.json');
      writeFileSync(evidence, JSON.stringify(evidenceDoc));
      await fc.assert(
        fc.asyncProperty(mutation(JSON.stringify(graphDoc)), async (ms) => {
          const g = fresh('graph.json');
          writeFileSync(g, applyMutations(graphDoc, ms));
          const plots = fresh('plots');
          check(
            await cli('run', '--graph', g, '--evidence', evidence, '--max-steps', '3', '--json', '--plot', plots),
            [0, 2],
            [plots],
            true,
          );
        }),
        budget('run --graph mutations', 12, 600),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'run --evidence: mutated evidence pools',
    async () => {
      const graph = fresh('graph.json');
      writeFileSync(graph, JSON.stringify(graphDoc));
      await fc.assert(
        fc.asyncProperty(mutation(JSON.stringify(evidenceDoc)), async (ms) => {
          const e = fresh('evidence.json');
          writeFileSync(e, applyMutations(evidenceDoc, ms));
          check(await cli('run', '--graph', graph, '--evidence', e, '--max-steps', '3'), [0, 2]);
        }),
        budget('run --evidence mutations', 12, 600),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'compare --samples/--rules: mutated JSONL and rule specs',
    async () => {
      const lines = samplesText
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
      const rule = fc.oneof(
        fc.constantFrom(
          'order-gap',
          'fixed-budget',
          'beta',
          'nosuch',
          'order-gap:epsilon=abc',
          'order-gap:epsilon=0.05,window=0',
          'beta:threshold=2',
          'order-gap:bogus=1',
          ':',
          '',
        ),
        fc
          .tuple(
            fc.constantFrom('order-gap', 'beta', 'fixed-budget'),
            fc.constantFrom('epsilon', 'window', 'threshold', 'budget', 'minSamples'),
            flagValue,
          )
          .map(([r, k, v]) => `${r}:${k}=${v}`),
      );
      await fc.assert(
        fc.asyncProperty(
          mutation(JSON.stringify(lines)),
          fc.array(rule, { maxLength: 2 }),
          fc.option(flagValue),
          async (ms, rules, repeats) => {
            const f = fresh('samples.jsonl');
            const mutated = applyMutations(lines, ms);
            let text: string;
            try {
              const arr = JSON.parse(mutated) as unknown;
              text = Array.isArray(arr) ? arr.map((x) => JSON.stringify(x)).join('\n') + '\n' : mutated;
            } catch {
              text = mutated;
            }
            writeFileSync(f, text);
            const args = ['compare', '--samples', f, '--json', '--repeats', repeats ?? '2'];
            for (const r of rules) args.push('--rules', r);
            check(await cli(...args), [0, 2], [], true);
          },
        ),
        budget('compare mutations', 12, 600),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'every command: odd flag values',
    async () => {
      const commands: Array<[string, string[], string[]]> = [
        ['demo', ['--epsilon', '--window', '--max-steps', '--seed'], []],
        ['run', ['--epsilon', '--window', '--max-steps', '--seed', '--delta'], ['--max-steps', '4']],
        [
          'certify',
          [
            '--epsilon',
            '--window',
            '--max-steps',
            '--seed',
            '--samples',
            '--radius',
            '--at',
            '--from',
            '--probabilities',
            '--jacobian',
            '--linearization',
            '--subspace',
            '--question',
          ],
          ['--system', 'closed-form', '--samples', '8'],
        ],
        ['compare', ['--repeats', '--seed', '--budget', '--extractor'], ['--samples', samplesFile, '--repeats', '2']],
      ];
      await fc.assert(
        fc.asyncProperty(
          fc
            .nat({ max: commands.length - 1 })
            .chain((c) =>
              fc.tuple(
                fc.constant(c),
                fc.array(fc.tuple(fc.constantFrom(...commands[c]![1]), flagValue), { minLength: 1, maxLength: 3 }),
              ),
            ),
          async ([c, flags]) => {
            const [cmd, , base] = commands[c]!;
            const args = [cmd, ...base];
            for (const [f, v] of flags) {
              // bounded work: a large but valid budget would only be slow, not wrong
              const value =
                (f === '--max-steps' || f === '--samples' || f === '--repeats' || f === '--budget') && Number(v) > 50
                  ? '50'
                  : v;
              args.push(f, value);
            }
            check(await cli(...args, '--json'), [0, 2], [], true);
          },
        ),
        budget('odd flag values', 16, 800),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'every output flag: odd destinations',
    async () => {
      const dest = oddPath(work);
      const cases = fc.oneof(
        dest.map((p) => ['demo', '--plot', p]),
        dest.map((p) => ['run', '--max-steps', '2', '--plot', p]),
        dest.map((p) => ['certify', '--system', 'closed-form', '--samples', '4', '--report', p]),
        dest.map((p) => ['certify', '--system', 'closed-form', '--samples', '4', '--plot', p]),
        dest.map((p) => ['compare', '--samples', samplesFile, '--repeats', '1', '--plot', p]),
        dest.map((p) => ['compare', '--samples', samplesFile, '--repeats', '1', '--record', p]),
      );
      await fc.assert(
        fc.asyncProperty(cases, async (args) => {
          const before = readdirSync(work).length;
          const r = await cli(...args);
          check(r, [0, 2]);
          if (r.code !== 0 && readdirSync(work).length !== before)
            throw new Error(`failed (${r.stderr.trim()}) but created an entry in ${work}`);
          rmSync(join(work, 'fresh dir ü'), { recursive: true, force: true });
          rmSync(join(work, 'out.html'), { recursive: true, force: true });
          rmSync(join(work, 'out.svg'), { recursive: true, force: true });
        }),
        budget('odd destinations', 12, 400),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'every input flag: odd input paths (missing, folders, devices, empty; FIFOs are not generated: they block)',
    async () => {
      const empty = fresh('empty.json');
      writeFileSync(empty, '');
      const path = fc.constantFrom(
        '',
        ' ',
        '/dev/zero',
        '/dev/null',
        '/proc/self/mem',
        '/',
        work,
        empty,
        `${work}/missing.json`,
        `${work}/nul\u0000byte`,
        `${work}/${'n'.repeat(300)}`,
        '-',
      );
      const graph = join(root, 'examples/scenario/graph.json');
      const evidence = join(root, 'examples/scenario/evidence.json');
      const cases = fc.oneof(
        path.map((p) => ['run', '--graph', p, '--evidence', evidence]),
        path.map((p) => ['run', '--graph', graph, '--evidence', p]),
        path.map((p) => ['certify', '--graph', p, '--evidence', evidence]),
        path.map((p) => ['compare', '--samples', p]),
        path.map((p) => ['certify', '--system', p]),
      );
      await fc.assert(
        fc.asyncProperty(cases, async (args) => check(await cli(...args), [2])),
        budget('odd input paths', 12, 300),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'certify --system: operator modules that throw, return wrong lengths or NaN, mutate θ, are async, never converge',
    async () => {
      const dir = fresh('modules');
      mkdirSync(dir);
      await fc.assert(
        fc.asyncProperty(modulePlan, async (plan) => {
          const file = join(dir, `m${++n}.mjs`);
          writeFileSync(file, moduleText(plan));
          const r = await cli('certify', '--system', file, '--samples', '4', '--json');
          check(r, planIsValid(plan) ? [0] : [0, 1, 2], [], true);
        }),
        budget('operator modules', 20, 1000),
      );
    },
    TEST_TIMEOUT,
  );
});
