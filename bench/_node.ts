import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { linalgKernels } from '../src/linalg/wasmKernels.js';
import { seededNormals } from '../src/ordergap/rng.js';
import { init, isInitialized, wasm, type KernelBuild } from '../src/wasm/module.js';

/**
 * Where a benchmark that runs on several Node versions writes its results: `<name>.json` on Node
 * 20 (the version the package's engines start at: the plain kernel build unless run with
 * --experimental-wasm-relaxed-simd), `<name>-node<major>.json` on a later Node (its default, the
 * FMA build), so each kernel build's figures have their own environment table in
 * docs/benchmarks.md.
 */
export function resultsFile(name: string): string {
  const major = Number(process.versions.node.split('.')[0]);
  return major <= 20 ? `${name}.json` : `${name}-node${major}.json`;
}

/**
 * This process's peak resident set in bytes: on Linux the high-water mark of its own address space
 * (VmHWM in /proc/self/status), elsewhere `process.resourceUsage().maxRSS`. On Linux maxRSS is not
 * the process's own: a child keeps the parent's high-water mark from the spawn (a bare `node -e`
 * spawned by a 350 MB parent reads 316 MB of maxRSS and 40 MB of VmHWM), so a figure of a
 * child smaller than its parent would be the parent's.
 */
export function peakRssBytes(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (kb) return Number(kb[1]) * 1024;
  } catch {
    // not Linux: maxRSS below
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * The kernel build this process ran (`init()`'s choice, 'fma' or 'plain'), or 'none' when it
 * loaded no kernels, so that none of its code ran in wasm: a benchmark environment's `kernels`,
 * the "kernel build" row of docs/benchmarks.md.
 */
export function kernelBuildRun(): KernelBuild | 'none' {
  return isInitialized() ? wasm().kernels : 'none';
}

/**
 * The environment block of a timing benchmark on this shared host: Node's version, the cores, the
 * load average when it is taken, and the note that timings are noisy and only in-process ratios
 * are compared.
 */
export function sharedHostEnvironment(): {
  node: string;
  kernels: KernelBuild | 'none';
  cpus: number;
  loadavg: number[];
  note: string;
} {
  return {
    node: process.version,
    kernels: kernelBuildRun(),
    cpus: cpus().length,
    loadavg: loadavg(),
    note: 'shared 2-core machine with other jobs running: timings are noisy; ratios are measured within one process',
  };
}

/**
 * The exponent b of the least-squares fit y ≈ a·Nmax^b over the rows (log–log regression of
 * `y(row)` on `row.nmax`): how a cost grows with the size.
 */
export function growthExponent<R extends { nmax: number }>(rows: readonly R[], y: (r: R) => number): number {
  const lx = rows.map((r) => Math.log(r.nmax));
  const ly = rows.map((r) => Math.log(y(r)));
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  lx.forEach((v, i) => {
    num += (v - mx) * (ly[i]! - my);
    den += (v - mx) ** 2;
  });
  return num / den;
}

/**
 * The host's speed right now: the Gramian tile kernel (dsyrkTiles on a 512×128 block in wasm
 * memory) on the calling thread for `ms` ms after 200 ms of tier-up, in GFLOP/s. The host shares
 * its cores with other machines and its speed drifts (seen: 26 and 11 GFLOP/s an hour apart), so
 * a benchmark whose targets are absolute times records it next to them.
 */
export async function hostSpeedGflops(ms: number): Promise<number> {
  await init();
  const { arena } = wasm();
  const K = linalgKernels();
  const [rows, cols] = [512, 128];
  const a = arena.alloc(rows * cols);
  const W = arena.alloc(cols * cols, 0);
  const P = arena.alloc(256 * cols);
  try {
    a.view.set(seededNormals(3, rows * cols));
    const run = (budget: number): number => {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < budget) {
        K.dsyrkTiles(a.ptr, rows, cols, 1, W.ptr, P.ptr, 256, 0, cols / 4);
        n++;
      }
      return (2 * rows * cols * cols * n) / (performance.now() - t0) / 1e6;
    };
    run(200); // tier-up
    return Math.round(run(ms) * 10) / 10;
  } finally {
    for (const b of [a, W, P]) arena.free(b);
  }
}
