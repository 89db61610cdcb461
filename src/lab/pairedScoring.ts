/**
 * Paired scoring (Zhang et al., "Recursive Agentic Reasoning"): every comparison uses the intersection of the (item, repeat) units
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
 * - agreement: share of the paired units whose full-budget vote has an answer in which the rule's
 *   answer equals it (a unit whose full vote has no answer — every sample empty or unreadable —
 *   has nothing to agree with and is left out, so the full budget agrees with itself 100%; null
 *   when no unit is left, e.g. a file of blank samples); falseStopRate = 1 − agreement (null with
 *   it): how often the rule stopped on an answer the full budget would not give;
 * - samplesSaved = 1 − meanSamples / baseline meanSamples; accuracyChange = accuracy − baseline;
 * - accuracyDifference: a paired confidence interval for the accuracy difference to the baseline,
 *   clustered by item: per item, d_i = mean over its paired repeats of (correct − baseline
 *   correct); the interval is mean(d) ± t_{0.975, m−1}·sd(d)/√m over the m paired items (the
 *   repeats of one item share its difficulty, so they are not independent; the items are).
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
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
  /** Null when no paired unit's full-budget vote has an answer (agreementUnits = 0). */
  readonly agreement: number | null;
  /** Paired units whose full-budget vote has an answer (the denominator of agreement). */
  readonly agreementUnits: number;
  /** 1 − agreement (null with it). */
  readonly falseStopRate: number | null;
  readonly correct: number;
  readonly wrong: number;
  readonly noAnswer: number;
  readonly emptySamples: number;
  readonly unparseableSamples: number;
  /** 1 − meanSamples / baseline meanSamples. */
  readonly samplesSaved: number;
  /** accuracy − baseline accuracy. */
  readonly accuracyChange: number;
  /** Paired 95% confidence interval for the accuracy difference to the baseline (null: fewer than 2 items). */
  readonly accuracyDifference: DifferenceInterval | null;
  /** Stop reasons over the paired units. */
  readonly stopReasons: Readonly<Record<string, number>>;
}

/** A confidence interval for a mean difference over items. */
export interface DifferenceInterval {
  /** Mean over items of the per-item difference. */
  readonly mean: number;
  readonly low: number;
  readonly high: number;
  /** Coverage level (0.95). */
  readonly level: number;
  /** Items the interval is over. */
  readonly items: number;
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

/**
 * A unit's (item, repeat) as one number, item·2²⁰ + repeat: exact for items below 2³³ and repeats
 * below 2²⁰ (a replay allows at most 10⁵ repeats), and cheaper to hash than a string.
 */
const REPEAT_SPAN = 2 ** 20;
function unitKey(u: Pick<UnitRecord, 'item' | 'repeat'>): number {
  if (!(Number.isInteger(u.repeat) && u.repeat >= 0 && u.repeat < REPEAT_SPAN))
    throw new ArgumentError('unit.repeat', u.repeat, `must be an integer in [0, ${REPEAT_SPAN})`);
  return u.item * REPEAT_SPAN + u.repeat;
}
const keyItem = (k: number): number => Math.floor(k / REPEAT_SPAN);

/** The units every rule resolved, as {@link unitKey}s in the first rule's order. */
function pairedKeys(rules: ReadonlyArray<{ units: readonly UnitRecord[] }>): Set<number> {
  if (rules.length === 0) return new Set();
  const resolved = (units: readonly UnitRecord[]): Set<number> => {
    const out = new Set<number>();
    for (const u of units) if (u.outcome !== 'unresolved') out.add(unitKey(u));
    return out;
  };
  let keep = resolved(rules[0]!.units);
  for (const r of rules.slice(1)) {
    const ok = resolved(r.units);
    keep = new Set([...keep].filter((k) => ok.has(k)));
  }
  return keep;
}

/** The keys `item:repeat` of the units every rule resolved. */
export function pairedUnitKeys(rules: ReadonlyArray<{ units: readonly UnitRecord[] }>): Set<string> {
  return new Set([...pairedKeys(rules)].map((k) => `${keyItem(k)}:${k % REPEAT_SPAN}`));
}

function meanAndVariance(xs: readonly number[]): { mean: number; variance: number | null } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { mean, variance: null };
  const ss = xs.reduce((s, x) => s + (x - mean) * (x - mean), 0);
  return { mean, variance: ss / (n - 1) };
}

/**
 * P(|T| <= t) for Student's t with an integer ν >= 1, from the finite series of Abramowitz &
 * Stegun 26.7.3 in θ = atan(t/√ν) (every term positive, so no cancellation).
 */
function tTwoSided(t: number, nu: number): number {
  const theta = Math.atan(t / Math.sqrt(nu));
  const c2 = Math.cos(theta) ** 2;
  const sin = Math.sin(theta);
  if (nu % 2 === 0) {
    let term = 1;
    let sum = 1;
    for (let k = 2; k <= nu - 2; k += 2) {
      term *= ((k - 1) / k) * c2;
      sum += term;
    }
    return sin * sum;
  }
  if (nu === 1) return (2 / Math.PI) * theta;
  let term = Math.cos(theta);
  let sum = term;
  for (let k = 3; k <= nu - 2; k += 2) {
    term *= ((k - 1) / k) * c2;
    sum += term;
  }
  return (2 / Math.PI) * (theta + sin * sum);
}

/**
 * The 0.975 quantile of Student's t distribution with ν >= 1 degrees of freedom (the half-width
 * factor of a two-sided 95% interval): the root of P(|T| <= t) = 0.95 by bisection on the exact
 * series of A&S 26.7.3 (60 halvings of [0, 13] leave an interval below 1e-16·13, so the result
 * is the root to rounding) for ν <= 10^4; above, the normal quantile with the first Cornish–Fisher
 * term, z + (z³ + z)/(4ν), whose error (the next term, 2.8/ν²) is below 3e-8 there.
 * @example
 * ```ts
 * tQuantile975(10); // 2.228139 (tabulated)
 * ```
 */
export function tQuantile975(nu: number): number {
  if (!(Number.isInteger(nu) && nu >= 1)) throw new ArgumentError('nu', nu, 'must be an integer >= 1');
  if (nu > 1e4) {
    const z = 1.959963984540054;
    return z + (z * z * z + z) / (4 * nu);
  }
  let lo = 0;
  let hi = 13; // P(|T| <= 13) > 0.95 for every ν >= 1 (ν = 1: 2·atan(13)/π = 0.951)
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (tTwoSided(mid, nu) < 0.95) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Paired 95% interval for the mean of per-item differences (see the module comment); null for
 * fewer than two items.
 */
export function differenceInterval(perItem: readonly number[]): DifferenceInterval | null {
  const m = perItem.length;
  if (m < 2) return null;
  const { mean, variance } = meanAndVariance(perItem);
  const half = tQuantile975(m - 1) * Math.sqrt((variance ?? 0) / m);
  return { mean, low: mean - half, high: mean + half, level: 0.95, items: m };
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
  const keep = pairedKeys(rules);
  const all = new Set<number>();
  for (const r of rules) for (const u of r.units) all.add(unitKey(u));
  if (keep.size === 0) throw new ArgumentError('units', all.size, 'no (item, repeat) unit was resolved by every rule');
  const repeats = [...new Set(rules[0]!.units.map((u) => u.repeat))].sort((a, b) => a - b);
  const repeatIndex = new Map(repeats.map((rep, i) => [rep, i]));
  const raw = rules.map((r) => {
    const units = r.units.filter((u) => keep.has(unitKey(u)));
    // per repeat, in unit order: units, correct ones, samples used
    const count = new Array<number>(repeats.length).fill(0);
    const right = new Array<number>(repeats.length).fill(0);
    const used = new Array<number>(repeats.length).fill(0);
    for (const u of units) {
      const i = repeatIndex.get(u.repeat);
      if (i === undefined) continue;
      count[i]!++;
      if (u.outcome === 'correct') right[i]!++;
      used[i]! += u.samplesUsed;
    }
    const perRepeatAcc: number[] = [];
    const perRepeatSamples: number[] = [];
    repeats.forEach((_, i) => {
      if (count[i] === 0) return;
      perRepeatAcc.push(right[i]! / count[i]!);
      perRepeatSamples.push(used[i]! / count[i]!);
    });
    const acc = meanAndVariance(perRepeatAcc);
    const smp = meanAndVariance(perRepeatSamples);
    const { correct, wrong, noAnswer, agreementUnits, agreeing, emptySamples, unparseableSamples, stopReasons } =
      unitCounts(units);
    const agreement = agreementUnits > 0 ? agreeing / agreementUnits : null;
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
      agreement,
      agreementUnits,
      falseStopRate: agreement === null ? null : 1 - agreement,
      units,
      correct,
      wrong,
      noAnswer,
      emptySamples,
      unparseableSamples,
      stopReasons,
    };
  });
  const base = raw[0]!;
  const baseCorrect = correctByUnit(base.units);
  return {
    pairedUnits: keep.size,
    droppedUnits: all.size - keep.size,
    pairedItems: new Set([...keep].map(keyItem)).size,
    repeats: repeats.length,
    baseline: base.label,
    rules: raw.map(({ units, ...r }) => ({
      ...r,
      samplesSaved: 1 - r.meanSamples / base.meanSamples,
      accuracyChange: r.accuracy - base.accuracy,
      accuracyDifference: differenceInterval(perItemDifferences(units, baseCorrect)),
    })),
  };
}

/**
 * The counts of a rule's paired units in one pass: outcomes, units with a full-budget vote and
 * those whose answer agrees with it, empty and unparseable samples, stop reasons (integers, exact
 * in any order).
 */
function unitCounts(units: readonly UnitRecord[]) {
  const c = {
    correct: 0,
    wrong: 0,
    noAnswer: 0,
    agreementUnits: 0,
    agreeing: 0,
    emptySamples: 0,
    unparseableSamples: 0,
  };
  const stopReasons: Record<string, number> = {};
  for (const u of units) {
    if (u.outcome === 'correct') c.correct++;
    else if (u.outcome === 'wrong') c.wrong++;
    else if (u.outcome === 'no-answer') c.noAnswer++;
    if (u.fullMajority !== null) {
      c.agreementUnits++;
      if (u.answer === u.fullMajority) c.agreeing++;
    }
    c.emptySamples += u.emptySamples;
    c.unparseableSamples += u.unparseableSamples;
    stopReasons[u.stopReason] = (stopReasons[u.stopReason] ?? 0) + 1;
  }
  return { ...c, stopReasons };
}

function correctByUnit(units: readonly UnitRecord[]): Map<number, number> {
  return new Map(units.map((u) => [unitKey(u), u.outcome === 'correct' ? 1 : 0]));
}

/** Per item (ascending index): mean over its units of (correct − baseline correct). */
function perItemDifferences(units: readonly UnitRecord[], base: ReadonlyMap<number, number>): number[] {
  const acc = new Map<number, [number, number]>();
  for (const u of units) {
    const a = acc.get(u.item) ?? [0, 0];
    a[0] += (u.outcome === 'correct' ? 1 : 0) - base.get(unitKey(u))!;
    a[1] += 1;
    acc.set(u.item, a);
  }
  return [...acc.keys()].sort((x, y) => x - y).map((i) => acc.get(i)![0] / acc.get(i)![1]);
}

/** {@link pairedSummary} of a {@link ReplayResult}. */
export function summarizeReplay(result: ReplayResult): PairedSummary {
  return pairedSummary(result.rules);
}

/**
 * Per-item scores over the paired units: for each rule, item → mean correctness over its paired
 * repeats (the s_i(a) of an archive, "Archives and stopping rules"), and the mean samples used (its cost).
 */
export function perItemScores(rules: ReadonlyArray<{ label: string; units: readonly UnitRecord[] }>): {
  items: number[];
  scores: number[][];
  costs: number[];
} {
  const keep = pairedKeys(rules);
  const items = [...new Set([...keep].map(keyItem))].sort((a, b) => a - b);
  const scores = rules.map((r) => {
    // group once: item → [correct, count] over the paired units (O(units), not O(items · units))
    const acc = new Map<number, [number, number]>();
    for (const u of r.units) {
      if (!keep.has(unitKey(u))) continue;
      const a = acc.get(u.item) ?? [0, 0];
      a[0] += u.outcome === 'correct' ? 1 : 0;
      a[1] += 1;
      acc.set(u.item, a);
    }
    return items.map((it) => acc.get(it)![0] / acc.get(it)![1]);
  });
  const costs = rules.map((r) => {
    const units = r.units.filter((u) => keep.has(unitKey(u)));
    return units.reduce((s, u) => s + u.samplesUsed, 0) / units.length;
  });
  return { items, scores, costs };
}

/**
 * The relative distance within which two paired figures are the same number: 2^-32 ≈ 2.3e-10. A
 * mean of R per-repeat means carries a relative rounding error below (R + 2)·2^-53 (R additions,
 * the divisions), so two equal figures differ by at most 2.3e-11 at the 10^5 repeats `compare`
 * allows, ten times below it; figures that truly differ do so by at least 1/(units · repeats),
 * above 2e-8 for 500 items at 10^5 repeats.
 */
export const FIGURE_TIE = 2 ** -32;

/**
 * The Pareto front of accuracy (higher is better) against mean samples (lower is better): the
 * indices, in input order, of the points that no other point dominates, where q dominates p when
 * q.accuracy >= p.accuracy and q.meanSamples <= p.meanSamples with at least one of the two
 * strict. Points with equal accuracy and equal mean samples do not dominate each other, so they
 * are on the front together or off it together. Figures within a relative 2^-32 of each other are
 * equal ({@link FIGURE_TIE}): both are means over repeats of per-repeat means, so two rules with
 * the same totals can differ in the last bits (188/232 correct read 0.810344827586207 for one
 * rule and 0.8103448275862069 for three others), while two figures that truly differ do so by at
 * least 1/(units · repeats).
 * Cost: O(n²) comparisons for n points (a comparison has a handful of rules).
 * @throws {ArgumentError} a figure that is not a finite number.
 * @example
 * ```ts
 * paretoFront([
 *   { accuracy: 0.9, meanSamples: 40 },
 *   { accuracy: 0.9, meanSamples: 8 },
 *   { accuracy: 0.8, meanSamples: 5 },
 *   { accuracy: 0.7, meanSamples: 6 },
 * ]); // [1, 2]: 0 costs more than 1 for the same accuracy, 3 is worse and dearer than 2
 * ```
 */
export function paretoFront(points: ReadonlyArray<{ accuracy: number; meanSamples: number }>): number[] {
  points.forEach((p, i) => {
    finiteNumber(`points[${i}].accuracy`, p.accuracy);
    finiteNumber(`points[${i}].meanSamples`, p.meanSamples);
  });
  const same = (a: number, b: number) => Math.abs(a - b) <= FIGURE_TIE * Math.max(Math.abs(a), Math.abs(b));
  const dominates = (q: (typeof points)[number], p: (typeof points)[number]): boolean => {
    const [sa, ss] = [same(q.accuracy, p.accuracy), same(q.meanSamples, p.meanSamples)];
    return (sa || q.accuracy > p.accuracy) && (ss || q.meanSamples < p.meanSamples) && !(sa && ss);
  };
  const front: number[] = [];
  points.forEach((p, i) => {
    if (!points.some((q) => dominates(q, p))) front.push(i);
  });
  return front;
}
