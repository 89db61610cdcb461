import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/inProcess.js';
import { leaderProbability } from '../../src/stopping/betaTail.js';
import { BetaStoppingRule } from '../../src/stopping/betaRule.js';
import { dirichletLeaderProbability, DirichletStoppingRule } from '../../src/stopping/dirichletRule.js';
import { EntropyStoppingRule, normalisedEntropy } from '../../src/stopping/entropyRule.js';
import { createRule, listRules, parseRuleSpec } from '../../src/stopping/registry.js';
import type { StoppingRule } from '../../src/stopping/rule.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/samples/synthetic.jsonl', import.meta.url));
const ULP1 = 2 ** -52; // one ulp of numbers in [1/2, 1): the rounding of an exact rational to a double

/** Step of the first stop (0: none) of `rule` on `answers`. */
function stopAt(rule: StoppingRule, answers: ReadonlyArray<string | null>): number {
  rule.reset();
  for (let i = 0; i < answers.length; i++) if (rule.observe({ t: i + 1, answer: answers[i] }).stop) return i + 1;
  return 0;
}

// Exact P(p_L > p_i for all i) under Dirichlet(c + 1) by an independent, combinatorial route: the
// Gamma(c_i + 1) variables are arrival times of the (c_i + 1)-th point of independent unit Poisson
// processes; in the merged process each next point belongs to each still-incomplete process with
// equal probability, and the leader wins when every other process completes first. Rationals in BigInt.
type Frac = [bigint, bigint];
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
const add = ([a, b]: Frac, [c, d]: Frac): Frac => {
  const n = a * d + c * b;
  const m = b * d;
  const g = gcd(n, m) || 1n;
  return [n / g, m / g];
};
function raceExact(counts: readonly number[], lead: number): Frac {
  const need = counts.map((c) => c + 1);
  const memo = new Map<string, Frac>();
  const go = (have: number[]): Frac => {
    if (have[lead] === need[lead]) return [0n, 1n];
    const open = have.map((h, i) => (h < need[i]! ? i : -1)).filter((i) => i >= 0);
    if (open.length === 1) return [1n, 1n]; // only the leader is left
    const key = have.join(',');
    const hit = memo.get(key);
    if (hit) return hit;
    let sum: Frac = [0n, 1n];
    for (const i of open) {
      const next = [...have];
      next[i]!++;
      const [n, d] = go(next);
      sum = add(sum, [n, d * BigInt(open.length)]);
    }
    memo.set(key, sum);
    return sum;
  };
  return go(counts.map(() => 0));
}
const toNumber = ([n, d]: Frac): number => Number((n * 2n ** 80n) / d) / 2 ** 80;

describe('dirichletLeaderProbability (closed form, DirichletStoppingCriteria)', () => {
  it('reproduces hand-integrated cases within its error bound', () => {
    // Dirichlet(2,1,1): ∫ x e^−x (1 − e^−x)^2 dx = 1 − 2/4 + 1/9 = 11/18
    // Dirichlet(3,2,2): ∫ x²e^−x/2 (1 − e^−x(1 + x))^2 dx = 1 − 5/8 + 13/81 = 347/648
    for (const [counts, exact] of [
      [[1, 0, 0], 11 / 18],
      [[2, 1, 1], 347 / 648],
      [[1, 2, 1], 347 / 648],
    ] as const) {
      const r = dirichletLeaderProbability(counts);
      expect(Math.abs(r.probability - exact), String(counts)).toBeLessThanOrEqual(r.errorBound + ULP1);
    }
  });

  it('agrees with the exact Poisson-race rational for every count vector of 3 and 4 answers up to 3 votes', () => {
    let cases = 0;
    for (const m of [3, 4]) {
      for (let code = 0; code < 4 ** m; code++) {
        const counts = Array.from({ length: m }, (_, i) => Math.floor(code / 4 ** i) % 4);
        const lead = counts.indexOf(Math.max(...counts));
        if (counts.filter((c) => c === counts[lead]).length > 1) continue; // ties: see the symmetry test
        const exact = toNumber(raceExact(counts, lead));
        const r = dirichletLeaderProbability(counts);
        expect(Math.abs(r.probability - exact), String(counts)).toBeLessThanOrEqual(r.errorBound + ULP1);
        expect(r.errorBound).toBeLessThan(1e-12);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(100);
  });

  it('m equal counts give 1/m (symmetry; ties have probability 0)', () => {
    for (const m of [2, 3, 4, 5, 6])
      for (const c of [0, 1, 7, 40, 100]) {
        const r = dirichletLeaderProbability(Array.from({ length: m }, () => c));
        expect(Math.abs(r.probability - 1 / m), `${m}×${c}`).toBeLessThanOrEqual(r.errorBound + ULP1);
        expect(r.errorBound).toBeLessThan(1e-9);
      }
  });

  it('two answers: the Beta rule probability P(Beta(v1 + 1, v2 + 1) > 1/2) (Dirichlet(a, b) is Beta(a, b))', () => {
    for (let v1 = 0; v1 <= 30; v1++)
      for (let v2 = 0; v2 <= v1; v2++) {
        const r = dirichletLeaderProbability([v2, v1]);
        const beta = leaderProbability(v1, v2).above;
        // betaTail's documented relative error bound is 1e-9
        expect(Math.abs(r.probability - beta), `${v1}:${v2}`).toBeLessThanOrEqual(r.errorBound + 1e-9 * beta);
      }
  });

  it('rejects bad counts naming them', () => {
    expect(() => dirichletLeaderProbability([])).toThrow(/^counts\.length = 0: must be in \[1, 12\]$/);
    expect(() => dirichletLeaderProbability([3, -1, 2])).toThrow(/^counts\[1\] = -1: /);
    expect(() => dirichletLeaderProbability([3, 1.5])).toThrow(/^counts\[1\] = 1\.5: must be an integer$/);
  });
});

describe('the dirichlet rule', () => {
  it('stops first when the exact probability of the kept counts reaches the threshold', () => {
    const stream = ['a', 'b', 'c', 'a', 'a', 'a', 'a', 'a', 'a'];
    // counts (6,1,1) at t = 8, (7,1,1) at t = 9: the race gives P below, then at or above 0.95
    const p8 = toNumber(raceExact([6, 1, 1], 0));
    const p9 = toNumber(raceExact([7, 1, 1], 0));
    expect(p8).toBeLessThan(0.95);
    expect(p9).toBeGreaterThanOrEqual(0.95);
    expect(stopAt(new DirichletStoppingRule(), stream)).toBe(9);
    expect(stopAt(createRule(parseRuleSpec('dirichlet')), stream)).toBe(9);
  });

  it('below three distinct answers it decides exactly as the beta rule (the repository falls back to it)', () => {
    const beta = new BetaStoppingRule({ threshold: 0.9 });
    const dir = new DirichletStoppingRule({ threshold: 0.9 });
    for (let seed = 1; seed <= 40; seed++) {
      let s = seed;
      const stream = Array.from({ length: 30 }, () => {
        s = (s * 1103515245 + 12345) % 2 ** 31;
        return s % 5 === 0 ? null : s % 3 === 0 ? 'b' : 'a';
      });
      expect(stopAt(dir, stream), String(seed)).toBe(stopAt(beta, stream));
    }
  });

  it('keeps only the topK most-voted answers', () => {
    const stream = ['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'b', 'c', 'd', 'e', 'f'];
    const detail = (topK: number) => {
      const r = new DirichletStoppingRule({ topK, threshold: 0.5000001 });
      let d = '';
      stream.forEach((answer, i) => (d = r.observe({ t: i + 1, answer }).detail || d));
      return d;
    };
    expect(detail(3)).toMatch(/\| 8, 1, 1\) = /);
    expect(detail(5)).toMatch(/\| 8, 1, 1, 1, 1\) = /);
  });

  it('rejects bad parameters in one line naming parameter and value', () => {
    expect(() => new DirichletStoppingRule({ threshold: 0.5 })).toThrow(
      /^threshold = 0\.5: must lie in the open interval \(0\.5, 1\)$/,
    );
    expect(() => new DirichletStoppingRule({ threshold: 1 })).toThrow(/^threshold = 1: /);
    expect(() => new DirichletStoppingRule({ topK: 1 })).toThrow(/^topK = 1: must be in \[2, 12\]$/);
    expect(() => new DirichletStoppingRule({ topK: 13 })).toThrow(/^topK = 13: /);
    expect(() => new DirichletStoppingRule({ minSamples: 0 })).toThrow(/^minSamples = 0: /);
    expect(() => parseRuleSpec('dirichlet:top=3')).toThrow(/^dirichlet\.top = 3: is not a parameter of dirichlet/);
  });
});

describe('the entropy rule (EntropyStoppingCriteria)', () => {
  it('normalised entropy matches hand-computed closed forms', () => {
    const log2 = Math.log2;
    // tolerance: each side is a handful of correctly rounded logs, divisions and sums: 8 ulps
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(8 * ULP1);
    near(normalisedEntropy([4]), log2(5) - 1.6); // [4, 1]: H(4/5) = log2 5 − (4/5)·2
    near(normalisedEntropy([3, 1]), 2 - 0.75 * log2(3)); // H(3/4)
    near(normalisedEntropy([3]), 2 - 0.75 * log2(3)); // the phantom count: [3] scores as [3, 1]
    near(normalisedEntropy([2, 1, 1]), 1.5 / log2(3)); // 1.5 bits over log2 3
    near(normalisedEntropy([1, 1]), 1);
  });

  it('stops at four unanimous answers, not at three (H(3/4) = 0.811 > 0.75 >= H(4/5) = 0.722)', () => {
    expect(stopAt(new EntropyStoppingRule(), ['a', 'a', 'a', 'a', 'a'])).toBe(4);
    expect(stopAt(new EntropyStoppingRule(), ['a', 'a', 'a', 'b', 'a', 'a'])).toBe(5); // (4, 1) at t = 5
    expect(stopAt(createRule(parseRuleSpec('entropy:threshold=0.82')), ['a', 'a', 'a'])).toBe(3);
    // one answer never stops: the repository tests from the second answer on
    expect(stopAt(new EntropyStoppingRule({ threshold: 0.999 }), ['a'])).toBe(0);
  });

  it('rejects bad parameters in one line naming parameter and value', () => {
    expect(() => new EntropyStoppingRule({ threshold: 0 })).toThrow(
      /^threshold = 0: must lie in the open interval \(0, 1\)$/,
    );
    expect(() => new EntropyStoppingRule({ threshold: 1 })).toThrow(/^threshold = 1: /);
    expect(() => normalisedEntropy([2, 0])).toThrow(/^counts\[1\] = 0: must be >= 1$/);
  });
});

describe('the majority rule (MajorityStoppingCriteria)', () => {
  it('is the plurality ratio test with share >= 0.8 from the second answer on', () => {
    const r = createRule(parseRuleSpec('majority'));
    expect(r.label).toBe('plurality(ratio=0.8, minSamples=2)');
    expect(stopAt(r, ['a'])).toBe(0);
    expect(stopAt(r, ['a', 'a'])).toBe(2);
    // shares 1/2, 2/3, 3/4, 4/5: 4/5 >= 0.8 as in the repository's float comparison
    expect(stopAt(r, ['a', 'b', 'a', 'a', 'a'])).toBe(5);
    expect(() => parseRuleSpec('majority:window=3')).toThrow(/^majority\.window = 3: is not a parameter of majority/);
    expect(() => parseRuleSpec('majority:ratio=1.5')).toThrow(/^ratio = 1\.5: /);
  });
});

describe('registration', () => {
  it('the three criteria are registered with their published defaults', () => {
    const byName = new Map(listRules().map((r) => [r.name, r]));
    const defaults = (name: string) => Object.fromEntries(byName.get(name)!.params.map((p) => [p.name, p.default]));
    expect(defaults('dirichlet')).toEqual({ threshold: 0.95, topK: 5, minSamples: 1, maxSteps: null });
    expect(defaults('entropy')).toEqual({ threshold: 0.75, maxSteps: null });
    expect(defaults('majority')).toEqual({ ratio: 0.8, minSamples: 2, maxSteps: null });
  });

  it('ordergap compare --rules accepts them by name', async () => {
    const names = ['dirichlet', 'entropy', 'majority'];
    const flags = names.flatMap((n) => ['--rules', n]);
    const r = await cli('compare', '--samples', EXAMPLE, '--repeats', '1', ...flags, '--json');
    expect(r.code, r.stderr).toBe(0);
    const labels = JSON.stringify(JSON.parse(r.stdout));
    for (const l of [
      'dirichlet(threshold=0.95, topK=5, minSamples=1)',
      'entropy(threshold=0.75)',
      'plurality(ratio=0.8, minSamples=2)',
    ])
      expect(labels).toContain(l);
  });
});
