/**
 * `--threads auto` against one thread, with the other core idle and with it busy. Run:
 * `node --import tsx bench/threads.ts` (or `npm run bench -- threads`); writes
 * bench/results/threads.json (threads-node22.json on Node 22, ...: see resultsFile). Every ratio comes from timings taken in this run.
 *
 * For each scenario ("idle": nothing started here; "busy": a child process spinning on one core
 * for the whole scenario) `startThreads('auto')` decides (its wall time, the probe's ratio and the
 * threads it kept are recorded), then two workloads are timed on one thread and on what auto
 * chose, alternately, the median wall time of each:
 * - the Gramian AᵀA of a 4096×256 Float64Array (`gram` into a reused `out`);
 * - the batched central-difference Jacobian of f(x) = tanh(Wx), n = 1024 (`jacobianCentral` with a
 *   batch map whose 2n perturbed points are one `gemm`; into a reused `out`).
 * Targets: auto ≥ 1.5× one thread when the other core is idle, and never more than 10 % slower
 * (one/auto ≥ 1/1.1) when it is busy. The machine is shared with other workloads: the load
 * average before and after each scenario is in the JSON, and an "idle" core is only as idle as
 * the host lets it be.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import * as linalg from '../src/linalg/index.js';
import { threadDecision } from '../src/linalg/threadChoice.js';
import { jacobianCentral } from '../src/linearize/finiteDifference.js';
import { createRng } from '../src/ordergap/rng.js';
import { init } from '../src/wasm/module.js';
import { resultsFile } from './_node.js';

const ROUNDS = 7;
const GRAM_ROWS = 4096;
const GRAM_COLS = 256;
const FD_N = 1024;

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** Median wall time (ms) of `one` and of `auto`, timed alternately for {@link ROUNDS} rounds after one untimed round each. */
function alternate(one: () => void, auto: () => void): { oneThreadMs: number; autoMs: number; speedup: number } {
  one();
  auto();
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let t0 = performance.now();
    one();
    a.push(performance.now() - t0);
    t0 = performance.now();
    auto();
    b.push(performance.now() - t0);
  }
  const mid = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1]!;
  const oneThreadMs = mid(a);
  const autoMs = mid(b);
  return { oneThreadMs: round(oneThreadMs), autoMs: round(autoMs), speedup: round(oneThreadMs / autoMs) };
}

function workloads() {
  const rng = createRng(11);
  const A = Float64Array.from({ length: GRAM_ROWS * GRAM_COLS }, () => rng.next() - 0.5);
  const G = new Float64Array(GRAM_COLS * GRAM_COLS);
  const n = FD_N;
  const W = Float64Array.from({ length: n * n }, () => (rng.next() - 0.5) * (2 / Math.sqrt(n)));
  const x = Float64Array.from({ length: n }, () => rng.next() - 0.5);
  const f = (v: Float64Array) => linalg.gemm(W, n, n, v, n, 1).map(Math.tanh);
  const J = new Float64Array(n * n);
  let Y = new Float64Array(0);
  /** The batch map on one thread (`threads: 1`) or on whatever pool runs (no option). */
  const batchOn = (threads: { threads: number } | object) => (P: Float64Array, count: number) => {
    if (Y.length !== count * n) Y = new Float64Array(count * n);
    linalg.gemm(P, count, n, W, n, n, { transB: true, C: Y, ...threads });
    for (let i = 0; i < Y.length; i++) Y[i] = Math.tanh(Y[i]!);
    return Y;
  };
  return {
    gram: alternate(
      () => linalg.gram(A, GRAM_ROWS, GRAM_COLS, { threads: 1, out: G }),
      () => linalg.gram(A, GRAM_ROWS, GRAM_COLS, { out: G }),
    ),
    fdJacobian: alternate(
      () => jacobianCentral(f, x, { batch: batchOn({ threads: 1 }), out: J }),
      () => jacobianCentral(f, x, { batch: batchOn({}), out: J }),
    ),
  };
}

/** A child process spinning on one core until killed. */
async function busyCore() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  return child;
}

async function scenario(name: 'idle' | 'busy') {
  const busy = name === 'busy' ? await busyCore() : undefined;
  try {
    const loadBefore = loadavg().map((l) => round(l, 2));
    const t0 = performance.now();
    await linalg.startThreads('auto');
    const autoStartMs = round(performance.now() - t0, 1);
    const decision = threadDecision();
    const timed = workloads();
    await linalg.stopThreads();
    return {
      scenario: name,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg().map((l) => round(l, 2)),
      autoStartMs,
      decision: {
        threads: decision.threads,
        probeRatio: decision.probe ? round(decision.probe.ratio) : null,
        threshold: decision.probe?.threshold ?? null,
      },
      ...timed,
    };
  } finally {
    busy?.kill();
  }
}

async function main() {
  const { kernels } = await init();
  const idle = await scenario('idle');
  const busy = await scenario('busy');
  const busyMin = round(1 / 1.1);
  const out = {
    environment: { node: process.version, kernels, cores: availableParallelism() },
    rounds: ROUNDS,
    gramShape: [GRAM_ROWS, GRAM_COLS],
    fdJacobianN: FD_N,
    scenarios: [idle, busy],
    targets: {
      idleSpeedupAtLeast: 1.5,
      busySpeedupAtLeast: busyMin,
      idleGramMet: idle.gram.speedup >= 1.5,
      idleFdJacobianMet: idle.fdJacobian.speedup >= 1.5,
      busyGramMet: busy.gram.speedup >= busyMin,
      busyFdJacobianMet: busy.fdJacobian.speedup >= busyMin,
    },
    note: 'speedup = one-thread median / auto median (wall time, alternating rounds); "idle" means no load started by this script, the host may still run other work (see the load averages)',
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`results/${resultsFile('threads')}`, import.meta.url), JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

await main();
