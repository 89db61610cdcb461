/**
 * A structured run (the reference graph's `state` capability: node block dense, edges CSR + CSC)
 * against the dense oracle: trajectory (Ω_t, Ω̂_t, evidence), stop step and reason, and final θ
 * bit for bit, over random synthetic scenarios and seeds and the default scenario; scheduled
 * runs against the same schedule replayed with the dense generic operators.
 */
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import type { RunResult } from '../../src/ordergap/run.js';
import { evaluateOrderGap } from '../../src/ordergap/orderGap.js';
import { referenceGraphSystem, syntheticGraphSystem } from '../../src/graph/system.js';
import { defaultScenario } from '../../src/graph/scenarios/scenario.js';
import type { OperatorSystem } from '../../src/system/types.js';
import { DEFAULT_PARAMS } from '../../src/graph/operators/params.js';

const bits = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

function trajectory(r: RunResult) {
  return {
    steps: r.steps.map((s) => [s.evidence, s.omega, s.statistic]),
    stop: [r.stop.step, r.stop.reason, r.steps.at(-1)?.statistic ?? null],
  };
}

function expectSameRun(sys: OperatorSystem, o: { epsilon: number; window: number; maxSteps: number; seed: number }) {
  const dense = runRecursive(sys, { ...o, representation: 'dense', recordStates: false });
  const structured = runRecursive(sys, { ...o, representation: 'structured', recordStates: false });
  expect(dense.representation).toBe('dense');
  expect(structured.representation).toBe('structured');
  expect(trajectory(structured)).toEqual(trajectory(dense));
  expect(bits(structured.finalState, dense.finalState)).toBe(true);
  return { dense, structured };
}

describe('structured state: bit for bit the dense run', () => {
  test.prop(
    [
      fc.record({
        nmax: fc.integer({ min: 20, max: 72 }),
        edges: fc.integer({ min: 4, max: 12 }),
        items: fc.integer({ min: 2, max: 6 }),
        scenarioSeed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        epsilon: fc.constantFrom(0.005, 0.02, 0.1),
        window: fc.integer({ min: 1, max: 4 }),
      }),
    ],
    { numRuns: 12 },
  )('random synthetic scenarios and seeds: Ω_t, Ω̂_t, stop and θ_T identical', (r) => {
    const sys = syntheticGraphSystem(r.nmax, { edgesPerNode: r.edges, items: r.items, seed: r.scenarioSeed });
    // the dense oracle here is the generic evaluation: two full Q and two full P_e per step
    expect(sys.capabilities.step).toBeUndefined();
    expectSameRun(sys, { epsilon: r.epsilon, window: r.window, maxSteps: 25, seed: r.seed });
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 })], { numRuns: 4 })(
    'the default scenario, random seeds (reference form of Q)',
    (seed) => {
      const sys = referenceGraphSystem(defaultScenario(), { backend: 'reference' });
      expectSameRun(sys, { ...sys.capabilities.runDefaults!, seed });
    },
  );

  it('records states on request as the dense run does', () => {
    const sys = syntheticGraphSystem(30, { items: 3 });
    const o = { epsilon: 0.01, window: 2, maxSteps: 6, seed: 5 };
    const a = runRecursive(sys, { ...o, representation: 'dense' });
    const b = runRecursive(sys, { ...o, representation: 'structured' });
    b.steps.forEach((s, t) => expect(bits(s.theta!, a.steps[t]!.theta!)).toBe(true));
  });

  it('indexes the initial state once: every run starts from a copy with its merge index, bit for bit', () => {
    let builds = 0;
    // a wide merge radius: many claims near each other, so the copied lists and grid matter
    const params = { ...DEFAULT_PARAMS, mergeRadius: 4 * DEFAULT_PARAMS.mergeRadius };
    const sys = syntheticGraphSystem(60, { items: 4, params, onStateBuild: (done) => void (done === 0 && builds++) });
    const st = sys.capabilities.state!;
    const ids = [3, 1, 1, 0, 2, 3, 0, 2, 1].map((i) => sys.synthetic.items[i]!.id);
    const stepped = (s: unknown) => ({ omegas: ids.map((id) => st.step(s, id)), theta: st.toDense(s) });
    const first = stepped(st.initial());
    const second = stepped(st.initial()); // the first's steps left the built state as it was
    const oracle = stepped(st.fromDense(sys.theta0!)); // built afresh from the dense θ0
    expect(builds).toBe(1);
    for (const r of [first, second]) {
      expect(r.omegas.every((w, t) => Object.is(w, oracle.omegas[t]))).toBe(true);
      expect(bits(r.theta, oracle.theta)).toBe(true);
    }
  });

  it('a run at Nmax beyond the dense limit declares no dense θ0 and runs structured', () => {
    const sys = syntheticGraphSystem(4096, { items: 3 });
    expect(sys.theta0).toBeUndefined();
    const r = runRecursive(sys, { epsilon: 0.01, window: 2, maxSteps: 3, seed: 1, recordStates: false });
    expect(r.representation).toBe('structured');
    expect(r.steps).toHaveLength(r.stop.step);
    expect(() => runRecursive(sys, { epsilon: 0.01, window: 2, maxSteps: 3, representation: 'dense' })).toThrow(
      /^theta0 = undefined: is required/,
    );
  });
});

describe('consolidation scheduling (Sec. 7.3)', () => {
  /** Replays a scheduled run's evidence and consolidation pattern with the dense generic operators. */
  function replay(sys: OperatorSystem, r: RunResult) {
    let theta: Float64Array = Float64Array.from(sys.theta0!);
    const omegas: number[] = [];
    for (const s of r.steps) {
      omegas.push(evaluateOrderGap(sys, theta, s.evidence).omega);
      theta = sys.expand(s.evidence, theta);
      if (s.consolidated) theta = sys.consolidate(theta);
    }
    if (r.steps.length && !r.steps[r.steps.length - 1]!.consolidated) theta = sys.consolidate(theta);
    return { omegas, theta };
  }

  test.prop(
    [
      fc.record({
        nmax: fc.integer({ min: 20, max: 60 }),
        scenarioSeed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        threshold: fc.constantFrom(0.001, 0.05, 0.3),
      }),
    ],
    { numRuns: 8 },
  )('Ω_t is the exact Ω of the scheduled state and θ_T the replayed one, bit for bit', (r) => {
    const sys = syntheticGraphSystem(r.nmax, { items: 4, seed: r.scenarioSeed });
    const run = runRecursive(sys, { epsilon: 0.01, window: 2, maxSteps: 20, seed: r.seed, schedule: r.threshold });
    const re = replay(sys, run);
    expect(run.steps.map((s) => s.omega)).toEqual(re.omegas);
    expect(bits(run.finalState, re.theta)).toBe(true);
    const pending = run.steps.length && !run.steps[run.steps.length - 1]!.consolidated ? 1 : 0;
    expect(run.consolidations).toBe(run.steps.filter((s) => s.consolidated).length + pending);
  });

  it('saves consolidations on the default scenario and keeps the stop reason', () => {
    const sys = referenceGraphSystem(defaultScenario(), { backend: 'reference' });
    const o = sys.capabilities.runDefaults!;
    const always = runRecursive(sys, { ...o, recordStates: false });
    const scheduled = runRecursive(sys, { ...o, recordStates: false, schedule: o.epsilon });
    expect(always.consolidations).toBe(always.stop.step);
    expect(scheduled.consolidations).toBeLessThan(scheduled.stop.step);
    expect(scheduled.stop.reason).toBe(always.stop.reason);
  });

  it('needs a structured state and a threshold > 0', () => {
    const sys = syntheticGraphSystem(30, { items: 3 });
    const o = { epsilon: 0.01, window: 2, maxSteps: 3 };
    expect(() => runRecursive(sys, { ...o, schedule: 0 })).toThrow(/^schedule = 0: must be > 0/);
    expect(() => runRecursive(sys, { ...o, schedule: 0.1, representation: 'dense' })).toThrow(
      /^schedule = 0.1: needs a structured state/,
    );
  });
});
