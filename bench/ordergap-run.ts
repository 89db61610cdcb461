/**
 * Whole Algorithm 1 runs at large Nmax: `runRecursive` with a fixed budget of steps (rule
 * 'budget', so every size runs the same number of steps) on synthetic scenarios (k = 8, ~10 edges
 * per node, a pool of 8 items, src/graph/scenarios/synthetic.ts), on the structured state everywhere and on
 * the dense θ where it fits. Per size, two fresh child processes: one times the baselines and then
 * the run, the other runs the run alone for the memory figures (so peak RSS is the run's own):
 * - ms per step in the steady state (steps 2 … T, timed by the run's `observe` callback), the
 *   whole run ÷ T, and the first step (which also builds the run's state from the scenario);
 * - Q applications, the bytes the state holds (node block + CSR + CSC);
 * - memory: the RSS with the library loaded, the RSS before the run builds its state, and the
 *   process's peak RSS at the end of the run (VmHWM, `peakRssBytes`; resident pages: it counts what was touched, and the
 *   structured state touches everything it holds) — as peak ÷ state bytes (the literal figure,
 *   which includes the loaded process) and (peak − RSS before the run) ÷ state bytes (what the
 *   run adds); a bare `node -e`'s peak RSS is reported beside them;
 * - baselines measured in the timing process before the run, after three warm-up calls (mean,
 *   median and minimum of the repetitions; each ratio compares the median step with the
 *   baseline's median, the statistic least moved by other jobs on a shared host): one
 *   structure-aware Ω (the full fused pass over the CSR rows, `graphOrderGapSparse`); two
 *   streaming passes over the state the run starts from (every typed array it holds, the
 *   by-column index formed: the bytes `stateBytes` counts; dense: θ), the floor of the issue's
 *   "≤ 8× two streaming passes over its state"; and two passes over the stored edge weights alone
 *   (one running sum; 4.3 of the state's 19.2 MB at Nmax 65536), the floor of the earlier figure
 *   kept beside it. A fitted growth exponent of ms per step.
 *
 * Consolidation scheduling (Sec. 7.3): the default scenario and two synthetic ones run with
 * Q every step and with `schedule = ε`; Q applications saved, the steps whose own Ω exceeds the
 * threshold (each forces a Q, so they bound the saving), stop reason and step of both, and
 * ‖θ_sched − θ_always‖₂ of the final states (both consolidated) over all d coordinates — the norm
 * of Ω. A sweep of larger thresholds on the default scenario shows the trade-off.
 *
 * Usage: node --import tsx bench/ordergap-run.ts [nmax ...]   (writes bench/results/ordergap-run.json on Node 20,
 * ordergap-run-node<major>.json on a later Node: ./_node.ts)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { referenceDistance } from '../src/blas1/dnrm2.js';
import {
  growthExponent,
  hostSpeedGflops,
  kernelBuildRun,
  peakRssBytes,
  resultsFile,
  sharedHostEnvironment,
} from './_node.js';
import { graphOrderGapSparse } from '../src/graph/operators/orderGap.js';
import { DEFAULT_PARAMS } from '../src/graph/operators/params.js';
import { defaultScenario } from '../src/graph/scenarios/scenario.js';
import type { StructuredGraphState } from '../src/graph/state/state.js';
import { referenceGraphSystem, syntheticGraphSystem } from '../src/graph/system.js';
import { runRecursive } from '../src/ordergap/algorithm1.js';
import type { OperatorSystem } from '../src/system/types.js';
import type { SyntheticGraphSystem } from '../src/graph/system.js';

const K = 8;
const EDGES_PER_NODE = 10;
const STEPS = 100;
const SIZES = [256, 1024, 4096, 16384, 65536];
/** Sizes with a dense run too (the dense θ holds 8·d bytes: 1.6 MB at 256, 25 MB at 1024). */
const DENSE_SIZES = new Set([256, 1024]);

interface ChildResult {
  nmax: number;
  mode: 'structured' | 'dense';
  dim: number;
  steps: number;
  storedEdges: number;
  msBuild: number;
  msPerStep: number;
  msPerStepMedian: number;
  msRunPerStep: number;
  msFirstStep: number;
  consolidations: number;
  stateBytes: number;
  denseBytes: number;
  rssLoadedMB: number;
  rssBeforeMB: number;
  peakRssMB: number;
  peakOverStateBytes: number;
  growthOverStateBytes: number;
  msOmega: number;
  msOmegaMedian: number;
  msOmegaMin: number;
  /** Two streaming passes over the state (mean ms). */
  msTwoPasses: number;
  /** Two passes over the stored edge weights alone, one running sum (mean ms). */
  msTwoPassesWeights: number;
  stepOverOmega: number;
  /** Median step over the median of the two streaming passes over the state (issue target at Nmax 65536: <= 8). */
  stepOverTwoPasses: number;
  /** Median step over the median of the two passes over the edge weights. */
  stepOverTwoPassesWeights: number;
  loadavg1: number;
  /** The kernel build the child ran ({@link kernelBuildRun}: 'none', the step runs no wasm). */
  kernels: string;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Mean, median and minimum ms of `reps` calls after 3 warm-up calls. */
function timeOf(reps: number, f: () => unknown): { mean: number; median: number; min: number } {
  for (let r = 0; r < 3; r++) f();
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = process.hrtime.bigint();
    f();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { mean: ms.reduce((a, b) => a + b, 0) / reps, median: median(ms), min: Math.min(...ms) };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Two passes over the stored edge weights, each weight added to one local accumulator: the
 * baseline of the earlier figure `stepOverTwoPassesWeights`. (The accumulator must be a local: a
 * variable captured by a closure lives in a context slot, and each addition then boxes a heap
 * number, which made this baseline ~9× slower.)
 */
function weightsTwice(edges: readonly { readonly vals: Float64Array }[]): number {
  let s = 0;
  for (let pass = 0; pass < 2; pass++)
    for (const b of edges) {
      const v = b.vals;
      for (let e = 0; e < v.length; e++) s += v[e]!;
    }
  return s;
}

/** One pass over a Float64Array: every element added into two running sums (see {@link streamTwice}). */
function streamF64(v: Float64Array): number {
  let a = 0;
  let b = 0;
  const m = v.length - 1;
  let e = 0;
  for (; e < m; e += 2) {
    a += v[e]!;
    b += v[e + 1]!;
  }
  if (e < v.length) a += v[e]!;
  return a + b;
}

/** One pass over an Int32Array: every element added into two running int32 sums. */
function streamI32(v: Int32Array): number {
  let a = 0;
  let b = 0;
  const m = v.length - 1;
  let e = 0;
  for (; e < m; e += 2) {
    a = (a + v[e]!) | 0;
    b = (b + v[e + 1]!) | 0;
  }
  if (e < v.length) a = (a + v[e]!) | 0;
  return a + b;
}

/**
 * Two streaming passes over a state: every element of every array it holds read and added, twice
 * (the floor for a step, "two streaming passes over its state"). Two running sums per
 * array, so the additions do not wait on each other: on this host a Float64Array streams at
 * ~16 GB/s that way against ~11 GB/s with one sum, which waits on the adder's latency.
 */
function streamTwice(arrays: readonly (Float64Array | Int32Array)[]): number {
  let s = 0;
  for (let pass = 0; pass < 2; pass++)
    for (const a of arrays) s += a instanceof Float64Array ? streamF64(a) : streamI32(a);
  return s;
}

/**
 * The baselines (see the module comment): Ω and the weights' passes on the scenario's own sparse
 * state; the state's passes on the state a run of `mode` starts from (structured: its typed
 * arrays with the by-column index formed, as every step has it; dense: θ).
 */
function baselines(sys: SyntheticGraphSystem, nmax: number, mode: 'structured' | 'dense') {
  const sc = sys.synthetic;
  const reps = nmax >= 16384 ? 5 : 15;
  const omega = timeOf(reps, () => graphOrderGapSparse(sc.shape, DEFAULT_PARAMS, sc.state, sc.item));
  let sink = 0;
  const weights = timeOf(reps, () => {
    sink += weightsTwice(sc.state.edges);
  });
  const st = sys.capabilities.state!;
  const start = st.initial() as StructuredGraphState;
  start.indexed();
  const arrays = mode === 'structured' ? start.typedArrays() : [st.toDense(start)];
  const twoPasses = timeOf(reps, () => {
    sink += streamTwice(arrays);
  });
  if (!Number.isFinite(sink)) throw new Error('unreachable');
  return {
    omega,
    msTwoPasses: twoPasses.mean,
    msTwoPassesMedian: twoPasses.median,
    msTwoPassesWeights: weights.mean,
    msTwoPassesWeightsMedian: weights.median,
  };
}

/**
 * One size in this process. 'timing': the baselines first (code compiled for them alone, as a
 * user calling Ω would have it), then the timed run. 'memory': the run alone, so the peak RSS is
 * the run's and nothing else allocated before it (the baselines' garbage would raise the peak).
 */
function child(nmax: number, mode: 'structured' | 'dense', purpose: 'timing' | 'memory'): ChildResult {
  // the process with the library loaded, before anything of this size exists
  const rssLoaded = process.memoryUsage().rss;
  const t0 = now();
  const sys = syntheticGraphSystem(nmax, { k: K, edgesPerNode: EDGES_PER_NODE });
  const msBuild = now() - t0;
  const sc = sys.synthetic;
  const base = purpose === 'timing' ? baselines(sys, nmax, mode) : null;
  // RSS before the run builds its state (the run starts from the scenario's sparse edges)
  const rssBefore = process.memoryUsage().rss;
  const stepEnd: number[] = [];
  const t1 = now();
  const r = runRecursive(sys, {
    epsilon: 0.01,
    window: 3,
    maxSteps: STEPS,
    seed: 1,
    rule: 'budget',
    recordStates: false,
    representation: mode,
    observe: () => stepEnd.push(now()),
  });
  const ms = now() - t1;
  const peak = peakRssBytes();
  const st = sys.capabilities.state!;
  const stateBytes = mode === 'structured' ? st.bytes(r.state) : sc.shape.dim * 8;
  // steady state: steps 2 … T (step 1 also builds the run's state from the scenario)
  const T = r.stop.step;
  const msPerStep = T > 1 ? (stepEnd[T - 1]! - stepEnd[0]!) / (T - 1) : ms;
  const stepMs = stepEnd.slice(1).map((x, i) => x - stepEnd[i]!);
  const msPerStepMedian = stepMs.length ? median(stepMs) : ms;
  const omega = base?.omega ?? { mean: NaN, median: NaN, min: NaN };
  const msOmega = omega.mean;
  const msTwoPasses = base?.msTwoPasses ?? NaN;
  return {
    nmax,
    mode,
    dim: sc.shape.dim,
    steps: T,
    storedEdges: (r.state as StructuredGraphState | undefined)?.storedEdges ?? sc.nnz,
    msBuild,
    msPerStep,
    msPerStepMedian,
    msRunPerStep: ms / T,
    msFirstStep: stepEnd[0]! - t1,
    consolidations: r.consolidations,
    stateBytes,
    denseBytes: sc.shape.dim * 8,
    rssLoadedMB: rssLoaded / 2 ** 20,
    rssBeforeMB: rssBefore / 2 ** 20,
    peakRssMB: peak / 2 ** 20,
    peakOverStateBytes: peak / stateBytes,
    growthOverStateBytes: (peak - rssBefore) / stateBytes,
    msOmega,
    msOmegaMedian: omega.median,
    msOmegaMin: omega.min,
    msTwoPasses,
    msTwoPassesWeights: base?.msTwoPassesWeights ?? NaN,
    // medians of both: robust to the load spikes a shared host adds to either sample
    stepOverOmega: msPerStepMedian / omega.median,
    stepOverTwoPasses: msPerStepMedian / (base?.msTwoPassesMedian ?? NaN),
    stepOverTwoPassesWeights: msPerStepMedian / (base?.msTwoPassesWeightsMedian ?? NaN),
    loadavg1: loadavg()[0]!,
    kernels: kernelBuildRun(),
  };
}

/** ‖a − b‖₂ of two states given as sorted non-zero entries. */
function entriesDistance(a: Array<[number, number]>, b: Array<[number, number]>): number {
  const x: number[] = [];
  const y: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const ia = i < a.length ? a[i]![0] : Infinity;
    const ib = j < b.length ? b[j]![0] : Infinity;
    x.push(ia <= ib ? a[i++]![1] : 0);
    y.push(ib <= ia ? b[j++]![1] : 0);
  }
  return referenceDistance(x, y);
}

function scheduling(
  name: string,
  sys: OperatorSystem,
  o: { epsilon: number; window: number; maxSteps: number; seed: number },
  threshold = o.epsilon,
) {
  const st = sys.capabilities.state!;
  const always = runRecursive(sys, { ...o, recordStates: false });
  const sched = runRecursive(sys, { ...o, recordStates: false, schedule: threshold });
  // a step whose own Ω exceeds the threshold makes the accumulated sum cross it: Q runs there
  // whatever the schedule, so these steps bound the Q evaluations from below
  const forced = sched.steps.filter((s) => s.omega > threshold).length;
  const finalDistance = entriesDistance(st.entries(always.state), st.entries(sched.state));
  return {
    scenario: name,
    epsilon: o.epsilon,
    threshold,
    always: { steps: always.stop.step, reason: always.stop.reason, consolidations: always.consolidations },
    scheduled: { steps: sched.stop.step, reason: sched.stop.reason, consolidations: sched.consolidations },
    saved: 1 - sched.consolidations / always.consolidations,
    forcedConsolidations: forced,
    savedAtMost: 1 - forced / always.consolidations,
    sameReason: always.stop.reason === sched.stop.reason,
    finalDistance,
    withinEpsilon: finalDistance <= o.epsilon,
  };
}

/** Peak RSS of a bare `node -e` (no library, VmHWM as in {@link peakRssBytes}): the floor of any Node process here. */
function emptyNodeRss(): number {
  const script =
    "const m = /VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'));" +
    'process.stdout.write(String(m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024))';
  const p = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`node -e failed: ${p.stderr}`);
  return Number(p.stdout) / 2 ** 20;
}

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg === '--child') {
    const [n, mode, purpose] = process.argv.slice(3) as [string, 'structured' | 'dense', 'timing' | 'memory'];
    process.stdout.write(JSON.stringify(child(Number(n), mode, purpose)));
    return;
  }
  const sizes = process.argv.slice(2).map(Number);
  const speed0 = await hostSpeedGflops(700);
  const results: ChildResult[] = [];
  for (const nmax of sizes.length ? sizes : SIZES)
    for (const mode of ['structured', 'dense'] as const) {
      if (mode === 'dense' && !DENSE_SIZES.has(nmax)) continue;
      const spawn = (purpose: 'timing' | 'memory'): ChildResult => {
        const p = spawnSync(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(nmax), mode, purpose],
          { encoding: 'utf8', maxBuffer: 1 << 24 },
        );
        if (p.status !== 0) throw new Error(`child Nmax = ${nmax} ${mode} ${purpose} failed: ${p.stderr}`);
        return JSON.parse(p.stdout) as ChildResult;
      };
      const timing = spawn('timing');
      const memory = spawn('memory');
      // timings from the timing child, memory from the child that ran nothing but the run
      const r: ChildResult = {
        ...timing,
        rssLoadedMB: memory.rssLoadedMB,
        rssBeforeMB: memory.rssBeforeMB,
        peakRssMB: memory.peakRssMB,
        peakOverStateBytes: memory.peakOverStateBytes,
        growthOverStateBytes: memory.growthOverStateBytes,
      };
      results.push(r);
      process.stdout.write(
        `Nmax ${String(nmax).padStart(6)} ${mode.padEnd(10)} ${r.msPerStep.toFixed(2).padStart(9)} ms/step  ` +
          `Ω ${r.msOmega.toFixed(2)} ms  step/Ω ${r.stepOverOmega.toFixed(2)}  state ${(r.stateBytes / 2 ** 20).toFixed(1)} MiB  ` +
          `peak RSS ${r.peakRssMB.toFixed(0)} MiB (${r.peakOverStateBytes.toFixed(1)}× state, run adds ${r.growthOverStateBytes.toFixed(1)}×)\n`,
      );
    }
  const sc = defaultScenario();
  const defaultSystem = referenceGraphSystem(sc, { backend: 'reference' });
  const sched = [
    scheduling('default', defaultSystem, sc.run),
    ...[1024, 4096].map((n) =>
      scheduling(`synthetic Nmax=${n}`, syntheticGraphSystem(n), { epsilon: 0.01, window: 3, maxSteps: 100, seed: 0 }),
    ),
  ];
  // the trade-off on the default scenario: larger thresholds save more Q and move θ_T further
  const sweep = [2, 5, 10].map((f) => scheduling('default', defaultSystem, sc.run, f * sc.run.epsilon));
  for (const s of [...sched, ...sweep])
    process.stdout.write(
      `scheduling ${s.scenario} threshold ${s.threshold}: Q ${s.always.consolidations} -> ${s.scheduled.consolidations} ` +
        `(${(100 * s.saved).toFixed(0)}% saved, at most ${(100 * s.savedAtMost).toFixed(0)}%), ` +
        `stop ${s.always.reason}@${s.always.steps} / ${s.scheduled.reason}@${s.scheduled.steps}, ‖Δθ_T‖ = ${s.finalDistance.toExponential(2)}\n`,
    );
  const emptyRssMB = emptyNodeRss();
  const structured = results.filter((r) => r.mode === 'structured');
  const at = (n: number) => structured.find((r) => r.nmax === n);
  /** A target's entries: the figure at Nmax n (null when that size did not run) and whether it is <= limit. */
  const figure = (n: number, key: keyof ChildResult, limit: number, name: string, within: string) => {
    const r = at(n);
    const v = r ? (r[key] as number) : null;
    return { [name]: v, [within]: v === null ? null : v <= limit };
  };
  const doc = {
    benchmark: 'ordergap-run',
    description:
      'whole Algorithm 1 runs (runRecursive, rule budget, a fixed number of steps) on synthetic scenarios, structured state everywhere and dense θ where it fits; msPerStep is the steady-state mean (steps 2 … T), msPerStepMedian their median, msRunPerStep the whole run ÷ T; stepOverOmega = msPerStepMedian ÷ msOmegaMedian; stepOverTwoPasses = msPerStepMedian ÷ the median of two streaming passes over the state the run starts from (every typed array it holds, CSC formed; dense: θ; two running sums per array), stepOverTwoPassesWeights the same over two passes over the stored edge weights alone (one running sum); baselines in the timing child before its run (after warm-up: mean, median, fastest call); memory figures from a second child that runs only the run: one structure-aware Ω (full fused pass over the CSR rows) and the two kinds of streaming passes; consolidation scheduling at threshold ε against Q every step, finalDistance = ‖θ_T(scheduled) − θ_T(always)‖₂ over all d coordinates (the norm of Ω), forcedConsolidations = steps whose own Ω exceeds the threshold (each forces a Q)',
    environment: {
      ...sharedHostEnvironment(),
      // the runs' own build: the parent loads the kernels for the host-speed probe only
      kernels: [...new Set(results.map((r) => r.kernels))].join(', '),
      hostSpeedGflops: { before: speed0, after: await hostSpeedGflops(700) },
    },
    k: K,
    edgesPerNode: EDGES_PER_NODE,
    steps: STEPS,
    results,
    fits: {
      structuredExponent: growthExponent(structured, (r) => r.msPerStep),
    },
    scheduling: sched,
    schedulingSweep: sweep,
    memory: {
      emptyNodeRssMB: emptyRssMB,
      note: 'peakRssMB is the peak RSS of the process (VmHWM) up to the end of the run; growthOverStateBytes = (peak − RSS before the run builds its state) ÷ state bytes; rssLoadedMB is the child with the library loaded (tsx, modules) before anything of its size exists, emptyNodeRssMB a bare `node -e`',
    },
    targets: {
      ...figure(1024, 'msPerStep', 5, 'msPerStepAt1024', 'within5msAt1024'),
      ...figure(1024, 'stepOverOmega', 2, 'stepOverOmegaAt1024', 'within2xOfOmegaAt1024'),
      ...figure(65536, 'msPerStep', 60, 'msPerStepAt65536', 'within60msAt65536'),
      ...figure(65536, 'msPerStepMedian', 25, 'msPerStepMedianAt65536', 'within25msAt65536'),
      ...figure(65536, 'stepOverTwoPasses', 8, 'stepOverTwoPassesAt65536', 'within8xTwoPassesAt65536'),
      ...figure(65536, 'peakOverStateBytes', 4, 'peakOverStateAt65536', 'peakWithin4xAt65536'),
      ...figure(65536, 'growthOverStateBytes', 4, 'growthOverStateAt65536', 'growthWithin4xAt65536'),
      loadedProcessOverStateAt65536: at(65536) ? (at(65536)!.rssLoadedMB * 2 ** 20) / at(65536)!.stateBytes : null,
      emptyNodeOverStateAt65536: at(65536) ? (emptyRssMB * 2 ** 20) / at(65536)!.stateBytes : null,
      literalPeakWithin4xPossibleAt65536: at(65536)
        ? at(65536)!.rssLoadedMB * 2 ** 20 <= 4 * at(65536)!.stateBytes
        : null,
      scheduledSavedDefault: sched[0]!.saved,
      scheduledSavedAtMostDefault: sched[0]!.savedAtMost,
      scheduledSaves40PercentDefault: sched[0]!.saved >= 0.4,
      scheduledSameReasonDefault: sched[0]!.sameReason,
      scheduledWithinEpsilonDefault: sched[0]!.withinEpsilon,
    },
  };
  const out = fileURLToPath(new URL(`./results/${resultsFile('ordergap-run')}`, import.meta.url));
  mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(`wrote ${out}\n`);
}

void main();
