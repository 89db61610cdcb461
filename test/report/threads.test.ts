// The wording of a thread decision: a count, 'auto' on one core, and both outcomes of the probe.
import { describe, expect, it } from 'vitest';
import { chooseThreads } from '../../src/linalg/threadChoice.js';
import { threadsText } from '../../src/report/threads.js';

describe('threadsText', () => {
  it('names a count asked for, and auto on one core', () => {
    expect(threadsText({ requested: 1, threads: 1, probe: null })).toBe('1 thread');
    expect(threadsText({ requested: 4, threads: 4, probe: null })).toBe('4 threads');
    expect(threadsText({ requested: 'auto', threads: 1, probe: null })).toBe('1 thread (auto: one core)');
  });
  it("gives auto's measured speedup against the threshold, kept or not", () => {
    const kept = chooseThreads([3, 3, 3], [2, 2, 2]);
    expect(threadsText({ requested: 'auto', ...kept })).toBe(
      "2 threads (auto: the probe's two-thread speedup 1.50× ≥ 1.2)",
    );
    const dropped = chooseThreads([3, 3, 3], [3, 3, 3]);
    expect(threadsText({ requested: 'auto', ...dropped })).toBe(
      "1 thread (auto: the probe's two-thread speedup 1.00× < 1.2)",
    );
  });
});
