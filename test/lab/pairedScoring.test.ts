import { describe, expect, it } from 'vitest';
import { differenceInterval, pairedSummary, tQuantile975 } from '../../src/lab/pairedScoring.js';
import type { UnitRecord } from '../../src/lab/replay.js';

function unit(item: number, repeat: number, answer: string | null, gold: string, full: string | null): UnitRecord {
  return {
    item,
    line: item + 1,
    repeat,
    samplesUsed: 3,
    stopReason: 'criterion',
    detail: '',
    answer,
    gold,
    outcome: answer === null ? 'no-answer' : answer === gold ? 'correct' : 'wrong',
    emptySamples: 0,
    unparseableSamples: 0,
    fullMajority: full,
  };
}

describe('paired scoring', () => {
  it('t quantiles against tabulated values (six decimals)', () => {
    // 0.975 quantiles of Student's t from standard tables (e.g. Abramowitz & Stegun, Table 26.10)
    const table: Array<[number, number]> = [
      [1, 12.706205],
      [2, 4.302653],
      [3, 3.182446],
      [5, 2.570582],
      [10, 2.228139],
      [30, 2.042272],
      [120, 1.97993],
    ];
    for (const [nu, t] of table) expect(Math.abs(tQuantile975(nu) - t), `ν = ${nu}`).toBeLessThan(1e-6);
  });

  it('the interval is mean ± t·sd/√m over per-item differences', () => {
    // d = (1, 0, 0, 1): mean 1/2, sample variance 1/3, m = 4
    const ci = differenceInterval([1, 0, 0, 1])!;
    const half = tQuantile975(3) * Math.sqrt(1 / 3 / 4);
    expect(ci.mean).toBe(0.5);
    expect(ci.low).toBeCloseTo(0.5 - half, 14);
    expect(ci.high).toBeCloseTo(0.5 + half, 14);
    expect(differenceInterval([0.3])).toBeNull();
    expect(differenceInterval([0, 0, 0])).toMatchObject({ low: 0, high: 0 });
  });

  it('agreement leaves out units whose full vote has no answer, so the full budget agrees with itself', () => {
    // item 0: full vote 'a' (gold a); item 1: every sample empty, the full vote has no answer
    const base = [unit(0, 0, 'a', 'a', 'a'), unit(1, 0, null, 'b', null), unit(2, 0, 'c', 'c', 'c')];
    const early = [unit(0, 0, 'x', 'a', 'a'), unit(1, 0, null, 'b', null), unit(2, 0, 'c', 'c', 'c')];
    const s = pairedSummary([
      { label: 'full', spec: { name: 'fixed-budget', params: {} }, units: base },
      { label: 'early', spec: { name: 'x', params: {} }, units: early },
    ]);
    expect(s.rules[0]).toMatchObject({ agreement: 1, agreementUnits: 2, falseStopRate: 0 });
    expect(s.rules[1]).toMatchObject({ agreement: 0.5, agreementUnits: 2, falseStopRate: 0.5 });
    // per-item differences (−1, 0, 0): mean −1/3
    expect(s.rules[1]!.accuracyDifference!.mean).toBeCloseTo(-1 / 3, 15);
    expect(s.rules[0]!.accuracyDifference).toMatchObject({ mean: 0, low: 0, high: 0, items: 3 });
  });

  it('no unit whose full vote has an answer (every sample blank): agreement and false stops are null, not 0 and 100%', () => {
    const blank = [unit(0, 0, null, 'a', null), unit(1, 0, null, 'b', null)];
    const s = pairedSummary([
      { label: 'full', spec: { name: 'fixed-budget', params: {} }, units: blank },
      { label: 'early', spec: { name: 'x', params: {} }, units: blank },
    ]);
    for (const r of s.rules) expect(r).toMatchObject({ agreement: null, agreementUnits: 0, falseStopRate: null });
  });

  it('differences are averaged over an item’s repeats before the interval (clustered by item)', () => {
    // two items × two repeats; the early rule loses item 0 in one repeat only: d = (−1/2, 0)
    const base = [
      unit(0, 0, 'a', 'a', 'a'),
      unit(0, 1, 'a', 'a', 'a'),
      unit(1, 0, 'b', 'b', 'b'),
      unit(1, 1, 'b', 'b', 'b'),
    ];
    const early = [
      unit(0, 0, 'z', 'a', 'a'),
      unit(0, 1, 'a', 'a', 'a'),
      unit(1, 0, 'b', 'b', 'b'),
      unit(1, 1, 'b', 'b', 'b'),
    ];
    const s = pairedSummary([
      { label: 'full', spec: { name: 'fixed-budget', params: {} }, units: base },
      { label: 'early', spec: { name: 'x', params: {} }, units: early },
    ]);
    const ci = s.rules[1]!.accuracyDifference!;
    expect(ci.items).toBe(2);
    expect(ci.mean).toBe(-0.25);
    // sd of (−1/2, 0) is √(1/8); half-width t_1 · √(1/8)/√2
    expect(ci.high - ci.mean).toBeCloseTo(tQuantile975(1) * Math.sqrt(1 / 8 / 2), 12);
  });
});
