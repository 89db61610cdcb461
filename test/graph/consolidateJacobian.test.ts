import { afterEach, describe, expect, it, vi } from 'vitest';
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
import { coordinateArray } from '../../src/system/coordinates.js';

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
    const cols = [
      ...coordinateArray(sys.subspaces['confidence']!).slice(0, 6),
      ...coordinateArray(sys.subspaces['footprint']!),
    ];
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

  describe('resident blocks are freed on every path', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const setup = async () => {
      await init();
      const sys = referenceGraphSystem();
      let theta: Float64Array = sys.scenario.theta0;
      for (const it of sys.scenario.items) theta = sys.consolidate(sys.expand(it.id, theta));
      return { sys, theta, start: wasm().arena.bytesInUse };
    };

    /** Makes the arena's n-th allocation from now on throw (the earlier ones succeed). */
    const failAllocation = (n: number): void => {
      const { arena } = wasm();
      const alloc = arena.alloc.bind(arena);
      let calls = 0;
      vi.spyOn(arena, 'alloc').mockImplementation((length, fill) => {
        if (++calls === n) throw new Error('injected allocation failure');
        return alloc(length, fill);
      });
    };

    it('`using` frees both blocks at the end of the block', async () => {
      const { sys, theta, start } = await setup();
      {
        using J = new GraphConsolidateJacobian(sys.scenario, theta);
        J.column(0);
        expect(wasm().arena.bytesInUse).toBeGreaterThan(start);
      }
      expect(wasm().arena.bytesInUse).toBe(start);
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      J.column(1);
      J.release();
      J[Symbol.dispose](); // after release: nothing left to free, no double free
      J.release();
      expect(wasm().arena.bytesInUse).toBe(start);
    });

    it('an exception mid-way through a column frees the blocks and leaves θ unshifted', async () => {
      const { sys, theta, start } = await setup();
      const j = coordinateArray(sys.subspaces['confidence']!)[2]!;
      const fresh = new GraphConsolidateJacobian(sys.scenario, theta);
      const spy = vi.spyOn(wasm().arena, 'alloc');
      const expected = fresh.column(j);
      // f64 allocations of one column: θ, the node block, then two evaluations' temporaries
      const perEvaluation = (spy.mock.calls.length - 2) / 2;
      expect(Number.isInteger(perEvaluation) && perEvaluation > 0).toBe(true);
      vi.restoreAllMocks();
      fresh.release();
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      for (const failAt of [3, 2 + perEvaluation + 1]) {
        // in the first evaluation (θ_j shifted to θ_j + h), then in the second (θ_j − h)
        failAllocation(failAt);
        expect(() => J.column(j)).toThrow('injected allocation failure');
        expect(wasm().arena.bytesInUse).toBe(start);
        vi.restoreAllMocks();
      }
      expect(J.column(j)).toEqual(expected); // re-created from x: no shifted coordinate left behind
      J.release();
      expect(wasm().arena.bytesInUse).toBe(start);
    });

    it('an exception mid-way through a directional difference frees the blocks; apply still agrees afterwards', async () => {
      const { sys, theta, start } = await setup();
      const v = sparseFromDense(Float64Array.from(theta, (_, i) => (i % 5 === 0 ? 1e-3 * Math.cos(i) : 0)));
      expect(v.index.length).toBeGreaterThan(64); // the directional path
      const fresh = new GraphConsolidateJacobian(sys.scenario, theta);
      const expected = fresh.apply(v);
      fresh.release();
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      failAllocation(5); // inside the first evaluation, θ shifted along v
      expect(() => J.apply(v)).toThrow('injected allocation failure');
      expect(wasm().arena.bytesInUse).toBe(start);
      vi.restoreAllMocks();
      expect(J.apply(v)).toEqual(expected);
      J.release();
      expect(wasm().arena.bytesInUse).toBe(start);
    });

    it('an exception while creating the blocks leaves nothing allocated', async () => {
      const { sys, theta, start } = await setup();
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      failAllocation(2); // θ succeeds, the node block fails
      expect(() => J.column(0)).toThrow('injected allocation failure');
      expect(wasm().arena.bytesInUse).toBe(start);
    });
  });

  it('apply of a short vector over columns not yet computed is the combination of those columns', async () => {
    await init();
    const sys = referenceGraphSystem();
    let theta: Float64Array = sys.scenario.theta0;
    for (const it of sys.scenario.items) theta = sys.consolidate(sys.expand(it.id, theta));
    const conf = coordinateArray(sys.subspaces['confidence']!);
    const [a, b] = [conf[1]!, conf[3]!];
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    // a fresh operator: apply computes both columns while it sums
    const dense = new Float64Array(sys.dim);
    dense[a] = 2;
    dense[b] = -3;
    const jv = J.apply(sparseFromDense(dense));
    using K = new GraphConsolidateJacobian(sys.scenario, theta);
    const expected = sparseCombine(2, K.column(a), -3, K.column(b));
    expect(jv).toEqual(expected);
    expect(J.column(b)).toEqual(K.column(b)); // and the cached column is the column alone
  });
});
