import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { betaTailInt, leaderProbability } from '../../src/stopping/betaTail.js';
import { EPS, expectCloseInEps } from '../util/compare.js';

/** Exact P(Bin(n, p/q) <= k) as a double: the rational Σ C(n,j) p^j (q−p)^(n−j) / q^n, divided in BigInt. */
function exactBinomialCdf(n: number, k: number, p: bigint, q: bigint): number {
  let num = 0n;
  let c = 1n; // C(n, j)
  for (let j = 0; j <= n; j++) {
    if (j <= k) num += c * p ** BigInt(j) * (q - p) ** BigInt(n - j);
    c = (c * BigInt(n - j)) / BigInt(j + 1);
  }
  const den = q ** BigInt(n);
  if (num === 0n) return 0;
  // scale so the integer quotient has ~80 significant bits, then undo the scale by exact powers of 2
  const s = den.toString(2).length - num.toString(2).length + 80;
  let x = Number((num << BigInt(s)) / den);
  for (let left = s; left > 0; left -= Math.min(left, 1000)) x /= 2 ** Math.min(left, 1000);
  return x;
}

/** Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_m, ~eps accurate). */
function gaussLegendre(m: number): { x: number[]; w: number[] } {
  const x: number[] = [];
  const w: number[] = [];
  for (let i = 1; i <= m; i++) {
    let z = Math.cos((Math.PI * (i - 0.25)) / (m + 0.5));
    let dp = 0;
    for (let it = 0; it < 100; it++) {
      let p0 = 1;
      let p1 = z;
      for (let k = 2; k <= m; k++) [p0, p1] = [p1, ((2 * k - 1) * z * p1 - (k - 1) * p0) / k];
      dp = (m * (z * p1 - p0)) / (z * z - 1);
      const dz = p1 / dp;
      z -= dz;
      if (Math.abs(dz) < 1e-16) break;
    }
    x.push(z);
    w.push(2 / ((1 - z * z) * dp * dp));
  }
  return { x, w };
}

/**
 * ∫_lo^hi x^(a−1) (1−x)^(b−1) dx by Gauss–Legendre with m >= (a+b−1)/2 nodes: the integrand is a
 * polynomial of degree a+b−2 <= 2m−1, so the rule is exact and only rounding remains.
 */
function betaIntegral(a: number, b: number, lo: number, hi: number): number {
  const { x, w } = gaussLegendre(Math.ceil((a + b) / 2) + 1);
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const t = lo + ((hi - lo) * (x[i]! + 1)) / 2;
    s += w[i]! * t ** (a - 1) * (1 - t) ** (b - 1);
  }
  return (s * (hi - lo)) / 2;
}

describe('betaTailInt', () => {
  it('hand-computed Adaptive-Consistency cases', () => {
    // v1 = 4, v2 = 0: P(Bin(5, 1/2) <= 4) = 1 − 1/32
    expectCloseInEps(leaderProbability(4, 0).above, 31 / 32, 8);
    expectCloseInEps(leaderProbability(4, 0).below, 1 / 32, 8);
    // v1 = 2, v2 = 1: P(Bin(4, 1/2) <= 2) = (1 + 4 + 6)/16
    expectCloseInEps(leaderProbability(2, 1).above, 11 / 16, 8);
    // a tie 3:3 is symmetric: 1/2
    expectCloseInEps(leaderProbability(3, 3).above, 0.5, 8);
    // no votes: uniform prior, P = 1/2
    expectCloseInEps(leaderProbability(0, 0).above, 0.5, 8);
  });

  it('edges x = 0 and x = 1', () => {
    expect(betaTailInt(3, 4, 0)).toEqual({ above: 1, below: 0 });
    expect(betaTailInt(3, 4, 1)).toEqual({ above: 0, below: 1 });
  });

  // Tolerance from the module's error analysis: each log-term carries <= 3·j·eps·max(1, |log t_j|)
  // with |log t_j| <= n·ln(1/min(x,1−x)); the sums add n·eps. Doubled for the exact reference's own rounding.
  const tol = (n: number, x: number): number => 2 * (3 * n * Math.max(1, n * Math.log(1 / Math.min(x, 1 - x))) + n + 2);

  fcTest.prop([fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 150 })])(
    'leaderProbability equals the exact BigInt binomial sum (both tails, relative)',
    (v1, v2) => {
      const n = v1 + v2 + 1;
      const p = leaderProbability(v1, v2);
      expectCloseInEps(p.above, exactBinomialCdf(n, v1, 1n, 2n), tol(n, 0.5));
      // the complement P(Bin(n, 1/2) >= v1 + 1) = P(Bin(n, 1/2) <= n − v1 − 1) by the symmetry j ↔ n − j
      expectCloseInEps(p.below, exactBinomialCdf(n, n - v1 - 1, 1n, 2n), tol(n, 0.5));
    },
  );

  fcTest.prop([fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 19 })])(
    'general x = k/20 equals the exact rational tail',
    (a, b, k) => {
      const n = a + b - 1;
      const x = k / 20;
      const r = betaTailInt(a, b, x);
      // P(Beta(a,b) > x) = P(Bin(n, x) <= a − 1); the complement = P(Bin(n, 1 − x) <= b − 1)
      expectCloseInEps(r.above, exactBinomialCdf(n, a - 1, BigInt(k), 20n), tol(n, x));
      expectCloseInEps(r.below, exactBinomialCdf(n, b - 1, BigInt(20 - k), 20n), tol(n, x));
    },
  );

  fcTest.prop([
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: 1, max: 40 }),
    fc.double({ min: 0.05, max: 0.95, noNaN: true }),
  ])('agrees with Gauss–Legendre integration of the Beta density (an independent computation)', (a, b, x) => {
    const upper = betaIntegral(a, b, x, 1);
    const lower = betaIntegral(a, b, 0, x);
    const r = betaTailInt(a, b, x);
    // quadrature rounding: m + degree terms of relative error ~eps each, powers up to a+b: 200·(a+b)·eps
    const q = 200 * (a + b);
    expectCloseInEps(r.above, upper / (upper + lower), q + tol(a + b - 1, x));
    expectCloseInEps(r.below, lower / (upper + lower), q + tol(a + b - 1, x));
  });

  fcTest.prop([
    fc.integer({ min: 1, max: 3000 }),
    fc.integer({ min: 1, max: 3000 }),
    fc.double({ min: 0.001, max: 0.999, noNaN: true }),
  ])('above + below = 1 and nothing overflows for large counts', (a, b, x) => {
    const r = betaTailInt(a, b, x);
    expect(r.above).toBeGreaterThanOrEqual(0);
    expect(r.below).toBeGreaterThanOrEqual(0);
    expect(Math.abs(r.above + r.below - 1)).toBeLessThanOrEqual(4 * EPS);
  });

  it('keeps relative accuracy in a tail far below eps (no 1 − 1 cancellation)', () => {
    // 200 votes to 0: P(p1 <= p2) = 2^−201 exactly
    const p = leaderProbability(200, 0);
    expect(p.above).toBe(1);
    expectCloseInEps(p.below, 2 ** -201, 2 * (3 * 201 * 201 * Math.LN2 + 203));
  });

  fcTest.prop([fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })])(
    'monotone: one more vote for the leader never lowers P(p1 > p2)',
    (v1, v2) => {
      expect(leaderProbability(v1 + 1, v2).above).toBeGreaterThanOrEqual(leaderProbability(v1, v2).above);
    },
  );

  it('rejects bad arguments naming them', () => {
    expect(() => betaTailInt(0, 1, 0.5)).toThrow(/^a = 0/);
    expect(() => betaTailInt(1, 1.5, 0.5)).toThrow(/^b = 1.5/);
    expect(() => betaTailInt(1, 1, 1.5)).toThrow(/^x = 1.5: must lie in \[0, 1\]/);
    expect(() => betaTailInt(1, 1, NaN)).toThrow(/^x = NaN/);
    expect(() => leaderProbability(-1, 0)).toThrow(/^v1 = -1/);
  });
});
