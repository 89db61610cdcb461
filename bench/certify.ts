/**
 * Benchmarks of the certification (issue 5). Run: `node --import tsx bench/certify.ts`
 * (or `npm run bench -- certify`). Writes bench/results/certify.json; every ratio is computed
 * from timings taken in this same run.
 *
 * 1. Certification of the reference graph for Nmax = 64, 128, 256, 512 (k = 8, 32 evidence
 *    items, 8 questions with 2 answers each; generated below), at the fixed point of Q reached
 *    from the state where every item is incorporated (saturated), on the confidence block and on the
 *    footprint subspace (union of the items' footprints). Time by phase: fixed point,
 *    contraction (confidence block), Jacobian columns (DQ b shared + per-item Σ_e columns),
 *    Gramian/QR decision. Target: Nmax = 256 (d = 198 912) certified in <= 5 s.
 * 2. FD against autodiff Jacobians in the same run on a dense map f(x) = tanh(Wx), n = 256:
 *    batched central differences (f64, one GEMM) vs batched tfjs VJPs with cotangent I (float32),
 *    time and max difference. (The reference graph has no tfjs form yet, so the graph rows are
 *    FD only — see docs/certify.md.)
 * 3. Batched central-difference Jacobian of a dense n = 1024 map f(x) = tanh(Wx) (all 2n
 *    perturbed points evaluated as ONE GEMM of (2n×n)·(n×n)ᵀ) against the GEMM floor
 *    2n³ flops at the Gramian kernel's GFLOP/s measured here (2·k·m² for AᵀA, 1024×1024). Both
 *    write into reused outputs (`out`), and are also timed with fresh ones.
 *    Target: within 4× of the floor.
 *
 * The machine has 2 cores and is shared with other workloads: timings are noisy; we report the
 * median of several repetitions where affordable and the load average.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type * as TfCore from '@tensorflow/tfjs-core';
import { certify } from '../src/certify/certify.js';
import { createScenario } from '../src/graph/scenario.js';
import { referenceGraphSystem } from '../src/graph/system.js';
import * as linalg from '../src/linalg/index.js';
import { jacobianByVjp, jacobianCentral, loadTf, rawOperators } from '../src/linearize/index.js';
import type { Tf } from '../src/system/types.js';
import { createRng } from '../src/ordergap/rng.js';
import { init } from '../src/wasm/module.js';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

function median(fn: () => number, reps: number): { medianMs: number; bestMs: number; reps: number; sink: number } {
  const ts: number[] = [];
  let sink = 0;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    sink += fn();
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  return { medianMs: round(ts[Math.floor(ts.length / 2)]!), bestMs: round(ts[0]!), reps, sink };
}

/** A synthetic scenario: nQ questions with 2 answers each, `items` items each adding one claim. */
function syntheticScenario(nmax: number, items: number, k = 8, seed = 1) {
  const rng = createRng(seed);
  const nQ = 8;
  const caps = { questions: nQ, answers: 2 * nQ, claims: nmax - 3 * nQ };
  const attrs = () => Array.from({ length: k }, () => round(rng.next(), 6));
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  for (let q = 0; q < nQ; q++) {
    nodes.push({ id: `q${q}`, type: 'question', text: `question ${q}`, attributes: attrs(), confidence: 1 });
    for (let a = 0; a < 2; a++)
      nodes.push({
        id: `a${q}_${a}`,
        type: 'answer',
        question: `q${q}`,
        text: `answer ${q}.${a}`,
        attributes: attrs(),
        confidence: 0.05,
      });
  }
  const pool = Array.from({ length: items }, (_, i) => {
    const q = i % nQ;
    const a = Math.floor(i / nQ) % 2;
    const claim = `c${i}`;
    return {
      id: `e${String(i).padStart(2, '0')}`,
      text: `item ${i}`,
      strength: 0.7,
      weight: 1,
      claims: [
        {
          id: claim,
          text: `claim ${i}`,
          source: `s${i % 5}`,
          support: round(0.5 + 0.4 * rng.next(), 4),
          attributes: attrs(),
        },
      ],
      edges: [
        { type: 'Supports', source: claim, target: `a${q}_${a}`, weight: round(0.5 + 0.4 * rng.next(), 4) },
        { type: 'Requires', source: `a${q}_${a}`, target: `q${q}`, weight: 0 },
      ],
    };
  });
  return createScenario({ k, capacities: caps, nodes, edges }, { adaptiveGain: 2, items: pool });
}

async function graphRows() {
  const rows: unknown[] = [];
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((x) => x > 0);
  for (const nmax of sizes.length ? sizes : [64, 128, 256, 512]) {
    const t0 = performance.now();
    const scenario = syntheticScenario(nmax, 32);
    const system = referenceGraphSystem(scenario);
    const setupMs = performance.now() - t0;
    // incorporate every item (30 blends of strength 0.7 leave 0.3^30 ≈ 2e-16 of each
    // displacement: a saturated state, where the Redundancy assumption can hold — MATH.md §6)
    let t1 = performance.now();
    const raw = rawOperators(system);
    let theta = scenario.theta0;
    for (let pass = 0; pass < 30; pass++) for (const it of scenario.items) theta = raw.expand(it.id, theta);
    const passesMs = performance.now() - t1;
    t1 = performance.now();
    const r = await certify(system, {
      fixedPoint: { theta0: theta },
      subspaces: ['confidence', 'footprint'],
      questions: [],
      contractionSubspaces: ['confidence'],
      contractionBoxes: { confidence: { lower: 0, upper: 1 } },
      samples: 16,
    });
    const totalMs = performance.now() - t1;
    const by = Object.fromEntries(r.subspaces.map((s) => [s.name, s]));
    const row = {
      nmax,
      d: system.dim,
      items: scenario.items.length,
      footprintDim: by['footprint']!.dim,
      setupMs: round(setupMs),
      saturateMs: round(passesMs),
      certifyMs: round(totalMs),
      phasesMs: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v)])),
      fixedPoint: { iterations: r.fixedPoint.iterations, residual: r.fixedPoint.residual },
      confidenceContraction: {
        verdict: r.contractionBySubspace[0]!.verdict,
        empiricalLowerBound: round(r.contractionBySubspace[0]!.empiricalLowerBound, 4),
        localNorm: round(r.contractionBySubspace[0]!.localNorm, 4),
        analyticBound: r.contractionBySubspace[0]!.analyticBound,
      },
      redundancyFails: r.redundancy.filter((x) => !x.holds).length,
      subspaces: r.subspaces.map((s) => ({
        name: s.name,
        dim: s.dim,
        nonDegenerate: s.nonDegenerate,
        kernelDim: s.kernelDim,
        lambdaMin: s.lambdaMin,
        lambdaMax: s.lambdaMax,
        tolerance: s.tolerance,
      })),
      jacobian: { method: r.jacobian.method, evaluations: r.jacobian.evaluations, columns: r.jacobian.columns },
    };
    rows.push(row);
    console.log(
      `Nmax ${nmax}: d = ${system.dim}, certify ${round(totalMs, 0)} ms (${Object.entries(row.phasesMs)
        .map(([k, v]) => `${k} ${round(v, 0)}`)
        .join(', ')}); ` +
        row.subspaces
          .map(
            (s) => `${s.name} ${s.dim}: ${s.nonDegenerate ? 'non-degenerate' : `degenerate (kernel ${s.kernelDim})`}`,
          )
          .join('; '),
    );
  }
  return rows;
}

function denseMap(n: number, seed: number) {
  const rng = createRng(seed);
  const W = Float64Array.from({ length: n * n }, () => (rng.next() - 0.5) * (2 / Math.sqrt(n)));
  const x = Float64Array.from({ length: n }, () => rng.next() - 0.5);
  const f = (v: Float64Array): Float64Array => {
    const y = linalg.gemm(W, n, n, v, n, 1);
    return y.map(Math.tanh);
  };
  // batch: points row-major (count × n) → tanh(P Wᵀ) (count × n), one GEMM into a buffer kept
  // between calls (a fresh 16 MiB result costs ~50 ms of page faults on this VM)
  let Y = new Float64Array(0);
  const batch = (P: Float64Array, count: number): Float64Array => {
    if (Y.length !== count * n) Y = new Float64Array(count * n);
    linalg.gemm(P, count, n, W, n, n, { transB: true, C: Y });
    for (let i = 0; i < Y.length; i++) Y[i] = Math.tanh(Y[i]!);
    return Y;
  };
  return { W, x, f, batch };
}

async function fdVsAutodiff(tf: Tf, n: number) {
  const { W, x, f, batch } = denseMap(n, 3);
  const fTf = (t: Tf, X: TfCore.Tensor2D) =>
    t.tanh(t.matMul(X, t.tensor2d(Float32Array.from(W), [n, n]), false, true)) as TfCore.Tensor2D;
  let Jfd: Float64Array = new Float64Array(0);
  let Jad: Float64Array = new Float64Array(0);
  const fd = median(() => {
    Jfd = jacobianCentral(f, x, { batch }).data;
    return Jfd[0]!;
  }, 5);
  const fdUnbatched = median(() => jacobianCentral(f, x).data[0]!, 3);
  const ad = median(() => {
    Jad = jacobianByVjp(tf, fTf, x, n, n); // n copies of x, cotangent I: one batched VJP
    return Jad[0]!;
  }, 3);
  const adRows = median(() => jacobianByVjp(tf, fTf, x, n, 1)[0]!, 1); // row by row
  let maxDiff = 0;
  let maxAbs = 0;
  for (let i = 0; i < Jfd.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(Jfd[i]! - Jad[i]!));
    maxAbs = Math.max(maxAbs, Math.abs(Jfd[i]!));
  }
  return {
    n,
    fdBatchedMs: fd.medianMs,
    fdPerColumnMs: fdUnbatched.medianMs,
    autodiffBatchedVjpMs: ad.medianMs,
    autodiffRowByRowMs: adRows.medianMs,
    batchedVjpSpeedup: round(adRows.medianMs / ad.medianMs, 2),
    maxAbsDifference: maxDiff,
    relativeToMaxEntry: maxDiff / maxAbs,
    note: 'FD in f64, autodiff in float32 on the tfjs wasm backend; the difference is float32 rounding',
  };
}

async function gemmFloor(n: number) {
  const rng = createRng(5);
  const A = Float64Array.from({ length: n * n }, () => rng.next() - 0.5);
  const G = new Float64Array(n * n);
  const { W, x, f, batch } = denseMap(n, 4);
  const flops = 2 * n ** 3; // 2·k·m² with k = m = n
  const evaluation = () => {
    const P = new Float64Array(2 * n * n);
    for (let k = 0; k < 2 * n; k++) P.set(x, k * n);
    return () => batch(P, 2 * n)[0]!;
  };
  const measure = (threads: number) => {
    // The floor: the Gramian's kernel rate, writing into `out` (no new array: on this VM a fresh
    // 8 MiB output alone costs ~25 ms of page faults), and with a fresh output for comparison.
    const g = median(() => linalg.gram(A, n, n, { threads, out: G })[0]!, 5);
    const gFresh = median(() => linalg.gram(A, n, n, { threads })[0]!, 3);
    // The Jacobian as the floor is measured: into a reused `out` (and, for comparison, fresh).
    const J = new Float64Array(n * n);
    const jac = median(() => jacobianCentral(f, x, { batch, out: J }).data[0]!, 3);
    const jacFresh = median(() => jacobianCentral(f, x, { batch }).data[0]!, 3);
    const evalOnly = median(evaluation(), 3);
    // The batch's GEMM alone (no tanh, no differences): the part no engine can avoid.
    const P = new Float64Array(2 * n * n);
    for (let k = 0; k < 2 * n; k++) P.set(x, k * n);
    const Y = new Float64Array(2 * n * n);
    const gemmOnly = median(() => linalg.gemm(P, 2 * n, n, W, n, n, { transB: true, C: Y, threads })[0]!, 3);
    const gramGflops = flops / (g.medianMs / 1000) / 1e9;
    return {
      threads,
      gramMs: g.medianMs,
      gramGflops: round(gramGflops, 2),
      gramFreshOutputMs: gFresh.medianMs,
      floorMs: g.medianMs,
      batchedFdJacobianMs: jac.medianMs,
      batchedFdJacobianFreshOutputMs: jacFresh.medianMs,
      batchedEvaluationOnlyMs: evalOnly.medianMs,
      gemmGflopsInBatch: round((4 * n ** 3) / (evalOnly.medianMs / 1000) / 1e9, 2),
      gemmOnlyMs: gemmOnly.medianMs,
      gemmOnlyGflops: round((4 * n ** 3) / (gemmOnly.medianMs / 1000) / 1e9, 2),
      gemmOnlyOverFloor: round(gemmOnly.medianMs / g.medianMs, 2),
      ratioToBatchedEvaluation: round(jac.medianMs / evalOnly.medianMs, 2),
      ratioToFloor: round(jac.medianMs / g.medianMs, 2),
    };
  };
  await linalg.stopThreads();
  const one = measure(1);
  await linalg.startThreads(2);
  const two = measure(2);
  await linalg.stopThreads();
  return {
    n,
    oneThread: one,
    twoThreads: two,
    jacobianOnPoolOverOneThreadFloor: round(two.batchedFdJacobianMs / one.floorMs, 2),
    target: '<= 4',
    note: 'the 2n perturbed points cost a (2n×n)·(n×n)ᵀ GEMM = 4n³ flops actually done, while the floor counts 2n³ at the Gramian rate, which credits 2·k·m² for the ~k·m² flops its upper tiles do: at equal speed per flop actually done the ratio is 4 before any overhead',
  };
}

async function main() {
  await init();
  const { tf, backend } = await loadTf();
  const load0 = loadavg();
  const graph = await graphRows();
  const compare = await fdVsAutodiff(tf, 256);
  console.log(`FD vs autodiff, n = 256:`, compare);
  const floor = await gemmFloor(1024);
  console.log(`batched FD Jacobian, n = 1024:`, floor);
  const doc = {
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    tfBackend: backend,
    loadAverage: { before: load0.map((x) => round(x, 2)), after: loadavg().map((x) => round(x, 2)) },
    caveat: '2 cores shared with other workloads: timings are noisy',
    referenceGraph: graph,
    fdVsAutodiff: compare,
    denseJacobianVsGemmFloor: floor,
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/certify.json', import.meta.url), JSON.stringify(doc, null, 2) + '\n');
}

await main();
