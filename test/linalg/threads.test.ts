/**
 * The worker pool's job layout (encodeJob: named, typed slots) and its failure paths: a job whose
 * caller-side work throws must still finish (workers waiting for rows are released), free its
 * blocks and leave the pool usable.
 */
import { describe, expect, it } from 'vitest';
import { gram } from '../../src/linalg/api.js';
import { JOB_KERNELS, PARALLEL_MIN_FLOPS, encodeJob, newJobArgs } from '../../src/linalg/threads.js';
import { syrkChunkRows } from '../../src/linalg/wasmKernels.js';
import { KERNEL_SIGNATURES } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { LINALG, usePool } from '../util/backends.js';
import { randn } from './cases.js';

useArenaGuard();

/** Slot of unit u's argument `name` of `kernel`, by the generated signature (16 slots per unit). */
function slot(kernel: keyof typeof KERNEL_SIGNATURES, u: number, name: string): number {
  const i = KERNEL_SIGNATURES[kernel].params.findIndex(([n]) => n === name);
  expect(i).toBeGreaterThanOrEqual(0);
  return u * 16 + i;
}

describe('encodeJob: one named, typed row of slots per unit', () => {
  it('writes each argument into the table of its AssemblyScript type, at its position', () => {
    const job = newJobArgs();
    const ptr = 3 * 2 ** 30; // a pointer above 2 GiB: a u32, not read back negative
    encodeJob(job, 'dsyrkRows', 2, (u) => ({
      A: ptr,
      r0: 10 * u,
      r1: 10 * u + 10,
      cols: 7,
      s: 0.5,
      direct: 1,
      W: 4096 + u * 64,
      P: 0,
      kc: 16,
      ready: 64,
    }));
    expect(job.header[0]).toBe(JOB_KERNELS.indexOf('dsyrkRows'));
    expect(job.header[1]).toBe(2);
    for (const u of [0, 1]) {
      expect(job.u32[slot('dsyrkRows', u, 'A')]).toBe(ptr);
      expect(job.i32[slot('dsyrkRows', u, 'r0')]).toBe(10 * u);
      expect(job.i32[slot('dsyrkRows', u, 'r1')]).toBe(10 * u + 10);
      expect(job.f64[slot('dsyrkRows', u, 's')]).toBe(0.5);
      expect(job.u32[slot('dsyrkRows', u, 'W')]).toBe(4096 + u * 64);
      expect(job.u32[slot('dsyrkRows', u, 'ready')]).toBe(64);
    }
  });

  it('refuses a value its slot would change, naming kernel, unit and argument', () => {
    const job = newJobArgs();
    const base = { W0: 0, n: 1, cols: 4, weight: 1, f: 1, G: 0, b0: 0, b1: 1 };
    expect(() => encodeJob(job, 'dsyrkSumFinish', 1, () => ({ ...base, cols: 4.5 }))).toThrow(
      /dsyrkSumFinish unit 0: argument cols = 4.5 does not fit its i32 slot/,
    );
    expect(() => encodeJob(job, 'dsyrkSumFinish', 1, () => ({ ...base, G: -16 }))).toThrow(/argument G = -16 .*usize/);
    expect(() => encodeJob(job, 'dsyrkSumFinish', 1, () => ({ ...base, W0: 2 ** 32 }))).toThrow(/usize/);
    expect(() => encodeJob(job, 'dsyrkSumFinish', 1, () => ({ ...base, n: 2 ** 31 }))).toThrow(/i32/);
    const { b1: _b1, ...missing } = base;
    expect(() => encodeJob(job, 'dsyrkSumFinish', 1, () => missing as typeof base)).toThrow(/b1 = undefined/);
    expect(() => encodeJob(job, 'dsyrkSumFinish', 257, () => base)).toThrow(/between 0 and 256 units/);
    const gemm = { transA: 0, transB: 2, M: 4, N: 4, K: 4, alpha: 1, A: 0, B: 0, beta: 0, C: 0 };
    const bufs = { PA: 0, PB: 0, T: 0, kc: 4, mc: 4, nc: 4 };
    expect(() => encodeJob(job, 'dgemm', 1, () => ({ ...gemm, ...bufs }))).toThrow(/transB = 2 .*bool/);
  });
});

describe('a threaded job whose caller-side work throws', () => {
  usePool(2);

  it('releases the workers waiting for rows, frees its blocks, and the pool keeps working', () => {
    const cols = 64;
    const kc = syrkChunkRows(cols);
    const rows = 8 * kc; // eight chunks copied in one by one while the workers start
    const values = randn(21, rows * cols);
    let chunks = 0;
    /** A Float64Array whose third chunk cannot be read (the caller copies A in by subarray). */
    class Failing extends Float64Array {
      override subarray(begin?: number, end?: number): Float64Array<ArrayBuffer> {
        if (begin !== undefined && begin > 0 && ++chunks === 2) {
          // give the worker time to claim a unit and wait in the kernel for rows never copied
          const until = performance.now() + 50;
          while (performance.now() < until);
          throw new Error('injected copy failure');
        }
        return super.subarray(begin, end);
      }
    }
    const A = new Failing(values.length);
    A.set(values);
    expect(() => gram(A, rows, cols, { backend: 'wasm', threads: 2 })).toThrow('injected copy failure');
    // the arena guard checks the blocks were freed; the pool is not wedged:
    expect(gram(values, rows, cols, { backend: 'wasm', threads: 2 })).toEqual(
      gram(values, rows, cols, { backend: 'wasm', threads: 2 }),
    );
  });
});

describe('the pool is the friendly API’s choice, not the kernels’', () => {
  usePool(2);

  it('a backend call without a thread option runs on the calling thread; gram passes its option to the pool', () => {
    // 2000×128: 2^25 flops, above PARALLEL_MIN_FLOPS, so the default of gram takes the pool, whose
    // grouping of each sum by units changes the last bits of this G (checked: it must, or the
    // comparison below could not tell the two apart).
    const [rows, cols] = [2000, 128];
    expect(rows * cols * cols).toBeGreaterThan(PARALLEL_MIN_FLOPS);
    const A = randn(17, rows * cols);
    const one = gram(A, rows, cols, { backend: 'wasm', threads: 1 });
    const pooled = gram(A, rows, cols, { backend: 'wasm' });
    expect(pooled).not.toEqual(one);
    const run = (pool?: { threads?: number }): Float64Array => {
      const G = new Float64Array(cols * cols);
      const call = { A, rows, cols, scale: 1, weight: 1, G, overwrite: true, accept: () => true };
      expect(LINALG.wasm.syrk(pool ? { ...call, pool } : call)).toBe(true);
      return G;
    };
    expect(run()).toEqual(one); // every call from inside linalg (svdFromR's products) is this one
    expect(run({})).toEqual(pooled);
    expect(run({ threads: 1 })).toEqual(one);
  });
});
