/**
 * Parallel Gramian on worker threads that share the one wasm memory.
 *
 * `await startThreads(n)` starts n − 1 workers; each instantiates the already compiled
 * `wasm().module` over `wasm().memory` (a shared WebAssembly.Memory), so a kernel running in a
 * worker reads and writes the same bytes as the main thread. A job is published through a small
 * SharedArrayBuffer (arguments + a generation counter) and Atomics.notify; the main thread runs
 * its own share and then Atomics.wait()s for the workers, so {@link gram} stays synchronous.
 *
 * Claim protocol (robust to a worker that wakes late on a busy machine): for job g each worker's
 * range starts "unclaimed" (claim[w] = −g). A worker runs its range only after
 * CAS(claim[w], −g → g) succeeds, then reads the arguments, runs, and publishes fin[w] = g. The
 * caller, once its own range is done, tries CAS(claim[w], −g → 0) on every worker range: if it wins,
 * it runs that range itself; if the worker won, it waits for fin[w] = g. So a late worker never
 * delays the call (at worst the caller does everything, as on one thread), a stale worker can never
 * claim a newer job (its CAS expects the old −g), and the arguments of job g stay intact while a
 * worker that claimed it is running (the caller publishes job g + 1 only after fin[w] = g).
 *
 * Work split: the Gramian's upper tiles are partitioned by tile rows I (row I holds nb − I tiles)
 * into contiguous ranges of equal work; the ranges write disjoint parts of the accumulator W,
 * and each thread packs into its own panel buffer. The result is bit-for-bit the one-thread
 * result: every tile is summed over the same rows in the same order whichever thread computes it.
 *
 * Without a running pool (or with `threads: 1`) everything runs on the calling thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { wasm } from '../wasm/module.js';
import { linalgKernels, syrkBuffers } from './wasmBackend.js';

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

const ARGS_PER_WORKER = 9;
const SEQ = 0;
const STOP = 1;
const FAILED = 2;
/** ctl[CLAIM + w]: −g unclaimed for job g, g claimed by worker w, 0 taken by the caller. */
const CLAIM = 4;

/** Offset of worker w's "finished job" slot in ctl (after the claim slots). */
const finSlot = (workers: number, w: number) => CLAIM + workers + w;

function workerSource(workers: number): string {
  return `
const { workerData, parentPort } = require('node:worker_threads');
const { module, memory, ctl, args, index } = workerData;
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
  if (Atomics.compareExchange(c, ${CLAIM} + index, -seen, seen) !== -seen) continue;
  const o = index * ${ARGS_PER_WORKER};
  try {
    k.dsyrkTiles(a[o], a[o + 1], a[o + 2], a[o + 3], a[o + 4], a[o + 5], a[o + 6], a[o + 7], a[o + 8]);
  } catch (e) {
    Atomics.add(c, ${FAILED}, 1);
  }
  Atomics.store(c, ${CLAIM} + ${workers} + index, seen);
  Atomics.notify(c, ${CLAIM} + ${workers} + index);
}
`;
}

interface Pool {
  readonly workers: Worker[];
  readonly ctl: Int32Array;
  readonly args: Float64Array;
}

let pool: Pool | undefined;
let lastStolen = 0;

/** Worker ranges the calling thread ran itself in the last threaded Gramian (late workers). */
export function lastStolenRanges(): number {
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
  const ctlBuf = new SharedArrayBuffer(4 * (CLAIM + 2 * (threads - 1)));
  const argBuf = new SharedArrayBuffer(8 * ARGS_PER_WORKER * (threads - 1));
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < threads - 1; i++) {
      const w = new Worker(workerSource(threads - 1), {
        eval: true,
        workerData: { module, memory, ctl: ctlBuf, args: argBuf, index: i },
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
  let threads: number;
  if (options?.threads !== undefined) {
    threads = integerInRange('options.threads', options.threads, 1, 64);
    if (threads > 1 && !pool)
      throw new ArgumentError(
        'options.threads',
        threads,
        'needs a running pool: call `await linalg.startThreads()` first',
      );
    threads = Math.min(threads, threadCount());
  } else {
    threads = rows * cols * cols >= PARALLEL_MIN_FLOPS ? threadCount() : 1;
  }
  if (threads <= 1 || cols === 0 || !pool) return false;
  const p = pool;
  const { arena } = wasm();
  const k = linalgKernels();
  const nb = Math.ceil(cols / 4);
  const bounds = splitTileRows(nb, threads);
  arena.scope((s) => {
    const a = s.from(A).ptr;
    const g = s.from(G);
    const { W, P, kc } = syrkBuffers(s, cols, threads);
    const nw = p.workers.length;
    const seq = Atomics.load(p.ctl, SEQ) + 1; // this job's generation (>= 1)
    // Worker w runs range t = w + 1 (ranges beyond `threads` do not exist: claimed by nobody).
    const active: number[] = [];
    for (let w = 0; w < nw; w++) {
      const t = w + 1;
      if (t < threads && bounds[t + 1]! > bounds[t]!) {
        p.args.set([a, rows, cols, scale, W, P[t]!, kc, bounds[t]!, bounds[t + 1]!], w * ARGS_PER_WORKER);
        Atomics.store(p.ctl, CLAIM + w, -seq);
        active.push(w);
      } else Atomics.store(p.ctl, CLAIM + w, 0);
    }
    Atomics.store(p.ctl, FAILED, 0);
    Atomics.store(p.ctl, SEQ, seq);
    Atomics.notify(p.ctl, SEQ);
    let stolen = 0;
    try {
      if (bounds[1]! > 0) k.dsyrkTiles(a, rows, cols, scale, W, P[0]!, kc, 0, bounds[1]!);
      for (const w of active) {
        if (Atomics.compareExchange(p.ctl, CLAIM + w, -seq, 0) === -seq) {
          stolen++;
          k.dsyrkTiles(a, rows, cols, scale, W, P[0]!, kc, bounds[w + 1]!, bounds[w + 2]!);
        }
      }
    } finally {
      // A range taken by a worker must be finished before the scope frees its buffers. (If the
      // caller threw, un-taken ranges are taken now so that no worker starts on freed memory.)
      for (const w of active) {
        if (Atomics.compareExchange(p.ctl, CLAIM + w, -seq, 0) === -seq) continue;
        if (Atomics.load(p.ctl, CLAIM + w) !== seq) continue; // taken by the caller
        const fin = finSlot(nw, w);
        for (;;) {
          const f = Atomics.load(p.ctl, fin);
          if (f === seq) break;
          Atomics.wait(p.ctl, fin, f);
        }
      }
    }
    lastStolen = stolen;
    if (Atomics.load(p.ctl, FAILED) !== 0) throw new Error('a Gramian worker thread failed');
    k.dsyrkFinish(W, cols, weight, 1 / (scale * scale), g.ptr);
    G.set(g.view);
  });
  return true;
}
