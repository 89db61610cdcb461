/**
 * How many threads the pool runs: a count, or `'auto'`, which measures whether a second thread
 * actually speeds up a Gramian on this machine right now and keeps it only if it does.
 *
 * The probe ('auto'): with a pool of two threads, a Gramian of a {@link PROBE_ROWS}×{@link
 * PROBE_COLS} block already in wasm memory (no copy; rows·cols² = 2^26, above the size where the
 * Gramian takes the pool, PARALLEL_MIN_FLOPS in ./threads.ts) is timed on one thread and on two,
 * alternately, {@link PROBE_ROUNDS} rounds after one untimed round of each (which warms the
 * workers' code). Each round gives the ratio t₁/t₂ of its two wall times; the decision reads their
 * median, so one round disturbed by the host moves it less than a sum would. Alternating matters:
 * a burst of load on the other core then falls on both variants of a round alike. The probe costs
 * about 12 Gramians of 2^26 multiply-adds (~6 ms each on one thread where it was tuned): 140–160
 * ms of wall time for startThreads('auto') with the worker's start (`autoStartMs`,
 * bench/results/threads*.json). The size: at 2^25 the fixed
 * cost of handing a job to the pool (waking the worker, summing the units' accumulators) is a
 * large part of a 3 ms Gramian, and the probe's idle-core ratio on the FMA build fell to
 * 1.2–1.46, across the threshold; at 2^26 it was 1.65–1.75 on both builds, and 1.8 at 2^27–2^28
 * (where the workloads a user runs on the pool sit), so the probe measures the speedup they get.
 *
 * The threshold {@link AUTO_MIN_SPEEDUP} = 1.2: where it was tuned (two vCPUs of a shared host),
 * the probe's ratio was 1.47–1.57 with the second core idle (the Gramian benchmark's two-thread
 * speedup is 1.6–1.7 there), and 0.87–0.94 with the other core busy (0.5–0.92 on an earlier host) (the second thread waits
 * for its time slice, and the pool's jobs wait for it). Keeping two threads only from 1.2 on leaves a margin of about 0.15
 * above the busy case's spread, so noise alone does not turn a busy core into two threads (which
 * can cost more than 10 % of the one-thread time), and stays well below the idle case. Between 1
 * and 1.2 the second thread would gain too little to be worth the risk of the host taking the
 * core back.
 *
 * The decision is taken once, when the pool starts: a core that becomes busy later is not seen
 * (the Gramian's units are claimed dynamically, so a slowed thread hands its later units to the
 * other; gemm splits its rows evenly, so it waits for the slower thread).
 */
import { availableParallelism } from 'node:os';
import { ArgumentError } from '../util/errors.js';
import { init, wasm } from '../wasm/module.js';
import { gram } from './api.js';
import { startPool, stopThreads, threadCount } from './threads.js';

/** A thread request: a count of threads (the calling one included), or 'auto' (measured). */
export type ThreadRequest = number | 'auto';

/** The probe behind an 'auto' decision (see the module comment). */
export interface ThreadProbe {
  /** Wall time (ms) of the probe's Gramian on one thread, per round. */
  oneThreadMs: number[];
  /** Wall time (ms) of the same Gramian on two threads, per round. */
  twoThreadsMs: number[];
  /** Median over the rounds of oneThreadMs / twoThreadsMs: the measured speedup of two threads. */
  ratio: number;
  /** Two threads are kept when ratio >= this ({@link AUTO_MIN_SPEEDUP}). */
  threshold: number;
}

/** What a thread request started: the threads running and, for 'auto', the probe that decided. */
export interface ThreadDecision {
  requested: ThreadRequest;
  /** Threads the pool runs, the calling one included (1 = no workers). */
  threads: number;
  /** The probe; null for a count, or for 'auto' with one core (nothing to measure). */
  probe: ThreadProbe | null;
}

/** Least measured speedup of two threads at which 'auto' keeps them (see the module comment). */
export const AUTO_MIN_SPEEDUP = 1.2;
/** Rows of the probe's Gramian. */
export const PROBE_ROWS = 4096;
/** Columns of the probe's Gramian. */
export const PROBE_COLS = 128;
/** Timed rounds (one thread, then two) of the probe. */
export const PROBE_ROUNDS = 5;
/** Most threads a request may ask for. */
const MAX_THREADS = 64;

let decision: ThreadDecision = { requested: 1, threads: 1, probe: null };

/**
 * A thread request checked: 'auto' or an integer in [1, 64].
 * @throws {ArgumentError} anything else, naming `name` and the value.
 */
export function checkThreadRequest(name: string, value: unknown): ThreadRequest {
  if (value === 'auto') return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_THREADS) return value;
  throw new ArgumentError(name, value, `must be 'auto' or an integer in [1, ${MAX_THREADS}]`);
}

/**
 * The 'auto' decision from the probe's timings (pure, so both outcomes can be tested without
 * timing anything): ratio = median over rounds of one[r] / two[r]; 2 threads when ratio >=
 * {@link AUTO_MIN_SPEEDUP}, else 1.
 * @throws {ArgumentError} no rounds, rounds of different counts, or a time not finite and > 0.
 */
export function chooseThreads(
  oneThreadMs: readonly number[],
  twoThreadsMs: readonly number[],
): { threads: 1 | 2; probe: ThreadProbe } {
  if (oneThreadMs.length === 0 || oneThreadMs.length !== twoThreadsMs.length)
    throw new ArgumentError('twoThreadsMs', twoThreadsMs, `must have one time per round (${oneThreadMs.length})`);
  const ratios = oneThreadMs.map((t1, r) => {
    const t2 = twoThreadsMs[r]!;
    if (!(t1 > 0 && t2 > 0 && Number.isFinite(t1) && Number.isFinite(t2)))
      throw new ArgumentError(`probe round ${r}`, [t1, t2], 'times must be finite and > 0');
    return t1 / t2;
  });
  ratios.sort((a, b) => a - b);
  const h = ratios.length >> 1;
  const ratio = ratios.length % 2 === 1 ? ratios[h]! : (ratios[h - 1]! + ratios[h]!) / 2;
  return {
    threads: ratio >= AUTO_MIN_SPEEDUP ? 2 : 1,
    probe: { oneThreadMs: [...oneThreadMs], twoThreadsMs: [...twoThreadsMs], ratio, threshold: AUTO_MIN_SPEEDUP },
  };
}

/** The probe's timings per round: one thread, two threads (ms). */
export type ProbeTimings = () => { one: number[]; two: number[] };

/** Times the probe's Gramian on one and on two threads (a pool of two must be running). */
function measureProbe(): ReturnType<ProbeTimings> {
  const { arena } = wasm();
  const A = arena.alloc(PROBE_ROWS * PROBE_COLS);
  try {
    const view = A.view;
    for (let i = 0; i < view.length; i++) view[i] = ((i * 7919) % 1024) / 512 - 1; // any finite data
    const G = new Float64Array(PROBE_COLS * PROBE_COLS);
    const time = (threads: number): number => {
      const t0 = performance.now();
      gram(A, PROBE_ROWS, PROBE_COLS, { threads, out: G });
      return performance.now() - t0;
    };
    time(1);
    time(2);
    const one: number[] = [];
    const two: number[] = [];
    for (let r = 0; r < PROBE_ROUNDS; r++) {
      one.push(time(1));
      two.push(time(2));
    }
    return { one, two };
  } finally {
    arena.free(A);
  }
}

/**
 * Starts the worker pool: `threads` threads in all (the calling one included), or, with 'auto',
 * two when the probe (see the module comment) measures that a second thread speeds up a Gramian
 * by at least {@link AUTO_MIN_SPEEDUP}, else one (no workers); 'auto' on a single core is one
 * thread without a probe. Idempotent when a count matches the running pool; {@link threadDecision}
 * tells what was decided and what the probe measured. The workers do not keep the process alive.
 * @param threads a count in [1, 64] or 'auto'; default os.availableParallelism()
 * @returns the threads now running
 * @throws {ArgumentError} threads neither 'auto' nor an integer in [1, 64] (nothing started).
 * @throws Error if `init()` has not completed.
 * @example
 * ```ts
 * await init();
 * await linalg.startThreads('auto'); // 2 on an idle second core, else 1
 * linalg.gram(A, 4096, 256); // on the pool when it runs
 * ```
 */
export async function startThreads(threads: ThreadRequest = availableParallelism()): Promise<number> {
  const requested = checkThreadRequest('threads', threads);
  if (requested !== 'auto') {
    await startPool(requested);
    decision = { requested, threads: requested, probe: null };
    return requested;
  }
  if (availableParallelism() < 2) {
    await stopThreads();
    decision = { requested, threads: 1, probe: null };
    return 1;
  }
  return startMeasured(measureProbe);
}

/**
 * 'auto' on two cores with the probe's timings from `measure` (the real probe, or given timings in
 * tests): starts a pool of two, measures, keeps it when {@link chooseThreads} says 2, else stops
 * it. @internal
 */
export async function startMeasured(measure: ProbeTimings): Promise<number> {
  await startPool(2);
  let chosen: ReturnType<typeof chooseThreads>;
  try {
    const { one, two } = measure();
    chosen = chooseThreads(one, two);
  } catch (e) {
    await stopThreads();
    throw e;
  }
  if (chosen.threads === 1) await stopThreads();
  decision = { requested: 'auto', threads: chosen.threads, probe: chosen.probe };
  return chosen.threads;
}

/**
 * What the last {@link startThreads} decided (a copy); a count of 1 without a probe after
 * `stopThreads()` or before any start.
 */
export function threadDecision(): ThreadDecision {
  if (threadCount() === 1 && decision.threads !== 1) decision = { requested: 1, threads: 1, probe: null };
  return structuredClone(decision);
}

/**
 * Runs `work` on a pool started for `request` and then puts back the pool that ran before (its
 * size; stopped if there was none), also when `work` throws; loads the kernels (`init()`) first.
 * Without a request `work` runs on whatever pool runs, and the decision is undefined. Reports
 * running at once with different requests would restart each other's pool: run them in turn.
 * @throws {ArgumentError} a bad request (from {@link startThreads}), before `work` runs.
 */
export async function withThreads<T>(
  request: ThreadRequest | undefined,
  work: () => Promise<T>,
): Promise<{ value: T; decision: ThreadDecision | undefined }> {
  if (request === undefined) return { value: await work(), decision: undefined };
  checkThreadRequest('threads', request);
  await init(); // the pool runs the wasm kernels (idempotent)
  const before = threadDecision();
  await startThreads(request);
  const started = threadDecision();
  try {
    return { value: await work(), decision: started };
  } finally {
    if (threadCount() !== before.threads) await startPool(before.threads); // 1 stops the pool
    decision = before;
  }
}
