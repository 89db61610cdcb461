import { fc, test as fcTest } from '@fast-check/vitest';
import { spawnSync } from 'node:child_process';

import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';
import { coverageComparison, renderCoverageText } from '../../src/report/coverage.js';
import { withHiddenItems } from '../../bench/_hidden.js';
import { certify } from '../../src/certify/certify.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { checkCoverageAtStop } from '../../src/coverageStop/check.js';
import { redirectWeights, runCoverageAware } from '../../src/coverageStop/run.js';
import type { CoverageCheck } from '../../src/coverageStop/check.js';
import { redirectTargets, steerTargets, targetQuestions } from '../../src/coverageStop/steer.js';
import { referenceGraphSystem, type ReferenceGraphSystem } from '../../src/graph/system.js';
import { answerAccuracy, hiddenTruthScenario } from '../../src/graph/scenarios/hiddenTruthScenario.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { checkPoolAtStop } from '../../src/ordergap/poolCheck.js';
import { run } from '../../src/ordergap/run.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import type { OperatorSystem } from '../../src/system/types.js';
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

describe('the questions redirect targets', () => {
  it('are the uncovered ones and the open unaddressed ones, never a closed unaddressed one', () => {
    const check = {
      uncoveredQuestions: [],
      unaddressedQuestions: ['q:open', 'q:closed'],
      openUnaddressedQuestions: ['q:open'],
      movingItems: [],
    } as unknown as CoverageCheck;
    expect(targetQuestions(check).map((q) => [q.question, q.failure])).toEqual([['q:open', 'unaddressed']]);
    expect(steerTargets(check, 'coverage')).toEqual([]);
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

  it("'continue' refuses every blind stop; 'redirect' weights toward the items its steer names; each stop is converged or the budget", async () => {
    const runs = [];
    for (const [policy, steer] of [
      ['continue', undefined],
      ['redirect', undefined],
      ['redirect', 'order-gap'],
    ] as const) {
      const r = await runCoverageAware(sys, { ...setting, policy, ...(steer ? { steer } : {}), recordStates: false });
      runs.push(r);
      expect(r.run.steps.length).toBe(r.stop.step);
      expect(r.stop.step).toBeLessThanOrEqual(setting.maxSteps);
      const refused = r.candidates.filter((c) => c.action !== 'stop');
      expect(refused.every((c) => c.check.verdict === 'blind' && c.action === policy)).toBe(true);
      if (r.stop.kind === 'converged') expect(r.candidates.at(-1)!.check.verdict).toBe('converged');
      else expect(r.stop.kind).toBe('budget');
      expect(r.candidates[0]!.step).toBe(runRecursive(sys, setting).stop.step);
      if (policy === 'continue') continue;
      // 'order-gap' names the items the check names (Ω > ε, or addressing an uncovered question)
      for (const c of refused) expect(c.targets).toEqual(steerTargets(c.check, steer ?? 'coverage'));
      if (steer === 'order-gap') expect(refused.every((c) => c.targets.length > 0)).toBe(true);
    }
    // every question of the default scenario is covered at each candidate stop (blind by the pool
    // check alone): the default steer names no item, so redirect draws exactly as continue
    const [cont, coverage] = runs;
    expect(coverage!.candidates.every((c) => c.targets.length === 0 && c.targetQuestions.length === 0)).toBe(true);
    expect(coverage!.candidates.every((c) => c.check.uncoveredQuestions.length === 0)).toBe(true);
    expect(coverage!.run.steps.map((s) => s.evidence)).toEqual(cont!.run.steps.map((s) => s.evidence));
  });

  it('bad options are refused before anything runs', async () => {
    await expect(runCoverageAware(sys, { ...setting, policy: 'maybe' as never })).rejects.toThrow(/^policy = "maybe"/);
    await expect(runCoverageAware(sys, { ...setting, redirectShare: 0 })).rejects.toThrow(/^redirectShare = 0/);
    await expect(runCoverageAware(sys, { ...setting, policy: 'redirect', steer: 'sideways' as never })).rejects.toThrow(
      /^steer = "sideways": must be 'coverage' or 'order-gap'$/,
    );
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

describe("steering toward a question no retrieval reaches (hidden-truth scenario, q:0's items at P = 0)", () => {
  const s = hiddenTruthScenario(1, { questions: 3 });
  const o = { epsilon: 0.01, window: 4, maxSteps: 40, seed: 1, recordStates: false };
  const q0 = s.scenario.layout.slotOf.get('q:0')!;
  // W_q's items (docs/certify.md step 6): those that write q:0's coordinates
  const writesQ0 = s.scenario.items.filter((it) => it.questionCoordinates.has(q0)).map((it) => it.id);
  let sys: OperatorSystem;
  beforeAll(async () => {
    await init();
    sys = withHiddenItems(referenceGraphSystem(s.scenario), (id) => id.startsWith('e0'));
  });

  it("steer 'coverage' names q:0 as failing and weights toward exactly the items addressing it; 'order-gap' toward the Ω > ε items", async () => {
    expect(writesQ0.length).toBeGreaterThan(0);
    const r = await runCoverageAware(sys, { ...o, policy: 'redirect' });
    const first = r.candidates[0]!;
    expect(first.action).toBe('redirect');
    expect(first.targetQuestions).toHaveLength(1);
    expect(first.targetQuestions[0]).toMatchObject({ question: 'q:0', failure: 'uncovered', addressedBy: writesQ0 });
    const q = first.check.uncoveredQuestions[0]!;
    expect(q.lambdaMin).toBeLessThanOrEqual(q.tolerance);
    expect(first.targetQuestions[0]!.margin).toBeLessThan(1);
    expect(first.targetQuestions[0]!.kernelDim).toBeGreaterThan(0);
    expect(first.targets).toEqual(writesQ0);
    // the items addressing q:0 have P = 0: only the redirect draws them
    const after = r.run.steps.slice(first.step).map((x) => x.evidence);
    expect(after.some((id) => writesQ0.includes(id))).toBe(true);
    const cont = await runCoverageAware(sys, { ...o, policy: 'continue' });
    expect(cont.run.steps.some((x) => writesQ0.includes(x.evidence))).toBe(false);
    // the order-gap steer at the same first candidate: every item with Ω > ε, and q:0's
    const og = await runCoverageAware(sys, { ...o, policy: 'redirect', steer: 'order-gap' });
    expect(og.candidates[0]!.step).toBe(first.step);
    expect(og.candidates[0]!.targets).toEqual(redirectTargets(og.candidates[0]!.check));
    const moving = og.candidates[0]!.check.movingItems.map((m) => m.evidence);
    expect(og.candidates[0]!.targets).toEqual(expect.arrayContaining([...writesQ0, ...moving]));
    expect(og.candidates[0]!.targets.length).toBeGreaterThan(writesQ0.length);
    expect(og.candidates[0]!.targetQuestions).toEqual(first.targetQuestions);
  });

  it('the run report prints each failing question with the items addressing it', async () => {
    const c = await coverageComparison(sys, { ...o, delta: 0.5 }, 'redirect');
    expect(c.aware.steer).toBe('coverage');
    const text = renderCoverageText(c);
    expect(text).toMatch(/coverage-aware \(redirect, steer coverage\)/);
    expect(text).toMatch(
      new RegExp(
        `step \\d+: blind -> redirect toward ${writesQ0.join(', ')}; failing: q:0 uncovered \\(λ_min/tol = [^)]+\\) <- ${writesQ0.join(', ')}`,
      ),
    );
  });
});

/** What the CLI tests read of `ordergap run --coverage … --json`. */
interface CliDoc {
  stop: { step: number };
  coverage: {
    paper: { step: number; kind: string };
    aware: {
      policy: string;
      steer: string | null;
      step: number;
      kind: string;
      candidates: Array<{ targets: string[]; targetQuestions: unknown[] }>;
    };
  };
}

describe('ordergap run --coverage (built CLI)', () => {
  it('shows the blind paper stop and the coverage-aware stop side by side; --json carries both', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'redirect', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as CliDoc;
    expect(doc.coverage.paper.step).toBe(doc.stop.step);
    expect(doc.coverage.paper.kind).toBe('blind');
    expect(doc.coverage.aware.policy).toBe('redirect');
    // the default steer: no question of the default scenario fails the coverage check, so no item is named
    expect(doc.coverage.aware.steer).toBe('coverage');
    expect(doc.coverage.aware.candidates[0]!.targets).toEqual([]);
    expect(doc.coverage.aware.candidates[0]!.targetQuestions).toEqual([]);
    expect(doc.coverage.aware.step).toBeGreaterThan(doc.coverage.paper.step);
    const text = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'continue', '--max-steps', '70'], {
      encoding: 'utf8',
    });
    expect(text.stdout).toMatch(/paper's rule \(stop\)\s+\d+\s+blind/);
    expect(text.stdout).toMatch(/coverage-aware \(continue\)/);
    const redirect = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'redirect', '--max-steps', '70'], {
      encoding: 'utf8',
    });
    expect(redirect.stdout).toMatch(
      /step \d+: blind -> redirect toward no item \(no question fails the coverage check\)/,
    );
  });
  it('--steer order-gap weights toward the items with Ω > ε, and says so', () => {
    const r = spawnSync(
      process.execPath,
      [BIN, 'run', '--coverage', 'redirect', '--steer', 'order-gap', '--max-steps', '70', '--json'],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as CliDoc;
    expect(doc.coverage.aware.steer).toBe('order-gap');
    expect(doc.coverage.aware.candidates[0]!.targets.length).toBeGreaterThan(0);
    const text = spawnSync(
      process.execPath,
      [BIN, 'run', '--coverage', 'redirect', '--steer', 'order-gap', '--max-steps', '70'],
      { encoding: 'utf8' },
    );
    expect(text.stdout).toMatch(/coverage-aware \(redirect, steer order-gap\)/);
    expect(text.stdout).toMatch(/step \d+: blind -> redirect toward e\d+/);
  });
  it('a bad or misplaced --steer exits 2 naming it, before any output; --help lists it', () => {
    const bad = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'redirect', '--steer', 'sideways'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--steer.*'sideways' must be one of coverage, order-gap/);
    expect(bad.stdout).toBe('');
    for (const args of [
      ['--steer', 'order-gap'],
      ['--coverage', 'continue', '--steer', 'coverage'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, 'run', ...args], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^ordergap: error: --steer = "(order-gap|coverage)": steers --coverage redirect/);
      expect(r.stdout).toBe('');
    }
    const help = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--steer <steering>[\s\S]*coverage[\s\S]*order-gap/);
  });
  it('a bad policy exits 2 naming --coverage', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--coverage', 'sometimes'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--coverage/);
    expect(r.stdout).toBe('');
  });
});
