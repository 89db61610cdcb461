import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  SparseAccumulator,
  sparseCombine,
  sparseFromDense,
  toDense,
  withPositions,
  zeroVector,
  type SparseVector,
} from '../../src/linearize/sparse.js';

/** Dense vectors of one length with exact zeros, subnormals and the ends of the f64 range among their entries. */
const entry = fc.oneof(
  fc.constant(0),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  fc.double({ min: -1e-300, max: 1e-300, noNaN: true }),
);
const pair = fc
  .integer({ min: 1, max: 24 })
  .chain((n) =>
    fc.tuple(fc.array(entry, { minLength: n, maxLength: n }), fc.array(entry, { minLength: n, maxLength: n })),
  );

/** The entries of v, bit for bit (−0 kept apart from 0). */
function bits(v: SparseVector): string[] {
  return [...v.index].map((i, k) => `${i}:${Object.is(v.value[k], -0) ? '-0' : v.value[k]}`);
}

describe('sparse vectors', () => {
  test.prop([pair, entry, entry])('a·u + b·v equals the dense combination, exact zeros dropped', ([u, v], a, b) => {
    const got = sparseCombine(a, sparseFromDense(u), b, sparseFromDense(v));
    // the dense sum entry by entry: a·u_i + b·v_i where both are stored, one product where one is
    const want = u.map((x, i) => (x !== 0 && v[i] !== 0 ? a * x + b * v[i]! : x !== 0 ? a * x : b * v[i]!));
    expect(bits(got)).toEqual(bits(sparseFromDense(want)));
    expect(got.dim).toBe(u.length);
  });

  test.prop([pair])('an exactly cancelling sum is the zero vector of its length (no entries, read-only)', ([u]) => {
    const su = sparseFromDense(u);
    const diff = sparseCombine(1, su, -1, su);
    expect(diff.index.length).toBe(0);
    expect(diff.value.length).toBe(0);
    expect(diff.dim).toBe(u.length);
    expect(Object.isFrozen(diff)).toBe(true);
    const acc = new SparseAccumulator(u.length);
    acc.add(1, su);
    acc.add(-1, su);
    const taken = acc.take();
    expect(taken.dim).toBe(u.length);
    expect(taken.index.length).toBe(0);
    expect(toDense(taken)).toEqual(new Float64Array(u.length));
  });

  it('zeroVector has the length asked for, whichever was asked last', () => {
    expect(zeroVector(3).dim).toBe(3);
    expect(zeroVector(5).dim).toBe(5);
    expect(zeroVector(3).dim).toBe(3);
    expect(() => ((zeroVector(3) as { dim: number }).dim = 4)).toThrow(TypeError);
  });
});

/** The map withPositions promises: pos[W[i]] = i (the last i for a repeated coordinate), else −1. */
function positionOracle(W: readonly number[], size: number): Int32Array {
  const pos = new Int32Array(size).fill(-1);
  W.forEach((j, i) => (pos[j] = i));
  return pos;
}

describe('withPositions', () => {
  const loans = fc
    .integer({ min: 1, max: 64 })
    .chain((size) =>
      fc
        .array(fc.array(fc.integer({ min: 0, max: size - 1 }), { maxLength: 12 }), { minLength: 1, maxLength: 6 })
        .map((lists) => ({ size, lists })),
    );

  test.prop([loans])(
    'lends the map of W over [0, size), and −1 everywhere again after each loan',
    ({ size, lists }) => {
      for (const W of lists) {
        const seen = withPositions(W, size, (pos) => Array.from(pos.subarray(0, size)));
        expect(seen).toEqual(Array.from(positionOracle(W, size)));
      }
      // what is left between loans: an empty W sees only −1
      expect(withPositions([], size, (pos) => pos.subarray(0, size).every((p) => p === -1))).toBe(true);
    },
  );

  test.prop([loans])('a loan inside a loan gets a map of its own; both are right', ({ size, lists }) => {
    const [outer, ...inner] = lists;
    withPositions(outer!, size, (pos) => {
      for (const W of inner)
        expect(withPositions(W, size, (p) => Array.from(p.subarray(0, size)))).toEqual(
          Array.from(positionOracle(W, size)),
        );
      expect(Array.from(pos.subarray(0, size))).toEqual(Array.from(positionOracle(outer!, size)));
    });
  });

  it('puts the map back when the user throws', () => {
    expect(() =>
      withPositions([3, 1], 8, () => {
        throw new Error('inside');
      }),
    ).toThrow('inside');
    expect(withPositions([], 8, (pos) => Array.from(pos.subarray(0, 8)))).toEqual(new Array(8).fill(-1));
  });
});
