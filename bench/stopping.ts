/**
 * Stopping rules on real recorded samples: the default comparison of `ordergap compare` (the
 * full budget, the order-gap rule at its default, Adaptive-Consistency's Beta rule at 0.95, ESC's
 * window w = 5, the agreement ratio, answer stability, confidence, patience and the
 * anytime-valid rule at δ = 0.05), paired over items and 20 seeded sample orders, through the
 * same library call the command makes (`compareReport`). Per rule: accuracy, mean samples,
 * agreement with the full-budget vote, the false-stop rate (1 − agreement), and the paired 95%
 * interval for the accuracy difference to the full budget (clustered by item). It also writes the
 * accuracy-against-mean-samples plot, and measures:
 * - every registered rule at its defaults (`ordergap compare --rules all`, the fixed budget as the
 *   baseline) on the same file, with the same figures, the Pareto front of accuracy against mean
 *   samples and its plot;
 * - false stops and mean samples on synthetic streams with a known answer, one set per shape of
 *   src/lab/syntheticStreams.ts (two-way, three-way, long tail, many-answer numeric, near tie,
 *   blanks, easy), for every registered rule at its defaults and for the configurations the
 *   targets are about: the anytime-valid rule without a budget (its guarantee: the most likely
 *   answer) and with the streams' length as its budget (its guarantee: the vote of all the
 *   stream's samples), the exact pool test with that budget, the Beta rule, ESC and the order-gap
 *   rule — each counted against the most likely answer and against the full vote;
 * - the selection of the order-gap default on synthetic samples (src/lab/calibrate.ts), to show
 *   the figures the default was chosen from, and the same rule on every synthetic shape
 *   (`shapeCalibration`);
 * - the order-gap configuration chosen on the contested synthetic shapes against the Beta rule
 *   (`selectOnShapes`): the choice with every candidate's figures per shape, its loss and mean
 *   samples on the shared file against the Beta rule's (`targets.orderGap`), both rules on
 *   fresh draws of every shape (`voteSelection.heldOut`), and every grid point replayed on the
 *   shared file after the choice, with the contested-shape figures of those that would meet the
 *   cost aim there (`voteSelection.aimOnSamples`);
 * - the anytime rule's cap on its all-in weight (`maxWeight` 0, 1/2 = the default, 63/64 = the
 *   earliest unanimous stop the budget allows) on the shared file and on the synthetic set the
 *   order-gap default is chosen on, with ESC's window alongside;
 * - the exact pool test's spending exponent ρ ∈ {0, 1/4, 1/2, 1} on the same two sets (the
 *   default is the one with the fewest mean samples on the synthetic set), and its false stops on
 *   the synthetic streams with the streams' length as its budget.
 *
 * Usage: node --import tsx bench/stopping.ts [--samples FILE.jsonl] [--repeats R] [--out FILE.json]
 *   default samples: the shared ESC Last Letters file (bench/_data.ts says where it is looked
 *   for); any JSONL `ordergap compare` reads works. Default out: bench/results/stopping.json
 *   (with --samples and no --out: bench/results/stopping-<file name>.json).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  calibrateOnShapes,
  calibrateOrderGap,
  replayShapes,
  selectOnShapes,
  SELECTION_SHAPES,
  SELECTION_REFERENCE,
  shapeFigures,
  shapeSampleSets,
  type ShapeFigures,
} from '../src/lab/calibrate.js';
import { parseSamples } from '../src/lab/samples.js';
import { falseStopTrials, SYNTHETIC_DISTRIBUTIONS } from '../src/lab/syntheticStreams.js';
import { ANYTIME_MAX_WEIGHT, anytimeMixture } from '../src/stopping/anytimeVote.js';
import { POOL_DEFAULT_SPENDING } from '../src/stopping/poolVote.js';
import { replaySamples } from '../src/lab/replay.js';
import { summarizeReplay } from '../src/lab/pairedScoring.js';
import { compareReport } from '../src/report/compare.js';
import { ORDER_GAP_DEFAULTS } from '../src/stopping/orderGapRule.js';
import { createRule, listRules, type RuleSpec } from '../src/stopping/registry.js';
import { generateSyntheticSamples } from '../scripts/generate-samples.js';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from './_data.js';
import { kernelBuildRun } from './_node.js';

const REPEATS = 20;
const SEED = 1;
const DELTA = 0.05;
const SYNTHETIC = { streams: 1000, maxSteps: 200, seed: 20260601 };
/** Caps on the anytime rule's all-in weight compared (`maxWeight`): none, the default, the floor's. */
const ANYTIME_CAPS = [0, ANYTIME_MAX_WEIGHT, 63 / 64];
/** Spending exponents of the pool test compared; the default is the synthetic set's fewest samples. */
const POOL_SPENDINGS = [0, 0.25, 0.5, 1];

function args(argv: string[]): { samples: string | null; repeats: number; out: string | null } {
  const o = { samples: null as string | null, repeats: REPEATS, out: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if ((a === '--samples' || a === '--repeats' || a === '--out') && v !== undefined) {
      if (a === '--samples') o.samples = resolve(v);
      else if (a === '--out') o.out = resolve(v);
      else o.repeats = Number(v);
      i++;
    } else {
      process.stderr.write(
        `bench/stopping: unknown argument ${JSON.stringify(a)} (usage: [--samples FILE] [--repeats R] [--out FILE])\n`,
      );
      process.exit(2);
    }
  }
  if (!Number.isInteger(o.repeats) || o.repeats < 1) {
    process.stderr.write(`bench/stopping: --repeats = ${o.repeats}: must be an integer >= 1\n`);
    process.exit(2);
  }
  return o;
}

/**
 * The figures of a guarantee target: false stops on the shared file and the largest on the
 * synthetic streams, both within δ, and fewer mean samples than ESC's window.
 */
function guaranteeTarget(
  rule: { label: string; falseStopRate: number | null; meanSamples: number },
  synthetic: readonly number[],
  escMeanSamples: number,
) {
  return {
    label: rule.label,
    falseStopRate: rule.falseStopRate,
    syntheticMaxFalseStopRate: Math.max(...synthetic),
    meanSamples: rule.meanSamples,
    escMeanSamples,
    met:
      rule.falseStopRate !== null &&
      rule.falseStopRate <= DELTA &&
      synthetic.every((rate) => rate <= DELTA) &&
      rule.meanSamples < escMeanSamples,
  };
}

async function main(): Promise<void> {
  const opts = args(process.argv.slice(2));
  const samples = opts.samples ?? sharedDataFile(ESC_LAST_LETTERS);
  if (samples === null) {
    process.stderr.write(
      `bench/stopping: ${absentMessage(ESC_LAST_LETTERS)}; pass --samples FILE.jsonl to run on other samples\n`,
    );
    process.exit(1);
  }
  const results = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(results, { recursive: true });
  const stem = opts.samples === null ? 'stopping' : `stopping-${basename(samples).replace(/\.jsonl?$/i, '')}`;
  const out = opts.out ?? `${results}${stem}.json`;
  const plot = out.replace(/\.json$/i, '') + '-accuracy.svg';
  const allPlot = out.replace(/\.json$/i, '') + '-all-accuracy.svg';

  let t0 = performance.now();
  const report = await compareReport({ samples, repeats: opts.repeats, seed: SEED, plot });
  const replayAndPlotMs = performance.now() - t0;
  const ruleRows = (r: typeof report) =>
    r.summary.rules.map((x) => ({
      label: x.label,
      name: x.name,
      params: x.params,
      accuracy: x.accuracy,
      accuracyChange: x.accuracyChange,
      accuracyDifference: x.accuracyDifference,
      meanSamples: x.meanSamples,
      samplesSaved: x.samplesSaved,
      agreement: x.agreement,
      agreementUnits: x.agreementUnits,
      falseStopRate: x.falseStopRate,
      noAnswer: x.noAnswer,
      stopReasons: x.stopReasons,
      onFront: r.paretoFront.includes(x.label),
    }));
  const rules = ruleRows(report);
  process.stdout.write(
    `replay: ${rules.length} rules, ${report.summary.pairedUnits} paired units, ${replayAndPlotMs.toFixed(0)} ms with the plot\n`,
  );

  // every registered rule at its defaults, as `ordergap compare --rules all` runs them
  t0 = performance.now();
  const all = await compareReport({ samples, repeats: opts.repeats, seed: SEED, rules: ['all'], plot: allPlot });
  const allRulesMs = performance.now() - t0;
  const allRules = {
    statement:
      'every registered rule at its defaults (ordergap compare --rules all; the fixed budget as the baseline at N), paired over the same units',
    plot: basename(allPlot),
    pairedUnits: all.summary.pairedUnits,
    paretoFront: all.paretoFront,
    rules: ruleRows(all),
  };
  process.stdout.write(
    `all rules: ${allRules.rules.length} rules, front ${allRules.paretoFront.length}, ${allRulesMs.toFixed(0)} ms with the plot\n`,
  );

  // every shape, every registered rule at its defaults and the configurations the targets are
  // about, on shared streams (one configuration given twice, by label, runs once)
  t0 = performance.now();
  const targetRules: RuleSpec[] = [
    { name: 'anytime', params: { delta: DELTA } },
    { name: 'anytime', params: { delta: DELTA, budget: SYNTHETIC.maxSteps } },
    { name: 'beta', params: { threshold: 0.95 } },
    { name: 'plurality', params: { window: 5 } },
    { name: 'order-gap', params: {} },
    { name: 'pool', params: { delta: DELTA, budget: SYNTHETIC.maxSteps } },
  ];
  const syntheticRules: RuleSpec[] = [];
  for (const spec of [...targetRules, ...listRules().map((r) => ({ name: r.name, params: {} }))])
    if (!syntheticRules.some((x) => createRule(x).label === createRule(spec).label)) syntheticRules.push(spec);
  const synthetic = SYNTHETIC_DISTRIBUTIONS.flatMap((d) =>
    falseStopTrials(syntheticRules, d, SYNTHETIC).map((r, k) => ({
      ...r,
      name: syntheticRules[k]!.name,
      shape: d.shape,
      fullVoteFalseStopRate: r.fullVoteFalseStops / r.streams,
    })),
  );
  const syntheticMs = performance.now() - t0;
  process.stdout.write(`synthetic streams: ${synthetic.length} trials, ${syntheticMs.toFixed(0)} ms\n`);

  t0 = performance.now();
  const calibration = calibrateOrderGap(parseSamples(generateSyntheticSamples(20260506, 1000), 'synthetic-1000'));
  const calibrationMs = performance.now() - t0;
  process.stdout.write(`calibration: chose ${JSON.stringify(calibration.chosen)}, ${calibrationMs.toFixed(0)} ms\n`);
  // the same rule on every synthetic shape, and the configuration chosen on the contested shapes
  // against the Beta rule (selectOnShapes); what each choice costs here against the Beta rule
  t0 = performance.now();
  const onShapes = calibrateOnShapes();
  const selection = selectOnShapes();
  const shapesMs = performance.now() - t0;
  // every grid point of the selection is replayed here too, after the choice: to report which of
  // them would meet the cost aim on this file and what each of those costs on the contested shapes
  const shapeRules: RuleSpec[] = [SELECTION_REFERENCE];
  for (const chosen of [onShapes.chosen, selection.chosen, ...selection.candidates])
    if (chosen) shapeRules.push({ name: 'order-gap', params: { epsilon: chosen.epsilon, window: chosen.window } });
  const shared = parseSamples(readFileSync(samples, 'utf8'), basename(samples));
  const shapeReplay = summarizeReplay(
    replaySamples(shared, { rules: shapeRules, repeats: opts.repeats, seed: SEED, budget: report.budget }),
  );
  const [full, betaRow] = shapeReplay.rules;
  // what a configuration chosen on synthetic data costs on these samples: its loss to the full
  // budget and its mean samples against the Beta rule's (target: loss <= 0.1 points at <= 0.85 x)
  const onSamples = (chosen: { epsilon: number; window: number } | null) => {
    const row =
      chosen &&
      shapeReplay.rules.find(
        (r) =>
          r.label ===
          createRule({ name: 'order-gap', params: { epsilon: chosen.epsilon, window: chosen.window } }).label,
      );
    if (!row) return null;
    return {
      label: row.label,
      accuracyChange: row.accuracy - full!.accuracy,
      accuracyDifference: row.accuracyDifference,
      meanSamples: row.meanSamples,
      falseStopRate: row.falseStopRate,
      betaMeanSamples: betaRow!.meanSamples,
      betaAccuracyChange: betaRow!.accuracy - full!.accuracy,
      ratioToBeta: row.meanSamples / betaRow!.meanSamples,
      // 1e-12 absorbs the rounding of a difference of means that is -0.1 points exactly
      met: row.accuracy - full!.accuracy >= -0.001 - 1e-12 && row.meanSamples <= 0.85 * betaRow!.meanSamples,
      statement: 'loss <= 0.1 points against the full budget at <= 0.85 x the Beta rule mean samples',
    };
  };
  const shapeCalibration = { ...onShapes, onSamples: onSamples(onShapes.chosen) };
  // the chosen configuration and the Beta rule on fresh draws of every shape (items 300..599, seeds
  // disjoint from the selection's), per shape
  const heldOutSpecs: RuleSpec[] = [SELECTION_REFERENCE];
  if (selection.chosen) heldOutSpecs.push({ name: 'order-gap', params: { ...selection.chosen } });
  const heldOutReplay = replayShapes(shapeSampleSets(300, 300), heldOutSpecs, { repeats: 5, seed: 0 });
  const heldOutBeta = shapeFigures(heldOutReplay, 1);
  const aimGrid = selection.candidates.map((c) => ({ c, row: onSamples(c)! }));
  const contested = (shapes: readonly ShapeFigures[]) => shapes.filter((f) => SELECTION_SHAPES.includes(f.shape));
  const voteSelection = {
    statement:
      'the cheapest (ε, w) of the grid (mean samples over the contested shapes) whose paired accuracy change to the full budget is at least the Beta rule (0.95) on every contested shape: two-way, three-way, long tail, many-answer numeric, near tie (src/lab/calibrate.ts, selectOnShapes)',
    ...selection,
    onSamples: onSamples(selection.chosen),
    // the grid points that would meet the aim on this file (replayed after the choice, not chosen
    // from), each with its figures and the Beta rule's on the contested shapes
    aimOnSamples: {
      statement:
        "every grid point of the selection replayed on this file after the choice; meetsAim lists those whose loss to the full budget is <= 0.1 points at <= 0.85 x the Beta rule mean samples here, with their figures on the contested shapes (the Beta rule's: betaContested)",
      grid: aimGrid.map(({ row }) => row),
      betaContested: contested(selection.reference.shapes),
      meetsAim: aimGrid.filter(({ row }) => row.met).map(({ c, row }) => ({ ...row, contested: contested(c.shapes) })),
    },
    heldOut: selection.chosen
      ? {
          items: '300 fresh items per shape (item seeds s·10⁵ + 300..599), 5 repeats, seed 0',
          shapes: shapeFigures(heldOutReplay, 2).map((f, i) => ({
            ...f,
            betaAccuracyChange: heldOutBeta[i]!.accuracyChange,
            betaMeanSamples: heldOutBeta[i]!.meanSamples,
            ratioToBeta: f.meanSamples / heldOutBeta[i]!.meanSamples,
          })),
        }
      : null,
  };
  process.stdout.write(
    `selection on the shapes against the Beta rule: chose ${JSON.stringify(selection.chosen)}, ${shapesMs.toFixed(0)} ms\n`,
  );
  process.stdout.write(`calibration on the shapes: chose ${JSON.stringify(onShapes.chosen)}\n`);

  // the anytime rule's one free choice, the cap on the all-in weight, on both sample sets: the
  // default 1/2 against no all-in bettor (0) and the earliest unanimous stop the budget allows
  // (63/64); the synthetic set is the one the order-gap default is chosen on
  t0 = performance.now();
  const capSets = [
    {
      set: 'shared file',
      samples: parseSamples(readFileSync(samples, 'utf8'), basename(samples)),
      repeats: opts.repeats,
    },
    {
      set: 'synthetic-1000',
      samples: parseSamples(generateSyntheticSamples(20260506, 1000), 'synthetic-1000'),
      repeats: 5,
    },
  ];
  const capRuns = capSets.map(({ set, samples: s, repeats }) => {
    const specs: RuleSpec[] = [{ name: 'plurality', params: { window: 5 } }];
    for (const maxWeight of ANYTIME_CAPS)
      specs.push({ name: 'anytime', params: { delta: DELTA, budget: report.budget, maxWeight } });
    for (const spending of POOL_SPENDINGS)
      specs.push({ name: 'pool', params: { delta: DELTA, budget: report.budget, spending } });
    const summary = summarizeReplay(replaySamples(s, { rules: specs, repeats, seed: SEED, budget: report.budget }));
    return { set, summary, esc: summary.rules.find((r) => r.name === 'plurality')! };
  });
  const anytimeCaps = capRuns.flatMap(({ set, summary, esc }) =>
    summary.rules
      .filter((r) => r.name === 'anytime')
      .map((r) => ({
        set,
        maxWeight: r.params.maxWeight,
        mixture: anytimeMixture(DELTA, report.budget, r.params.maxWeight as number),
        accuracy: r.accuracy,
        meanSamples: r.meanSamples,
        escMeanSamples: esc.meanSamples,
        falseStopRate: r.falseStopRate,
      })),
  );
  // the pool test's one free choice, the spending exponent: chosen as the fewest mean samples on
  // the synthetic set, reported on both
  const poolRows = capRuns.flatMap(({ set, summary, esc }) =>
    summary.rules
      .filter((r) => r.name === 'pool')
      .map((r) => ({
        set,
        spending: r.params.spending as number,
        accuracy: r.accuracy,
        meanSamples: r.meanSamples,
        escMeanSamples: esc.meanSamples,
        falseStopRate: r.falseStopRate,
      })),
  );
  const onSynthetic = poolRows.filter((r) => r.set === 'synthetic-1000');
  const chosenSpending = onSynthetic.reduce((a, b) => (b.meanSamples < a.meanSamples ? b : a)).spending;
  const poolSpending = { rows: poolRows, chosenOnSynthetic: chosenSpending, default: POOL_DEFAULT_SPENDING };
  const capsMs = performance.now() - t0;
  process.stdout.write(`anytime caps: ${anytimeCaps.length} rows, ${capsMs.toFixed(0)} ms\n`);

  const byName = (name: string) => rules.find((r) => r.name === name)!;
  const esc = rules.find((r) => r.name === 'plurality' && r.params.window === 5 && r.params.ratio === undefined)!;
  const orderGap = byName('order-gap');
  const anytime = byName('anytime');
  // each variant against the event its guarantee bounds: the most likely answer without a budget,
  // the vote of all the stream's samples with one
  const labelOf = (spec: RuleSpec) => createRule(spec).label;
  const anytimeLabels = targetRules.filter((r) => r.name === 'anytime').map(labelOf);
  const anytimeSynthetic = synthetic
    .filter((s) => anytimeLabels.includes(s.rule))
    .map((s) => (s.rule.includes('budget=') ? s.fullVoteFalseStopRate : s.falseStopRate));
  const pool = byName('pool');
  const poolLabels = targetRules.filter((r) => r.name === 'pool').map(labelOf);
  const poolSynthetic = synthetic.filter((s) => poolLabels.includes(s.rule)).map((s) => s.fullVoteFalseStopRate);
  const anytimeBudget = typeof anytime.params.budget === 'number' ? anytime.params.budget : null;
  const doc = {
    benchmark: 'stopping',
    date: new Date().toISOString(),
    environment: {
      node: process.version,
      kernels: kernelBuildRun(),
      cpus: cpus().length,
      loadavg: loadavg(),
      note: 'shared 2-core machine with other jobs running: timings are noisy',
    },
    samples: { file: basename(samples), sha256: report.sha256, items: report.items },
    repeats: report.repeats,
    seed: report.seed,
    budget: report.budget,
    extractor: report.extractor,
    pairedUnits: report.summary.pairedUnits,
    droppedUnits: report.summary.droppedUnits,
    timings: { replayAndPlotMs, allRulesMs, syntheticMs, calibrationMs, shapesMs, capsMs },
    plot: basename(plot),
    rules,
    paretoFront: report.paretoFront,
    allRules,
    synthetic: {
      ...SYNTHETIC,
      shapes: SYNTHETIC_DISTRIBUTIONS.map((d) => ({ name: d.name, shape: d.shape })),
      results: synthetic,
    },
    calibration: { ...calibration, defaults: ORDER_GAP_DEFAULTS },
    shapeCalibration,
    voteSelection,
    anytimeCaps,
    poolSpending,
    targets: {
      orderGap: {
        ...(voteSelection.onSamples ?? { met: false }),
        chosen: voteSelection.chosen,
        statement:
          'an order-gap configuration chosen by a stated rule on synthetic shapes only (selectOnShapes, src/lab/calibrate.ts) loses <= 0.1 points to the full budget here at <= 0.85 x the Beta rule (0.95) mean samples; its figures on every shape are in voteSelection',
      },
      orderGapDefault: {
        label: orderGap.label,
        accuracyChange: orderGap.accuracyChange,
        meanSamples: orderGap.meanSamples,
        // 1e-12 absorbs the rounding of a difference of means that is -0.2 points exactly
        met: orderGap.accuracyChange >= -0.002 - 1e-12 && orderGap.meanSamples <= 5,
        statement: 'the default within 0.2 points of full self-consistency at <= 5.0 mean samples',
      },
      anytime: {
        ...guaranteeTarget(anytime, anytimeSynthetic, esc.meanSamples),
        mixture: anytimeMixture(DELTA, anytimeBudget),
        statement:
          'false-stop rate <= δ = 0.05 (shared file against the full-budget vote; synthetic streams against what each variant bounds) and fewer mean samples than ESC w = 5',
      },
      pool: {
        ...guaranteeTarget(pool, poolSynthetic, esc.meanSamples),
        statement:
          'the same target for the exact pool test: false-stop rate <= δ = 0.05 against the N-sample vote (shared file and synthetic streams) and fewer mean samples than ESC w = 5',
      },
    },
  };
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(`wrote ${out}, ${plot} and ${allPlot}\n`);
}

void main();
