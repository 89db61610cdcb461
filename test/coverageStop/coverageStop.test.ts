import { fc, test as fcTest } from '@fast-check/vitest';
import { spawnSync } from 'node:child_process';

import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';
import { certify } from '../../src/certify/certify.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { checkCoverageAtStop } from '../../src/coverageStop/check.js';
import { redirectWeights, runCoverageAware } from '../../src/coverageStop/run.js';
import { redirectTargets } from '../../src/coverageStop/stopper.js';
import { referenceGraphSystem, type ReferenceGraphSystem } from '../../src/graph/system.js';
import { answerAccuracy, hiddenTruthScenario } from '../../src/graph/scenarios/hiddenTruthScenario.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { checkPoolAtStop } from '../../src/ordergap/poolCheck.js';
import { run } from '../../src/ordergap/run.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { ArgumentError } from '../../src/util/errors.js';
import { init } from '../../src/wasm/module.js';

describe("the loop's sampleWeights hook", () => {
  const sys = closedFormSystem();
  it('draws proportionally to the returned weights, consulted every step', () => {
    const seen: number[] = [];
    const r = run(sys, new OrderGapRule({ epsilon: 1e-12, window: 1 }), {
      maxSteps: 6,
      sampleWeights: (dist, t) => {
        seen.push(t);
        return dist.map((e) => (e.id === (t % 2 ? 'e2' : 'e4') ? 1 : 0));
      },
    });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.steps.map((s) => s.evidence)).toEqual(['e2', 'e4', 'e2', 'e4', 'e2', 'e4']);
    expect(r.steps.every((s) => s.probability === 1)).toBe(true);
  });
  it('bad weights are a one-line ArgumentError naming sampleWeights()', () => {
    const rule = new OrderGapRule({ epsilon: 0.01, window: 1 });
    expect(() => run(sys, rule, { maxSteps: 2, sampleWeights: () => [1] })).toThrow(/^sampleWeights\(\) = /);
    expect(() => run(sys, rule, { maxSteps: 2, sampleWeights: (d) => d.map(() => NaN) })).toThrow(ArgumentError);
    expect(() => run(sys, rule, { maxSteps: 2, sampleWeights: (d) => d.map(() => 0) })).toThrow(/positive total/);
  });
});

describe('redirect weights', () => {
  fcTest.prop([
    fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 1, maxLength: 12 }),
    fc.double({ min: 0.01, max: 1, noNaN: true }),
    fc.integer({ min: 0, max: 2 ** 12 - 1 }),
  ])('the mixture keeps the total and puts share λ on the targets', (raw, share, mask) => {
    const total = raw.reduce((a, b) => a + b, 0);
    const dist = raw.map((x, i) => ({ id: `e${i}`, p: x / total }));
    const targets = new Set(dist.filter((_, i) => (mask >> i) & 1).map((e) => e.id));
    const w = redirectWeights(dist, targets, share);
    const sum = w.reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - 1)).toBeLessThanOrEqual(4 * dist.length * Number.EPSILON);
    if (targets.size === 0) expect(w).toEqual(dist.map((e) => e.p));
    else {
      const onT = dist.reduce((s, e, i) => s + (targets.has(e.id) ? w[i]! - (1 - share) * e.p : 0), 0);
      expect(Math.abs(onT - share)).toBeLessThanOrEqual(8 * dist.length * Number.EPSILON);
    }
  });
});

describe('coverage check and policies on the default scenario', () => {
  let sys: ReferenceGraphSystem;
  beforeAll(async () => {
    await init();
    sys = referenceGraphSystem();
  });
  const setting = { epsilon: 0.01, window: 4, maxSteps: 120, seed: 7 };

  it("policy 'stop' is the paper's rule: the same trajectory and state as runRecursive", async () => {
    const paper = runRecursive(sys, setting);
    const r = await runCoverageAware(sys, { ...setting, policy: 'stop' });
    expect(r.run.stop.step).toBe(paper.stop.step);
    expect(r.run.steps.map((s) => [s.evidence, s.omega])).toEqual(paper.steps.map((s) => [s.evidence, s.omega]));
    expect(r.run.finalState).toEqual(paper.finalState);
    expect(r.candidates).toHaveLength(1);
  });

  it('the check at the paper stop reuses certify and the pool check: blind, with the items whose Ω > ε', async () => {
    const paper = runRecursive(sys, setting);
    const c = await checkCoverageAtStop(sys, paper.finalState, setting.epsilon);
    const pool = checkPoolAtStop(sys, paper.finalState, setting.epsilon);
    const cert = await certify(sys, {
      at: paper.finalState,
      subspaces: [],
      crossCheckColumns: 0,
      contractionSubspaces: ['all'],
    });
    expect(c.coverage.map((q) => [q.question, q.covered])).toEqual(cert.coverage.map((q) => [q.question, q.covered]));
    expect(c.uncoveredQuestions.map((q) => q.question)).toEqual(
      cert.coverage.filter((q) => !q.covered).map((q) => q.question),
    );
    const moving = pool.items
      .filter((i) => i.omega > setting.epsilon)
      .map((i) => i.evidence)
      .sort();
    expect(c.movingItems.map((m) => m.evidence).sort()).toEqual(moving);
    expect(moving.length).toBeGreaterThan(0);
    expect(c.verdict).toBe('blind');
    // the pool check's narrower verdict: every moving item is reachable (p > 0)
    expect(pool.verdict).toBe('reachable');
    expect(pool.unreachableItems).toEqual([]);
  });

  it("'continue' refuses every blind stop; 'redirect' weights toward the named items; each stop is converged or the budget", async () => {
    for (const policy of ['continue', 'redirect'] as const) {
      const r = await runCoverageAware(sys, { ...setting, policy, recordStates: false });
      expect(r.run.steps.length).toBe(r.stop.step);
      expect(r.stop.step).toBeLessThanOrEqual(setting.maxSteps);
      const refused = r.candidates.filter((c) => c.action !== 'stop');
      expect(refused.every((c) => c.check.verdict === 'blind' && c.action === policy)).toBe(true);
      if (r.stop.kind === 'converged') expect(r.candidates.at(-1)!.check.verdict).toBe('converged');
      else expect(r.stop.kind).toBe('budget');
      expect(r.candidates[0]!.step).toBe(runRecursive(sys, setting).stop.step);
      if (policy === 'redirect') for (const c of refused) expect(c.targets).toEqual(redirectTargets(c.check));
    }
  });

  it('bad options are refused before anything runs', async () => {
    await expect(runCoverageAware(sys, { ...setting, policy: 'maybe' as never })).rejects.toThrow(/^policy = "maybe"/);
    await expect(runCoverageAware(sys, { ...setting, redirectShare: 0 })).rejects.toThrow(/^redirectShare = 0/);
  });
});

describe('closed form, Sec. 9.2 variant with e2, e3 at probability 0', () => {
  it('the check is blind and names e2, e3 among the items that would still move the state', async () => {
    await init();
    const sys = closedFormSystem({ probabilities: { e2: 0, e3: 0 } });
    const r = runRecursive(sys, { epsilon: 0.025, window: 2, maxSteps: 100, seed: 0 });
    const c = await checkCoverageAtStop(sys, r.finalState, 0.025);
    expect(c.verdict).toBe('blind');
    expect(c.movingItems.map((m) => m.evidence)).toEqual(expect.arrayContaining(['e2', 'e3']));
    expect(c.movingItems.every((m) => m.omega > 0.025)).toBe(true);
  });
});

describe('a synthetic scenario whose truth is only in rarely drawn items', () => {
  it("redirect reaches at least the paper rule's accuracy and draws at least as many items", async () => {
    await init();
    const s = hiddenTruthScenario(1, { questions: 1 });
    const sys = referenceGraphSystem(s.scenario);
    const o = { epsilon: 0.01, window: 4, maxSteps: 60, seed: 1, recordStates: false };
    const paper = await runCoverageAware(sys, { ...o, policy: 'stop' });
    const redirect = await runCoverageAware(sys, { ...o, policy: 'redirect' });
    expect(paper.stop.kind).toBe('blind');
    expect(redirect.evidenceUsed).toBeGreaterThanOrEqual(paper.evidenceUsed);
    expect(answerAccuracy(s.scenario, redirect.run.finalState, s.truth)).toBeGreaterThanOrEqual(
      answerAccuracy(s.scenario, paper.run.finalState, s.truth),
    );
  });
});

describe('ordergap run --coverage (built CLI)', () => {
  it('shows the blind paper stop and the coverage-aware stop side by side; --json carries both', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'redirect', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      stop: { step: number };
      coverage: { paper: { step: number; kind: string }; aware: { policy: string; step: number; kind: string } };
    };
    expect(doc.coverage.paper.step).toBe(doc.stop.step);
    expect(doc.coverage.paper.kind).toBe('blind');
    expect(doc.coverage.aware.policy).toBe('redirect');
    expect(doc.coverage.aware.step).toBeGreaterThan(doc.coverage.paper.step);
    const text = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'continue', '--max-steps', '70'], {
      encoding: 'utf8',
    });
    expect(text.stdout).toMatch(/paper's rule \(stop\)\s+\d+\s+blind/);
    expect(text.stdout).toMatch(/coverage-aware \(continue\)/);
  });
  it('a bad policy exits 2 naming --coverage', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'sometimes'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--coverage/);
    expect(r.stdout).toBe('');
  });
});
