import { describe, expect, it } from 'vitest';
import { GraphConsolidateJacobian } from '../../src/graph/consolidateJacobian.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { referenceConsolidate } from '../../src/graph/consolidate.js';
import {
  FD_RELATIVE_ACCURACY,
  FdJacobian,
  sparseCombine,
  sparseFromDense,
  sparseNorm,
} from '../../src/linearize/index.js';
import { init, wasm } from '../../src/wasm/module.js';

describe('GraphConsolidateJacobian (wasm node-block kernel, θ resident)', () => {
  it('equals central differences of the TypeScript reference Q, and frees its blocks', async () => {
    await init();
    const sys = referenceGraphSystem();
    const { shape, params } = sys.scenario;
    let theta: Float64Array = sys.scenario.theta0;
    for (const it of sys.scenario.items) theta = sys.consolidate(sys.expand(it.id, theta));
    const before = wasm().arena.bytesInUse;
    const fast = new GraphConsolidateJacobian(sys.scenario, theta);
    const ref = new FdJacobian((t) => referenceConsolidate(shape, params, t), theta);
    // confidence, attribute and edge columns (edges: identity entry + node-block coupling)
    const cols = [...sys.subspaces['confidence']!.slice(0, 6), ...sys.subspaces['footprint']!];
    let worst = 0;
    for (const j of cols) {
      const a = fast.column(j);
      const b = ref.column(j);
      // the wasm kernel agrees with the reference to ~1e-12 relative (graph suite); both
      // quotients divide by the same step h ≈ 6e-6·max(1,|θ_j|), so they agree to
      // ~1e-12/h ≈ 2e-7 — far below FD's own error and far above eps^(2/3)
      worst = Math.max(worst, sparseNorm(sparseCombine(1, a, -1, b)) / Math.max(1, sparseNorm(b)));
    }
    expect(worst).toBeLessThan(1e-6);
    // a long direction goes through one directional difference on the resident θ
    const v = sparseFromDense(Float64Array.from(theta, (_, i) => (i % 7 === 0 ? 1e-3 * Math.sin(i) : 0)));
    const jv = fast.apply(v);
    expect(fast.stats.directional).toBe(1);
    const jvRef = ref.apply(v);
    expect(sparseNorm(sparseCombine(1, jv, -1, jvRef))).toBeLessThan(
      1e-6 * Math.max(sparseNorm(jvRef), 1e-12) + 1e3 * FD_RELATIVE_ACCURACY,
    );
    expect(wasm().arena.bytesInUse).toBeGreaterThan(before);
    fast.release();
    expect(wasm().arena.bytesInUse).toBe(before);
  });
});
