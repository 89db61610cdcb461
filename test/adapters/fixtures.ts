/** The default scenario's pool and the evidence sequence Algorithm 1 samples (seed 7), for the adapter tests. */
import { readFileSync } from 'node:fs';
import { DEFAULT_SCENARIO_FILES, defaultScenario } from '../../src/graph/scenarios/scenario.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { CoverageStopper, type CoveragePolicy } from '../../src/coverageStop/stopper.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';

export const scenario = defaultScenario();
export const pool = (
  JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.evidence, 'utf8')) as { items: Array<{ id: string }> }
).items;
export const itemDoc = (id: string) => pool.find((i) => i.id === id)!;
/** Algorithm 1 on the default scenario with its defaults (ε 0.01, w 4, Tmax 120, seed 7) on the TypeScript Q the agent API uses. */
export const paper = runRecursive(referenceGraphSystem(scenario, { backend: 'reference' }), {
  ...scenario.run,
  recordStates: false,
});
/** The items that run draws, then (past its stop) those the budget run draws. */
export const sequence = runRecursive(referenceGraphSystem(scenario, { backend: 'reference' }), {
  ...scenario.run,
  rule: 'budget',
  recordStates: false,
}).steps.map((s) => s.evidence);

/**
 * The stopper of the agent tests: Algorithm 1's rule with the scenario's ε and w, checked for
 * coverage under `policy` (false: the rule alone), with the scenario's budget unless `maxSteps`.
 */
export function scenarioStopper(policy: CoveragePolicy | false, maxSteps = scenario.run.maxSteps): CoverageStopper {
  const { epsilon, window } = scenario.run;
  return new CoverageStopper(null, new OrderGapRule({ epsilon, window }), { policy, maxSteps });
}
