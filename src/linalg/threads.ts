/**
 * Parallel Gramian on worker threads that share the one wasm memory.
 *
 * `await startThreads(n)` starts n − 1 workers; each instantiates the already compiled
 * `wasm().module` over `wasm().memory` (a shared WebAssembly.Memory), so a kernel running in a
 * worker reads and writes the same bytes as the main thread. A job is published through a small
 * SharedArrayBuffer (arguments + a generation counter) and Atomics.notify; the main thread runs
 * its own share and then Atomics.wait()s for the workers, so {@link gram} stays synchronous.
 *
 * Work split (dynamic, deterministic): the calling thread first packs all of s·A into panels once
 * (dsyrkPack); the upper tiles of G are then cut into U = min(nb, 4·threads) units — contiguous
 * ranges of tile rows of equal work (row I holds nb − I tiles) — and every thread, the caller
 * included, claims units from a shared counter until none is left. Units write disjoint parts of
 * the accumulator, and each tile is summed over the same chunks and rows in the same order as on
 * one thread, so the result is bit-for-bit the one-thread result whoever runs which unit. A
 * worker that wakes late (a busy machine) simply finds fewer units left: the caller never waits
 * for a worker that has not started.
 *
 * Claim word: ctl[NEXT] = (generation & 0x7fff) << 16 | next unit. A worker reads the unit count U
 * after seeing the new generation in ctl[SEQ] (published last), claims with Atomics.add, and runs
 * the unit only if the claim carries its generation and u < U — so a stale worker can never run a
 * unit of a newer job, and the arguments of a job stay intact while any of its units is claimed
 * but unfinished (the caller publishes the next job only after all U units have finished).
 *
 * GEMM (C = α·A·op(B) + β·C, A not transposed) uses the same pool and protocol: C is cut into
 * U = threads contiguous blocks of rows (multiples of 4), each unit runs dgemm on its block with
 * its own packing buffers; every entry of C is computed by exactly the same operations as on one
 * thread (the blocking along K and the tiles within a block do not depend on the row split when
 * the split falls on a multiple of the row block mc), so the result equals the one-thread result.
 *
 * Without a running pool (or with `threads: 1`) everything runs on the calling thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { wasm } from '../wasm/module.js';
import { gemmBlocking } from './gemm.js';
import { linalgKernels, syrkChunkRows } from './wasmBackend.js';

/** Thread option of the Gramian. */
export interface ThreadOption {
  /**
   * Threads for the Gramian: 1 = calling thread only; default = every thread of the running pool
   * when the problem has at least {@link PARALLEL_MIN_FLOPS} flops. An explicit value > 1 needs a
   * running pool and is capped at its size.
   */
  threads?: number;
}

/** Below this many flops (rows·cols²) the default stays on one thread: waking workers costs ~50 µs. */
export const PARALLEL_MIN_FLOPS = 2 ** 22;

/**
 * Job arguments. a[0] = kind (0: Gramian, 1: GEMM), a[6] = U (units) for both kinds.
 * Gramian: a[1..5] = P, rows, cols, kc, W; a[7..7+U] = tile-row bounds.
 * GEMM: a[1] = transB, a[2] = N, a[3] = K, a[4] = alpha, a[5] = A, a[7] = B, a[8] = beta,
 * a[9] = C, a[10..12] = kc, mc, nc; a[13..13+U] = row bounds; then PA, PB, T per unit.
 */
const ARG_KIND = 0;
const ARG_UNITS = 6;
const ARG_BOUNDS = 7;
const GEMM_BOUNDS = 13;
const MAX_UNITS = 256;
const KIND_SYRK = 0;
const KIND_GEMM = 1;
const SEQ = 0;
const STOP = 1;
const FAILED = 2;
const NEXT = 3;
const FINISHED = 4;
const CTL_SLOTS = 5;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { module, memory, ctl, args } = workerData;
const imports = { env: { memory, abort(_m, _f, line, col) { throw new Error('wasm kernel aborted at ' + line + ':' + col); } } };
const k = new WebAssembly.Instance(module, imports).exports;
const c = new Int32Array(ctl);
const a = new Float64Array(args);
parentPort.postMessage('ready');
let seen = 0;
for (;;) {
  Atomics.wait(c, ${SEQ}, seen);
  seen = Atomics.load(c, ${SEQ});
  if (Atomics.load(c, ${STOP}) !== 0) break;
  const gen = seen & 0x7fff;
  const units = a[${ARG_UNITS}];
  for (;;) {
    const v = Atomics.add(c, ${NEXT}, 1);
    const u = v & 0xffff;
    if ((v >>> 16) !== gen || u >= units) break;
    try {
      if (a[${ARG_KIND}] === ${KIND_SYRK}) {
        k.dsyrkPacked(a[1], a[2], a[3], a[4], a[5], a[${ARG_BOUNDS} + u], a[${ARG_BOUNDS} + u + 1]);
      } else {
        const m0 = a[${GEMM_BOUNDS} + u];
        const m1 = a[${GEMM_BOUNDS} + u + 1];
        const buf = ${GEMM_BOUNDS} + units + 1 + 3 * u;
        k.dgemm(0, a[1], m1 - m0, a[2], a[3], a[4], a[5] + m0 * a[3] * 8, a[7], a[8], a[9] + m0 * a[2] * 8,
          a[buf], a[buf + 1], a[buf + 2], a[10], a[11], a[12]);
      }
    } catch (e) {
      Atomics.add(c, ${FAILED}, 1);
    }
    Atomics.add(c, ${FINISHED}, 1);
    Atomics.notify(c, ${FINISHED});
  }
}
`;

interface Pool {
  readonly workers: Worker[];
  readonly ctl: Int32Array;
  readonly args: Float64Array;
}

let pool: Pool | undefined;
let lastStolen = 0;

/** Units (of about 4·threads) the calling thread ran itself in the last threaded Gramian. */
export function lastCallerUnits(): number {
  return lastStolen;
}

/** Threads available to the Gramian: workers + the calling thread (1 without a pool). */
export function threadCount(): number {
  return pool ? pool.workers.length + 1 : 1;
}

/**
 * Starts the worker pool (idempotent when the size matches; restarts otherwise).
 * @param threads total threads including the calling one; default os.availableParallelism()
 * @throws {ArgumentError} threads not an integer in [1, 64].
 * @throws Error if `init()` has not completed.
 * @example
 * ```ts
 * await init();
 * await linalg.startThreads(2);
 * linalg.gram(A, 4096, 256); // uses both cores
 * ```
 */
export async function startThreads(threads: number = availableParallelism()): Promise<number> {
  integerInRange('threads', threads, 1, 64);
  if (pool && pool.workers.length + 1 === threads) return threads;
  await stopThreads();
  if (threads === 1) return 1;
  const { module, memory } = wasm();
  const ctlBuf = new SharedArrayBuffer(4 * CTL_SLOTS);
  const argBuf = new SharedArrayBuffer(8 * (GEMM_BOUNDS + 4 * MAX_UNITS + 1));
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < threads - 1; i++) {
      const w = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { module, memory, ctl: ctlBuf, args: argBuf },
      });
      workers.push(w);
      await new Promise<void>((resolve, reject) => {
        w.once('message', () => resolve());
        w.once('error', reject);
      });
      w.unref();
    }
  } catch (e) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw e;
  }
  pool = { workers, ctl: new Int32Array(ctlBuf), args: new Float64Array(argBuf) };
  return threads;
}

/**
 * Stops the worker pool (no-op without one); later Gramians run on the calling thread.
 * @example
 * ```ts
 * await linalg.stopThreads();
 * linalg.threadCount(); // 1
 * ```
 */
export async function stopThreads(): Promise<void> {
  const p = pool;
  if (!p) return;
  pool = undefined;
  Atomics.store(p.ctl, STOP, 1);
  Atomics.add(p.ctl, SEQ, 1);
  Atomics.notify(p.ctl, SEQ);
  await Promise.all(p.workers.map((w) => w.terminate()));
}

/** Splits tile rows [0, nb) into `parts` contiguous ranges of about equal work (row I: nb − I tiles). */
export function splitTileRows(nb: number, parts: number): number[] {
  const total = (nb * (nb + 1)) / 2;
  const bounds = [0];
  let acc = 0;
  let I = 0;
  for (let t = 1; t < parts; t++) {
    const target = (total * t) / parts;
    while (I < nb && acc + (nb - I) / 2 < target) acc += nb - I++;
    bounds.push(I);
  }
  bounds.push(nb);
  return bounds;
}

/**
 * G += weight·(AᵀA) on the pool; returns false (doing nothing) when the pool should not be used.
 * @throws {ArgumentError} options.threads invalid or > 1 without a running pool.
 */
export function gramThreaded(
  A: Float64Array,
  rows: number,
  cols: number,
  scale: number,
  weight: number,
  G: Float64Array,
  options: ThreadOption | undefined,
): boolean {
  const threads = resolveThreads(options, rows * cols * cols);
  if (threads <= 1 || cols === 0 || !pool) return false;
  const p = pool;
  const { arena } = wasm();
  const k = linalgKernels();
  const nb = Math.ceil(cols / 4);
  const units = Math.min(nb, 4 * threads, MAX_UNITS);
  const bounds = splitTileRows(nb, units);
  arena.scope((s) => {
    const a = s.from(A).ptr;
    const g = s.from(G);
    const mp = nb * 4;
    const kc = syrkChunkRows(cols);
    const W = s.alloc(mp * mp, 0).ptr;
    const P = s.alloc(Math.ceil(rows / kc) * kc * mp).ptr;
    k.dsyrkPack(a, rows, cols, scale, P, kc);
    p.args.set([KIND_SYRK, P, rows, cols, kc, W, units], 0);
    p.args.set(bounds, ARG_BOUNDS);
    lastStolen = runJob(p, units, (u) => k.dsyrkPacked(P, rows, cols, kc, W, bounds[u]!, bounds[u + 1]!));
    k.dsyrkFinish(W, cols, weight, 1 / (scale * scale), g.ptr);
    G.set(g.view);
  });
  return true;
}

/**
 * C = α·A·op(B) + β·C on the pool (A not transposed, row-major M×K; op(B) K×N), C updated in
 * place; returns false (doing nothing) when the pool should not be used: no pool, one thread,
 * fewer than {@link PARALLEL_MIN_FLOPS} multiply-adds, transposed A (its row blocks are not
 * contiguous), or fewer than 8 rows.
 * @throws {ArgumentError} options.threads invalid or > 1 without a running pool.
 */
export function gemmThreaded(
  transA: boolean,
  transB: boolean,
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float64Array,
  B: Float64Array,
  beta: number,
  C: Float64Array,
  options: ThreadOption | undefined,
): boolean {
  const threads = resolveThreads(options, M * N * K);
  if (threads <= 1 || !pool || transA || M < 8 || N === 0) return false;
  const p = pool;
  const { arena } = wasm();
  const k = linalgKernels();
  const { kc, mc, nc } = gemmBlocking(M, N, K);
  // Row blocks on multiples of mc (or of 4 when M is small) so each unit sees the same blocking.
  const step = M >= threads * mc ? mc : 4;
  const units = Math.min(threads, Math.ceil(M / step));
  const bounds = [0];
  for (let u = 1; u < units; u++) bounds.push(Math.min(M, Math.round((u * M) / units / step) * step));
  bounds.push(M);
  arena.scope((s) => {
    const a = s.from(A).ptr;
    const b = s.from(B).ptr;
    const c = s.from(C);
    const buffers: number[] = [];
    for (let u = 0; u < units; u++) {
      buffers.push(s.alloc(Math.ceil(mc / 4) * 4 * kc).ptr, s.alloc(kc * Math.ceil(nc / 4) * 4).ptr, s.alloc(16).ptr);
    }
    p.args.set([KIND_GEMM, +transB, N, K, alpha, a, units, b, beta, c.ptr, kc, mc, nc], 0);
    p.args.set(bounds, GEMM_BOUNDS);
    p.args.set(buffers, GEMM_BOUNDS + units + 1);
    runJob(p, units, (u) => {
      const m0 = bounds[u]!;
      const m1 = bounds[u + 1]!;
      const [PA, PB, T] = buffers.slice(3 * u, 3 * u + 3) as [number, number, number];
      k.dgemm(0, +transB, m1 - m0, N, K, alpha, a + m0 * K * 8, b, beta, c.ptr + m0 * N * 8, PA, PB, T, kc, mc, nc);
    });
    C.set(c.view);
  });
  return true;
}

/** Threads to use for a job of `work` multiply-adds under `options` (1 = calling thread only). */
function resolveThreads(options: ThreadOption | undefined, work: number): number {
  if (options?.threads !== undefined) {
    const threads = integerInRange('options.threads', options.threads, 1, 64);
    if (threads > 1 && !pool)
      throw new ArgumentError(
        'options.threads',
        threads,
        'needs a running pool: call `await linalg.startThreads()` first',
      );
    return Math.min(threads, threadCount());
  }
  return work >= PARALLEL_MIN_FLOPS ? threadCount() : 1;
}

/**
 * Publishes the job whose arguments are already in p.args, runs units on the calling thread
 * too, and returns once all `units` have finished (see the module comment for the protocol).
 * Returns how many units the calling thread ran.
 * @throws Error if a worker's kernel failed.
 */
function runJob(p: Pool, units: number, runUnit: (u: number) => void): number {
  const seq = (Atomics.load(p.ctl, SEQ) + 1) | 0; // this job's generation
  const gen = seq & 0x7fff;
  Atomics.store(p.ctl, FAILED, 0);
  Atomics.store(p.ctl, FINISHED, 0);
  Atomics.store(p.ctl, NEXT, gen << 16);
  Atomics.store(p.ctl, SEQ, seq);
  Atomics.notify(p.ctl, SEQ);
  let mine = 0;
  try {
    for (;;) {
      const v = Atomics.add(p.ctl, NEXT, 1);
      const u = v & 0xffff;
      if (v >>> 16 !== gen || u >= units) break;
      runUnit(u);
      mine++;
      Atomics.add(p.ctl, FINISHED, 1);
    }
  } finally {
    // Units claimed by workers must finish before the caller frees their buffers. If the caller
    // threw, the remaining units are claimed away first so that no worker starts one.
    while (Atomics.load(p.ctl, NEXT) >>> 16 === gen && (Atomics.load(p.ctl, NEXT) & 0xffff) < units) {
      const v = Atomics.add(p.ctl, NEXT, 1);
      if ((v & 0xffff) < units) Atomics.add(p.ctl, FINISHED, 1);
    }
    for (;;) {
      const f = Atomics.load(p.ctl, FINISHED);
      if (f >= units) break;
      Atomics.wait(p.ctl, FINISHED, f);
    }
  }
  if (Atomics.load(p.ctl, FAILED) !== 0) throw new Error('a linalg worker thread failed');
  return mine;
}
