import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempFolder } from '../util/builtCli.js';

// `ordergap run` on every kind of system the operator contract allows, through the real built
// CLI: the contract reaches the run path, not only certify.
const example = fileURLToPath(new URL('../../examples/systems/linear.mjs', import.meta.url));
const run = runCli;
const json = (...args: string[]) => {
  const r = run(...args, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
};

describe('ordergap run --system and --rule (built CLI)', () => {
  it('runs Algorithm 1 on an operator module', () => {
    const doc = json('run', '--system', example);
    expect(doc.scenario).toMatchObject({ source: example, dim: 6, evidenceItems: 3 });
    expect(doc.stop.reason).toBe('order-gap');
    expect(doc.trajectory.length).toBe(doc.stop.step);
    // Ω̂ at the stop is the mean of the last w order-gaps and at most ε (Eq. 3)
    const last = doc.trajectory.slice(-doc.setting.window).map((r: { omega: number }) => r.omega);
    const mean = last.reduce((a: number, b: number) => a + b, 0) / last.length;
    expect(doc.stop.windowed).toBeCloseTo(mean, 15);
    expect(doc.stop.windowed).toBeLessThanOrEqual(doc.setting.epsilon);
    expect(doc.initialState).toBeNull();
  });

  it('on the closed form it stops where the demo does (Sec. 9.2: the items in order, stop at step 4)', () => {
    const demo = json('demo');
    const doc = json('run', '--system', 'closed-form', '--epsilon', '0.025', '--window', '2');
    expect(doc.setting.sequence).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(doc.stop.step).toBe(demo.orderGapStop.step);
    expect(doc.stop.windowed).toBe(demo.orderGapStop.windowed);
    expect(doc.trajectory.map((r: { omega: number }) => r.omega)).toEqual(
      demo.trajectory.slice(0, doc.stop.step).map((r: { omega: number }) => r.omega),
    );
    // a seed asks for sampling P(·|θ) instead of the fixed order
    const sampled = json('run', '--system', 'closed-form', '--seed', '3');
    expect(sampled.setting.sequence).toBeUndefined();
    expect(sampled.trajectory.every((r: { probability: number | null }) => r.probability !== null)).toBe(true);
  });

  it('any registered rule drives the run; the report keeps Ω̂ and names the rule', () => {
    const doc = json('run', '--rule', 'confidence:threshold=0.7');
    expect(doc.setting.rule).toBe('confidence(threshold=0.7, minSteps=1)');
    expect(doc.stop.reason).toBe('criterion');
    const paper = json('run');
    expect(doc.stop.step).not.toBe(paper.stop.step);
    expect(doc.trajectory.map((r: { omega: number }) => r.omega)).toEqual(
      paper.trajectory.slice(0, doc.stop.step).map((r: { omega: number }) => r.omega),
    );
    const og = json('run', '--rule', 'order-gap');
    expect(og.stop).toEqual(paper.stop);
  });

  it('refuses, with exit 2 and one line naming the flag, what cannot run', () => {
    for (const [args, flag] of [
      [['--system', 'closed-form', '--graph', 'g.json', '--evidence', 'e.json'], '--graph'],
      [['--system', 'nosuch'], '--system'],
      [['--system', 'closed-form', '--rule', 'stability'], '--rule'],
      [['--rule', 'nosuch'], '--rule'],
      [['--rule', 'beta:threshold=2'], '--rule'],
      [['--synthetic', '100', '--system', 'closed-form'], '--synthetic'],
      [['--probabilities', 'e2=0'], '--probabilities'],
      // a key given twice is refused, as in a rule spec
      [['--system', 'closed-form', '--probabilities', 'e2=0,e2=0.5'], '--probabilities.*e2 is given twice'],
    ] as const) {
      const r = run('run', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(flag));
    }
  });
});

describe('ordergap run: the pool check and the coverage check in their own words; open questions at the stop', () => {
  it('only the coverage check calls a stop blind; the pool check names the moving and the unreachable items', () => {
    const r = run('run', '--coverage', 'stop', '--no-progress');
    expect(r.status, r.stderr).toBe(0);
    const [before, coverage] = r.stdout.split(/^Coverage-aware stop: /m);
    const doc = json('run', '--coverage', 'stop');
    // the paper's stop is blind by the coverage check ...
    expect(coverage).toMatch(new RegExp(`^paper's rule \\(stop\\)\\s+${doc.stop.step}\\s+blind `, 'm'));
    // ... and nothing else in the output says otherwise of the same stop
    expect(r.stdout).not.toMatch(/not blind|BLIND STOP/i);
    const pool = before!.split('\n').find((l) => l.startsWith('Pool check at the stop'));
    expect(pool).toMatch(
      / — all reachable \(P > 0\); the coverage check \(--coverage\) calls a stop with such items blind\.$/,
    );
    expect(doc.coverage.paper.kind).toBe('blind');
    expect(doc.poolCheck.verdict).toBe('reachable');
    expect(doc.poolCheck.unreachableItems).toEqual([]);
    expect(JSON.stringify(doc.poolCheck)).not.toMatch(/blind/i);
  }, 60_000);

  it('warns, in text and JSON, when the stop leaves questions open, naming them', () => {
    // seed 71 stops before e04, the only item that resolves q:birthplace, is drawn
    const doc = json('run', '--seed', '71');
    const questions = doc.finalState.questions as Array<{ question: string; open: boolean }>;
    const open = questions.filter((q) => q.open).map((q) => q.question);
    expect(doc.neverDrawn).toContain('e04');
    expect(open.length).toBeGreaterThan(0);
    expect(doc.stop.reason).toBe('order-gap');
    expect(doc.openAtStop).toMatchObject({ questions: open, declared: questions.length, source: 'summary' });
    const text = run('run', '--seed', '71', '--no-progress').stdout;
    const warning = text.split('\n').find((l) => l.startsWith('Warning: '));
    expect(warning).toBe(`Warning: ${doc.openAtStop.warning}.`);
    for (const q of open) expect(warning).toContain(q);
    // every question answered (the default seed): no warning, and the JSON has no such field
    const answered = json('run');
    expect(answered.finalState.openQuestions).toEqual([]);
    expect(answered).not.toHaveProperty('openAtStop');
    expect(run('run', '--no-progress').stdout).not.toMatch(/^Warning/m);
  });
});

describe('ordergap run --synthetic: sizes estimated beyond the limits (built CLI)', () => {
  const dir = tempFolder('run-size');

  it('Nmax = 2^20 for 1000 steps is refused up front: exit 2, the estimate in one line, nothing printed or written', () => {
    const states = join(dir, 'states.jsonl');
    const plots = join(dir, 'plots');
    const r = run(
      'run',
      '--synthetic',
      String(2 ** 20),
      '--max-steps',
      '1000',
      '--record-states',
      states,
      '--plot',
      plots,
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ordergap: error: --synthetic = 1048576: estimated to take up to \d+ (h|min)( \d+ (min|s))? \(building .+ \+ 1000 steps × .+\) and [\d.]+ GiB, more than the 10 min time limit.*; --no-size-limit runs it anyway$/,
    );
    expect(existsSync(states) || existsSync(plots)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--no-size-limit runs a size the limit refuses (here a memory limit of 1 MB), with the same report', () => {
    const limited = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'run', '--synthetic', '100', '--json', ...args], {
        encoding: 'utf8',
        env: { ...process.env, ORDERGAP_MEMORY_LIMIT: '1000000' },
      });
    const refused = limited();
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/--synthetic = 100: estimated .* MiB, more than ORDERGAP_MEMORY_LIMIT \(977 KiB\)/);
    const insisted = limited('--no-size-limit');
    expect(insisted.stderr).toBe('');
    expect(insisted.status).toBe(0);
    expect(JSON.parse(insisted.stdout)).toEqual(json('run', '--synthetic', '100'));
  });
});
