/**
 * Archives of stopping-rule configurations ("Archives and stopping rules"), over a
 * finite task set T = {t_1..t_N} and one declared evaluation law:
 * - each entry a (a rule + parameters) stores its per-task scores s_i(a) and its cost;
 * - whole-chain mean J(a) = N^−1 Σ_i s_i(a) (Definition "Archive score envelope");
 * - envelope J_max = max_a J(a), attained by an archived entry (Lemma: J_max >= J(a0) for the
 *   incumbent a0);
 * - eligibility under a target configuration (e.g. a sample budget) restricts the entries that
 *   may be deployed; maximising over the eligible subset gives the deployable choice, or none;
 * - δ-selection (Theorem 4): â with J(â) >= J(a*) − δ satisfies 0 <= J(a*) − J(â) <= δ — checked,
 *   not assumed;
 * - the per-task oracle N^−1 Σ_i max_a s_i(a) is reported apart from the envelope: it picks a
 *   different entry per task and is not the score of any single archived entry.
 * Entries carry the evaluation law they were scored under; an entry scored under another law is
 * refused (records from different configurations do not compare).
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import { maxOf } from '../util/arrays.js';
import { BudgetLedger, type AdmissionDecision } from './admission.js';
import type { RuleSpec } from '../stopping/registry.js';
import { createHash } from 'node:crypto';
import { pairedUnitKeys, perItemScores } from './pairedScoring.js';
import type { ReplayResult } from './replay.js';

/** An archived configuration. */
export interface ArchiveEntry {
  /** Unique id (e.g. the rule label). */
  readonly id: string;
  readonly spec: RuleSpec;
  /** s_i(a), one per task, finite. */
  readonly scores: readonly number[];
  /** Resource figures of the entry (e.g. meanSamples, maxSamples). */
  readonly costs: Readonly<Record<string, number>>;
}

/** A target configuration: upper limits on named costs (an entry is eligible if within all). */
export type TargetConfiguration = Readonly<Record<string, number>>;

/** The result of {@link ConfigurationArchive.select}. */
export interface SelectionReport {
  readonly delta: number;
  /** a*: an entry attaining the maximum of J over the considered set. */
  readonly best: { readonly id: string; readonly J: number };
  /** â: the least-cost entry with J(a*) − J(â) <= δ (cost key given to select). */
  readonly chosen: { readonly id: string; readonly J: number };
  /** J(a*) − J(â) as computed. */
  readonly gap: number;
  /** The checked statement of Theorem 4: 0 <= gap <= δ. */
  readonly boundHolds: boolean;
  /** Entries considered (eligible ones when a target was given). */
  readonly considered: readonly string[];
}

/**
 * A finite archive of configurations scored on one task set under one evaluation law, with an
 * optional admission budget.
 * @example
 * ```ts
 * const A = new ConfigurationArchive(['t1', 't2'], 'law-1');
 * A.add({ id: 'a', spec: { name: 'beta', params: {} }, scores: [1, 0], costs: { meanSamples: 5 } }, 'law-1');
 * A.add({ id: 'b', spec: { name: 'beta', params: {} }, scores: [0, 1], costs: { meanSamples: 9 } }, 'law-1');
 * A.envelope().value; // 0.5
 * A.perTaskOracle();  // 1 ("Archives and stopping rules", Example "Whole-chain maximum and per-task oracle")
 * ```
 */
export class ConfigurationArchive {
  readonly tasks: readonly string[];
  readonly law: string;
  readonly #entries = new Map<string, ArchiveEntry>();
  readonly #ledger: BudgetLedger | undefined;

  /**
   * @param tasks the task ids (N >= 1, unique)
   * @param law the declared evaluation law (e.g. task-set hash + extractor + repeats + seed)
   * @param admissionBudget optional integer budget for {@link admit}
   * @throws {ArgumentError} no tasks, duplicate task ids, empty law, bad budget.
   */
  constructor(tasks: readonly string[], law: string, admissionBudget?: number) {
    if (!Array.isArray(tasks) || tasks.length === 0) throw new ArgumentError('tasks', tasks, 'must list N >= 1 tasks');
    if (new Set(tasks).size !== tasks.length) throw new ArgumentError('tasks', tasks, 'must be unique');
    if (typeof law !== 'string' || law === '') throw new ArgumentTypeError('law', law, 'must be a non-empty string');
    this.tasks = Object.freeze([...tasks]);
    this.law = law;
    this.#ledger = admissionBudget === undefined ? undefined : new BudgetLedger(admissionBudget);
  }

  /** The archived entries in insertion order. */
  get entries(): readonly ArchiveEntry[] {
    return [...this.#entries.values()];
  }

  /** The admission ledger (undefined when the archive has no admission budget). */
  get ledger(): BudgetLedger | undefined {
    return this.#ledger;
  }

  #check(entry: ArchiveEntry, law: string): ArchiveEntry {
    if (law !== this.law)
      throw new ArgumentError('law', law, `differs from the archive's evaluation law ${JSON.stringify(this.law)}`);
    if (typeof entry !== 'object' || entry === null) throw new ArgumentTypeError('entry', entry, 'must be an object');
    if (typeof entry.id !== 'string' || entry.id === '')
      throw new ArgumentTypeError('entry.id', entry.id, 'must be a non-empty string');
    if (this.#entries.has(entry.id)) throw new ArgumentError('entry.id', entry.id, 'is already archived');
    if (!Array.isArray(entry.scores) || entry.scores.length !== this.tasks.length)
      throw new ArgumentError('entry.scores', entry.scores, `must hold one score per task (N = ${this.tasks.length})`);
    entry.scores.forEach((s, i) => finiteNumber(`entry.scores[${i}]`, s));
    for (const [k, v] of Object.entries(entry.costs ?? {})) finiteNumber(`entry.costs.${k}`, v);
    return Object.freeze({
      id: entry.id,
      spec: entry.spec,
      scores: Object.freeze([...entry.scores]),
      costs: Object.freeze({ ...entry.costs }),
    });
  }

  /**
   * Archives an entry scored under `law`.
   * @throws {ArgumentError} another law, duplicate id, wrong number of scores, non-finite values.
   */
  add(entry: ArchiveEntry, law: string): void {
    const e = this.#check(entry, law);
    this.#entries.set(e.id, e);
  }

  /**
   * Budget-preserving admission: archives the entry only if its integer `cost` fits the
   * remaining admission budget (see ./admission.ts).
   * @throws {ArgumentError} the archive has no admission budget; bad entry or cost (nothing changes).
   */
  admit(entry: ArchiveEntry, law: string, cost: number): AdmissionDecision {
    if (!this.#ledger) throw new ArgumentError('admissionBudget', undefined, 'this archive was created without one');
    const e = this.#check(entry, law);
    const d = this.#ledger.admit(e.id, cost);
    if (d.admitted) this.#entries.set(e.id, e);
    return d;
  }

  /** J(a) = mean of the entry's scores. @throws {ArgumentError} unknown id. */
  mean(id: string): number {
    const e = this.#entries.get(id);
    if (!e) throw new ArgumentError('id', id, 'is not archived');
    return e.scores.reduce((s, x) => s + x, 0) / e.scores.length;
  }

  /** Entries within every limit of the target (a missing cost counts as not within). */
  eligible(target: TargetConfiguration = {}): ArchiveEntry[] {
    for (const [k, v] of Object.entries(target)) finiteNumber(`target.${k}`, v);
    return this.entries.filter((e) =>
      Object.entries(target).every(([k, lim]) => e.costs[k] !== undefined && e.costs[k]! <= lim),
    );
  }

  /**
   * J_max over the archive (or over the entries eligible under `target`), and the entries
   * attaining it; null when the considered set is empty (no eligible archived choice).
   */
  envelope(target?: TargetConfiguration): { value: number; argmax: string[] } | null {
    const set = target ? this.eligible(target) : this.entries;
    if (set.length === 0) return null;
    const js = set.map((e) => this.mean(e.id));
    const value = js.reduce((m, x) => Math.max(m, x), -Infinity);
    return { value, argmax: set.filter((_e, i) => js[i] === value).map((e) => e.id) };
  }

  /** Per-task oracle N^−1 Σ_i max_a s_i(a) (not the score of any single entry). null when empty. */
  perTaskOracle(target?: TargetConfiguration): number | null {
    const set = target ? this.eligible(target) : this.entries;
    if (set.length === 0) return null;
    let s = 0;
    for (let i = 0; i < this.tasks.length; i++) s += maxOf(set.map((e) => e.scores[i]!));
    return s / this.tasks.length;
  }

  /**
   * δ-selection (Theorem 4): among the considered entries, a* maximises J; â is the entry with
   * the smallest `costKey` (ties: larger J, then insertion order) among those whose computed gap
   * J(a*) − J(â) is <= δ. Testing the computed gap itself (rather than J(â) >= J(a*) − δ, which
   * rounds differently) makes the upper bound hold for the reported numbers; the lower bound
   * holds because J(a*) is the maximum of the same computed means and rounding is monotone.
   * Returns null when nothing is considered.
   * @throws {ArgumentError} δ not a finite number >= 0.
   */
  select(delta: number, costKey: string, target?: TargetConfiguration): SelectionReport | null {
    finiteNumber('delta', delta);
    if (delta < 0) throw new ArgumentError('delta', delta, 'must be >= 0');
    const set = target ? this.eligible(target) : this.entries;
    if (set.length === 0) return null;
    const js = new Map(set.map((e) => [e.id, this.mean(e.id)]));
    let best = set[0]!;
    for (const e of set) if (js.get(e.id)! > js.get(best.id)!) best = e;
    const jBest = js.get(best.id)!;
    const within = set.filter((e) => jBest - js.get(e.id)! <= delta);
    const cost = (e: ArchiveEntry): number => e.costs[costKey] ?? Infinity;
    let chosen = within[0]!;
    for (const e of within) {
      if (cost(e) < cost(chosen) || (cost(e) === cost(chosen) && js.get(e.id)! > js.get(chosen.id)!)) chosen = e;
    }
    const gap = jBest - js.get(chosen.id)!;
    return {
      delta,
      best: { id: best.id, J: jBest },
      chosen: { id: chosen.id, J: js.get(chosen.id)! },
      gap,
      boundHolds: gap >= 0 && gap <= delta,
      considered: set.map((e) => e.id),
    };
  }
}

/** The evaluation law of a replay: task set, extractor, repeats, seed, budget, λ, paired units. */
export function replayEvaluationLaw(
  result: {
    sha256: string;
    config: { extractor: string; repeats: number; seed: number; budget: number; lambda: number };
  },
  pairedKeys: ReadonlySet<string>,
): string {
  const c = result.config;
  const units = [...pairedKeys].sort().join(',');
  return `sha256=${result.sha256};extractor=${c.extractor};repeats=${c.repeats};seed=${c.seed};budget=${c.budget};lambda=${c.lambda};paired=${createHash('sha256').update(units).digest('hex').slice(0, 16)}`;
}

/**
 * An archive of the rules of a replay, tasks = the paired items, s_i(a) = the rule's mean
 * correctness on item i over its paired repeats, costs = { meanSamples, maxSamples,
 * totalSamples }. With `admissionBudget` (in samples), rules are admitted in replay order with
 * cost totalSamples (the samples their evaluation consumed) until the budget refuses them.
 */
export function archiveFromReplay(
  result: ReplayResult,
  admissionBudget?: number,
): { archive: ConfigurationArchive; admissions: AdmissionDecision[] } {
  const keys = pairedUnitKeys(result.rules);
  const { items, scores } = perItemScores(result.rules);
  const law = replayEvaluationLaw(result, keys);
  const archive = new ConfigurationArchive(
    items.map((i) => `line ${result.rules[0]!.units.find((u) => u.item === i)!.line}`),
    law,
    admissionBudget,
  );
  const admissions: AdmissionDecision[] = [];
  result.rules.forEach((r, k) => {
    const units = r.units.filter((u) => keys.has(`${u.item}:${u.repeat}`));
    const total = units.reduce((s, u) => s + u.samplesUsed, 0);
    const entry: ArchiveEntry = {
      id: r.label,
      spec: r.spec,
      scores: scores[k]!,
      costs: {
        meanSamples: total / units.length,
        maxSamples: units.reduce((m, u) => Math.max(m, u.samplesUsed), 0),
        totalSamples: total,
      },
    };
    if (admissionBudget === undefined) archive.add(entry, law);
    else admissions.push(archive.admit(entry, law, total));
  });
  return { archive, admissions };
}
