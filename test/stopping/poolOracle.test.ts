import { describe, expect, it } from 'vitest';
import { poolOracle, type CountStop, type OraclePool } from '../../bench/_poolOracle.js';
import { poolThresholds } from '../../src/stopping/poolVote.js';

/** Every distinct order of a pool's samples (answers 0..K−1, empty = −1); all equally likely. */
function orders(pool: OraclePool): number[][] {
  const left = [...pool.counts, pool.blanks];
  const out: number[][] = [];
  const walk = (seq: number[]) => {
    if (left.every((c) => c === 0)) return void out.push(seq);
    left.forEach((c, k) => {
      if (c === 0) return;
      left[k]!--;
      walk([...seq, k < pool.counts.length ? k : -1]);
      left[k]!++;
    });
  };
  walk([]);
  return out;
}

/** Mean samples and P(stop on a non-majority answer) of a count rule, by walking every order. */
function bruteForce(pool: OraclePool, stop: CountStop): { mean: number; falseStop: number } {
  const N = pool.counts.reduce((s, x) => s + x, pool.blanks);
  const M = Math.max(...pool.counts);
  let total = 0;
  let wrong = 0;
  const all = orders(pool);
  for (const seq of all) {
    const counts = pool.counts.map(() => 0);
    let b = 0;
    for (let n = 1; n <= N; n++) {
      const a = seq[n - 1]!;
      if (a < 0) b++;
      else counts[a]!++;
      const parts = counts.filter((c) => c > 0).sort((x, y) => y - x);
      if (n === N || (parts.length > 0 && stop(parts, b, n))) {
        total += n;
        const leader = counts.indexOf(Math.max(...counts));
        if (n < N && pool.counts[leader]! < M) wrong++;
        break;
      }
    }
  }
  return { mean: total / all.length, falseStop: wrong / all.length };
}

describe('lower bound on mean samples under the pool guarantee (bench/_poolOracle.ts)', () => {
  const N = 7;
  const delta = 0.3;
  const pools: OraclePool[] = [
    { counts: [7], blanks: 0, weight: 3 },
    { counts: [5, 2], blanks: 0, weight: 2 },
    { counts: [4, 2, 1], blanks: 0, weight: 1 },
    { counts: [3, 2], blanks: 2, weight: 1 },
  ];
  const constraints: OraclePool[] = [...pools, { counts: [4, 3], blanks: 0, weight: 1 }];
  const c = poolThresholds(delta, N, 0).thresholds;
  const pool: CountStop = (parts, _b, n) => parts[0]! >= c[n]!;
  const eager: CountStop = (parts) => parts[0]! >= 2;
  const run = () =>
    poolOracle({ pools, constraints, N, delta, maxAnswers: 3, maxBlanks: 2, iterations: 200, rules: { pool, eager } });

  it('the exact mean of a count rule matches a walk over every order', () => {
    const r = run();
    const units = pools.reduce((s, p) => s + p.weight, 0);
    for (const [name, rule] of [
      ['pool', pool],
      ['eager', eager],
    ] as const) {
      const brute = pools.reduce((s, p) => s + p.weight * bruteForce(p, rule).mean, 0) / units;
      // sums of a few thousand path probabilities: rounding far below 1e-12
      expect(r.exactMeans[name], name).toBeCloseTo(brute, 12);
    }
  });

  it('lies below every rule that keeps δ on the constraint pools, above the best rule without it', () => {
    const r = run();
    for (const rho of [0, 1]) {
      const cr = poolThresholds(delta, N, rho).thresholds;
      const rule: CountStop = (parts, _b, n) => parts[0]! >= cr[n]!;
      expect(Math.max(...constraints.map((p) => bruteForce(p, rule).falseStop))).toBeLessThanOrEqual(delta);
      const units = pools.reduce((s, p) => s + p.weight, 0);
      const mean = pools.reduce((s, p) => s + p.weight * bruteForce(p, rule).mean, 0) / units;
      expect(r.lowerBound, `ρ = ${rho}`).toBeLessThanOrEqual(mean);
    }
    // without constraint pools the bound is the fewest samples of any rule (stop on the first
    // answer); the guarantee must cost more than that
    const free = poolOracle({
      pools,
      constraints: [],
      N,
      delta,
      maxAnswers: 3,
      maxBlanks: 2,
      iterations: 1,
      rules: {},
    });
    expect(free.lowerBound).toBeCloseTo(
      pools.reduce((s, p) => s + p.weight * bruteForce(p, (parts) => parts.length > 0).mean, 0) /
        pools.reduce((s, p) => s + p.weight, 0),
      12,
    );
    expect(r.lowerBound).toBeGreaterThan(free.lowerBound + 0.1);
  });
});
