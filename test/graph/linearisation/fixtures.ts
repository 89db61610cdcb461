/** States the linearisation tests of the reference graph start from. */
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { init } from '../../../src/wasm/module.js';

/** The default scenario's system on the wasm kernels and a consolidated state (every item incorporated once). */
export async function consolidatedState() {
  await init();
  const sys = referenceGraphSystem();
  let theta: Float64Array = sys.scenario.theta0;
  for (const it of sys.scenario.items) theta = sys.consolidate(sys.expand(it.id, theta));
  return { sys, theta };
}
