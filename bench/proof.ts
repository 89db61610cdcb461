/**
 * Benchmarks of proofs by enclosure. Run: `node --import tsx bench/proof.ts` (or
 * `npm run bench -- proof`). Writes bench/results/proof.json; every ratio is computed from
 * timings taken in this run.
 *
 * For each case, `certify` with the options a user gets (the system's policy, FD Jacobians),
 * restricted to the one contraction block (no subspaces or questions decided), twice in the same
 * run: with the proof by enclosure (the default) and with `proofs: false` (the float check alone:
 * the search for a counterexample and the local norm). Reported: the contraction phase's time
 * with and without the proof, their ratio (what a proof costs against one float certification
 * of the same block), the verdict, the proved bound, the box's half-width and the width of the
 * fixed point's enclosure, and the enclosures evaluated. Cases and targets:
 * - tanh(Wx + b) on a block x of n = 64 (examples/systems/tanh.mjs, ‖W‖₂ = 0.8): <= 2 s;
 * - the reference graph's confidence block on the default scenario: <= 10 s;
 * - the reference graph's confidence block on the synthetic scenario of bench/certify.ts at
 *   Nmax = 64, 128, 256: <= 60 s at Nmax 256.
 * The machine has 2 cores shared with other workloads: the median of `REPS` runs is reported.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { certify } from '../src/certify/certify.js';
import type { CertifyOptions } from '../src/certify/types.js';
import { referenceGraphSystem } from '../src/graph/system.js';
import { defineSystem } from '../src/system/define.js';
import type { OperatorSystem, OperatorSystemSpec } from '../src/system/types.js';
import { init } from '../src/wasm/module.js';
import { syntheticScenario } from './_scenario.js';
import { kernelBuildRun } from './_node.js';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const REPS = 3;

interface Timed {
  ms: number;
  report: Awaited<ReturnType<typeof certify>>;
}

async function contractionOnly(system: OperatorSystem, block: string, proofs: boolean): Promise<Timed> {
  // proofMaxEntries raised so Nmax 256 (d·|W| = 5.1e7 > the default 2^24) is proved, as a user asks for it
  const options: CertifyOptions = {
    contractionSubspaces: [block],
    subspaces: [],
    questions: [],
    proofs,
    proofMaxEntries: 2 ** 26,
  };
  const report = await certify(system, options);
  return { ms: report.timings['contraction']!, report };
}

async function medianOf(system: OperatorSystem, block: string, proofs: boolean): Promise<Timed> {
  const runs: Timed[] = [];
  for (let r = 0; r < REPS; r++) runs.push(await contractionOnly(system, block, proofs));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(runs.length / 2)]!;
}

async function caseRow(name: string, system: OperatorSystem, block: string, targetMs: number | null) {
  const withProof = await medianOf(system, block, true);
  const floatOnly = await medianOf(system, block, false);
  const c = withProof.report.contraction.find((x) => x.subspace === block)!;
  let half = 0;
  if (c.box) for (let k = 0; k < c.box.lo.length; k++) half = Math.max(half, (c.box.hi[k]! - c.box.lo[k]!) / 2);
  const row = {
    case: name,
    d: system.dim,
    block,
    blockDim: c.dim,
    verdict: c.verdict,
    upperBound: c.upperBound,
    boxHalfWidth: c.box ? half : null,
    enclosureWidth: c.proof?.enclosureWidth ?? null,
    enclosures: c.proof?.evaluations ?? 0,
    proofMs: round(withProof.ms),
    floatMs: round(floatOnly.ms),
    proofOverFloat: round(withProof.ms / floatOnly.ms, 2),
    targetMs,
    met: targetMs === null ? null : c.verdict === 'proved' && withProof.ms <= targetMs,
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
  return row;
}

async function tanhSystem(): Promise<OperatorSystem> {
  const file = '../examples/systems/tanh.mjs'; // an operator module (plain JavaScript, no types)
  const mod = (await import(file)) as {
    tanhSystem: (o: { n: number; norm: number }) => OperatorSystemSpec;
  };
  return defineSystem(mod.tanhSystem({ n: 64, norm: 0.8 }));
}

async function main() {
  await init();
  const load = { before: loadavg().map((x) => round(x, 2)) };
  const rows: unknown[] = [];
  const save = () => {
    mkdirSync(new URL('results/', import.meta.url), { recursive: true });
    writeFileSync(
      new URL('results/proof.json', import.meta.url),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          kernels: kernelBuildRun(),
          cores: availableParallelism(),
          caveat: '2 cores shared with other workloads: timings are noisy',
          options:
            'certify with the system policy and FD Jacobians, one contraction block, no subspaces or questions, proofMaxEntries 2^26 (the default 2^24 leaves Nmax 256 unproved); proofs on (default) and off',
          reps: REPS,
          loadAverage: { ...load, after: loadavg().map((x) => round(x, 2)) },
          cases: rows,
        },
        null,
        2,
      ) + '\n',
    );
  };
  rows.push(await caseRow('tanh(Wx + b), n = 64, ‖W‖₂ = 0.8', await tanhSystem(), 'x', 2000));
  save();
  rows.push(await caseRow('reference graph, default scenario', referenceGraphSystem(), 'confidence', 10000));
  save();
  for (const nmax of [64, 128, 256]) {
    const system = referenceGraphSystem(syntheticScenario(nmax, 32));
    rows.push(
      await caseRow(`reference graph, synthetic Nmax ${nmax}`, system, 'confidence', nmax === 256 ? 60000 : null),
    );
    save();
  }
}

void main();
