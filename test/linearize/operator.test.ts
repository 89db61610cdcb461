import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { CachedJacobian } from '../../src/linearize/operator.js';
import { sharedAccumulator, sparseFromDense, type SparseVector } from '../../src/linearize/sparse.js';
import { ArgumentError } from '../../src/util/errors.js';

/**
 * A CachedJacobian over a known dense matrix M (row-major m × n): column j is M e_j with exact
 * zeros dropped, the columns listed in `identity` are e_j, and every call of a hook is recorded,
 * so the base's caching, stats, apply and release can be checked against what it was asked.
 */
class MatrixJacobian extends CachedJacobian<'fd'> {
  readonly computed: number[] = [];
  readonly batches: number[][] = [];
  directionalCalls = 0;
  releases = 0;
  failAt: number | undefined;

  constructor(
    readonly M: Float64Array,
    m: number,
    n: number,
    readonly identity: ReadonlySet<number> = new Set(),
    threshold = 64,
    readonly batched = false,
  ) {
    super(n, m, 'fd', 1e-12, threshold);
  }

  protected computeColumn(j: number): SparseVector {
    if (j === this.failAt) throw new Error(`column ${j} fails`);
    this.computed.push(j);
    this.stats.evaluations += 2;
    if (this.identity.has(j)) return { dim: this.outDim, index: Int32Array.of(j), value: Float64Array.of(1) };
    return sparseFromDense(Float64Array.from({ length: this.outDim }, (_, i) => this.M[i * this.dim + j]!));
  }

  protected override computeColumns(cols: readonly number[], store: (j: number, col: SparseVector) => void): void {
    if (this.batched) this.batches.push([...cols]);
    super.computeColumns(cols, store);
  }

  protected override isIdentityColumn(j: number): boolean {
    return this.identity.has(j);
  }

  protected override directional(v: SparseVector): SparseVector {
    this.directionalCalls++;
    this.stats.directional++;
    const out = new Float64Array(this.outDim);
    for (let k = 0; k < v.index.length; k++)
      for (let i = 0; i < this.outDim; i++) out[i] = out[i]! + this.M[i * this.dim + v.index[k]!]! * v.value[k]!;
    return sparseFromDense(out);
  }

  protected override releaseResources(): void {
    this.releases++;
  }
}

/** Σ_k v_k · column(v.index[k]) formed densely, entry by entry in v's order (identity columns add v_k at j). */
function combination(J: MatrixJacobian, v: SparseVector): SparseVector {
  const out = new Float64Array(J.outDim);
  for (let k = 0; k < v.index.length; k++) {
    const j = v.index[k]!;
    const c = v.value[k]!;
    if (J.identity.has(j)) {
      out[j] = out[j]! + c;
      continue;
    }
    if (c === 0) continue;
    for (let i = 0; i < J.outDim; i++) {
      const a = J.M[i * J.dim + j]!;
      if (a !== 0) out[i] = out[i]! + c * a;
    }
  }
  return sparseFromDense(out);
}

/** A square matrix with some exact zeros, and a sparse direction, both from the full f64 range. */
const value = fc.oneof(
  fc.constant(0),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  fc.double({ min: -1e-300, max: 1e-300, noNaN: true }), // subnormals among them
);
const problem = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    M: fc.array(value, { minLength: n * n, maxLength: n * n }),
    entries: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }),
    values: fc.array(value, { minLength: n, maxLength: n }),
    identity: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }),
  }),
);

/** u and v hold the same entries, bit for bit (−0 apart from 0). */
function expectSameVector(u: SparseVector, v: SparseVector): void {
  expect(u.dim).toBe(v.dim);
  expect([...u.index]).toEqual([...v.index]);
  expect(u.value.length).toBe(v.value.length);
  u.value.forEach((x, k) => expect(Object.is(x, v.value[k])).toBe(true));
}

function direction(n: number, entries: number[], values: number[]): SparseVector {
  const index = Int32Array.from([...entries].sort((a, b) => a - b));
  return { dim: n, index, value: Float64Array.from(index, (_, k) => values[k]!) };
}

describe('CachedJacobian (the base of every Jacobian engine)', () => {
  test.prop([problem])(
    'apply(v) is Σ v_j·column(j) in v’s order, bit for bit',
    ({ n, M, entries, values, identity }) => {
      const J = new MatrixJacobian(Float64Array.from(M), n, n, new Set(identity));
      const v = direction(n, entries, values);
      const got = J.apply(v);
      const want = combination(J, v);
      expect(Array.from(got.index)).toEqual(Array.from(want.index));
      got.value.forEach((x, k) => expect(Object.is(x, want.value[k])).toBe(true));
      // identity columns are never computed; every other column of v at most once
      const asked = Array.from(v.index).filter((j) => !identity.includes(j));
      expect([...J.computed].sort((a, b) => a - b)).toEqual(asked);
      expect(J.stats.columns).toBe(asked.length);
    },
  );

  test.prop([problem, problem])(
    'operators of one dimension share one accumulator (no O(d) buffer each) and still give their own sums',
    (a, b) => {
      const n = a.n;
      const Ja = new MatrixJacobian(Float64Array.from(a.M), n, n, new Set(a.identity));
      const Mb = Float64Array.from({ length: n * n }, (_, i) => b.M[i % b.M.length]!);
      const Jb = new MatrixJacobian(Mb, n, n);
      const va = direction(n, a.entries, a.values);
      const vb = direction(n, a.entries.slice().reverse(), b.values.concat(a.values));
      for (const [J, v] of [
        [Ja, va],
        [Jb, vb],
        [Ja, vb],
        [Jb, va],
      ] as const) {
        const got = J.apply(v);
        const want = combination(J, v);
        expect(Array.from(got.index)).toEqual(Array.from(want.index));
        got.value.forEach((x, k) => expect(Object.is(x, want.value[k])).toBe(true));
      }
      const acc = sharedAccumulator(n);
      expect(sharedAccumulator(n)).toBe(acc);
      expect(acc.take().index.length).toBe(0); // every apply left it empty
    },
  );

  test.prop([problem])('column(j) is computed once and then served from the cache', ({ n, M }) => {
    const J = new MatrixJacobian(Float64Array.from(M), n, n);
    const first = Array.from({ length: n }, (_, j) => J.column(j));
    const again = Array.from({ length: n }, (_, j) => J.column(j));
    again.forEach((c, j) => expectSameVector(c, first[j]!));
    expect(J.computed).toEqual(Array.from({ length: n }, (_, j) => j));
    expect(J.stats).toEqual({ evaluations: 2 * n, columns: n, directional: 0 });
  });

  // the cached columns are packed end to end in arrays grown by doubling (from 64 columns and 256
  // entries): n up to 40 columns of up to 40 entries grows both several times
  test.prop([
    fc.integer({ min: 20, max: 40 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        M: fc.array(value, { minLength: n * n, maxLength: n * n }),
        order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      }),
    ),
  ])('columns stay exact while the packed cache grows, and views handed out before stay valid', ({ n, M, order }) => {
    const J = new MatrixJacobian(Float64Array.from(M), n, n);
    const early = order.map((j) => [j, J.column(j)] as const); // each taken before the next is stored
    for (const [j, col] of early) {
      const want = sparseFromDense(Float64Array.from({ length: n }, (_, i) => M[i * n + j]!));
      expectSameVector(col, want);
      expectSameVector(J.column(j), want);
    }
    expect(J.stats.columns).toBe(n);
  });

  it('prefetch hands the engine only distinct, uncached columns, in order', () => {
    const J = new MatrixJacobian(new Float64Array(36).fill(1), 6, 6, new Set(), 64, true);
    J.column(2);
    J.prefetch([4, 2, 4, 0, 5, 0]);
    expect(J.batches).toEqual([[2], [4, 0, 5]]);
    J.prefetch([0, 2]);
    expect(J.batches.length).toBe(2);
    expect(J.stats.columns).toBe(4);
  });

  it('a long direction with a missing column goes to the directional derivative; with all cached, to the columns', () => {
    const n = 8;
    const M = Float64Array.from({ length: n * n }, (_, i) => (i % 3) - 1);
    const v = direction(n, [0, 1, 2, 3, 4], [1, 2, 3, 4, 5]);
    const J = new MatrixJacobian(M, n, n, new Set([0, 1]), 2); // 3 non-identity entries > threshold 2
    J.apply(v);
    expect(J.directionalCalls).toBe(1);
    expect(J.stats.columns).toBe(0);
    J.prefetch([2, 3, 4]);
    const got = J.apply(v);
    expect(J.directionalCalls).toBe(1);
    expect(got).toEqual(combination(J, v));
    // identity entries do not count toward the threshold
    const K = new MatrixJacobian(M, n, n, new Set([0, 1, 2]), 2);
    K.apply(v);
    expect(K.directionalCalls).toBe(0);
  });

  it('release is idempotent, the operator stays usable, and dispose releases', () => {
    const J = new MatrixJacobian(Float64Array.of(1, 2, 3, 4), 2, 2);
    J.column(0);
    J.release();
    J.release();
    expect(J.releases).toBe(2); // the engine's own release is called each time; it must be idempotent
    expectSameVector(J.column(0), J.column(0));
    expect(J.computed).toEqual([0]);
    expect(J.column(1).value).toEqual(Float64Array.of(2, 4));
    J[Symbol.dispose]();
    expect(J.releases).toBe(3);
  });

  it('a column that throws releases the resources first and is not cached', () => {
    const J = new MatrixJacobian(Float64Array.of(1, 2, 3, 4), 2, 2);
    J.failAt = 1;
    expect(() => J.column(1)).toThrow('column 1 fails');
    expect(J.releases).toBe(1);
    expect(() => J.apply(direction(2, [0, 1], [1, 1]))).toThrow('column 1 fails');
    J.failAt = undefined;
    expect(J.apply(direction(2, [0, 1], [1, 1])).value).toEqual(Float64Array.of(3, 7));
    expect(J.stats.columns).toBe(2);
  });

  it('names a bad column index and a direction of the wrong length', () => {
    const J = new MatrixJacobian(Float64Array.of(1, 2, 3, 4), 2, 2);
    for (const j of [-1, 2, 0.5, NaN]) expect(() => J.column(j)).toThrow(ArgumentError);
    expect(() => J.column(2)).toThrow(/^column = 2: must be an index in \[0, 2\)/);
    expect(() => J.prefetch([0, 7])).toThrow(/^column = 7/);
    expect(() => J.apply({ dim: 3, index: Int32Array.of(0), value: Float64Array.of(1) })).toThrow(/^v\.dim = 3/);
    expect(() => J.apply({ dim: 2, index: Int32Array.of(0, 1), value: Float64Array.of(1) })).toThrow(
      /^v\.value = .*one value per index \(2\)/,
    );
    expect(() => J.apply({ dim: 2, index: Int32Array.of(0), value: Float64Array.of(NaN) })).toThrow(
      /^v\.value\[0\] = NaN: must be finite/,
    );
    expect(J.computed).toEqual([]);
  });
});
