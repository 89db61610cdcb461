import { describe, expect, it } from 'vitest';
import { runReport } from '../../src/report/run.js';

// A run at the largest default synthetic size goes through the whole report on the structured
// state: nothing on the report's path may build the dense θ, whose 3·Nmax² edge coordinates
// (1.3e10 at Nmax = 65536) no typed array can hold. In the slow suite (vitest.config.ts).
describe('runReport at Nmax = 65536', () => {
  it('reports a synthetic run without forming the dense θ', async () => {
    const r = await runReport({ synthetic: 65536, maxSteps: 5 });
    expect(r.state.representation).toBe('structured');
    expect(r.stop.step).toBeGreaterThan(0);
    expect(r.stop.step).toBeLessThanOrEqual(5);
    expect(r.trajectory).toHaveLength(r.stop.step);
  }, 120_000);
});
