/**
 * src/certify/subspace.ts, the one reader of a Subspace: names resolved ('all', declared
 * subspaces and questions, the policy's W_q, `<q>/coordinates`), sizes without enumerating
 * ranges, and orthonormal bases.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  basisOf,
  blockIndices,
  isCoordinateBlock,
  orthonormalBasis,
  policySpacesAt,
  resolveQuestion,
  resolveSubspace,
  subspaceSize,
} from '../../src/certify/subspace.js';
import { coordinateRange } from '../../src/system/coordinates.js';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystem, Subspace } from '../../src/system/types.js';
import { randomMatrix } from './linearSystems.js';

/** A 6-dimensional system with a list, a range, a question and a policy question space. */
function sample(withPolicy = true): OperatorSystem {
  return defineSystem({
    name: 'six',
    dim: 6,
    theta0: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    consolidate: (t) => Array.from(t, (x) => 0.5 * x),
    expand: (_e, t) => Array.from(t),
    evidence: [{ id: 'e', p: 1 }],
    subspaces: { head: [0, 1], tail: coordinateRange(3, 3) },
    questions: { q: [2, 3], r: [4] },
    ...(withPolicy
      ? {
          certification: {
            questionSpaces: (theta: Float64Array) => [
              { name: 'q', vectors: [Array.from(theta, (x, i) => (i === 2 ? x : 0))] },
            ],
          },
        }
      : {}),
  });
}

describe('resolving subspaces and questions by name', () => {
  it("'all' and declared ranges stay ranges: sizes are O(1), nothing is enumerated", () => {
    // a system of 2^30 coordinates: only its name, dimension and declarations are read
    const huge = { name: 'huge', dim: 2 ** 30, subspaces: { edges: coordinateRange(5, 2 ** 29, 2) }, questions: {} };
    const all = resolveSubspace(huge as unknown as OperatorSystem, 'all');
    expect(isCoordinateBlock(all)).toBe(true);
    expect(subspaceSize(all)).toBe(2 ** 30);
    const edges = resolveSubspace(huge as unknown as OperatorSystem, 'edges');
    expect(isCoordinateBlock(edges) && edges.coordinates).toBe(huge.subspaces.edges);
    expect(() => blockIndices(edges as Extract<Subspace, { coordinates: unknown }>)).toThrow(/too large to enumerate/);
  });

  it('declared subspaces, declared question coordinates, given subspaces; unknown and empty ones named', () => {
    const sys = sample();
    expect(resolveSubspace(sys, 'head')).toEqual({ name: 'head', coordinates: [0, 1] });
    expect(subspaceSize(resolveSubspace(sys, 'tail'))).toBe(3);
    expect(resolveSubspace(sys, 'r')).toEqual({ name: 'r', coordinates: [4] });
    const given = { name: 'v', vectors: [[1, 0, 0, 0, 0, 0]] };
    expect(resolveSubspace(sys, given)).toBe(given);
    expect(() => resolveSubspace(sys, 'nope')).toThrow(/^subspace = "nope": .*known: all, head, tail, q, r/);
    expect(() => resolveSubspace(sys, { name: 'none', vectors: [] })).toThrow(/^subspace = "none": .*empty/);
  });

  it('one W_q per name: the policy’s space, its coordinates as <q>/coordinates, declared ones, subspaces as stand-ins', () => {
    const sys = sample();
    const theta = Float64Array.from(sys.theta0!);
    const spaces = policySpacesAt(sys, theta);
    const q = resolveQuestion(sys, 'q', spaces);
    expect(q.basis).toBe('item directions');
    expect('vectors' in q.spec && (q.spec.vectors[0] as ArrayLike<number>)[2]).toBe(0.3);
    expect(resolveQuestion(sys, 'q/coordinates', spaces)).toEqual({
      spec: { name: 'q/coordinates', coordinates: [2, 3] },
      source: 'question',
      basis: 'declared coordinates',
    });
    expect(resolveQuestion(sys, 'r', spaces).basis).toBe('declared coordinates');
    // `<q>/coordinates` names only a question whose default is another basis
    expect(() => resolveQuestion(sys, 'r/coordinates', spaces)).toThrow(/known: .*q\/coordinates/);
    expect(resolveQuestion(sys, 'head', spaces)).toMatchObject({ source: 'subspace', basis: 'subspace' });
    expect(resolveQuestion(sys, { name: 'g', coordinates: [5] }, spaces).basis).toBe('given');
    // without a policy the question is its declared coordinates
    const plain = sample(false);
    expect(resolveQuestion(plain, 'q', policySpacesAt(plain, theta)).basis).toBe('declared coordinates');
  });

  it('the policy’s question spaces are computed once, on first use', () => {
    let calls = 0;
    const sys = defineSystem({
      name: 'counted',
      dim: 2,
      theta0: [0, 0],
      consolidate: (t) => Array.from(t),
      expand: (_e, t) => Array.from(t),
      evidence: [{ id: 'e', p: 1 }],
      questions: { q: [0] },
      certification: { questionSpaces: () => (calls++, [{ name: 'q', coordinates: [1] }]) },
    });
    const spaces = policySpacesAt(sys, new Float64Array(2));
    expect(calls).toBe(0);
    resolveQuestion(sys, 'q', spaces);
    resolveQuestion(sys, 'q/coordinates', spaces);
    expect(calls).toBe(1);
  });
});

describe('orthonormal bases', () => {
  it('a coordinate block (list or range) gives its unit vectors; a repeated or out-of-range index is named', () => {
    const fromList = basisOf(6, { name: 'w', coordinates: [4, 1] });
    expect(Array.from(fromList.coordinates!)).toEqual([4, 1]);
    expect(fromList.vectors.map((v) => [Array.from(v.index), Array.from(v.value)])).toEqual([
      [[4], [1]],
      [[1], [1]],
    ]);
    const fromRange = basisOf(6, { name: 'w', coordinates: coordinateRange(1, 3, 2) });
    expect(Array.from(fromRange.coordinates!)).toEqual([1, 3, 5]);
    expect(() => basisOf(6, { name: 'w', coordinates: [1, 1] })).toThrow(/^subspaces\.w\[1\] = 1: is a duplicate/);
    expect(() => basisOf(6, { name: 'w', coordinates: coordinateRange(4, 3) })).toThrow(/^subspaces\.w\[2\] = 6/);
  });

  // MGS twice: BᵀB = I to a few m·eps, and every spanning vector is reproduced by its projection
  // B Bᵀ v to the same order relative to ‖v‖ (here m <= 6: 64·eps leaves a wide margin)
  fcTest.prop([fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1e6 })], { numRuns: 40 })(
    'spanning vectors: BᵀB = I and span(B) = span(vectors), dependent ones dropped',
    (k, seed) => {
      const n = 7;
      const V = randomMatrix(n, seed).slice(0, k);
      const vectors = [...V, V[0]!.map((x, i) => 2 * x - V[k - 1]![i]!)]; // in span(V): dropped
      const B = orthonormalBasis(n, vectors, 'v', { dropDependent: true });
      const dense = B.map((b) => {
        const x = new Float64Array(n);
        b.index.forEach((j, t) => (x[j] = b.value[t]!));
        return x;
      });
      const tol = 64 * Number.EPSILON;
      for (let i = 0; i < dense.length; i++)
        for (let j = 0; j <= i; j++) {
          const g = dense[i]!.reduce((s, x, t) => s + x * dense[j]![t]!, 0);
          expect(Math.abs(g - (i === j ? 1 : 0))).toBeLessThan(tol);
        }
      expect(dense.length).toBe(k);
      for (const v of vectors) {
        const c = dense.map((b) => b.reduce((s, x, t) => s + x * v[t]!, 0));
        const r = v.map((x, t) => x - dense.reduce((s, b, i) => s + c[i]! * b[t]!, 0));
        expect(Math.hypot(...r)).toBeLessThan(tol * Math.hypot(...v) * n);
      }
    },
  );

  // the sparse form (zeros dropped, some kept as stored zeros) holds the same values on the
  // same union of supports: the same Gram–Schmidt sums, so the same basis bit for bit
  fcTest.prop([fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 1e6 }), fc.boolean()], { numRuns: 40 })(
    'sparse spanning vectors give the basis of their dense form bit for bit, mixed or not',
    (k, seed, mixed) => {
      const n = 9;
      const V = randomMatrix(n, seed)
        .slice(0, k)
        .map((row, r) => row.map((x, i) => ((i + r) % 3 === 0 ? 0 : x))); // zeros in varying places
      const sparse = V.map((row, r) => {
        const index: number[] = [];
        const value: number[] = [];
        row.forEach((x, i) => {
          if (x !== 0 || i === r) {
            index.push(i); // a stored zero when row[r] = 0
            value.push(x);
          }
        });
        return { dim: n, index: Int32Array.from(index), value: Float64Array.from(value) };
      });
      const given = sparse.map((v, r) => (mixed && r % 2 === 1 ? V[r]! : v));
      expect(orthonormalBasis(n, given, 'v', { dropDependent: true })).toEqual(
        orthonormalBasis(n, V, 'v', { dropDependent: true }),
      );
    },
  );

  it('a sparse vector of the wrong dim, with indices out of order or a non-finite value is named', () => {
    const sv = (dim: number, index: number[], value: number[]) => ({
      dim,
      index: Int32Array.from(index),
      value: Float64Array.from(value),
    });
    expect(() => orthonormalBasis(3, [sv(4, [0], [1])])).toThrow(/^vectors\[0\]\.dim = 4: must equal 3/);
    expect(() => orthonormalBasis(3, [sv(3, [2, 1], [1, 1])])).toThrow(/^vectors\[0\]\.index\[1\] = 1: .*increasing/);
    expect(() => orthonormalBasis(3, [sv(3, [3], [1])])).toThrow(/^vectors\[0\]\.index\[0\] = 3/);
    expect(() => orthonormalBasis(3, [sv(3, [1], [Infinity])])).toThrow(/^vectors\[0\]\[1\] = Infinity/);
    expect(() => orthonormalBasis(3, [sv(3, [1], [0])])).toThrow(/^vectors\[0\] = .*zero vector/);
  });

  it('a zero, non-finite or wrong-length vector is named; a dependent one without dropDependent too', () => {
    expect(() => orthonormalBasis(2, [[0, 0]])).toThrow(/^vectors\[0\] = .*zero vector/);
    expect(() => orthonormalBasis(2, [[NaN, 1]])).toThrow(/^vectors\[0\]\[0\] = NaN/);
    expect(() => orthonormalBasis(2, [[1]])).toThrow(/^vectors\[0\] = .*length 2/);
    expect(() =>
      orthonormalBasis(2, [
        [1, 1],
        [2, 2],
      ]),
    ).toThrow(/^vectors\[1\] = .*linearly dependent/);
  });
});
