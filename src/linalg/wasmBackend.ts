/**
 * The wasm implementation of {@link LinalgBackend}: copies operands into the arena, runs the
 * kernels of assembly/linalg, copies results back, and frees every temporary (arena.scope). The
 * Gramian and gemm run on the worker pool (./threads.ts) when the call's thread option allows it,
 * else on the calling thread (below).
 */
import { wasm } from '../wasm/module.js';
import type { LinalgBackend } from './backend.js';
import type { GemmCall, SyrkCall } from './calls.js';
import { countNonFinite, gemmBlocking } from './gemm.js';
import { gemmThreaded, gramThreaded, resolveThreads } from './threads.js';
import { gemmBuffers, linalgKernels, residentOffset, syrkChunkRows, syrkReadsInPlace } from './wasmKernels.js';

/**
 * Column block of the triangular product (LinalgBackend.trmmUpperT): each block of w columns of C
 * runs one gemm over the inner range from the block's first column, so the zeros inside the
 * diagonal block (about n·w·M flops in all) are multiplied and A's columns are packed once per
 * block: a wider block multiplies more zeros, a narrower one repacks A more often. Measured (one
 * thread, M = n, median of 7, time over the full gemm): n = 512 0.60 / 0.63 / 0.65 / 0.68 at
 * w = 32 / 64 / 96 / 128; n = 1024 0.63 / 0.61 / 0.58 / 0.57 (0.62 at 192) — flat within the
 * noise from 64 to 128.
 */
export const TRMM_BLOCK = 96;

/** Which eigenvector method of assembly/linalg/dsyev.ts runs (its `method` argument). */
export const SYEV_METHOD = {
  /** Qᵀ accumulated, QL rotations applied to its rows (6n³ flops of rotations). */
  qlRotations: 0,
  /**
   * Divide and conquer on T (assembly/linalg/dstedc.ts: at most 4/3·n³ flops in gemm, less with
   * deflation) and blocked WY back-transformation (2n³ flops in gemm).
   */
  divideAndConquer: 1,
  /** Eigenvalues only. */
  valuesOnly: 2,
} as const;

/** Panel width of the blocked tridiagonalisation (LAPACK dsytrd's default block size). */
export const SYEV_PANEL = 32;

/**
 * Smallest side at which eigh takes the blocked reduction with divide and conquer. Both paths
 * are backward stable with |VᵀV − I| <= 8·n·eps, so the threshold is speed alone. Measured (one
 * thread, random symmetric S, time of divide and conquer over QL rotations): 1.1–1.2 at n = 80,
 * 0.6–1.0 at n = 96, 0.8 at n = 112 and 128 — the 6n³ flops of row rotations outgrow the gemm
 * calls of the blocked path.
 */
export const SYEV_BLOCKED_MIN = 96;

/** Panel width and eigenvector method eigh uses for side n. */
export function syevMethod(n: number): { panel: number; method: number } {
  return n >= SYEV_BLOCKED_MIN
    ? { panel: SYEV_PANEL, method: SYEV_METHOD.divideAndConquer }
    : { panel: 0, method: SYEV_METHOD.qlRotations };
}

/** WebAssembly implementation. */
export const wasmLinalg: LinalgBackend = {
  name: 'wasm',
  syrk: (call) => gramThreaded(call) ?? syrkOneThread(call),
  gemm: (call) => matrixVector(call) ?? gemmThreaded(call) ?? gemmOneThread(call),
  trmmUpperT(M, n, A, R, C) {
    if (M === 0 || n === 0) return;
    const { arena } = wasm();
    const k = linalgKernels();
    const { kc, mc } = gemmBlocking(M, n, n);
    const w = Math.min(n, TRMM_BLOCK);
    arena.scope((s) => {
      const a = s.from(A);
      const r = s.from(R);
      const c = s.alloc(M * n);
      const { PA, PB, T } = gemmBuffers(s, { kc, mc, nc: w });
      k.dtrmmUpperT(M, n, a.ptr, n, r.ptr, n, c.ptr, n, PA, PB, T, kc, mc, w);
      C.set(c.view);
    });
  },
  syev(S, n, scale, values, vectors) {
    if (n === 0) return 0;
    const { arena } = wasm();
    const k = linalgKernels();
    const { panel, method } = syevMethod(n);
    return arena.scope((s) => {
      // Symmetrise and transpose in wasm memory: no n×n JavaScript temporaries, whose first
      // touch costs page faults (~1.5 ms per 512 KiB on this VM) on every call.
      const bs = s.from(S);
      k.dsymmetrize(bs.ptr, n, scale);
      const bv = s.alloc(n);
      const bt = s.alloc(n * n);
      const it = k.dsyev(bs.ptr, n, bv.ptr, bt.ptr, s.alloc(k.dsyevWork(n, panel)).ptr, panel, method);
      if (it < 0) return it;
      k.dtranspose(bt.ptr, n, bs.ptr);
      values.set(bv.view);
      vectors.set(bs.view);
      return it;
    });
  },
  qrUpdate(R, m, A, rows, blockRows) {
    if (m === 0 || rows === 0) return;
    const { arena } = wasm();
    const k = linalgKernels();
    arena.scope((s) => {
      const r = s.from(R);
      const w = s.alloc(m).ptr;
      const b = s.alloc(Math.min(rows, blockRows) * m);
      for (let r0 = 0; r0 < rows; r0 += blockRows) {
        const nb = Math.min(blockRows, rows - r0);
        b.view.set(A.subarray(r0 * m, (r0 + nb) * m));
        k.dtpqrt(r.ptr, m, b.ptr, nb, w);
      }
      R.set(r.view);
    });
  },
  gesvj(Y, m, V, norms2, vectors = true, startFromV = false, negligible = 0, pairs) {
    if (m === 0) return 0;
    const { arena } = wasm();
    const k = linalgKernels();
    return arena.scope((s) => {
      const y = s.from(Y);
      const v = vectors ? (startFromV ? s.from(V) : s.alloc(m * m)) : undefined;
      const n2 = s.alloc(m);
      const np = pairs ? pairs.length >> 1 : 0;
      const pp = np > 0 ? s.alloc(np) : undefined; // np pairs of i32 = np f64 slots
      if (pp && pairs) new Int32Array(pp.view.buffer, pp.view.byteOffset, 2 * np).set(pairs.subarray(0, 2 * np));
      const mode = vectors ? (startFromV ? 2 : 1) : 0;
      const sweeps = k.dgesvj(y.ptr, m, v?.ptr ?? 0, n2.ptr, mode, negligible, pp?.ptr ?? 0, np);
      Y.set(y.view);
      if (v) V.set(v.view);
      norms2.set(n2.view);
      return sweeps;
    });
  },
  squareSvdvals(A, m, scale, out) {
    if (m === 0) return 0;
    const { arena } = wasm();
    const k = linalgKernels();
    return arena.scope((s) => {
      const a = s.from(A);
      const o = s.alloc(m);
      const it = k.dgebrdSvdvals(a.ptr, m, scale, o.ptr, s.alloc(k.dgebrdWork(m)).ptr);
      if (it >= 0) out.set(o.view);
      return it;
    });
  },
};

/** {@link LinalgBackend.syrk} on the calling thread. */
function syrkOneThread(call: SyrkCall): boolean {
  const { A, rows, cols, scale, weight, G, overwrite, accept, upperTriangular = false } = call;
  if (cols === 0) return accept(0, 0);
  const { arena } = wasm();
  const k = linalgKernels();
  const direct = syrkReadsInPlace(cols);
  const at = residentOffset(A, direct, scale);
  return arena.scope((s) => {
    const g = overwrite ? s.alloc(cols * cols, 0) : s.from(G);
    const nb = Math.ceil(cols / 4);
    const mp = nb * 4;
    const kc = syrkChunkRows(cols);
    const W = s.alloc(mp * mp, 0).ptr;
    const P = direct ? 0 : s.alloc(kc * mp).ptr; // the no-pack kernel needs no panels
    // With a zero lower triangle, rows from r0 are zero in the tiles of columns < 4·⌊r0/4⌋:
    // each chunk starts at its first row's tile row (rows from `cols` on are all zero).
    const rowsRead = upperTriangular ? Math.min(rows, cols) : rows;
    const firstTile = (r0: number): number => (upperTriangular ? r0 >> 2 : 0);
    let amax = 0;
    if (at !== undefined && !upperTriangular) {
      // A is in wasm memory already: read in place (the no-pack kernel's separate scan of
      // each chunk also pulls it into cache ahead of the tiles' strided reads).
      amax = direct
        ? k.dsyrkDirectRows(at, rows, cols, kc, W, 0, nb, 0)
        : k.dsyrkTiles(at, rows, cols, scale, W, P, kc, 0, nb);
    } else if (at !== undefined) {
      // the same, chunk by chunk, each from its first tile row
      for (let r0 = 0; r0 < rowsRead; r0 += kc) {
        const n = Math.min(kc, rowsRead - r0);
        const p = at + r0 * cols * 8;
        const t = firstTile(r0);
        const a = direct
          ? k.dsyrkDirectRows(p, n, cols, n, W, t, nb, 0)
          : k.dsyrkTiles(p, n, cols, scale, W, P, n, t, nb);
        amax = Math.max(amax, a);
      }
    } else {
      // A is staged kc rows at a time: the chunk stays in cache for the pack (which also scans
      // it), and A itself never has to fit in wasm memory.
      const stage = s.alloc(Math.min(kc, rowsRead) * cols);
      const view = stage.view;
      for (let r0 = 0; r0 < rowsRead; r0 += kc) {
        const n = Math.min(kc, rowsRead - r0);
        const t = firstTile(r0);
        view.set(A.subarray(r0 * cols, (r0 + n) * cols));
        if (!direct) amax = Math.max(amax, k.dsyrkTiles(stage.ptr, n, cols, scale, W, P, n, t, nb));
        else {
          if (scale !== 1) k.dscal(stage.ptr, n * cols, scale);
          amax = Math.max(amax, k.dsyrkDirectRows(stage.ptr, n, cols, n, W, t, nb, 1) / scale);
        }
      }
    }
    const nonFinite = k.dsyrkFinish(W, cols, weight, 1 / (scale * scale), g.ptr, 0, cols);
    if (!accept(amax, nonFinite)) return false;
    G.set(g.view);
    return true;
  });
}

/**
 * {@link LinalgBackend.gemm} of a plain matrix-vector product y = A·x (N = 1, A not transposed,
 * α = 1, β = 0: a map evaluated at a point) by the matrix-vector kernel `dgemv`, one pass over A
 * with no packing, on any thread count (so the result does not depend on it); null for any other
 * call. Each entry is a dot product in the order of the kernel ./resident.ts runs, so `gemm(W, x)` and
 * a resident W's `times(x)` agree bit for bit.
 */
function matrixVector(call: GemmCall): boolean | null {
  const { transA, M, N, K, alpha, A, B, beta, C, accept = () => true } = call;
  if (!(N === 1 && transA === 'N' && alpha === 1 && beta === 0)) return null;
  resolveThreads(call.pool, M * K); // the thread option is checked as for any gemm, then unused
  const { arena } = wasm();
  return arena.scope((s) => {
    const a = s.from(A);
    const x = s.from(B);
    const y = s.alloc(M);
    linalgKernels().dgemv(M, K, a.ptr, K, x.ptr, y.ptr);
    if (!accept(countNonFinite(y.view))) return false;
    C.set(y.view);
    return true;
  });
}

/** {@link LinalgBackend.gemm} on the calling thread. */
function gemmOneThread(call: GemmCall): boolean {
  const { transA, transB, M, N, K, alpha, A, B, beta, C, accept = () => true } = call;
  if (M === 0 || N === 0) return accept(0);
  const { arena } = wasm();
  const k = linalgKernels();
  const blocking = gemmBlocking(M, N, K);
  const { kc, mc, nc } = blocking;
  return arena.scope((s) => {
    const a = s.from(A);
    const b = s.from(B);
    // β = 0: C is not copied in; the kernel never reads it then, so the arena's old contents
    // cannot leak (gemm.test.ts runs the kernel on a NaN-filled C to check exactly that).
    const c = beta === 0 ? s.alloc(M * N) : s.from(C);
    const { PA, PB, T } = gemmBuffers(s, blocking);
    k.dgemm(+(transA === 'T'), +(transB === 'T'), M, N, K, alpha, a.ptr, b.ptr, beta, c.ptr, PA, PB, T, kc, mc, nc);
    if (!accept(countNonFinite(c.view))) return false;
    C.set(c.view);
    return true;
  });
}
