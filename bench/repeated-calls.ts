/**
 * Repeated small calls, as a user makes them with the default options:
 * - one map evaluation y = W·x with a 1024×1024 W, 100 products per timing: through a resident
 *   matrix (`linalg.residentMatrix`: W checked and copied once) and through `linalg.gemm` (which
 *   checks and copies W on every call), each against numpy's `W @ x` (OpenBLAS dgemv, one thread)
 *   in alternating rounds (./_numpy.ts); ratio = median of the per-round ratios, wall and CPU;
 * - `ordergap compare` on the shared ESC file with the default rules: the command's wall time
 *   (a fresh process each run, as a user runs it, from the built CLI in dist/), and the library's
 *   `compareReport` CPU time in one process (first call, and warm).
 * Targets: the resident product <= 2x numpy; compare <= 1 s.
 *
 * Usage: node --import tsx bench/repeated-calls.ts   (writes bench/results/repeated-calls.json on
 * Node 20, repeated-calls-node<major>.json on a later Node: ./_node.ts)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { gemm } from '../src/linalg/api.js';
import { residentMatrix } from '../src/linalg/resident.js';
import { createRng } from '../src/ordergap/rng.js';
import { compareReport } from '../src/report/compare.js';
import { init, wasm } from '../src/wasm/module.js';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from './_data.js';
import { resultsFile } from './_node.js';
import { NUMPY_GEMV_REPS, pairedTiming, startNumpy, type PairedTiming } from './_numpy.js';

const M = 1024;
const ROUNDS = 15;
const COMPARE_RUNS = 5;
const root = fileURLToPath(new URL('..', import.meta.url));
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function perProduct(p: PairedTiming) {
  return {
    rounds: p.rounds,
    oursMsPerProduct: round(p.oursMedianMs / NUMPY_GEMV_REPS, 4),
    numpyMsPerProduct: round(p.numpyMedianMs / NUMPY_GEMV_REPS, 4),
    oursOverNumpyWall: round(p.ratioMedian, 2),
    oursOverNumpyCpuTime: round(p.ratioCpuMedian, 2),
    oursOverNumpyRange: p.ratioRange.map((x) => round(x, 2)),
  };
}

async function products(): Promise<Record<string, unknown> | string> {
  const numpy = await startNumpy();
  if (!numpy) return 'numpy is not installed: no native reference';
  try {
    const rng = createRng(20261204);
    const W = Float64Array.from({ length: M * M }, () => rng.next() * 2 - 1);
    const x = Float64Array.from({ length: M }, (_, i) => -1 + (2 * i) / (M - 1));
    const out = new Float64Array(M);
    const R = residentMatrix(W, M, M);
    try {
      const resident = await pairedTiming(
        () => {
          for (let r = 0; r < NUMPY_GEMV_REPS; r++) R.times(x, out);
        },
        numpy,
        'gemv',
        W,
        M,
        ROUNDS,
      );
      const perCall = await pairedTiming(
        () => {
          for (let r = 0; r < NUMPY_GEMV_REPS; r++) gemm(W, M, M, x, M, 1);
        },
        numpy,
        'gemv',
        W,
        M,
        ROUNDS,
      );
      return {
        size: `${M}x${M}`,
        numpy: numpy.version,
        productsPerTiming: NUMPY_GEMV_REPS,
        resident: perProduct(resident),
        gemmPerCall: perProduct(perCall),
        target: 'resident product <= 2x numpy W @ x (wall, median of per-round ratios)',
        met: resident.ratioMedian <= 2,
      };
    } finally {
      R.free();
    }
  } finally {
    numpy.close();
  }
}

async function compare(): Promise<Record<string, unknown> | string> {
  const file = sharedDataFile(ESC_LAST_LETTERS);
  if (!file) return absentMessage(ESC_LAST_LETTERS);
  const cli = `${root}dist/cli/main.js`;
  const wall: number[] = [];
  if (existsSync(cli)) {
    for (let r = 0; r < COMPARE_RUNS; r++) {
      const t0 = performance.now();
      const p = spawnSync(process.execPath, [cli, 'compare', '--samples', file], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`compare exited ${p.status}: ${p.stderr}`);
      wall.push(performance.now() - t0);
    }
  }
  const library: number[] = [];
  for (let r = 0; r < COMPARE_RUNS; r++) {
    const c0 = cpuMs();
    await compareReport({ samples: file });
    library.push(cpuMs() - c0);
  }
  const cliMedian = wall.length ? median(wall) : null;
  return {
    samples: ESC_LAST_LETTERS,
    rules: 'the defaults (ordergap compare with no --rules), 10 repeats, budget 40',
    cliWallMs: wall.map((x) => round(x, 0)),
    cliWallMedianMs: cliMedian === null ? null : round(cliMedian, 0),
    cliNote: wall.length ? 'fresh process per run, from dist/' : 'dist/ is not built: no command timing',
    libraryFirstCallCpuMs: round(library[0]!, 0),
    libraryWarmCpuMedianMs: round(median(library.slice(1)), 0),
    target: 'ordergap compare <= 1000 ms (command wall time, median)',
    met: cliMedian !== null && cliMedian <= 1000,
  };
}

async function main() {
  const { kernels } = await init();
  const loadBefore = loadavg();
  const result = {
    date: new Date().toISOString(),
    environment: {
      node: process.version,
      kernels,
      cpu: cpus()[0]?.model,
      cores: availableParallelism(),
      wasmMemoryBytes: wasm().arena.memoryBytes,
      loadAverageBefore: loadBefore.map((x) => round(x, 2)),
    },
    products: await products(),
    compare: await compare(),
  };
  (result.environment as Record<string, unknown>).loadAverageAfter = loadavg().map((x) => round(x, 2));
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(`${root}bench/results`, { recursive: true });
  writeFileSync(`${root}bench/results/${resultsFile('repeated-calls')}`, `${JSON.stringify(result, null, 2)}\n`);
}

await main();
