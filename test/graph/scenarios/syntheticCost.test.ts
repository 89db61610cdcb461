import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COST_MARGIN, syntheticRunCost } from '../../../src/graph/scenarios/syntheticCost.js';
import { syntheticGraphSystem } from '../../../src/graph/system.js';
import type { StructuredGraphState } from '../../../src/graph/state/state.js';

describe('syntheticRunCost', () => {
  it.each([
    [1000, 10],
    [4096, 10],
    [4096, 30],
  ])('bounds the bytes of the state at Nmax = %i, %i edges per node, within 5 percent of them', (nmax, k) => {
    const sys = syntheticGraphSystem(nmax, { edgesPerNode: k });
    const st = sys.capabilities.state!;
    const initial = st.initial() as StructuredGraphState;
    const bound = syntheticRunCost(nmax, { steps: 1, edgesPerNode: k }).stateBytes;
    expect(st.bytes(initial)).toBeLessThanOrEqual(bound);
    // the bound counts every edge the construction can draw; repeated draws are rare
    expect(st.bytes(initial)).toBeGreaterThan(0.95 * bound);
  });

  it('time is fixed + steps × per step; time and memory grow with Nmax and the edges per node', () => {
    const sizes = [20, 100, 1000, 4096, 65536, 262144, 2 ** 20];
    for (const steps of [1, 100, 10000]) {
      const c = syntheticRunCost(4096, { steps });
      expect(c.milliseconds).toBeCloseTo(c.fixedMilliseconds + steps * c.stepMilliseconds, 9);
    }
    const costs = sizes.map((n) => syntheticRunCost(n, { steps: 100 }));
    for (let i = 1; i < costs.length; i++) {
      for (const f of ['stateBytes', 'peakBytes', 'fixedMilliseconds', 'stepMilliseconds'] as const)
        expect(costs[i]![f], `${f} at Nmax = ${sizes[i]}`).toBeGreaterThan(costs[i - 1]![f]);
    }
    for (const c of costs) expect(c.fixedMilliseconds > 0 && c.stepMilliseconds > 0 && c.peakBytes > 0).toBe(true);
    const sparse = syntheticRunCost(65536, { steps: 100, edgesPerNode: 4 });
    const dense = syntheticRunCost(65536, { steps: 100, edgesPerNode: 40 });
    expect(dense.milliseconds).toBeGreaterThan(sparse.milliseconds);
    expect(dense.peakBytes).toBeGreaterThan(sparse.peakBytes);
  });
});

describe('the cost model holds the coefficients measured by bench/run-cost.ts', () => {
  interface Measured {
    rows: { nmax: number; steps: number; stateBytesBound: number }[];
    fit: Record<'fixedCpuMs' | 'stepCpuMs' | 'runRssBytes', [number, number, number]>;
  }
  const measured = JSON.parse(
    readFileSync(new URL('../../../bench/results/run-cost.json', import.meta.url), 'utf8'),
  ) as Measured;

  it.each(measured.rows.map((r) => [r.nmax, r]))('at Nmax = %i: the fit times the margin', (_n, r) => {
    const c = syntheticRunCost(r.nmax, { steps: r.steps });
    const fit = (k: keyof Measured['fit']) => {
      const [c0, c1, c2] = measured.fit[k];
      return COST_MARGIN * (c0 + c1 * r.stateBytesBound + c2 * r.nmax * r.nmax);
    };
    expect(c.stateBytes).toBe(r.stateBytesBound);
    expect(c.fixedMilliseconds).toBeCloseTo(fit('fixedCpuMs'), 6);
    expect(c.stepMilliseconds).toBeCloseTo(fit('stepCpuMs'), 6);
    expect(c.peakBytes / fit('runRssBytes')).toBeCloseTo(1, 12);
  });
});
