/**
 * The graph kernels' e^x (assembly/graph/exp.ts) is V8's `Math.exp` bit for bit, on the Node
 * that runs the suite: it is what makes the wasm forms of Q equal the TypeScript reference
 * exactly. Checked over the whole f64 range (fast-check doubles, subnormals and ±1e±300
 * included), densely where the method switches branch (|x| = ln2/2, 1.5·ln2, 2⁻²⁸, the overflow
 * and underflow thresholds and the subnormal range below −708) and on the special values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { init, wasm } from '../../../src/wasm/module.js';

let exp: (x: number) => number;

beforeAll(async () => {
  await init();
  exp = wasm().exports.graphExp;
});

/** The inputs where exp and Math.exp differ (Object.is: −0, NaN and ±inf count). */
function mismatches(xs: Iterable<number>): number[] {
  const bad: number[] = [];
  for (const x of xs) if (!Object.is(exp(x), Math.exp(x))) bad.push(x);
  return bad;
}

/** `count` points spread over [a, b] by a fixed linear congruential sequence (reproducible). */
function* spread(a: number, b: number, count: number): Generator<number> {
  let s = 12345;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    yield a + ((b - a) * s) / 2 ** 32;
  }
}

/** The `count` doubles on each side of x, one ulp apart. */
function* around(x: number, count: number): Generator<number> {
  const f = new Float64Array(1);
  const b = new BigInt64Array(f.buffer);
  f[0] = x;
  const at = b[0]!;
  for (let i = -count; i <= count; i++) {
    b[0] = at + BigInt(i);
    yield f[0]!;
  }
}

describe('graph kernels: exp is Math.exp bit for bit', () => {
  it('on the special values and the ends of f64', () => {
    const specials = [0, -0, 1, -1, Math.LN2, -Math.LN2, NaN, Infinity, -Infinity];
    const ends = [Number.MIN_VALUE, -Number.MIN_VALUE, 2 ** -1022, -(2 ** -1022), 1e-300, -1e-300, 1e300, -1e300];
    const large = [709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412, 1024, -1075];
    expect(mismatches([...specials, ...ends, ...large, Number.MAX_VALUE, -Number.MAX_VALUE])).toEqual([]);
    expect(exp(1)).toBe(Math.E);
  });

  it('densely around every branch point of the method', () => {
    const points = [
      0.5 * Math.LN2, // |x| > ln2/2: reduction by k
      1.5 * Math.LN2, // |x| < 1.5·ln2: k = ±1
      2 ** -28, // below: 1 + x
      709.782712893384, // overflow threshold
      -745.1332191019411, // underflow threshold
      -708.3964185322641, // the last k >= −1021 (the result leaves the normal range below)
    ];
    for (const p of points) expect(mismatches([...around(p, 2000), ...around(-p, 2000)])).toEqual([]);
  });

  it('on 10⁶ points over the range where exp is finite and non-zero, and over the subnormal results', () => {
    expect(mismatches(spread(-746, 710, 600_000))).toEqual([]);
    expect(mismatches(spread(-40, 40, 300_000))).toEqual([]);
    expect(mismatches(spread(-745.2, -708, 100_000))).toEqual([]);
  });

  it('on any double (fast-check)', () => {
    fc.assert(
      fc.property(fc.double(), (x) => Object.is(exp(x), Math.exp(x))),
      { numRuns: 20_000 },
    );
  });
});
