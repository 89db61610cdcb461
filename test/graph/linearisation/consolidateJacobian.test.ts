import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GRAPH as graphBackends } from '../../util/backends.js';
import { consolidatedState } from './fixtures.js';
import { centralStep, directionalStep, takenStep } from '../../../src/linearize/finiteDifference.js';
import { GraphConsolidateJacobian } from '../../../src/graph/linearisation/consolidateJacobian.js';
import { WasmConsolidation } from '../../../src/graph/operators/wasmConsolidate.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { referenceConsolidate } from '../../../src/graph/operators/consolidate.js';
import { FD_RELATIVE_ACCURACY } from '../../../src/linearize/operator.js';
import { FdJacobian } from '../../../src/linearize/finiteDifference.js';
import {
  sparseCombine,
  sparseFromDense,
  sparseNorm,
  toDense,
  type SparseVector,
} from '../../../src/linearize/sparse.js';
import { F64Block } from '../../../src/wasm/arena.js';
import { init, wasm } from '../../../src/wasm/module.js';
import { coordinateArray } from '../../../src/system/coordinates.js';

/** Column j as the quotient of two full evaluations of the wasm Q (both edge passes, dense). */
function fullQuotient(sys: Awaited<ReturnType<typeof consolidatedState>>['sys'], x: Float64Array, j: number) {
  const { shape, params } = sys.scenario;
  const h = centralStep(x[j]!);
  const xp = Float64Array.from(x);
  const xm = Float64Array.from(x);
  xp[j] = x[j]! + h;
  xm[j] = x[j]! - h;
  const fp = graphBackends.wasm.consolidate(shape, params, xp);
  const fm = graphBackends.wasm.consolidate(shape, params, xm);
  const den = xp[j]! - xm[j]!;
  const index: number[] = [];
  const value: number[] = [];
  for (let i = 0; i < fp.length; i++)
    if (fp[i] !== fm[i]) {
      index.push(i);
      value.push((fp[i]! - fm[i]!) / den);
    }
  return { dim: x.length, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/**
 * J v as the quotient of two full evaluations of the wasm Q (dense edge passes, every claim
 * merged) at x ± t·v: the node block's non-zero quotients, then v's edge entries (Q copies them).
 */
function fullDirectional(sys: Awaited<ReturnType<typeof consolidatedState>>['sys'], x: Float64Array, v: SparseVector) {
  const { shape, params } = sys.scenario;
  const t = directionalStep(x, v);
  const [fp, fm] = [t, -t].map((s) => {
    const y = Float64Array.from(x);
    for (let k = 0; k < v.index.length; k++) y[v.index[k]!] = x[v.index[k]!]! + s * v.value[k]!;
    return graphBackends.wasm.consolidate(shape, params, y);
  }) as [Float64Array, Float64Array];
  const den = takenStep(x, v, t);
  const index: number[] = [];
  const value: number[] = [];
  for (let i = 0; i < shape.edgeOffset; i++) {
    const q = (fp[i]! - fm[i]!) / den;
    if (q !== 0) {
      index.push(i);
      value.push(q);
    }
  }
  for (let k = 0; k < v.index.length; k++)
    if (v.index[k]! >= shape.edgeOffset && v.value[k] !== 0) {
      index.push(v.index[k]!);
      value.push(v.value[k]!);
    }
  return { dim: x.length, index: Int32Array.from(index), value: Float64Array.from(value) };
}

describe('GraphConsolidateJacobian: only the stages a coordinate can change', () => {
  it('every kind of column is bit for bit the quotient of two full wasm evaluations', async () => {
    const { sys, theta } = await consolidatedState();
    const { shape, layout } = sys.scenario;
    const n = shape.nmax;
    const nn = n * n;
    const eoff = shape.edgeOffset;
    // confidences, claim attributes (merge), answer/question attributes (identity), and edge
    // entries of each block: non-zero ones, zero ones, the Supports diagonal (merge gate)
    const k1 = shape.k + 1;
    const cols = new Set<number>([
      ...coordinateArray(sys.subspaces['confidence']!),
      ...coordinateArray(sys.subspaces['footprint']!),
      ...Array.from({ length: k1 }, (_, u) => (shape.claims - 1) * k1 + u),
      ...Array.from({ length: k1 }, (_, u) => shape.firstQuestion * k1 + u),
    ]);
    for (let b = 0; b < 3; b++) {
      let nonzero = 0;
      for (let e = 0; e < nn && nonzero < 6; e++)
        if (theta[eoff + b * nn + e] !== 0) {
          cols.add(eoff + b * nn + e);
          nonzero++;
        }
      for (const e of [0, 1, n + 3, nn - 1]) cols.add(eoff + b * nn + e);
    }
    for (let s = 0; s < n; s += 3) cols.add(eoff + s * n + s); // Supports diagonal
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    for (const j of cols) expect(J.column(j), `column ${j} (${layout.dim})`).toEqual(fullQuotient(sys, theta, j));
  });

  it('attribute columns re-merge only the claims near the shifted one, bit for bit the full merge', async () => {
    const { sys, theta: base } = await consolidatedState();
    const { shape, params } = sys.scenario;
    expect(params.mergeRate).toBeGreaterThan(0);
    const k1 = shape.k + 1;
    const n = shape.nmax;
    const theta = Float64Array.from(base);
    // three present claims (gates S_ii > 0) within the merge radius of each other, one far away
    const slots = [shape.claims - 1, shape.claims - 2, shape.claims - 3, shape.claims - 4];
    slots.forEach((s, i) => {
      theta[shape.edgeOffset + s * n + s] = 0.8;
      for (let t = 0; t < shape.k; t++)
        theta[s * k1 + t] = i === 3 ? 5 + t : 0.3 + 0.01 * i * params.mergeRadius + 0.001 * t;
    });
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    let merged = 0;
    for (const s of slots)
      for (let t = 0; t < k1; t++) {
        const col = J.column(s * k1 + t);
        expect(col).toEqual(fullQuotient(sys, theta, s * k1 + t));
        if (col.index.length > 1) merged++;
      }
    expect(merged).toBeGreaterThanOrEqual(3 * shape.mergeDims); // the merge path was exercised
    // and the Supports diagonal of a merging claim (gate of the merge) through the edge path
    const diag = shape.edgeOffset + slots[0]! * n + slots[0]!;
    expect(J.column(diag)).toEqual(fullQuotient(sys, theta, diag));
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.double({ min: 0.05, max: 0.95, noNaN: true })], {
    numRuns: 40,
  })('random columns at a state with random extra edges agree bit for bit', async (seed, w) => {
    const { sys, theta: base } = await consolidatedState();
    const { shape } = sys.scenario;
    const n = shape.nmax;
    const theta = Float64Array.from(base);
    // plant a few extra edges (any block) so rows with several entries and overrides inside a row occur
    let r = seed;
    const next = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) % (3 * n * n);
    for (let t = 0; t < 8; t++) theta[shape.edgeOffset + next()] = w;
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    for (let t = 0; t < 6; t++) {
      const j = t % 2 === 0 ? shape.edgeOffset + next() : next() % shape.edgeOffset;
      expect(J.column(j)).toEqual(fullQuotient(sys, theta, j));
    }
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.boolean()], { numRuns: 30 })(
    'a long direction (one directional difference) is bit for bit the quotient of two full wasm evaluations',
    async (seed, nearby) => {
      const { sys, theta: base } = await consolidatedState();
      const { shape, params } = sys.scenario;
      const n = shape.nmax;
      const k1 = shape.k + 1;
      const theta = Float64Array.from(base);
      let r = seed;
      const next = (m: number) => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) % m;
      if (nearby)
        // claims within the merge radius of each other, so the merge rows of a moved claim matter
        for (let c = 0; c < 4; c++) {
          const s = shape.claims - 1 - c;
          theta[shape.edgeOffset + s * n + s] = 0.8;
          for (let t = 0; t < shape.k; t++) theta[s * k1 + t] = 0.3 + 0.2 * c * params.mergeRadius + 0.001 * t;
        }
      // a long direction: node entries (confidences, attributes of any slot), edge entries where
      // θ has an edge and where it has none, and Supports diagonals (the merge's gate)
      const dense = new Float64Array(theta.length);
      const amp = () => 1e-3 * (next(2001) / 1000 - 1);
      for (let t = 0; t < 100; t++) dense[next(shape.edgeOffset)] = amp();
      for (let t = 0; t < 30; t++) dense[shape.edgeOffset + next(3 * n * n)] = amp();
      for (let t = 0; t < 4; t++) {
        const s = next(shape.claims);
        dense[shape.edgeOffset + s * n + s] = amp();
      }
      const nz: number[] = [];
      for (let i = shape.edgeOffset; i < theta.length; i++) if (theta[i] !== 0) nz.push(i);
      for (let t = 0; t < 6 && nz.length; t++) dense[nz[next(nz.length)]!] = amp();
      const v = sparseFromDense(dense);
      using J = new GraphConsolidateJacobian(sys.scenario, theta);
      expect(v.index.length).toBeGreaterThan(64); // the directional path
      const before = Float64Array.from(theta);
      expect(J.apply(v)).toEqual(fullDirectional(sys, theta, v));
      expect(J.stats.directional).toBe(1);
      // the direction moved edges θ does not have: the columns still pass over θ's non-zeros only
      let edges = 0;
      for (let i = shape.edgeOffset; i < theta.length; i++) if (theta[i] !== 0) edges++;
      expect(J.columnEdgeEntries).toBe(edges);
      // the resident blocks are back at θ: columns after the difference are still exact
      const j = next(shape.edgeOffset);
      expect(J.column(j)).toEqual(fullQuotient(sys, before, j));
      expect(J.apply(v)).toEqual(fullDirectional(sys, theta, v));
      // the same entries with other values (a power iteration's next step): positions reused
      const w = { dim: v.dim, index: Int32Array.from(v.index), value: v.value.map((x, k) => x * (1 + (k % 3))) };
      expect(J.apply(w)).toEqual(fullDirectional(sys, theta, w));
      expect(J.stats.directional).toBe(3);
    },
  );

  it('a direction along every coordinate or along Nmax² edges (the whole-space power steps: the dense passes) is bit for bit the full quotient', async () => {
    const { sys, theta } = await consolidatedState();
    let r = 12345;
    const next = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
    const value = Float64Array.from({ length: theta.length }, () => next() || 0.25);
    const v = { dim: theta.length, index: Int32Array.from({ length: theta.length }, (_, i) => i), value };
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    expect(J.apply(v)).toEqual(fullDirectional(sys, theta, v));
    // the next power step: the same entries, other values
    const w = { ...v, value: value.map((x, k) => x * (1 + (k % 5))) };
    expect(J.apply(w)).toEqual(fullDirectional(sys, theta, w));
    // Nmax² edge entries, the fewest the dense passes take, at random places, and every third
    // node entry: a power step whose image has exact zeros
    const { nmax: n } = sys.scenario.shape;
    const edgeOffset = sys.scenario.shape.edgeOffset;
    const picked = new Float64Array(theta.length);
    for (let i = 0; i < edgeOffset; i += 3) picked[i] = next() || 0.5;
    let edges = 0;
    while (edges < n * n) {
      const j = edgeOffset + Math.floor((next() + 0.5) * 3 * n * n);
      if (picked[j] === 0) {
        picked[j] = next() || 0.5;
        edges++;
      }
    }
    const u = sparseFromDense(picked);
    expect(J.apply(u)).toEqual(fullDirectional(sys, theta, u));
    expect(J.stats.directional).toBe(3);
  });
});

describe('GraphConsolidateJacobian.applyDense: a direction along every coordinate without sparse vectors', () => {
  test.prop([fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.double({ min: 0, max: 0.9, noNaN: true })], { numRuns: 12 })(
    'is apply on the non-zeros, densified, bit for bit, whatever share of v is zero',
    async (seed, zeros) => {
      const { sys, theta } = await consolidatedState();
      let r = seed;
      const next = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const v = Float64Array.from(theta, () => (next() < zeros ? 0 : next() - 0.5));
      const sparse = sparseFromDense(v);
      using J = new GraphConsolidateJacobian(sys.scenario, theta);
      using K = new GraphConsolidateJacobian(sys.scenario, theta);
      const dense = J.applyDense(v);
      expect(Array.from(dense)).toEqual(Array.from(toDense(K.apply(sparse))));
      if (sparse.index.length > 64)
        expect(toDense(K.apply(sparse))).toEqual(toDense(fullDirectional(sys, theta, sparse)));
      expect(J.stats.directional).toBe(1);
      expect(J.stats.evaluations).toBe(2);
      expect(() => J.applyDense(v.subarray(1))).toThrow(/^v = .*must have length/);
      // into a given array: every entry written (it held garbage), the same values
      const out = new Float64Array(v.length).fill(Math.PI);
      expect(J.applyDense(v, out)).toBe(out);
      expect(Array.from(out)).toEqual(Array.from(dense));
      expect(() => J.applyDense(v, v)).toThrow(/^out = .*must not overlap v/);
      expect(() => J.applyDense(v, out.subarray(1))).toThrow(/^out = .*must have length/);
    },
  );
});

describe('GraphConsolidateJacobian.near: DQ at a nearby point from the operator at θ', () => {
  /** θ's change at a few node and edge coordinates (edges θ has and lacks, set to values, 0 and −0), ascending. */
  function change(theta: Float64Array, nodeLen: number, seed: number) {
    let r = seed;
    const next = (m: number) => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) % m;
    const at = new Map<number, number>();
    const values = [0.37, 0, -0, 1e-3, 0.9];
    for (let t = 0; t < 6; t++) at.set(next(nodeLen), 0.1 + next(1000) / 1000);
    for (let t = 0; t < 10; t++) at.set(nodeLen + next(theta.length - nodeLen), values[next(values.length)]!);
    const nz: number[] = [];
    for (let i = nodeLen; i < theta.length; i++) if (theta[i] !== 0) nz.push(i);
    for (let t = 0; t < 4 && nz.length; t++) at.set(nz[next(nz.length)]!, values[next(values.length)]!);
    const index = Int32Array.from([...at.keys()].sort((a, b) => a - b));
    const value = Float64Array.from(index, (j) => at.get(j)!);
    const dense = Float64Array.from(theta);
    index.forEach((j, k) => (dense[j] = value[k]!));
    return { index, value, dense };
  }

  test.prop([fc.integer({ min: 0, max: 2 ** 31 - 1 })], { numRuns: 12 })(
    'is the operator at the dense point, bit for bit: columns, long directions, stored edges, and near of near',
    async (seed) => {
      const { sys, theta } = await consolidatedState();
      const { shape } = sys.scenario;
      const nodeLen = shape.edgeOffset;
      using J = new GraphConsolidateJacobian(sys.scenario, theta);
      const a = change(theta, nodeLen, seed);
      const b = change(a.dense, nodeLen, seed ^ 0x5bd1e995);
      using N = J.near(a.index, a.value);
      using NN = N.near(b.index, b.value);
      for (const [near, dense] of [
        [N, a.dense],
        [NN, b.dense],
      ] as const) {
        using D = new GraphConsolidateJacobian(sys.scenario, dense);
        expect(near.columnEdgeEntries).toBe(D.columnEdgeEntries);
        const cols = [...a.index, ...b.index, 0, nodeLen - 1, nodeLen, dense.length - 1];
        for (const j of cols) expect(near.column(j), `column ${j}`).toEqual(D.column(j));
        // a long direction (directional difference) moving changed and unchanged coordinates
        const v = sparseFromDense(
          Float64Array.from(dense, (_, i) => (i % 11 === 0 || a.index.includes(i) ? 1e-3 * Math.cos(i) : 0)),
        );
        expect(v.index.length).toBeGreaterThan(64);
        const got = near.apply(v);
        expect(near.stats.directional).toBe(1);
        expect(got).toEqual(fullDirectional(sys, dense, v));
        expect(got).toEqual(D.apply(v));
      }
      // J itself is untouched
      const j = a.index[0]!;
      expect(J.column(j)).toEqual(fullQuotient(sys, theta, j));
    },
  );

  it('names a change it cannot hold', async () => {
    const { sys, theta } = await consolidatedState();
    using J = new GraphConsolidateJacobian(sys.scenario, theta);
    expect(() => J.near(Int32Array.of(3, 2), Float64Array.of(0, 0))).toThrow(/index\[1\]/);
    expect(() => J.near(Int32Array.of(theta.length), Float64Array.of(0))).toThrow(/index\[0\]/);
    expect(() => J.near(Int32Array.of(5), Float64Array.of(NaN))).toThrow(/x\[5\].*finite/);
    expect(() => J.near(Int32Array.of(5), Float64Array.of())).toThrow(/value/);
  });
});

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

    it('an exception mid-way through a column frees the blocks and leaves no coordinate shifted', async () => {
      const { sys, theta, start } = await setup();
      const { shape } = sys.scenario;
      const conf = coordinateArray(sys.subspaces['confidence']!)[2]!;
      const attr = 0; // the first attribute of claim slot 0: the merge path
      const fresh = new GraphConsolidateJacobian(sys.scenario, theta);
      const expected = [fresh.column(conf), fresh.column(attr)];
      fresh.release();
      expect(shape.claims).toBeGreaterThan(0);
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      J.column(coordinateArray(sys.subspaces['confidence']!)[0]!); // the resident blocks exist
      // a column shifts its coordinate through a block's view, evaluates, shifts back: fail the
      // second view access of the column (the coordinate is at x_j + h then)
      const proto = Object.getPrototypeOf(F64Block.prototype) as { view: Float64Array }; // ArenaBlock
      for (const [j, want] of [
        [conf, expected[0]],
        [attr, expected[1]],
      ] as const) {
        const get = Object.getOwnPropertyDescriptor(proto, 'view')!.get!;
        let calls = 0;
        vi.spyOn(proto, 'view', 'get').mockImplementation(function (this: unknown) {
          if (++calls === 2) throw new Error('injected failure');
          return get.call(this) as Float64Array;
        });
        expect(() => J.column(j)).toThrow('injected failure');
        vi.restoreAllMocks();
        expect(wasm().arena.bytesInUse).toBe(start);
        expect(J.column(j)).toEqual(want); // re-created from x: no shifted coordinate left behind
      }
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

    it('an exception in the dense passes of a long direction frees the blocks and leaves x as it was', async () => {
      const { sys, theta, start } = await setup();
      // every coordinate moves: the dense passes on x held whole in wasm
      const v = sparseFromDense(Float64Array.from(theta, (_, i) => 1e-3 * Math.cos(i) || 1e-3));
      expect(v.index.length).toBe(theta.length);
      const fresh = new GraphConsolidateJacobian(sys.scenario, theta);
      const expected = fresh.apply(v);
      fresh.release();
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      failAllocation(2); // while x is uploaded whole
      expect(() => J.apply(v)).toThrow('injected allocation failure');
      expect(wasm().arena.bytesInUse).toBe(start);
      vi.restoreAllMocks();
      // the second evaluation (x − t·v) throws, after the first wrote v into x and put it back
      const consolidate = WasmConsolidation.prototype.consolidateNodes;
      let calls = 0;
      vi.spyOn(WasmConsolidation.prototype, 'consolidateNodes').mockImplementation(function (
        this: WasmConsolidation,
        ...a
      ) {
        if (++calls === 2) throw new Error('injected failure in the passes');
        return consolidate.apply(this, a);
      });
      expect(() => J.apply(v)).toThrow('injected failure in the passes');
      expect(wasm().arena.bytesInUse).toBe(start);
      vi.restoreAllMocks();
      expect(J.apply(v)).toEqual(expected);
      expect(J.column(0)).toEqual(fullQuotient({ scenario: sys.scenario } as never, theta, 0));
      J.release();
      expect(wasm().arena.bytesInUse).toBe(start);
    });

    it('an exception while creating the blocks leaves nothing allocated', async () => {
      const { sys, theta, start } = await setup();
      const J = new GraphConsolidateJacobian(sys.scenario, theta);
      for (const n of [1, 2, 5, 12]) {
        failAllocation(n); // the n-th of the resident blocks fails: the earlier ones are freed
        expect(() => J.column(0)).toThrow('injected allocation failure');
        expect(wasm().arena.bytesInUse).toBe(start);
        vi.restoreAllMocks();
      }
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
