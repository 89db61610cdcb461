/**
 * src/certify/enclosure.ts: a system's interval form or tfjs form as an encloser of Q and P_e,
 * and the checks on an interval form's results.
 */
import { describe, expect, it } from 'vitest';
import { consolidateEncloser, enclosureSource, expandEncloser } from '../../src/certify/enclosure.js';
import { defineSystem } from '../../src/system/define.js';
import type { FormEnclosure, OperatorSystemSpec } from '../../src/system/types.js';

const base: OperatorSystemSpec = {
  name: 'pair',
  dim: 2,
  theta0: [0.5, 0.5],
  consolidate: (t) => [0.5 * t[0]!, t[1]!],
  expand: (_e, t) => [t[0]!, 0.5 * t[1]! + 0.25],
  evidence: [{ id: 'e', p: 1 }],
};
const point = (lo: Float64Array, hi: Float64Array, jac: FormEnclosure['jacobian'] = null): FormEnclosure => ({
  lo,
  hi,
  jacobian: jac,
});

describe('enclosers from a system', () => {
  it('prefers the interval form, then the tfjs form; none without either', () => {
    expect(enclosureSource(defineSystem(base))).toBeNull();
    expect(consolidateEncloser(defineSystem(base))).toBeNull();
    const tf = defineSystem({
      ...base,
      linearization: {
        consolidateTf: ((t: { mul: (a: unknown, b: number) => unknown }, X: unknown) => t.mul(X, 0.5)) as never,
      },
    });
    expect(enclosureSource(tf)).toBe('tfjs form');
    const e = consolidateEncloser(tf)!(Float64Array.of(1, 2), Float64Array.of(1, 2), Int32Array.of(0, 1));
    expect(e.lo[1]!).toBeLessThanOrEqual(1);
    expect(e.hi[1]!).toBeGreaterThanOrEqual(1);
    expect(e.jacobian!.lo[3]).toBe(0.5); // ∂(0.5·x₁)/∂x₁, a point
    expect(expandEncloser(tf, 'e')).toBeNull(); // no expandTf
  });

  it('refuses an interval form whose result has the wrong length or Jacobian shape, naming the form', () => {
    const bad = defineSystem({
      ...base,
      intervalForm: { consolidate: () => point(new Float64Array(1), new Float64Array(1)) },
    });
    expect(enclosureSource(bad)).toBe('interval form');
    expect(() => consolidateEncloser(bad)!(new Float64Array(2), new Float64Array(2), null)).toThrow(
      /^pair: intervalForm\.consolidate = .*must return \{ lo, hi \} as Float64Arrays of length 2/,
    );
    const noJacobian = defineSystem({
      ...base,
      intervalForm: { consolidate: (lo, hi) => point(lo, hi) },
    });
    expect(() => consolidateEncloser(noJacobian)!(new Float64Array(2), new Float64Array(2), Int32Array.of(0))).toThrow(
      /^pair: intervalForm\.consolidate\.jacobian = null: must be 2×1 \(rows × seeds\)/,
    );
    // an interval form without expand encloses no P_e
    expect(expandEncloser(noJacobian, 'e')).toBeNull();
  });
});
