import { describe, expect, it } from 'vitest';
import { checkCoverageAtStop } from '../../src/coverageStop/check.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { agentCheckSite, referenceGraphSystem } from '../../src/graph/system.js';
import { itemDoc, paper, pool, scenario, scenarioStopper, sequence } from '../adapters/fixtures.js';

describe('the agent API: AgentState.scenarioWith and the CoverageStopper on its check site', () => {
  it('scenarioWith(pool) at θ0 is the scenario itself: same layout, θ and P(·|θ)', () => {
    const state = AgentState.fromScenario(scenario);
    const s = state.scenarioWith(pool);
    expect(s.layout.dim).toBe(scenario.layout.dim);
    expect(s.theta0).toEqual(scenario.theta0);
    const a = referenceGraphSystem(s, { backend: 'reference' }).evidenceAt(s.theta0);
    const b = referenceGraphSystem(scenario, { backend: 'reference' }).evidenceAt(scenario.theta0);
    expect(a).toEqual(b);
  });

  it("stops where Algorithm 1 stops and its check equals the system-level check at Algorithm 1's θ_T", async () => {
    const state = AgentState.fromScenario(scenario);
    const stopper = scenarioStopper('stop');
    let report = null;
    for (const id of sequence) {
      report = await stopper.observe({ omega: state.step(itemDoc(id)) }, () => agentCheckSite(state, pool));
      if (report.stop) break;
    }
    expect(report!.step).toBe(paper.stop.step);
    expect(report!.reason).toBe('order-gap');
    const direct = await checkCoverageAtStop(
      referenceGraphSystem(scenario, { backend: 'reference' }),
      paper.finalState,
      scenario.run.epsilon,
    );
    expect(report!.verdict).toBe(direct.verdict);
    expect(report!.check!.movingItems.map((m) => m.evidence)).toEqual(direct.movingItems.map((m) => m.evidence));
    expect(report!.check!.uncoveredQuestions).toEqual(direct.uncoveredQuestions);
  });

  it('without candidates the check runs over every item the state has applied, never skipped', async () => {
    const state = AgentState.fromScenario(scenario);
    expect(() => agentCheckSite(state)).toThrow(
      /^candidates = undefined: default to the evidence items the state has applied/,
    );
    expect(() => agentCheckSite(state, [])).toThrow(/^candidates = an array of length 0: must name at least one/);
    const stopper = scenarioStopper('stop');
    const applied = new Map<string, unknown>();
    let report = null;
    let site = null;
    for (const id of sequence) {
      applied.set(id, itemDoc(id));
      report = await stopper.observe({ omega: state.step(itemDoc(id)) }, () => (site = agentCheckSite(state)));
      if (report.stop) break;
    }
    expect(state.evidence).toEqual([...applied.values()]);
    expect(report!.step).toBe(paper.stop.step);
    expect(report!.verdict).not.toBeNull();
    // the default site is the one over the items applied, given explicitly
    const explicit = agentCheckSite(state, [...applied.values()]);
    expect(site!.system.evidenceAt(site!.theta)).toEqual(explicit.system.evidenceAt(explicit.theta));
    const direct = await checkCoverageAtStop(explicit.system, explicit.theta, scenario.run.epsilon);
    expect(report!.verdict).toBe(direct.verdict);
    expect(report!.check!.movingItems).toEqual(direct.movingItems);
  });

  it('a state saved and restored has the same default pool and the same coverage verdict, before and after further steps', async () => {
    const stop = paper.stop.step;
    const original = AgentState.fromScenario(scenario);
    for (const id of sequence.slice(0, stop - 2)) original.step(itemDoc(id));
    const restored = AgentState.fromJSON(JSON.parse(JSON.stringify(original.toJSON())));
    for (const id of sequence.slice(stop - 2, stop)) {
      original.step(itemDoc(id));
      restored.step(itemDoc(id));
    }
    const a = agentCheckSite(original);
    const b = agentCheckSite(restored);
    expect(b.theta).toEqual(a.theta);
    expect(b.system.evidenceAt(b.theta)).toEqual(a.system.evidenceAt(a.theta));
    const [ca, cb] = await Promise.all(
      [a, b].map((site) => checkCoverageAtStop(site.system, site.theta, scenario.run.epsilon)),
    );
    expect(cb!.verdict).toBe(ca!.verdict);
    expect(cb!.movingItems).toEqual(ca!.movingItems);
    expect(cb!.uncoveredQuestions).toEqual(ca!.uncoveredQuestions);
    expect(restored.evidence).toEqual(original.evidence);
  });

  it("with 'redirect' the report tells the loop which questions to extract for: one no applied item addresses is named unaddressable", async () => {
    // the loop never reads e04, the one item of the default pool that writes q:birthplace
    const q = scenario.layout.slotOf.get('q:birthplace')!;
    expect(scenario.items.filter((it) => it.questionCoordinates.has(q)).map((it) => it.id)).toEqual(['e04']);
    const state = AgentState.fromScenario(scenario);
    const stopper = scenarioStopper('redirect');
    const rest = sequence.filter((x) => x !== 'e04');
    let report = null;
    let i = 0;
    for (; i < rest.length; i++) {
      expect(stopper.targetQuestions).toEqual([]);
      report = await stopper.observe({ omega: state.step(itemDoc(rest[i]!)) }, () => agentCheckSite(state));
      if (report.action !== null || report.stop) break;
    }
    expect(report).toMatchObject({ verdict: 'blind', action: 'redirect', redirect: [] });
    expect(report!.check!.unaddressedQuestions).toEqual(['q:birthplace']);
    expect(report!.targetQuestions).toEqual([
      {
        question: 'q:birthplace',
        failure: 'unaddressed',
        margin: null,
        kernelDim: null,
        summary: 'no pool item addresses it: coverage not decided',
        addressedBy: [],
      },
    ]);
    expect(report!.detail).toMatch(
      /steer coverage: toward no item; q:birthplace unaddressable \(no pool item addresses it\)/,
    );
    // the stopper keeps them for the loop until the next candidate stop; later reports carry none
    const next = await stopper.observe({ omega: state.step(itemDoc(rest[i + 1]!)) }, () => agentCheckSite(state));
    expect(next).toMatchObject({ action: null, targetQuestions: [] });
    expect(stopper.targetQuestions).toEqual(report!.targetQuestions);
    // with e04 read, the check decides q:birthplace: nothing is unaddressed at Algorithm 1's stop
    const full = AgentState.fromScenario(scenario);
    for (const id of sequence.slice(0, paper.stop.step)) full.step(itemDoc(id));
    const site = agentCheckSite(full);
    const c = await checkCoverageAtStop(site.system, site.theta, scenario.run.epsilon);
    expect(c.unaddressedQuestions).toEqual([]);
    expect(c.coverage.map((x) => x.question)).toContain('q:birthplace');
  });

  it('an open question no applied item addresses makes the stop blind even when nothing would move the state', async () => {
    const state = AgentState.fromScenario(scenario);
    for (const id of sequence.filter((x) => x !== 'e04')) state.step(itemDoc(id));
    const site = agentCheckSite(state);
    const c = await checkCoverageAtStop(site.system, site.theta, 1e6); // no item moves the state by 1e6
    expect(c.movingItems).toEqual([]);
    expect(c.uncoveredQuestions).toEqual([]);
    expect(c.unaddressedQuestions).toEqual(['q:birthplace']);
    expect(state.describe(0.5).questions.find((q) => q.question === 'q:birthplace')!.open).toBe(true);
    expect(c.verdict).toBe('blind');
    expect(c.detail).toMatch(/blind to the open question\(s\) q:birthplace: no pool item addresses them/);
  });

  it('bad options and Ω are refused naming them; a missing site is refused unless the policy is false', async () => {
    expect(() => scenarioStopper('often' as never)).toThrow(/^policy = "often"/);
    expect(() => scenarioStopper('stop', 0)).toThrow(/^maxSteps = 0/);
    const state = AgentState.fromScenario(scenario);
    const s = scenarioStopper('stop');
    const before = JSON.stringify(s.snapshot());
    await expect(s.observe({ omega: Number.NaN }, () => agentCheckSite(state))).rejects.toThrow(/omega/);
    await expect(s.observe({ omega: -1 }, () => agentCheckSite(state))).rejects.toThrow(/omega/);
    await expect(s.observe({ omega: 0.5 })).rejects.toThrow(/^site = undefined: is missing/);
    await expect(s.observe({ omega: 0.5 }, null)).rejects.toThrow(/^site = null: is missing/);
    // a refused observation changes nothing: not the steps, the window, nor the rule's count
    expect(s.steps).toBe(0);
    expect(JSON.stringify(s.snapshot())).toBe(before);
    await s.observe({ omega: 0.5 }, () => agentCheckSite(state));
    expect(s.snapshot()).toMatchObject({ step: 1, window: 1, rule: { t: 1, state: { values: [0.5] } } });
    expect((await scenarioStopper(false).observe({ omega: 0.5 })).stop).toBe(false);
  });
});
