import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { runCli } from '../util/builtCli.js';
import { VERSION } from '../../src/cli/program.js';

const run = runCli;

describe('ordergap demo (built CLI)', () => {
  it('prints the Sec. 9.2 table, the stop at step 4, the budget run and the coverage failure', () => {
    const r = run('demo');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Algorithm 1 stops at step 4: Ω̂ = 0\.0221 <= ε = 0\.025; state \(c, u\) = \(0\.718,/);
    expect(r.stdout).toMatch(/Fixed budget Tmax = 5: 5 steps, state \(c, u\) = \(0\.732,/);
    expect(r.stdout).toMatch(/Δc = \+0\.014/);
    expect(r.stdout).toMatch(/NOT CONVERGENCE/);
  });

  it('--json gives one document with unrounded numbers', () => {
    const r = run('demo', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.orderGapStop.step).toBe(4);
    expect(doc.trajectory).toHaveLength(5);
    expect(doc.trajectory[0].omega).toBeCloseTo(0.0288, 15);
    expect(doc.coverageFailure.allReachable).toBe(false);
    expect(doc.coverageFailure.poolCheck.unreachableItems).toEqual(['e2', 'e3']);
  });

  it('flags override the defaults', () => {
    const doc = JSON.parse(run('demo', '--json', '--epsilon', '0.001', '--window', '1', '--max-steps', '3').stdout);
    expect(doc.setting).toMatchObject({ epsilon: 0.001, window: 1, maxSteps: 3 });
    expect(doc.trajectory).toHaveLength(3);
    expect(doc.orderGapStop.reason).toBe('budget');
  });

  it('a bad flag or value exits 2 with a one-line message naming it', () => {
    for (const args of [
      ['demo', '--epsilon', 'abc'],
      ['demo', '--epsilon', '-1'],
      ['demo', '--window', '0'],
      ['demo', '--max-steps', '2.5'],
      ['demo', '--seed', '-1'],
      ['demo', '--bogus'],
      ['nosuchcommand'],
    ]) {
      const r = run(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(run('demo', '--window', '0').stderr).toMatch(/--window/);
  });

  it('--version matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(pkg.version);
    expect(run('--version').stdout.trim()).toBe(pkg.version);
  });
});
