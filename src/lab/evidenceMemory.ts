/**
 * Evidence memory (Penaroza, "Reasoning Graphs"): verdicts are stored per evidence item, keyed
 * by the sha256 of the item's content (exact-text identity, as in the paper), not per query.
 * - history: every verdict (used / rejected) with the query type, the run and the run's outcome
 *   (correct / incorrect), and an optional reason;
 * - evidence profile: the verdict distribution and a reliability score, by default over correct
 *   runs only (the correct-outcome filter: verdicts from runs that ended wrong are not trusted);
 * - planner (the retrieval graph's pipeline planner): exclude an item for a query type only when
 *   its rejection rate r is significantly above a level r0: with a uniform prior,
 *   r | data ~ Beta(1 + rejected, 1 + used), and the item is excluded iff
 *   P(r > r0 | data) >= confidence (computed exactly, ../stopping/betaTail.ts). Two rejections
 *   out of two are not enough at r0 = 1/2, confidence 0.95 (P = 7/8); five out of five are
 *   (P = 63/64).
 * - reliability = posterior mean of the "used" share, (used + 1)/(used + rejected + 2): 1/2 for
 *   an item never seen, so unknown items keep their weight relative to each other.
 * {@link reweightEvidence} turns a profile into an evidence distribution P(·|θ) for any system
 * (for example the reference graph system's pool): p'_e ∝ p_e · reliability_e, excluded items 0.
 */
import { createHash } from 'node:crypto';
import { readInputText } from '../util/resources.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { validateDistribution } from '../system/distribution.js';
import { defineSystem } from '../system/define.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import { betaTailInt } from '../stopping/betaTail.js';

/** A verdict on an evidence item within one run. */
export type Verdict = 'used' | 'rejected';
/** The outcome of the run the verdict belongs to. */
export type RunOutcome = 'correct' | 'incorrect';

/** One stored verdict. */
export interface VerdictRecord {
  readonly runId: string;
  readonly queryType: string;
  readonly verdict: Verdict;
  readonly outcome: RunOutcome;
  readonly reason?: string;
}

/** The evidence profile of one item. */
export interface EvidenceProfile {
  readonly hash: string;
  readonly used: number;
  readonly rejected: number;
  /** used / (used + rejected), rejected / (...); null when no verdict passes the filters. */
  readonly distribution: { readonly used: number; readonly rejected: number } | null;
  /** (used + 1)/(used + rejected + 2). */
  readonly reliability: number;
  /** Most frequent reasons, most frequent first (at most 3). */
  readonly topReasons: readonly string[];
  /** Verdicts dropped by the correct-outcome filter. */
  readonly filteredOut: number;
}

/** The planner's answer for one item and query type. */
export interface ExclusionDecision {
  readonly hash: string;
  readonly queryType: string;
  readonly exclude: boolean;
  /** P(r > r0 | data) under the Beta(1 + rejected, 1 + used) posterior. */
  readonly probability: number;
  readonly rejected: number;
  readonly used: number;
  readonly level: number;
  readonly confidence: number;
}

/** sha256 (hex) of an evidence item's content: its key in the memory. */
export function contentHash(content: string): string {
  if (typeof content !== 'string') throw new ArgumentTypeError('content', content, 'must be a string');
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Filters for profiles and the planner. */
export interface ProfileFilter {
  /** Only verdicts of this query type (default: all). */
  queryType?: string;
  /** Apply the correct-outcome filter (default true). */
  correctOnly?: boolean;
}

/**
 * The store. Verdicts are appended; nothing is overwritten.
 * @example
 * ```ts
 * const m = new EvidenceMemory();
 * for (let i = 0; i < 5; i++) m.record({ content: 'stale passage', runId: `r${i}`, queryType: 'birthplace', verdict: 'rejected', outcome: 'correct' });
 * m.shouldExclude(contentHash('stale passage'), 'birthplace').exclude; // true: P(r > 1/2) = 63/64
 * ```
 */
export class EvidenceMemory {
  readonly #store = new Map<string, VerdictRecord[]>();

  /**
   * Stores one verdict; returns the item's key (the content hash, or `hash` when given).
   * @throws {ArgumentError} neither content nor a 64-hex hash (or both), empty runId/queryType, a verdict
   *   or outcome outside the allowed values (nothing is stored).
   */
  record(v: {
    content?: string;
    hash?: string;
    runId: string;
    queryType: string;
    verdict: Verdict;
    outcome: RunOutcome;
    reason?: string;
  }): string {
    if (typeof v !== 'object' || v === null) throw new ArgumentTypeError('verdict', v, 'must be an object');
    let hash: string;
    // one key: content and a hash together could name two items (fromJSON would file the entry
    // under its content's hash, not the key it was saved under)
    if (v.content !== undefined && v.hash !== undefined)
      throw new ArgumentError('hash', v.hash, 'give content or hash, not both');
    if (v.content !== undefined) hash = contentHash(v.content);
    else if (typeof v.hash === 'string' && HEX64.test(v.hash)) hash = v.hash;
    else throw new ArgumentError('hash', v.hash, 'give content, or hash as 64 lower-case hex digits');
    for (const f of ['runId', 'queryType'] as const) {
      if (typeof v[f] !== 'string' || v[f] === '') throw new ArgumentTypeError(f, v[f], 'must be a non-empty string');
    }
    if (v.verdict !== 'used' && v.verdict !== 'rejected')
      throw new ArgumentError('verdict', v.verdict, "must be 'used' or 'rejected'");
    if (v.outcome !== 'correct' && v.outcome !== 'incorrect')
      throw new ArgumentError('outcome', v.outcome, "must be 'correct' or 'incorrect'");
    if (v.reason !== undefined && typeof v.reason !== 'string')
      throw new ArgumentTypeError('reason', v.reason, 'must be a string');
    const rec: VerdictRecord = Object.freeze({
      runId: v.runId,
      queryType: v.queryType,
      verdict: v.verdict,
      outcome: v.outcome,
      ...(v.reason === undefined ? {} : { reason: v.reason }),
    });
    const list = this.#store.get(hash) ?? [];
    list.push(rec);
    this.#store.set(hash, list);
    return hash;
  }

  /** Every verdict on the item, oldest first (empty for an unknown item). */
  history(hash: string): readonly VerdictRecord[] {
    return [...(this.#store.get(hash) ?? [])];
  }

  /** The keys of all items with a history. */
  get items(): string[] {
    return [...this.#store.keys()];
  }

  #counts(hash: string, f: ProfileFilter): { used: number; rejected: number; dropped: number; reasons: string[] } {
    const correctOnly = f.correctOnly ?? true;
    let used = 0;
    let rejected = 0;
    let dropped = 0;
    const reasons: string[] = [];
    for (const r of this.#store.get(hash) ?? []) {
      if (f.queryType !== undefined && r.queryType !== f.queryType) continue;
      if (correctOnly && r.outcome !== 'correct') {
        dropped++;
        continue;
      }
      if (r.verdict === 'used') used++;
      else rejected++;
      if (r.reason) reasons.push(r.reason);
    }
    return { used, rejected, dropped, reasons };
  }

  /** The evidence profile of an item (see the module comment). Cost O(history length). */
  profile(hash: string, filter: ProfileFilter = {}): EvidenceProfile {
    const c = this.#counts(hash, filter);
    const total = c.used + c.rejected;
    const freq = new Map<string, number>();
    for (const r of c.reasons) freq.set(r, (freq.get(r) ?? 0) + 1);
    return {
      hash,
      used: c.used,
      rejected: c.rejected,
      distribution: total ? { used: c.used / total, rejected: c.rejected / total } : null,
      reliability: (c.used + 1) / (total + 2),
      topReasons: [...freq]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([r]) => r),
      filteredOut: c.dropped,
    };
  }

  /**
   * The planner: exclude the item for `queryType` iff P(r > level | data) >= confidence, r the
   * rejection rate with posterior Beta(1 + rejected, 1 + used).
   * @throws {ArgumentError} level outside (0, 1), confidence outside (0, 1).
   */
  shouldExclude(
    hash: string,
    queryType: string,
    options: { level?: number; confidence?: number; correctOnly?: boolean } = {},
  ): ExclusionDecision {
    const level = finiteNumber('level', options.level ?? 0.5);
    if (!(level > 0 && level < 1)) throw new ArgumentError('level', level, 'must lie in (0, 1)');
    const confidence = finiteNumber('confidence', options.confidence ?? 0.95);
    if (!(confidence > 0 && confidence < 1)) throw new ArgumentError('confidence', confidence, 'must lie in (0, 1)');
    const c = this.#counts(hash, { queryType, correctOnly: options.correctOnly ?? true });
    const probability = betaTailInt(1 + c.rejected, 1 + c.used, level).above;
    return {
      hash,
      queryType,
      exclude: probability >= confidence,
      probability,
      rejected: c.rejected,
      used: c.used,
      level,
      confidence,
    };
  }

  /** Plain JSON of the store (for saving). */
  toJSON(): Record<string, VerdictRecord[]> {
    return Object.fromEntries([...this.#store].map(([h, l]) => [h, [...l]]));
  }

  /**
   * Rebuilds a store from {@link toJSON} output, validating every verdict.
   * @throws {ArgumentError} a malformed entry, naming its key and index.
   */
  static fromJSON(data: unknown): EvidenceMemory {
    if (typeof data !== 'object' || data === null) throw new ArgumentTypeError('memory', data, 'must be an object');
    const m = new EvidenceMemory();
    for (const [hash, list] of Object.entries(data as Record<string, unknown>)) {
      if (!Array.isArray(list)) throw new ArgumentTypeError(`memory.${hash}`, list, 'must be an array of verdicts');
      list.forEach((v, i) => {
        try {
          m.record({ ...(v as VerdictRecord), hash });
        } catch (e) {
          if (e instanceof Error) e.message = `memory.${hash}[${i}]: ${e.message}`;
          throw e;
        }
      });
    }
    return m;
  }
}

/** Options of {@link reweightEvidence}. */
export interface ReweightOptions {
  /** Query type for the planner. */
  queryType: string;
  /** The content of evidence item `id` (hashed to find its history); default: the id itself. */
  contentOf?: (id: string) => string;
  /** Apply the planner's exclusions (default true). */
  exclude?: boolean;
  /** Planner level and confidence (defaults 1/2 and 0.95). */
  level?: number;
  confidence?: number;
}

/** Result of {@link reweightEvidence}. */
export interface ReweightedEvidence {
  readonly distribution: readonly EvidenceWeight[];
  /** Items the planner excluded (their probability is 0). */
  readonly excluded: readonly string[];
  /** True when every supported item was excluded, so exclusions were not applied. */
  readonly fellBack: boolean;
}

/**
 * Reweights an evidence distribution by the memory: p'_e ∝ p_e · reliability_e (correct-outcome
 * filter, query type as given), planner-excluded items get 0. If the planner would exclude every
 * item with p > 0, exclusions are skipped (`fellBack`) rather than leaving no evidence.
 * Cost: O(|pool| · history).
 * @throws {ArgumentError} the input is not a valid distribution.
 */
export function reweightEvidence(
  distribution: readonly EvidenceWeight[],
  memory: EvidenceMemory,
  options: ReweightOptions,
): ReweightedEvidence {
  const dist = validateDistribution('distribution', distribution);
  if (typeof options?.queryType !== 'string')
    throw new ArgumentTypeError('queryType', options?.queryType, 'must be a string');
  const contentOf = options.contentOf ?? ((id: string) => id);
  const rows = dist.map(({ id, p }) => {
    const hash = contentHash(contentOf(id));
    const rel = memory.profile(hash, { queryType: options.queryType }).reliability;
    const ex = (options.exclude ?? true) && memory.shouldExclude(hash, options.queryType, options).exclude;
    return { id, w: p * rel, ex };
  });
  let excluded = rows.filter((r) => r.ex && r.w > 0).map((r) => r.id);
  let fellBack = false;
  if (rows.every((r) => r.w === 0 || r.ex)) {
    excluded = [];
    fellBack = true;
  }
  const skip = new Set(excluded);
  const total = rows.reduce((s, r) => s + (skip.has(r.id) ? 0 : r.w), 0);
  const out = rows.map((r) => ({ id: r.id, p: skip.has(r.id) ? 0 : r.w / total }));
  return { distribution: validateDistribution('reweighted distribution', out), excluded, fellBack };
}

/**
 * A copy of `system` whose evidence distribution is reweighted by the memory at every state —
 * the adapter that lets the store feed any system's P(·|θ), e.g. the reference graph system
 * (pass `contentOf` mapping an evidence id to its passage text). Operators are unchanged.
 */
export function withEvidenceMemory(
  system: OperatorSystem,
  memory: EvidenceMemory,
  options: ReweightOptions,
): OperatorSystem {
  return defineSystem({
    name: `${system.name}+evidence-memory(${options.queryType})`,
    dim: system.dim,
    consolidate: (t) => system.consolidate(t),
    expand: (e, t) => system.expand(e, t),
    evidence: (t) => reweightEvidence(system.evidenceAt(t), memory, options).distribution,
    ...(system.theta0 ? { theta0: system.theta0 } : {}),
    subspaces: system.subspaces,
    questions: system.questions,
    describeCoordinate: (i) => system.describeCoordinate(i),
  });
}

/**
 * `contentOf` for an evidence pool whose items carry their passage text (the reference graph
 * system's `scenario.pool`): the text when present, else the id.
 * @example
 * ```ts
 * const sys = referenceGraphSystem();
 * withEvidenceMemory(sys, memory, { queryType: 'author', contentOf: poolContentOf(sys.scenario.pool) });
 * ```
 */
export function poolContentOf(pool: {
  readonly items: readonly { readonly id: string; readonly text?: string }[];
}): (id: string) => string {
  const text = new Map(pool.items.map((it) => [it.id, it.text ?? it.id]));
  return (id) => text.get(id) ?? id;
}

/** Saves a memory as JSON (atomic: temporary file + rename). */
export async function saveEvidenceMemory(path: string, memory: EvidenceMemory): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(memory.toJSON(), null, 1) + '\n');
}

/**
 * Loads a memory saved by {@link saveEvidenceMemory}, validating every verdict.
 * @throws {ArgumentError} unreadable file, bad JSON, or a malformed verdict (named).
 */
export async function loadEvidenceMemory(path: string): Promise<EvidenceMemory> {
  const text = await readInputText('memory', path);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError('memory', path, `is not valid JSON (${(e as Error).message})`);
  }
  return EvidenceMemory.fromJSON(data);
}
