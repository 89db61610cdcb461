import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  densify,
  extractCsr,
  orderGapDense,
  orderGapDenseTwoPass,
  orderGapLocal,
  orderGapSparse,
  withColumns,
} from '../../src/graph/orderGapFast.js';
import { syntheticProblem } from '../../src/graph/synthetic.js';
import { DEFAULT_PARAMS } from '../../src/graph/params.js';
import { referenceConsolidate } from '../../src/graph/consolidate.js';
import { referenceExpand } from '../../src/graph/expand.js';
import { referenceDistance } from '../../src/blas1/dnrm2.js';
import { defaultScenario } from '../../src/graph/scenario.js';

/** Ω by the definition: two full Q and two full P_e applications. */
function generic(
  shape: Parameters<typeof referenceConsolidate>[0],
  theta: Float64Array,
  item: Parameters<typeof referenceExpand>[0],
  p = DEFAULT_PARAMS,
) {
  return referenceDistance(
    referenceConsolidate(shape, p, referenceExpand(item, theta)),
    referenceExpand(item, referenceConsolidate(shape, p, theta)),
  );
}

// The fast path adds the footprint's deltas to θ's structure sums instead of summing P_e(θ)'s
// edges afresh; each patched sum differs by a few ulps of its magnitude (<= ~Nmax·eps relative),
// and Ω is a Lipschitz function of the sums, so |Ω_fast − Ω| <= 1e-10·max(Ω, 1e-6) is a safe bound
// (measured: below 1e-13 relative).
const REL = 1e-10;

describe('structure-aware order-gap', () => {
  test.prop([fc.integer({ min: 20, max: 120 }), fc.integer({ min: 1, max: 2 ** 31 })], { numRuns: 25 })(
    'sparse Ω is bit-for-bit the dense Ω, and both equal the definition to rounding',
    (nmax, seed) => {
      const { shape, state, item } = syntheticProblem(nmax, 4, 10, seed);
      const theta = densify(shape, state);
      const before = Float64Array.from(theta);
      const dense = orderGapDense(shape, DEFAULT_PARAMS, theta, item);
      const sparse = orderGapSparse(shape, DEFAULT_PARAMS, state, item);
      expect(sparse).toBe(dense);
      // the neighbourhood-only evaluation gives the same bits
      expect(orderGapLocal(shape, DEFAULT_PARAMS, withColumns(state, nmax), item)).toBe(dense);
      // the two-pass dense evaluation (taken for dense edge blocks) gives the same bits
      expect(orderGapDenseTwoPass(shape, DEFAULT_PARAMS, theta, item)).toBe(dense);
      // and the one-pass extraction recovers the CSR exactly, or declines above its cap
      expect(extractCsr(shape, theta, 1 << 30)!.edges).toEqual(state.edges);
      expect(extractCsr(shape, theta, 3)).toBeNull();
      expect(theta).toEqual(before); // θ untouched
      const ref = generic(shape, theta, item);
      expect(ref).toBeGreaterThan(0);
      expect(Math.abs(dense - ref)).toBeLessThanOrEqual(REL * Math.max(ref, 1e-6));
    },
  );

  it('matches the definition on the default scenario for every item along a run', () => {
    const sc = defaultScenario();
    let t = sc.theta0;
    for (let step = 0; step < 12; step++) {
      for (const item of sc.items) {
        const ref = generic(sc.shape, t, item, sc.params);
        const fast = orderGapDense(sc.shape, sc.params, t, item);
        expect(Math.abs(fast - ref)).toBeLessThanOrEqual(REL * Math.max(ref, 1e-6));
        const sparse = withColumns(extractCsr(sc.shape, t, 1 << 30)!, sc.shape.nmax);
        expect(orderGapLocal(sc.shape, sc.params, sparse, item)).toBe(fast);
      }
      const it = sc.items[(step * 5) % sc.items.length]!;
      t = referenceConsolidate(sc.shape, sc.params, referenceExpand(it, t));
    }
  });
});
