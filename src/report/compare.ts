/**
 * The report of `ordergap compare`: recorded samples (JSONL) replayed under several stopping
 * rules and the paired comparison against the full budget (src/lab), and its text rendering.
 */
import { writeFileAtomic } from '../util/atomicWrite.js';
import { getExtractor } from '../lab/extractors.js';
import { pairedSummary, paretoFront, type PairedSummary } from '../lab/pairedScoring.js';
import { baselineSpec, replaySamples } from '../lab/replay.js';
import { makeRunRecord, saveRunRecord } from '../lab/runRecord.js';
import { loadSamples } from '../lab/samples.js';
import { plotAccuracy } from '../plot/accuracy.js';
import { writeNamedPlots } from '../plot/files.js';
import { fixed, renderTable } from './table.js';
import { createRule, defaultRuleSpecs, listRules, parseRuleSpec, type RuleSpec } from '../stopping/registry.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { checkReplayMemory } from '../util/resources.js';
import { checkThreadRequest, withThreads, type ThreadDecision, type ThreadRequest } from '../linalg/threadChoice.js';

/** The word that stands, in a comparison's rule list, for every registered rule at its defaults. */
export const ALL_RULES = 'all';

/** One entry of a comparison's rule list: a configuration, or {@link ALL_RULES}. */
export type CompareRule = RuleSpec | typeof ALL_RULES;

/** Options of {@link compareReport}: the samples file, the rules and, optionally, where to write the plot and the run record. */
export interface CompareReportOptions {
  samples: string;
  /** The configurations to compare (default: {@link defaultRuleSpecs}); see {@link resolveCompareRules} for `'all'`. */
  rules?: readonly CompareRule[];
  repeats?: number;
  seed?: number;
  budget?: number;
  extractor?: string;
  plot?: string;
  record?: string;
  /**
   * Worker threads for the comparison: a count, or 'auto' (measured; see `startThreads`); the
   * pool is started before and the previous one put back after.
   */
  threads?: ThreadRequest;
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
  /**
   * The labels (`summary.rules[].label`, one per configuration) of the rules on the Pareto front
   * of accuracy against mean samples ({@link paretoFront}), in table order.
   */
  paretoFront: string[];
  /** With `threads`: the threads the comparison ran on and, for 'auto', the probe that chose them. */
  threads?: ThreadDecision;
}

/**
 * Parses one `--rules` value: {@link ALL_RULES} (any surrounding blanks), or a rule spec
 * (`parseRuleSpec`).
 * @throws {ArgumentError} `all` with parameters, or a bad rule spec (naming the spec).
 * @example
 * ```ts
 * parseCompareRule('all'); // 'all'
 * parseCompareRule('beta:threshold=0.99'); // { name: 'beta', params: { threshold: 0.99 } }
 * ```
 */
export function parseCompareRule(text: string): CompareRule {
  if (typeof text === 'string' && text.trim() === ALL_RULES) return ALL_RULES;
  if (typeof text === 'string' && /^\s*all\s*:/.test(text))
    throw new ArgumentError(
      'rule spec',
      text,
      '"all" takes no parameters (it runs every registered rule at its defaults; give other configurations as further --rules)',
    );
  return parseRuleSpec(text);
}

/**
 * The configurations a comparison runs, with the full budget N: `undefined` gives
 * {@link defaultRuleSpecs}(N); otherwise the list in its order, where {@link ALL_RULES} stands
 * for every rule the registry lists (`listRules()`) at its defaults — what `--rules NAME` alone
 * gives — except the fixed budget, which runs as the baseline at N (the replay puts it first),
 * and minus the configurations the list names otherwise, compared by label: `all` next to `beta`
 * or `beta:threshold=0.95` runs the Beta rule once, where the explicit entry stands. `all` given
 * twice counts once.
 * @throws {ArgumentTypeError} rules not an array. Bad specs are left to the replay, which names them.
 * @example
 * ```ts
 * resolveCompareRules(['all', { name: 'beta', params: { threshold: 0.99 } }], 40).length; // registered rules − 1 + 1
 * ```
 */
export function resolveCompareRules(rules: readonly CompareRule[] | undefined, budget: number): RuleSpec[] {
  if (rules === undefined) return defaultRuleSpecs(budget);
  if (!Array.isArray(rules))
    throw new ArgumentTypeError('rules', rules, `must be an array of {name, params} or '${ALL_RULES}'`);
  const explicit = rules.filter((r): r is RuleSpec => r !== ALL_RULES);
  if (explicit.length === rules.length) return explicit;
  const base = baselineSpec(budget);
  // a spec that does not build is kept as given: the replay's validation reports it, by index
  const labelOf = (spec: RuleSpec): string | null => {
    try {
      return createRule(spec).label;
    } catch {
      return null;
    }
  };
  const named = new Set([base, ...explicit].map(labelOf));
  const all = listRules()
    .filter((r) => r.name !== base.name)
    .map((r): RuleSpec => ({ name: r.name, params: {} }))
    .filter((spec) => !named.has(labelOf(spec)));
  const out: RuleSpec[] = [];
  let expanded = false;
  for (const r of rules) {
    if (r !== ALL_RULES) out.push(r);
    else if (!expanded) {
      out.push(...all);
      expanded = true;
    }
  }
  return out;
}

/**
 * Renders the comparison table (rule, accuracy, change with its paired 95% interval, mean
 * samples, saved, agreement with the full-budget vote, false stops = 1 − agreement, no answer, a
 * `*` on the Pareto front), the line naming the front's rows, and a note for every rule the
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
  const front = new Set(r.paretoFront);
  // a registered name that builds another rule (majority is plurality's ratio test) says so
  const shown = (x: (typeof s.rules)[number]): string =>
    x.label === x.name || x.label.startsWith(`${x.name}(`) ? x.label : `${x.name}: ${x.label}`;
  const rows = s.rules.map((x, i) => [
    String(i + 1),
    shown(x),
    pct(x.accuracy),
    pct(x.accuracyChange, true),
    ci(x),
    fixed(x.meanSamples, 2),
    pct(x.samplesSaved),
    x.agreement === null ? '—' : pct(x.agreement),
    x.falseStopRate === null ? '—' : pct(x.falseStopRate),
    String(x.noAnswer),
    front.has(x.label) ? '*' : '',
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
      { header: 'false stops', align: 'right' },
      { header: 'no answer', align: 'right' },
      { header: 'front' },
    ],
    rows,
  );
  const frontLine = [
    '',
    `Pareto front (*: no other rule has at least its accuracy for at most its mean samples, one strictly): ${s.rules
      .flatMap((x, i) => (front.has(x.label) ? [`#${i + 1}`] : []))
      .join(', ')}`,
  ];
  const notes = listRules().filter((r) => r.note !== undefined && s.rules.some((x) => x.name === r.name));
  const tail = notes.length ? ['', ...notes.map((r) => `note: ${r.name}: ${r.note}`)] : [];
  return [...head, table, ...frontLine, ...tail].join('\n');
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
  if (opts.threads !== undefined) checkThreadRequest('threads', opts.threads);
  const { value, decision } = await withThreads(opts.threads, () => buildCompareReport(opts));
  return decision ? { ...value, threads: decision } : value;
}

/** {@link compareReport} on whatever pool runs. */
async function buildCompareReport(opts: CompareReportOptions): Promise<CompareReport> {
  const extractor = getExtractor(opts.extractor ?? 'answer-is');
  const samples = await loadSamples(opts.samples);
  const maxSamples = samples.items.reduce((m, i) => Math.max(m, i.samples.length), 0);
  const budget = opts.budget ?? maxSamples;
  const rules = resolveCompareRules(opts.rules, budget);
  checkReplayMemory(samples.items.length, opts.repeats ?? 10, rules.length); // before the replay allocates
  const result = replaySamples(samples, {
    rules,
    repeats: opts.repeats ?? 10,
    seed: opts.seed ?? 0,
    budget,
    extractor,
  });
  const summary = pairedSummary(result.rules);
  const report: CompareReport = {
    samples: opts.samples,
    sha256: samples.sha256,
    items: samples.items.length,
    repeats: result.config.repeats,
    seed: result.config.seed,
    budget: result.config.budget,
    extractor: extractor.name,
    summary,
    paretoFront: paretoFront(summary.rules).map((i) => summary.rules[i]!.label),
  };
  const onFront = new Set(report.paretoFront);
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
            front: onFront.has(x.label),
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
