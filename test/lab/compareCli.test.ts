import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { runCli as runBuiltCli } from '../util/builtCli.js';
import { runCli } from '../../src/cli/program.js';
import { FIGURE_TIE } from '../../src/lab/pairedScoring.js';
import { loadRunRecord, replayRunRecord } from '../../src/lab/runRecord.js';
import { loadSamples } from '../../src/lab/samples.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/samples/synthetic.jsonl', import.meta.url));
const run = runBuiltCli;

describe('ordergap compare (built CLI)', () => {
  it('runs on the example file: the table against the full budget', () => {
    const r = run('compare', '--samples', EXAMPLE, '--repeats', '2');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/60 items, sha256 [0-9a-f]{12}\), 2 repeats, seed 0, budget 40, extractor answer-is/);
    expect(r.stdout).toMatch(/paired units \(item × repeat resolved by every rule\): 116, dropped 4; paired items 58/);
    expect(r.stdout).toMatch(
      /^\s*#\s+rule\s+accuracy\s+Δ vs full\s+95% CI of Δ\s+mean samples\s+saved\s+agrees w\/ full vote\s+false stops\s+no answer\s+front$/m,
    );
    expect(r.stdout).toMatch(
      /^\s*1\s+fixed-budget\(budget=40\)\s+\d+\.\d%\s+\+0\.0%\s+\[\+0\.0%, \+0\.0%\]\s+40\.00\s+0\.0%\s+100\.0%\s+0\.0%\s+0(\s+\*)?$/m,
    );
    // the one order-gap configuration is the documented default
    expect(r.stdout).toMatch(
      /^\s*2\s+order-gap\(epsilon=0\.03, window=3\)\s+\d+\.\d%\s+[-+]\d+\.\d%\s+\[-\d+\.\d%, \+\d+\.\d%\]/m,
    );
    expect(r.stdout).toMatch(/^\s*9\s+anytime\(delta=0\.05, budget=40, maxWeight=0\.5\)/m);
    expect(r.stdout).toMatch(/^10\s+pool\(delta=0\.05, budget=40, spending=0\.25\)/m);
    expect(r.stdout).toMatch(/^note: patience: does not fit votes/m);
    expect(r.stdout).toMatch(
      /^Pareto front \(\*: no other rule has at least its accuracy for at most its mean samples, one strictly\): #\d+/m,
    );
  });

  it('--rules all runs every registered rule at its defaults and marks the Pareto front', async () => {
    const { listRules } = await import('../../src/stopping/registry.js');
    const args = ['compare', '--samples', EXAMPLE, '--repeats', '2', '--rules', 'all'];
    const r = run(...args, '--json');
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      summary: {
        rules: Array<{
          name: string;
          label: string;
          accuracy: number;
          meanSamples: number;
          falseStopRate: number;
          agreement: number;
          accuracyDifference: unknown;
        }>;
      };
      paretoFront: string[];
    };
    const rules = doc.summary.rules;
    // the baseline (the fixed budget at N) first, then every other registered rule in registry order
    const names = listRules().map((x) => x.name);
    expect(rules.map((x) => x.name)).toEqual(['fixed-budget', ...names.filter((n) => n !== 'fixed-budget')]);
    expect(rules[0]!.label).toBe('fixed-budget(budget=40)');
    for (const x of rules) {
      expect(x.accuracyDifference, x.label).not.toBeNull();
      expect(x.falseStopRate).toBeCloseTo(1 - x.agreement, 15);
    }
    // the front by its definition, pair by pair
    const same = (a: number, b: number) => Math.abs(a - b) <= FIGURE_TIE * Math.max(a, b);
    const dominated = (p: (typeof rules)[number]) =>
      rules.some((q) => {
        const [sa, ss] = [same(q.accuracy, p.accuracy), same(q.meanSamples, p.meanSamples)];
        return (sa || q.accuracy > p.accuracy) && (ss || q.meanSamples < p.meanSamples) && !(sa && ss);
      });
    expect(doc.paretoFront).toEqual(rules.filter((p) => !dominated(p)).map((p) => p.label));
    expect(doc.paretoFront.length).toBeGreaterThan(0);
    // the text shows every rule, stars the front's rows and names them
    const text = run(...args);
    expect(text.status, text.stderr).toBe(0);
    const rows = text.stdout.split('\n').filter((l) => /^\s*\d+\s+\S/.test(l));
    expect(rows).toHaveLength(rules.length);
    const starred = rows.filter((l) => l.trimEnd().endsWith('*')).map((l) => Number(l.trim().split(/\s+/)[0]));
    const frontRows = rules.flatMap((x, i) => (doc.paretoFront.includes(x.label) ? [i + 1] : []));
    expect(starred).toEqual(frontRows);
    expect(text.stdout).toContain(`): ${frontRows.map((i) => `#${i}`).join(', ')}\n`);
    // with another spec: that configuration too; a default one given again runs once
    const more = run(...args, '--rules', 'beta:threshold=0.99', '--rules', 'beta', '--json');
    expect(more.status, more.stderr).toBe(0);
    const labels = (JSON.parse(more.stdout) as typeof doc).summary.rules.map((x) => x.label);
    expect(labels).toHaveLength(rules.length + 1);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toContain('beta(threshold=0.99, minSamples=1)');
  });

  it('--rules NAME alone uses the documented defaults; --help lists every default', async () => {
    const r = run(
      'compare',
      '--samples',
      EXAMPLE,
      '--repeats',
      '1',
      '--rules',
      'order-gap',
      '--rules',
      'anytime',
      '--json',
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary.rules.map((x: { label: string }) => x.label)).toEqual([
      'fixed-budget(budget=40)',
      'order-gap(epsilon=0.03, window=3)',
      'anytime(delta=0.05, maxWeight=0.5)',
    ]);
    const help = run('compare', '--help');
    expect(help.status).toBe(0);
    const { listRules } = await import('../../src/stopping/registry.js');
    for (const rule of listRules()) {
      const line = help.stdout.split('\n').find((l) => l.trimStart().startsWith(`${rule.name} `));
      expect(line, rule.name).toBeDefined();
      for (const p of rule.params)
        expect(line).toContain(`${p.name}=${p.default === null ? 'off' : String(p.default)}`);
    }
  });

  it('--json, --rules, --budget, --seed, --plot and --record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-compare-'));
    const plot = join(dir, 'acc.svg');
    const record = join(dir, 'run.json');
    const r = run(
      'compare',
      '--samples',
      EXAMPLE,
      '--json',
      '--repeats',
      '2',
      '--seed',
      '9',
      '--budget',
      '20',
      '--rules',
      'order-gap:epsilon=0.05,window=3',
      '--rules',
      'beta:threshold=0.9',
      '--plot',
      plot,
      '--record',
      record,
    );
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ repeats: 2, seed: 9, budget: 20 });
    expect(doc.summary.rules.map((x: { label: string }) => x.label)).toEqual([
      'fixed-budget(budget=20)',
      'order-gap(epsilon=0.05, window=3)',
      'beta(threshold=0.9, minSamples=1)',
    ]);
    for (const x of doc.summary.rules) expect(x.meanSamples).toBeLessThanOrEqual(20);
    expect((await readFile(plot, 'utf8')).startsWith('<svg')).toBe(true);
    const again = await replayRunRecord(await loadRunRecord(record), await loadSamples(EXAMPLE));
    expect(again.identical).toBe(true);
  });

  it('runs on any file in the format, with the numeric extractor', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-compare-'));
    const f = join(dir, 'math.jsonl');
    const s = (x: string) => `... so the answer is ${x}.`;
    await writeFile(
      f,
      [
        JSON.stringify({ question: '2+2', answer: '4', generated_answer: [s('4'), s('4.0'), s('5'), s('4'), s('4')] }),
        JSON.stringify({
          question: '10*100',
          answer: '1,000',
          generated_answer: [s('1000'), s('100'), s('1,000'), ''],
        }),
      ].join('\n'),
    );
    const r = run('compare', '--samples', f, '--extractor', 'numeric', '--repeats', '3', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary.pairedUnits).toBe(6);
    expect(doc.summary.rules[0].accuracy).toBe(1);
  });

  it('bad flags and bad files exit 2 with a one-line message naming them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-compare-'));
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, '{"question":"q","answer":"a","generated_answer":["x"]}\n{"question":"q","answer":"a"}\n');
    // in process through runCli (the same program the binary runs), capturing stderr
    const cli = async (...args: string[]): Promise<{ status: number; stderr: string }> => {
      let stderr = '';
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stderr += String(chunk);
        return true;
      });
      try {
        const status = await runCli(['node', 'ordergap', 'compare', ...args]);
        return { status, stderr };
      } finally {
        spy.mockRestore();
      }
    };
    const cases: Array<[string[], RegExp]> = [
      [['--samples', EXAMPLE, '--repeats', '0'], /'0' must be >= 1/],
      [['--samples', EXAMPLE, '--rules', 'nope'], /rule = "nope": is not a stopping rule/],
      [['--samples', EXAMPLE, '--rules', 'beta:threshold=2'], /threshold = 2/],
      [['--samples', EXAMPLE, '--rules', 'all:delta=0.1'], /rule spec = "all:delta=0\.1": "all" takes no parameters/],
      [['--samples', EXAMPLE, '--seed', '-3'], /'-3' must be >= 0/],
      [['--samples', EXAMPLE, '--extractor', 'regex'], /extractor = "regex"/],
      [[], /--samples/],
      [['--samples', bad], /bad.jsonl:2: generated_answer = undefined: must be an array/],
      [['--samples', join(dir, 'none.jsonl')], /cannot be read \(ENOENT\)/],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
    // and once through the built binary
    const r = run('compare', '--samples', bad);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad.jsonl:2: generated_answer/);
  });
});
