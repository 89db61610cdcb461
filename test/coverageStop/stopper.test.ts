import { beforeAll, describe, expect, it } from 'vitest';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { checkCoverageAtStop } from '../../src/coverageStop/check.js';
import { redirectTargets } from '../../src/coverageStop/steer.js';
import { CoverageStopper, type CheckSite } from '../../src/coverageStop/stopper.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { ConfidenceThresholdRule } from '../../src/stopping/confidenceThreshold.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { DEFAULT_RUN } from '../../src/system/runParams.js';
import { init } from '../../src/wasm/module.js';

// The stopper on a system without any graph: the closed form of Sec. 9.2 with the pertinent items
// e2, e3 at probability 0. Algorithm 1's stop there is blind by construction (the pool check finds
// e2, e3 with Ω > ε), so every policy's branch is reached with a known verdict.
const blind = closedFormSystem({ probabilities: { e2: 0, e3: 0 } });
const setting = { epsilon: 0.025, window: 2, maxSteps: 60, seed: 0 };
// the budget run's trajectory: the stopper sees its Ω and the state after each step
const trajectory = runRecursive(blind, { ...setting, rule: 'budget' }).steps;
const paper = runRecursive(blind, setting);
const siteAt = (i: number): CheckSite => ({ system: blind, theta: trajectory[i]!.theta! });

/** Feeds the trajectory to the stopper until it says stop (or the trajectory ends). */
async function feed(stopper: CoverageStopper, site = true) {
  const reports = [];
  for (let i = 0; i < trajectory.length; i++) {
    const r = await stopper.observe({ omega: trajectory[i]!.omega }, site ? () => siteAt(i) : null);
    reports.push(r);
    if (r.stop) break;
  }
  return reports;
}

describe('CoverageStopper: the policy on a candidate stop', () => {
  beforeAll(async () => {
    await init();
  });

  it("'stop' is the paper's rule: it stops where Algorithm 1 stops and says the stop is blind", async () => {
    expect(paper.stop.reason).toBe('order-gap');
    const stopper = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }), {
      policy: 'stop',
    });
    const last = (await feed(stopper)).at(-1)!;
    const direct = await checkCoverageAtStop(blind, paper.finalState, setting.epsilon);
    expect(last).toMatchObject({
      stop: true,
      step: paper.stop.step,
      reason: 'order-gap',
      verdict: 'blind',
      action: 'stop',
    });
    expect(last.check!.movingItems).toEqual(direct.movingItems);
    expect(last.detail).toMatch(/^Ω̂ <= ε at step \d+; stopped by the paper's rule although BLIND/);
    expect(stopper.checks).toHaveLength(1);
  });

  it("'continue' refuses the blind stop and restarts the rule's window; 'redirect' also says where it steers", async () => {
    for (const [policy, steer] of [
      ['continue', undefined],
      ['redirect', undefined],
      ['redirect', 'order-gap'],
    ] as const) {
      const stopper = new CoverageStopper(
        null,
        new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }),
        { policy, maxSteps: trajectory.length, ...(steer ? { steer } : {}) },
      );
      expect(stopper.steer).toBe(steer ?? 'coverage');
      const reports = await feed(stopper);
      const refused = reports.findIndex((r) => r.action !== null);
      expect(refused + 1).toBe(paper.stop.step);
      const r = reports[refused]!;
      expect(r).toMatchObject({ stop: false, reason: 'continue', verdict: 'blind', action: policy });
      // blind by the pool check alone (e2, e3 at P = 0 with Ω > ε), every question covered
      expect(r.check!.uncoveredQuestions).toEqual([]);
      expect(r.targetQuestions).toEqual([]);
      if (steer === 'order-gap') {
        expect(r.redirect).toEqual(redirectTargets(r.check!));
        expect(r.redirect).toEqual(expect.arrayContaining(['e2', 'e3']));
        expect(r.detail).toMatch(/; steer order-gap: toward \d+ item\(s\) with Ω > ε/);
      } else {
        // the default steer names no item, and says why
        expect(r.redirect).toEqual([]);
        if (policy === 'redirect')
          expect(r.detail).toMatch(/; steer coverage: toward no item, no question fails the coverage check/);
        else expect(r.detail).not.toMatch(/steer/);
      }
      // the window starts again: the next step has no Ω̂ yet (w = 2)
      expect(reports[refused + 1]!.statistic).toBeNull();
      expect(reports.at(-1)!.stop).toBe(true);
    }
  });

  it('a site given again (the very object checked last) is not checked again: its check is reused', async () => {
    const stopper = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: 1 }), {
      policy: 'continue',
    });
    // window 1 and Ω = 0: every observation is a candidate stop, refused as blind (the pool check)
    const site = siteAt(paper.stop.step - 1);
    for (let i = 0; i < 3; i++) await stopper.observe({ omega: 0 }, () => site);
    const equal = { ...site };
    await stopper.observe({ omega: 0 }, () => equal);
    const [a, b, c, d] = stopper.checks;
    expect(a!.verdict).toBe('blind');
    expect(b).toBe(a);
    expect(c).toBe(a);
    // an equal but new site is checked afresh, to the same verdict
    expect(d).not.toBe(a);
    expect(d!.verdict).toBe('blind');
    expect(d!.movingItems).toEqual(a!.movingItems);
  });

  it("'redirect' names a question failing the check that no pool item addresses as unaddressable", async () => {
    // closed form at (c, u) = (0.2, 0): every Σ_e vanishes on c (Σ_e b = (0, ρuα_e)), so the
    // stand-in question 'confidence' is uncovered, and no item, supported or not, can move it
    const cf = closedFormSystem();
    const stopper = new CoverageStopper(cf, new OrderGapRule({ epsilon: setting.epsilon, window: 1 }), {
      policy: 'redirect',
    });
    const r = await stopper.candidate(3, 'order-gap', [0.2, 0], 0);
    expect(r).toMatchObject({ stop: false, verdict: 'blind', action: 'redirect', redirect: [] });
    expect(r.targetQuestions).toEqual([
      {
        question: 'confidence',
        failure: 'uncovered',
        margin: 0,
        kernelDim: 1,
        summary: expect.stringMatching(/^not coverable/) as unknown,
        addressedBy: [],
      },
    ]);
    expect(r.detail).toMatch(
      /; steer coverage: toward no item; confidence unaddressable \(no pool item addresses it\)$/,
    );
  });

  it('the budget and policy false end the loop without a check; a site that gives none is refused at the candidate stop', async () => {
    const budget = new CoverageStopper(null, new OrderGapRule({ epsilon: 1e-12, window: 2 }), { maxSteps: 3 });
    const b = (await feed(budget)).at(-1)!;
    expect(b).toMatchObject({ stop: true, step: 3, reason: 'budget', verdict: null, check: null });
    const noSite = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }));
    await expect(feed(noSite, false)).rejects.toThrow(/^site = null: is missing/);
    const none = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }));
    let error: unknown = null;
    for (let i = 0; i < trajectory.length && error === null; i++)
      await none.observe({ omega: trajectory[i]!.omega }, () => null).catch((e: unknown) => (error = e));
    expect(String(error)).toMatch(
      new RegExp(`site = null: gave none for the candidate stop at step ${paper.stop.step}`),
    );
    const off = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }), {
      policy: false,
    });
    expect((await feed(off)).at(-1)).toMatchObject({ stop: true, step: paper.stop.step, verdict: null });
    expect(off.checks).toHaveLength(0);
  });

  it("any rule's stop is a candidate: the confidence rule's stop is checked too, at the default ε", async () => {
    const rule = new ConfidenceThresholdRule({ threshold: 0.25 });
    const stopper = new CoverageStopper(blind, rule, { policy: 'stop' });
    expect(stopper.epsilon).toBe(DEFAULT_RUN.epsilon);
    let report = null;
    for (let i = 0; i < trajectory.length && !report?.stop; i++)
      report = await stopper.observe({ omega: trajectory[i]!.omega, confidence: trajectory[i]!.theta![0]! }, () =>
        siteAt(i),
      );
    expect(report).toMatchObject({ stop: true, reason: 'criterion', verdict: 'blind' });
    expect(report!.detail).toMatch(/^confidence\(.*\) stops at step/);
    // the same candidate through candidate(): the stopper's own system at the given state
    const again = new CoverageStopper(blind, new ConfidenceThresholdRule({ threshold: 0.25 }));
    const c = await again.candidate(report!.step, 'criterion', trajectory[report!.step - 1]!.theta!, null);
    expect(c.check!.movingItems).toEqual(report!.check!.movingItems);
  });

  it('a stopper restored from the snapshot after any step (through JSON) reports every later step as the original', async () => {
    // 'redirect' with steer order-gap: refused blind stops (the rule's window restarts, redirect
    // lists), then the budget; the snapshot must carry all of it
    const make = () =>
      new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: setting.window }), {
        policy: 'redirect',
        steer: 'order-gap',
        maxSteps: trajectory.length,
      });
    const observeFrom = async (stopper: CoverageStopper, k: number) => {
      const reports = [];
      for (let i = k; i < trajectory.length; i++)
        reports.push(await stopper.observe({ omega: trajectory[i]!.omega }, () => siteAt(i)));
      return reports;
    };
    const original = make();
    const whole = await observeFrom(original, 0);
    expect(whole.filter((r) => r.action === 'redirect').length).toBeGreaterThan(1);
    expect(whole.at(-1)).toMatchObject({ stop: true, reason: 'budget' });
    const json = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
    for (const k of [0, 1, paper.stop.step - 1, paper.stop.step, paper.stop.step + 1, trajectory.length - 1]) {
      const a = make();
      for (let i = 0; i < k; i++) await a.observe({ omega: trajectory[i]!.omega }, () => siteAt(i));
      const b = make();
      await b.observe({ omega: 0.5 }, () => siteAt(0)); // b has its own past: the restore replaces it
      b.restore(json(a.snapshot()));
      expect([b.steps, b.report, b.checks, b.targetQuestions]).toEqual(
        json([a.steps, a.report, a.checks, a.targetQuestions]),
      );
      expect(b.snapshot()).toEqual(json(a.snapshot()));
      expect(await observeFrom(b, k)).toEqual(whole.slice(k));
      expect(b.checks).toEqual(json(original.checks));
    }
  });

  it('a snapshot of another configuration, or whose steps do not fit, is refused by name with the stopper unchanged; a rule without snapshot() cannot be saved', async () => {
    const rule = () => new OrderGapRule({ epsilon: setting.epsilon, window: setting.window });
    const a = new CoverageStopper(null, rule(), { policy: 'continue', maxSteps: 40 });
    const k = paper.stop.step - 1; // before the first candidate stop: the window is every step
    for (let i = 0; i < k; i++) await a.observe({ omega: trajectory[i]!.omega }, () => siteAt(i));
    const s = a.snapshot();
    expect(s).toMatchObject({
      format: 'ordergap-stopper/1',
      config: { rule: a.rule.label, policy: 'continue', steer: 'coverage', maxSteps: 40, epsilon: setting.epsilon },
      step: k,
      window: k,
      rule: { t: k },
    });
    const b = new CoverageStopper(null, rule(), { policy: 'continue', maxSteps: 40 });
    await b.observe({ omega: 0.5 }, () => siteAt(0));
    const before = b.snapshot();
    const refused: Array<[unknown, RegExp]> = [
      [{ ...s, format: 'x' }, /^snapshot\.format = "x": must be "ordergap-stopper\/1"/],
      [
        { ...s, config: { ...s.config, policy: 'stop' } },
        /^snapshot\.config\.policy = "stop": must be this stopper's "continue"/,
      ],
      [
        { ...s, config: { ...s.config, maxSteps: null } },
        /^snapshot\.config\.maxSteps = null: must be this stopper's 40/,
      ],
      [{ ...s, window: k + 1 }, new RegExp(`^snapshot\\.window = ${k + 1}`)],
      [
        { ...s, rule: { ...s.rule, t: k - 1 } },
        new RegExp(`^snapshot\\.rule\\.t = ${k - 1}: must be snapshot\\.window = ${k}`),
      ],
      [{ ...s, rule: { ...s.rule, state: { values: [] } } }, /^snapshot\.state\.values = /],
      [{ ...s, checks: null }, /^snapshot\.checks = null: must be an array/],
    ];
    for (const [bad, message] of refused) {
      expect(() => b.restore(bad as never)).toThrow(message);
      expect(b.snapshot()).toEqual(before);
    }
    const other = new CoverageStopper(null, new OrderGapRule({ epsilon: setting.epsilon, window: 3 }), {
      policy: 'continue',
      maxSteps: 40,
    });
    expect(() => other.restore(s)).toThrow(/^snapshot\.config\.rule = "order-gap\(epsilon=0\.025, window=2\)"/);
    const confidence = new CoverageStopper(null, new ConfidenceThresholdRule({ threshold: 0.25 }));
    expect(() => confidence.snapshot()).toThrow(/^rule = "confidence\(.*\)": has no snapshot\(\) and restore\(\)/);
  });

  it('bad arguments are refused naming them; candidate() needs a system', async () => {
    const rule = new OrderGapRule({ epsilon: setting.epsilon, window: setting.window });
    expect(() => new CoverageStopper(null, {} as never)).toThrow(/^rule = /);
    expect(() => new CoverageStopper(null, rule, { policy: 'often' as never })).toThrow(/^policy = "often"/);
    expect(() => new CoverageStopper(null, rule, { steer: 'sideways' as never })).toThrow(
      /^steer = "sideways": must be 'coverage' or 'order-gap'$/,
    );
    expect(() => new CoverageStopper(null, rule, { maxSteps: 0 })).toThrow(/^maxSteps = 0/);
    expect(() => new CoverageStopper(null, rule, { epsilon: -1 })).toThrow(/^epsilon = -1/);
    await expect(new CoverageStopper(null, rule).candidate(1, 'order-gap', [0, 0], null)).rejects.toThrow(
      /^system = null/,
    );
    await expect(new CoverageStopper(null, rule).observe({ omega: -1 }, () => siteAt(0))).rejects.toThrow(/omega/);
  });
});
