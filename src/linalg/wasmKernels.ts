/**
 * The linalg kernels of the loaded wasm module and what their callers on the calling thread
 * (./wasmBackend.ts) and on the worker pool (./threads.ts) share: chunk sizes, where A can be read
 * in place, and the packing buffers of the gemm kernel.
 */
import type { ArenaScope } from '../wasm/arena.js';
import { wasm, type KernelExports } from '../wasm/module.js';
import type { GemmBlocking } from './gemm.js';

/** The linalg kernels exported by build/ordergap.wasm (pointers are byte offsets). */
export type LinalgKernels = Pick<
  KernelExports,
  | 'dsyrkDirectRows'
  | 'dscal'
  | 'dsyrkTiles'
  | 'dsyrkRows'
  | 'sumFinishBlocks'
  | 'dsyrkSumFinish'
  | 'dsyrkFinish'
  | 'dgemm'
  | 'dgemv'
  | 'dtrmmUpperT'
  | 'dsyev'
  | 'dsyevWork'
  | 'dsymmetrize'
  | 'dtranspose'
  | 'dtpqrt'
  | 'dgesvj'
  | 'dgebrdSvdvals'
  | 'dgebrdWork'
>;

/**
 * The kernels of the loaded module (checked against the generated signatures by `init()`).
 * @throws Error if `init()` has not completed.
 */
export function linalgKernels(): LinalgKernels {
  return wasm().exports;
}

/** Rows per packed chunk of the Gramian: the packed chunk (kc·mp values) stays within ~256 KiB. */
export function syrkChunkRows(cols: number): number {
  const mp = Math.ceil(cols / 4) * 4;
  return Math.max(16, Math.min(512, Math.floor(32768 / Math.max(mp, 1))));
}

/**
 * Whether the one-thread Gramian reads the staged rows in place instead of packing them: for cols
 * a multiple of 4 (no partial panel) up to 128. The pack pass then disappears (the scan only
 * reads); at larger cols the row stride (>= 2 KiB) makes the 4-column slices of successive rows
 * collide in the same L1 sets, and packing wins (measured: 4096×256 41 vs 43, 2048×512 24 vs 46
 * GFLOP/s; 16384×128 42 vs 40). Both paths give the same result bit for bit.
 */
export function syrkReadsInPlace(cols: number): boolean {
  return cols % 4 === 0 && cols <= 128;
}

/**
 * Where the Gramian can read A in place: A's byte offset when A is a view of a live block of wasm
 * memory (an F64Block passed to gram), unless the no-pack kernel would have to scale it — that
 * kernel scales its rows in place, which it may do to a staged copy but never to the caller's
 * data (the packed kernel scales while it packs). Undefined means: copy A in. Call before
 * allocating (see Arena.offsetOf).
 * @throws {ArgumentError} A is a view onto wasm memory that is not allocated.
 */
export function residentOffset(A: Float64Array, direct: boolean, scale: number): number | undefined {
  const at = wasm().arena.offsetOf('A', A);
  return direct && scale !== 1 ? undefined : at;
}

/**
 * The packing buffers and edge-tile scratch of one dgemm call in scope `s`: op(A) panels of mc
 * rows (rounded up to 4) by kc, op(B) panels of kc by nc columns (rounded up to 4), and 16 values.
 */
export function gemmBuffers(s: ArenaScope, { kc, mc, nc }: GemmBlocking): { PA: number; PB: number; T: number } {
  return {
    PA: s.alloc(Math.ceil(mc / 4) * 4 * kc).ptr,
    PB: s.alloc(kc * Math.ceil(nc / 4) * 4).ptr,
    T: s.alloc(16).ptr,
  };
}
