/**
 * A system whose retrieval never returns some items: P(e | θ) = 0 for the hidden ones, the rest
 * renormalised; operators and capabilities kept, except the structured state (whose own P(·|θ)
 * would not be reweighted: runs use the dense loop, which reads this P). For the coverage
 * benchmark (bench/coverage.ts) and its tests.
 */
import { defineSystem } from '../src/system/define.js';
import type { OperatorSystem } from '../src/system/types.js';

/** `system` with the items for which `hidden(id)` holds at P = 0 (module comment). */
export function withHiddenItems(system: OperatorSystem, hidden: (id: string) => boolean): OperatorSystem {
  const { state: _state, ...spec } = system.spec;
  return defineSystem({
    ...spec,
    name: `${system.name} (items hidden from retrieval)`,
    evidence: (theta) => {
      const dist = system.evidenceAt(theta);
      const kept = dist.reduce((s, e) => s + (hidden(e.id) ? 0 : e.p), 0);
      return dist.map((e) => ({ id: e.id, p: hidden(e.id) ? 0 : e.p / kept }));
    },
  });
}
