/**
 * A paired run of the operators and the single-pass chain-of-thought baseline on the same items
 * (Zhang et al., "Recursive Agentic Reasoning", Sec. 4, "Paired protocol"): every item is asked of
 * the baseline (`solve` with `finalize: false`: y = extract(M(x)), Sec. 3) and of each operator
 * with the same prompts, budget and extractor. A method whose call fails for good on an item
 * (a {@link TransportFailure}) leaves that item unresolved for it; scoring then drops the item for
 * every method instead of scoring the failure as a wrong answer (Sec. 4, "Failure handling").
 */
import type { LanguageModel } from 'ai';
import { answerIsExtractor } from '../lab/extractors.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { branch, type BranchOptions } from './branch.js';
import { noUsage, TransportFailure } from './call.js';
import { grow, type GrowOptions } from './grow.js';
import { prune, type PruneOptions } from './prune.js';
import { checkSolveOptions, noCounts, solve, type CallCounts, type SolveOptions } from './solve.js';

/** The operators, in the paper's order. */
export const OPERATORS = ['grow', 'prune', 'branch'] as const;
/** An operator's name. */
export type OperatorName = (typeof OPERATORS)[number];
/** A method of a run: the baseline or an operator. */
export type MethodName = 'cot' | OperatorName;

/** An item: the problem and its gold answer (normalised by the run's extractor). */
export interface RecursionItem {
  readonly question: string;
  readonly answer: string;
}

/** Options of {@link runRecursion}: the shared solve options and each operator's own. */
export interface RecursionRunOptions extends SolveOptions {
  /** Operators to run besides the baseline (default all three). */
  operators?: readonly OperatorName[];
  grow?: Omit<GrowOptions, keyof SolveOptions>;
  prune?: Omit<PruneOptions, keyof SolveOptions>;
  branch?: Omit<BranchOptions, keyof SolveOptions>;
  /** Called after each item (progress). */
  onItem?: (item: number) => void;
}

/** One method's record of one item. */
export interface MethodItemRecord extends CallCounts {
  readonly item: number;
  /** The normalised answer; null: none (empty). */
  readonly answer: string | null;
  /** The method's calls failed for good on this item. */
  readonly unresolved: boolean;
}

/** A run: the items and each method's records (the baseline `cot` first). */
export interface RecursionRun {
  readonly extractor: string;
  /** Per item: the normalised gold answer (null: unusable, the item is dropped). */
  readonly gold: ReadonlyArray<string | null>;
  readonly methods: ReadonlyArray<{ readonly label: MethodName; readonly records: readonly MethodItemRecord[] }>;
}

async function record(
  item: number,
  run: () => Promise<CallCounts & { answer: string | null }>,
): Promise<MethodItemRecord> {
  try {
    const r = await run();
    return {
      item,
      answer: r.answer,
      unresolved: false,
      calls: r.calls,
      retries: r.retries,
      truncated: Number(r.truncated),
      finalized: Number(r.finalized),
      usage: r.usage,
    };
  } catch (e) {
    if (!(e instanceof TransportFailure)) throw e;
    return { ...noCounts(), usage: noUsage(), item, answer: null, unresolved: true, retries: e.attempts - 1 };
  }
}

/**
 * Runs the baseline and the operators on every item (see the module comment), one item at a
 * time, methods in the order baseline, then `operators`.
 * @throws {ArgumentError} no items, a blank question, an unknown operator, bad options (no call made).
 */
export async function runRecursion(
  model: LanguageModel,
  items: readonly RecursionItem[],
  o: RecursionRunOptions = {},
): Promise<RecursionRun> {
  checkSolveOptions(o);
  if (!Array.isArray(items) || items.length === 0)
    throw new ArgumentError('items', items, 'must hold at least one item');
  items.forEach((it, i) => {
    if (typeof it?.question !== 'string' || it.question.trim() === '')
      throw new ArgumentTypeError(`items[${i}].question`, it?.question, 'must be a non-empty string');
    if (typeof it.answer !== 'string') throw new ArgumentTypeError(`items[${i}].answer`, it.answer, 'must be a string');
  });
  const operators = o.operators ?? OPERATORS;
  operators.forEach((op, i) => {
    if (!OPERATORS.includes(op))
      throw new ArgumentError(`operators[${i}]`, op, `is not an operator (${OPERATORS.join(', ')})`);
  });
  const { operators: _ops, grow: g, prune: p, branch: b, onItem, ...shared } = o;
  const extractor = o.extractor ?? answerIsExtractor;
  const labels: MethodName[] = ['cot', ...operators];
  const records = labels.map(() => [] as MethodItemRecord[]);
  for (let i = 0; i < items.length; i++) {
    const q = items[i]!.question;
    const runs: Record<MethodName, () => Promise<CallCounts & { answer: string | null }>> = {
      cot: async () => {
        const s = await solve(model, q, { ...shared, finalize: false });
        return { ...s, truncated: Number(s.truncated), finalized: 0 };
      },
      grow: () => grow(model, q, { ...shared, ...g }),
      prune: () => prune(model, q, { ...shared, ...p }),
      branch: () => branch(model, q, { ...shared, ...b }),
    };
    for (let m = 0; m < labels.length; m++) records[m]!.push(await record(i, runs[labels[m]!]));
    onItem?.(i);
  }
  return {
    extractor: extractor.name,
    gold: items.map((it) => extractor.normalizeGold(it.answer)),
    methods: labels.map((label, m) => ({ label, records: records[m]! })),
  };
}
