import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/lab/admission.js';
import { ConfigurationArchive, archiveFromReplay, type ArchiveEntry } from '../../src/lab/archive.js';
import { replaySamples } from '../../src/lab/replay.js';
import { loadSamples } from '../../src/lab/samples.js';

const spec = { name: 'beta', params: { threshold: 0.95 } };
const entry = (id: string, scores: number[], meanSamples = 1): ArchiveEntry => ({
  id,
  spec,
  scores,
  costs: { meanSamples },
});

/** An archive of 1..8 entries over N tasks with scores in [0, 1] and costs. */
const archives = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.array(
    fc.record({
      scores: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
      cost: fc.double({ min: 0, max: 50, noNaN: true }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
);
const build = (rows: Array<{ scores: number[]; cost: number }>): ConfigurationArchive => {
  const A = new ConfigurationArchive(
    rows[0]!.scores.map((_s, i) => `t${i}`),
    'law',
  );
  rows.forEach((r, i) => A.add(entry(`a${i}`, r.scores, r.cost), 'law'));
  return A;
};

describe('archive (Archives and stopping rules)', () => {
  it('the whole-chain maximum and the per-task oracle of the seed example', () => {
    // "Archives and stopping rules", Example "Whole-chain maximum and per-task oracle": (1, 0) and (0, 1)
    const A = new ConfigurationArchive(['t1', 't2'], 'law');
    A.add(entry('a', [1, 0]), 'law');
    A.add(entry('b', [0, 1]), 'law');
    expect(A.mean('a')).toBe(0.5);
    expect(A.envelope()).toEqual({ value: 0.5, argmax: ['a', 'b'] });
    expect(A.perTaskOracle()).toBe(1);
  });

  fcTest.prop([archives, fc.nat()])('Lemma 3: the envelope dominates every member (the incumbent)', (rows, pick) => {
    const A = build(rows);
    const env = A.envelope()!;
    const incumbent = `a${pick % rows.length}`;
    expect(env.value).toBeGreaterThanOrEqual(A.mean(incumbent));
    for (const id of env.argmax) expect(A.mean(id)).toBe(env.value); // attained by an archived entry
    // oracle >= envelope in exact arithmetic; both are sums of N terms in [0, 1] divided by N, each
    // carrying at most N·eps of rounding, so allow 2·N·eps
    expect(A.perTaskOracle()!).toBeGreaterThanOrEqual(env.value - 2 * A.tasks.length * Number.EPSILON);
  });

  fcTest.prop([archives, fc.double({ min: 0, max: 1, noNaN: true })])(
    'Theorem 4: the δ-selection satisfies 0 <= J(a*) − J(â) <= δ, and â is the cheapest such entry',
    (rows, delta) => {
      const A = build(rows);
      const r = A.select(delta, 'meanSamples')!;
      expect(r.gap).toBeGreaterThanOrEqual(0);
      expect(r.gap).toBeLessThanOrEqual(delta);
      expect(r.boundHolds).toBe(true);
      expect(r.best.J).toBe(A.envelope()!.value);
      const cost = (id: string): number => A.entries.find((e) => e.id === id)!.costs.meanSamples!;
      for (const e of A.entries) {
        if (r.best.J - A.mean(e.id) <= delta) expect(cost(r.chosen.id)).toBeLessThanOrEqual(cost(e.id));
      }
    },
  );

  fcTest.prop([archives, fc.double({ min: 0, max: 50, noNaN: true })])(
    'eligibility restricts the choice; an empty eligible set has no envelope',
    (rows, limit) => {
      const A = build(rows);
      const el = A.eligible({ meanSamples: limit });
      expect(el.every((e) => e.costs.meanSamples! <= limit)).toBe(true);
      const env = A.envelope({ meanSamples: limit });
      if (el.length === 0) expect(env).toBeNull();
      else {
        expect(env!.value).toBeLessThanOrEqual(A.envelope()!.value);
        expect(el.map((e) => e.id)).toEqual(expect.arrayContaining(env!.argmax));
      }
    },
  );

  it('refuses another evaluation law, duplicate ids and malformed scores', () => {
    const A = new ConfigurationArchive(['t1', 't2'], 'law-1');
    expect(() => A.add(entry('a', [1, 0]), 'law-2')).toThrow(
      /^law = "law-2": differs from the archive's evaluation law/,
    );
    A.add(entry('a', [1, 0]), 'law-1');
    expect(() => A.add(entry('a', [1, 0]), 'law-1')).toThrow(/^entry.id = "a": is already archived/);
    expect(() => A.add(entry('b', [1]), 'law-1')).toThrow(/must hold one score per task \(N = 2\)/);
    expect(() => A.add(entry('c', [1, NaN]), 'law-1')).toThrow(/^entry.scores\[1\] = NaN/);
    expect(() => A.select(-0.1, 'meanSamples')).toThrow(/^delta = -0.1/);
    expect(() => new ConfigurationArchive([], 'x')).toThrow(/^tasks/);
    expect(A.entries.map((e) => e.id)).toEqual(['a']);
  });
});

describe('budget-preserving admission', () => {
  fcTest.prop([fc.nat({ max: 1000 }), fc.array(fc.nat({ max: 400 }), { maxLength: 30 })])(
    'never overspends: remaining >= 0, admitted total <= initial, refusals change nothing',
    (budget, costs) => {
      const L = new BudgetLedger(budget);
      let admittedTotal = 0;
      costs.forEach((c, i) => {
        const before = L.remaining;
        const d = L.admit(`c${i}`, c);
        expect(d.admitted).toBe(c <= before);
        if (d.admitted) admittedTotal += c;
        else expect(L.remaining).toBe(before);
        expect(L.remaining).toBeGreaterThanOrEqual(0);
      });
      expect(admittedTotal).toBe(L.spent);
      expect(admittedTotal).toBeLessThanOrEqual(budget);
    },
  );

  it('rejects non-integer or negative costs without logging', () => {
    const L = new BudgetLedger(10);
    expect(() => L.admit('x', 0.5)).toThrow(/^cost of x = 0.5: must be an integer/);
    expect(() => L.admit('x', -1)).toThrow(/^cost of x = -1/);
    expect(L.decisions.length).toBe(0);
    expect(() => new BudgetLedger(-1)).toThrow(/^budget = -1/);
  });

  it('archive admission: only admitted entries are archived', () => {
    const A = new ConfigurationArchive(['t'], 'law', 10);
    expect(A.admit(entry('a', [1]), 'law', 7).admitted).toBe(true);
    expect(A.admit(entry('b', [1]), 'law', 4).admitted).toBe(false);
    expect(A.admit(entry('c', [1]), 'law', 3).admitted).toBe(true);
    expect(A.entries.map((e) => e.id)).toEqual(['a', 'c']);
    expect(A.ledger!.remaining).toBe(0);
  });
});

describe('archive from a replay of the example file', () => {
  it('tasks are the paired items; δ-selection and the oracle are reported apart', async () => {
    const samples = await loadSamples(new URL('../../examples/samples/synthetic.jsonl', import.meta.url).pathname);
    const r = replaySamples(samples, {
      rules: [
        { name: 'order-gap', params: { epsilon: 0.05, window: 3 } },
        { name: 'beta', params: { threshold: 0.95 } },
      ],
      repeats: 2,
      seed: 0,
    });
    const { archive } = archiveFromReplay(r);
    expect(archive.tasks.length).toBe(58); // two items carry a transport failure the full budget meets
    const sel = archive.select(0.02, 'meanSamples')!;
    expect(sel.boundHolds).toBe(true);
    expect(archive.perTaskOracle()!).toBeGreaterThanOrEqual(archive.envelope()!.value);
    // with a budget of 20 mean samples the full-budget baseline is not eligible
    expect(archive.eligible({ meanSamples: 20 }).map((e) => e.id)).not.toContain('fixed-budget(budget=40)');
    const withBudget = archiveFromReplay(r, 2000);
    expect(withBudget.admissions.reduce((s, d) => s + (d.admitted ? d.cost : 0), 0)).toBeLessThanOrEqual(2000);
    expect(withBudget.admissions[0]!.admitted).toBe(false); // the baseline alone costs 58·2·40 = 4640 samples
  });
});
