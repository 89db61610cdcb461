import { coordinateAt, coordinateCount } from '../../src/system/coordinates.js';
import { describe, expect, it } from 'vitest';
import { getSystem } from '../../src/system/registry.js';
import { referenceGraphSystem, questionBasis } from '../../src/graph/system.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { confidenceIndex, edgeIndex } from '../../src/graph/model/layout.js';

describe('reference-graph operator system', () => {
  const sys = referenceGraphSystem();
  const sc = sys.scenario;

  it('is registered as a built-in and has d = (k+1)·Nmax + 3·Nmax²', () => {
    const reg = getSystem('reference-graph');
    const { k, nmax } = sc.layout;
    expect(reg.dim).toBe((k + 1) * nmax + 3 * nmax * nmax);
    expect(sys.dim).toBe(reg.dim);
  });

  it('declares the named subspaces and per-question coordinate sets', () => {
    const { nmax, k } = sc.layout;
    expect(coordinateCount(sys.subspaces.confidence!)).toBe(nmax);
    expect(coordinateCount(sys.subspaces.attributes!)).toBe(k * nmax);
    for (const [i, t] of ['Supports', 'Requires', 'Contradicts'].entries()) {
      const set = sys.subspaces[`edges:${t}`]!;
      // a range: no Nmax² indices are held
      expect(set).toEqual({ start: sc.layout.edgeOffset + i * nmax * nmax, count: nmax * nmax, stride: 1 });
      expect(coordinateAt(set, nmax + 1)).toBe(edgeIndex(sc.layout, t as 'Supports', 1, 1));
    }
    expect(coordinateCount(sys.subspaces.footprint!)).toBeGreaterThan(0);
    expect(Object.keys(sys.questions).sort()).toEqual(['q:author', 'q:birthplace', 'q:country']);
    expect(sys.describeCoordinate(confidenceIndex(sc.layout, sc.layout.slotOf.get('q:birthplace')!))).toBe(
      'c[q:birthplace]',
    );
  });

  it('the W_q basis of the question only one item resolves has exactly that item', () => {
    const dirs = questionBasis(sc, sc.theta0, 'q:birthplace');
    expect(dirs.map((d) => d.evidence)).toEqual(['e04']);
    let n2 = 0;
    for (const v of dirs[0]!.vector) n2 += v * v;
    expect(Math.abs(n2 - 1)).toBeLessThan(8 * Number.EPSILON);
  });

  it('the certification’s question spaces are the W_q directions, sparse, with the same values', () => {
    const theta = sys.consolidate(sys.expand('e04', sc.theta0));
    const spaces = sys.capabilities.certification!.questionSpaces!(theta);
    expect(spaces.map((s) => s.name).sort()).toEqual(Object.keys(sys.questions).sort());
    for (const space of spaces) {
      const dense = questionBasis(sc, theta, space.name).map((d) => Array.from(d.vector));
      const vectors = 'vectors' in space ? space.vectors : [];
      expect(vectors.length).toBe(dense.length);
      vectors.forEach((v, k) => {
        const { index, value } = v as { index: Int32Array; value: Float64Array };
        const x = new Array<number>(theta.length).fill(0);
        index.forEach((i, t) => (x[i] = value[t]!));
        expect(x).toEqual(dense[k]);
        expect(index.every((i, t) => t === 0 || i > index[t - 1]!)).toBe(true);
      });
    }
  });

  it('the analytic bound of the default parameters certifies a contraction', () => {
    expect(sys.confidenceBound.modulus).toBeLessThan(1);
  });

  it('Algorithm 1 stops by the order-gap before the budget on the default scenario', () => {
    const run = runRecursive(sys, { ...sc.run, recordStates: false });
    expect(run.stop.reason).toBe('order-gap');
    expect(run.stop.step).toBeLessThan(sc.run.maxSteps);
  });
});
