import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { binomialUpperQuantile, falseStopTrial, SYNTHETIC_DISTRIBUTIONS } from '../../src/lab/syntheticStreams.js';
import { betaTailInt } from '../../src/stopping/betaTail.js';
import { AnytimeVoteRule, anytimeBet, anytimeMixture, nullShare } from '../../src/stopping/anytimeVote.js';

/** M(x, y) = 2^(x+y+1) ∫_{1/2}^1 q^x (1 − q)^y dq as an exact rational (BigInt), then a double. */
function mixtureExact(x: number, y: number): number {
  // ∫_{1/2}^1 q^(x+k) dq = (1 − 2^−(x+k+1))/(x+k+1); expand (1 − q)^y binomially
  let num = 0n;
  let den = 1n;
  let binom = 1n;
  for (let k = 0; k <= y; k++) {
    if (k > 0) binom = (binom * BigInt(y - k + 1)) / BigInt(k);
    const m = BigInt(x + k + 1);
    // term = ±C(y,k)·(2^m − 1)/(2^m · m); scaled by 2^(x+y+1) at the end
    const tn = (k % 2 === 0 ? 1n : -1n) * binom * (2n ** m - 1n);
    const td = 2n ** m * m;
    num = num * td + tn * den;
    den = den * td;
  }
  num *= 2n ** BigInt(x + y + 1);
  // to a double with ~17 significant digits
  const scale = 10n ** 30n;
  return Number((num * scale) / den) / 1e30;
}

/** Feeds answers; returns the step of the first stop (null: none) and the rule. */
function drive(rule: AnytimeVoteRule, answers: Array<string | null>): number | null {
  for (let i = 0; i < answers.length; i++) if (rule.observe({ t: i + 1, answer: answers[i] }).stop) return i + 1;
  return null;
}

describe('anytime-valid vote rule', () => {
  it('the bet is the truncated posterior mean: λ(0, 0) = 1/2, λ(1, 0) = 5/9; zero when the competitor is behind', () => {
    // uniform prior on (1/2, 1]: mean 3/4 → λ = 1/2; posterior ∝ q on (1/2, 1]: mean (7/12)/(3/4)·... = 7/9 → 5/9
    expect(anytimeBet(0, 0)).toBeCloseTo(0.5, 15);
    expect(anytimeBet(1, 0)).toBeCloseTo(5 / 9, 15);
    expect(anytimeBet(2, 3)).toBe(0);
    for (const [x, y] of [
      [5, 5],
      [40, 3],
      [300, 299],
    ] as const) {
      expect(anytimeBet(x, y)).toBeGreaterThan(0);
      expect(anytimeBet(x, y)).toBeLessThan(1);
    }
  });

  it('unanimous answers stop at the derived count n*, with the derived weight (closed forms, no Beta tails)', () => {
    // E[q | q > 1/2] for a density ∝ q^k on (1/2, 1]: ∫q^(k+1) / ∫q^k
    const share = (k: number) => ((k + 1) / (k + 2)) * ((1 - 2 ** -(k + 2)) / (1 - 2 ** -(k + 1)));
    // least favourable share after k unanimous votes with R = N − k left: ⌊(N − 2k)/2⌋/(2⌊…⌋ + k)
    const p0 = (k: number, N: number | null) => {
      if (N === null) return 0.5;
      const rc = Math.floor((N - 2 * k) / 2);
      return rc === 0 ? 0 : rc / (2 * rc + k);
    };
    /** A_n, B_n after n unanimous answers (the first is not bet on); ∞ once no answer can catch up. */
    const wealth = (n: number, N: number | null) => {
      if (N !== null && n > N - n) return { A: Infinity, B: Infinity };
      let A = 1;
      let B = 1;
      for (let k = 1; k < n; k++) {
        A /= p0(k, N);
        B *= share(k) / p0(k, N);
      }
      return { A, B };
    };
    // the stated rule: n* = the smallest n reached by some w <= 1/2; w = the smallest multiple of 1/64
    const derive = (delta: number, N: number | null, cap = 1 / 2) => {
      for (let n = 2; N === null || n <= N; n++) {
        const { A, B } = wealth(n, N);
        if (B >= 1 / delta) return { weight: 0, unanimousStop: n };
        for (let j = 1; j / 64 <= cap; j++)
          if ((j / 64) * A + (1 - j / 64) * B >= 1 / delta) return { weight: j / 64, unanimousStop: n };
      }
      return { weight: 0, unanimousStop: null };
    };
    // the figures the module comment states: no budget A = 2^5 = 32, B = M(6,0)/M(1,0) = 12.1; N = 40: A = 49.5, B = 18.7
    expect(wealth(6, null).A).toBe(32);
    expect(wealth(6, null).B).toBeCloseTo((2 * (2 ** 7 - 1)) / (3 * 7), 12);
    expect(wealth(7, null).B).toBeCloseTo(21.25, 12);
    expect(wealth(6, 40).A).toBeCloseTo(49.51, 2);
    expect(wealth(6, 40).B).toBeCloseTo(18.7, 1);
    expect(derive(0.05, null)).toEqual({ weight: 26 / 64, unanimousStop: 6 });
    expect(derive(0.05, 40)).toEqual({ weight: 3 / 64, unanimousStop: 6 });
    for (const delta of [0.05, 0.2, 0.01, 1e-4, 1e-12]) {
      for (const N of [null, 3, 10, 20, 40, 41, 200, 5000]) {
        const want = derive(delta, N);
        expect(anytimeMixture(delta, N), `δ = ${delta}, N = ${N}`).toEqual(want);
        const r = new AnytimeVoteRule({ delta, ...(N === null ? {} : { budget: N }) });
        const stream = Array(N ?? 200).fill('x');
        const stop = drive(r, stream);
        if (want.unanimousStop === null) expect(stop).toBe(N);
        else expect(stop, `δ = ${delta}, N = ${N}`).toBe(want.unanimousStop);
        if (want.unanimousStop !== null && N === null)
          expect(r.observe({ t: stop! + 1, answer: 'x' }).reason).toBe('criterion');
      }
    }
    // other caps (multiples of 1/64, where the grid search above is exact): the Beta bettor alone
    // (cap 0) needs 7 unanimous answers without a budget; with N = 40 the floor 5 takes w = 58/64,
    // since A = Π 1/p0 over four bets = 21.2 and B = 9.3 after 5
    for (const cap of [0, 16 / 64, 63 / 64])
      for (const N of [null, 10, 40, 200]) {
        const want = derive(0.05, N, cap);
        expect(anytimeMixture(0.05, N, cap), `cap ${cap}, N = ${N}`).toEqual(want);
        const r = new AnytimeVoteRule({ delta: 0.05, maxWeight: cap, ...(N === null ? {} : { budget: N }) });
        expect(drive(r, Array(N ?? 200).fill('x')), `cap ${cap}, N = ${N}`).toBe(want.unanimousStop ?? N);
      }
    expect(derive(0.05, null, 0)).toEqual({ weight: 0, unanimousStop: 7 });
    expect(derive(0.05, 40, 63 / 64)).toEqual({ weight: 58 / 64, unanimousStop: 5 });
    expect(wealth(5, 40).A).toBeCloseTo(21.2, 1);
    // the Beta bettor alone (the rule's previous bet) needs 7 at δ = 0.05: w = 26/64 saves one sample
    expect(wealth(6, null).B).toBeLessThan(20);
    // the floor without a budget: any bet in [0, 1] multiplies by at most 2, and the first sample is not bet on
    expect(2 ** 4).toBeLessThan(20);
  });

  it('unanimous e-values follow the closed form without a budget: w·2^(n−1) + (1 − w)·2(2^(n+1) − 1)/(3(n + 1))', () => {
    const r = new AnytimeVoteRule({ delta: 1e-300 });
    const w = r.mixture.weight;
    expect(w).toBeGreaterThan(0);
    for (let n = 1; n <= 40; n++) {
      r.observe({ t: n, answer: 'a' });
      const closed = w * 2 ** (n - 1) + (1 - w) * ((2 * (2 ** (n + 1) - 1)) / (3 * (n + 1)));
      // each of n − 1 factors carries a few eps from log1p/exp and the Beta-tail ratio (rel. error < 1e-9 each)
      expect(Math.abs(r.eValues.unseen - closed) / closed).toBeLessThan(1e-9 * n);
    }
  });

  fcTest.prop([fc.array(fc.boolean(), { minLength: 1, maxLength: 60 })])(
    'without a budget, while one competitor stays ahead, the runner-up’s Beta wealth is the Bayes factor M(x, y)/M(1, 0)',
    (coins) => {
      // a sequence of a and b in which a is seen first and never falls behind b
      const seq: string[] = ['a'];
      let xa = 1;
      let xb = 0;
      for (const c of coins) {
        if (c || xb + 1 > xa) {
          seq.push('a');
          xa++;
        } else {
          seq.push('b');
          xb++;
        }
      }
      const r = new AnytimeVoteRule({ delta: 1e-300 }); // never stops
      seq.forEach((answer, i) => r.observe({ t: i + 1, answer }));
      const w = r.mixture.weight;
      const e = xb === 0 ? r.eValues.unseen : r.eValues.answers.find(([a]) => a === 'b')![1];
      // E_b = w·A_b + (1 − w)·B_b; the all-in part A_b is 2^(x−1) while b is unseen and 0 once it is seen
      const beta = ((1 - w) * mixtureExact(xa, xb)) / mixtureExact(1, 0);
      const expected = xb === 0 ? w * 2 ** (xa - 1) + beta : beta;
      expect(Math.abs(e - expected) / expected).toBeLessThan(1e-9 * seq.length);
    },
  );

  it('empty samples change nothing; a wrong answer costs the leader its lead in evidence', () => {
    const a = new AnytimeVoteRule();
    const b = new AnytimeVoteRule();
    drive(a, ['a', 'a', 'a', 'a']);
    drive(b, ['a', null, 'a', null, 'a', 'a']);
    expect(b.eValues).toEqual(a.eValues);
    // 5 a then a b: the b process lost its bet (and its all-in part), so one more a is not a stop
    expect(drive(new AnytimeVoteRule(), ['a', 'a', 'a', 'a', 'a', 'b', 'a'])).toBeNull();
  });

  it('with a budget: stops at N (reason budget), and an answer that cannot be caught up rejects at once', () => {
    const r = new AnytimeVoteRule({ budget: 4 });
    expect(r.label).toBe('anytime(delta=0.05, budget=4, maxWeight=0.5)');
    expect(['a', 'b', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop)).toEqual([false, false, false]);
    expect(r.observe({ t: 4, answer: 'b' })).toMatchObject({ stop: true, reason: 'budget' });
    // N = 9: after a a b a a a, a leads b by 4 > the 3 samples left, and no unseen answer can reach 5
    const s = new AnytimeVoteRule({ budget: 9, delta: 1e-9 });
    expect(drive(s, ['a', 'a', 'b', 'a', 'a', 'a'])).toBe(6);
    expect(s.eValues.unseen).toBe(Infinity);
    expect(s.eValues.answers.find(([x]) => x === 'b')![1]).toBe(Infinity);
    expect(new AnytimeVoteRule({ budget: 40, maxSteps: 10 }).params).toEqual({
      delta: 0.05,
      budget: 40,
      maxWeight: 0.5,
      maxSteps: 10,
    });
    expect(drive(new AnytimeVoteRule({ budget: 40, maxSteps: 10 }), [...'abcabcabcabc'])).toBe(10);
    expect(drive(new AnytimeVoteRule({ budget: 5, maxSteps: 10 }), [...'abcabcabcabc'])).toBe(5);
  });

  it('nullShare: the least favourable share, tight at the worst remaining pool', () => {
    expect(nullShare(0, null)).toBe(0.5);
    expect(nullShare(1, 39)).toBe(19 / 39);
    expect(nullShare(0, 10)).toBe(0.5);
    expect(nullShare(3, 3)).toBe(0);
    expect(nullShare(2, 3)).toBe(0);
    expect(nullShare(0, 1)).toBe(0);
    expect(nullShare(1, 4)).toBe(1 / 3);
    expect(() => nullShare(-1, 4)).toThrow(/^lead = -1/);
    expect(() => nullShare(5, 4)).toThrow(/^remaining = 4/);
    expect(() => nullShare(1.5, null)).toThrow(/^lead = 1\.5/);
  });

  fcTest.prop([
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 1, max: 80 }),
    fc.double({ min: 0, max: 1, noNaN: true }),
  ])(
    'a bet with share q ∈ [p0, 1] has E[factor] <= 1 for every remaining pool under H0, = 1 at the worst one',
    (d, extra, u) => {
      const R = d + extra;
      const p0 = nullShare(d, R);
      const q = p0 + u * (1 - p0);
      const mean = (rc: number, rb: number) =>
        ((rc > 0 ? rc * (q / p0) : 0) + rb * ((1 - q) / (1 - p0)) + (R - rc - rb)) / R;
      // every (r_c, r_b) with r_b >= r_c + d and r_b + r_c <= R
      let worst = -Infinity;
      for (let rc = 0; 2 * rc + d <= R; rc++)
        for (let rb = rc + d; rb + rc <= R; rb++) worst = Math.max(worst, mean(rc, rb));
      expect(worst).toBeLessThanOrEqual(1 + 1e-12);
      const rcStar = Math.floor((R - d) / 2);
      if (p0 > 0) expect(Math.abs(mean(rcStar, rcStar + d) - 1)).toBeLessThan(1e-12);
      else expect(rcStar).toBe(0); // p0 = 0: the competitor cannot appear under H0
      // a smaller p0 would be invalid: the worst pool then has E[factor] > 1 for q > p0
      if (p0 > 0 && q > p0 * 1.01 && q < 1) {
        const p = p0 * 0.99;
        const m = (rcStar * (q / p) + (rcStar + d) * ((1 - q) / (1 - p)) + (R - 2 * rcStar - d)) / R;
        expect(m).toBeGreaterThan(1);
      }
    },
  );

  // The rule's own wealths, one step ahead: E_b(prefix + s)/E_b(prefix), averaged under H0(b).
  const SYMBOLS = ['a', 'b', 'c', 'z', null] as const; // z: never in the prefix (an unseen answer)
  const eValueOf = (seq: Array<string | null>, target: string, budget: number | null) => {
    const r = new AnytimeVoteRule({ delta: 0.05, ...(budget === null ? {} : { budget }) });
    seq.forEach((answer, i) => r.observe({ t: i + 1, answer }));
    const seen = r.eValues.answers.find(([x]) => x === target);
    return seen ? seen[1] : r.eValues.unseen;
  };
  const prefixArb = fc.array(fc.constantFrom('a', 'b', 'c', null), { maxLength: 24 });

  fcTest.prop([
    prefixArb,
    fc.constantFrom('a', 'b', 'c', 'z'),
    fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 5, maxLength: 5 }),
  ])(
    'independent draws: every process (each answer, and the unseen ones) has E[factor] <= 1 under H0(b)',
    (prefix, target, weights) => {
      const ti = SYMBOLS.indexOf(target as never);
      // H0(target): its probability is at least every other answer's
      const w = weights.map((x) => x + 1);
      w[ti] = Math.max(w[ti]!, ...w.slice(0, 4));
      const total = w.reduce((a, b) => a + b, 0);
      const before = eValueOf(prefix, target, null);
      let mean = 0;
      SYMBOLS.forEach((s, i) => (mean += (w[i]! / total) * (eValueOf([...prefix, s], target, null) / before)));
      expect(mean).toBeLessThanOrEqual(1 + 1e-12);
    },
  );

  fcTest.prop([
    prefixArb,
    fc.constantFrom('a', 'b', 'c', 'z'),
    fc.integer({ min: 1, max: 16 }),
    fc.array(fc.integer({ min: 0, max: 16 }), { minLength: 5, maxLength: 5 }),
    fc.boolean(),
  ])(
    'random order from a pool of N (budget N): every process has E[factor] <= 1 under H0(b), the worst pool included',
    (prefix, target, extra, raw, worstCase) => {
      const N = prefix.length + extra;
      const R = N - prefix.length;
      const ti = SYMBOLS.indexOf(target as never);
      const seenCount = (s: string | null) => prefix.filter((x) => x === s).length;
      // remaining counts r; the target gets enough to be a majority of the whole pool; blanks fill up
      let r = raw.slice(0, 4);
      if (worstCase) {
        // the least favourable pool for the target's strongest competitor c: r_c = ⌊(R − d)/2⌋, r_b = r_c + d
        const others = ['a', 'b', 'c', 'z'].filter((s) => s !== target);
        const c = others.reduce((m, s) => (seenCount(s) > seenCount(m) ? s : m), others[0]!);
        const d = seenCount(c) - seenCount(target);
        fc.pre(d >= 0 && d <= R);
        r = [0, 0, 0, 0];
        const rc = Math.floor((R - d) / 2);
        r[SYMBOLS.indexOf(c as never)] = rc;
        r[ti] = rc + d;
      } else {
        r[ti] = 0;
        const need = Math.max(...['a', 'b', 'c', 'z'].map((s, i) => seenCount(s) + r[i]!)) - seenCount(target);
        r[ti] = Math.max(need, raw[ti]! % 4);
      }
      const used = r.reduce((a, b) => a + b, 0);
      fc.pre(used <= R);
      const pool = [...r, R - used];
      const X = ['a', 'b', 'c', 'z'].map((s, i) => seenCount(s) + pool[i]!);
      expect(X[ti]).toBe(Math.max(...X)); // H0(target) holds for the pool
      const before = eValueOf(prefix, target, N);
      expect(Number.isFinite(before)).toBe(true); // under H0 the wealth is never set to ∞
      let mean = 0;
      SYMBOLS.forEach((s, i) => {
        if (pool[i]! > 0) mean += (pool[i]! / R) * (eValueOf([...prefix, s], target, N) / before);
      });
      expect(mean).toBeLessThanOrEqual(1 + 1e-12);
    },
  );

  it('validates δ, budget and parameters; reset forgets everything', () => {
    expect(() => new AnytimeVoteRule({ delta: 0 })).toThrow(/^delta = 0: must lie in \(0, 1\)/);
    expect(() => new AnytimeVoteRule({ delta: 1 })).toThrow(/^delta = 1/);
    expect(() => new AnytimeVoteRule({ delta: -0.05 })).toThrow(/^delta = -0\.05/);
    expect(() => new AnytimeVoteRule({ delta: Number.NaN })).toThrow(/^delta = NaN/);
    expect(() => new AnytimeVoteRule({ delta: Infinity })).toThrow(/^delta = Infinity/);
    expect(() => new AnytimeVoteRule({ delta: '0.05' as never })).toThrow(/^delta = "0\.05"/);
    expect(() => anytimeMixture(2, null)).toThrow(/^delta = 2/);
    expect(() => new AnytimeVoteRule({ budget: 0 })).toThrow(/^budget = 0/);
    expect(() => new AnytimeVoteRule({ budget: 2.5 })).toThrow(/^budget = 2\.5/);
    expect(() => anytimeMixture(0.05, 0)).toThrow(/^budget = 0/);
    expect(() => anytimeMixture(0.05, null, 1)).toThrow(/^maxWeight = 1: must lie in \[0, 1\)/);
    expect(() => anytimeMixture(0.05, null, -0.1)).toThrow(/^maxWeight = -0.1/);
    expect(() => new AnytimeVoteRule({ maxWeight: Number.NaN })).toThrow(/^maxWeight = NaN/);
    expect(() => new AnytimeVoteRule({ alpha: 0.1 } as never)).toThrow(/^anytime\.alpha = 0\.1: is not a parameter/);
    const r = new AnytimeVoteRule({ maxSteps: 3 });
    expect(drive(r, ['a', 'b', 'c'])).toBe(3); // the cap, reason budget
    r.reset();
    expect(r.eValues.answers).toEqual([]);
    expect(r.eValues.unseen).toBeCloseTo(1, 15);
    expect(drive(r, ['a', 'a', 'b'])).toBe(3);
  });
});

describe('false stops on synthetic streams with a known answer', () => {
  // Each stream stops falsely with probability <= δ (the guarantee), independently, so the count
  // of false stops in M streams is stochastically below Bin(M, δ): it exceeds
  // q = binomialUpperQuantile(M, δ, 1e-6) with probability <= 1e-6 for a rule that keeps the bound.
  const M = 400;
  const opts = { streams: M, maxSteps: 100, seed: 99 };

  it.each([0.05, 0.2])('the anytime rule at δ = %s stays within the Bin(M, δ) bound on every distribution', (delta) => {
    const bound = binomialUpperQuantile(M, delta, 1e-6);
    for (const d of SYNTHETIC_DISTRIBUTIONS) {
      const r = falseStopTrial({ name: 'anytime', params: { delta } }, d, opts);
      expect(r.falseStops, `${d.name}: ${r.falseStops} false stops of ${M}`).toBeLessThanOrEqual(bound);
    }
  });

  it.each([0.05, 0.2])(
    'with budget N = the stream length, at δ = %s: false stops against the N-sample vote stay within the Bin(M, δ) bound',
    (delta) => {
      const bound = binomialUpperQuantile(M, delta, 1e-6);
      for (const d of SYNTHETIC_DISTRIBUTIONS) {
        const r = falseStopTrial({ name: 'anytime', params: { delta, budget: opts.maxSteps } }, d, opts);
        expect(r.fullVoteFalseStops, `${d.name}: ${r.fullVoteFalseStops} false stops of ${M}`).toBeLessThanOrEqual(
          bound,
        );
      }
    },
  );

  it('the harness detects rules without the guarantee: ESC (w = 5) and the order-gap rule exceed the δ = 0.05 bound on a near tie', () => {
    const bound = binomialUpperQuantile(M, 0.05, 1e-6);
    const r = falseStopTrial({ name: 'plurality', params: { window: 5 } }, SYNTHETIC_DISTRIBUTIONS[0]!, opts);
    expect(r.falseStops).toBeGreaterThan(bound);
    // against the full vote: the order-gap rule at its default (no guarantee) exceeds the same bound
    const g = falseStopTrial({ name: 'order-gap', params: {} }, SYNTHETIC_DISTRIBUTIONS[0]!, opts);
    expect(g.fullVoteFalseStops).toBeGreaterThan(bound);
  });

  it('binomialUpperQuantile agrees with the binomial tail summed exactly', () => {
    // P(Bin(100, 0.05) >= 10) = 0.0282, P(>= 9) = 0.0631 (exact sums of C(100, j) 0.05^j 0.95^(100−j))
    expect(binomialUpperQuantile(100, 0.05, 0.05)).toBe(9);
    for (const [n, p, alpha] of [
      [50, 0.1, 0.01],
      [400, 0.05, 1e-6],
      [30, 0.5, 0.2],
    ] as const) {
      const q = binomialUpperQuantile(n, p, alpha);
      expect(betaTailInt(q + 1, n - q, p).below).toBeLessThanOrEqual(alpha);
      if (q > 0) expect(betaTailInt(q, n - q + 1, p).below).toBeGreaterThan(alpha);
    }
    expect(() => binomialUpperQuantile(0, 0.1, 0.1)).toThrow(/^n = 0/);
    expect(() => binomialUpperQuantile(10, 1, 0.1)).toThrow(/^p = 1/);
  });
});
