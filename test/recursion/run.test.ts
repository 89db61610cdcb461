/**
 * A paired run of the baseline and the three operators over four hand-written items (plus one
 * dropped for a transport failure), with outputs written by hand below: no model is called here.
 * The scores are computed by the code and checked against values derived by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { tQuantile975 } from '../../src/lab/pairedScoring.js';
import { runRecursion } from '../../src/recursion/run.js';
import { pearson, scoreRecursion, truncationCorrelation, type RecursionReport } from '../../src/recursion/scoring.js';
import { scriptedModel, type Reply } from './scripted.js';

const cut = (text: string) => ({ text, finish: 'length' as const });
const ans = (a: string) => `The answer is ${a}.`;

/**
 * Per item, the replies of each kind of call, taken in order: `direct` (a plain solve at the
 * provider's temperature: the baseline, GROW's first round, PRUNE's fallback), `grow` (a round with
 * the previous attempt), `decompose`, `sub`, `compose`, `branch` (temperature 0.7) and `finalize`
 * (the finalize-retry after a cut output).
 */
type Script = Partial<Record<'direct' | 'grow' | 'decompose' | 'sub' | 'compose' | 'branch' | 'finalize', Reply[]>>;
const ITEMS: Array<{ question: string; answer: string; script: Script }> = [
  {
    // A (gold x). cot: cut, empty (1 call). GROW: r1 cut → finalize x, r2 x: stable, correct (3 calls).
    // PRUNE: one line → direct y, wrong (2). BRANCH: cut→x, x, cut→'' (empty), y, x: x 3 votes, correct (7).
    question: 'QA: last letters of "Rex Max"?',
    answer: 'x',
    script: {
      direct: [cut(''), cut(''), ans('y')],
      grow: [ans('x')],
      decompose: ['1. What is asked?'],
      finalize: [ans('x'), ans('x'), ''],
      branch: [cut(''), ans('x'), cut(''), ans('y'), ans('x')],
    },
  },
  {
    // B (gold y). cot: one retryable transport error, then y, correct (1 call, 1 retry).
    // GROW: y, z, z: stable at round 3, wrong (3). PRUNE: 2 sub-questions, compose y, correct (4).
    // BRANCH: y y z y z → y, correct (5).
    question: 'QB: last letters of "Amy Guy"?',
    answer: 'y',
    script: {
      direct: [{ fail: 'retryable' }, ans('y'), ans('y')],
      grow: [ans('z'), ans('z')],
      decompose: ['1. first\n2. second'],
      sub: [ans('p'), ans('q')],
      compose: [ans('y')],
      branch: [ans('y'), ans('y'), ans('z'), ans('y'), ans('z')],
    },
  },
  {
    // C (gold z). cot: w, wrong (1). GROW: w, w: stable, wrong (2). PRUNE: 3 sub-questions, compose z,
    // correct (5). BRANCH: w z z '' z → z (the blank sample, finish stop, is empty, not cut), correct (5).
    question: 'QC: last letters of "Liz Oz"?',
    answer: 'z',
    script: {
      direct: [ans('w'), ans('w')],
      grow: [ans('w')],
      decompose: ['1. a\n2. b\n3. c'],
      sub: [ans('a'), ans('b'), ans('c')],
      compose: [ans('z')],
      branch: [ans('w'), ans('z'), ans('z'), '', ans('z')],
    },
  },
  {
    // D (gold v). cot: cut with text but no answer: empty (1). GROW: r1 cut → finalize v, r2 v: correct (3).
    // PRUNE: no numbered line → direct cut → finalize v, correct (3).
    // BRANCH: v, cut → '' (empty), v, u, u: v and u 2 votes each, v seen first, correct (6).
    question: 'QD: last letters of "Lev Bev"?',
    answer: 'v',
    script: {
      direct: [cut('Counting the letters'), cut('Counting'), cut('')],
      grow: [ans('v')],
      decompose: ['I would solve it directly.'],
      finalize: [ans('v'), ans('v'), ''],
      branch: [ans('v'), cut(''), ans('v'), ans('u'), ans('u')],
    },
  },
  {
    // E: BRANCH's first call fails for good (not retryable): unresolved, the item is dropped for all.
    question: 'QE: last letters of "Abe Eve"?',
    answer: 'ee',
    script: {
      direct: [ans('ee'), ans('ee'), ans('ee')],
      grow: [ans('ee')],
      decompose: ['1. x'],
      branch: [{ fail: 'fatal' }],
    },
  },
];

function kindOf(texts: string[], temperature: number | undefined): keyof Script {
  if (texts.length > 1) return 'finalize';
  const t = texts[0]!;
  if (t.includes('Do not solve the problem yet')) return 'decompose';
  if (t.includes('Now answer only this sub-question')) return 'sub';
  if (t.includes('Sub-questions answered so far')) return 'compose';
  if (t.includes('<attempt>')) return 'grow';
  return temperature === 0.7 ? 'branch' : 'direct';
}

function itemModel() {
  const queues = ITEMS.map((it) => ({ ...Object.fromEntries(Object.entries(it.script).map(([k, v]) => [k, [...v]])) }));
  return scriptedModel(({ texts, temperature }) => {
    const item = ITEMS.findIndex((it) => texts[0]!.includes(it.question));
    const kind = kindOf(texts, temperature);
    const next = (queues[item] as Record<string, Reply[] | undefined>)[kind]?.shift();
    if (next === undefined) throw new Error(`item ${item}: no ${kind} reply left`);
    return next;
  });
}

describe('a paired run of the baseline and GROW, PRUNE, BRANCH', () => {
  it('paired scores, truncation recovery and points per extra call, as derived by hand', async () => {
    const model = itemModel();
    const run = await runRecursion(model, ITEMS, { retryDelayMs: 0 });
    expect(run.methods.map((m) => m.label)).toEqual(['cot', 'grow', 'prune', 'branch']);
    expect(run.methods[3]!.records[4]!.unresolved).toBe(true);
    const report = scoreRecursion(run);
    expect(report).toMatchObject({ pairedItems: 4, droppedItems: 1, baseline: 'cot' });
    // cot empty on A and D: 2/4
    expect(report.baselineEmptyRate).toBe(0.5);
    const [cot, g, p, b] = report.methods;

    // cot: B correct → 1/4; calls 1 each; one retry over 4 items
    expect(cot).toMatchObject({ accuracy: 0.25, accuracyChange: 0, meanCalls: 1, emptyRate: 0.5, meanRetries: 0.25 });
    expect(cot!.pointsPerExtraCall).toBeNull();
    // cot truncated on A and D
    expect(cot!.truncatedRate).toBe(0.5);

    // GROW: A, D correct → 0.5, +0.25; calls 3+3+2+3 = 11 → 2.75, extra 1.75; 25/1.75 points per call.
    // Recovery: A and D (baseline-empty) answered and correct → +50 points; B lost → −25 points.
    expect(g).toMatchObject({ accuracy: 0.5, accuracyChange: 0.25, meanCalls: 2.75, extraCalls: 1.75, emptyRate: 0 });
    expect(g).toMatchObject({
      recovered: 2,
      recoveredCorrect: 2,
      gainOnBaselineEmpty: 50,
      gainOnBaselineAnswered: -25,
    });
    expect(g!.pointsPerExtraCall).toBeCloseTo(25 / 1.75, 12);
    expect(g!.truncatedRate).toBe(0.5);
    // per-item differences d = (1, −1, 0, 1): mean 1/4, sample variance ((3/4)² + (5/4)² + (1/4)² + (3/4)²)/3
    // = 2.75/3, half-width t_{0.975,3}·sqrt(2.75/3/4) with t_{0.975,3} = 3.182446 (tabulated 3.182)
    const half = tQuantile975(3) * Math.sqrt(2.75 / 3 / 4);
    expect(tQuantile975(3)).toBeCloseTo(3.182446, 5);
    expect(g!.accuracyDifference!.mean).toBe(0.25);
    expect(g!.accuracyDifference!.low).toBeCloseTo(0.25 - half, 12);
    expect(g!.accuracyDifference!.high).toBeCloseTo(0.25 + half, 12);

    // PRUNE: B, C, D correct → 0.75, +0.5; calls 2+4+5+3 = 14 → 3.5, extra 2.5; 50/2.5 = 20 points per call.
    // Recovery: A answered wrong, D correct → recovered 2, recoveredCorrect 1: +25; C gained: +25.
    expect(p).toMatchObject({ accuracy: 0.75, accuracyChange: 0.5, meanCalls: 3.5, extraCalls: 2.5 });
    expect(p).toMatchObject({ recovered: 2, recoveredCorrect: 1, gainOnBaselineEmpty: 25, gainOnBaselineAnswered: 25 });
    expect(p!.pointsPerExtraCall).toBeCloseTo(20, 12);
    expect(p!.truncatedRate).toBe(0.25);

    // BRANCH: all correct → 1, +0.75; calls 7+5+5+6 = 23 → 5.75, extra 4.75; 75/4.75 points per call.
    // Recovery: A and D correct → +50; C gained → +25.
    expect(b).toMatchObject({ accuracy: 1, accuracyChange: 0.75, meanCalls: 5.75, extraCalls: 4.75, emptyRate: 0 });
    expect(b).toMatchObject({ recovered: 2, recoveredCorrect: 2, gainOnBaselineEmpty: 50, gainOnBaselineAnswered: 25 });
    expect(b!.pointsPerExtraCall).toBeCloseTo(75 / 4.75, 12);
    // cut on A and D (C's blank sample finished with 'stop')
    expect(b!.truncatedRate).toBe(0.5);
  });

  it('across cells: Pearson r of the baseline empty rate against each operator gain', () => {
    // x = (0, 1, 2), y = (0, 2, 1): means 1, 1; Σ(x−1)(y−1) = 1, Σ(x−1)² = 2, Σ(y−1)² = 2 → r = 1/2
    expect(pearson([0, 1, 2], [0, 2, 1])).toBeCloseTo(0.5, 15);
    expect(pearson([0, 1], [0, 1])).toBeNull();
    const cell = (empty: number, gain: number) =>
      ({
        baselineEmptyRate: empty,
        methods: [{ label: 'cot' }, { label: 'branch', accuracyChange: gain }],
      }) as unknown as RecursionReport;
    expect(truncationCorrelation([cell(0, 0), cell(0.5, 0.02), cell(1, 0.01)])).toEqual([
      { label: 'branch', r: expect.closeTo(0.5, 15) as number, cells: 3 },
    ]);
  });
});
