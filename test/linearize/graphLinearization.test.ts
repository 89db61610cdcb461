import { coordinateArray } from '../../src/system/coordinates.js';
import { describe, expect, it } from 'vitest';
import { basisOf } from '../../src/certify/subspace.js';
import { Linearization, measureRedundancy, subspaceColumns } from '../../src/certify/commutator.js';

import { GraphConsolidateJacobian } from '../../src/graph/linearisation/consolidateJacobian.js';
import { GraphExpandJacobian } from '../../src/graph/linearisation/expandJacobian.js';
import { questionBasis, referenceGraphSystem } from '../../src/graph/system.js';
import { FD_RELATIVE_ACCURACY } from '../../src/linearize/operator.js';
import { FdJacobian } from '../../src/linearize/finiteDifference.js';
import { sparseCombine, sparseNorm } from '../../src/linearize/sparse.js';
import { extendSystem } from '../../src/system/define.js';
import { init, wasm } from '../../src/wasm/module.js';

/*
 * The two linearisations of the reference graph: the wasm engines (GraphConsolidateJacobian,
 * GraphExpandJacobian, on the wasm kernels) and the TypeScript path every operator written in
 * JavaScript takes (the generic central differences of src/linearize on the TypeScript Q and
 * P_e, with the declared footprints). The two forms of Q agree bit for bit
 * (test/graph/operators/forms.test.ts), but the engines and the generic path form the evaluated
 * points and quotients by different sequences of operations, so each output differs by at most
 * a few ulps — 16·eps·max(1, |f|) allowed — and a central quotient over 2h, h = eps^(1/3)·max(1, |x_j|), by at most
 * 16·eps·F/h = 16·eps^(2/3)·F: within 16 times the FD accuracy r = eps^(2/3) itself, F the
 * column's scale max(1, ‖col‖). Σ_e b = DQ L_e b − L_e DQ b (and DF_e b) multiplies two such
 * Jacobians with norms <= ~2 (‖DQ‖ <= 1.5, ‖DP_e‖ <= 1 on this scenario), so 4× that for the
 * commutator columns.
 */
const COLUMN_TOL = 16 * FD_RELATIVE_ACCURACY;
const SIGMA_TOL = 4 * COLUMN_TOL;

async function systems() {
  await init();
  const wasmSystem = referenceGraphSystem();
  const ts = referenceGraphSystem(wasmSystem.scenario, { backend: 'reference' });
  const footprint = ts.spec.linearization!.footprint!;
  // the TypeScript path: no system-specific engine, only the footprints
  const tsSystem = extendSystem(ts, { linearization: { footprint } });
  let theta: Float64Array = wasmSystem.scenario.theta0;
  for (const it of wasmSystem.scenario.items) theta = wasmSystem.consolidate(wasmSystem.expand(it.id, theta));
  theta = wasmSystem.consolidate(theta);
  return { wasmSystem, tsSystem, theta };
}

describe('the wasm linearisation of the reference graph equals the TypeScript one within the FD accuracy', () => {
  it('uses the wasm engines for the graph and the generic ones for the TypeScript path', async () => {
    const { wasmSystem, tsSystem, theta } = await systems();
    using a = new Linearization(wasmSystem, theta, { method: 'fd' });
    using b = new Linearization(tsSystem, theta, { method: 'fd' });
    const e = wasmSystem.scenario.items[0]!.id;
    expect(a.DQ).toBeInstanceOf(GraphConsolidateJacobian);
    expect(a.expand(e)).toBeInstanceOf(GraphExpandJacobian);
    expect(b.DQ).toBeInstanceOf(FdJacobian);
    expect(b.expand(e)).toBeInstanceOf(FdJacobian);
  });

  it('same DQ and DP_e columns, same Σ_e / DF_e columns on the certified subspaces and question bases', async () => {
    const { wasmSystem, tsSystem, theta } = await systems();
    const start = wasm().arena.bytesInUse;
    {
      using a = new Linearization(wasmSystem, theta, { method: 'fd' });
      using b = new Linearization(tsSystem, theta, { method: 'fd' });
      const pool = wasmSystem.evidenceAt(theta);
      const redA = measureRedundancy(a, pool);
      const redB = measureRedundancy(b, pool);
      expect(redA.map((r) => r.linearization)).toEqual(redB.map((r) => r.linearization));
      expect(redA.some((r) => r.linearization === 'exact')).toBe(true); // both kinds of column are compared
      const sc = wasmSystem.scenario;
      const specs = [
        { name: 'confidence', coordinates: coordinateArray(wasmSystem.subspaces['confidence']!) },
        { name: 'footprint', coordinates: coordinateArray(wasmSystem.subspaces['footprint']!) },
        ...Object.keys(wasmSystem.questions).map((q) => ({
          name: q,
          vectors: questionBasis(sc, theta, q).map((d) => d.vector),
        })),
      ];
      let compared = 0;
      for (const spec of specs) {
        const basis = basisOf(wasmSystem.dim, spec).vectors;
        for (const v of basis) {
          const qa = a.DQ.apply(v);
          const qb = b.DQ.apply(v);
          const scale = Math.max(1, sparseNorm(qb));
          expect(sparseNorm(sparseCombine(1, qa, -1, qb))).toBeLessThanOrEqual(COLUMN_TOL * scale);
        }
        const ca = subspaceColumns(a, basis, redA);
        const cb = subspaceColumns(b, basis, redB);
        ca.forEach((it, k) =>
          it.columns.forEach((col, j) => {
            const ref = cb[k]!.columns[j]!;
            const scale = Math.max(1, sparseNorm(ref));
            expect(sparseNorm(sparseCombine(1, col, -1, ref)), `${spec.name} ${it.evidence} ${j}`).toBeLessThanOrEqual(
              SIGMA_TOL * scale,
            );
            compared++;
          }),
        );
      }
      expect(compared).toBeGreaterThan(1000);
    }
    expect(wasm().arena.bytesInUse).toBe(start);
  });
});
