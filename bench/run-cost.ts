/**
 * What `ordergap run --synthetic NMAX` costs, measured through the report the command prints
 * (`runReport`, k = 8, 10 edges per node, ε = 1e-300 so that every size runs its whole budget):
 * one fresh child process per size, so the peak resident set is that size's own. Per size:
 * - CPU milliseconds (user + system, `process.cpuUsage`: less moved than wall time by other jobs
 *   on a shared host; the run is single-threaded) of the fixed part — building the synthetic
 *   graph and the run's states, and the report after the last step — and of one step (the mean
 *   of steps 2 … T; step 1 is counted as a step, the rest of the time before it as building);
 * - the bytes the structured state holds at the end and the bound the cost model computes for
 *   them, and what the run adds to the resident set: the process's peak RSS (VmHWM, `peakRssBytes`) minus its RSS with the
 *   library loaded, before the run;
 * - the wall time beside the CPU time, and the load average.
 * Every size is measured twice. Then the fit of fixed, step and added bytes on (1, state bytes,
 * Nmax²) that src/graph/scenarios/syntheticCost.ts takes its coefficients from (non-negative, so
 * that the model grows with Nmax; minimising the relative errors, so that every size counts
 * alike; rounded up to two digits), the fit against every measurement, and the estimate the fit
 * gives with the model's margin against the measured totals.
 *
 * Usage: node --import tsx bench/run-cost.ts [nmax ...]   (writes bench/results/run-cost.json)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { COST_MARGIN, syntheticRunCost } from '../src/graph/scenarios/syntheticCost.js';
import { runReport } from '../src/report/run.js';
import { init } from '../src/wasm/module.js';
import { peakRssBytes } from './_node.js';

const SIZES = [4096, 8192, 16384, 32768, 65536, 131072, 262144];
/** Fresh processes per size (the run-to-run spread on a shared host is 10 to 30 %). */
const REPEATS = 2;
/** Steps per size: enough for a stable mean, few where a step takes seconds. */
const stepsFor = (nmax: number) => (nmax <= 32768 ? 30 : nmax <= 131072 ? 15 : 8);

interface ChildResult {
  nmax: number;
  steps: number;
  fixedCpuMs: number;
  stepCpuMs: number;
  totalCpuMs: number;
  totalWallMs: number;
  stateBytes: number;
  stateBytesBound: number;
  /** Peak RSS of the process minus the RSS with the library loaded, before the run. */
  runRssBytes: number;
  loadavg1: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function child(nmax: number, steps: number): Promise<ChildResult> {
  await init();
  const rssBefore = process.memoryUsage().rss;
  const stepAt: number[] = [];
  const c0 = cpuMs();
  const w0 = performance.now();
  const r = await runReport({ synthetic: nmax, maxSteps: steps, epsilon: 1e-300, onStep: () => stepAt.push(cpuMs()) });
  const total = cpuMs() - c0;
  const T = stepAt.length;
  const step = (stepAt[T - 1]! - stepAt[0]!) / (T - 1);
  return {
    nmax,
    steps: T,
    fixedCpuMs: total - T * step,
    stepCpuMs: step,
    totalCpuMs: total,
    totalWallMs: performance.now() - w0,
    stateBytes: r.state.bytes,
    stateBytesBound: syntheticRunCost(nmax, { steps }).stateBytes,
    runRssBytes: peakRssBytes() - rssBefore,
    loadavg1: loadavg()[0]!,
  };
}

/** Least squares of y on the columns `cols` of X (normal equations); the other coefficients are 0. */
function leastSquares(X: number[][], y: number[], cols: number[]): number[] {
  const p = cols.length;
  const A = cols.map((ci) => [...cols.map((cj) => X.reduce((s, row) => s + row[ci]! * row[cj]!, 0)), 0]);
  cols.forEach((ci, i) => (A[i]![p] = X.reduce((s, row, r) => s + row[ci]! * y[r]!, 0)));
  for (let i = 0; i < p; i++)
    for (let r = i + 1; r < p; r++) {
      const f = A[r]![i]! / A[i]![i]!;
      for (let j = i; j <= p; j++) A[r]![j]! -= f * A[i]![j]!;
    }
  const x = new Array<number>(p).fill(0);
  for (let i = p - 1; i >= 0; i--) {
    let s = A[i]![p]!;
    for (let j = i + 1; j < p; j++) s -= A[i]![j]! * x[j]!;
    x[i] = s / A[i]![i]!;
  }
  const out = new Array<number>(X[0]!.length).fill(0);
  cols.forEach((c, i) => (out[c] = x[i]!));
  return out;
}

/** `x` rounded up to two significant digits. */
const roundUp = (x: number) => {
  const unit = 10 ** (Math.floor(Math.log10(x)) - 1);
  return Number((Math.ceil(x / unit) * unit).toPrecision(2));
};

/**
 * Non-negative coefficients c minimising Σ (X·c / y − 1)²: the best least-squares fit of the
 * relative errors over the subsets of columns whose coefficients all come out >= 0, rounded up.
 */
function fitRelative(X: number[][], y: number[]): number[] {
  const W = X.map((row, r) => row.map((x) => x / y[r]!));
  const ones = y.map(() => 1);
  const p = X[0]!.length;
  let best: { c: number[]; residual: number } | null = null;
  for (let mask = 1; mask < 2 ** p; mask++) {
    const cols = [...Array(p).keys()].filter((j) => mask & (2 ** j));
    const c = leastSquares(W, ones, cols);
    if (c.some((x) => x < 0 || !Number.isFinite(x))) continue;
    const residual = W.reduce((s, row) => s + (row.reduce((t, w, j) => t + w * c[j]!, 0) - 1) ** 2, 0);
    if (best === null || residual < best.residual) best = { c, residual };
  }
  return best!.c.map((x) => (x === 0 ? 0 : roundUp(x)));
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const r = await child(Number(process.argv[3]), Number(process.argv[4]));
    process.stdout.write(JSON.stringify(r) + '\n');
    return;
  }
  const sizes = process.argv.slice(2).map(Number);
  const self = fileURLToPath(import.meta.url);
  const rows: ChildResult[] = [];
  for (const nmax of (sizes.length ? sizes : SIZES).flatMap((n) => Array<number>(REPEATS).fill(n))) {
    const args = ['--import', 'tsx', self, '--child', String(nmax), String(stepsFor(nmax))];
    const out = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 2 ** 26 });
    if (out.status !== 0) throw new Error(`Nmax = ${nmax}: ${out.stderr}`);
    const row = JSON.parse(out.stdout) as ChildResult;
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  const X = rows.map((r) => [1, r.stateBytesBound, r.nmax * r.nmax]);
  const fit = {
    fixedCpuMs: fitRelative(
      X,
      rows.map((r) => r.fixedCpuMs),
    ),
    stepCpuMs: fitRelative(
      X,
      rows.map((r) => r.stepCpuMs),
    ),
    runRssBytes: fitRelative(
      X,
      rows.map((r) => r.runRssBytes),
    ),
  };
  console.log('fit on (1, state bytes, Nmax²):', JSON.stringify(fit));
  const model = (c: number[], r: ChildResult) => c[0]! + c[1]! * r.stateBytesBound + c[2]! * r.nmax * r.nmax;
  // the estimate syntheticRunCost makes once it holds these coefficients: the fit times its margin
  const check = rows.map((r) => {
    const estimateMs = COST_MARGIN * (model(fit.fixedCpuMs, r) + r.steps * model(fit.stepCpuMs, r));
    return {
      nmax: r.nmax,
      fitOverFixed: model(fit.fixedCpuMs, r) / r.fixedCpuMs,
      fitOverStep: model(fit.stepCpuMs, r) / r.stepCpuMs,
      fitOverRss: model(fit.runRssBytes, r) / r.runRssBytes,
      estimateOverCpu: estimateMs / r.totalCpuMs,
      estimateOverWall: estimateMs / r.totalWallMs,
      estimateOverRss: (COST_MARGIN * model(fit.runRssBytes, r)) / r.runRssBytes,
    };
  });
  for (const c of check) console.log(JSON.stringify(c));
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}run-cost.json`,
    JSON.stringify({ node: process.version, cores: cpus().length, rows, fit, check }, null, 2) + '\n',
  );
}

await main();
