import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { GRAPH as graphBackends } from '../../util/backends.js';
import { consolidatedState } from './fixtures.js';
import { graphConsolidationEngine } from '../../../src/graph/linearisation/consolidationEngine.js';
import { findFixedPoint } from '../../../src/certify/fixedPoint.js';
import { verifyContraction } from '../../../src/certify/contraction.js';
import { extendSystem } from '../../../src/system/define.js';
import { coordinateArray } from '../../../src/system/coordinates.js';
import { FdJacobian } from '../../../src/linearize/finiteDifference.js';
import { wasm } from '../../../src/wasm/module.js';

describe('graphConsolidationEngine (Q near a base, edges by rows in wasm)', () => {
  test.prop([fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 12 })(
    'is the wasm Q bit for bit on states that differ from the base on the node block and the varying edges',
    async (seed, w) => {
      const { sys, theta } = await consolidatedState();
      const { shape, params } = sys.scenario;
      const n = shape.nmax;
      let r = seed;
      const next = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0);
      // E: a few edge coordinates, some absent at the base (zeros the engine must store), and
      // some of the footprint (present edges)
      const footprintEdges = coordinateArray(sys.subspaces['footprint']!).filter((j) => j >= shape.edgeOffset);
      const E = [
        ...Array.from({ length: 6 }, () => shape.edgeOffset + (next() % (3 * n * n))),
        ...footprintEdges.slice(0, 4),
      ];
      const before = wasm().arena.bytesInUse;
      const engine = graphConsolidationEngine(sys.scenario, theta, E);
      try {
        expect(Array.from(engine.varying.subarray(0, shape.edgeOffset))).toEqual(
          Array.from({ length: shape.edgeOffset }, (_, i) => i),
        );
        expect(Array.from(engine.varying.subarray(shape.edgeOffset))).toEqual([...new Set(E)].sort((a, b) => a - b));
        const m = engine.varying.length;
        const out = new Float64Array(m);
        for (let rep = 0; rep < 3; rep++) {
          const state = Float64Array.from(theta);
          const z = Float64Array.from(engine.varying, (j) => theta[j]!);
          // move confidences and attributes, and set the varying edges (to w, to 0, or random)
          for (let i = 0; i < shape.edgeOffset; i++) if (next() % 3 === 0) z[i] = (next() % 1000) / 1000;
          for (let t = shape.edgeOffset; t < m; t++) z[t] = [w, 0, (next() % 1000) / 1000][(rep + t) % 3]!;
          engine.varying.forEach((j, t) => (state[j] = z[t]!));
          engine.consolidate(z, out);
          const full = graphBackends.wasm.consolidate(shape, params, state);
          expect(out).toEqual(Float64Array.from(engine.varying, (j) => full[j]!));
        }
      } finally {
        engine.release();
      }
      expect(wasm().arena.bytesInUse).toBe(before);
    },
  );

  it('varies every coordinate when the block is the whole state (blocks stored whole), bit for bit', async () => {
    const { sys, theta } = await consolidatedState();
    const { shape, params } = sys.scenario;
    const engine = graphConsolidationEngine(
      sys.scenario,
      theta,
      Array.from({ length: sys.dim }, (_, i) => i),
    );
    try {
      expect(engine.varying.length).toBe(sys.dim);
      let r = 7;
      const z = Float64Array.from(theta, (x) =>
        (r = (Math.imul(r, 1103515245) + 12345) >>> 0) % 3 === 0 ? (r % 997) / 997 : x,
      );
      const out = new Float64Array(sys.dim);
      engine.consolidate(z, out);
      expect(out).toEqual(graphBackends.wasm.consolidate(shape, params, z));
    } finally {
      engine.release();
    }
  });

  it('rejects a wrong-length base and an out-of-range block index, naming them', async () => {
    const { sys, theta } = await consolidatedState();
    expect(() => graphConsolidationEngine(sys.scenario, theta.subarray(1), [])).toThrow(/base/);
    expect(() => graphConsolidationEngine(sys.scenario, theta, [sys.dim])).toThrow(/block\[0\]/);
  });
});

describe('the certification through the engine', () => {
  it('the fixed point and the contraction search give what Q on the whole state gives, bit for bit', async () => {
    const { sys, theta } = await consolidatedState();
    // the same system without the engine: Q on the whole state
    const plain = extendSystem(sys, {
      certification: { ...sys.capabilities.certification!, consolidateOn: () => undefined },
    });
    const engine = sys.capabilities.certification!.consolidateOn!(theta, []);
    expect(engine).toBeDefined();
    engine!.release();
    expect(plain.capabilities.certification!.consolidateOn!(theta, [])).toBeUndefined();
    const a = findFixedPoint(sys, { theta0: theta });
    const b = findFixedPoint(plain, { theta0: theta });
    expect(a.theta).toEqual(b.theta);
    expect([a.iterations, a.residual, a.lastStep, a.observedRate]).toEqual([
      b.iterations,
      b.residual,
      b.lastStep,
      b.observedRate,
    ]);
    // ‖θ_n‖ = hypot(‖z_n‖, ‖rest‖) against one pass over θ_n: a few eps apart
    a.iterateNorms.forEach((x, i) =>
      expect(Math.abs(x - b.iterateNorms[i]!)).toBeLessThanOrEqual(8 * Number.EPSILON * x),
    );
    for (const name of ['confidence', 'footprint']) {
      const coordinates = coordinateArray(sys.subspaces[name]!);
      const J = new FdJacobian((t) => sys.consolidate(t), a.theta);
      const opts = { coordinates, name, jacobian: J, samples: 6, ascentSteps: 6, lower: 0, upper: 1 };
      const x = verifyContraction(sys, a.theta, opts);
      const y = verifyContraction(plain, a.theta, opts);
      expect(x.worstPair?.ratio).toBe(y.worstPair?.ratio);
      expect(x.empiricalLowerBound).toBe(y.empiricalLowerBound);
      expect(x.verdict).toBe(y.verdict);
      expect(x.evaluations).toBe(y.evaluations);
    }
  });
});
