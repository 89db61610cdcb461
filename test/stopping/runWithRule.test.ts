import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { closedFormSystem } from '../../src/systems/closedForm.js';
import { ConfidenceThresholdRule } from '../../src/stopping/confidenceThreshold.js';
import { FixedBudgetRule } from '../../src/stopping/fixedBudget.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { PatienceConvergenceRule } from '../../src/stopping/patienceConvergence.js';
import { runWithRule } from '../../src/stopping/runWithRule.js';

describe('runWithRule', () => {
  fcTest.prop([
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fc.double({ min: 1e-4, max: 0.2, noNaN: true }),
    fc.integer({ min: 1, max: 5 }),
    fc.integer({ min: 1, max: 60 }),
  ])(
    'with the order-gap rule it is Algorithm 1: same steps, same stop, same state',
    (seed, epsilon, window, maxSteps) => {
      const sys = closedFormSystem();
      const a = runRecursive(sys, { epsilon, window, maxSteps, seed });
      const b = runWithRule(sys, new OrderGapRule({ epsilon, window }), { maxSteps, seed });
      expect(b.stoppedAt).toBe(a.stoppedAt);
      expect(b.stopReason).toBe(a.stopReason === 'order-gap' ? 'criterion' : 'budget');
      expect(b.steps.map((s) => [s.evidence, s.omega])).toEqual(a.steps.map((s) => [s.evidence, s.omega]));
      expect(Array.from(b.finalState)).toEqual(Array.from(a.finalState));
    },
  );

  it('Sec. 9.2 sequence: stop at 4; the budget and exhaustion are stops, not errors', () => {
    const sys = closedFormSystem();
    const seq = ['e1', 'e2', 'e3', 'e4', 'e5'];
    expect(
      runWithRule(sys, new OrderGapRule({ epsilon: 0.025, window: 2 }), { maxSteps: 5, sequence: seq }).stoppedAt,
    ).toBe(4);
    const cap = runWithRule(sys, new OrderGapRule({ epsilon: 1e-9, window: 2 }), { maxSteps: 3, sequence: seq });
    expect([cap.stoppedAt, cap.stopReason]).toEqual([3, 'budget']);
    expect(cap.finalState).toHaveLength(2);
    const out = runWithRule(sys, new FixedBudgetRule({ budget: 9 }), { maxSteps: 20, sequence: seq });
    expect([out.stoppedAt, out.stopReason]).toEqual([5, 'evidence-exhausted']);
  });

  it('state readers feed the confidence and patience rules', () => {
    const sys = closedFormSystem();
    // c (theta[0]) is the confidence coordinate of the closed-form system
    const conf = runWithRule(sys, new ConfidenceThresholdRule({ threshold: 0.7 }), {
      maxSteps: 50,
      seed: 1,
      confidenceOf: (th) => Math.min(1, Math.max(0, th[0]!)),
    });
    expect(conf.stopReason).toBe('criterion');
    expect(conf.finalState[0]!).toBeGreaterThanOrEqual(0.7);
    const pat = runWithRule(sys, new PatienceConvergenceRule({ epsilon: 1e-3, patience: 2, maxDepth: 50 }), {
      maxSteps: 50,
      seed: 1,
      scoreOf: (th) => th[0]!,
    });
    expect(['criterion', 'budget']).toContain(pat.stopReason);
    expect(() => runWithRule(sys, new ConfidenceThresholdRule({ threshold: 0.7 }), { maxSteps: 5 })).toThrow(
      /^obs.confidence = undefined: is required by the confidence rule/,
    );
    expect(() => runWithRule(sys, new FixedBudgetRule({ budget: 2 }), { maxSteps: 0 })).toThrow(/^maxSteps = 0/);
  });
});
