import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { gemm } from '../../src/linalg/api.js';
import { residentMatrix } from '../../src/linalg/resident.js';
import { wasm } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { EPS } from './cases.js';

useArenaGuard();

/** Σ_j a_ij·x_j by Neumaier's compensated sum: within about 2·eps·|y| + n²·eps²·Σ|a||x| of exact. */
function compensatedProduct(A: ArrayLike<number>, x: ArrayLike<number>, m: number, n: number): Float64Array {
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = 0;
    let c = 0;
    for (let j = 0; j < n; j++) {
      const p = A[i * n + j]! * x[j]!; // a product's rounding: eps/2 of |a||x|, inside the bound below
      const t = s + p;
      c += Math.abs(s) >= Math.abs(p) ? s - t + p : p - t + s;
      s = t;
    }
    y[i] = s + c;
  }
  return y;
}

describe('residentMatrix', () => {
  it('an integer product is exact, and repeated calls reuse the matrix', () => {
    const A = residentMatrix([1, 2, 3, 4, 5, 6], 2, 3);
    expect(A.times([1, 0, -1])).toEqual(Float64Array.of(-2, -2));
    const out = new Float64Array(2);
    expect(A.times(Float64Array.of(1, 1, 1), out)).toBe(out);
    expect(out).toEqual(Float64Array.of(6, 15));
    A.free();
    expect(A.freed).toBe(true);
  });

  // Each y_i is one dot product: |ŷ_i − y_i| <= γ_n·Σ_j|a_ij||x_j|, γ_n = n·eps/(1 − n·eps) <=
  // 1.01·n·eps here; the compensated oracle adds at most 2·eps·Σ|a||x|, so (n + 3)·eps·Σ|a||x|.
  fcTest.prop([
    fc.integer({ min: 1, max: 24 }),
    fc.integer({ min: 1, max: 70 }),
    fc.integer({ min: -300, max: 300 }),
    fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 24 * 70 + 70, maxLength: 24 * 70 + 70 }),
  ])('y = A·x within γ_n·|A||x|, at any scale, and the same bits on every call', (m, n, e, pool) => {
    const scale = 2 ** e;
    const A = Float64Array.from(pool.slice(0, m * n), (v) => v * scale);
    const x = Float64Array.from(pool.slice(m * n, m * n + n));
    const R = residentMatrix(A, m, n);
    try {
      const y = R.times(x);
      const exact = compensatedProduct(A, x, m, n);
      const mag = compensatedProduct(
        A.map((v) => Math.abs(v)),
        x.map((v) => Math.abs(v)),
        m,
        n,
      );
      for (let i = 0; i < m; i++)
        expect(Math.abs(y[i]! - exact[i]!)).toBeLessThanOrEqual((n + 3) * EPS * mag[i]! + Number.MIN_VALUE);
      expect(R.times(x)).toEqual(y);
      // the twin of the kernel's summation order, bit for bit (four rows at a time and the rows
      // left over); the FMA build fuses the vector steps, so only the bound above holds for it
      if (wasm().kernels === 'plain') expect(gemm(A, m, n, x, n, 1, { backend: 'reference' })).toEqual(y);
      // gemm of a matrix by a vector runs the same kernel: the same bits
      expect(gemm(A, m, n, x, n, 1)).toEqual(y);
    } finally {
      R.free();
    }
  });

  it('edges of f64: empty shapes, subnormals, zeros, and an overflow that writes nothing', () => {
    const empty = residentMatrix(new Float64Array(0), 3, 0);
    expect(empty.times([])).toEqual(new Float64Array(3));
    empty.free();
    const none = residentMatrix(new Float64Array(0), 0, 2);
    expect(none.times([1, 2])).toEqual(new Float64Array(0));
    none.free();
    const tiny = residentMatrix([Number.MIN_VALUE, -0, 2 ** -1022], 1, 3);
    expect(tiny.times([1, 5, 0.5])).toEqual(Float64Array.of(Number.MIN_VALUE + 2 ** -1023));
    tiny.free();
    const big = residentMatrix([1e300, 1e300], 1, 2);
    expect(big.times([1e-300, 1])).toEqual(Float64Array.of(1 + 1e300));
    const out = Float64Array.of(7);
    expect(() => big.times([1e10, 1], out)).toThrow(/^x = .*: its product with A overflows f64$/);
    expect(out).toEqual(Float64Array.of(7));
    big.free();
  });

  it('takes an ml-matrix Matrix', () => {
    const A = residentMatrix(
      new Matrix([
        [1, 2],
        [3, 4],
      ]),
    );
    expect([A.rows, A.cols]).toEqual([2, 2]);
    expect(A.times([1, 1])).toEqual(Float64Array.of(3, 7));
    A[Symbol.dispose]();
    expect(A.freed).toBe(true);
  });

  it('rejects bad input naming the argument, and changes nothing', () => {
    expect(() => residentMatrix([1, NaN], 1, 2)).toThrow(/^A\[0\]\[1\] = NaN: must be finite/);
    expect(() => residentMatrix([1, 2, 3], 2, 2)).toThrow(
      /^A = an array of length 3: must hold rows·cols = 2·2 = 4 values/,
    );
    const before = wasm().arena.bytesInUse;
    const A = residentMatrix([1, 2, 3, 4], 2, 2);
    const out = Float64Array.of(9, 9);
    expect(() => A.times([1], out)).toThrow(/^x.length = 1: must be 2 \(columns of A\)$/);
    expect(() => A.times([1, NaN], out)).toThrow(/^x\[1\] = NaN: must be a finite number$/);
    expect(() => A.times([1, Infinity], out)).toThrow(/^x\[1\] = Infinity/);
    expect(() => A.times([1, 2], new Float64Array(3))).toThrow(/^out.length = 3: must be 2 \(rows of A\)$/);
    expect(() => A.times([1, 2], [0, 0] as unknown as Float64Array)).toThrow(/^out/);
    expect(() => A.times(null as unknown as number[])).toThrow(/^x/);
    expect(out).toEqual(Float64Array.of(9, 9));
    A.free();
    A.free(); // a second free is a no-op
    expect(() => A.times([1, 2])).toThrow(/^ordergap: this resident 2×2 matrix was freed$/);
    expect(wasm().arena.bytesInUse).toBe(before);
  });
});
