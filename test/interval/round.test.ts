import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ETA, down, downUlps, nextDown, nextUp, up, upUlps } from '../../src/interval/round.js';
import { Up, X, anyFinite, edgeDouble, ex, pow2, spacing } from './oracle.js';

const MAX = Number.MAX_VALUE;

describe('nextUp / nextDown', () => {
  it('step to the neighbouring float at the edges of f64', () => {
    expect(nextUp(1)).toBe(1 + 2 ** -52);
    expect(nextDown(1)).toBe(1 - 2 ** -53);
    expect(nextUp(0)).toBe(ETA);
    expect(nextUp(-0)).toBe(ETA);
    expect(nextDown(0)).toBe(-ETA);
    expect(Object.is(nextUp(-ETA), -0)).toBe(true);
    expect(nextUp(pow2(-1022) - ETA)).toBe(pow2(-1022));
    expect(nextUp(MAX)).toBe(Infinity);
    expect(nextDown(-MAX)).toBe(-Infinity);
    expect(nextUp(-Infinity)).toBe(-MAX);
    expect(nextUp(Infinity)).toBe(Infinity);
    expect(nextDown(-Infinity)).toBe(-Infinity);
    expect(nextUp(NaN)).toBeNaN();
  });

  test.prop([anyFinite], { numRuns: 500 })('move by the float spacing at x (an independent computation)', (x) => {
    const n = nextUp(x);
    if (n === Infinity) {
      expect(x).toBe(MAX);
      return;
    }
    // above x the spacing is that of x's binade, or of the binade x ends (x < 0 at a power of two)
    const gap = X.sub(ex(n), ex(x));
    const expected = x >= 0 ? spacing(x) : spacing(n);
    expect(gap.eq(ex(expected))).toBe(true);
    expect(nextDown(n)).toBe(x === 0 ? 0 : x);
  });
});

describe('up / down (Rump et al. 2009, Alg. 2)', () => {
  const finite = fc.oneof(anyFinite, edgeDouble);

  test.prop([finite], { numRuns: 2000 })('up(x) >= nextUp(x) and down(x) <= nextDown(x)', (x) => {
    expect(up(x)).toBeGreaterThanOrEqual(nextUp(x));
    expect(down(x)).toBeLessThanOrEqual(nextDown(x));
  });

  test.prop([finite], { numRuns: 2000 })('and move at most one float further (succ(x) or succ(succ(x)))', (x) => {
    expect(up(x)).toBeLessThanOrEqual(nextUp(nextUp(x)));
    expect(down(x)).toBeGreaterThanOrEqual(nextDown(nextDown(x)));
  });

  it('hold at the edges: ±0, subnormals, powers of two, MAX_VALUE', () => {
    const edges = [0, -0, ETA, -ETA, pow2(-1022), -pow2(-1022), 1, -1, 2 ** 52, MAX, -MAX, 1e300, -1e-300];
    for (const x of edges) {
      expect(up(x)).toBeGreaterThanOrEqual(nextUp(x));
      expect(down(x)).toBeLessThanOrEqual(nextDown(x));
    }
    expect(up(0)).toBe(ETA);
    expect(down(0)).toBe(-ETA);
    expect(up(MAX)).toBe(Infinity);
    expect(down(-MAX)).toBe(-Infinity);
  });

  it('follow the ±∞ and NaN conventions of the TSDoc', () => {
    expect(up(Infinity)).toBe(Infinity);
    expect(down(-Infinity)).toBe(-Infinity);
    expect(up(-Infinity)).toBe(-MAX); // −∞ as a result stands for a finite number below −MAX_VALUE
    expect(down(Infinity)).toBe(MAX);
    expect(up(NaN)).toBeNaN();
    expect(down(NaN)).toBeNaN();
    for (const k of [1, 2, 4]) {
      expect(upUlps(Infinity, k)).toBe(Infinity);
      expect(upUlps(-Infinity, k)).toBe(-MAX);
      expect(downUlps(-Infinity, k)).toBe(-Infinity);
      expect(downUlps(Infinity, k)).toBe(MAX);
      expect(upUlps(NaN, k)).toBeNaN();
      expect(downUlps(NaN, k)).toBeNaN();
    }
  });
});

describe('upUlps / downUlps', () => {
  const k = fc.integer({ min: 1, max: 8 });
  const u = ex(2 ** -52);
  const eta = ex(ETA);

  test.prop([fc.oneof(anyFinite, edgeDouble), k], { numRuns: 1000 })(
    'move at least k·(2⁻⁵²·|x| + η): k ulps of x or more, subnormals included',
    (x, k) => {
      const step = X.mul(X.add(X.mul(ex(x).abs(), u), eta), k);
      // and so at least k times the spacing of x's binade
      expect(step.gte(X.mul(ex(spacing(x)), k))).toBe(true);
      const hi = upUlps(x, k);
      const lo = downUlps(x, k);
      if (hi !== Infinity) expect(X.sub(ex(hi), ex(x)).gte(step)).toBe(true);
      if (lo !== -Infinity) expect(X.sub(ex(x), ex(lo)).gte(step)).toBe(true);
    },
  );

  test.prop([fc.oneof(anyFinite, edgeDouble), k], { numRuns: 1000 })(
    'and at most (k + 3)·2⁻⁵²·|x| + (k + 5)·η (the width arith.ts states)',
    (x, k) => {
      // the step d = up(|x|·k·2⁻⁵² + k·η) exceeds its exact value by at most 2.5 ulps of it, x + d
      // rounds by ½ ulp and `up` adds at most 2 ulps: with ulp(v) <= 2⁻⁵²·|v| + η that is
      // (k + 2.5)·2⁻⁵²·|x| + (k + 5)·η to first order; the 3 absorbs the second-order terms
      const bound = Up.add(Up.mul(Up.mul(ex(x).abs(), k + 3), u), Up.mul(eta, k + 5));
      const hi = upUlps(x, k);
      const lo = downUlps(x, k);
      if (Math.abs(x) < MAX / 2) {
        expect(X.sub(ex(hi), ex(x)).lte(bound)).toBe(true);
        expect(X.sub(ex(x), ex(lo)).lte(bound)).toBe(true);
      }
    },
  );
});
