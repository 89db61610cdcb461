/**
 * The best state a run keeps (RunResult.best): the state after the step with the smallest
 * Ω̂_{t,w}, kept as one copy instead of every θ_t. Oracle: the same run with every state
 * recorded, whose argmin over the recorded Ω̂ names the step and whose θ_t at that step must equal
 * the kept state bit for bit, on the dense and on the structured representation.
 */
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { defaultScenario } from '../../src/graph/scenarios/scenario.js';

const sys = referenceGraphSystem(defaultScenario(), { backend: 'reference' });
const bits = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

describe('the best state of a run', () => {
  test.prop(
    [fc.integer({ min: 0, max: 2 ** 31 }), fc.constantFrom('order-gap', 'budget'), fc.integer({ min: 1, max: 5 })],
    {
      numRuns: 12,
    },
  )('is the argmin of Ω̂ over the recorded run, bit for bit, dense and structured', (seed, rule, window) => {
    const o = { epsilon: 0.01, window, maxSteps: 40, seed, rule: rule as 'order-gap' | 'budget' };
    const recorded = runRecursive(sys, { ...o, representation: 'dense', recordStates: true });
    let arg = -1;
    recorded.steps.forEach((s, i) => {
      if (s.statistic !== null && (arg < 0 || s.statistic < recorded.steps[arg]!.statistic!)) arg = i;
    });
    for (const representation of ['dense', 'structured'] as const) {
      const r = runRecursive(sys, { ...o, representation, recordStates: false });
      if (arg < 0) {
        expect(r.best).toBeNull();
        continue;
      }
      expect(r.best!.step).toBe(arg + 1);
      expect(r.best!.score).toBe(recorded.steps[arg]!.statistic);
      expect(bits(r.best!.theta, recorded.steps[arg]!.theta!)).toBe(true);
    }
  });
});
