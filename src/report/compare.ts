/**
 * The report of `ordergap compare`: recorded samples (JSONL) replayed under several stopping
 * rules and the paired comparison against the full budget (src/lab), and its text rendering.
 */
import { writeFileAtomic } from '../util/atomicWrite.js';
import { getExtractor } from '../lab/extractors.js';
import { pairedSummary, type PairedSummary } from '../lab/pairedScoring.js';
import { replaySamples } from '../lab/replay.js';
import { makeRunRecord, saveRunRecord } from '../lab/runRecord.js';
import { loadSamples } from '../lab/samples.js';
import { plotAccuracy } from '../plot/accuracy.js';
import { writeNamedPlots } from '../plot/files.js';
import { fixed, renderTable } from './table.js';
import { defaultRuleSpecs, listRules, type RuleSpec } from '../stopping/registry.js';
import { checkReplayMemory } from '../util/resources.js';

/** Options of {@link compareReport}: the samples file, the rules and, optionally, where to write the plot and the run record. */
export interface CompareReportOptions {
  samples: string;
  rules?: RuleSpec[];
  repeats?: number;
  seed?: number;
  budget?: number;
  extractor?: string;
  plot?: string;
  record?: string;
}

/** The report `compare` prints (also its `--json` document). */
export interface CompareReport {
  samples: string;
  sha256: string;
  items: number;
  repeats: number;
  seed: number;
  budget: number;
  extractor: string;
  summary: PairedSummary;
}

/**
 * Renders the comparison table (rule, accuracy, change with its paired 95% interval, mean
 * samples, saved, agreement with the full-budget vote, no answer) and a note for every rule the
 * registry marks as not fitting repeated sampling.
 */
export function renderCompareText(r: CompareReport): string {
  const s = r.summary;
  const head = [
    `ordergap compare: ${r.samples} (${r.items} items, sha256 ${r.sha256.slice(0, 12)}), ${r.repeats} repeats, seed ${r.seed}, budget ${r.budget}, extractor ${r.extractor}`,
    `paired units (item × repeat resolved by every rule): ${s.pairedUnits}, dropped ${s.droppedUnits}; paired items ${s.pairedItems}`,
    `baseline: ${s.baseline}`,
    '',
  ];
  const pct = (x: number, signed = false): string => `${signed && x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
  const ci = (x: (typeof s.rules)[number]): string =>
    x.accuracyDifference === null
      ? '—'
      : `[${pct(x.accuracyDifference.low, true)}, ${pct(x.accuracyDifference.high, true)}]`;
  const rows = s.rules.map((x, i) => [
    String(i + 1),
    x.label,
    pct(x.accuracy),
    pct(x.accuracyChange, true),
    ci(x),
    fixed(x.meanSamples, 2),
    pct(x.samplesSaved),
    pct(x.agreement),
    String(x.noAnswer),
  ]);
  const table = renderTable(
    [
      { header: '#', align: 'right' },
      { header: 'rule' },
      { header: 'accuracy', align: 'right' },
      { header: 'Δ vs full', align: 'right' },
      { header: '95% CI of Δ', align: 'right' },
      { header: 'mean samples', align: 'right' },
      { header: 'saved', align: 'right' },
      { header: 'agrees w/ full vote', align: 'right' },
      { header: 'no answer', align: 'right' },
    ],
    rows,
  );
  const notes = listRules().filter((r) => r.note !== undefined && s.rules.some((x) => x.name === r.name));
  const tail = notes.length ? ['', ...notes.map((r) => `note: ${r.name}: ${r.note}`)] : [];
  return [...head, table, ...tail].join('\n');
}

/** `name(k=v, ...)` with only the parameters that differ from the registry's defaults. */
export function shortLabel(name: string, params: Readonly<Record<string, number | boolean>>): string {
  const info = listRules().find((r) => r.name === name);
  const changed = Object.entries(params).filter(
    ([k, v]) => info === undefined || info.params.find((p) => p.name === k)?.default !== v,
  );
  return changed.length ? `${name}(${changed.map(([k, v]) => `${k}=${String(v)}`).join(', ')})` : name;
}

/**
 * Runs the comparison; every figure is computed before the plot or the record is written, so a
 * failure leaves no file behind.
 * @throws {ArgumentError} unreadable or malformed samples, unknown rule or extractor, bad destination.
 */
export async function compareReport(opts: CompareReportOptions): Promise<CompareReport> {
  const extractor = getExtractor(opts.extractor ?? 'answer-is');
  const samples = await loadSamples(opts.samples);
  const maxSamples = samples.items.reduce((m, i) => Math.max(m, i.samples.length), 0);
  const budget = opts.budget ?? maxSamples;
  const rules = opts.rules ?? defaultRuleSpecs(budget);
  checkReplayMemory(samples.items.length, opts.repeats ?? 10, rules.length); // before the replay allocates
  const result = replaySamples(samples, {
    rules,
    repeats: opts.repeats ?? 10,
    seed: opts.seed ?? 0,
    budget,
    extractor,
  });
  const report: CompareReport = {
    samples: opts.samples,
    sha256: samples.sha256,
    items: samples.items.length,
    repeats: result.config.repeats,
    seed: result.config.seed,
    budget: result.config.budget,
    extractor: extractor.name,
    summary: pairedSummary(result.rules),
  };
  // everything is computed before anything is written: a failure leaves no file behind
  const svg = opts.plot
    ? (
        await plotAccuracy(
          // short labels (the parameters that differ from the defaults) keep the points readable;
          // the numbers match the `#` column of the table
          report.summary.rules.map((x, i) => ({
            rule: `${i + 1} ${shortLabel(x.name, x.params)}`,
            meanSamples: x.meanSamples,
            accuracy: x.accuracy,
          })),
          {
            title: `Accuracy against mean samples (${samples.items.length} items, ${report.repeats} repeats, paired)`,
            // the accuracy axis spans at least one accuracy's 95% interval over the paired items
            ...(report.summary.pairedItems > 0 ? { items: report.summary.pairedItems } : {}),
          },
        )
      ).svg
    : undefined;
  const record = opts.record ? await makeRunRecord(result) : undefined;
  if (opts.plot && svg !== undefined) {
    // a path ending in .svg is one SVG file; anything else a folder for compare-accuracy.{svg,png}
    if (/\.svg$/i.test(opts.plot)) await writeFileAtomic(opts.plot, svg);
    else writeNamedPlots(opts.plot, [{ name: 'compare-accuracy', svg }], process.stderr);
  }
  if (opts.record && record) await saveRunRecord(opts.record, record);
  return report;
}
