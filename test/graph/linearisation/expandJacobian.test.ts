import { describe, expect, it } from 'vitest';
import { GraphExpandJacobian } from '../../../src/graph/linearisation/expandJacobian.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { ENTRY_CONFIDENCE, expandWriteSet, referenceExpand } from '../../../src/graph/operators/expand.js';
import { centralStep, FdJacobian } from '../../../src/linearize/finiteDifference.js';
import { sparseFromDense, toDense, unitVector } from '../../../src/linearize/sparse.js';
import { expandJacobian } from '../../../src/linearize/systemJacobians.js';
import { init, wasm } from '../../../src/wasm/module.js';

describe('GraphExpandJacobian (wasm P_e on its write set)', () => {
  it('is bit for bit the generic engine on the full P_e, on and off the write set, and frees its blocks', async () => {
    await init();
    const sys = referenceGraphSystem();
    const { scenario } = sys;
    // θ0, where the items' claims are absent (c = 0 < c₀: the entry confidence acts), and a state
    // after three steps
    let theta: Float64Array = scenario.theta0;
    const states = [theta];
    for (const it of scenario.items.slice(0, 3)) theta = sys.consolidate(sys.expand(it.id, theta));
    states.push(theta);
    const start = wasm().arena.bytesInUse;
    for (const x of states)
      for (const item of scenario.items) {
        const write = expandWriteSet(item);
        const generic = new FdJacobian((t) => referenceExpand(item, t), x, { readSet: write });
        using J = new GraphExpandJacobian(item, sys.dim, x);
        const cols = [...write, 0, sys.dim - 1];
        for (const j of cols) expect(J.column(j)).toEqual(generic.column(j));
        // DP_e = diag(1 − rates) on F_e, 1 − (1 − c/c₀)²₊ on the entry coordinates, I elsewhere:
        // the analytic Jacobian within FD accuracy
        for (let k = 0; k < item.footprint.length; k++) {
          const col = toDense(J.column(item.footprint[k]!));
          expect(Math.abs(col[item.footprint[k]!]! - (1 - item.rates[k]!))).toBeLessThan(1e-9);
        }
        for (const j of item.entry) {
          const u = Math.max(0, 1 - x[j]! / ENTRY_CONFIDENCE);
          // the central difference of the cubic c + (c₀/3)u³ is off by exactly h²/(3c₀²) (its
          // third derivative −2/c₀² times h²/6), large where the step h is not small against c₀
          const h = centralStep(x[j]!);
          const fdError = (h * h) / (3 * ENTRY_CONFIDENCE ** 2);
          expect(Math.abs(toDense(J.column(j))[j]! - (1 - u * u))).toBeLessThan(fdError + 1e-9);
        }
        const v = sparseFromDense(Float64Array.from(x, (_, i) => (i % 11 === 0 || write.includes(i) ? 0.5 : 0)));
        const a = toDense(J.apply(v));
        const b = toDense(generic.apply(v));
        for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(1e-9);
      }
    expect(wasm().arena.bytesInUse).toBe(start);
  });

  it('declares F_e and the entry coordinates as what P_e reads and writes', () => {
    const sys = referenceGraphSystem();
    const item = sys.scenario.items[0]!;
    expect(item.entry.length).toBeGreaterThan(0);
    expect(sys.capabilities.linearization!.footprint!(item.id)).toEqual(expandWriteSet(item));
    // the certification's `footprint` subspace stays the union of the blend footprints
    const union = new Set(sys.scenario.items.flatMap((it) => Array.from(it.footprint)));
    expect(sys.subspaces['footprint']).toEqual([...union].sort((a, b) => a - b));
  });

  it('is what the certification gets for the reference graph once init() has run', async () => {
    await init();
    const sys = referenceGraphSystem();
    const J = expandJacobian(sys, sys.scenario.items[0]!.id, sys.scenario.theta0, { method: 'fd' });
    expect(J).toBeInstanceOf(GraphExpandJacobian);
    J.release?.();
  });

  it('rejects a non-finite x on W_e naming the coordinate; off W_e the columns are e_j whatever x holds', async () => {
    await init();
    const sys = referenceGraphSystem();
    const item = sys.scenario.items[0]!;
    const write = expandWriteSet(item);
    const inW = write[write.length >> 1]!;
    for (const bad of [NaN, Infinity, -Infinity]) {
      const x = Float64Array.from(sys.scenario.theta0);
      x[inW] = bad;
      expect(() => new GraphExpandJacobian(item, sys.dim, x)).toThrow(`x[${inW}]`);
    }
    const inWSet = new Set(write);
    let off = 0;
    while (inWSet.has(off)) off++;
    const x = Float64Array.from(sys.scenario.theta0);
    x[off] = NaN;
    using J = new GraphExpandJacobian(item, sys.dim, x);
    expect(toDense(J.column(off))).toEqual(toDense(unitVector(sys.dim, off)));
    // and on W_e the columns are those at the finite state, bit for bit
    using K = new GraphExpandJacobian(item, sys.dim, sys.scenario.theta0);
    for (const j of write) expect(J.column(j)).toEqual(K.column(j));
  });
});
