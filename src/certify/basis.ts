/**
 * Orthonormal bases B of subspaces W ⊆ R^d, as sparse vectors: a coordinate set gives unit
 * vectors; explicit vectors are orthonormalised (modified Gram–Schmidt, twice).
 */
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { unitVector, type SparseVector } from '../linearize/sparse.js';

/** A subspace by name: coordinate indices or spanning vectors (dense, length d). */
export type SubspaceSpec =
  | { name: string; coordinates: readonly number[] }
  | { name: string; vectors: readonly ArrayLike<number>[] };

/** A named orthonormal basis. */
export interface NamedBasis {
  name: string;
  vectors: SparseVector[];
  /** The coordinates when W is a coordinate subspace. */
  coordinates: Int32Array | null;
}

/**
 * Unit vectors e_j for j in `coords` (distinct, in [0, dim)).
 * @throws {ArgumentError} an index out of range or repeated.
 */
export function coordinateBasis(dim: number, coords: readonly number[], name = 'coordinates'): SparseVector[] {
  const seen = new Set<number>();
  return coords.map((j, k) => {
    integerInRange(`${name}[${k}]`, j, 0, dim - 1);
    if (seen.has(j)) throw new ArgumentError(`${name}[${k}]`, j, 'is a duplicate index');
    seen.add(j);
    return unitVector(dim, j);
  });
}

/**
 * An orthonormal basis of span(vectors) by modified Gram–Schmidt applied twice ("twice is
 * enough": orthogonality to O(eps)). A vector whose remainder after projection is below
 * sqrt(eps)·its norm is linearly dependent on the earlier ones (an error, or skipped with
 * `dropDependent`: spanning sets such as one direction per evidence item often repeat).
 * @throws {ArgumentError} a vector of the wrong length, non-finite, zero, or dependent.
 */
export function orthonormalBasis(
  dim: number,
  vectors: readonly ArrayLike<number>[],
  name = 'vectors',
  options: { dropDependent?: boolean } = {},
): SparseVector[] {
  // the union of the vectors' supports, ascending: off it every vector and every remainder is
  // an exact zero, so the process on the compressed vectors gives the same sums bit for bit
  const mark = new Uint8Array(dim);
  vectors.forEach((v, k) => {
    if (v.length !== dim) throw new ArgumentError(`${name}[${k}]`, v, `must have length ${dim}`);
    for (let i = 0; i < dim; i++) {
      const a = v[i]!;
      if (a !== 0) {
        if (!Number.isFinite(a)) throw new ArgumentError(`${name}[${k}][${i}]`, a, 'must be finite');
        mark[i] = 1;
      }
    }
  });
  let m = 0;
  for (let i = 0; i < dim; i++) m += mark[i]!;
  const support = new Int32Array(m);
  for (let i = 0, t = 0; i < dim; i++) if (mark[i]) support[t++] = i;
  const out: Float64Array[] = [];
  vectors.forEach((v, k) => {
    const x = Float64Array.from(support, (i) => v[i]!);
    let n0 = 0;
    for (let i = 0; i < m; i++) n0 += x[i]! * x[i]!;
    n0 = Math.sqrt(n0);
    if (n0 === 0) throw new ArgumentError(`${name}[${k}]`, v, 'is the zero vector');
    for (let pass = 0; pass < 2; pass++) {
      for (const q of out) {
        let s = 0;
        for (let i = 0; i < m; i++) s += q[i]! * x[i]!;
        for (let i = 0; i < m; i++) x[i]! -= s * q[i]!;
      }
    }
    let n = 0;
    for (let i = 0; i < m; i++) n += x[i]! * x[i]!;
    n = Math.sqrt(n);
    if (n <= Math.sqrt(Number.EPSILON) * n0) {
      if (options.dropDependent) return;
      throw new ArgumentError(`${name}[${k}]`, v, 'is linearly dependent on the earlier vectors');
    }
    out.push(x.map((a) => a / n));
  });
  return out.map((x) => {
    let nnz = 0;
    for (let i = 0; i < m; i++) if (x[i] !== 0) nnz++;
    const index = new Int32Array(nnz);
    const value = new Float64Array(nnz);
    for (let i = 0, t = 0; i < m; i++)
      if (x[i] !== 0) {
        index[t] = support[i]!;
        value[t++] = x[i]!;
      }
    return { dim, index, value };
  });
}

/** Builds the orthonormal basis of a {@link SubspaceSpec}. */
export function basisOf(dim: number, spec: SubspaceSpec): NamedBasis {
  if ('coordinates' in spec) {
    return {
      name: spec.name,
      vectors: coordinateBasis(dim, spec.coordinates, `subspaces.${spec.name}`),
      coordinates: Int32Array.from(spec.coordinates),
    };
  }
  return {
    name: spec.name,
    vectors: orthonormalBasis(dim, spec.vectors, `subspaces.${spec.name}`, { dropDependent: true }),
    coordinates: null,
  };
}
