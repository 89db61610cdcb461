import { describe, expect, it } from 'vitest';
import { binomialUpperQuantile, falseStopTrial, SYNTHETIC_DISTRIBUTIONS } from '../../src/lab/syntheticStreams.js';
import { MMC_GRID, mmcLogEValue, MmcRule } from '../../src/stopping/mmcRule.js';
import { createRule } from '../../src/stopping/registry.js';
import { driveAnswers as drive } from './driveRule.js';

describe('the MMC mixture e-value', () => {
  it("equals the authors' BernoulliMixtureEProcess (plurality_stopping_rule_beta.py, c5b8782) after s ones and f zeros", () => {
    // python: e = BernoulliMixtureEProcess(*make_trunc_beta_grid()); s × e.update(1); f × e.update(0); e.log_e
    const code: Array<[number, number, number]> = [
      [1, 0, 0.5774949465899019],
      [4, 0, 2.4501081974394583],
      [5, 0, 3.1017484954385948],
      [1, 1, -1.2082673335523888],
      [2, 2, -1.48996785749994],
      [3, 1, -0.47584374085763725],
      [15, 0, 9.848540072947685],
      [15, 15, -2.411740063445535],
      [0, 3, -2.2805008994219516],
      [40, 10, 7.611922087231932],
    ];
    // both sides sum the same 41 terms in the same order; their logs are at most |s log q| ≈ 40 in
    // size and each carries a few ulps from pow and log, so 1e-13 absolute covers the rounding
    for (const [s, f, want] of code) expect(Math.abs(mmcLogEValue(s, f) - want), `(${s}, ${f})`).toBeLessThan(1e-13);
    expect(Math.abs(mmcLogEValue(0, 0))).toBeLessThan(1e-15);
  });

  it('is the mixture of likelihood ratios written out in plain doubles where those do not overflow', () => {
    const { size, low, high } = MMC_GRID;
    const q = Array.from({ length: size }, (_, k) => low + ((high - low) * k) / (size - 1));
    const raw = q.map((x) => 1 / Math.sqrt(x * (1 - x)));
    const z = raw.reduce((a, b) => a + b, 0);
    for (const [s, f] of [
      [0, 1],
      [3, 2],
      [10, 0],
      [7, 9],
    ] as Array<[number, number]>) {
      let e = 0;
      for (let k = 0; k < size; k++) e += (raw[k]! / z) * (2 * q[k]!) ** s * (2 * (1 - q[k]!)) ** f;
      expect(Math.exp(mmcLogEValue(s, f))).toBeCloseTo(e, 12);
    }
  });

  it('stays finite at a million updates, where the plain mixture overflows or underflows', () => {
    // s = 10^6 ones: the term of the largest grid point q = 0.9999 dominates by e^(10^6·log(q_40/q_39))
    const { size, low, high } = MMC_GRID;
    const q40 = high;
    const q39 = low + ((high - low) * (size - 2)) / (size - 1);
    expect(1e6 * Math.log(q40 / q39)).toBeGreaterThan(100);
    const raw = (x: number) => 1 / Math.sqrt(x * (1 - x));
    let z = 0;
    for (let k = 0; k < size; k++) z += raw(low + ((high - low) * k) / (size - 1));
    const dominant = 1e6 * Math.log(2) + Math.log(raw(q40) / z) + 1e6 * Math.log(q40);
    expect(mmcLogEValue(1e6, 0)).toBeCloseTo(dominant, 6);
    expect(Number.isFinite(mmcLogEValue(1e6, 1e6))).toBe(true);
    expect(mmcLogEValue(1e6, 1e6)).toBeLessThan(0);
    expect(Number.isFinite(mmcLogEValue(0, 1e6))).toBe(true);
  });
});

describe('the MMC rule', () => {
  it('stops after six unanimous answers: the first cannot be bet on, five ones give E = 22.2 >= 20 (four: 11.6)', () => {
    expect(Math.exp(mmcLogEValue(5, 0))).toBeGreaterThan(20);
    expect(Math.exp(mmcLogEValue(4, 0))).toBeLessThan(20);
    const r = new MmcRule();
    expect(drive(r, Array(10).fill('a'))).toEqual({ t: 6, reason: 'criterion' });
    // both processes counted the five votes after the first for the leader
    expect(r.processes.pair.updates).toBe(5);
    expect(r.processes.other.updates).toBe(5);
  });

  it('counts the pair (leader vs runner-up) and the other process (leader vs outside the contenders) as the code does', () => {
    // contenders M = 2, so that a third answer falls outside the set; δ tiny so that nothing stops
    const r = new MmcRule({ contenders: 2, delta: 1e-9 });
    const votes = ['a', 'a', 'b', 'c', 'b', 'b'];
    const expected: Array<[[number, number], [number, number]]> = [
      // pair (s, f), other (s, f) after each vote
      [
        [0, 0],
        [0, 0],
      ], // nothing before it: no leader, no update
      [
        [1, 0],
        [1, 0],
      ], // leader a; the runner-up slot is an answer not seen yet
      [
        [1, 1],
        [1, 0],
      ], // b is new: the runner-up slot (pair 0); inside the contenders (other skips)
      [
        [1, 1],
        [1, 1],
      ], // contenders {a, b}: c is new and outside (other 0), not the runner-up
      [
        [1, 2],
        [1, 1],
      ], // b and c tie at 1: b sorts first, so b is the runner-up (pair 0)
      [
        [1, 3],
        [1, 1],
      ], // a and b tie at 2: a sorts first and leads, b is the runner-up (pair 0)
    ];
    votes.forEach((answer, i) => {
      r.observe({ t: i + 1, answer });
      const [[ps, pf], [os, of]] = expected[i]!;
      expect(r.processes.pair, `after vote ${i + 1}`).toEqual({ logE: mmcLogEValue(ps, pf), updates: ps + pf });
      expect(r.processes.other, `after vote ${i + 1}`).toEqual({ logE: mmcLogEValue(os, of), updates: os + of });
    });
  });

  it('an empty or unparseable sample is no vote', () => {
    const r = new MmcRule();
    expect(drive(r, ['a', null, 'a', null, 'a', 'a', null, 'a', 'a'])).toEqual({ t: 9, reason: 'criterion' });
  });

  it('leaderMatch never changes a decision with at most 2 minimum updates: the processes grow only on votes for the leader', () => {
    // every sequence of 6 votes over {a, b, c, empty}: the stop step is the same with and without it
    const alphabet = ['a', 'b', 'c', null];
    for (const delta of [0.6, 0.1])
      for (const min of [0, 2]) {
        const p = { delta, minPairUpdates: min, minOtherUpdates: min };
        let stops = 0;
        for (let m = 0; m < 4 ** 6; m++) {
          const seq = Array.from({ length: 6 }, (_, i) => alphabet[Math.floor(m / 4 ** i) % 4]!);
          const on = drive(new MmcRule(p), seq);
          expect(on, seq.join(',')).toEqual(drive(new MmcRule({ ...p, leaderMatch: false }), seq));
          if (on !== null) stops++;
        }
        expect(stops).toBeGreaterThan(0);
      }
  });

  it('abstains at N_max = 32 (reason budget) and starts over after reset', () => {
    const r = createRule({ name: 'mmc', params: {} }) as MmcRule;
    // the constructor defaults of PluralityEAndDecider
    expect(r.label).toBe(
      'mmc(delta=0.05, contenders=3, minPairUpdates=2, minOtherUpdates=2, leaderMatch=true, maxSteps=32)',
    );
    const alternating = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'b' : 'a'));
    expect(drive(r, alternating)).toEqual({ t: 32, reason: 'budget' });
    r.reset();
    expect(drive(r, Array(6).fill('z'))).toEqual({ t: 6, reason: 'criterion' });
  });

  it('rejects bad parameters naming them', () => {
    expect(() => new MmcRule({ delta: 1 })).toThrow(/^delta = 1/);
    expect(() => new MmcRule({ contenders: 1 })).toThrow(/^contenders = 1/);
    expect(() => new MmcRule({ minPairUpdates: -1 })).toThrow(/^minPairUpdates = -1/);
    expect(() => new MmcRule({ maxSteps: 0 })).toThrow(/^maxSteps = 0/);
    expect(() => createRule({ name: 'mmc', params: { leaderMatch: 1 } })).toThrow(/^leaderMatch = 1/);
    expect(() => createRule({ name: 'mmc', params: { M: 3 } })).toThrow(/^mmc\.M = 3/);
  });
});

describe('MMC on synthetic streams with a known answer', () => {
  // The code's bound is P(certifying a non-mode) <= δ; for the rule as a whole (pairs that change
  // between votes) it is not proved (module comment), so this measures it. If each stream stopped
  // falsely with probability <= δ, independently, the false stops of M streams would exceed
  // binomialUpperQuantile(M, δ, 1e-6) with probability <= 1e-6. maxSteps 100 (not the default 32)
  // leaves the test time to err.
  const M = 400;
  const opts = { streams: M, maxSteps: 100, seed: 99 };
  it.each([0.05, 0.2])('at δ = %s the false stops stay within the Bin(M, δ) bound on every distribution', (delta) => {
    const bound = binomialUpperQuantile(M, delta, 1e-6);
    let falseStops = 0;
    for (const d of SYNTHETIC_DISTRIBUTIONS) {
      const r = falseStopTrial({ name: 'mmc', params: { delta, maxSteps: opts.maxSteps } }, d, opts);
      expect(r.falseStops, `${d.name}: ${r.falseStops} false stops of ${M}`).toBeLessThanOrEqual(bound);
      falseStops += r.falseStops;
    }
    // not vacuous: at δ = 0.2 the near ties do stop falsely
    if (delta === 0.2) expect(falseStops).toBeGreaterThan(0);
  });
});
