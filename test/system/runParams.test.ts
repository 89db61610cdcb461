import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  checkRunParams,
  DEFAULT_RUN,
  resolveRunParams,
  RUN_FIELDS,
  runParamsOf,
  type RunParams,
} from '../../src/system/runParams.js';

const system: RunParams = { epsilon: 0.01, window: 4, maxSteps: 120, seed: 7 };
const withSequence: RunParams = { ...DEFAULT_RUN, maxSteps: 5, sequence: ['e1', 'e2'] };

describe('run parameters: one validator, one default', () => {
  it('DEFAULT_RUN is the setting of Sec. 9.2 (ε = 0.025, w = 2) with a budget of 100 steps', () => {
    expect(DEFAULT_RUN).toEqual({ epsilon: 0.025, window: 2, maxSteps: 100, seed: 0 });
    expect(Object.isFrozen(DEFAULT_RUN)).toBe(true);
  });

  fcTest.prop([
    fc.record(
      {
        epsilon: fc.double({ min: 1e-9, max: 10, noNaN: true }),
        window: fc.integer({ min: 1, max: 50 }),
        maxSteps: fc.integer({ min: 1, max: 1000 }),
        seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      },
      { requiredKeys: [] },
    ),
  ])('each field comes from the overrides, else the system, else DEFAULT_RUN', (overrides) => {
    for (const base of [system, undefined]) {
      const r = resolveRunParams(base, overrides);
      for (const k of RUN_FIELDS) expect(r[k]).toBe(overrides[k] ?? (base ?? DEFAULT_RUN)[k]);
    }
  });

  it("a system's sequence is kept unless a seed (sampling) or sequence: null replaces it", () => {
    expect(resolveRunParams(withSequence).sequence).toEqual(['e1', 'e2']);
    expect(resolveRunParams(withSequence, { epsilon: 0.1 }).sequence).toEqual(['e1', 'e2']);
    expect(resolveRunParams(withSequence, { seed: 3 }).sequence).toBeUndefined();
    expect(resolveRunParams(withSequence, { sequence: null }).sequence).toBeUndefined();
    expect(resolveRunParams(withSequence, { seed: 3, sequence: ['e2'] }).sequence).toEqual(['e2']);
    // a system whose defaults say sequence: null samples (the run gets no sequence, not null)
    const sampling = checkRunParams({ ...DEFAULT_RUN, sequence: null }) as RunParams;
    expect('sequence' in resolveRunParams(sampling)).toBe(false);
  });

  it('refuses bad values naming the field and its value; required fields must be present', () => {
    expect(() => checkRunParams({ epsilon: 0 })).toThrow(/^epsilon = 0: must be > 0/);
    expect(() => checkRunParams({ epsilon: Infinity })).toThrow(/^epsilon = Infinity/);
    expect(() => checkRunParams({ window: 1.5 })).toThrow(/^window = 1.5: must be an integer/);
    expect(() => checkRunParams({ maxSteps: 0 })).toThrow(/^maxSteps = 0: must be >= 1/);
    expect(() => checkRunParams({ seed: 2 ** 32 })).toThrow(/^seed = 4294967296: must be in \[0, 4294967295\]/);
    expect(() => checkRunParams({ budget: 3 })).toThrow(/^budget = 3: is not a run parameter/);
    expect(() => checkRunParams({ sequence: 'e1' })).toThrow(/^sequence = "e1": must be an array of evidence ids/);
    expect(() => checkRunParams(null)).toThrow(/^options = null: must be an object/);
    expect(() => checkRunParams({ epsilon: 0.1 }, 'system.runDefaults', RUN_FIELDS)).toThrow(
      /^system\.runDefaults\.window = undefined: must be an integer/,
    );
    expect(() => resolveRunParams(system, { window: 0 })).toThrow(/^window = 0/);
    expect(checkRunParams({ epsilon: 0.5, seed: undefined })).toEqual({ epsilon: 0.5 });
  });

  it('runParamsOf reads the four fields of an options object, seed 0 by default, and nothing else', () => {
    expect(runParamsOf({ epsilon: 0.1, window: 3, maxSteps: 9, policy: 'stop' })).toEqual({
      epsilon: 0.1,
      window: 3,
      maxSteps: 9,
      seed: 0,
    });
    expect(() => runParamsOf({ window: 3, maxSteps: 9 })).toThrow(/^epsilon = undefined: must be a number/);
    expect(() => runParamsOf(undefined)).toThrow(/^options = undefined: must be an object/);
  });
});
