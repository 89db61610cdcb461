import { describe, expect, it } from 'vitest';
import { binomialUpperQuantile, falseStopTrial, SYNTHETIC_DISTRIBUTIONS } from '../../src/lab/syntheticStreams.js';
import { createRng } from '../../src/ordergap/rng.js';
import { citeLevel, CiteRule } from '../../src/stopping/citeRule.js';
import { createRule } from '../../src/stopping/registry.js';
import { driveAnswers as drive } from './driveRule.js';

/** A rule fed a prefix (retarget as given). */
function fed(prefix: string[], retarget: boolean): CiteRule {
  const r = new CiteRule({ delta: 1e-12, retarget });
  prefix.forEach((answer, i) => r.observe({ t: i + 1, answer }));
  return r;
}

describe('CITE: the test of one target', () => {
  it('unanimous answers stop where the closed-form Beta-bettor wealth first reaches 1/α', () => {
    // E[q | q > 1/2] for q ~ Beta(k + 1, 1): ∫q^(k+1) / ∫q^k over (1/2, 1]; the first answer sets
    // the target, each later one multiplies the unseen answers' wealth by 2·E[q | q > 1/2]
    const share = (k: number) => ((k + 1) / (k + 2)) * ((1 - 2 ** -(k + 2)) / (1 - 2 ** -(k + 1)));
    const stopAt = (level: number) => {
      let wealth = 1;
      for (let n = 2; ; n++) {
        wealth *= 2 * share(n - 1);
        if (wealth >= 1 / level) return n;
      }
    };
    // δ = 0.05 without retargeting: 2·(2^8 − 1)/(3·8) = 21.25 >= 20 after 7 answers; with it the
    // first test runs at α_1 = 0.05·6/π² (1/α_1 = 32.9): 37.9 after 8
    expect(stopAt(0.05)).toBe(7);
    expect(stopAt(citeLevel(0.05, 1, true))).toBe(8);
    for (const delta of [0.2, 0.05, 0.01, 1e-6])
      for (const retarget of [false, true]) {
        const n = stopAt(citeLevel(delta, 1, retarget));
        expect(drive(new CiteRule({ delta, retarget }), Array(n + 5).fill('a')), `δ = ${delta}`).toEqual({
          t: n,
          reason: 'criterion',
        });
      }
  });

  it('every pairwise factor is 1 + λ on the target, 1 − λ on its answer and 1 otherwise, λ in [0, 1): E[factor] <= 1 under H_b', () => {
    // for random prefixes, compare the e-values before and after each possible next sample: the
    // tracked answers, an answer never seen ('z', which forks the unseen answers' wealth) and an
    // empty sample. Under H_b (p_b >= p_a) the mean factor 1 + λ(p_a − p_b) is then <= 1.
    const rng = createRng(3);
    const letters = ['a', 'b', 'c', 'd'];
    let checked = 0;
    for (let trial = 0; trial < 300; trial++) {
      const len = 1 + Math.floor(rng.next() * 25);
      const prefix = Array.from({ length: len }, () => letters[Math.floor(rng.next() ** 2 * 4)]!);
      const retarget = trial % 2 === 0;
      const before = fed(prefix, retarget).state;
      const target = before.target!;
      const ev = (s: CiteRule['state'], b: string) => s.eValues.find(([x]) => x === b)?.[1] ?? s.unseen;
      for (const b of [...before.eValues.map(([x]) => x), 'z']) {
        const e0 = ev(before, b);
        const ratio = (x: string | null) => {
          const after = fed([...prefix, x as string], retarget).state;
          // a new test after the sample starts from 1: only same-test transitions are factors
          return after.test === before.test ? ev(after, b) / e0 : null;
        };
        const onTarget = ratio(target);
        const onB = ratio(b);
        if (onTarget === null || onB === null) continue;
        const lambda = onTarget - 1;
        expect(lambda).toBeGreaterThanOrEqual(0);
        expect(lambda).toBeLessThan(1);
        // 1 − λ, up to the rounding of exp(log1p(±λ)) (a few ulps)
        expect(onB).toBeCloseTo(1 - lambda, 12);
        for (const other of [...letters, null]) {
          if (other === target || other === b) continue;
          const r = ratio(other);
          if (r !== null) expect(r).toBe(1);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('a new test starts when the leader changes, at level δ·6/(π² j²)', () => {
    const r = new CiteRule();
    drive(r, ['b', 'a']);
    expect(r.state).toMatchObject({ target: 'b', test: 1 });
    drive(r, []); // no-op
    r.observe({ t: 3, answer: 'a' });
    expect(r.state.target).toBe('a');
    expect(r.state.test).toBe(2);
    expect(r.state.level).toBeCloseTo((0.05 * 6) / (Math.PI ** 2 * 4), 15);
    // the new test starts from 1 for every answer
    expect(r.state.unseen).toBe(1);
    expect(r.state.eValues).toEqual([['b', 1]]);
    // without retargeting the first answer stays the target
    const s = new CiteRule({ retarget: false });
    drive(s, ['b', 'a', 'a', 'a']);
    expect(s.state).toMatchObject({ target: 'b', test: 1, level: 0.05 });
  });

  it('the levels of all tests sum to δ', () => {
    let sum = 0;
    for (let j = 1; j <= 1e6; j++) sum += citeLevel(0.05, j, true);
    // the tail beyond 10^6 is 0.05·6/(π²·10^6)
    expect(sum).toBeLessThanOrEqual(0.05);
    expect(sum).toBeGreaterThan(0.05 - 1e-7);
    expect(citeLevel(0.05, 1, false)).toBe(0.05);
  });

  it('keeps its wealths finite on long streams (log space)', () => {
    // 1/δ = 10^300: the unanimous wealth ~2^n/n passes it after about a thousand answers
    const r = new CiteRule({ delta: 1e-300, retarget: false });
    const stop = drive(r, Array(2000).fill('a'));
    expect(stop?.reason).toBe('criterion');
    expect(stop!.t).toBeGreaterThan(900);
    // a tie for 3000 samples: no certificate, no NaN; the unseen answers' wealth (about 2^1500, the
    // evidence that no unseen answer is as likely as a) exceeds f64 only when exponentiated
    const s = new CiteRule();
    expect(
      drive(
        s,
        Array.from({ length: 3000 }, (_, i) => (i % 2 ? 'b' : 'a')),
      ),
    ).toBeNull();
    for (const [, e] of s.state.eValues) expect(e).toBeLessThan(1e6);
    expect(s.state.unseen).toBeGreaterThan(1e300);
  });

  it('an empty or unparseable sample changes nothing', () => {
    const r = new CiteRule({ retarget: false });
    expect(drive(r, ['a', null, 'a', null, 'a', 'a', null, 'a', 'a', 'a'])).toEqual({ t: 10, reason: 'criterion' });
  });

  it('is registered with its defaults and rejects bad parameters naming them', () => {
    expect(createRule({ name: 'cite', params: {} }).params).toEqual({ delta: 0.05, retarget: true });
    expect(() => new CiteRule({ delta: 0 })).toThrow(/^delta = 0/);
    expect(() => createRule({ name: 'cite', params: { retarget: 1 } })).toThrow(/^retarget = 1/);
    expect(() => new CiteRule({ maxSteps: 0 })).toThrow(/^maxSteps = 0/);
    expect(() => createRule({ name: 'cite', params: { alpha: 0.1 } })).toThrow(/^cite\.alpha = 0\.1/);
    expect(() => citeLevel(0.05, 2, false)).toThrow(/^test = 2/);
  });
});

describe('CITE on synthetic streams with a known answer', () => {
  // The guarantee: P(ever certifying an answer that is not the unique mode) <= δ per stream, so the
  // false stops of M independent streams are stochastically below Bin(M, δ) and exceed
  // q = binomialUpperQuantile(M, δ, 1e-6) with probability <= 1e-6 for a rule that keeps it. (The
  // same harness shows ESC's window exceeding the bound: test/stopping/anytime.test.ts.)
  const M = 400;
  const opts = { streams: M, maxSteps: 100, seed: 99 };
  it.each([
    [0.05, true],
    [0.2, true],
    [0.05, false],
    [0.2, false],
  ])(
    'at δ = %s (retarget %s) the false stops stay within the Bin(M, δ) bound on every distribution',
    (delta, retarget) => {
      const bound = binomialUpperQuantile(M, delta, 1e-6);
      let falseStops = 0;
      for (const d of SYNTHETIC_DISTRIBUTIONS) {
        const r = falseStopTrial({ name: 'cite', params: { delta, retarget } }, d, opts);
        expect(r.falseStops, `${d.name}: ${r.falseStops} false stops of ${M}`).toBeLessThanOrEqual(bound);
        falseStops += r.falseStops;
      }
      // not vacuous: at δ = 0.2 the near ties do stop falsely
      if (delta === 0.2) expect(falseStops).toBeGreaterThan(0);
    },
  );
});
