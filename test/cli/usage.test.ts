// What a newcomer's first commands meet: files saved with a byte-order mark, a bad line of a
// samples file, a rule parameter given twice, an option of another system, the help, and a
// --plot folder that does not exist yet. In process (./inProcess.ts), each case small.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, type CliResult } from './inProcess.js';
import { resolveSystem } from '../../src/report/systems.js';
import { runReport } from '../../src/report/run.js';
import { MAX_SHOWN_EXCERPT } from '../../src/util/errors.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scenario = join(root, 'examples/scenario');
const samples = join(root, 'examples/samples/synthetic.jsonl');
const linear = join(root, 'examples/systems/linear.mjs');
const work = mkdtempSync(join(tmpdir(), 'ordergap-usage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of `file` in the work folder with a UTF-8 byte-order mark in front. */
function withBom(file: string, name: string): string {
  const out = join(work, name);
  writeFileSync(out, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(file)]));
  return out;
}

/** Exit 2 and one line on stderr matching `pattern`, nothing on stdout. */
function refused(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr.trimEnd()).toMatch(pattern);
}

/** The parsed --json output of a successful invocation. */
function json(r: CliResult): Record<string, unknown> {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('input files saved with a UTF-8 byte-order mark', () => {
  it('graph and evidence files with a BOM run exactly as without', async () => {
    const plain = json(
      await cli(
        'run',
        '--graph',
        join(scenario, 'graph.json'),
        '--evidence',
        join(scenario, 'evidence.json'),
        '--json',
      ),
    );
    const bom = json(
      await cli(
        'run',
        '--graph',
        withBom(join(scenario, 'graph.json'), 'graph.json'),
        '--evidence',
        withBom(join(scenario, 'evidence.json'), 'evidence.json'),
        '--json',
      ),
    );
    expect({ ...bom, scenario: null }).toEqual({ ...plain, scenario: null });
  });

  it('a samples file with a BOM compares exactly as without (the same text, so the same sha256)', async () => {
    const plain = json(await cli('compare', '--samples', samples, '--repeats', '1', '--rules', 'order-gap', '--json'));
    const bom = json(
      await cli(
        'compare',
        '--samples',
        withBom(samples, 's.jsonl'),
        '--repeats',
        '1',
        '--rules',
        'order-gap',
        '--json',
      ),
    );
    const strip = (d: Record<string, unknown>) =>
      JSON.stringify(d).replaceAll(samples, 'S').replaceAll(join(work, 's.jsonl'), 'S');
    expect(strip(bom)).toBe(strip(plain));
  });

  it('an operator module with a BOM loads', async () => {
    const r = await cli('run', '--system', withBom(linear, 'linear.mjs'), '--json');
    expect(json(r)['stop']).toEqual(json(await cli('run', '--system', linear, '--json'))['stop']);
  });
});

describe('error messages echo a short excerpt of a bad input, not the whole line', () => {
  it('a 4 KB line that is not JSON is named by file and line, with its first characters', async () => {
    const file = join(work, 'long.jsonl');
    const line = '{"question": "' + 'q'.repeat(4096);
    writeFileSync(file, line + '\n');
    const r = await cli('compare', '--samples', file);
    refused(r, new RegExp(`^ordergap: error: ${file.replace(/[.]/g, '\\.')}:1: line = `));
    expect(r.stderr).toContain(JSON.stringify(line.slice(0, MAX_SHOWN_EXCERPT) + '…'));
    expect(r.stderr.length).toBeLessThan(file.length + MAX_SHOWN_EXCERPT + 200);
  });
});

describe('a rule parameter given twice', () => {
  it('is refused naming the key, for compare --rules and run --rule', async () => {
    refused(
      await cli('compare', '--samples', samples, '--rules', 'order-gap:epsilon=0.1,epsilon=0.2'),
      /epsilon = "0\.2": is given twice \(epsilon=0\.1 before\)/,
    );
    refused(await cli('run', '--rule', 'beta:threshold=0.9,threshold=0.99'), /threshold = "0\.99": is given twice/);
  });
});

describe('an option of another system is refused naming the option and the system', () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ['run', '--system', linear, '--probabilities', 'e2=0'],
      /^ordergap: error: --probabilities = "e2=0": applies to closed-form only, not to .*linear\.mjs$/,
    ],
    [
      ['certify', '--system', linear, '--probabilities', 'e2=0'],
      /^ordergap: error: --probabilities = "e2=0": applies to closed-form only, not to .*linear\.mjs$/,
    ],
    [
      ['run', '--probabilities', 'e2=0,e3=0'],
      /^ordergap: error: --probabilities = "e2=0,e3=0": applies to closed-form only, not to reference-graph$/,
    ],
    [
      ['run', '--system', 'closed-form', '--graph', 'g.json', '--evidence', 'e.json'],
      /^ordergap: error: --graph = "g\.json": applies to reference-graph only, not to closed-form$/,
    ],
    [
      ['certify', '--system', linear, '--graph', 'g.json', '--evidence', 'e.json'],
      /^ordergap: error: --graph = "g\.json": applies to reference-graph only, not to .*linear\.mjs$/,
    ],
    [
      ['run', '--system', 'closed-form', '--synthetic', '100'],
      /^ordergap: error: --synthetic = 100: applies to reference-graph only, not to closed-form$/,
    ],
    [['run', '--system', 'closed-form', '--delta', '0.3'], /^ordergap: error: --delta = 0\.3: .*closed-form does not/],
    [['run', '--system', linear, '--delta', '0.3'], /^ordergap: error: --delta = 0\.3: .*linear-example does not/],
    [
      ['run', '--system', 'closed-form', '--schedule', '0.1'],
      /^ordergap: error: --schedule = 0\.1: needs a structured state, which closed-form does not declare/,
    ],
  ];
  it.each(cases)('%j', async (args, pattern) => {
    refused(await cli(...args), pattern);
  });

  it('the library refuses the same requests (resolveSystem, runReport)', async () => {
    await expect(resolveSystem({ system: linear, probabilities: { e2: 0 } })).rejects.toThrow(
      /^--probabilities = "e2=0": applies to closed-form only/,
    );
    await expect(resolveSystem({ system: 'closed-form', delta: 0.3 })).rejects.toThrow(
      /^--delta = 0\.3: .*closed-form does not/,
    );
    await expect(runReport({ system: 'closed-form', schedule: 0.1 })).rejects.toThrow(
      /^--schedule = 0\.1: .*closed-form/,
    );
  });

  it('options of the chosen system still apply', async () => {
    expect(
      json(await cli('run', '--system', 'closed-form', '--probabilities', 'e2=0,e3=0', '--json'))['stop'],
    ).toBeDefined();
    expect(json(await cli('run', '--system', 'reference-graph', '--delta', '0.4', '--json'))['setting']).toMatchObject({
      delta: 0.4,
    });
  });
});

describe('help and commands', () => {
  it('ordergap --help and ordergap help print the help on stdout, exit 0', async () => {
    for (const args of [['--help'], ['help'], ['help', 'run'], ['run', '--help']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/^Usage: ordergap /);
      expect(r.stderr).toBe('');
    }
  });

  it('ordergap with no command is a usage error: the help on stderr, exit 2', async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: ordergap /);
  });

  it('an unknown command is named, with --help after it or after help, exit 2', async () => {
    for (const args of [['NOSUCH', '--help'], ['NOSUCH'], ['help', 'NOSUCH'], ['--debug', 'NOSUCH', '-h']])
      refused(await cli(...args), /^error: unknown command 'NOSUCH'$/);
    refused(await cli('rnu', '--help'), /^error: unknown command 'rnu' \(Did you mean run\?\)$/);
    refused(await cli('run', '--epsilonn', '1'), /^error: unknown option '--epsilonn' \(Did you mean --epsilon\?\)$/);
  });
});

describe('destinations', () => {
  it('a --plot folder is created with every missing folder above it; a file destination needs its folder', async () => {
    const dir = join(work, 'a', 'b', 'c');
    const r = await cli('run', '--system', 'closed-form', '--plot', dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['run-trajectory.png', 'run-trajectory.svg']);
    refused(
      await cli('run', '--system', 'closed-form', '--record-states', join(work, 'x', 'states.jsonl')),
      /^ordergap: error: --record-states = .*: its folder .* does not exist$/,
    );
    expect(existsSync(join(work, 'x'))).toBe(false);
  });
});
