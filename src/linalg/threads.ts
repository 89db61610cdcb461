/**
 * Parallel Gramian on worker threads that share the one wasm memory.
 *
 * `await startThreads(n)` (./threadChoice.ts) starts n − 1 workers; each instantiates the already compiled
 * `wasm().module` over `wasm().memory` (a shared WebAssembly.Memory), so a kernel running in a
 * worker reads and writes the same bytes as the main thread. A job is one kernel called once per
 * unit: {@link encodeJob} writes every unit's arguments by name into typed slots of a small
 * SharedArrayBuffer ({@link JobArgs}: f64, i32 and u32 tables, positions and types from the
 * kernel's generated signature), a control block holds the generation counter and claim word,
 * and Atomics.notify wakes the workers. Workers and the main thread run units through one
 * decoder (the same source), so they cannot read a job differently; the main thread runs its own
 * share and then Atomics.wait()s for the workers, so {@link gram} stays synchronous.
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
import { Worker } from 'node:worker_threads';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { KERNEL_SIGNATURES, wasm, type KernelExports, type KernelName, type KernelValueType } from '../wasm/module.js';
import type { GemmCall, SyrkCall, ThreadOption } from './calls.js';
import { countNonFinite, gemmBlocking } from './gemm.js';
import { gemmBuffers, linalgKernels, residentOffset, syrkChunkRows, syrkReadsInPlace } from './wasmKernels.js';

export type { ThreadOption };

/** Below this many flops (rows·cols²) the default stays on one thread: waking workers costs ~50 µs. */
export const PARALLEL_MIN_FLOPS = 2 ** 22;

/** Most units a job can have (bounds of the argument tables). */
const MAX_UNITS = 256;
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

/**
 * The kernels a job may run: a job is one call of one of them per unit, with every argument of
 * every unit written into {@link JobArgs} by {@link encodeJob}.
 */
export const JOB_KERNELS = ['dsyrkRows', 'dsyrkSumFinish', 'dgemm'] as const;

/** A kernel a job may run. */
export type JobKernel = (typeof JOB_KERNELS)[number];

/**
 * The named arguments of kernel K (a `bool` is 0 or 1). Names and order come from
 * src/wasm/kernels.generated.ts (asc's own declarations), the same table the workers decode by.
 */
export type KernelArgs<K extends KernelName> = {
  readonly [P in (typeof KERNEL_SIGNATURES)[K]['params'][number] as P[0]]: number;
};

/** Which typed table holds an argument or result: f64, i32 (also bool), u32 (usize), none (void). */
const SLOT_F64 = 0;
const SLOT_I32 = 1;
const SLOT_U32 = 2;
const SLOT_NONE = 3;

function slotOf(type: KernelValueType | 'void'): number {
  if (type === 'f64') return SLOT_F64;
  if (type === 'i32' || type === 'bool') return SLOT_I32;
  if (type === 'usize') return SLOT_U32;
  if (type === 'void') return SLOT_NONE;
  throw new Error(`threads: no argument slot for the AssemblyScript type ${type}`);
}

/** Each job kernel's parameter slots and result slot, in {@link JOB_KERNELS} order (sent to the workers). */
const JOB_SIGNATURES = JOB_KERNELS.map((name) => ({
  name,
  slots: KERNEL_SIGNATURES[name].params.map(([, type]) => slotOf(type)),
  result: slotOf(KERNEL_SIGNATURES[name].result),
}));

/** Most parameters of a job kernel (dgemm's 16): the width of a unit's row of argument slots. */
const MAX_ARGS = Math.max(...JOB_SIGNATURES.map((k) => k.slots.length));

/** header[H_KERNEL] = index of the job's kernel in JOB_KERNELS; header[H_UNITS] = its unit count. */
const H_KERNEL = 0;
const H_UNITS = 1;

/**
 * The arguments and results of the current job, in one SharedArrayBuffer that the main thread
 * and every worker see through these same views (they are passed to the workers as they are):
 * unit u's argument i is slot u·MAX_ARGS + i of `f64`, `i32` or `u32` (`i32` and `u32` share
 * bytes), by the AssemblyScript type of the kernel's parameter i; its result goes to `f64Result[u]`
 * or `i32Result[u]`. Pointers are u32, so none is stored as a double or read back negative.
 */
export interface JobArgs {
  readonly header: Int32Array;
  readonly f64: Float64Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f64Result: Float64Array;
  readonly i32Result: Int32Array;
}

/** Fresh job argument views over a new SharedArrayBuffer. @internal */
export function newJobArgs(): JobArgs {
  const slots = MAX_UNITS * MAX_ARGS;
  const buf = new SharedArrayBuffer(8 * (slots + MAX_UNITS) + 4 * (4 + slots + MAX_UNITS));
  let at = 0;
  const take = <T>(make: (offset: number) => T, bytes: number): T => {
    const v = make(at);
    at += bytes;
    return v;
  };
  const f64 = take((o) => new Float64Array(buf, o, slots), 8 * slots);
  const f64Result = take((o) => new Float64Array(buf, o, MAX_UNITS), 8 * MAX_UNITS);
  const header = take((o) => new Int32Array(buf, o, 4), 16);
  const intAt = at;
  const i32 = take((o) => new Int32Array(buf, o, slots), 4 * slots);
  const u32 = new Uint32Array(buf, intAt, slots);
  const i32Result = take((o) => new Int32Array(buf, o, MAX_UNITS), 4 * MAX_UNITS);
  return { header, f64, i32, u32, f64Result, i32Result };
}

/**
 * Writes a job: kernel `kernel` once per unit u < `units`, with the named arguments
 * `unitArgs(u)`, each into the slot its parameter's position and type give (see
 * {@link JobArgs}). An integer argument must be exactly representable in its slot (i32, or u32
 * for a pointer): a value that would change is an error, not a silent wrap.
 * @throws Error units outside [0, 256], or an argument missing or not representable in its slot.
 */
export function encodeJob<K extends JobKernel>(
  job: JobArgs,
  kernel: K,
  units: number,
  unitArgs: (u: number) => KernelArgs<K>,
): void {
  if (!(Number.isInteger(units) && units >= 0 && units <= MAX_UNITS))
    throw new Error(`threads: a job has between 0 and ${MAX_UNITS} units, not ${units}`);
  const params: readonly (readonly [string, KernelValueType])[] = KERNEL_SIGNATURES[kernel].params;
  for (let u = 0; u < units; u++) {
    const named = unitArgs(u) as Readonly<Record<string, number | undefined>>;
    const base = u * MAX_ARGS;
    for (let i = 0; i < params.length; i++) {
      const [name, type] = params[i]!;
      const x = named[name];
      const slot = slotOf(type);
      const exact =
        x !== undefined &&
        (slot === SLOT_F64 ||
          (slot === SLOT_U32 ? x >>> 0 === x : type === 'bool' ? x === 0 || x === 1 : (x | 0) === x));
      if (!exact)
        throw new Error(`threads: ${kernel} unit ${u}: argument ${name} = ${String(x)} does not fit its ${type} slot`);
      if (slot === SLOT_F64) job.f64[base + i] = x;
      else if (slot === SLOT_U32) job.u32[base + i] = x;
      else job.i32[base + i] = x;
    }
  }
  job.header[H_KERNEL] = JOB_KERNELS.indexOf(kernel);
  job.header[H_UNITS] = units;
}

/**
 * Runs unit u of the job in `job`: decodes its arguments by the kernel's slots and stores the
 * result. The one decoder of both sides: the workers run this source, and the main thread runs a
 * function compiled from it ({@link callUnit}), so they cannot read a job differently.
 */
const CALL_UNIT_SOURCE = `function callUnit(fns, signatures, job, u) {
  const kernel = job.header[${H_KERNEL}];
  const sig = signatures[kernel];
  const base = u * ${MAX_ARGS};
  const argv = new Array(sig.slots.length);
  for (let i = 0; i < argv.length; i++) {
    const slot = sig.slots[i];
    argv[i] = slot === ${SLOT_F64} ? job.f64[base + i] : slot === ${SLOT_U32} ? job.u32[base + i] : job.i32[base + i];
  }
  const r = fns[kernel].apply(undefined, argv);
  if (sig.result === ${SLOT_F64}) job.f64Result[u] = r;
  else if (sig.result !== ${SLOT_NONE}) job.i32Result[u] = r;
}`;

type CallUnit = (
  fns: readonly ((...args: number[]) => number | void)[],
  signatures: typeof JOB_SIGNATURES,
  job: JobArgs,
  u: number,
) => void;

/** {@link CALL_UNIT_SOURCE} compiled on the main thread. */
const callUnit = new Function(`return ${CALL_UNIT_SOURCE}`)() as CallUnit;

/** The job kernels of the loaded instance, in {@link JOB_KERNELS} order. */
function jobFunctions(): ((...args: number[]) => number | void)[] {
  const k: Pick<KernelExports, JobKernel> = wasm().exports;
  return JOB_KERNELS.map((name): ((...args: number[]) => number | void) => k[name]);
}

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { module, memory, ctl: c, job, signatures } = workerData;
const imports = { env: { memory, abort(_m, _f, line, col) { throw new Error('wasm kernel aborted at ' + line + ':' + col); } } };
const k = new WebAssembly.Instance(module, imports).exports;
const fns = signatures.map((s) => k[s.name]);
${CALL_UNIT_SOURCE}
parentPort.postMessage('ready');
let seen = 0;
for (;;) {
  const spinEnd = performance.now() + ${SPIN_MS};
  while (Atomics.load(c, ${SEQ}) === seen && performance.now() < spinEnd);
  Atomics.wait(c, ${SEQ}, seen);
  seen = Atomics.load(c, ${SEQ});
  if (Atomics.load(c, ${STOP}) !== 0) break;
  const gen = seen & 0x7fff;
  const units = job.header[${H_UNITS}];
  for (;;) {
    const v = Atomics.load(c, ${NEXT});
    const u = v & 0xffff;
    if ((v >>> 16) !== gen || u >= units) break;
    if (Atomics.compareExchange(c, ${NEXT}, v, v + 1) !== v) continue;
    try {
      callUnit(fns, signatures, job, u);
    } catch (e) {
      Atomics.add(c, ${FAILED}, 1);
    }
    Atomics.add(c, ${FINISHED}, 1);
    Atomics.notify(c, ${FINISHED});
  }
}
`;

/**
 * The pool's control words and workers (exported for the protocol's tests, which build one on a
 * private control block). `args` is the f64 argument table of the running pool's jobs
 * (`job.f64`); the protocol functions read only `ctl`. @internal
 */
export interface Pool {
  readonly workers: Worker[];
  readonly ctl: Int32Array;
  readonly args: Float64Array;
}

/** A started pool: its jobs' arguments and results. */
interface RunningPool extends Pool {
  readonly job: JobArgs;
}

let pool: RunningPool | undefined;
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
 * Starts a pool of `threads` threads (idempotent when the size matches; restarts otherwise): the
 * numeric case of {@link startThreads} (./threadChoice.ts, which also decides `'auto'`).
 * @throws {ArgumentError} threads not an integer in [1, 64].
 * @throws Error if `init()` has not completed.
 */
export async function startPool(threads: number): Promise<number> {
  integerInRange('threads', threads, 1, 64);
  if (pool && pool.workers.length + 1 === threads) return threads;
  await stopThreads();
  if (threads === 1) return 1;
  const { module, memory } = wasm();
  const ctl = new Int32Array(new SharedArrayBuffer(4 * CTL_SLOTS));
  const job = newJobArgs();
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < threads - 1; i++) {
      const w = new Worker(WORKER_SOURCE, {
        eval: true,
        // typed arrays over SharedArrayBuffers arrive as views onto the same bytes
        workerData: { module, memory, ctl, job, signatures: JOB_SIGNATURES },
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
  pool = { workers, ctl, job, args: job.f64 };
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
 * The Gramian of {@link LinalgBackend.syrk} (same call and contract) on the pool; returns
 * undefined (doing nothing) when the pool should not be used (no thread option, one thread, no
 * pool, an upper-triangular call, or A over 1 GiB). Units of row chunks into per-unit
 * accumulators, then their sum and G by blocks (see the module comment): within the summation
 * bound of the one-thread result, the same bits every run.
 * @throws {ArgumentError} options.threads invalid or > 1 without a running pool.
 */
export function gramThreaded(call: SyrkCall): boolean | undefined {
  const { A, rows, cols, scale, weight, G, overwrite, accept } = call;
  const threads = resolveThreads(call.pool, rows * cols * cols);
  // No rows: no unit would run to write an accumulator; the one-thread path handles it.
  if (threads <= 1 || cols === 0 || rows === 0 || !pool || call.upperTriangular) return undefined;
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
    const ready = s.allocI32(1, 0); // rows of A copied so far; the kernels wait on it
    const readyView = ready.view;
    if (!aBlock) Atomics.store(readyView, 0, rows); // resident A: every row is ready
    const g = overwrite ? s.alloc(cols * cols, 0) : s.from(G);
    // one accumulator per unit (contiguous: dsyrkSumFinish walks them), written (not added to) by
    // its first chunk; one pack buffer per unit
    const W = s.alloc(units * mp * mp);
    const P = direct ? undefined : s.alloc(units * kc * mp);
    // A is copied in after the job is published, one row chunk at a time: the workers start on
    // the first chunks (waiting in the kernel for `ready`) while the caller copies the rest.
    const copyIn = (): void => {
      if (!aBlock) return;
      try {
        const view = aBlock.view;
        for (let r0 = 0; r0 < rows; r0 += kc) {
          const r1 = Math.min(rows, r0 + kc);
          view.set(A.subarray(r0 * cols, r1 * cols), r0 * cols);
          if (direct && scale !== 1) k.dscal(aBlock.ptrAt(r0 * cols), (r1 - r0) * cols, scale);
          Atomics.store(readyView, 0, r1);
        }
      } catch (e) {
        // release the workers waiting for rows, so that the job can finish (its result is dropped)
        Atomics.store(readyView, 0, rows);
        throw e;
      }
    };
    const job = p.job;
    encodeJob(job, 'dsyrkRows', units, (u) => ({
      A: a,
      r0: rb[u]!,
      r1: rb[u + 1]!,
      cols,
      s: scale,
      direct: +direct,
      W: W.ptrAt(u * mp * mp),
      P: P ? P.ptrAt(u * kc * mp) : 0,
      kc,
      ready: ready.ptr,
    }));
    lastStolen = runJob(p, units, copyIn);
    let amax = 0;
    for (let u = 0; u < units; u++) amax = Math.max(amax, job.f64Result[u]! / (direct ? scale : 1));
    // The units' sum (in unit order, so the result does not depend on which thread ran which
    // unit) and G += W·weight/s² with its mirror, by ranges of 32×32 blocks on the pool.
    const blocks = k.sumFinishBlocks(cols);
    const fu = Math.min(blocks, 4 * threads);
    const fb: number[] = [];
    for (let u = 0; u <= fu; u++) fb.push(Math.round((u * blocks) / fu));
    const f = 1 / (scale * scale);
    encodeJob(job, 'dsyrkSumFinish', fu, (u) => ({
      W0: W.ptr,
      n: units,
      cols,
      weight,
      f,
      G: g.ptr,
      b0: fb[u]!,
      b1: fb[u + 1]!,
    }));
    runJob(p, fu);
    let nonFinite = 0;
    for (let u = 0; u < fu; u++) nonFinite += job.i32Result[u]!;
    if (!accept(amax, nonFinite)) return false;
    G.set(g.view);
    return true;
  });
}

/**
 * C = α·A·op(B) + β·C on the pool (A not transposed, row-major M×K; op(B) K×N), C updated in
 * place only if `accept(non-finite entries of the result)` holds (the contract of
 * LinalgBackend.gemm); returns undefined (doing nothing) when the pool should not be used: no
 * thread option, no pool, one thread, fewer than {@link PARALLEL_MIN_FLOPS} multiply-adds,
 * transposed A (its row blocks are not contiguous), or fewer than 8 rows; else whether C was
 * written.
 * @throws {ArgumentError} options.threads invalid or > 1 without a running pool.
 */
export function gemmThreaded(call: GemmCall): boolean | undefined {
  const { transB, M, N, K, alpha, A, B, beta, C, accept = () => true } = call;
  const threads = resolveThreads(call.pool, M * N * K);
  if (threads <= 1 || !pool || call.transA === 'T' || M < 8 || N === 0) return undefined;
  const p = pool;
  const { arena } = wasm();
  const blocking = gemmBlocking(M, N, K);
  const { kc, mc, nc } = blocking;
  // Row blocks on multiples of mc (or of 4 when M is small) so each unit sees the same blocking.
  const step = M >= threads * mc ? mc : 4;
  const units = Math.min(threads, Math.ceil(M / step));
  const bounds = [0];
  for (let u = 1; u < units; u++) bounds.push(Math.min(M, Math.round((u * M) / units / step) * step));
  bounds.push(M);
  return arena.scope((s) => {
    const a = s.from(A);
    const b = s.from(B);
    const c = beta === 0 ? s.alloc(M * N) : s.from(C); // β = 0: C is not read
    const buffers = Array.from({ length: units }, () => gemmBuffers(s, blocking));
    encodeJob(p.job, 'dgemm', units, (u) => {
      const m0 = bounds[u]!;
      return {
        ...buffers[u]!,
        transA: 0,
        transB: +(transB === 'T'),
        M: bounds[u + 1]! - m0,
        N,
        K,
        alpha,
        A: a.ptrAt(m0 * K),
        B: b.ptr,
        beta,
        C: c.ptrAt(m0 * N),
        kc,
        mc,
        nc,
      };
    });
    runJob(p, units);
    if (!accept(countNonFinite(c.view))) return false;
    C.set(c.view);
    return true;
  });
}

/**
 * Threads to use for a job of `work` multiply-adds under the caller's thread option (1 = calling
 * thread only; so without an option, as for every call from inside linalg).
 */
export function resolveThreads(options: ThreadOption | undefined, work: number): number {
  if (options === undefined) return 1;
  if (options.threads !== undefined) {
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
 * Publishes the job already written into p.job ({@link encodeJob}), runs `beforeClaiming` (work
 * only the caller can do, such as copying A in, while the workers start), runs units on the
 * calling thread too (through the workers' own decoder), and returns once all `units` have
 * finished, also when the caller's part threw (see the module comment for the protocol), so the
 * caller may free the job's blocks. Returns how many units the calling thread ran.
 * @throws Error if a worker's kernel failed.
 */
function runJob(p: RunningPool, units: number, beforeClaiming?: () => void): number {
  const fns = jobFunctions();
  const gen = publishJob(p);
  let mine = 0;
  try {
    beforeClaiming?.();
    for (;;) {
      const u = claimUnit(p, gen, units);
      if (u < 0) break;
      mine++; // counted before it runs: finishJob must count a unit that threw as finished
      callUnit(fns, JOB_SIGNATURES, p.job, u);
    }
  } finally {
    finishJob(p, gen, units, mine);
  }
  return mine;
}

/** Publishes the job whose arguments are already in place; returns its generation. @internal */
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
