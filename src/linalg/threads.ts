/**
 * Parallel Gramian on worker threads that share the one wasm memory.
 *
 * `await startThreads(n)` starts n − 1 workers; each instantiates the already compiled
 * `wasm().module` over `wasm().memory` (a shared WebAssembly.Memory), so a kernel running in a
 * worker reads and writes the same bytes as the main thread. A job is published through a small
 * SharedArrayBuffer (arguments + a generation counter) and Atomics.notify; the main thread runs
 * its own share and then Atomics.wait()s for the workers, so {@link gram} stays synchronous.
 *
 * Gramian work split (dynamic, reproducible): the rows of A are cut into U units (ranges of whole
 * row chunks, largest first — see unitRows — at most 8 per thread and ~16 MiB of accumulators).
 * The caller publishes the job, then copies A into wasm memory chunk by chunk, publishing the rows
 * copied so far; the workers start on the first units at once and wait in the kernel for rows not
 * yet there. Every thread, the caller included once its copy is done, claims units until none is
 * left. A unit runs exactly the one-thread kernels on its rows into its own accumulator W_u (so
 * threads share nothing but the read-only A; a unit's first chunk writes W_u, so nothing is
 * zero-filled); then one more job, by ranges of 32×32 blocks of the upper triangle, forms W_0 +
 * W_1 + … in unit order and adds it·w/s² to G and to its mirror image. The sum of each entry is
 * grouped by unit instead of running through all rows at once, so two threads agree with one
 * thread within the summation bound rows·eps·(|A|ᵀ|A|)_ij, not bit for bit; but which thread ran
 * which unit cannot change a bit, so a given thread count gives the same result on every run. A
 * worker that wakes late (a busy machine) simply finds fewer units left: the caller never waits
 * for a worker that has not started, and a thread slowed down by the host hands its later units to
 * the other.
 *
 * Claim word: ctl[NEXT] = (generation & 0x7fff) << 16 | next unit. A worker reads the unit count U
 * after seeing the new generation in ctl[SEQ] (published last) and claims by compare-and-swap of
 * (its generation, u) → (its generation, u + 1) when u < U — so a stale worker can neither run
 * nor use up a unit of a newer job (an unconditional increment could: a worker finishing its last
 * unit would bump the counter of the job the caller published in the meantime, and that unit would
 * never run), and the arguments of a job stay intact while any of its units is claimed but
 * unfinished (the caller publishes the next job only after all U units have finished).
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
import { countNonFinite, gemmBlocking } from './gemm.js';
import type { SyrkAccept } from './backend.js';
import { linalgKernels, residentOffset, syrkChunkRows, syrkReadsInPlace } from './wasmBackend.js';

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
 * Job arguments. a[0] = kind (0: Gramian, 1: GEMM, 2: Gramian sum and finish), a[6] = U (units) for
 * every kind.
 * Gramian: a[1] = A, a[2] = cols, a[3] = scale, a[4] = 1 for the no-pack kernel, a[5] = the
 * accumulators (one mp×mp per unit), a[7] = the pack buffers (kc·mp per unit), a[8] = kc, a[9] =
 * address of the rows-copied counter, a[10] = mp; a[13..13+U] = row bounds, then the units' max|a_ij|.
 * Gramian sum and finish (2): a[1] = the accumulators, a[2] = their count, a[3] = cols, a[4] =
 * weight, a[5] = 1/s², a[7] = G; a[13..13+U] = bounds of ranges of blocks (dsyrkSumFinish), then
 * the units' non-finite counts.
 * GEMM: a[1] = transB, a[2] = N, a[3] = K, a[4] = alpha, a[5] = A, a[7] = B, a[8] = beta,
 * a[9] = C, a[10..12] = kc, mc, nc; a[13..13+U] = row bounds; then PA, PB, T per unit.
 */
const ARG_KIND = 0;
const ARG_UNITS = 6;
const GEMM_BOUNDS = 13;
const MAX_UNITS = 256;
const KIND_SYRK = 0;
const KIND_GEMM = 1;
const KIND_SUM_FINISH = 2;
/** Gramian jobs: unit bounds from a[13] (U + 1 of them), then one result (max|a_ij|) per unit. */
const SYRK_BOUNDS = 13;
/**
 * Most units per thread in the Gramian's jobs (unitRows sizes them largest first): enough that a
 * thread slowed down by the machine (the host shares these cores) hands its later units to the
 * other and that the last ones are small, few enough that summing the per-unit
 * accumulators stays cheap (16 per thread measured no better, paired).
 */
const UNITS_PER_THREAD = 8;
/**
 * The threaded Gramian copies all of A into wasm memory (the one-thread path streams it); above
 * this size it leaves A to the one-thread path, which needs only a chunk at a time.
 */
const THREADED_COPY_MAX_BYTES = 2 ** 30;
const SEQ = 0;
const STOP = 1;
const FAILED = 2;
const NEXT = 3;
const FINISHED = 4;
const CTL_SLOTS = 5;
/**
 * How long (ms) a thread polls a control word before it sleeps on it (Atomics.wait): a Gramian is
 * two jobs in a row (units, then sum and finish) and the caller waits for the workers' last unit,
 * and on this VM a sleeping thread takes tens of µs to wake. Bounded by time, not by a count of
 * polls: 20 000 polls took 0.3–1.6 ms in a worker (its loop is not optimised code yet), CPU the
 * other core's work could use.
 */
const SPIN_MS = 0.05;

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
  const spinEnd = performance.now() + ${SPIN_MS};
  while (Atomics.load(c, ${SEQ}) === seen && performance.now() < spinEnd);
  Atomics.wait(c, ${SEQ}, seen);
  seen = Atomics.load(c, ${SEQ});
  if (Atomics.load(c, ${STOP}) !== 0) break;
  const gen = seen & 0x7fff;
  const units = a[${ARG_UNITS}];
  for (;;) {
    const v = Atomics.load(c, ${NEXT});
    const u = v & 0xffff;
    if ((v >>> 16) !== gen || u >= units) break;
    if (Atomics.compareExchange(c, ${NEXT}, v, v + 1) !== v) continue;
    try {
      if (a[${ARG_KIND}] === ${KIND_SUM_FINISH}) {
        a[${SYRK_BOUNDS} + units + 1 + u] = k.dsyrkSumFinish(a[1], a[2], a[3], a[4], a[5], a[7], a[${SYRK_BOUNDS} + u], a[${SYRK_BOUNDS} + u + 1]);
      } else if (a[${ARG_KIND}] === ${KIND_SYRK}) {
        const mp = a[10];
        a[${SYRK_BOUNDS} + units + 1 + u] = k.dsyrkRows(a[1], a[${SYRK_BOUNDS} + u], a[${SYRK_BOUNDS} + u + 1], a[2], a[3], a[4],
          a[5] + u * mp * mp * 8, a[4] ? 0 : a[7] + u * a[8] * mp * 8, a[8], a[9]);
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

/** The pool's shared state (exported for the protocol's tests). @internal */
export interface Pool {
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

/**
 * Row ranges of the threaded Gramian's units, on whole chunks of kc rows, largest first: each unit
 * takes about 1/(2·threads) of the chunks still left (guided scheduling), so the last units are
 * small and the thread that finishes first does not wait long for the other. The number of units
 * is bounded by {@link UNITS_PER_THREAD}·threads and by the memory of their accumulators (one
 * mp×mp each, ~16 MiB in all, but one per thread at least), which sets the smallest unit.
 */
export function unitRows(rows: number, kc: number, threads: number, mp: number): number[] {
  const chunks = Math.ceil(rows / kc);
  const maxUnits = Math.min(
    chunks,
    UNITS_PER_THREAD * threads,
    MAX_UNITS,
    Math.max(threads, Math.floor(2 ** 21 / mp ** 2)),
  );
  const smallest = Math.ceil(chunks / Math.max(maxUnits, 1));
  const bounds = [0];
  let done = 0;
  while (done < chunks) {
    done += Math.min(chunks - done, Math.max(smallest, Math.ceil((chunks - done) / (2 * threads))));
    bounds.push(Math.min(rows, done * kc));
  }
  return bounds;
}

/**
 * The Gramian of {@link LinalgBackend.syrk} (same arguments and contract) on the pool; returns
 * undefined (doing nothing) when the pool should not be used (one thread, no pool, or A over
 * 1 GiB). Units of row chunks into per-unit accumulators, then their sum and G by blocks (see the
 * module comment): within the summation bound of the one-thread result, the same bits every run.
 * @throws {ArgumentError} options.threads invalid or > 1 without a running pool.
 */
export function gramThreaded(
  A: Float64Array,
  rows: number,
  cols: number,
  scale: number,
  weight: number,
  G: Float64Array,
  overwrite: boolean,
  accept: SyrkAccept,
  options: ThreadOption | undefined,
): boolean | undefined {
  const threads = resolveThreads(options, rows * cols * cols);
  // No rows: no unit would run to write an accumulator; the one-thread path handles it.
  if (threads <= 1 || cols === 0 || rows === 0 || !pool) return undefined;
  const p = pool;
  const { arena } = wasm();
  const k = linalgKernels();
  const direct = syrkReadsInPlace(cols);
  const at = residentOffset(A, direct, scale); // A already in wasm memory: no copy
  if (at === undefined && rows * cols * 8 > THREADED_COPY_MAX_BYTES) return undefined;
  const nb = Math.ceil(cols / 4);
  const mp = nb * 4;
  const kc = syrkChunkRows(cols);
  const rb = unitRows(rows, kc, threads, mp); // unit u: rows [rb[u], rb[u + 1])
  const units = rb.length - 1;
  return arena.scope((s) => {
    const aBlock = at === undefined ? s.alloc(rows * cols) : undefined;
    const a = aBlock?.ptr ?? at!;
    const readyBlock = s.alloc(1, 0);
    const ready = readyBlock.ptr;
    const readyView = new Int32Array(readyBlock.view.buffer, ready, 1);
    if (!aBlock) Atomics.store(readyView, 0, rows); // resident A: every row is ready
    const g = overwrite ? s.alloc(cols * cols, 0) : s.from(G);
    // one accumulator per unit, written (not added to) by its first chunk
    const W = s.alloc(units * mp * mp).ptr;
    const P = direct ? 0 : s.alloc(units * kc * mp).ptr; // one pack buffer per unit
    const Wu = (u: number): number => W + u * mp * mp * 8;
    const Pu = (u: number): number => (direct ? 0 : P + u * kc * mp * 8);
    // A is copied in after the job is published, one row chunk at a time: the workers start on
    // the first chunks (waiting in the kernel for `ready`) while the caller copies the rest.
    const copyIn = (): void => {
      if (!aBlock) return;
      const view = aBlock.view;
      for (let r0 = 0; r0 < rows; r0 += kc) {
        const r1 = Math.min(rows, r0 + kc);
        view.set(A.subarray(r0 * cols, r1 * cols), r0 * cols);
        if (direct && scale !== 1) k.dscal(a + r0 * cols * 8, (r1 - r0) * cols, scale);
        Atomics.store(readyView, 0, r1);
      }
    };
    const out = SYRK_BOUNDS + units + 1;
    p.args.set([KIND_SYRK, a, cols, scale, +direct, W, units, P, kc, ready, mp], 0);
    p.args.set(rb, SYRK_BOUNDS);
    lastStolen = runJob(
      p,
      units,
      (u) => {
        p.args[out + u] = k.dsyrkRows(a, rb[u]!, rb[u + 1]!, cols, scale, +direct, Wu(u), Pu(u), kc, ready);
      },
      copyIn,
    );
    let amax = 0;
    for (let u = 0; u < units; u++) amax = Math.max(amax, p.args[out + u]! / (direct ? scale : 1));
    // The units' sum (in unit order, so the result does not depend on which thread ran which
    // unit) and G += W·weight/s² with its mirror, by ranges of 32×32 blocks on the pool.
    const blocks = k.sumFinishBlocks(cols);
    const fu = Math.min(blocks, 4 * threads);
    const fb: number[] = [];
    for (let u = 0; u <= fu; u++) fb.push(Math.round((u * blocks) / fu));
    const f = 1 / (scale * scale);
    const fout = SYRK_BOUNDS + fu + 1;
    p.args.set(fb, SYRK_BOUNDS);
    p.args.set([KIND_SUM_FINISH, W, units, cols, weight, f, fu, g.ptr], 0); // a[6]: unit count
    runJob(p, fu, (u) => {
      p.args[fout + u] = k.dsyrkSumFinish(W, units, cols, weight, f, g.ptr, fb[u]!, fb[u + 1]!);
    });
    let nonFinite = 0;
    for (let u = 0; u < fu; u++) nonFinite += p.args[fout + u]!;
    if (!accept(amax, nonFinite)) return false;
    G.set(g.view);
    return true;
  });
}

/**
 * C = α·A·op(B) + β·C on the pool (A not transposed, row-major M×K; op(B) K×N), C updated in
 * place only if `accept(non-finite entries of the result)` holds (the contract of
 * LinalgBackend.gemm); returns undefined (doing nothing) when the pool should not be used: no
 * pool, one thread, fewer than {@link PARALLEL_MIN_FLOPS} multiply-adds, transposed A (its row
 * blocks are not contiguous), or fewer than 8 rows; else whether C was written.
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
  accept: (nonFinite: number) => boolean,
  options: ThreadOption | undefined,
): boolean | undefined {
  const threads = resolveThreads(options, M * N * K);
  if (threads <= 1 || !pool || transA || M < 8 || N === 0) return undefined;
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
  return arena.scope((s) => {
    const a = s.from(A).ptr;
    const b = s.from(B).ptr;
    const c = beta === 0 ? s.alloc(M * N) : s.from(C); // β = 0: C is not read
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
    if (!accept(countNonFinite(c.view))) return false;
    C.set(c.view);
    return true;
  });
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
 * Publishes the job whose arguments are already in p.args, runs `beforeClaiming` (work only the
 * caller can do, such as copying A in, while the workers start), runs units on the calling thread
 * too, and returns once all `units` have finished (see the module comment for the protocol).
 * Returns how many units the calling thread ran.
 * @throws Error if a worker's kernel failed.
 */
function runJob(p: Pool, units: number, runUnit: (u: number) => void, beforeClaiming?: () => void): number {
  const job = publishJob(p);
  let mine = 0;
  try {
    beforeClaiming?.();
    for (;;) {
      const u = claimUnit(p, job, units);
      if (u < 0) break;
      runUnit(u);
      mine++;
    }
  } finally {
    finishJob(p, job, units, mine);
  }
  return mine;
}

/** Publishes the job whose arguments are already in p.args; returns its generation. @internal */
export function publishJob(p: Pool): number {
  const seq = (Atomics.load(p.ctl, SEQ) + 1) | 0;
  Atomics.store(p.ctl, FAILED, 0);
  Atomics.store(p.ctl, FINISHED, 0);
  Atomics.store(p.ctl, NEXT, (seq & 0x7fff) << 16);
  Atomics.store(p.ctl, SEQ, seq);
  Atomics.notify(p.ctl, SEQ);
  return seq & 0x7fff;
}

/**
 * Claims the next unit of job `gen` for the calling thread; −1 when none is left or when `gen` is
 * not the current job (a stale claim changes nothing). @internal
 */
export function claimUnit(p: Pool, gen: number, units: number): number {
  for (;;) {
    const v = Atomics.load(p.ctl, NEXT);
    const u = v & 0xffff;
    if (v >>> 16 !== gen || u >= units) return -1;
    if (Atomics.compareExchange(p.ctl, NEXT, v, v + 1) === v) return u;
  }
}

/**
 * Ends job `gen` on the calling thread, which ran `mine` units itself: claims away any unit left
 * (so that no worker starts one after the caller failed), closes the claim word, then waits until
 * every unit claimed by a worker has finished, so that the caller may free their buffers.
 * Closing matters: a worker that woke late for this job may read the unit count of the NEXT job's
 * arguments (the caller writes them before publishing it) while still holding this generation; with
 * the word left at (gen, U) and the next job's count above U, its claim would succeed and run a
 * unit of the next job twice (seen in CI: a finish unit applied twice, G off in its last bits).
 * At (gen, 0xffff) no claim for this generation can succeed. Returns `mine`. @internal
 * @throws Error if a worker's kernel failed.
 */
export function finishJob(p: Pool, gen: number, units: number, mine: number): number {
  Atomics.add(p.ctl, FINISHED, mine);
  while (claimUnit(p, gen, units) >= 0) Atomics.add(p.ctl, FINISHED, 1);
  Atomics.store(p.ctl, NEXT, (gen << 16) | 0xffff);
  const spinEnd = performance.now() + SPIN_MS;
  while (Atomics.load(p.ctl, FINISHED) < units && performance.now() < spinEnd);
  for (;;) {
    const f = Atomics.load(p.ctl, FINISHED);
    if (f >= units) break;
    Atomics.wait(p.ctl, FINISHED, f);
  }
  if (Atomics.load(p.ctl, FAILED) !== 0) throw new Error('a linalg worker thread failed');
  return mine;
}
