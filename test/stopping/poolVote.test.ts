import { describe, expect, it } from 'vitest';
import { binomialUpperQuantile, falseStopTrial, SYNTHETIC_DISTRIBUTIONS } from '../../src/lab/syntheticStreams.js';
import { POOL_DEFAULT_SPENDING, PoolVoteRule, poolThresholds } from '../../src/stopping/poolVote.js';

/** Stop index (1-based) of the rule on a stream, or null if it never stops. */
function drive(rule: PoolVoteRule, stream: Array<string | null>): number | null {
  rule.reset();
  for (let i = 0; i < stream.length; i++) if (rule.observe({ t: i + 1, answer: stream[i] }).stop) return i + 1;
  return null;
}

/** Whether the rule, fed the whole sequence, stops at its last sample (its decision there depends on the counts only). */
function stopsAfter(rule: PoolVoteRule, seq: Array<string | null>): boolean {
  rule.reset();
  let last = false;
  for (let i = 0; i < seq.length; i++) last = rule.observe({ t: i + 1, answer: seq[i] }).stop;
  return last;
}

/** Every multiset of N samples as counts per answer (descending) plus a number of empty samples. */
function pools(N: number): Array<{ counts: number[]; empty: number }> {
  const out: Array<{ counts: number[]; empty: number }> = [];
  const parts = (left: number, max: number, acc: number[]) => {
    if (acc.length > 0) out.push({ counts: [...acc], empty: left });
    for (let c = Math.min(max, left); c >= 1; c--) parts(left - c, c, [...acc, c]);
  };
  parts(N, N, []);
  return out;
}

/**
 * The exact probability that the real rule stops on a non-majority answer of the pool, over a
 * uniformly random order: a walk over count vectors (answer counts drawn so far, empty samples
 * drawn), each transition with its hypergeometric probability; states where the rule stopped
 * leave the walk. At every state the rule is fed one sequence with those counts and its decision
 * at the last sample is read (the walk never looks at the thresholds).
 */
function exactFalseStop(rule: PoolVoteRule, pool: { counts: number[]; empty: number }): number {
  const N = pool.counts.reduce((a, b) => a + b, 0) + pool.empty;
  const M = Math.max(...pool.counts);
  const names = pool.counts.map((_, i) => `a${i}`);
  const kinds = [...pool.counts, pool.empty];
  let states = new Map<string, { drawn: number[]; p: number }>([['', { drawn: kinds.map(() => 0), p: 1 }]]);
  let wrong = 0;
  for (let n = 1; n <= N; n++) {
    const next = new Map<string, { drawn: number[]; p: number }>();
    for (const { drawn, p } of states.values()) {
      const left = N - (n - 1);
      kinds.forEach((total, k) => {
        const remaining = total - drawn[k]!;
        if (remaining === 0) return;
        const d = drawn.slice();
        d[k]!++;
        const key = d.join(',');
        const e = next.get(key);
        const q = (p * remaining) / left;
        if (e) e.p += q;
        else next.set(key, { drawn: d, p: q });
      });
    }
    states = new Map();
    for (const [key, s] of next) {
      const seq: Array<string | null> = [];
      s.drawn.forEach((c, k) => {
        for (let j = 0; j < c; j++) seq.push(k < names.length ? names[k]! : null);
      });
      if (stopsAfter(rule, seq)) {
        // the rule stops here: with the answer of the largest count drawn (unique, > n/2)
        let leader = 0;
        for (let k = 1; k < names.length; k++) if (s.drawn[k]! > s.drawn[leader]!) leader = k;
        if (pool.counts[leader]! < M) wrong += s.p;
      } else states.set(key, s);
    }
  }
  return wrong;
}

describe('exact pool test (pool)', () => {
  it('never stops on a non-majority answer with probability above δ, exactly, on every pool of N <= 9', () => {
    for (const N of [1, 2, 5, 8, 9]) {
      for (const delta of [0.05, 0.3]) {
        for (const spending of [0, 0.25, 1]) {
          const rule = new PoolVoteRule({ delta, budget: N, spending });
          let worst = 0;
          for (const pool of pools(N)) worst = Math.max(worst, exactFalseStop(rule, pool));
          // the enumeration sums at most N! path probabilities: rounding <= N·eps relative
          expect(worst, `N = ${N}, δ = ${delta}, ρ = ${spending}`).toBeLessThanOrEqual(
            rule.design.bound[N]! * (1 + 16 * N * Number.EPSILON),
          );
          expect(rule.design.bound[N]!).toBeLessThanOrEqual(delta);
        }
      }
    }
  });

  it('the exact check can fail: one threshold lowered by one breaks δ on some pool', () => {
    // greedy spending at N = 9, δ = 0.3 leaves no room: lowering its first stopping threshold by
    // one stops on more paths, and some pool's exact false-stop probability then exceeds δ
    const N = 9;
    const delta = 0.3;
    const rule = new PoolVoteRule({ delta, budget: N, spending: 0 });
    const c = rule.design.thresholds;
    const first = c.findIndex((v, n) => n >= 1 && v <= n);
    expect(first).toBeGreaterThan(0);
    const saved = c[first]!;
    c[first] = saved - 1; // the design is memoised: restored below
    try {
      let worst = 0;
      for (const pool of pools(N)) worst = Math.max(worst, exactFalseStop(rule, pool));
      expect(worst).toBeGreaterThan(delta);
    } finally {
      c[first] = saved;
    }
  });

  it('unanimous stops from the closed form of the worst pool (X = 19 of 40, the largest non-majority count)', () => {
    const p = (k: number) => {
      let q = 1;
      for (let i = 0; i < k; i++) q *= (19 - i) / (40 - i);
      return q;
    };
    // the worst pool is 20/19/1 (or 21/19): it is charged h(19) + h(1) = p(k) for k unanimous
    expect(p(4)).toBeLessThanOrEqual(0.05); // 0.0424: four unanimous answers can stop
    expect(p(3)).toBeGreaterThan(0.05); // 0.098: three cannot, whatever the spending
    const greedy = poolThresholds(0.05, 40, 0);
    expect([greedy.thresholds[3], greedy.thresholds[4]]).toEqual([4, 4]);
    expect(greedy.bound[4]).toBeCloseTo(p(4), 15);
    // the default spending allows δ·(5/40)^(1/4) = 0.0297 by sample 5 and 0.0281 by sample 4
    const d = poolThresholds(0.05, 40, POOL_DEFAULT_SPENDING).thresholds;
    expect(p(4)).toBeGreaterThan(0.05 * (4 / 40) ** 0.25);
    expect(p(5)).toBeLessThanOrEqual(0.05 * (5 / 40) ** 0.25);
    expect([d[4], d[5]]).toEqual([5, 5]);
    expect(drive(new PoolVoteRule({ budget: 40 }), Array(40).fill('x'))).toBe(5);
  });

  it('the bound is the largest union bound over all pools, by enumeration (N <= 24)', () => {
    // h(X): P(an answer with X of the N samples reaches c_n at some n), from the hypergeometric
    // chain of its count; the bound must equal max over pools of Σ h(X_a) over the answers a
    // below the largest count (an answer tied with the largest is a majority)
    const cases = [[0.3, 12, 0] as const, [0.2, 17, 0.25] as const, [0.1, 24, 0] as const];
    for (const [delta, N, rho] of cases) {
      const { thresholds, bound } = poolThresholds(delta, N, rho);
      const all = pools(N);
      // live[X][x]: P(count x after n samples and no hit yet); h[X]: P(a hit by sample n)
      const live = Array.from({ length: N + 1 }, () =>
        Float64Array.from({ length: N + 2 }, (_, x) => (x === 0 ? 1 : 0)),
      );
      const h = new Float64Array(N + 1);
      for (let n = 1; n <= N; n++) {
        const left = N - n + 1;
        live.forEach((v, X) => {
          for (let x = Math.min(X, n - 1); x >= 0; x--) {
            v[x + 1]! += (v[x]! * (X - x)) / left;
            v[x]! *= (left - (X - x)) / left;
          }
          for (let x = thresholds[n]!; x <= Math.min(X, n); x++) {
            h[X]! += v[x]!;
            v[x] = 0;
          }
        });
        let worst = 0;
        for (const pool of all) {
          const M = pool.counts[0]!;
          worst = Math.max(
            worst,
            pool.counts.reduce((s, X) => s + (X < M ? h[X]! : 0), 0),
          );
        }
        // both sides add the same path probabilities in different orders: relative rounding <= N·eps
        expect(Math.abs(bound[n]! - worst), `N = ${N}, δ = ${delta}, ρ = ${rho}, n = ${n}`).toBeLessThanOrEqual(
          16 * N * Number.EPSILON * worst,
        );
      }
    }
  });

  it('thresholds exceed n/2, bounds grow with n and stay within the spending', () => {
    for (const [delta, N, rho] of [
      [0.05, 40, 0.25],
      [0.01, 100, 0],
      [0.2, 17, 1],
      [0.05, 1, 0.5],
    ] as const) {
      const { thresholds, bound } = poolThresholds(delta, N, rho);
      for (let n = 1; n <= N; n++) {
        expect(thresholds[n]!).toBeGreaterThan(n / 2);
        expect(thresholds[n]!).toBeLessThanOrEqual(n + 1);
        expect(bound[n]!).toBeLessThanOrEqual(delta * (n / N) ** rho * (1 + 1e-12));
        if (n > 1) expect(bound[n]!).toBeGreaterThanOrEqual(bound[n - 1]!);
      }
    }
  });

  it('stops at the budget with reason budget, and empty samples count as samples', () => {
    const r = new PoolVoteRule({ budget: 6 });
    const seq = ['a', 'b', 'c', 'a', 'b', 'c'];
    for (let i = 0; i < 5; i++) expect(r.observe({ t: i + 1, answer: seq[i] }).stop).toBe(false);
    expect(r.observe({ t: 6, answer: 'c' }).reason).toBe('budget');
    // a leader with more than (N − 1)/2 votes is a majority of any pool: it stops at once
    expect(drive(r, ['a', 'b', 'a', 'b', 'a', 'b'])).toBe(5);
    // with δ = 0.3 and N = 9 the rule stops on 'a' after a, a, a, a; empty samples delay it
    const s = new PoolVoteRule({ delta: 0.3, budget: 9, spending: 0 });
    const at = drive(s, ['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a']);
    expect(at).not.toBeNull();
    expect(drive(s, [null, ...Array(8).fill('a')])).toBeGreaterThan(at!);
  });

  it('bad parameters are one-line errors naming them', () => {
    expect(() => new PoolVoteRule({ delta: 0 })).toThrow(/^delta = 0: must lie in \(0, 1\)/);
    expect(() => new PoolVoteRule({ budget: 0 })).toThrow(/^budget = 0/);
    expect(() => new PoolVoteRule({ budget: 1001 })).toThrow(/^budget = 1001/);
    expect(() => new PoolVoteRule({ spending: -1 })).toThrow(/^spending = -1: must be >= 0/);
    expect(() => new PoolVoteRule({ spending: Number.NaN })).toThrow(/^spending = NaN/);
    expect(() => new PoolVoteRule({ window: 3 } as never)).toThrow(/window/);
  });
});

describe('pool test: false stops on synthetic streams against the N-sample vote', () => {
  // each stream stops on a non-majority answer of its N samples with probability <= δ, so the
  // count over M independent streams is stochastically below Bin(M, δ) (as in anytime.test.ts)
  const M = 400;
  const opts = { streams: M, maxSteps: 100, seed: 99 };
  it.each([0.05, 0.2])('at δ = %s on every distribution', (delta) => {
    const bound = binomialUpperQuantile(M, delta, 1e-6);
    for (const d of SYNTHETIC_DISTRIBUTIONS) {
      const r = falseStopTrial({ name: 'pool', params: { delta, budget: opts.maxSteps } }, d, opts);
      expect(r.fullVoteFalseStops, `${d.name}: ${r.fullVoteFalseStops} of ${M}`).toBeLessThanOrEqual(bound);
    }
  });
});
