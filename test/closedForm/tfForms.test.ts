import { beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { Decimal } from 'decimal.js';
import { certify } from '../../src/certify/certify.js';
import { SEC92, closedFormSystem } from '../../src/closedForm/system.js';
import { encloseForm } from '../../src/interval/intervalTf.js';
import { loadTf } from '../../src/linearize/autodiff.js';
import { consolidateJacobian, expandJacobian } from '../../src/linearize/systemJacobians.js';
import { toDense } from '../../src/linearize/sparse.js';
import type { Tf } from '../../src/system/types.js';
import { X, ex } from '../interval/oracle.js';

let tf: Tf;
beforeAll(async () => {
  tf = (await loadTf()).tf;
});

const system = closedFormSystem();
const rho = SEC92.rho;
/**
 * Float32 accuracy of an entry of DQ or DP_e (entries of magnitude <= 1, built from c, u, ρ, α
 * in [0, 1]): the inputs and ρ, α are rounded to float32 (2⁻²⁴ relative each), 1 − c, one or two
 * products and the double-VJP's sums of at most two terms round once each: fewer than 8 roundings
 * of 2⁻²⁴ of numbers <= 1.
 */
const F32 = 8 * 2 ** -24;

/** The Jacobian of the engine at x as rows of a 2×2 matrix. */
function dense(J: { column(j: number): Parameters<typeof toDense>[0] }): number[][] {
  const c0 = toDense(J.column(0));
  const c1 = toDense(J.column(1));
  return [
    [c0[0]!, c1[0]!],
    [c0[1]!, c1[1]!],
  ];
}

function expectClose(got: number[][], want: number[][], what: string): void {
  for (let i = 0; i < 2; i++)
    for (let j = 0; j < 2; j++)
      expect(Math.abs(got[i]![j]! - want[i]![j]!), `${what}[${i}][${j}]`).toBeLessThanOrEqual(F32);
}

const unit = fc.double({ min: 0, max: 1, noNaN: true });

describe('tfjs forms of the closed-form system (Sec. 9), for autodiff and interval enclosures', () => {
  it('are declared, and equal Q and P_e on a batch of states within float32 accuracy', () => {
    const lin = system.capabilities.linearization!;
    const states = [
      [0.2, 0.8],
      [0, 1],
      [1, 0.5],
      [0.718, 0.3],
    ];
    const X = tf.tensor2d(states.flat(), [states.length, 2]);
    const check = (out: { dataSync(): ArrayLike<number>; dispose(): void }, f: (t: Float64Array) => Float64Array) => {
      const got = out.dataSync();
      states.forEach((s, r) => {
        const want = f(Float64Array.from(s));
        for (let j = 0; j < 2; j++) expect(Math.abs(got[r * 2 + j]! - want[j]!)).toBeLessThanOrEqual(F32);
      });
      out.dispose();
    };
    check(lin.consolidateTf!(tf, X), (t) => system.consolidate(t));
    for (const id of SEC92.sequence) check(lin.expandTf!(tf, id, X), (t) => system.expand(id, t));
    X.dispose();
    expect(() => lin.expandTf!(tf, 'e9', X)).toThrow(/^id = "e9"/);
  });

  test.prop([unit, unit], { numRuns: 20 })(
    'the autodiff DQ is [[1, 0], [−ρu, ρ(1 − c)]] and DP_e is [[1 − α_e, 0], [0, 1]]',
    (c, u) => {
      const x = Float64Array.of(c, u);
      const DQ = consolidateJacobian(system, x, { method: 'autodiff', tf });
      expectClose(
        dense(DQ),
        [
          [1, 0],
          [-rho * u, rho * (1 - c)],
        ],
        `DQ at (${c}, ${u})`,
      );
      SEC92.sequence.forEach((id, i) => {
        const DP = expandJacobian(system, id, x, { method: 'autodiff', tf });
        expectClose(
          dense(DP),
          [
            [1 - SEC92.alphas[i]!, 0],
            [0, 1],
          ],
          `DP_${id}`,
        );
      });
    },
  );

  test.prop([unit, unit, fc.double({ min: 0, max: 0.2, noNaN: true })], { numRuns: 20 })(
    'their interval evaluation (encloseForm) encloses Q and DQ over a box, exactly compared',
    (c, u, h) => {
      const lo = Float64Array.of(Math.max(0, c - h), Math.max(0, u - h));
      const hi = Float64Array.of(Math.min(1, c + h), Math.min(1, u + h));
      const r = encloseForm(system.capabilities.linearization!.consolidateTf!, lo, hi, { seeds: [0, 1] });
      const J = r.jacobian!;
      const inside = (v: Decimal, l: number, h: number): boolean => ex(l).lte(v) && v.lte(ex(h));
      const rhoD = ex(rho);
      for (const cc of [lo[0]!, hi[0]!])
        for (const uu of [lo[1]!, hi[1]!]) {
          // Q = (c, ρ(1 − c)u), DQ = [[1, 0], [−ρu, ρ(1 − c)]] at the corners, in exact decimal
          const oneMinusC = X.sub(1, ex(cc));
          expect(inside(ex(cc), r.lo[0]!, r.hi[0]!)).toBe(true);
          expect(inside(X.mul(X.mul(rhoD, oneMinusC), ex(uu)), r.lo[1]!, r.hi[1]!)).toBe(true);
          const entries = [new X(1), new X(0), X.mul(rhoD, ex(uu)).neg(), X.mul(rhoD, oneMinusC)];
          entries.forEach((v, k) => expect(inside(v, J.lo[k]!, J.hi[k]!), `DQ entry ${k}`).toBe(true));
        }
    },
  );

  it('certify runs with autodiff Jacobians and decides as with central differences', async () => {
    const fd = await certify(system);
    const ad = await certify(system, { jacobian: 'autodiff' });
    expect(ad.jacobian.method).toBe('autodiff');
    expect(fd.jacobian.crossCheck!.agree).toBe(true); // FD against the tfjs form of Q
    expect(ad.contraction[0]!.contractive).toBe(fd.contraction[0]!.contractive);
    expect(ad.subspaces.map((s) => [s.name, s.nonDegenerate, s.kernelDim])).toEqual(
      fd.subspaces.map((s) => [s.name, s.nonDegenerate, s.kernelDim]),
    );
  });
});
