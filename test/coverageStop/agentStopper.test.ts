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

  it('bad options and Ω are refused naming them', async () => {
    expect(() => scenarioStopper('often' as never)).toThrow(/^policy = "often"/);
    expect(() => scenarioStopper('stop', 0)).toThrow(/^maxSteps = 0/);
    const s = scenarioStopper('stop');
    await expect(s.observe({ omega: Number.NaN }, null)).rejects.toThrow(/omega/);
  });
});
