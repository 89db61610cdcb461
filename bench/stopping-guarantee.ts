/**
 * Stopping rules with a guarantee against the Beta rule (Adaptive-Consistency, threshold 0.95, no
 * guarantee), on the same units: the exact pool test (`pool`, src/stopping/poolVote.ts: its bound
 * is the exact worst case of the union bound over pools) at its default spending and at greedy
 * spending (ρ = 0), the anytime-valid rule with the budget, MMC and CITE at their defaults.
 * - On the shared ESC Last Letters file (20 seeded orders of each item's 40 samples, budget 40):
 *   accuracy, mean samples, false stops against the 40-sample vote.
 * - On every synthetic shape (src/lab/syntheticStreams.ts), 1000 streams each, with the streams'
 *   length as the budget (40, the file's, and 200): false stops against the vote of all the
 *   stream's samples (what the pool test bounds) and against the most likely answer.
 * - The pool test's spending exponent ρ ∈ {0, 1/4, 1/2, 1} on the synthetic set the order-gap
 *   default is chosen on (its default is the fewest mean samples there), shown on the file too.
 * - A lower bound on the mean samples that any symmetric rule (one that sees which samples agree,
 *   not what they say: every count-based rule) can reach on the file's pools while keeping the
 *   pool guarantee at δ on a set of constraint pools (bench/_poolOracle.ts): the file's own pools
 *   and near-tie pools. A measurement on the recorded samples only; nothing shipped is tuned on it.
 *   With it, the mean samples of the Beta rule and the pool test in expectation over uniformly
 *   random orders (exact on the items the exact state space holds, a long replay on the others).
 *
 * Usage: node --import tsx bench/stopping-guarantee.ts [--iterations K]
 *   writes bench/results/stopping-guarantee.json; needs the shared file (bench/_data.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerIsExtractor } from '../src/lab/extractors.js';
import { summarizeReplay } from '../src/lab/pairedScoring.js';
import { replaySamples } from '../src/lab/replay.js';
import { parseSamples, type SampleSet } from '../src/lab/samples.js';
import { binomialUpperQuantile, falseStopTrials, SYNTHETIC_DISTRIBUTIONS } from '../src/lab/syntheticStreams.js';
import { leaderProbability } from '../src/stopping/betaTail.js';
import { POOL_DEFAULT_SPENDING, poolThresholds } from '../src/stopping/poolVote.js';
import type { RuleSpec } from '../src/stopping/registry.js';
import { generateSyntheticSamples } from '../scripts/generate-samples.js';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from './_data.js';
import { poolOracle, type OraclePool } from './_poolOracle.js';

/** δ and the budget of the comparison; 20 seeded orders per item; 1000 synthetic streams per shape. */
const [DELTA, BUDGET, REPEATS, SEED] = [0.05, 40, 20, 1];
const [STREAMS, STREAM_SEED, SPENDINGS] = [1000, 20260601, [0, 0.25, 0.5, 1]] as const;
/**
 * Near-tie constraint pools of N = 40 (counts | empty samples), besides the file's own pools: two
 * answers 21/19..26/14, and pools with empty samples or three to five answers whose two largest
 * counts differ by one to three. More constraint pools can only raise the bound.
 */
const NEAR_TIES = [
  ...[21, 22, 23, 24, 25, 26].map((m) => `${m},${40 - m}|0`),
  ...['20,19|1', '20,18|2', '19,18|3', '19,17|4', '18,17|5', '20,19,1|0', '21,18,1|0', '20,18,2|0'],
  ...['19,18,3|0', '18,17,5|0', '14,13,13|0', '15,13,12|0', '19,18,2,1|0', '19,18,1,1,1|0', '18,17,3,2|0'],
  ...['11,10,10,9|0', '9,8,8,8,7|0', '14,13,12,1|0', '19,18,1,1|1', '19,18,1|2', '13,12,12|3', '18,17,1,1,1|2'],
];

const rulesUnderTest = (budget: number): RuleSpec[] => [
  { name: 'beta', params: { threshold: 0.95 } },
  { name: 'pool', params: { delta: DELTA, budget } },
  { name: 'pool', params: { delta: DELTA, budget, spending: 0 } },
  { name: 'anytime', params: { delta: DELTA, budget } },
  { name: 'mmc', params: {} },
  { name: 'cite', params: {} },
];

function replayRows(samples: SampleSet, specs: RuleSpec[], repeats: number) {
  const summary = summarizeReplay(replaySamples(samples, { rules: specs, repeats, seed: SEED, budget: BUDGET }));
  return summary.rules.map((r) => ({
    label: r.label,
    name: r.name,
    params: r.params,
    accuracy: r.accuracy,
    meanSamples: r.meanSamples,
    agreement: r.agreement,
    falseStopRate: r.falseStopRate,
  }));
}

/** Each item's pool: answer counts and empty (or unreadable) samples, as the replay reads them. */
function itemPool(samples: readonly (string | null)[]): OraclePool {
  const counts = new Map<string, number>();
  let blanks = 0;
  for (const text of samples) {
    const e = text === null ? null : answerIsExtractor.extract(text);
    if (e?.kind === 'answer') counts.set(e.answer, (counts.get(e.answer) ?? 0) + 1);
    else blanks++;
  }
  return { counts: [...counts.values()].sort((a, b) => b - a), blanks, weight: 1 };
}

/** The distinct pools of a list, each with the number of times it occurs as its weight. */
function distinctPools(list: readonly OraclePool[]): OraclePool[] {
  const bySignature = new Map<string, { counts: readonly number[]; blanks: number; weight: number }>();
  for (const p of list) {
    const key = `${p.counts.join(',')}|${p.blanks}`;
    const seen = bySignature.get(key);
    if (seen) seen.weight++;
    else bySignature.set(key, { ...p, weight: 1 });
  }
  return [...bySignature.values()];
}

const parsePool = (s: string): OraclePool => {
  const [counts, blanks] = s.split('|');
  return { counts: counts!.split(',').map(Number), blanks: Number(blanks), weight: 1 };
};

/** Units of the uncovered items' replay: enough orders that its mean stands for the expectation. */
const UNCOVERED_REPEATS = 2000;

/**
 * The lower bound of bench/_poolOracle.ts twice: on the items whose pools have at most 5 answers
 * and 5 empty samples, exactly, with the exact means of the Beta rule and the pool test there
 * (and their replay on the same items over the seeded orders, as a check); and on the whole file,
 * where states with more than 7 answers are free stops (a weaker, valid bound). The whole-file
 * expectation of each rule adds the exact means on the covered items to a replay of the others
 * over many orders.
 */
function oracleSection(shared: SampleSet, iterations: number) {
  const itemPools = shared.items.map((item) => itemPool(item.samples));
  const pools = distinctPools(itemPools);
  const isCovered = (p: OraclePool) => p.counts.length >= 1 && p.counts.length <= 5 && p.blanks <= 5;
  const constraints = [...pools.filter(isCovered), ...NEAR_TIES.map(parsePool)];
  const thresholdsOf = (rho: number) => poolThresholds(DELTA, BUDGET, rho).thresholds;
  const [cDefault, cGreedy] = [thresholdsOf(POOL_DEFAULT_SPENDING), thresholdsOf(0)];
  const common = { pools, constraints, N: BUDGET, delta: DELTA, iterations };
  const covered = poolOracle({
    ...common,
    maxAnswers: 5,
    maxBlanks: 5,
    rules: {
      beta: (parts) => leaderProbability(parts[0]!, parts[1] ?? 0).below <= 1 - 0.95,
      pool: (parts, _b, n) => parts[0]! >= cDefault[n]!,
      poolGreedy: (parts, _b, n) => parts[0]! >= cGreedy[n]!,
    },
  });
  const wholeFile = poolOracle({ ...common, maxAnswers: 40, maxBlanks: 40, maxParts: 7, rules: {} });
  const specs = rulesUnderTest(BUDGET).slice(0, 3);
  const coveredItems = shared.items.filter((_, i) => isCovered(itemPools[i]!));
  const otherItems = shared.items.filter((_, i) => !isCovered(itemPools[i]!));
  const coveredReplay = replayRows({ ...shared, items: coveredItems }, specs, REPEATS);
  const otherReplay = replayRows({ ...shared, items: otherItems }, specs, UNCOVERED_REPEATS);
  const n = shared.items.length;
  const expected = (name: string, label: string) =>
    (covered.exactMeans[name]! * coveredItems.length +
      otherReplay.find((r) => r.label === label)!.meanSamples * otherItems.length) /
    n;
  return {
    constraints: { filePools: 'every file pool with at most 5 answers and 5 empty samples', nearTies: NEAR_TIES },
    covered,
    coveredReplay,
    wholeFile,
    otherItems: { items: otherItems.length, repeats: UNCOVERED_REPEATS, replay: otherReplay },
    expectedMeans: {
      beta: expected('beta', 'beta(threshold=0.95, minSamples=1)'),
      pool: expected('pool', `pool(delta=${DELTA}, budget=${BUDGET}, spending=${POOL_DEFAULT_SPENDING})`),
      poolGreedy: expected('poolGreedy', `pool(delta=${DELTA}, budget=${BUDGET}, spending=0)`),
    },
  };
}

function main(): void {
  const argv = process.argv.slice(2);
  const iterations = argv[0] === '--iterations' ? Number(argv[1]) : 300;
  if (!Number.isInteger(iterations) || iterations < 1 || (argv.length > 0 && argv.length !== 2)) {
    process.stderr.write(`bench/stopping-guarantee: usage: [--iterations K] (K an integer >= 1)\n`);
    process.exit(2);
  }
  const path = sharedDataFile(ESC_LAST_LETTERS);
  if (path === null) {
    process.stderr.write(`bench/stopping-guarantee: ${absentMessage(ESC_LAST_LETTERS)}\n`);
    process.exit(1);
  }
  const results = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(results, { recursive: true });
  const shared = parseSamples(readFileSync(path, 'utf8'), basename(path));
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  const onFile = replayRows(shared, rulesUnderTest(BUDGET), REPEATS);
  timings.fileMs = performance.now() - t0;
  process.stdout.write(`shared file: ${onFile.length} rules, ${timings.fileMs.toFixed(0)} ms\n`);

  t0 = performance.now();
  const quantile = binomialUpperQuantile(STREAMS, DELTA, 1e-3);
  const synthetic = [BUDGET, 200].flatMap((length) => {
    const specs = rulesUnderTest(length);
    return SYNTHETIC_DISTRIBUTIONS.flatMap((d) =>
      falseStopTrials(specs, d, { streams: STREAMS, maxSteps: length, seed: STREAM_SEED }).map((r, k) => ({
        shape: d.shape,
        distribution: d.name,
        name: specs[k]!.name,
        rule: r.rule,
        streamLength: length,
        meanSamples: r.meanSamples,
        modeFalseStopRate: r.falseStopRate,
        fullVoteFalseStopRate: r.fullVoteFalseStops / r.streams,
      })),
    );
  });
  timings.syntheticMs = performance.now() - t0;
  process.stdout.write(`synthetic: ${synthetic.length} rows, ${timings.syntheticMs.toFixed(0)} ms\n`);

  // the pool test's spending, chosen on the synthetic set the order-gap default is chosen on
  t0 = performance.now();
  const spendingSpecs: RuleSpec[] = SPENDINGS.map((spending) => ({
    name: 'pool',
    params: { delta: DELTA, budget: BUDGET, spending },
  }));
  const calibrationSet = parseSamples(generateSyntheticSamples(20260506, 1000), 'synthetic-1000');
  const spendingRows = [
    ...replayRows(calibrationSet, spendingSpecs, 5).map((r) => ({ set: 'synthetic-1000', ...r })),
    ...replayRows(shared, spendingSpecs, REPEATS).map((r) => ({ set: 'shared file', ...r })),
  ].filter((r) => r.name === 'pool');
  const onCalibration = spendingRows.filter((r) => r.set === 'synthetic-1000');
  const chosen = onCalibration.reduce((a, b) => (b.meanSamples < a.meanSamples ? b : a)).params.spending;
  timings.spendingMs = performance.now() - t0;
  process.stdout.write(`spending: chose ${chosen} on synthetic-1000 (default ${POOL_DEFAULT_SPENDING})\n`);

  t0 = performance.now();
  const oracle = oracleSection(shared, iterations);
  timings.oracleMs = performance.now() - t0;
  process.stdout.write(
    `oracle: lower bound ${oracle.wholeFile.lowerBound.toFixed(3)} (whole file), ${timings.oracleMs.toFixed(0)} ms\n`,
  );

  const beta = onFile.find((r) => r.name === 'beta')!;
  const poolLabel = (budget: number) => `pool(delta=${DELTA}, budget=${budget}, spending=${POOL_DEFAULT_SPENDING})`;
  const pool = onFile.find((r) => r.label === poolLabel(BUDGET))!;
  const poolSynthetic = synthetic.filter((s) => s.rule === poolLabel(s.streamLength));
  const doc = {
    benchmark: 'stopping-guarantee',
    date: new Date().toISOString(),
    environment: { node: process.version, cpus: cpus().length, loadavg: loadavg() },
    samples: { file: basename(path), sha256: shared.sha256, items: shared.items.length },
    delta: DELTA,
    budget: BUDGET,
    repeats: REPEATS,
    seed: SEED,
    timings,
    sharedFile: onFile,
    synthetic: { streams: STREAMS, seed: STREAM_SEED, falseStopQuantile: quantile, results: synthetic },
    poolSpending: { rows: spendingRows, chosenOnSynthetic: chosen, default: POOL_DEFAULT_SPENDING },
    oracle,
    target: {
      statement:
        'a rule with a guarantee: false stops <= δ = 0.05 on every synthetic shape (against the vote of the stream) and, on the shared file, mean samples <= the Beta rule at the same or better accuracy',
      rule: pool.label,
      meanSamples: pool.meanSamples,
      betaMeanSamples: beta.meanSamples,
      accuracy: pool.accuracy,
      betaAccuracy: beta.accuracy,
      syntheticMaxFalseStopRate: Math.max(...poolSynthetic.map((s) => s.fullVoteFalseStopRate)),
      met:
        pool.meanSamples <= beta.meanSamples &&
        pool.accuracy >= beta.accuracy &&
        poolSynthetic.every((s) => s.fullVoteFalseStopRate <= DELTA),
      oracleLowerBound: oracle.wholeFile.lowerBound,
      betaExpectedMeanSamples: oracle.expectedMeans.beta,
    },
  };
  const out = `${results}stopping-guarantee.json`;
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(`wrote ${out}\n`);
}

main();
