// The fuzz bookkeeping itself: every property prints its seed when it ends, passed or failed, so
// a run that passed can be repeated (docs/cli.md, "Fuzzing").
import type { RunDetails } from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { budget, seed } from './budget.js';

/** The details fast-check hands the reporter at the end of a property. */
function details(failed: boolean): RunDetails<unknown> {
  return {
    failed,
    numRuns: 3,
    seed,
    counterexamplePath: failed ? '2:0' : null,
    counterexample: failed ? ['x'] : null,
    errorInstance: failed ? new Error('boom') : null,
  } as unknown as RunDetails<unknown>;
}

describe('fuzz bookkeeping', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a passing property prints one line with its seed', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    budget('a property', 3, 3).reporter!(details(false));
    expect(log).toHaveBeenCalledTimes(1);
    const line = String(log.mock.calls[0]![0]);
    expect(line).toMatch(/^fuzz: \{/);
    expect(JSON.parse(line.slice('fuzz: '.length))).toMatchObject({ property: 'a property', seed, failed: false });
  });

  it('a failing property prints the same line and throws with the seed and path that replay it', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(() => budget('a property', 3, 3).reporter!(details(true))).toThrow(
      new RegExp(`replay with FUZZ_SEED=${seed} FUZZ_PATH=2:0`),
    );
    expect(JSON.parse(String(log.mock.calls[0]![0]).slice('fuzz: '.length))).toMatchObject({ seed, failed: true });
  });
});
