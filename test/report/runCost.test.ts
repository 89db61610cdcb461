import { describe, expect, it } from 'vitest';
import { syntheticRunCost } from '../../src/graph/scenarios/syntheticCost.js';
import * as runCost from '../../src/report/runCost.js';
import type { RunProgress, RunSizeLimits } from '../../src/report/runCost.js';
import { ArgumentError } from '../../src/util/errors.js';

const { checkRunSize, formatDuration, RUN_TIME_LIMIT_MS, runCostEstimate, RunProgressMeter } = runCost;
const { runProgressText, runSizeLimits } = runCost;

const roomy: RunSizeLimits = { milliseconds: Infinity, memory: { bytes: Infinity, source: 'test' } };

describe('checkRunSize', () => {
  it('refuses a size over the time limit with the estimate in one line naming --synthetic', () => {
    const cost = syntheticRunCost(4096, { steps: 100 });
    const limits = { ...roomy, milliseconds: cost.milliseconds / 2 };
    let error: unknown;
    try {
      checkRunSize({ synthetic: 4096 }, limits);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArgumentError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^--synthetic = 4096: estimated to take up to /);
    expect(message).toContain(formatDuration(cost.milliseconds));
    expect(message).toContain(`100 steps × ${formatDuration(cost.stepMilliseconds)}`);
    expect(message).toContain(`more than the ${formatDuration(limits.milliseconds)} time limit`);
    expect(message).toContain('--no-size-limit');
  });

  it('refuses a size over the memory limit naming the limit, and lets everything through with sizeLimit: false', () => {
    const limits = { milliseconds: Infinity, memory: { bytes: 1000, source: 'a test limit' } };
    expect(() => checkRunSize({ synthetic: 100 }, limits)).toThrow(/more than a test limit \(1000 B\)/);
    const tight = { milliseconds: 1, memory: { bytes: 1, source: 'a test limit' } };
    expect(checkRunSize({ synthetic: 100, sizeLimit: false }, tight)).toEqual(syntheticRunCost(100, { steps: 100 }));
  });

  it('estimates the budget asked for; no estimate without a synthetic scenario or for one resolveSystem refuses', () => {
    expect(checkRunSize({ synthetic: 4096, maxSteps: 7 }, roomy)!.steps).toBe(7);
    expect(checkRunSize({ synthetic: 4096, edgesPerNode: 30 }, roomy)).toEqual(
      syntheticRunCost(4096, { steps: 100, edgesPerNode: 30 }),
    );
    for (const synthetic of [undefined, 5, 4096.5, 2 ** 21]) expect(runCostEstimate({ synthetic })).toBeNull();
    expect(runCostEstimate({ synthetic: 4096, edgesPerNode: 2 })).toBeNull();
  });

  it('the default limits: 10 minutes, and ORDERGAP_MEMORY_LIMIT when set', () => {
    const limits = runSizeLimits({ ORDERGAP_MEMORY_LIMIT: '12345' });
    expect(limits).toEqual({
      milliseconds: RUN_TIME_LIMIT_MS,
      memory: { bytes: 12345, source: 'ORDERGAP_MEMORY_LIMIT' },
    });
    expect(RUN_TIME_LIMIT_MS).toBe(600_000);
    expect(runSizeLimits({}).memory.bytes).toBeGreaterThan(0);
  });
});

describe('formatDuration', () => {
  it.each([
    [30, '30 ms'],
    [1500, '1.5 s'],
    [42_000, '42 s'],
    [95_000, '1 min 35 s'],
    [600_000, '10 min'],
    [3_720_000, '1 h 2 min'],
  ])('%i ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('RunProgressMeter', () => {
  /** A meter on a clock the test moves, and what it reported. */
  function meter(cost: ReturnType<typeof syntheticRunCost> | null) {
    let clock = 0;
    const seen: RunProgress[] = [];
    const m = new RunProgressMeter(
      cost,
      (p) => seen.push(p),
      () => clock,
    );
    return { m, seen, tick: (ms: number) => (clock += ms) };
  }

  it('weighs the builds and the steps by the model; the time left is the model until 1 % is done, then the pace', () => {
    const cost = syntheticRunCost(65536, { steps: 100 });
    const { m, seen, tick } = meter(cost);
    expect(seen[0]).toEqual({
      phase: 'building',
      step: 0,
      maxSteps: 100,
      fraction: 0,
      remainingMs: cost.milliseconds,
      done: false,
    });
    tick(500);
    for (let done = 0; done <= 1000; done += 100) {
      m.build(done, 1000); // the one build of the state
      if (done === 500) tick(500);
    }
    const built = seen.at(-1)!;
    expect(built.fraction).toBeCloseTo(cost.fixedMilliseconds / cost.milliseconds, 12);
    // three quarters of the building were reported after 1 s: the rest is estimated at that pace
    const half = seen.find((p) => p.fraction >= (0.75 * cost.fixedMilliseconds) / cost.milliseconds)!;
    expect(half.remainingMs).toBeCloseTo((1000 * (1 - half.fraction)) / half.fraction, 6);
    m.step(1, 100);
    expect(seen.at(-1)!.fraction).toBeCloseTo((cost.fixedMilliseconds + cost.stepMilliseconds) / cost.milliseconds, 12);
    m.step(100, 100);
    expect(seen.at(-1)!.fraction).toBeCloseTo(1, 12);
    m.end(100);
    expect(seen.at(-1)).toMatchObject({ step: 100, maxSteps: 100, fraction: 1, remainingMs: 0, done: true });
    const fractions = seen.map((p) => p.fraction);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
  });

  it('without a model it counts steps and estimates from their pace', () => {
    const { m, seen, tick } = meter(null);
    expect(seen).toEqual([]);
    m.build(0, 10); // no model: nothing to weigh a build by
    tick(400);
    m.step(1, 4);
    expect(seen).toEqual([{ phase: 'steps', step: 1, maxSteps: 4, fraction: 0.25, remainingMs: 1200, done: false }]);
    m.end(3);
    expect(runProgressText(seen.at(-1)!)).toEqual({ what: '3/3 steps', left: '' });
    expect(runProgressText(seen[0]!)).toEqual({ what: '1/4 steps', left: ', up to about 1.2 s left' });
  });
});
