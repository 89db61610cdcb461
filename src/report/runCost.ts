/**
 * What `ordergap run --synthetic NMAX` will cost, checked before anything of its size exists, and
 * how far it has got while it runs. The estimate is src/graph/scenarios/syntheticCost.ts's model
 * (state bytes from the state's layout, time and memory fitted to measurements); a size whose
 * estimate exceeds the limits is refused with the estimate in the message unless the caller
 * insists (`sizeLimit: false`, the CLI's `--no-size-limit`). The other systems have no such
 * model: their sizes are checked by src/util/resources.ts, their progress counts steps.
 */
import { freemem } from 'node:os';
import { GRAPH_RUN_DEFAULTS } from '../graph/scenarios/scenario.js';
import { syntheticRunCost, type SyntheticRunCost } from '../graph/scenarios/syntheticCost.js';
import { resolveRunParams } from '../system/runParams.js';
import { ArgumentError } from '../util/errors.js';
import { formatBytes, machineMemoryLimit, type MemoryLimit } from '../util/resources.js';

/**
 * The longest a run may be estimated to take before it is refused: 10 minutes. A user who starts
 * a command at the terminal expects it to answer within minutes; beyond, it should be asked for
 * knowingly (`--no-size-limit`).
 */
export const RUN_TIME_LIMIT_MS = 10 * 60 * 1000;

/** What a run may take before it is refused. */
export interface RunSizeLimits {
  /** Estimated wall time, ms. */
  readonly milliseconds: number;
  /** Memory the run may add to the process. */
  readonly memory: MemoryLimit;
}

/**
 * The limits of a run: {@link RUN_TIME_LIMIT_MS}, and `ORDERGAP_MEMORY_LIMIT` when it is set, else
 * the smaller of the memory free now (`os.freemem()`: what the run can take without pushing other
 * processes out to swap) and the machine's limit of src/util/resources.ts (its size or its cgroup
 * limit).
 */
export function runSizeLimits(env: NodeJS.ProcessEnv = process.env): RunSizeLimits {
  const machine = machineMemoryLimit(env);
  const free = freemem();
  const memory =
    machine.source !== 'ORDERGAP_MEMORY_LIMIT' && free < machine.bytes
      ? { bytes: free, source: 'the memory free now' }
      : machine;
  return { milliseconds: RUN_TIME_LIMIT_MS, memory };
}

/** `95000` → `1 min 35 s`: milliseconds below a second, one decimal below 10 s, whole units above. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** The options {@link checkRunSize} reads (those of `runReport`). */
export interface RunSizeRequest {
  synthetic?: number;
  edgesPerNode?: number;
  maxSteps?: number;
  /** false: run whatever the estimate (`--no-size-limit`); default true. */
  sizeLimit?: boolean;
}

/** The estimate for a request, or null when it names no synthetic scenario (or one that resolveSystem will refuse). */
export function runCostEstimate(request: RunSizeRequest): SyntheticRunCost | null {
  const { synthetic: nmax, edgesPerNode } = request;
  if (nmax === undefined || !Number.isInteger(nmax) || nmax < 20 || nmax > 2 ** 20) return null;
  if (edgesPerNode !== undefined && !(Number.isInteger(edgesPerNode) && edgesPerNode >= 4)) return null;
  const { maxSteps } = resolveRunParams(GRAPH_RUN_DEFAULTS, { maxSteps: request.maxSteps });
  return syntheticRunCost(nmax, { steps: maxSteps, ...(edgesPerNode !== undefined ? { edgesPerNode } : {}) });
}

/**
 * Refuses a synthetic run whose estimated time (for its whole budget) or memory exceeds
 * `limits`, unless `request.sizeLimit` is false. O(1): call it before anything is built.
 * @returns the estimate (null without a synthetic scenario).
 * @throws {ArgumentError} named `--synthetic`, with the estimate and the limit it exceeds.
 */
export function checkRunSize(
  request: RunSizeRequest,
  limits: RunSizeLimits = runSizeLimits(),
): SyntheticRunCost | null {
  const cost = runCostEstimate(request);
  if (cost === null || request.sizeLimit === false) return cost;
  const time = cost.milliseconds > limits.milliseconds;
  const memory = cost.peakBytes > limits.memory.bytes;
  if (!time && !memory) return cost;
  const estimate =
    `estimated to take up to ${formatDuration(cost.milliseconds)} (building ${formatDuration(cost.fixedMilliseconds)}` +
    ` + ${cost.steps} steps × ${formatDuration(cost.stepMilliseconds)}) and ${formatBytes(cost.peakBytes)}`;
  const over = [
    ...(time ? [`the ${formatDuration(limits.milliseconds)} time limit`] : []),
    ...(memory ? [`${limits.memory.source} (${formatBytes(limits.memory.bytes)})`] : []),
  ].join(' and ');
  throw new ArgumentError('--synthetic', cost.nmax, `${estimate}, more than ${over}; --no-size-limit runs it anyway`);
}

/** How far a run has got, as `runReport` reports it to `onProgress`. */
export interface RunProgress {
  /** 'building' (a synthetic graph and the run's states) or 'steps'. */
  readonly phase: 'building' | 'steps';
  /** Steps done. */
  readonly step: number;
  /** The budget Tmax (at the end: the steps the run took). */
  readonly maxSteps: number;
  /** Estimated share of the run's work done, in [0, 1]; 1 at the end. */
  readonly fraction: number;
  /**
   * Estimated milliseconds left for a run that uses its whole budget (an earlier stop ends
   * sooner), or null while nothing allows an estimate.
   */
  readonly remainingMs: number | null;
  /** True for the last report, when the report is complete. */
  readonly done: boolean;
}

/**
 * Builds of the synthetic graph's structured state a run makes: one, with its merge index; the
 * report's initial state (the pool and the state in words) and the run's are copies of it (see
 * {@link RunProgressMeter.build}).
 */
const STATE_BUILDS = 1;

/** Shares of the work below which the elapsed time says too little about the rest. */
const MIN_FRACTION_FOR_RATE = 0.01;

/** Reports between which the share of work done must grow by at least this much. */
const REPORT_STEP = 0.001;

/**
 * Turns a run's events (state builds, steps, the end) into {@link RunProgress} reports: the
 * share of work done weighs each event by the cost model's time for it (without a model, steps
 * count alike), and the time left is the model's total less the time elapsed until 1 % of the
 * work is done, then the elapsed time scaled by the share still to do (the model's split, the
 * machine's speed).
 * At most one report per 0.1 % of the work, besides the changes of phase and the end.
 */
export class RunProgressMeter {
  readonly #cost: SyntheticRunCost | null;
  readonly #emit: (p: RunProgress) => void;
  readonly #now: () => number;
  readonly #start: number;
  #builds = 0;
  #last: RunProgress | null = null;

  /** `now` is a clock in ms (default `performance.now`). */
  constructor(
    cost: SyntheticRunCost | null,
    emit: (p: RunProgress) => void,
    now: () => number = () => performance.now(),
  ) {
    this.#cost = cost;
    this.#emit = emit;
    this.#now = now;
    this.#start = now();
    if (cost !== null) this.#report('building', 0, cost.steps, 0);
  }

  /** A state build has indexed `done` of `total` claims (a new build starts at done = 0). */
  build(done: number, total: number): void {
    const c = this.#cost;
    if (c === null) return;
    if (done === 0) this.#builds++;
    const built = Math.min(1, (this.#builds - 1 + (total > 0 ? done / total : 1)) / STATE_BUILDS);
    this.#report('building', 0, c.steps, (built * c.fixedMilliseconds) / c.milliseconds);
  }

  /** Step `t` of the budget `maxSteps` is done. */
  step(t: number, maxSteps: number): void {
    const c = this.#cost;
    const fraction = c ? (c.fixedMilliseconds + t * c.stepMilliseconds) / c.milliseconds : t / maxSteps;
    this.#report('steps', t, maxSteps, Math.min(fraction, 1));
  }

  /** The report is complete after `steps` steps. */
  end(steps: number): void {
    this.#emitReport({ phase: 'steps', step: steps, maxSteps: steps, fraction: 1, remainingMs: 0, done: true });
  }

  #report(phase: RunProgress['phase'], step: number, maxSteps: number, fraction: number): void {
    const last = this.#last;
    if (last !== null && last.phase === phase && fraction - last.fraction < REPORT_STEP && step === last.step) return;
    const elapsed = this.#now() - this.#start;
    const byModel = this.#cost !== null && fraction < MIN_FRACTION_FOR_RATE;
    const remainingMs = byModel
      ? Math.max(0, this.#cost!.milliseconds - elapsed)
      : fraction > 0
        ? (elapsed * (1 - fraction)) / fraction
        : null;
    this.#emitReport({ phase, step, maxSteps, fraction, remainingMs, done: false });
  }

  #emitReport(p: RunProgress): void {
    this.#last = p;
    this.#emit(p);
  }
}

/**
 * A progress report as the text of `ordergap run`'s bar: what it is doing (`building the graph
 * and its state`, `12/100 steps`, at the end `17/17 steps`) and the time left (`, up to about 3 min
 * left`; empty when unknown or done).
 */
export function runProgressText(p: RunProgress): { what: string; left: string } {
  const what = p.phase === 'building' ? 'building the graph and its state' : `${p.step}/${p.maxSteps} steps`;
  const left = p.done || p.remainingMs === null ? '' : `, up to about ${formatDuration(p.remainingMs)} left`;
  return { what, left };
}
