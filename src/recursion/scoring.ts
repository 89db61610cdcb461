/**
 * Paired scoring of a recursion run (Zhang et al., "Recursive Agentic Reasoning", Sec. 4 and 5):
 * the items every method resolved are kept for all of them (src/lab/pairedScoring.ts, one
 * record per item), and each operator is compared with the single-pass baseline on them.
 *
 * Per method, over the n paired items (c_i ∈ {0, 1} its correctness on item i, b_i the
 * baseline's, "empty" meaning no extracted answer):
 * - accuracy = Σc_i/n; accuracyChange = accuracy − baseline accuracy; accuracyDifference: the
 *   paired 95% interval of mean(c_i − b_i) (`differenceInterval`, t with n − 1 degrees of freedom);
 * - emptyRate: share of items with no answer; truncatedRate: share of items with at least one
 *   output that exhausted its budget without an answer;
 * - truncation recovery (Sec. 5): recovered = items empty for the baseline that the method
 *   answered, recoveredCorrect = those answered correctly; gainOnBaselineEmpty =
 *   100·recoveredCorrect/n points (the baseline is wrong on every one of them) and
 *   gainOnBaselineAnswered = 100·Σ_{baseline answered}(c_i − b_i)/n; the two add up to the
 *   accuracy change in points;
 * - meanCalls: model calls per item (transport retries not counted); extraCalls = meanCalls −
 *   baseline meanCalls; pointsPerExtraCall = 100·accuracyChange/extraCalls (Sec. 5, "Compute and
 *   efficiency"; null when extraCalls <= 0).
 * Across cells (model × benchmark), {@link truncationCorrelation} gives, per operator, Pearson's r
 * between the baseline empty rate and the accuracy change (Sec. 5: r = 0.72 for BRANCH).
 */
import { pairedSummary, pairedUnitKeys, type DifferenceInterval } from '../lab/pairedScoring.js';
import type { UnitRecord } from '../lab/replay.js';
import { ArgumentError } from '../util/errors.js';
import type { MethodItemRecord, MethodName, RecursionRun } from './run.js';

/** One method's scores against the baseline. */
export interface MethodScore {
  readonly label: MethodName;
  readonly accuracy: number;
  readonly accuracyChange: number;
  /** Paired 95% interval of the per-item difference to the baseline (null: fewer than 2 items). */
  readonly accuracyDifference: DifferenceInterval | null;
  readonly correct: number;
  readonly wrong: number;
  /** Items with no answer. */
  readonly empty: number;
  readonly emptyRate: number;
  readonly truncatedRate: number;
  readonly recovered: number;
  readonly recoveredCorrect: number;
  readonly gainOnBaselineEmpty: number;
  readonly gainOnBaselineAnswered: number;
  readonly meanCalls: number;
  readonly extraCalls: number;
  readonly pointsPerExtraCall: number | null;
  /** Transport retries per item. */
  readonly meanRetries: number;
}

/** The report of {@link scoreRecursion}. */
export interface RecursionReport {
  readonly extractor: string;
  readonly pairedItems: number;
  /** Items some method left unresolved (or with an unusable gold answer), dropped for all. */
  readonly droppedItems: number;
  readonly baseline: MethodName;
  readonly baselineEmptyRate: number;
  /** The baseline first, then the operators in run order. */
  readonly methods: readonly MethodScore[];
}

function unit(r: MethodItemRecord, gold: string | null): UnitRecord {
  const resolved = !r.unresolved && gold !== null;
  return {
    item: r.item,
    line: r.item + 1,
    repeat: 0,
    samplesUsed: r.calls,
    stopReason: r.unresolved ? 'transport-failure' : 'budget',
    detail: '',
    answer: r.answer,
    gold,
    outcome: !resolved ? 'unresolved' : r.answer === null ? 'no-answer' : r.answer === gold ? 'correct' : 'wrong',
    emptySamples: r.answer === null ? 1 : 0,
    unparseableSamples: 0,
    fullMajority: null,
  };
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Scores a run (see the module comment). The first method is the baseline.
 * @throws {ArgumentError} no method, or no item every method resolved.
 */
export function scoreRecursion(run: RecursionRun): RecursionReport {
  if (run.methods.length === 0) throw new ArgumentError('run.methods', run.methods, 'must hold the baseline');
  const rules = run.methods.map((m) => ({
    label: m.label,
    spec: { name: m.label, params: {} },
    units: m.records.map((r) => unit(r, run.gold[r.item] ?? null)),
  }));
  const summary = pairedSummary(rules);
  const keep = pairedUnitKeys(rules);
  const paired = (m: (typeof run.methods)[number]) => m.records.filter((r) => keep.has(`${r.item}:0`));
  const n = keep.size;
  const base = paired(run.methods[0]!);
  const baseCorrect = new Map(base.map((r) => [r.item, r.answer !== null && r.answer === run.gold[r.item]]));
  const baseEmpty = new Set(base.filter((r) => r.answer === null).map((r) => r.item));
  const baseCalls = mean(base.map((r) => r.calls));
  const methods = run.methods.map((m, k): MethodScore => {
    const s = summary.rules[k]!;
    const rs = paired(m);
    const correct = (r: MethodItemRecord): number => (r.answer !== null && r.answer === run.gold[r.item] ? 1 : 0);
    const recovered = rs.filter((r) => baseEmpty.has(r.item) && r.answer !== null);
    const answeredGain = rs
      .filter((r) => !baseEmpty.has(r.item))
      .reduce((acc, r) => acc + correct(r) - Number(baseCorrect.get(r.item)), 0);
    const meanCalls = mean(rs.map((r) => r.calls));
    const extraCalls = meanCalls - baseCalls;
    return {
      label: m.label,
      accuracy: s.accuracy,
      accuracyChange: s.accuracyChange,
      accuracyDifference: s.accuracyDifference,
      correct: s.correct,
      wrong: s.wrong,
      empty: s.noAnswer,
      emptyRate: s.noAnswer / n,
      truncatedRate: rs.filter((r) => r.truncated > 0).length / n,
      recovered: recovered.length,
      recoveredCorrect: recovered.filter((r) => correct(r) === 1).length,
      gainOnBaselineEmpty: (100 * recovered.filter((r) => correct(r) === 1).length) / n,
      gainOnBaselineAnswered: (100 * answeredGain) / n,
      meanCalls,
      extraCalls,
      pointsPerExtraCall: extraCalls > 0 ? (100 * s.accuracyChange) / extraCalls : null,
      meanRetries: mean(rs.map((r) => r.retries)),
    };
  });
  return {
    extractor: run.extractor,
    pairedItems: n,
    droppedItems: run.gold.length - n,
    baseline: run.methods[0]!.label,
    baselineEmptyRate: baseEmpty.size / n,
    methods,
  };
}

/** Pearson's r of paired values; null for fewer than 3 pairs or a constant coordinate. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 3 || ys.length !== n) return null;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

/**
 * Per operator present in every cell: Pearson's r between the cells' baseline empty rates and
 * the operator's accuracy changes (null: fewer than 3 cells, or no spread in either).
 */
export function truncationCorrelation(
  cells: readonly RecursionReport[],
): Array<{ label: MethodName; r: number | null; cells: number }> {
  if (cells.length === 0) return [];
  const labels = cells[0]!.methods.slice(1).map((m) => m.label);
  return labels
    .filter((l) => cells.every((c) => c.methods.some((m) => m.label === l)))
    .map((label) => ({
      label,
      r: pearson(
        cells.map((c) => c.baselineEmptyRate),
        cells.map((c) => c.methods.find((m) => m.label === label)!.accuracyChange),
      ),
      cells: cells.length,
    }));
}
