/**
 * Paired scoring (seed 004): every comparison uses the intersection of the (item, repeat) units
 * that every rule resolved — a unit that any rule could not finish (a transport failure, an
 * unusable gold answer) is dropped for all of them, so no rule is compared on a different item
 * set. Outcomes are kept apart: correct, wrong, no answer (only empty/unparseable samples seen);
 * empty and unparseable samples are counted separately from wrong answers. Everything here is a
 * function of the per-unit records alone, so every figure can be recomputed from them.
 *
 * Figures per rule (over the paired units):
 * - accuracy: per repeat, correct / paired units of that repeat; reported as the mean over
 *   repeats and the unbiased variance across repeats (null when R = 1);
 * - answeredAccuracy: correct / (correct + wrong), pooled;
 * - meanSamples: per repeat, mean samples used; mean and variance across repeats the same way;
 *   unitSamplesVariance: the variance of samples used over all paired units;
 * - agreement: share of paired units whose answer equals the full-budget majority vote;
 * - samplesSaved = 1 − meanSamples / baseline meanSamples; accuracyChange = accuracy − baseline.
 */
import { ArgumentError } from '../util/errors.js';
import type { ReplayResult, UnitRecord } from './replay.js';

/** Summary of one rule over the paired units. */
export interface RuleSummary {
  readonly label: string;
  readonly name: string;
  readonly params: Readonly<Record<string, number | boolean>>;
  readonly accuracy: number;
  readonly accuracyVariance: number | null;
  readonly answeredAccuracy: number | null;
  readonly meanSamples: number;
  readonly samplesVariance: number | null;
  /** Unbiased variance of samples used across all paired units (the spread of per-item cost). */
  readonly unitSamplesVariance: number | null;
  readonly agreement: number;
  readonly correct: number;
  readonly wrong: number;
  readonly noAnswer: number;
  readonly emptySamples: number;
  readonly unparseableSamples: number;
  /** 1 − meanSamples / baseline meanSamples. */
  readonly samplesSaved: number;
  /** accuracy − baseline accuracy. */
  readonly accuracyChange: number;
  /** Stop reasons over the paired units. */
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** Result of {@link pairedSummary}. */
export interface PairedSummary {
  /** Units (item, repeat) every rule resolved. */
  readonly pairedUnits: number;
  /** Units dropped because some rule left them unresolved. */
  readonly droppedUnits: number;
  /** Items with at least one paired unit. */
  readonly pairedItems: number;
  readonly repeats: number;
  /** Label of the baseline (the first rule). */
  readonly baseline: string;
  readonly rules: readonly RuleSummary[];
}

const key = (u: Pick<UnitRecord, 'item' | 'repeat'>): string => `${u.item}:${u.repeat}`;

/** The keys `item:repeat` of the units every rule resolved. */
export function pairedUnitKeys(rules: ReadonlyArray<{ units: readonly UnitRecord[] }>): Set<string> {
  if (rules.length === 0) return new Set();
  let keep = new Set(rules[0]!.units.filter((u) => u.outcome !== 'unresolved').map(key));
  for (const r of rules.slice(1)) {
    const ok = new Set(r.units.filter((u) => u.outcome !== 'unresolved').map(key));
    keep = new Set([...keep].filter((k) => ok.has(k)));
  }
  return keep;
}

function meanAndVariance(xs: readonly number[]): { mean: number; variance: number | null } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { mean, variance: null };
  const ss = xs.reduce((s, x) => s + (x - mean) * (x - mean), 0);
  return { mean, variance: ss / (n - 1) };
}

/**
 * Paired summary of a replay (or of rule records loaded from a run record). The first rule is
 * the baseline.
 * @throws {ArgumentError} no rules, or no unit that every rule resolved.
 */
export function pairedSummary(
  rules: ReadonlyArray<{
    label: string;
    spec: { name: string; params: Readonly<Record<string, number | boolean>> };
    units: readonly UnitRecord[];
  }>,
): PairedSummary {
  if (rules.length === 0) throw new ArgumentError('rules', rules, 'must hold at least one rule');
  const keep = pairedUnitKeys(rules);
  const all = new Set(rules.flatMap((r) => r.units.map(key)));
  if (keep.size === 0) throw new ArgumentError('units', all.size, 'no (item, repeat) unit was resolved by every rule');
  const repeats = [...new Set(rules[0]!.units.map((u) => u.repeat))].sort((a, b) => a - b);
  const raw = rules.map((r) => {
    const units = r.units.filter((u) => keep.has(key(u)));
    const perRepeatAcc: number[] = [];
    const perRepeatSamples: number[] = [];
    for (const rep of repeats) {
      const us = units.filter((u) => u.repeat === rep);
      if (us.length === 0) continue;
      perRepeatAcc.push(us.filter((u) => u.outcome === 'correct').length / us.length);
      perRepeatSamples.push(us.reduce((s, u) => s + u.samplesUsed, 0) / us.length);
    }
    const acc = meanAndVariance(perRepeatAcc);
    const smp = meanAndVariance(perRepeatSamples);
    const correct = units.filter((u) => u.outcome === 'correct').length;
    const wrong = units.filter((u) => u.outcome === 'wrong').length;
    const stopReasons: Record<string, number> = {};
    for (const u of units) stopReasons[u.stopReason] = (stopReasons[u.stopReason] ?? 0) + 1;
    return {
      label: r.label,
      name: r.spec.name,
      params: r.spec.params,
      accuracy: acc.mean,
      accuracyVariance: acc.variance,
      answeredAccuracy: correct + wrong > 0 ? correct / (correct + wrong) : null,
      meanSamples: smp.mean,
      samplesVariance: smp.variance,
      unitSamplesVariance: meanAndVariance(units.map((u) => u.samplesUsed)).variance,
      agreement: units.filter((u) => u.answer !== null && u.answer === u.fullMajority).length / units.length,
      correct,
      wrong,
      noAnswer: units.filter((u) => u.outcome === 'no-answer').length,
      emptySamples: units.reduce((s, u) => s + u.emptySamples, 0),
      unparseableSamples: units.reduce((s, u) => s + u.unparseableSamples, 0),
      stopReasons,
    };
  });
  const base = raw[0]!;
  return {
    pairedUnits: keep.size,
    droppedUnits: all.size - keep.size,
    pairedItems: new Set([...keep].map((k) => k.split(':')[0])).size,
    repeats: repeats.length,
    baseline: base.label,
    rules: raw.map((r) => ({
      ...r,
      samplesSaved: 1 - r.meanSamples / base.meanSamples,
      accuracyChange: r.accuracy - base.accuracy,
    })),
  };
}

/** {@link pairedSummary} of a {@link ReplayResult}. */
export function summarizeReplay(result: ReplayResult): PairedSummary {
  return pairedSummary(result.rules);
}

/**
 * Per-item scores over the paired units: for each rule, item → mean correctness over its paired
 * repeats (the s_i(a) of an archive, seed 002), and the mean samples used (its cost).
 */
export function perItemScores(rules: ReadonlyArray<{ label: string; units: readonly UnitRecord[] }>): {
  items: number[];
  scores: number[][];
  costs: number[];
} {
  const keep = pairedUnitKeys(rules);
  const items = [...new Set([...keep].map((k) => Number(k.split(':')[0])))].sort((a, b) => a - b);
  const scores = rules.map((r) => {
    // group once: item → [correct, count] over the paired units (O(units), not O(items · units))
    const acc = new Map<number, [number, number]>();
    for (const u of r.units) {
      if (!keep.has(key(u))) continue;
      const a = acc.get(u.item) ?? [0, 0];
      a[0] += u.outcome === 'correct' ? 1 : 0;
      a[1] += 1;
      acc.set(u.item, a);
    }
    return items.map((it) => acc.get(it)![0] / acc.get(it)![1]);
  });
  const costs = rules.map((r) => {
    const units = r.units.filter((u) => keep.has(key(u)));
    return units.reduce((s, u) => s + u.samplesUsed, 0) / units.length;
  });
  return { items, scores, costs };
}
