import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { Decimal } from 'decimal.js';
import * as A from '../../src/interval/arith.js';
import { ETA } from '../../src/interval/round.js';
import {
  type Box,
  type Bracket,
  Up,
  X,
  addB,
  box,
  divB,
  edgeDouble,
  encloses,
  ex,
  exact,
  expB,
  log1pB,
  logB,
  mulB,
  pow2,
  powB,
  show,
  sigmoidB,
  softplusB,
  spacing,
  sqrtB,
  stepFloat,
  subB,
  sumB,
  tanhB,
} from './oracle.js';

const { R } = A;
const MAX = Number.MAX_VALUE;
/** 2⁻⁵² and η as exact decimals: the relative and the absolute unit of every width bound below. */
const EPS = ex(2 ** -52);
const ETA_D = ex(ETA);

/** R's current ends (read before anything else can write R). */
function result(): [number, number] {
  return [R.lo, R.hi];
}

function expectEncloses(lo: number, hi: number, b: Bracket, what: string): void {
  expect(encloses(lo, hi, b), `${what}: ${show(lo, hi, b)}`).toBe(true);
}

/** The finite doubles of the properties. */
const finite = edgeDouble.filter((x) => Number.isFinite(x));

/** c·2⁻⁵²·|y| + d·η, rounded up. */
function tol(y: Decimal, c: number, d: number): Decimal {
  return Up.add(Up.mul(Up.mul(y.abs(), c), EPS), Up.mul(ETA_D, d));
}

/** Both ends of [lo, hi] lie within `bound` of every value of the bracket b (exact comparison). */
function expectWithin(lo: number, hi: number, b: Bracket, bound: Decimal, what: string): void {
  const over = X.sub(ex(hi), b.lo);
  const under = X.sub(b.hi, ex(lo));
  expect(over.lte(bound) && under.lte(bound), `${what}: [${lo}, ${hi}] wider than ${bound.toPrecision(6)}`).toBe(true);
}

// ---- enclosure: f(x) ∈ F(a) for points x of a, exact in decimal ----

interface Unary {
  name: string;
  op: (alo: number, ahi: number) => void;
  oracle: (x: Decimal) => Bracket;
  domain?: (x: number) => boolean;
}

const UNARY: Unary[] = [
  { name: 'neg', op: A.neg, oracle: (x) => exact(x.neg()) },
  { name: 'abs', op: A.abs, oracle: (x) => exact(x.abs()) },
  { name: 'relu', op: A.relu, oracle: (x) => exact(Up.max(x, 0)) },
  { name: 'square', op: A.square, oracle: (x) => powB(x, 2) },
  { name: 'sqrt', op: A.sqrt, oracle: sqrtB, domain: (x) => x >= 0 },
  { name: 'exp', op: A.exp, oracle: expB },
  { name: 'log', op: A.log, oracle: logB, domain: (x) => x > 0 },
  { name: 'log1p', op: A.log1p, oracle: log1pB, domain: (x) => x > -1 },
  { name: 'tanh', op: A.tanh, oracle: tanhB },
  { name: 'sigmoid', op: A.sigmoid, oracle: sigmoidB },
  { name: 'softplus', op: A.softplus, oracle: softplusB },
];

describe.each(UNARY)('$name encloses f(x) for every x in the interval', ({ name, op, oracle, domain }) => {
  test.prop([box], { numRuns: 150 })('random intervals, edges of f64 included', (a: Box) => {
    op(a.lo, a.hi);
    const [lo, hi] = result();
    for (const x of a.points)
      if (!domain || domain(x)) expectEncloses(lo, hi, oracle(ex(x)), `${name}([${a.lo}, ${a.hi}]) at ${x}`);
  });
});

interface Binary {
  name: string;
  op: (alo: number, ahi: number, blo: number, bhi: number) => void;
  oracle: (x: Decimal, y: Decimal) => Bracket | undefined;
}

const BINARY: Binary[] = [
  { name: 'add', op: A.add, oracle: addB },
  { name: 'sub', op: A.sub, oracle: subB },
  { name: 'mul', op: A.mul, oracle: mulB },
  { name: 'div', op: A.div, oracle: (x, y) => (y.isZero() ? undefined : divB(x, y)) },
  { name: 'min', op: A.min, oracle: (x, y) => exact(Up.min(x, y)) },
  { name: 'max', op: A.max, oracle: (x, y) => exact(Up.max(x, y)) },
  { name: 'hull (a)', op: A.hull, oracle: (x) => exact(x) },
  { name: 'hull (b)', op: A.hull, oracle: (_, y) => exact(y) },
];

describe.each(BINARY)('$name encloses x ∘ y for every x in a, y in b', ({ name, op, oracle }) => {
  test.prop([box, box], { numRuns: 150 })('random intervals, edges of f64 included', (a: Box, b: Box) => {
    op(a.lo, a.hi, b.lo, b.hi);
    const [lo, hi] = result();
    for (const x of a.points)
      for (const y of b.points) {
        const o = oracle(ex(x), ex(y));
        if (o) expectEncloses(lo, hi, o, `${name}([${a.lo}, ${a.hi}], [${b.lo}, ${b.hi}]) at ${x}, ${y}`);
      }
  });
});

describe('the operations with a point parameter, and sum', () => {
  test.prop([box, finite], { numRuns: 200 })('scale encloses x·s', (a, s) => {
    A.scale(a.lo, a.hi, s);
    const [lo, hi] = result();
    for (const x of a.points) expectEncloses(lo, hi, mulB(ex(x), ex(s)), `scale([${a.lo}, ${a.hi}], ${s}) at ${x}`);
  });

  test.prop([box, finite, finite], { numRuns: 200 })('clamp encloses min(max(x, l), h)', (a, p, q) => {
    const [l, h] = p <= q ? [p, q] : [q, p];
    A.clamp(a.lo, a.hi, l, h);
    const [lo, hi] = result();
    for (const x of a.points) {
      const v = Up.min(Up.max(ex(x), ex(l)), ex(h));
      expectEncloses(lo, hi, exact(v), `clamp([${a.lo}, ${a.hi}], ${l}, ${h}) at ${x}`);
    }
  });

  test.prop([box, fc.integer({ min: 0, max: 8 })], { numRuns: 200 })('powInt encloses xⁿ', (a, n) => {
    A.powInt(a.lo, a.hi, n);
    const [lo, hi] = result();
    for (const x of a.points) expectEncloses(lo, hi, powB(ex(x), n), `powInt([${a.lo}, ${a.hi}], ${n}) at ${x}`);
  });

  const zero: Box = { lo: 0, hi: 0, points: [0] };
  const term = fc.tuple(fc.oneof(box, fc.constant(zero)), fc.nat());
  test.prop([fc.array(term, { maxLength: 8 })], { numRuns: 200 })('sum encloses Σ x_i', (terms) => {
    A.sum(
      terms.map(([t]) => t.lo),
      terms.map(([t]) => t.hi),
    );
    const [lo, hi] = result();
    const xs = terms.map(([t, i]) => t.points[i % t.points.length]!);
    expectEncloses(lo, hi, sumB(xs.map((x) => ex(x))), `sum at ${xs.join(', ')}`);
  });
});

describe('the documented conventions', () => {
  it('no enclosure (NaN) where no real is in the domain', () => {
    A.log(-2, -1);
    expect(R.lo).toBeNaN();
    A.sqrt(-2, -1);
    expect(R.hi).toBeNaN();
    A.log1p(-3, -2);
    expect(R.lo).toBeNaN();
    A.powInt(1, 2, 1.5);
    expect(R.lo).toBeNaN();
    A.powInt(1, 2, -1);
    expect(R.lo).toBeNaN();
  });

  it('a divisor containing 0 gives the whole line; infinite ends never make NaN', () => {
    A.div(1, 2, -1, 1);
    expect(result()).toEqual([-Infinity, Infinity]);
    A.div(-Infinity, Infinity, 1, Infinity);
    expect(result()).toEqual([-Infinity, Infinity]);
    A.div(1, Infinity, -Infinity, -1);
    expect(R.lo).toBe(-Infinity);
    expect(R.hi).toBeGreaterThanOrEqual(0);
    A.mul(0, 0, -Infinity, Infinity);
    expect(result()).toEqual([0, 0]); // 0 times any real is 0: structural zeros stay exact
  });

  it('log and log1p reaching their pole give −∞; tanh, sigmoid stay in their ranges', () => {
    A.log(0, 1);
    expect(R.lo).toBe(-Infinity);
    A.log1p(-1, 0);
    expect(R.lo).toBe(-Infinity);
    A.tanh(-Infinity, Infinity);
    expect(result()).toEqual([-1, 1]);
    A.sigmoid(-Infinity, Infinity);
    expect(result()).toEqual([0, 1]);
  });
});

// ---- the width of the enclosure of a point ----

describe('+ − × ÷ √ of points: each end within 2 floats of the correctly rounded result', () => {
  // r = fl(x ∘ y) is correctly rounded and up(r), down(r) move 1 or 2 floats (round.test.ts)
  const within2 = (r: number, what: string): void => {
    const [lo, hi] = result();
    expect(lo >= stepFloat(r, -2) && hi <= stepFloat(r, 2), `${what}: [${lo}, ${hi}] around ${r}`).toBe(true);
  };
  test.prop([finite, finite], { numRuns: 500 })('add, sub, mul, div, scale', (x, y) => {
    A.add(x, x, y, y);
    within2(x + y, `${x} + ${y}`);
    A.sub(x, x, y, y);
    within2(x - y, `${x} − ${y}`);
    A.mul(x, x, y, y);
    within2(x * y, `${x}·${y}`);
    A.scale(x, x, y);
    within2(x * y, `${x}·${y} (scale)`);
    if (y !== 0) {
      A.div(x, x, y, y);
      within2(x / y, `${x} / ${y}`);
    }
  });
  test.prop([finite], { numRuns: 500 })('square, sqrt', (x) => {
    A.square(x, x);
    within2(x * x, `${x}²`);
    if (x >= 0) {
      A.sqrt(x, x);
      within2(Math.sqrt(x), `√${x}`);
    }
  });
});

// The error bounds of V8's libm that the widening relies on (src/interval/arith.ts):
// exp, log, log1p below 1 ulp (fdlibm's comments, "according to an error analysis, the error is
// always less than 1 ulp"); tanh below TANH_REL·2⁻⁵²·|tanh x| (derived there from fdlibm's method).
const TANH_REL = 2.77;

interface Libm {
  name: string;
  op: (alo: number, ahi: number) => void;
  f: (x: number) => number;
  oracle: (x: Decimal) => Bracket;
  k: number;
  domain: (x: number) => boolean;
}

const LIBM: Libm[] = [
  { name: 'exp', op: A.exp, f: Math.exp, oracle: expB, k: A.LIBM_ULPS, domain: () => true },
  { name: 'log', op: A.log, f: Math.log, oracle: logB, k: A.LIBM_ULPS, domain: (x) => x > 0 },
  { name: 'log1p', op: A.log1p, f: Math.log1p, oracle: log1pB, k: A.LIBM_ULPS, domain: (x) => x > -1 },
  { name: 'tanh', op: A.tanh, f: Math.tanh, oracle: tanhB, k: A.TANH_ULPS, domain: () => true },
];

/** The spacing of the floats in the binade of the real y (given by a narrow bracket). */
function ulpOf(b: Bracket): Decimal {
  let f = b.lo.abs().toNumber();
  if (ex(f).gt(b.lo.abs())) f = stepFloat(f, -1);
  return ex(spacing(f));
}

describe.each(LIBM)('$name of a point', ({ name, op, f, oracle, k, domain }) => {
  const arg = finite.filter(domain);

  test.prop([arg], { numRuns: 300 })(
    name === 'tanh' ? 'V8 is within the derived bound TANH_REL·2⁻⁵²·|y|' : 'V8 is within 1 ulp',
    (x) => {
      const r = f(x);
      if (!Number.isFinite(r)) return;
      const b = oracle(ex(x));
      const err = Up.max(X.sub(ex(r), b.lo).abs(), X.sub(ex(r), b.hi).abs());
      const bound = name === 'tanh' ? tol(b.lo, TANH_REL, 0) : ulpOf(b);
      expect(name === 'tanh' ? err.lte(bound) : err.lt(bound), `${name}(${x}) = ${r}`).toBe(true);
    },
  );

  test.prop([arg], { numRuns: 300 })('the enclosure holds every value that bound allows', (x) => {
    const r = f(x);
    op(x, x);
    const [lo, hi] = result();
    if (!Number.isFinite(r)) return;
    // |y − r| < ulp(y) <= 2⁻⁵²·|y| + η <= 2⁻⁵²·|r|·(1 + 2⁻⁵¹) + η; tanh's bound likewise
    const reach = name === 'tanh' ? tol(ex(r), TANH_REL * (1 + 2 ** -50), 0) : tol(ex(r), 1 + 2 ** -51, 1);
    const [min, max] = name === 'tanh' ? [-1, 1] : [-Infinity, Infinity];
    const want = { lo: Up.max(X.sub(ex(r), reach), min), hi: Up.min(X.add(ex(r), reach), max) };
    if (name === 'exp') want.lo = Up.max(want.lo, 0);
    expectEncloses(lo, hi, want, `${name}(${x})`);
  });

  test.prop([arg], { numRuns: 300 })('each end within (k + 3)·2⁻⁵²·|r| + (k + 5)·η of r = V8 result', (x) => {
    const r = f(x);
    op(x, x);
    const [lo, hi] = result();
    if (r === Infinity)
      expect(lo).toBe(MAX); // overflow: the inner end stays finite
    else expectWithin(lo, hi, exact(ex(r)), tol(ex(r), k + 3, k + 5), `${name}(${x})`);
  });
});

describe('the composite enclosures of a point', () => {
  test.prop([finite], { numRuns: 200 })('sigmoid: each end within 12·2⁻⁵²·σ(x) + 11η while e^(−x) is finite', (x) => {
    // E = e^(−x): the exp end is within (2^-52·|E| + η) + (LIBM_ULPS + 3)·2⁻⁵²·|E| + (LIBM_ULPS + 5)·η
    // = 6·2⁻⁵²·E + 8η of E; 1 + E rounds by 2.5·2⁻⁵² relative (fl and up/down), 1/den by 2.5·2⁻⁵²
    // relative + 2.5η: σ·(6 + 2.5 + 2.5)·2⁻⁵² + 8η + 2.5η to first order
    A.sigmoid(x, x);
    const [lo, hi] = result();
    const b = sigmoidB(ex(x));
    if (!Number.isFinite(Math.exp(-x))) {
      // e^(−x) overflowed: the high end is 1/MAX_VALUE rounded up, the low end 0
      expect(lo).toBe(0);
      expect(hi).toBeLessThanOrEqual(pow2(-1023));
      return;
    }
    expectWithin(lo, hi, b, tol(b.hi, 12, 11), `sigmoid(${x})`);
  });

  const belowHalfMax = finite.filter((x) => x <= MAX / 2); // above, up(x) overflows to ∞
  test.prop([belowHalfMax], { numRuns: 200 })('softplus: each end within 18·2⁻⁵²·softplus(x) + 19η', (x) => {
    // u = e^(−|x|) ∈ (0, 1]: its end is within 6·2⁻⁵²·u + 8η of u (as for sigmoid); log1p has slope
    // <= 1 and u <= log1p(u)/ln 2, so that moves L = log1p(u) by 8.7·2⁻⁵²·L + 8η; log1p's own
    // error and widening add 6·2⁻⁵²·L + 8η; max(x, 0) + l rounds by 2.5·2⁻⁵² relative + 2.5η
    A.softplus(x, x);
    const [lo, hi] = result();
    const b = softplusB(ex(x));
    expectWithin(lo, hi, b, tol(b.hi, 18, 19), `softplus(${x})`);
  });

  test.prop([finite, fc.integer({ min: 0, max: 8 })], { numRuns: 300 })(
    'powInt: each end within ((1 + 3·2⁻⁵²)^(n−1) − 1)·|xⁿ| while every power is normal',
    (x, n) => {
      // n − 1 products, each rounded to nearest (½ ulp) and moved out by up/down (<= 2 ulps):
      // a factor 1 + 2.5·2⁻⁵² + O(2⁻¹⁰⁴) <= 1 + 3·2⁻⁵² per product
      A.powInt(x, x, n);
      const [lo, hi] = result();
      const b = powB(ex(x), n);
      const normal = (v: Decimal): boolean => v.abs().gte(ex(pow2(-1000))) && v.abs().lte(ex(pow2(1000)));
      if (n > 0 && !(normal(ex(x)) && normal(b.lo) && normal(b.hi))) return;
      const grow = Up.sub(Up.pow(Up.add(1, Up.mul(EPS, 3)), Math.max(n - 1, 0)), 1);
      expectWithin(lo, hi, b, Up.mul(grow, b.hi.abs()), `powInt(${x}, ${n})`);
    },
  );

  test.prop([fc.array(finite, { maxLength: 8 })], { numRuns: 300 })(
    'sum: each end within 3·2⁻⁵²·Σᵢ Pᵢ + 3·m·η, Pᵢ = Σ_{j<=i} |x_j| over the m non-zero terms',
    (xs) => {
      // each partial sum rounds to nearest (½ ulp) and moves out by up/down (<= 2 ulps), with
      // ulp(v) <= 2⁻⁵²·|v| + η and |partial i| <= Pᵢ + the error so far: 2.5·2⁻⁵²·Σ Pᵢ + 2.5·m·η
      // to first order
      A.sum(xs, xs);
      const [lo, hi] = result();
      const nz = xs.filter((x) => x !== 0);
      let p = new Up(0);
      let sp = new Up(0);
      for (const x of nz) {
        p = Up.add(p, ex(x).abs());
        sp = Up.add(sp, p);
      }
      if (p.gte(ex(MAX / 4))) return; // partial sums may overflow
      const bound = Up.add(Up.mul(Up.mul(sp, 3), EPS), Up.mul(ETA_D, 3 * nz.length));
      expectWithin(lo, hi, sumB(xs.map((x) => ex(x))), bound, `sum(${xs.join(', ')})`);
    },
  );

  test.prop([finite, finite, finite], { numRuns: 200 })('the exact operations map points to points', (x, y, z) => {
    const point = (what: string, v: number): void => {
      const [lo, hi] = result();
      expect(lo === v && hi === v, `${what}: [${lo}, ${hi}] is not the point ${v}`).toBe(true);
    };
    A.neg(x, x);
    point('neg', -x);
    A.abs(x, x);
    point('abs', Math.abs(x));
    A.relu(x, x);
    point('relu', Math.max(x, 0));
    A.min(x, x, y, y);
    point('min', Math.min(x, y));
    A.max(x, x, y, y);
    point('max', Math.max(x, y));
    A.hull(x, x, x, x);
    point('hull', x);
    const [l, h] = y <= z ? [y, z] : [z, y];
    A.clamp(x, x, l, h);
    point('clamp', Math.min(Math.max(x, l), h));
    A.powInt(x, x, 1);
    point('powInt(·, 1)', x);
  });
});
