import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { binomialUpperQuantile, falseStopTrial, SYNTHETIC_DISTRIBUTIONS } from '../../src/lab/syntheticStreams.js';
import { betaTailInt } from '../../src/stopping/betaTail.js';
import { AnytimeVoteRule, anytimeBet } from '../../src/stopping/anytimeVote.js';

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

  it('unanimous answers: the unseen answers’ e-value is M(x, 0)/M(1, 0) = 2(2^(x+1) − 1)/(3(x + 1)); stops at 7 for δ = 0.05', () => {
    const r = new AnytimeVoteRule({ delta: 0.05 });
    for (let x = 1; x <= 30; x++) {
      const d = r.observe({ t: x, answer: 'a' });
      const closed = (2 * (2 ** (x + 1) - 1)) / (3 * (x + 1));
      // each of x − 1 factors carries a few eps from log1p/exp and the Beta-tail ratio (rel. error < 1e-9 each)
      expect(Math.abs(d.statistic! - closed) / closed).toBeLessThan(1e-9 * x);
      expect(d.stop).toBe(closed >= 20);
    }
    for (const delta of [0.2, 0.01, 1e-4]) {
      let first = 1;
      while ((2 * (2 ** (first + 1) - 1)) / (3 * (first + 1)) < 1 / delta) first++;
      expect(drive(new AnytimeVoteRule({ delta }), Array(40).fill('x'))).toBe(first);
    }
  });

  fcTest.prop([fc.array(fc.boolean(), { minLength: 1, maxLength: 60 })])(
    'while one competitor stays ahead, the runner-up’s e-value is the Bayes factor M(x, y)/M(1, 0)',
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
      const e = xb === 0 ? r.eValues.unseen : r.eValues.answers.find(([a]) => a === 'b')![1];
      const expected = mixtureExact(xa, xb) / mixtureExact(1, 0);
      expect(Math.abs(e - expected) / expected).toBeLessThan(1e-9 * seq.length);
    },
  );

  it('empty samples change nothing; a wrong answer costs the leader its lead in evidence', () => {
    const a = new AnytimeVoteRule();
    const b = new AnytimeVoteRule();
    drive(a, ['a', 'a', 'a', 'a']);
    drive(b, ['a', null, 'a', null, 'a', 'a']);
    expect(b.eValues).toEqual(a.eValues);
    // 6 a then a b: the b process lost its bet, so 7 a + 1 b is not yet a stop at δ = 0.05
    expect(drive(new AnytimeVoteRule(), ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'a'])).toBeNull();
  });

  it('validates δ and parameters; reset forgets everything', () => {
    expect(() => new AnytimeVoteRule({ delta: 0 })).toThrow(/^delta = 0: must lie in \(0, 1\)/);
    expect(() => new AnytimeVoteRule({ delta: 1 })).toThrow(/^delta = 1/);
    expect(() => new AnytimeVoteRule({ delta: Number.NaN })).toThrow(/^delta = NaN/);
    expect(() => new AnytimeVoteRule({ alpha: 0.1 } as never)).toThrow(/^anytime\.alpha = 0\.1: is not a parameter/);
    const r = new AnytimeVoteRule({ maxSteps: 3 });
    expect(drive(r, ['a', 'b', 'c'])).toBe(3); // the cap, reason budget
    r.reset();
    expect(r.eValues).toEqual({ answers: [], unseen: 1 });
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

  it('the harness detects a rule without the guarantee: ESC (w = 5) exceeds the δ = 0.05 bound on a near tie', () => {
    const bound = binomialUpperQuantile(M, 0.05, 1e-6);
    const r = falseStopTrial({ name: 'plurality', params: { window: 5 } }, SYNTHETIC_DISTRIBUTIONS[0]!, opts);
    expect(r.falseStops).toBeGreaterThan(bound);
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
