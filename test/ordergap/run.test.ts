import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { referenceDistance } from '../../src/blas1/dnrm2.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { createRng, sampleIndex } from '../../src/ordergap/rng.js';
import { run } from '../../src/ordergap/run.js';
import { ConfidenceThresholdRule } from '../../src/stopping/confidenceThreshold.js';
import { FixedBudgetRule } from '../../src/stopping/fixedBudget.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { PatienceConvergenceRule } from '../../src/stopping/patienceConvergence.js';
import { windowedMean } from '../../src/stopping/window.js';
import { extendSystem } from '../../src/system/define.js';
import type { OperatorSystem } from '../../src/system/types.js';
import { closedFormOrderGap, closedFormSystem, SEC92 } from '../../src/closedForm/system.js';

/** Algorithm 1 written out from its pseudocode (Sec. 6), independently of src/ordergap/run.ts. */
function algorithm1Oracle(sys: OperatorSystem, epsilon: number, window: number, maxSteps: number, seed: number) {
  const rng = createRng(seed);
  let theta = sys.theta0!;
  const B: number[] = [];
  for (let t = 0; t < maxSteps; t++) {
    const dist = sys.evidenceAt(theta);
    const e =
      dist[
        sampleIndex(
          dist.map((x) => x.p),
          rng.next(),
        )
      ]!.id;
    const qp = sys.consolidate(sys.expand(e, theta));
    const pq = sys.expand(e, sys.consolidate(theta));
    B.push(referenceDistance(qp, pq));
    theta = qp;
    const m = windowedMean(B, window);
    if (m !== null && m <= epsilon) return { T: t + 1, reason: 'order-gap', B, theta };
  }
  return { T: maxSteps, reason: 'budget', B, theta };
}

describe('run: the one loop', () => {
  fcTest.prop([
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fc.double({ min: 1e-4, max: 0.2, noNaN: true }),
    fc.integer({ min: 1, max: 5 }),
    fc.integer({ min: 1, max: 60 }),
  ])('with the order-gap rule it is Algorithm 1 as written in Sec. 6', (seed, epsilon, window, maxSteps) => {
    const sys = closedFormSystem();
    const oracle = algorithm1Oracle(sys, epsilon, window, maxSteps, seed);
    const r = run(sys, new OrderGapRule({ epsilon, window }), { maxSteps, seed });
    expect([r.stop.step, r.stop.reason]).toEqual([oracle.T, oracle.reason]);
    expect(r.steps.map((s) => s.omega)).toEqual(oracle.B);
    expect(Array.from(r.finalState)).toEqual(Array.from(oracle.theta));
    // the rule's statistic is Ω̂ of Eq. (3) at every step
    r.steps.forEach((s, i) => expect(s.statistic).toBe(windowedMean(oracle.B.slice(0, i + 1), window)));
    const rr = runRecursive(sys, { epsilon, window, maxSteps, seed });
    expect([rr.stop.step, rr.stop.reason]).toEqual([oracle.T, oracle.reason]);
    expect(rr.steps.map((s) => s.statistic)).toEqual(r.steps.map((s) => s.statistic));
  });

  fcTest.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 40 })])(
    "a declared orderGap or step capability is used and gives the generic loop's trajectory",
    (seed, maxSteps) => {
      const sys = closedFormSystem();
      const alpha = new Map(SEC92.alphas.map((a, i) => [`e${i + 1}`, a]));
      let calls = 0;
      // Eq. (12): the closed-form order-gap; equal to the generic evaluation to a few ulps
      const fast = extendSystem(sys, {
        orderGap: (t, e) => {
          calls++;
          return closedFormOrderGap(t[0]!, t[1]!, alpha.get(e)!, SEC92.rho);
        },
      });
      const rule = () => new OrderGapRule({ epsilon: 0.025, window: 2 });
      const generic = run(sys, rule(), { maxSteps, seed });
      const viaOrderGap = run(fast, rule(), { maxSteps, seed });
      expect(calls).toBe(viaOrderGap.steps.length);
      expect(Array.from(viaOrderGap.finalState)).toEqual(Array.from(generic.finalState));
      viaOrderGap.steps.forEach((s, i) => {
        const g = generic.steps[i]!.omega;
        // both evaluate ρα(1−c)u with O(1) roundings on values in [0, 1]
        expect(Math.abs(s.omega - g)).toBeLessThanOrEqual(8 * Number.EPSILON);
      });
      let stepCalls = 0;
      const stepped = extendSystem(sys, {
        step: (t, e) => {
          stepCalls++;
          const next = sys.consolidate(sys.expand(e, t));
          return { omega: referenceDistance(next, sys.expand(e, sys.consolidate(t))), next };
        },
      });
      const viaStep = run(stepped, rule(), { maxSteps, seed });
      expect(stepCalls).toBe(viaStep.steps.length);
      expect(viaStep.steps).toEqual(generic.steps);
      expect(viaStep.stop).toEqual(generic.stop);
    },
  );

  it('Sec. 9.2 sequence: stop at 4; the budget and exhaustion are stop reports, not errors', () => {
    const sys = closedFormSystem();
    const seq = ['e1', 'e2', 'e3', 'e4', 'e5'];
    const r = run(sys, new OrderGapRule({ epsilon: 0.025, window: 2 }), { maxSteps: 5, sequence: seq });
    expect(r.stop).toMatchObject({ step: 4, reason: 'order-gap' });
    const cap = run(sys, new OrderGapRule({ epsilon: 1e-9, window: 2 }), { maxSteps: 3, sequence: seq });
    expect(cap.stop).toMatchObject({ step: 3, reason: 'budget' });
    const out = run(sys, new FixedBudgetRule({ budget: 9 }), { maxSteps: 20, sequence: seq });
    expect(out.stop).toMatchObject({ step: 5, reason: 'evidence-exhausted' });
  });

  it('observe sees every step and the state after it; recordStates keeps θ_t', () => {
    const sys = closedFormSystem();
    const seen: Array<[number, number[]]> = [];
    const r = run(sys, new FixedBudgetRule({ budget: 6 }), {
      maxSteps: 10,
      seed: 3,
      recordStates: true,
      observe: (s, theta) => seen.push([s.t, Array.from(theta)]),
    });
    expect(seen.map((x) => x[0])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.map((x) => x[1])).toEqual(r.steps.map((s) => Array.from(s.theta!)));
    expect(Array.from(r.finalState)).toEqual(seen[5]![1]);
  });

  it('state readers feed the confidence and patience rules; bad options are one-line errors', () => {
    const sys = closedFormSystem();
    // c (theta[0]) is the confidence coordinate of the closed-form system
    const conf = run(sys, new ConfidenceThresholdRule({ threshold: 0.7 }), {
      maxSteps: 50,
      seed: 1,
      confidenceOf: (th) => Math.min(1, Math.max(0, th[0]!)),
    });
    expect(conf.stop.reason).toBe('criterion');
    expect(conf.finalState[0]!).toBeGreaterThanOrEqual(0.7);
    const pat = run(sys, new PatienceConvergenceRule({ epsilon: 1e-3, patience: 2, maxDepth: 50 }), {
      maxSteps: 50,
      seed: 1,
      scoreOf: (th) => th[0]!,
    });
    expect(['criterion', 'budget']).toContain(pat.stop.reason);
    expect(() => run(sys, new ConfidenceThresholdRule({ threshold: 0.7 }), { maxSteps: 5 })).toThrow(
      /^obs.confidence = undefined: is required by the confidence rule/,
    );
    expect(() => run(sys, new FixedBudgetRule({ budget: 2 }), { maxSteps: 0 })).toThrow(/^maxSteps = 0/);
    expect(() => run(sys, {} as never, { maxSteps: 2 })).toThrow(/^rule = .*must be a StoppingRule/);
    expect(() => run(sys, new FixedBudgetRule({ budget: 2 }), { maxSteps: 2, observe: 1 as never })).toThrow(
      /^observe = 1/,
    );
  });
});
