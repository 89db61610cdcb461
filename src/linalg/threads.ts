/**
 * Parallel Gramian on worker threads that share the one wasm memory.
 *
 * `await startThreads(n)` starts n − 1 workers; each instantiates the already compiled
 * `wasm().module` over `wasm().memory` (a shared WebAssembly.Memory), so a kernel running in a
 * worker reads and writes the same bytes as the main thread. A job is published through a small
 * SharedArrayBuffer (arguments + a generation counter) and Atomics.notify; the main thread runs
 * its own share and then Atomics.wait()s for the workers, so {@link gram} stays synchronous.
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
const DONE = 1;
const FAILED = 2;
const STOP = 3;

const WORKER_SOURCE = `
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
  const o = index * ${ARGS_PER_WORKER};
  try {
    if (a[o + 8] > a[o + 7]) k.dsyrkTiles(a[o], a[o + 1], a[o + 2], a[o + 3], a[o + 4], a[o + 5], a[o + 6], a[o + 7], a[o + 8]);
  } catch (e) {
    Atomics.add(c, ${FAILED}, 1);
  }
  Atomics.add(c, ${DONE}, 1);
  Atomics.notify(c, ${DONE});
}
`;

interface Pool {
  readonly workers: Worker[];
  readonly ctl: Int32Array;
  readonly args: Float64Array;
}

let pool: Pool | undefined;

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
  const ctlBuf = new SharedArrayBuffer(4 * 4);
  const argBuf = new SharedArrayBuffer(8 * ARGS_PER_WORKER * (threads - 1));
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < threads - 1; i++) {
      const w = new Worker(WORKER_SOURCE, {
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

/** Stops the worker pool (no-op without one). */
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
    for (let w = 0; w < nw; w++) {
      const o = w * ARGS_PER_WORKER;
      const t = w + 1; // thread 0 is the caller
      p.args.set([a, rows, cols, scale, W, P[Math.min(t, threads - 1)]!, kc, 0, 0], o);
      if (t < threads) {
        p.args[o + 7] = bounds[t]!;
        p.args[o + 8] = bounds[t + 1]!;
      }
    }
    Atomics.store(p.ctl, DONE, 0);
    Atomics.store(p.ctl, FAILED, 0);
    Atomics.add(p.ctl, SEQ, 1);
    Atomics.notify(p.ctl, SEQ);
    try {
      if (bounds[1]! > 0) k.dsyrkTiles(a, rows, cols, scale, W, P[0]!, kc, 0, bounds[1]!);
    } finally {
      // Always wait for the workers before the scope frees their buffers.
      for (;;) {
        const done = Atomics.load(p.ctl, DONE);
        if (done >= nw) break;
        Atomics.wait(p.ctl, DONE, done);
      }
    }
    if (Atomics.load(p.ctl, FAILED) !== 0) throw new Error('a Gramian worker thread failed');
    k.dsyrkFinish(W, cols, weight, 1 / (scale * scale), g.ptr);
    G.set(g.view);
  });
  return true;
}
