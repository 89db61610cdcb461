// The thread request ('auto' or a count): its check, the 'auto' decision from given probe timings
// (both outcomes, no timing asserted), the real probe's consistency with what it started, and
// withThreads putting the previous pool back.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTO_MIN_SPEEDUP,
  checkThreadRequest,
  chooseThreads,
  startMeasured,
  startThreads,
  threadDecision,
  withThreads,
} from '../../src/linalg/threadChoice.js';
import { stopThreads, threadCount } from '../../src/linalg/threads.js';
import { ArgumentError } from '../../src/util/errors.js';
import { init } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';

beforeAll(async () => {
  await init();
});
afterEach(async () => {
  await stopThreads();
});
useArenaGuard();

describe('checkThreadRequest', () => {
  it.each([['auto'], [1], [2], [64]])('accepts %s', (v) => {
    expect(checkThreadRequest('threads', v)).toBe(v);
  });
  it.each([[0], [65], [1.5], [-1], [NaN], ['AUTO'], ['2'], [null], [undefined]])(
    'refuses %s in one line naming the option and the value',
    (v) => {
      let err: unknown;
      try {
        checkThreadRequest('--threads', v);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ArgumentError);
      const msg = (err as Error).message;
      expect(msg).toContain('--threads');
      expect(msg).toContain("'auto' or an integer in [1, 64]");
      expect(msg.split('\n')).toHaveLength(1);
    },
  );
  it('startThreads refuses a bad request before starting anything', async () => {
    await expect(startThreads(0)).rejects.toThrow(ArgumentError);
    await expect(startThreads('two' as unknown as number)).rejects.toThrow(/threads.*'auto' or an integer/);
    expect(threadCount()).toBe(1);
  });
});

describe('chooseThreads (the auto decision from the probe timings)', () => {
  it('keeps two threads when the median speedup reaches the threshold', () => {
    // ratios 2, 1.6, 0.5 (one disturbed round): median 1.6
    const r = chooseThreads([4, 4, 4], [2, 2.5, 8]);
    expect(r.probe.ratio).toBe(1.6);
    expect(r.probe.threshold).toBe(AUTO_MIN_SPEEDUP);
    expect(r.threads).toBe(2);
  });
  it('falls back to one thread below the threshold (a busy second core)', () => {
    // ratios 1, 1.1, 3 (one lucky round): median 1.1
    const r = chooseThreads([4, 4.4, 6], [4, 4, 2]);
    expect(r.probe.ratio).toBeCloseTo(1.1, 15);
    expect(r.threads).toBe(1);
  });
  it('takes the mean of the middle two for an even number of rounds; exactly the threshold keeps two', () => {
    const r = chooseThreads([1.1, 1.3], [1, 1]);
    expect(r.probe.ratio).toBe((1.1 + 1.3) / 2);
    expect(r.threads).toBe(r.probe.ratio >= AUTO_MIN_SPEEDUP ? 2 : 1);
    expect(chooseThreads([AUTO_MIN_SPEEDUP], [1]).threads).toBe(2);
  });
  it('refuses timings it cannot read', () => {
    expect(() => chooseThreads([], [])).toThrow(ArgumentError);
    expect(() => chooseThreads([1, 2], [1])).toThrow(ArgumentError);
    expect(() => chooseThreads([0], [1])).toThrow(/probe round 0/);
    expect(() => chooseThreads([1], [Infinity])).toThrow(ArgumentError);
  });
});

describe("startThreads('auto')", () => {
  it('with given probe timings: an idle second core keeps the pool of two, a busy one stops it', async () => {
    expect(await startMeasured(() => ({ one: [3, 3, 3], two: [1.8, 1.9, 2] }))).toBe(2);
    expect(threadCount()).toBe(2);
    expect(threadDecision()).toMatchObject({ requested: 'auto', threads: 2, probe: { ratio: 3 / 1.9 } });
    expect(await startMeasured(() => ({ one: [3, 3, 3], two: [3.2, 2.9, 3.1] }))).toBe(1);
    expect(threadCount()).toBe(1);
    expect(threadDecision()).toMatchObject({ requested: 'auto', threads: 1, probe: { ratio: 3 / 3.1 } });
  });
  it('stops the pool when the probe fails', async () => {
    await expect(
      startMeasured(() => {
        throw new Error('probe failed');
      }),
    ).rejects.toThrow('probe failed');
    expect(threadCount()).toBe(1);
  });
  it('runs the real probe and starts what its ratio decides (no timing asserted)', async () => {
    const n = await startThreads('auto');
    const d = threadDecision();
    expect(d.requested).toBe('auto');
    expect(d.threads).toBe(n);
    expect(threadCount()).toBe(n);
    if (d.probe === null)
      expect(n).toBe(1); // one core: nothing to measure
    else {
      expect(d.probe.oneThreadMs).toHaveLength(d.probe.twoThreadsMs.length);
      expect(d.probe.ratio).toBeGreaterThan(0);
      expect(n).toBe(d.probe.ratio >= AUTO_MIN_SPEEDUP ? 2 : 1);
    }
  });
  it('a count records no probe; stopThreads brings the decision back to one thread', async () => {
    await startThreads(2);
    expect(threadDecision()).toEqual({ requested: 2, threads: 2, probe: null });
    await stopThreads();
    expect(threadDecision()).toEqual({ requested: 1, threads: 1, probe: null });
  });
});

describe('withThreads', () => {
  it('runs the work on the requested pool and puts the previous one back, also after a throw', async () => {
    await startThreads(2);
    const r = await withThreads(1, () => Promise.resolve(threadCount()));
    expect(r.value).toBe(1);
    expect(r.decision).toEqual({ requested: 1, threads: 1, probe: null });
    expect(threadCount()).toBe(2);
    await stopThreads();
    await expect(
      withThreads(2, () => {
        expect(threadCount()).toBe(2);
        return Promise.reject(new Error('work failed'));
      }),
    ).rejects.toThrow('work failed');
    expect(threadCount()).toBe(1);
    expect(threadDecision().threads).toBe(1);
  });
  it('without a request runs on whatever pool runs and reports no decision', async () => {
    const r = await withThreads(undefined, () => Promise.resolve(threadCount()));
    expect(r).toEqual({ value: 1, decision: undefined });
  });
  it('a bad request throws before the work runs', async () => {
    let ran = false;
    await expect(
      withThreads(0, () => {
        ran = true;
        return Promise.resolve();
      }),
    ).rejects.toThrow(ArgumentError);
    expect(ran).toBe(false);
  });
});
