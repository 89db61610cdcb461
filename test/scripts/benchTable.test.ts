import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/bench-table.mjs turns bench/results/*.json into docs/benchmarks.md. These tests run it
// on small results files built here (one per benchmark, holding only fields its table shows) and
// check that every figure and every recorded environment string reaches the page, and that a
// missing or malformed file stops it with one line naming the file.
const script = fileURLToPath(new URL('../../scripts/bench-table.mjs', import.meta.url));

const linalg = {
  date: '2031-01-02T03:04:05.000Z',
  node: 'v99.1.2',
  kernels: 'fixture-build',
  cpu: 'Test CPU 3000',
  cores: 3,
  threads: 2,
  tfjsBackend: 'wasm',
  caveat: 'fixture machine, figures invented',
  loadAverageBefore: [0.31, 0.42, 0.53],
  loadAverageAfter: [1.27, 1.38, 1.49],
  cpuProbeBefore: { soloGflops: 41.7, pairGflops: [40.9, 39.4], pairOverSolo: 1.93 },
  vcpuSoloGflopsBefore: [42.3, 38.6],
  cpuProbeAfterGram: { soloGflops: 43.2, pairGflops: [42.8, 41.1], pairOverSolo: 1.94 },
  vcpuSoloGflopsAfterGram: [44.6, 37.9],
  gram: [
    {
      rows: 4096,
      cols: 256,
      kernel: 'fixtureKernel (packed)',
      ours1ThreadMs: 12.345,
      ours1ThreadGflops: 43.21,
      ours2ThreadsGflops: 76.54,
      twoThreadSpeedup: 1.771,
      blockInput1ThreadGflops: 44.47,
      blockInput2ThreadsGflops: 81.93,
      kernelOnlyGflopsMedian: 45.62,
      mlMatrixMs: 708.4,
      speedupVsMlMatrix: 57.39,
      tfjsWasmF32Ms: 281.7,
      speedupVsTfjsWasmF32: 22.82,
    },
  ],
  gramTargets: {
    oneThreadTarget: 40,
    oneThreadMinGflops: 43.21,
    oneThreadBlockInputMinGflops: 44.47,
    oneThreadKernelMinGflops: 45.62,
    twoThreadTarget: 1.7,
    twoThreadMinSpeedup: 1.771,
  },
  eigh: [
    {
      m: 128,
      oursMs: 3.127,
      oursOutMs: 2.418,
      mlMatrixMs: 55.83,
      speedupVsMlMatrix: 17.85,
      speedupVsMlMatrixOut: 23.09,
    },
  ],
  rankStreamingQR: {
    rows: 65536,
    cols: 256,
    oursMs: 1911.4,
    rank: 255,
    mlMatrixQrPlusSvdMs: 80123.9,
    mlMatrixRank: 255,
    speedupVsMlMatrix: 41.92,
    tfjsWasmF32QrFullStack: 'failed: fixture reason',
    slice2048: { rows: 2048, oursMs: 168.3, tfjsWasmF32QrMs: 5012.6, speedupVsTfjsWasmF32Qr: 29.78 },
  },
  decisionStepTargets: {
    worstEighOverDsyevd: 1.611,
    worstNullSpaceOverDgesdd: 1.722,
    worstSvdvalsOverDgesddValues: 1.833,
    sizes: [640, 1280],
    target: 1.944,
  },
  nativeNumpyOneThread: {
    numpy: '9.8.7',
    gram: [{ size: '4096x256', numpyMs: 7.613, oursApi1ThreadOverNumpyWall: 1.622, oursKernelOverNumpyCpuTime: 1.547 }],
    pairing: 'fixture pairing sentence',
    eigh: [{ m: 128, dsyevdMs: 1.318, oursOverDsyevdWall: 2.373, oursOverDsyevdRange: [2.111, 2.654] }],
    svdOfR: [
      {
        m: 512,
        dgesddWithVectorsMs: 61.47,
        oursNullSpaceOverDgesdd: 1.234,
        oursNullSpaceOverDgesddCpuTime: 1.456,
        oursNullSpaceOverDgesddRange: [1.101, 1.389],
        oursSvdvalsOverDgesddValuesRange: [2.202, 2.468],
        dgesddValuesOnlyMs: 21.73,
        oursSvdvalsOverDgesddValues: 2.345,
        oursSvdvalsOverDgesddValuesCpuTime: 2.567,
      },
    ],
    dgemm: [{ m: 1024, oursGflops: 14.73, numpyGflops: 36.91, numpyOverOursRate: 2.506 }],
  },
};

const phases = (base: number) => ({
  fixedPoint: base * 1.1,
  contraction: base * 1.3,
  crossCheck: 0.0017,
  redundancy: base * 0.07,
  expandNorms: base * 1.7,
  sensitivity: base * 0.53,
  columns: base * 2.9,
  gramian: base * 0.37,
  coverage: 0.00042,
});

const certify = {
  date: '2031-01-02T05:06:07.000Z',
  tfBackend: 'cpu',
  loadAverage: { before: [2.71, 1.61, 1.41], after: [1.91, 1.51, 1.31] },
  hostSpeedGflops: { before: 21.7, after: 19.3 },
  caveat: 'fixture certify note',
  referenceGraph: [64, 256].map((nmax) => ({
    nmax,
    d: 9 * nmax + 3 * nmax * nmax,
    items: 32,
    certifyMs: nmax * 13.37,
    gcShare: 0.0317 + nmax / 1e5,
    phasesMs: phases(nmax * 0.923),
    confidenceContraction: {
      verdict: 'certified',
      empiricalLowerBound: 0.5031,
      localNorm: 0.5172,
      analyticBound: 0.9575240455644527,
    },
    contractionBlocks: [
      {
        subspace: 'all',
        dim: 9 * nmax + 3 * nmax * nmax,
        verdict: 'not contractive',
        empiricalLowerBound: 1.113,
        evaluations: 76,
      },
      { subspace: 'confidence', dim: nmax, verdict: 'certified', empiricalLowerBound: 0.5006, evaluations: 80 },
    ],
    redundancyFails: 3,
    subspaces: [
      { name: 'confidence', dim: nmax, kernelDim: nmax - 1 },
      { name: 'footprint', dim: 336, kernelDim: 241 },
    ],
    jacobian: { columns: 1500 + nmax },
  })),
  fdVsAutodiff: {
    n: 256,
    fdBatchedMs: 5.913,
    fdPerColumnMs: 84.27,
    autodiffBatchedVjpMs: 18.77,
    autodiffRowByRowMs: 262.4,
    batchedVjpSpeedup: 13.98,
    maxAbsDifference: 6.234e-9,
    relativeToMaxEntry: 9.812e-8,
  },
  denseJacobianVsGemmFloor: {
    n: 1024,
    oneThread: {
      threads: 1,
      floorMs: 47.71,
      gramGflops: 45.03,
      batchedFdJacobianMs: 227.3,
      batchedEvaluationOnlyMs: 202.6,
      gemmOnlyMs: 184.9,
      gemmOnlyGflops: 23.24,
      ratioToFloor: 4.764,
      gemmOnlyOverFloor: 3.876,
      ratioToBatchedEvaluation: 1.122,
    },
    twoThreads: {
      threads: 2,
      floorMs: 29.83,
      gramGflops: 71.98,
      batchedFdJacobianMs: 151.2,
      batchedEvaluationOnlyMs: 146.1,
      gemmOnlyMs: 118.8,
      gemmOnlyGflops: 36.16,
      ratioToFloor: 5.069,
      gemmOnlyOverFloor: 3.983,
      ratioToBatchedEvaluation: 1.035,
    },
    jacobianOnPoolOverOneThreadFloor: 3.169,
    target: '<= 4',
  },
};

const ordergapNmax = {
  environment: { node: 'v99.3.4', cpus: 5, loadavg: [3.61, 4.72, 5.83], note: 'fixture nmax note' },
  k: 8,
  edgesPerNode: 10,
  seed: 424242,
  results: [
    {
      nmax: 128,
      dim: 50304,
      nnz: 1023,
      msOmega: 0.12345,
      msBaseline: 0.05791,
      ratio: 2.1317,
      peakOverStateVector: 4.6123,
      msGeneric: 5.1488,
      msSparse: 0.23243,
      msLocal: 0.19579,
      sparseEqualsDense: true,
    },
    {
      nmax: 65536,
      dim: 12885491712,
      nnz: 535701,
      msOmega: null,
      msBaseline: null,
      ratio: null,
      peakOverStateVector: null,
      msGeneric: null,
      msSparse: 76.3627,
      msLocal: 11.1695,
      sparseEqualsDense: null,
    },
  ],
  fits: { denseExponent: 2.1281, baselineExponent: 2.0878, sparseExponent: 0.8589, localExponent: 0.7336 },
};

const stopping = {
  date: '2031-01-05T06:07:08.000Z',
  environment: { node: 'v99.4.5', cpus: 5 },
  samples: { file: 'fixture-samples.jsonl', sha256: '0123456789abcdef', items: 321 },
  repeats: 23,
  seed: 7,
  budget: 41,
  pairedUnits: 7383,
  plot: 'fixture-accuracy.svg',
  timings: { replayAndPlotMs: 1234.5, syntheticMs: 2345.6, calibrationMs: 3456.7 },
  rules: [
    {
      label: 'fixed-budget(budget=41)',
      name: 'fixed-budget',
      accuracy: 0.8123,
      accuracyChange: 0,
      accuracyDifference: { low: 0, high: 0 },
      meanSamples: 41,
      agreement: 1,
      falseStopRate: 0,
    },
    {
      label: 'anytime(delta=0.07)',
      name: 'anytime',
      accuracy: 0.8071,
      accuracyChange: -0.0052,
      accuracyDifference: { low: -0.0113, high: 0.0034 },
      meanSamples: 12.34,
      agreement: 0.9912,
      falseStopRate: 0.0088,
    },
  ],
  paretoFront: ['anytime(delta=0.07)'],
  allRules: {
    plot: 'fixture-all-accuracy.svg',
    pairedUnits: 7384,
    paretoFront: ['fixture-rule(k=3)'],
    rules: [
      {
        label: 'fixed-budget(budget=41)',
        name: 'fixed-budget',
        accuracy: 0.8124,
        accuracyDifference: { low: 0, high: 0 },
        meanSamples: 41,
        falseStopRate: 0,
      },
      {
        label: 'fixture-rule(k=3)',
        name: 'fixture-alias',
        accuracy: 0.7914,
        accuracyDifference: { low: -0.0317, high: -0.0103 },
        meanSamples: 3.21,
        falseStopRate: 0.0456,
      },
    ],
  },
  synthetic: {
    streams: 678,
    maxSteps: 199,
    shapes: [
      { name: 'fixture 0.6/0.4', shape: 'fixture-two-way' },
      { name: 'fixture easy', shape: 'fixture-easy' },
    ],
    results: [
      { rule: 'anytime(delta=0.07)', distribution: 'fixture 0.6/0.4', falseStopRate: 0.0123, meanSamples: 87.6 },
      { rule: 'anytime(delta=0.07)', distribution: 'fixture easy', falseStopRate: 0.0234, meanSamples: 15.4 },
      {
        rule: 'fixture-rule(k=3)',
        name: 'fixture-alias',
        distribution: 'fixture easy',
        falseStopRate: 0.0345,
        meanSamples: 6.78,
      },
    ],
  },
  calibration: { chosen: { epsilon: 0.0456, window: 6 } },
  poolSpending: {
    rows: [
      {
        set: 'fixture pool set',
        spending: 0.375,
        accuracy: 0.6543,
        meanSamples: 11.12,
        escMeanSamples: 21.09,
        falseStopRate: 0.0432,
      },
    ],
    chosenOnSynthetic: 0.625,
    default: 0.875,
  },
  anytimeCaps: [
    {
      set: 'fixture set',
      maxWeight: 0.75,
      mixture: { weight: 0.703125, unanimousStop: 8 },
      accuracy: 0.7345,
      meanSamples: 13.57,
      escMeanSamples: 24.68,
      falseStopRate: 0.0321,
    },
  ],
};

const coverage = {
  date: '2031-01-02T03:04:05.000Z',
  node: 'v99.1.2',
  cores: 3,
  loadAverage: { before: [0.61, 0.72, 0.83], after: [1.14, 1.25, 1.36] },
  caveat: 'fixture machine, coverage figures invented',
  summary: [
    {
      scenario: 'fixture-scenario',
      stop: 'paper',
      runs: 4,
      meanStep: 23.5,
      meanAccuracy: 0.167,
      meanTrueConfidence: 0.312,
      meanEvidenceUsed: 8.75,
      blindStops: 3,
      convergedStops: 1,
      meanMs: 731,
    },
  ],
};

/** A scheduling entry of the run fixture: Q every step (61 consolidations) against the scheduled run. */
function schedulingRow(
  scenario: string,
  threshold: number,
  [consolidations, reason, steps]: [number, string, number],
  forcedConsolidations: number,
  [saved, savedAtMost]: [number, number],
  finalDistance: number,
) {
  return {
    scenario,
    epsilon: 0.0123,
    threshold,
    always: { consolidations: 61, reason: 'order-gap', steps: 61 },
    scheduled: { consolidations, reason, steps },
    forcedConsolidations,
    saved,
    savedAtMost,
    finalDistance,
  };
}

const ordergapRun = {
  environment: {
    node: 'v99.3.4',
    kernels: 'none',
    cpus: 5,
    loadavg: [0.31, 0.42, 0.53],
    note: 'fixture machine, run figures invented',
    hostSpeedGflops: { before: 23.4, after: 22.6 },
  },
  k: 7,
  edgesPerNode: 11,
  steps: 123,
  results: [
    {
      nmax: 4321,
      mode: 'structured',
      msPerStep: 6.54,
      msPerStepMedian: 6.21,
      msRunPerStep: 7.65,
      consolidations: 98,
      msOmega: 3.21,
      stepOverOmega: 2.04,
      msTwoPasses: 0.876,
      stepOverTwoPasses: 7.47,
      stepOverTwoPassesWeights: 31.2,
      stateBytes: 3 * 2 ** 20,
      peakRssMB: 234,
      peakOverStateBytes: 78,
      growthOverStateBytes: 12.5,
    },
  ],
  memory: { emptyNodeRssMB: 43.2 },
  fits: { structuredExponent: 0.612 },
  scheduling: [schedulingRow('fixture-scenario', 0.0123, [44, 'order-gap', 61], 42, [0.279, 0.311], 0.0321)],
  schedulingSweep: [schedulingRow('fixture-sweep', 0.0615, [30, 'budget', 99], 25, [0.508, 0.59], 0.0456)],
};

const proof = {
  date: '2031-01-02T03:04:05.000Z',
  node: 'v99.1.2',
  cores: 3,
  caveat: 'fixture machine, figures invented',
  options: 'fixture proof options',
  reps: 3,
  loadAverage: { before: [0.31, 0.42, 0.53], after: [1.27, 1.38, 1.49] },
  cases: [
    {
      case: 'fixture block',
      d: 6789,
      block: 'fixture-w',
      blockDim: 43,
      verdict: 'proved',
      upperBound: 0.789,
      boxHalfWidth: 0.0321,
      enclosureWidth: 4.56e-13,
      enclosures: 7,
      proofMs: 123.4,
      floatMs: 12.34,
      proofOverFloat: 9.87,
      targetMs: 2345,
      met: true,
    },
  ],
};

const documentQa = {
  date: '2026-01-02T03:04:05.000Z',
  environment: { node: 'v20.99.1', cpus: 7, note: 'fixture-note' },
  question: 'fixture question?',
  wordsPerParagraph: 41,
  vocabulary: 3001,
  evidenceEvery: 19,
  repeats: { '203': 4, '5003': 2 },
  rows: [
    {
      document: 'fixture-sparse',
      chunks: 203,
      read: 187,
      calls: 189,
      steps: 161,
      reason: 'fixture-reason',
      answer: 'fixture-answer',
      wallMs: 567.8,
      modelMs: 12.34,
      msPerChunk: 2.967,
      targetMs: 5,
      met: true,
    },
  ],
};

const repeatedCalls = {
  date: 'fixture-date-repeated',
  environment: {
    node: 'v20.0.0-fixture',
    kernels: 'fixture-build',
    cpu: 'fixture-cpu',
    loadAverageBefore: [1.23, 2.34, 3.45],
    loadAverageAfter: [4.56, 5.67, 6.78],
  },
  products: {
    size: '1024x1024',
    numpy: 'fixture-numpy',
    productsPerTiming: 123,
    resident: {
      oursMsPerProduct: 0.4321,
      numpyMsPerProduct: 0.2109,
      oursOverNumpyWall: 1.87,
      oursOverNumpyCpuTime: 1.76,
      oursOverNumpyRange: [1.45, 2.67],
    },
    gemmPerCall: {
      oursMsPerProduct: 7.891,
      numpyMsPerProduct: 0.3012,
      oursOverNumpyWall: 26.2,
      oursOverNumpyCpuTime: 24.4,
      oursOverNumpyRange: [12.1, 41.9],
    },
    met: true,
  },
  compare: {
    samples: 'fixture-samples.jsonl',
    rules: 'fixture rules',
    cliWallMedianMs: 987,
    cliNote: 'fixture note',
    libraryFirstCallCpuMs: 765,
    libraryWarmCpuMedianMs: 543,
    met: true,
  },
};

const threadScenario = (scenario: string, threads: number, probeRatio: number, speedups: [number, number]) => ({
  scenario,
  loadAverageBefore: [0.12, 0.34, 0.56],
  autoStartMs: 76.5 + threads,
  decision: { threads, probeRatio, threshold: 1.2 },
  gram: { speedup: speedups[0] },
  fdJacobian: { speedup: speedups[1] },
});
const threads = {
  environment: { node: 'v20.1.2-fixture-threads', kernels: 'fixture-threads-build', cores: 2 },
  rounds: 9,
  gramShape: [4096, 256],
  fdJacobianN: 1024,
  scenarios: [
    threadScenario('fixture-idle', 2, 1.345, [1.456, 1.678]),
    threadScenario('fixture-busy', 1, 0.876, [1.01, 0.995]),
  ],
  targets: { idleSpeedupAtLeast: 1.5 },
  note: 'fixture threads note',
};

const fixtures: Record<string, unknown> = {
  'threads.json': threads,
  'threads-node22.json': threads,
  'document-qa.json': documentQa,
  'repeated-calls.json': repeatedCalls,
  'repeated-calls-node22.json': repeatedCalls,
  'linalg-node22.json': linalg,
  'proof.json': proof,
  'ordergap-run.json': ordergapRun,
  'ordergap-run-node22.json': ordergapRun,
  'coverage.json': coverage,
  'linalg.json': linalg,
  'certify.json': certify,
  'certify-node22.json': certify,
  'ordergap-nmax.json': ordergapNmax,
  'stopping.json': stopping,
};

/** Every number and every string leaf of a document. */
function leaves(doc: unknown, numbers: number[] = [], strings: string[] = []) {
  if (typeof doc === 'number') numbers.push(doc);
  else if (typeof doc === 'string') strings.push(doc);
  else if (doc !== null && typeof doc === 'object') for (const v of Object.values(doc)) leaves(v, numbers, strings);
  return { numbers, strings };
}

/** Every number the page prints (integers, decimals, exponent notation). */
const printedNumbers = (page: string) => (page.match(/\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) ?? []).map(Number);

function run(args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scripts/bench-table.mjs', () => {
  let dir: string;
  let results: string;
  let out: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ordergap-benchtable-'));
    results = dir;
    out = join(dir, 'benchmarks.md');
    for (const [name, doc] of Object.entries(fixtures)) {
      writeFileSync(join(results, name), JSON.stringify(doc, null, 2) + '\n');
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every figure of every results file, rounded to about three significant digits', () => {
    const r = run(['--results', results, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    const printed = printedNumbers(page);
    for (const [name, doc] of Object.entries(fixtures)) {
      const { numbers } = leaves(doc);
      for (const x of numbers) {
        // the page rounds to ~3 significant digits: within 0.5 % of the recorded value (the number
        // pattern reads no sign, since hyphens also join dates, so a negative figure is matched by size)
        const found = printed.some((p) => Math.abs(p - Math.abs(x)) <= 5e-3 * Math.abs(x));
        expect(found, `${name}: ${x} is not on the page`).toBe(true);
      }
    }
  });

  it('shows the recorded environment and text fields, and says the page is generated', () => {
    expect(run(['--results', results, '--out', out]).status).toBe(0);
    const page = readFileSync(out, 'utf8');
    for (const [name, doc] of Object.entries(fixtures)) {
      for (const s of leaves(doc).strings) {
        const shown = s.replace('x', '×'); // '4096x256' is printed as a size
        expect(page.includes(s) || page.includes(shown), `${name}: "${s}" is not on the page`).toBe(true);
      }
    }
    // the header line: what generates the page, from which files, and that it is not edited by hand
    expect(page.split('\n')[2]).toMatch(
      /^Generated by `node scripts\/bench-table\.mjs` from `.*\/\*\.json`: do not edit by hand\.$/,
    );
    // a field the JSON does not record is said to be missing, not invented
    expect(page).toMatch(/\| node \| not recorded \|/);
    for (const heading of [
      '## Linear algebra',
      '## Certification',
      '## The order-gap at large Nmax',
      '## Stopping rules on real samples',
    ]) {
      expect(page).toContain(heading);
    }
  });

  it('whole runs: the step over the two streaming passes sits beside their time, then over the weights alone', () => {
    expect(run(['--results', results, '--out', out]).status).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(
      /^\| 4321 \| structured \| 6\.54 \| 6\.21 \| 7\.65 \| 98 \| 3\.21 \| 2\.04× \| 0\.876 \| 7\.47× \| 31\.2× \|/m,
    );
    // the build the runs ran: none, the structured step runs no wasm kernel
    expect(page).toMatch(/^\| kernel build \| none \(no wasm kernel ran\) \|$/m);
  });

  it('stopping: the all-rules table stars its Pareto front, aliases show their rule, shapes head the synthetic columns', () => {
    expect(run(['--results', results, '--out', out]).status).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(
      /^\| fixture-alias: fixture-rule\(k=3\) \| 0\.791 \| \[-0\.0317, -0\.0103\] \| 3\.21 \| 0\.0456 \| \* \|$/m,
    );
    expect(page).toMatch(/^\| fixed-budget\(budget=41\) \| 0\.812 \| \[0, 0\] \| 41 \| 0 \| {2}\|$/m);
    // the default comparison's front column
    expect(page).toMatch(/^\| anytime\(delta=0\.07\) \|.*\| \* \| P\(false stop\) <= δ \|$/m);
    expect(page).toMatch(/^\| rule \| fixture-two-way \| fixture-easy \|$/m);
    expect(page).toMatch(/^\| fixture-alias: fixture-rule\(k=3\) \| — \| 0\.0345 \/ 6\.78 \|$/m);
  });

  it.each([
    'linalg.json',
    'certify.json',
    'proof.json',
    'ordergap-nmax.json',
    'stopping.json',
    'coverage.json',
    'ordergap-run.json',
  ])('a missing %s is one line naming it', (name) => {
    unlinkSync(join(results, name));
    const r = run(['--results', results, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(name);
    expect(r.stderr).toMatch(/missing/);
    expect(existsSync(out)).toBe(false);
  });

  it('malformed JSON is one line naming the file, and nothing is written', () => {
    writeFileSync(join(results, 'certify.json'), '{ "referenceGraph": [ ');
    writeFileSync(out, 'previous page\n');
    const r = run(['--results', results, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/certify\.json: is not valid JSON/);
    expect(readFileSync(out, 'utf8')).toBe('previous page\n');
  });

  it('a missing or mistyped field is one line naming the file and the field', () => {
    const broken = structuredClone(linalg) as Record<string, unknown>;
    delete broken.gram;
    writeFileSync(join(results, 'linalg.json'), JSON.stringify(broken));
    let r = run(['--results', results, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/linalg\.json: gram is missing/);

    const mistyped = structuredClone(ordergapNmax);
    (mistyped.results[0] as Record<string, unknown>).msSparse = 'fast';
    writeFileSync(join(results, 'ordergap-nmax.json'), JSON.stringify(mistyped));
    writeFileSync(join(results, 'linalg.json'), JSON.stringify(linalg));
    r = run(['--results', results, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/ordergap-nmax\.json: results\[0\]\.msSparse = "fast": expected a number/);

    writeFileSync(join(results, 'certify.json'), '[1, 2]');
    writeFileSync(join(results, 'ordergap-nmax.json'), JSON.stringify(ordergapNmax));
    r = run(['--results', results, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/certify\.json: must hold a JSON object/);
  });

  it('a bad argument exits 2 with one line naming it', () => {
    let r = run(['--results']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--results needs a value/);
    r = run(['--output', out]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown argument "--output"/);
  });
});
