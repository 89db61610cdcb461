/**
 * Run records ("Archives and stopping rules", Definition "Recursive run record"): what a replay ran on and produced —
 * task set (source and sha256 of the exact file), rules and parameters, seed, repeats, budget,
 * extractor, λ, package version, the per-unit records (scores) and the paired summary (scores
 * and costs). Saved as JSON with an atomic write. A record is replayable relative to these
 * declared inputs: {@link replayRunRecord} re-runs the replay from the record's configuration on
 * the same file and reports whether every unit record and every summary figure is identical.
 */
import { readFile } from 'node:fs/promises';
import { ArgumentError } from '../util/errors.js';
import { answerIsExtractor, getExtractor, type AnswerExtractor } from './extractors.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { readInputText } from '../util/resources.js';
import { pairedSummary, type PairedSummary } from './pairedScoring.js';
import { replaySamples, type ReplayConfig, type ReplayResult, type UnitRecord } from './replay.js';
import type { SampleSet } from './samples.js';
import type { RuleSpec } from '../stopping/registry.js';

/** Format tag of run records. */
export const RUN_RECORD_FORMAT = 'ordergap-run-record';
/**
 * Version of the record layout. 2: the summary's agreement leaves out units whose full vote has
 * no answer and carries agreementUnits, falseStopRate and the paired interval accuracyDifference.
 */
export const RUN_RECORD_VERSION = 2;

/** A run record (JSON). */
export interface RunRecord {
  readonly format: typeof RUN_RECORD_FORMAT;
  readonly formatVersion: number;
  readonly packageVersion: string;
  readonly taskSet: { readonly source: string; readonly sha256: string; readonly items: number };
  readonly config: ReplayConfig;
  readonly rules: ReadonlyArray<{
    readonly label: string;
    readonly spec: RuleSpec;
    readonly units: readonly UnitRecord[];
  }>;
  readonly summary: PairedSummary;
}

let cachedVersion: string | undefined;
/** The package version from package.json (read once). */
export async function packageVersion(): Promise<string> {
  if (cachedVersion === undefined) {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    cachedVersion = pkg.version;
  }
  return cachedVersion;
}

/** Builds the record of a replay. */
export async function makeRunRecord(result: ReplayResult): Promise<RunRecord> {
  return {
    format: RUN_RECORD_FORMAT,
    formatVersion: RUN_RECORD_VERSION,
    packageVersion: await packageVersion(),
    taskSet: { source: result.source, sha256: result.sha256, items: result.itemCount },
    config: result.config,
    rules: result.rules.map((r) => ({ label: r.label, spec: r.spec, units: r.units })),
    summary: pairedSummary(result.rules),
  };
}

/** Saves a record as JSON (atomic: temporary file + rename). */
export async function saveRunRecord(path: string, record: RunRecord): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(record, null, 1) + '\n');
}

/**
 * Loads and checks a record.
 * @throws {ArgumentError} unreadable file, bad JSON, wrong format tag or version, a missing
 *   field, or a field a replay reads in the wrong form (named).
 */
export async function loadRunRecord(path: string): Promise<RunRecord> {
  const text = await readInputText('record', path);
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError('record', path, `is not valid JSON (${(e as Error).message})`);
  }
  const r = obj as Partial<RunRecord>;
  if (typeof r !== 'object' || r === null || r.format !== RUN_RECORD_FORMAT)
    throw new ArgumentError(`${path}: format`, r?.format, `must be ${JSON.stringify(RUN_RECORD_FORMAT)}`);
  if (r.formatVersion !== RUN_RECORD_VERSION)
    throw new ArgumentError(`${path}: formatVersion`, r.formatVersion, `must be ${RUN_RECORD_VERSION}`);
  for (const f of ['packageVersion', 'taskSet', 'config', 'rules', 'summary'] as const) {
    if (r[f] === undefined) throw new ArgumentError(`${path}: ${f}`, undefined, 'is missing');
  }
  // the fields a replay reads, in their form (a record edited by hand is refused here, by name)
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(r.taskSet)) throw new ArgumentError(`${path}: taskSet`, r.taskSet, 'must be an object');
  for (const f of ['source', 'sha256'] as const)
    if (typeof r.taskSet![f] !== 'string')
      throw new ArgumentError(`${path}: taskSet.${f}`, r.taskSet![f], 'must be a string');
  if (!Number.isInteger(r.taskSet!.items))
    throw new ArgumentError(`${path}: taskSet.items`, r.taskSet!.items, 'must be an integer');
  if (!isObject(r.config)) throw new ArgumentError(`${path}: config`, r.config, 'must be an object');
  if (!Array.isArray(r.config!.rules))
    throw new ArgumentError(`${path}: config.rules`, r.config!.rules, 'must be an array of rule specs');
  if (!Array.isArray(r.rules)) throw new ArgumentError(`${path}: rules`, r.rules, 'must be an array');
  if (!isObject(r.summary)) throw new ArgumentError(`${path}: summary`, r.summary, 'must be an object');
  return r as RunRecord;
}

/** Result of {@link replayRunRecord}. */
export interface RecordReplay {
  readonly identical: boolean;
  /** Where the re-run differs (empty when identical). */
  readonly differences: string[];
  readonly rerun: RunRecord;
}

/**
 * Re-runs a record's replay on `samples` and compares everything.
 * @param extractor the extractor the record names (built-ins are found by name; a user
 *   extractor must be passed again)
 * @throws {ArgumentError} the sample set is not the recorded one (sha256 differs), or the
 *   extractor's name differs from the record's.
 */
export async function replayRunRecord(
  record: RunRecord,
  samples: SampleSet,
  extractor?: AnswerExtractor,
): Promise<RecordReplay> {
  if (samples.sha256 !== record.taskSet.sha256)
    throw new ArgumentError(
      'samples',
      samples.source,
      `sha256 ${samples.sha256} differs from the record's ${record.taskSet.sha256}`,
    );
  const ex =
    extractor ??
    (record.config.extractor === answerIsExtractor.name ? answerIsExtractor : getExtractor(record.config.extractor));
  if (ex.name !== record.config.extractor)
    throw new ArgumentError(
      'extractor',
      ex.name,
      `differs from the record's ${JSON.stringify(record.config.extractor)}`,
    );
  const { rules, repeats, seed, budget, lambda } = record.config;
  const rerun = await makeRunRecord(
    replaySamples(
      { ...samples, source: record.taskSet.source },
      { rules, repeats, seed, budget, lambda, extractor: ex },
    ),
  );
  const differences: string[] = [];
  const a = JSON.parse(JSON.stringify(record)) as RunRecord;
  const b = JSON.parse(JSON.stringify(rerun)) as RunRecord;
  for (const f of ['format', 'formatVersion'] as const)
    if (a[f] !== b[f]) differences.push(`${f} ${JSON.stringify(a[f])} → ${JSON.stringify(b[f])}`);
  if (JSON.stringify(a.taskSet) !== JSON.stringify(b.taskSet)) differences.push('taskSet');
  if (JSON.stringify(a.config) !== JSON.stringify(b.config)) differences.push('config');
  if (a.rules.length !== b.rules.length) differences.push('rules.length');
  a.rules.forEach((r, k) => {
    const s = b.rules[k];
    if (!s || JSON.stringify(r) !== JSON.stringify(s)) differences.push(`rules[${k}] (${r.label})`);
  });
  if (JSON.stringify(a.summary) !== JSON.stringify(b.summary)) differences.push('summary');
  if (a.packageVersion !== b.packageVersion)
    differences.push(`packageVersion ${a.packageVersion} → ${b.packageVersion}`);
  return { identical: differences.length === 0, differences, rerun };
}
