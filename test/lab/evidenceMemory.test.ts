import { createHash } from 'node:crypto';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { EvidenceMemory, contentHash, reweightEvidence, withEvidenceMemory } from '../../src/lab/evidenceMemory.js';
import { betaTailInt } from '../../src/stopping/betaTail.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { expectCloseInEps } from '../util/compare.js';

const add = (
  m: EvidenceMemory,
  content: string,
  verdict: 'used' | 'rejected',
  outcome: 'correct' | 'incorrect',
  n = 1,
  queryType = 'who',
) => {
  for (let i = 0; i < n; i++)
    m.record({
      content,
      runId: `r${i}`,
      queryType,
      verdict,
      outcome,
      reason: verdict === 'rejected' ? 'wrong film' : 'names the author',
    });
};

describe('evidence memory (Reasoning Graphs)', () => {
  it('keys items by the sha256 of their content and keeps the history', () => {
    const m = new EvidenceMemory();
    const h = m.record({ content: 'passage A', runId: 'r1', queryType: 'who', verdict: 'used', outcome: 'correct' });
    expect(h).toBe(createHash('sha256').update('passage A').digest('hex'));
    expect(contentHash('passage A')).toBe(h);
    m.record({
      hash: h,
      runId: 'r2',
      queryType: 'who',
      verdict: 'rejected',
      outcome: 'incorrect',
      reason: 'off topic',
    });
    expect(m.history(h).map((v) => v.runId)).toEqual(['r1', 'r2']);
    expect(m.history(contentHash('never seen'))).toEqual([]);
  });

  it('profile: verdict distribution and reliability, with the correct-outcome filter', () => {
    const m = new EvidenceMemory();
    add(m, 'P', 'rejected', 'correct', 3);
    add(m, 'P', 'used', 'correct', 1);
    add(m, 'P', 'used', 'incorrect', 4); // from wrong runs: filtered out by default
    const h = contentHash('P');
    const p = m.profile(h);
    expect([p.used, p.rejected, p.filteredOut]).toEqual([1, 3, 4]);
    expect(p.distribution).toEqual({ used: 0.25, rejected: 0.75 });
    expect(p.reliability).toBe(2 / 6); // (used + 1)/(total + 2)
    expect(p.topReasons[0]).toBe('wrong film');
    expect(m.profile(h, { correctOnly: false }).used).toBe(5);
    expect(m.profile(contentHash('unknown')).reliability).toBe(0.5);
  });

  it('planner: excludes only when the rejection rate is significant under the Beta posterior', () => {
    const m = new EvidenceMemory();
    add(m, 'twice', 'rejected', 'correct', 2);
    add(m, 'five', 'rejected', 'correct', 5);
    // 2 of 2: P(r > 1/2) = 1 − 2^−3 = 7/8 < 0.95 → keep; 5 of 5: 1 − 2^−6 = 63/64 → exclude
    const two = m.shouldExclude(contentHash('twice'), 'who');
    expectCloseInEps(two.probability, 7 / 8, 8);
    expect(two.exclude).toBe(false);
    const five = m.shouldExclude(contentHash('five'), 'who');
    expectCloseInEps(five.probability, 63 / 64, 8);
    expect(five.exclude).toBe(true);
    // per query type: the same item is not excluded for another type
    expect(m.shouldExclude(contentHash('five'), 'when').exclude).toBe(false);
    expect(() => m.shouldExclude(contentHash('five'), 'who', { level: 1 })).toThrow(/^level = 1/);
  });

  fcTest.prop([fc.nat({ max: 40 }), fc.nat({ max: 40 }), fc.double({ min: 0.05, max: 0.95, noNaN: true })])(
    'planner decision = the Beta(1 + rejected, 1 + used) tail against the confidence',
    (rej, used, level) => {
      const m = new EvidenceMemory();
      add(m, 'x', 'rejected', 'correct', rej);
      add(m, 'x', 'used', 'correct', used);
      const d = m.shouldExclude(contentHash('x'), 'who', { level, confidence: 0.9 });
      const p = betaTailInt(1 + rej, 1 + used, level).above;
      expect(d.probability).toBe(p);
      expect(d.exclude).toBe(p >= 0.9);
    },
  );

  it('bad verdicts are refused and nothing is stored', () => {
    const m = new EvidenceMemory();
    expect(() => m.record({ runId: 'r', queryType: 'q', verdict: 'used', outcome: 'correct' })).toThrow(
      /^hash = undefined/,
    );
    const both = { content: 'c', hash: contentHash('other'), runId: 'r', queryType: 'q' };
    expect(() => m.record({ ...both, verdict: 'used', outcome: 'correct' })).toThrow(/give content or hash, not both/);
    expect(() =>
      m.record({ content: 'c', runId: 'r', queryType: 'q', verdict: 'maybe' as never, outcome: 'correct' }),
    ).toThrow(/^verdict = "maybe"/);
    expect(() => m.record({ content: 'c', runId: '', queryType: 'q', verdict: 'used', outcome: 'correct' })).toThrow(
      /^runId = ""/,
    );
    expect(m.items).toEqual([]);
    expect(() =>
      EvidenceMemory.fromJSON({
        [contentHash('c')]: [{ runId: 'r', queryType: 'q', verdict: 'x', outcome: 'correct' }],
      }),
    ).toThrow(/\[0\]: verdict = "x"/);
  });

  it('save and load through a file (atomic write)', async () => {
    const { mkdtemp, readdir, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { saveEvidenceMemory, loadEvidenceMemory } = await import('../../src/lab/evidenceMemory.js');
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-mem-'));
    const m = new EvidenceMemory();
    add(m, 'a', 'used', 'correct', 3);
    await saveEvidenceMemory(join(dir, 'mem.json'), m);
    expect(await readdir(dir)).toEqual(['mem.json']);
    expect((await loadEvidenceMemory(join(dir, 'mem.json'))).toJSON()).toEqual(m.toJSON());
    await writeFile(join(dir, 'bad.json'), '{');
    await expect(loadEvidenceMemory(join(dir, 'bad.json'))).rejects.toThrow(/is not valid JSON/);
  });

  it('JSON round trip keeps every verdict', () => {
    const m = new EvidenceMemory();
    add(m, 'a', 'used', 'correct', 2);
    add(m, 'b', 'rejected', 'incorrect', 1);
    const back = EvidenceMemory.fromJSON(JSON.parse(JSON.stringify(m.toJSON())));
    expect(back.toJSON()).toEqual(m.toJSON());
  });
});

describe('feeding an evidence distribution', () => {
  it('reweights by reliability and zeroes excluded items', () => {
    const m = new EvidenceMemory();
    add(m, 'e1', 'rejected', 'correct', 6); // significant → excluded
    add(m, 'e2', 'used', 'correct', 2); // reliability 3/4
    const r = reweightEvidence(
      [
        { id: 'e1', p: 0.5 },
        { id: 'e2', p: 0.25 },
        { id: 'e3', p: 0.25 }, // unknown: reliability 1/2
      ],
      m,
      { queryType: 'who' },
    );
    expect(r.excluded).toEqual(['e1']);
    // weights 0, 0.25·3/4, 0.25·1/2 → normalised 0.6, 0.4
    expectCloseInEps(r.distribution[1]!.p, 0.6, 4);
    expectCloseInEps(r.distribution[2]!.p, 0.4, 4);
    expect(r.distribution[0]!.p).toBe(0);
  });

  it('falls back rather than leaving no evidence', () => {
    const m = new EvidenceMemory();
    add(m, 'only', 'rejected', 'correct', 9);
    const r = reweightEvidence([{ id: 'only', p: 1 }], m, { queryType: 'who' });
    expect(r.fellBack).toBe(true);
    expect(r.distribution[0]!.p).toBe(1);
  });

  it('adapts a real system: the closed-form system with a memory-weighted P(·|θ)', () => {
    const base = closedFormSystem();
    const m = new EvidenceMemory();
    const ids = base.evidenceAt(base.theta0!).map((e) => e.id);
    add(m, `passage ${ids[0]}`, 'rejected', 'correct', 8);
    const sys = withEvidenceMemory(base, m, { queryType: 'who', contentOf: (id) => `passage ${id}` });
    const dist = sys.evidenceAt(base.theta0!);
    expect(dist.find((e) => e.id === ids[0])!.p).toBe(0);
    expect(Array.from(sys.consolidate(base.theta0!))).toEqual(Array.from(base.consolidate(base.theta0!)));
  });
});

describe('with the reference graph system (src/graph)', () => {
  it('an item rejected significantly often for the query type is never sampled by Algorithm 1', async () => {
    const { referenceGraphSystem } = await import('../../src/graph/system.js');
    const { runRecursive } = await import('../../src/ordergap/algorithm1.js');
    const { poolContentOf } = await import('../../src/lab/evidenceMemory.js');
    const base = referenceGraphSystem();
    const pool = base.scenario.pool;
    const victim = pool.items[0]!;
    const m = new EvidenceMemory();
    add(m, victim.text ?? victim.id, 'rejected', 'correct', 8);
    const sys = withEvidenceMemory(base, m, { queryType: 'who', contentOf: poolContentOf(pool) });
    const run = runRecursive(sys, { epsilon: 1e-9, window: 3, maxSteps: 40, seed: 3 });
    expect(run.steps.some((s) => s.evidence === victim.id)).toBe(false);
    const plain = runRecursive(base, { epsilon: 1e-9, window: 3, maxSteps: 40, seed: 3 });
    expect(plain.steps.some((s) => s.evidence === victim.id)).toBe(true); // the base system does draw it
  });
});
