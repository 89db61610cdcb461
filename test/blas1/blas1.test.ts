import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { axpy, copy, distance, norm } from '../../src/blas1/api.js';
import { EPS, expectCloseInEps } from '../util/compare.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { BLAS1_BACKENDS, describeBackends } from '../util/backends.js';

useArenaGuard();

/** Naive norm in extended care: sum of squares of values of moderate size (no scaling needed). */
function naiveNorm(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s);
}

// Moderate values: the naive sum of squares is exact enough there (no underflow of squares;
// |x| >= 1e-100 keeps x² normal), so it can serve as the reference.
const moderate = fc
  .double({ min: -1e3, max: 1e3, noNaN: true, noDefaultInfinity: true })
  .filter((v) => v === 0 || Math.abs(v) >= 1e-100);

describeBackends(BLAS1_BACKENDS, 'BLAS-1 (%s)', (_name, B) => {
  it('norm of the empty vector is 0', () => {
    expect(B.norm(new Float64Array(0))).toBe(0);
    expect(B.distance(new Float64Array(0), new Float64Array(0))).toBe(0);
  });

  it('3-4-5 at every scale: 1e200 and 1e-200 give the right answer, not Infinity or 0', () => {
    for (const s of [1, 1e200, 1e-200, 1e300, 1e-300, 2 ** 1020, 2 ** -1060]) {
      expectCloseInEps(B.norm(Float64Array.of(3 * s, 4 * s)), 5 * s, 4);
      expectCloseInEps(B.distance(Float64Array.of(3 * s, 0), Float64Array.of(0, -4 * s)), 5 * s, 4);
    }
  });

  it('overflow-safe on long vectors of huge entries (odd length exercises the scalar tail)', () => {
    const n = 1001;
    const x = new Float64Array(n).fill(1e200);
    // ||x|| = 1e200 · sqrt(n): the relative error bound (n/2 + 1)·eps of the module comment.
    expectCloseInEps(B.norm(x), 1e200 * Math.sqrt(n), n / 2 + 1);
    const y = new Float64Array(n).fill(-1e200);
    expectCloseInEps(B.distance(x, y), 2e200 * Math.sqrt(n), n / 2 + 1);
  });

  it('a difference that overflows gives Infinity only when the distance does', () => {
    expect(B.distance(Float64Array.of(1.5e308), Float64Array.of(-1.5e308))).toBe(Infinity);
    expectCloseInEps(B.distance(Float64Array.of(1e308, 0), Float64Array.of(-5e307, 0)), 1.5e308, 2);
  });

  it('NaN propagates from the unchecked kernel', () => {
    expect(B.norm(Float64Array.of(1, NaN, 2))).toBeNaN();
    expect(B.distance(Float64Array.of(1, NaN), Float64Array.of(1, 2))).toBeNaN();
  });

  fcTest.prop([fc.array(moderate, { minLength: 0, maxLength: 67 })])(
    'norm agrees with the naive formula within (n/2 + 2)·eps relative',
    (xs) => {
      const x = Float64Array.from(xs);
      const ref = naiveNorm(x);
      // Both computations err by at most ~(n/2 + 1)·eps relative; the scale floor covers 0.
      expectCloseInEps(B.norm(x), ref, xs.length + 4, Number.MIN_VALUE);
    },
  );

  fcTest.prop([
    fc.array(fc.tuple(moderate, moderate), { maxLength: 40 }),
    fc.double({ min: 1e-250, max: 1e250, noNaN: true }),
  ])('distance is homogeneous under exact power-of-two scaling and equals norm(x − y)', (pairs, s0) => {
    const s = 2 ** Math.round(Math.log2(s0));
    const x = Float64Array.from(pairs, (p) => p[0]);
    const y = Float64Array.from(pairs, (p) => p[1]);
    const d = B.distance(x, y);
    const diff = x.map((v, i) => v - y[i]!);
    expectCloseInEps(d, B.norm(diff), 2 * pairs.length + 4, Number.MIN_VALUE);
    // Scaling by a power of two is exact while the results stay normal, so the scaled distance is
    // s·d within 2 eps. Where s·x or s·y lands below 2^-1022 (s down to 2^-830 here) each scaled
    // entry rounds by up to half a subnormal step (MIN_VALUE/2), so each difference moves by up
    // to MIN_VALUE and the 2-norm of the difference by up to √n·MIN_VALUE <= n·MIN_VALUE; s·d
    // itself rounds by MIN_VALUE/2. Hence the absolute allowance (n + 1)·MIN_VALUE, written as a
    // floor on the scale of the 2-eps relative bound.
    const xs = x.map((v) => v * s);
    const ys = y.map((v) => v * s);
    const floor = ((pairs.length + 1) * Number.MIN_VALUE) / (2 * Number.EPSILON);
    expectCloseInEps(B.distance(xs, ys), d * s, 2, floor);
  });

  fcTest.prop([fc.array(fc.tuple(moderate, moderate), { maxLength: 33 }), moderate])(
    'axpy matches the scalar definition exactly (one fma-free multiply-add per entry)',
    (pairs, a) => {
      const x = Float64Array.from(pairs, (p) => p[0]);
      const y = Float64Array.from(pairs, (p) => p[1]);
      // BLAS convention: a = 0 is a quick return (y untouched, so -0 stays -0).
      const expected = a === 0 ? Float64Array.from(y) : y.map((v, i) => v + a * x[i]!);
      B.axpy(a, x, y);
      expect(Array.from(y)).toEqual(Array.from(expected));
    },
  );

  it('copy copies', () => {
    const x = Float64Array.of(1, -2, 3.5, 0, 7);
    const y = new Float64Array(5);
    B.copy(x, y);
    expect(Array.from(y)).toEqual(Array.from(x));
  });
});

describe('BLAS-1 validating API', () => {
  it('names the offending argument and index for NaN and Infinity', () => {
    expect(() => norm([1, NaN])).toThrow(/^x\[1\] = NaN/);
    expect(() => distance([1, 2], [1, Infinity])).toThrow(/^y\[1\] = Infinity/);
    expect(() => axpy(NaN, [1], new Float64Array(1))).toThrow(/^a = NaN/);
  });
  it('names a length mismatch', () => {
    expect(() => distance([1, 2], [1])).toThrow(/^y = Float64Array\(1\): must have the length of x \(2\)/);
  });
  it('writes nothing when validation fails', () => {
    const y = Float64Array.of(1, 2, 3);
    expect(() => axpy(2, [1, 2, NaN], y)).toThrow(/x\[2\]/);
    expect(Array.from(y)).toEqual([1, 2, 3]);
    expect(() => copy([1, 2], y)).toThrow(/must have the length/);
    expect(Array.from(y)).toEqual([1, 2, 3]);
  });
  it('runs either backend on request and they agree', () => {
    const x = [3e200, 4e200];
    expectCloseInEps(norm(x, { backend: 'reference' }), 5e200, 2);
    expectCloseInEps(norm(x, { backend: 'wasm' }), 5e200, 2);
    expect(() => norm(x, { backend: 'gpu' as never })).toThrow(/options.backend = "gpu"/);
  });
  it('EPS is the f64 machine epsilon', () => {
    expect(EPS).toBe(2 ** -52);
  });
});
