import { describe, expect, it } from 'vitest';
import { GraphExpandJacobian } from '../../../src/graph/linearisation/expandJacobian.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { referenceExpand } from '../../../src/graph/operators/expand.js';
import { FdJacobian } from '../../../src/linearize/finiteDifference.js';
import { sparseFromDense, toDense } from '../../../src/linearize/sparse.js';
import { expandJacobian } from '../../../src/linearize/systemJacobians.js';
import { init, wasm } from '../../../src/wasm/module.js';

describe('GraphExpandJacobian (wasm blend on the footprint)', () => {
  it('is bit for bit the generic engine on the full P_e, on and off the footprint, and frees its blocks', async () => {
    await init();
    const sys = referenceGraphSystem();
    const { scenario } = sys;
    let theta: Float64Array = scenario.theta0;
    for (const it of scenario.items.slice(0, 3)) theta = sys.consolidate(sys.expand(it.id, theta));
    const start = wasm().arena.bytesInUse;
    for (const item of scenario.items) {
      const generic = new FdJacobian((t) => referenceExpand(item, t), theta, { readSet: item.footprint });
      using J = new GraphExpandJacobian(item, sys.dim, theta);
      const cols = [...Array.from(item.footprint), 0, sys.dim - 1];
      for (const j of cols) expect(J.column(j)).toEqual(generic.column(j));
      // DP_e = blockdiag(I − diag(rates), I): the analytic Jacobian within FD accuracy
      for (let k = 0; k < item.footprint.length; k++) {
        const col = toDense(J.column(item.footprint[k]!));
        expect(Math.abs(col[item.footprint[k]!]! - (1 - item.rates[k]!))).toBeLessThan(1e-9);
      }
      const v = sparseFromDense(
        Float64Array.from(theta, (_, i) => (i % 11 === 0 || item.footprint.includes(i) ? 0.5 : 0)),
      );
      const a = toDense(J.apply(v));
      const b = toDense(generic.apply(v));
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(1e-9);
    }
    expect(wasm().arena.bytesInUse).toBe(start);
  });

  it('is what the certification gets for the reference graph once init() has run', async () => {
    await init();
    const sys = referenceGraphSystem();
    const J = expandJacobian(sys, sys.scenario.items[0]!.id, sys.scenario.theta0, { method: 'fd' });
    expect(J).toBeInstanceOf(GraphExpandJacobian);
    J.release?.();
  });
});
