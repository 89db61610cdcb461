// The batched central-difference Jacobian of a dense map whose batch is one gemm: on a pool of two
// threads the gemm cuts C by rows and computes every entry by the one-thread operations, so the
// Jacobian is the one-thread Jacobian bit for bit.
import { describe, expect, it } from 'vitest';
import { gemm } from '../../src/linalg/api.js';
import { PARALLEL_MIN_FLOPS, threadCount } from '../../src/linalg/threads.js';
import { jacobianCentral } from '../../src/linearize/finiteDifference.js';
import { createRng } from '../../src/ordergap/rng.js';
import { usePool } from '../util/backends.js';

describe('batched FD Jacobian on the pool', () => {
  usePool(2);
  it('equals the one-thread Jacobian bit for bit', () => {
    const n = 160; // the batch's gemm: 2n·n·n multiply-adds, above the pool's threshold
    expect(2 * n * n * n).toBeGreaterThan(PARALLEL_MIN_FLOPS);
    expect(threadCount()).toBe(2);
    const rng = createRng(7);
    const W = Float64Array.from({ length: n * n }, () => rng.next() - 0.5);
    const x = Float64Array.from({ length: n }, () => rng.next() - 0.5);
    const f = (v: Float64Array) => gemm(W, n, n, v, n, 1).map(Math.tanh);
    const batchOn = (threads: number | undefined) => (P: Float64Array, count: number) =>
      gemm(P, count, n, W, n, n, { transB: true, ...(threads !== undefined ? { threads } : {}) }).map(Math.tanh);
    const one = jacobianCentral(f, x, { batch: batchOn(1) }).data;
    const pool = jacobianCentral(f, x, { batch: batchOn(undefined) }).data;
    const two = jacobianCentral(f, x, { batch: batchOn(2) }).data;
    const bits = (a: Float64Array) => new BigUint64Array(a.buffer, a.byteOffset, a.length);
    expect(bits(pool)).toEqual(bits(one));
    expect(bits(two)).toEqual(bits(one));
    expect(Array.from(two).some((v) => v !== 0)).toBe(true);
  });
});
