// --threads on certify, run and compare: a bad value is refused before any work (exit 2, one
// line), a good one is recorded in the report, changes no result, and the pool is stopped after
// the command (in process, and a spawned CLI exits on its own).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, type CliResult } from './inProcess.js';
import { threadCount } from '../../src/linalg/threads.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const samples = join(root, 'examples/samples/synthetic.jsonl');

function refused(r: CliResult): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/--threads.*'auto' or an integer in \[1, 64\]/);
}

function json(r: CliResult): Record<string, unknown> {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('--threads', () => {
  it.each([
    ['certify', '--system', 'closed-form', '--threads', '0'],
    ['run', '--system', 'closed-form', '--threads', 'many'],
    ['compare', '--samples', samples, '--threads', '2.5'],
    ['compare', '--samples', samples, '--threads', '65'],
  ])('%s … %s %s %s %s: exit 2, one line, nothing on stdout', async (...args) => {
    refused(await cli(...args));
    expect(threadCount()).toBe(1);
  });

  it('certify records the threads beside the timings and stops the pool after', async () => {
    const r = await cli('certify', '--system', 'closed-form', '--threads', '2', '--json');
    const report = json(r) as { environment: { threads: unknown } };
    expect(report.environment.threads).toEqual({ requested: 2, threads: 2, probe: null });
    expect(r.stderr).toContain('threads: 2 threads');
    expect(threadCount()).toBe(1);
    const one = json(await cli('certify', '--system', 'closed-form', '--threads', '1', '--no-timings', '--json'));
    const two = json(await cli('certify', '--system', 'closed-form', '--threads', '2', '--no-timings', '--json'));
    expect(two).toEqual(one);
  });

  it('run with auto records the decision and its probe', async () => {
    const r = await cli('run', '--system', 'closed-form', '--threads', 'auto', '--json');
    const report = json(r) as { threads: { requested: string; threads: number; probe: { ratio: number } | null } };
    expect(report.threads.requested).toBe('auto');
    expect([1, 2]).toContain(report.threads.threads);
    if (report.threads.probe !== null) expect(report.threads.probe.ratio).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^threads: [12] threads?/m);
    expect(threadCount()).toBe(1);
    const plain = json(await cli('run', '--system', 'closed-form', '--json'));
    const { threads: _, ...rest } = report;
    expect(rest).toEqual(plain);
  });

  it('compare gives the same comparison on two threads as without the option', async () => {
    const two = json(await cli('compare', '--samples', samples, '--threads', '2', '--json'));
    const plain = json(await cli('compare', '--samples', samples, '--json'));
    expect(two.threads).toEqual({ requested: 2, threads: 2, probe: null });
    const { threads: _, ...rest } = two;
    expect(rest).toEqual(plain);
  });

  it('the built CLI exits on its own after a command on two threads', () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'dist/cli/main.js'), 'certify', '--system', 'closed-form', '--threads', '2', '--no-timings'],
      { timeout: 60_000, encoding: 'utf8' },
    );
    expect(r.error).toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
  });
});
