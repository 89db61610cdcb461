import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { FD_RELATIVE_ACCURACY } from '../../src/linearize/operator.js';
import { FdJacobian, jacobianCentral, jvpCentral } from '../../src/linearize/finiteDifference.js';
import { sparseFromDense, toDense, unitVector } from '../../src/linearize/sparse.js';
import { ArgumentError } from '../../src/util/errors.js';

/** A smooth test map R^3 -> R^3 and its analytic Jacobian. */
function f(x: Float64Array): Float64Array {
  return Float64Array.of(Math.sin(x[0]!) * x[1]!, Math.exp(0.5 * x[1]!) + x[2]! * x[2]!, Math.tanh(x[0]! + 2 * x[2]!));
}
function jac(x: Float64Array): number[][] {
  const s = 1 - Math.tanh(x[0]! + 2 * x[2]!) ** 2;
  return [
    [Math.cos(x[0]!) * x[1]!, Math.sin(x[0]!), 0],
    [0, 0.5 * Math.exp(0.5 * x[1]!), 2 * x[2]!],
    [s, 0, 2 * s],
  ];
}
const matvec = (A: number[][], v: ArrayLike<number>): number[] => A.map((r) => r.reduce((s, a, j) => s + a * v[j]!, 0));
const norm = (v: ArrayLike<number>): number => Math.sqrt(Array.from(v).reduce((s, a) => s + a * a, 0));

/*
 * Tolerance for f on the box [-2, 2]^3: the third derivatives of f are bounded by M = 20
 * (8·e^{1}/8 for exp(x/2)... and 16·max|tanh'''| <= 16·2 for tanh(x0 + 2 x2) along unit
 * directions — 32 covers every term), so the truncation error of a central difference with
 * step t along v is <= t²/6·32·‖v‖³ and t = eps^(1/3)·xmax/‖v‖_∞ with xmax <= 2; the rounding
 * error is <= eps·‖f‖·/t. Both are eps^(2/3) times a factor below 32·4·3/6 + 8 < 100 for
 * ‖v‖ <= sqrt(3)·‖v‖_∞ and ‖f‖ <= 4. We allow 100·eps^(2/3)·‖v‖.
 */
const box = fc.float({ min: -2, max: 2, noNaN: true });
const dir = fc.float({ min: -1, max: 1, noNaN: true });

describe('jvpCentral', () => {
  test.prop([fc.tuple(box, box, box), fc.tuple(dir, dir, dir)])('matches the analytic Jacobian', (xs, vs) => {
    const x = Float64Array.from(xs);
    const v = Float64Array.from(vs);
    const r = jvpCentral(f, x, v, { refine: true });
    const exact = matvec(jac(x), v);
    const err = norm(r.value.map((a, i) => a - exact[i]!));
    expect(err).toBeLessThanOrEqual(100 * FD_RELATIVE_ACCURACY * Math.max(norm(v), 1e-300));
    // the refinement estimate bounds the true error up to the same O(eps^(2/3)) slack
    expect(err).toBeLessThanOrEqual(10 * r.errorEstimate! + 100 * FD_RELATIVE_ACCURACY * norm(v));
  });

  it('estimates a truncation error that shrinks as the step shrinks (refinement)', () => {
    // f(x) = x^3 has f''' = 6, so D(t) − f'(x) = t² exactly; the estimate |D(2t) − D(t)|/3 = t².
    const cube = (x: Float64Array): Float64Array => Float64Array.of(x[0]! ** 3);
    const x = Float64Array.of(1.5);
    const r = jvpCentral(cube, x, Float64Array.of(1), { refine: true });
    const t = r.step;
    expect(Math.abs(r.value[0]! - 6.75)).toBeLessThan(2 * t * t + 1e-9);
    expect(r.errorEstimate!).toBeGreaterThan(0.5 * t * t);
  });

  test.prop([fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.double({ min: 0.01, max: 100, noNaN: true })])(
    'divides by the step actually taken: the identity along one coordinate gives v within 2 ulps',
    (x0, v0) => {
      // f = identity is evaluated exactly, so the quotient's only error is its denominator: the
      // distance (x + t·v) − (x − t·v) as rounded is the quotient's numerator itself, while the
      // nominal 2t·v differs from it by the rounding of x ± t·v (up to ulp(x)/(2t·v) relative).
      const x = Float64Array.of(x0, 1);
      const v = Float64Array.of(v0, 0);
      const r = jvpCentral((y) => Float64Array.from(y), x, v);
      expect(Math.abs(r.value[0]! - v0)).toBeLessThanOrEqual(2 * Number.EPSILON * v0);
      expect(r.value[1]).toBe(0);
      // the same through FdJacobian's directional difference (a direction above its threshold)
      const J = new FdJacobian((y) => Float64Array.from(y), x, { columnThreshold: 0 });
      const Jv = J.apply(sparseFromDense(v));
      expect(Math.abs(Jv.value[0]! - v0)).toBeLessThanOrEqual(2 * Number.EPSILON * v0);
    },
  );

  it('the nominal step 2t is off for a coordinate whose shifted values round (the case above detects)', () => {
    // x = 1/3, v = 1: x ± t round to the binade's grid, so Δ ≠ 2t; the quotient must not be Δ/2t
    const x = Float64Array.of(1 / 3);
    const r = jvpCentral((y) => Float64Array.from(y), x, Float64Array.of(1));
    const t = r.step;
    const delta = x[0]! + t - (x[0]! - t);
    expect(delta).not.toBe(2 * t); // the rounding is there ...
    expect(Math.abs(r.value[0]! - 1)).toBeLessThanOrEqual(2 * Number.EPSILON); // ... and is divided out
  });

  it('uses the relative step eps^(1/3)·max(1,|x|)', () => {
    const r = jvpCentral((x) => Float64Array.from(x), Float64Array.of(1000), Float64Array.of(1));
    expect(r.step).toBeCloseTo(Math.cbrt(Number.EPSILON) * 1000, 15);
  });

  it('rejects a direction of the wrong length, naming it', () => {
    expect(() => jvpCentral(f, Float64Array.of(1, 2, 3), Float64Array.of(1))).toThrow(ArgumentError);
    expect(() => jvpCentral(f, Float64Array.of(1, 2, 3), Float64Array.of(1))).toThrow(/^v = /);
  });
  it('rejects a map returning NaN', () => {
    expect(() => jvpCentral(() => Float64Array.of(NaN), Float64Array.of(1), Float64Array.of(1))).toThrow(/f\(x\)\[0\]/);
  });

  it('log(x) at x = 1e-8 < h: the minus point is NaN; every engine names it, FdJacobian caches no NaN column', () => {
    const f = (x: Float64Array) => Float64Array.of(Math.log(x[0]!), x[1]!);
    const x = Float64Array.of(1e-8, 2);
    expect(() => jacobianCentral(f, x)).toThrow(/^f\(x\)\[0\] = NaN: must be finite \(at x − h·e_0\)/);
    const J = new FdJacobian(f, x);
    expect(() => J.column(0)).toThrow(/^f\(x\)\[0\] = NaN: must be finite \(at x − h·e_0\)/);
    expect(() => J.column(0)).toThrow(/NaN/); // not cached: computed (and refused) again
    expect(J.column(1).value).toEqual(Float64Array.of(1));
  });
});

describe('jacobianCentral', () => {
  /** f on count points at once (points row-major, 3 per point), one call of f per point. */
  const batch = (P: Float64Array, count: number): Float64Array => {
    const out = new Float64Array(count * 3);
    for (let i = 0; i < count; i++) out.set(f(P.subarray(i * 3, i * 3 + 3)), i * 3);
    return out;
  };
  test.prop([fc.tuple(box, box, box)])('full Jacobian matches analytic; batched equals unbatched bit for bit', (xs) => {
    const x = Float64Array.from(xs);
    const J = jacobianCentral(f, x);
    const Jb = jacobianCentral(f, x, { batch });
    expect(Array.from(Jb.data)).toEqual(Array.from(J.data));
    const A = jac(x);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++)
        expect(Math.abs(J.data[i * 3 + j]! - A[i]![j]!)).toBeLessThanOrEqual(100 * FD_RELATIVE_ACCURACY);
  });
  it('the batched points buffer is reused across calls but never while a batch function still reads it', () => {
    const x = Float64Array.of(0.3, -0.2, 0.5);
    const J1 = jacobianCentral(f, x, { batch });
    let seen: Float64Array | undefined;
    // A batch function that asks for another batched Jacobian (at another point) in the middle of
    // reading its own points: its points must survive the inner call.
    const nestedBatch = (P: Float64Array, count: number): Float64Array => {
      seen ??= P;
      const before = Float64Array.from(P);
      jacobianCentral(f, Float64Array.of(9, 9, 9), { batch });
      expect(P).toEqual(before);
      return batch(P, count);
    };
    expect(jacobianCentral(f, x, { batch: nestedBatch }).data).toEqual(J1.data);
    const buffers: ArrayBufferLike[] = [];
    const recording = (P: Float64Array, c: number): Float64Array => (buffers.push(P.buffer), batch(P, c));
    expect(jacobianCentral(f, x, { batch: recording }).data).toEqual(J1.data);
    expect(jacobianCentral(f, x, { batch: recording }).data).toEqual(J1.data);
    expect(buffers[1]).toBe(buffers[0]); // top-level calls share one scratch buffer
    expect(seen!.buffer).toBe(buffers[0]);
  });
  it('computes only the requested columns', () => {
    const J = jacobianCentral(f, Float64Array.of(0.1, 0.2, 0.3), { columns: [2] });
    expect(J.cols).toBe(1);
    expect(J.evaluations).toBe(2);
    expect(J.data[1]).toBeCloseTo(0.6, 9);
  });
  it('rejects a batched map that returns a non-finite value', () => {
    const nanBatch = (_P: Float64Array, count: number): Float64Array => new Float64Array(count * 3).fill(NaN);
    expect(() => jacobianCentral(f, Float64Array.of(0, 0, 0), { batch: nanBatch })).toThrow(/^batch\(points\)/);
  });
  it('options.out: J written into the caller’s array (same bits), which a failing call leaves untouched', () => {
    const x = Float64Array.of(0.3, -0.2, 0.5);
    const J = jacobianCentral(f, x, { batch });
    for (const opts of [{ batch }, {}]) {
      const out = new Float64Array(9).fill(7);
      const Jo = jacobianCentral(f, x, { ...opts, out });
      expect(Jo.data).toBe(out);
      expect(out).toEqual(J.data);
    }
    // a bad evaluation in the last column only: nothing of the earlier columns may be written
    const lastBad = (P: Float64Array, count: number): Float64Array => {
      const F = batch(P, count);
      F[(count - 1) * 3 + 1] = Infinity;
      return F;
    };
    const out = new Float64Array(9).fill(7);
    expect(() => jacobianCentral(f, x, { batch: lastBad, out })).toThrow(/^batch\(points\)\[5\]\[1\] = Infinity/);
    expect(out.every((v) => v === 7)).toBe(true);
    let calls = 0;
    const fLastBad = (y: Float64Array): Float64Array => (++calls === 6 ? Float64Array.of(0, NaN, 0) : f(y));
    expect(() => jacobianCentral(fLastBad, x, { out })).toThrow(/f\(x\)\[1\]/);
    expect(out.every((v) => v === 7)).toBe(true);
    expect(() => jacobianCentral(f, x, { batch, out: new Float64Array(8) })).toThrow(/options\.out .*9 values, got 8/);
    expect(() => jacobianCentral(f, x, { out: [0] as unknown as Float64Array })).toThrow(/options\.out/);
  });
  it('names a bad column index', () => {
    expect(() => jacobianCentral(f, Float64Array.of(0, 0, 0), { columns: [3] })).toThrow(/columns\[0\] = 3/);
  });
});

describe('FdJacobian', () => {
  it('applies J to sparse and long directions consistently with the analytic Jacobian', () => {
    const x = Float64Array.of(0.3, -0.7, 1.1);
    const J = new FdJacobian(f, x, { columnThreshold: 1 });
    const v = Float64Array.of(0.5, -1, 2);
    const viaDirectional = toDense(J.apply(sparseFromDense(v))); // 3 non-zeros > threshold 1
    expect(J.stats.directional).toBe(1);
    const exact = matvec(jac(x), v);
    viaDirectional.forEach((a, i) =>
      expect(Math.abs(a - exact[i]!)).toBeLessThan(100 * FD_RELATIVE_ACCURACY * norm(v)),
    );
    J.prefetch([0, 1, 2]);
    const viaColumns = toDense(J.apply(sparseFromDense(v)));
    viaColumns.forEach((a, i) => expect(Math.abs(a - exact[i]!)).toBeLessThan(100 * FD_RELATIVE_ACCURACY * norm(v)));
  });
  it('treats inputs outside a declared read set as identity without evaluating f', () => {
    // P(x) = x except coordinate 1, which blends toward 2 using only itself.
    let calls = 0;
    const p = (x: Float64Array): Float64Array => {
      calls++;
      const y = Float64Array.from(x);
      y[1] = x[1]! + 0.25 * (2 - x[1]!);
      return y;
    };
    const J = new FdJacobian(p, Float64Array.of(1, 1, 1), { readSet: [1] });
    expect(Array.from(toDense(J.column(0)))).toEqual([1, 0, 0]);
    expect(calls).toBe(0);
    const c1 = toDense(J.column(1));
    expect(calls).toBe(2);
    expect(c1[0]).toBe(0);
    expect(Math.abs(c1[1]! - 0.75)).toBeLessThan(10 * FD_RELATIVE_ACCURACY);
    const y = toDense(J.apply(sparseFromDense(Float64Array.of(2, 4, 6))));
    expect(y[0]).toBe(2);
    expect(y[2]).toBe(6);
    expect(Math.abs(y[1]! - 3)).toBeLessThan(100 * FD_RELATIVE_ACCURACY);
  });
  it('gives correct columns when f reuses one output buffer', () => {
    const buf = new Float64Array(3);
    const reusing = (x: Float64Array): Float64Array => {
      buf.set(f(x));
      return buf;
    };
    const x = Float64Array.of(0.3, -0.7, 1.1);
    const J = new FdJacobian(reusing, x);
    const A = jac(x);
    for (let j = 0; j < 3; j++) {
      const c = toDense(J.column(j));
      for (let i = 0; i < 3; i++) expect(Math.abs(c[i]! - A[i]![j]!)).toBeLessThan(100 * FD_RELATIVE_ACCURACY);
    }
    const v = Float64Array.of(0.5, -1, 2);
    const Jl = new FdJacobian(reusing, x, { columnThreshold: 0 });
    const y = toDense(Jl.apply(sparseFromDense(v)));
    const exact = matvec(A, v);
    y.forEach((a, i) => expect(Math.abs(a - exact[i]!)).toBeLessThan(100 * FD_RELATIVE_ACCURACY * norm(v)));
  });
  it('caches columns', () => {
    const J = new FdJacobian(f, Float64Array.of(0, 0, 0));
    J.column(1);
    J.column(1);
    expect(J.stats.columns).toBe(1);
    expect(J.stats.evaluations).toBe(2);
    expect(() => J.apply(unitVector(4, 0))).toThrow(/v.dim = 4/);
  });
});
