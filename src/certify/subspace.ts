/**
 * The one place certification reads a {@link Subspace} (a named coordinate set or a named span
 * of vectors, src/system/types.ts) and the system's declared ones (`subspaces`, `questions`, the
 * policy's `questionSpaces`): resolution by name ('all', a declared subspace, a declared
 * question's coordinates, a question's default W_q, `<q>/coordinates`), its size, whether it is a
 * coordinate block, and its orthonormal basis B as sparse vectors (a coordinate set gives unit
 * vectors; spanning vectors are orthonormalised, modified Gram–Schmidt twice). Coordinate sets are
 * kept as given (a range is enumerated only when its basis or its index list is needed).
 */
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import { unitVector, type SparseVector } from '../linearize/sparse.js';
import { coordinateAt, coordinateCount, coordinateIndices, coordinateRange } from '../system/coordinates.js';
import type { CoordinateSet, OperatorSystem, Subspace } from '../system/types.js';

/** A subspace spanned by coordinate axes. */
export type CoordinateSubspace = Extract<Subspace, { readonly coordinates: CoordinateSet }>;

/** A named orthonormal basis. */
export interface NamedBasis {
  name: string;
  vectors: SparseVector[];
  /** The coordinates when W is a coordinate subspace. */
  coordinates: Int32Array | null;
}

/** Suffix naming a question's declared coordinates when its default W_q is another basis. */
export const COORDINATES_SUFFIX = '/coordinates';

/** What W_q is made of, named in the report. */
export type QuestionBasisKind = 'item directions' | 'declared coordinates' | 'subspace' | 'given';

/** A question's subspace W_q with where it came from. */
export interface QuestionSpace {
  spec: Subspace;
  /** 'question' when the system declares q, 'subspace' when a named subspace stands in. */
  source: 'question' | 'subspace';
  basis: QuestionBasisKind;
}

/** The system's question spaces at θ by name (`certification.questionSpaces`), computed once on first use. */
export type PolicySpaces = () => ReadonlyMap<string, Subspace>;

/** True when W is spanned by coordinate axes (a block of θ). */
export function isCoordinateBlock(spec: Subspace): spec is CoordinateSubspace {
  return 'coordinates' in spec;
}

/**
 * The number of coordinates of a coordinate block, or of spanning vectors (an upper bound on the
 * dimension: dependent vectors are dropped by {@link basisOf}). O(1).
 */
export function subspaceSize(spec: Subspace): number {
  return isCoordinateBlock(spec) ? coordinateCount(spec.coordinates) : spec.vectors.length;
}

/**
 * A coordinate block's indices as an Int32Array (in the set's order).
 * @throws {ArgumentError} a set too large to enumerate (see `coordinateIndices`), naming it.
 */
export function blockIndices(spec: CoordinateSubspace): Int32Array {
  const c = spec.coordinates;
  return coordinateIndices(c, `subspaces.${spec.name}`);
}

/** The names of the system's declared subspaces, in declaration order. */
export function declaredSubspaceNames(system: OperatorSystem): string[] {
  return Object.keys(system.subspaces);
}

/** The names of the system's declared questions, in declaration order. */
export function declaredQuestionNames(system: OperatorSystem): string[] {
  return Object.keys(system.questions);
}

/** The declared subspace `name` as a coordinate block, or undefined when not declared. */
export function declaredBlock(system: OperatorSystem, name: string): CoordinateSubspace | undefined {
  const c = system.subspaces[name];
  return c === undefined ? undefined : { name, coordinates: c };
}

function declaredQuestion(system: OperatorSystem, name: string): CoordinateSet | undefined {
  return system.questions[name];
}

function known(system: OperatorSystem, extra: readonly string[] = []): string {
  // a name both declared and built in (a system may declare its own 'all') is listed once
  return [...new Set(['all', ...declaredSubspaceNames(system), ...declaredQuestionNames(system), ...extra])].join(', ');
}

function nonEmpty<S extends Subspace>(spec: S, what: string): S {
  if (subspaceSize(spec) === 0)
    throw new ArgumentError(what, spec.name, 'is an empty (0-dimensional) subspace: nothing to decide');
  return spec;
}

/**
 * W by name — 'all' (every coordinate, as a range), a declared subspace, or a declared
 * question's coordinates — or a given {@link Subspace}, checked non-empty.
 * @throws {ArgumentError} an unknown name (naming the known ones) or an empty subspace.
 */
export function resolveSubspace(system: OperatorSystem, s: string | Subspace): Subspace {
  if (typeof s !== 'string') return nonEmpty(s, 'subspace');
  if (s === 'all') return { name: 'all', coordinates: coordinateRange(0, system.dim) };
  const coords = system.subspaces[s] ?? declaredQuestion(system, s);
  if (!coords) throw new ArgumentError('subspace', s, `is not declared by ${system.name} (known: ${known(system)})`);
  return nonEmpty({ name: s, coordinates: coords }, 'subspace');
}

/**
 * The system's question spaces at θ, by name, computed on first use (the graph's item
 * directions depend on θ).
 */
export function policySpacesAt(system: OperatorSystem, theta: Float64Array): PolicySpaces {
  let cache: Map<string, Subspace> | undefined;
  return () =>
    (cache ??= new Map((system.capabilities.certification?.questionSpaces?.(theta) ?? []).map((q) => [q.name, q])));
}

/**
 * W_q by name, one definition per name: the system's question spaces (policy.questionSpaces,
 * e.g. the graph's item directions) when it declares them, else the declared coordinates; the
 * declared coordinates of a question whose default is another basis are `<q>/coordinates`; a
 * declared subspace (or 'all') stands in for a question. A given {@link Subspace} is checked
 * non-empty.
 * @throws {ArgumentError} an unknown name (naming the known ones) or an empty subspace.
 */
export function resolveQuestion(
  system: OperatorSystem,
  q: string | Subspace,
  policySpaces: PolicySpaces,
): QuestionSpace {
  if (typeof q !== 'string') return { spec: nonEmpty(q, 'question'), source: 'question', basis: 'given' };
  const fromPolicy = policySpaces().get(q);
  if (fromPolicy) return { spec: fromPolicy, source: 'question', basis: 'item directions' };
  const base = q.endsWith(COORDINATES_SUFFIX) ? q.slice(0, -COORDINATES_SUFFIX.length) : null;
  const coords =
    declaredQuestion(system, q) ??
    (base !== null && policySpaces().has(base) ? declaredQuestion(system, base) : undefined);
  if (coords)
    return {
      spec: nonEmpty({ name: q, coordinates: coords }, 'question'),
      source: 'question',
      basis: 'declared coordinates',
    };
  if (system.subspaces[q] || q === 'all')
    return { spec: resolveSubspace(system, q), source: 'subspace', basis: 'subspace' };
  const alternatives = [...policySpaces().keys()].map((n) => n + COORDINATES_SUFFIX);
  throw new ArgumentError('question', q, `is not declared by ${system.name} (known: ${known(system, alternatives)})`);
}

/**
 * Unit vectors e_j for j in `coords` (distinct, in [0, dim)).
 * @throws {ArgumentError} an index out of range or repeated.
 */
export function coordinateBasis(dim: number, coords: CoordinateSet, name = 'coordinates'): SparseVector[] {
  const seen = new Set<number>();
  const n = coordinateCount(coords);
  const out = new Array<SparseVector>(n);
  for (let k = 0; k < n; k++) {
    const j = coordinateAt(coords, k);
    integerInRange(`${name}[${k}]`, j, 0, dim - 1);
    if (seen.has(j)) throw new ArgumentError(`${name}[${k}]`, j, 'is a duplicate index');
    seen.add(j);
    out[k] = unitVector(dim, j);
  }
  return out;
}

/**
 * An orthonormal basis of span(vectors) by modified Gram–Schmidt applied twice ("twice is
 * enough": orthogonality to O(eps)). A vector whose remainder after projection is below
 * sqrt(eps)·its norm is linearly dependent on the earlier ones (an error, or skipped with
 * `dropDependent`: spanning sets such as one direction per evidence item often repeat). Each
 * vector is dense (length dim) or sparse (a {@link SparseVector} of that dim, indices strictly
 * increasing); both give the same basis bit for bit. Cost O(d) per dense vector, O(nnz) per
 * sparse one, plus 4·m·u per vector on the union u of the supports, m the basis so far.
 * @throws {ArgumentError} a vector of the wrong length, non-finite, zero, or dependent; a
 *   sparse index out of range or not increasing.
 */
export function orthonormalBasis(
  dim: number,
  vectors: readonly (ArrayLike<number> | SparseVector)[],
  name = 'vectors',
  options: { dropDependent?: boolean } = {},
): SparseVector[] {
  const support = unionSupport(dim, vectors, name);
  const m = support.length;
  const out: Float64Array[] = [];
  vectors.forEach((v, k) => {
    const x = onSupport(support, v);
    const n0 = Math.sqrt(dot(x, x));
    if (n0 === 0) throw new ArgumentError(`${name}[${k}]`, v, 'is the zero vector');
    for (let pass = 0; pass < 2; pass++) {
      for (const q of out) {
        const s = dot(q, x);
        for (let i = 0; i < m; i++) x[i]! -= s * q[i]!;
      }
    }
    const n = Math.sqrt(dot(x, x));
    if (n <= Math.sqrt(Number.EPSILON) * n0) {
      if (options.dropDependent) return;
      throw new ArgumentError(`${name}[${k}]`, v, 'is linearly dependent on the earlier vectors');
    }
    out.push(x.map((a) => a / n));
  });
  return out.map((x) => compress(dim, support, x));
}

/** Whether a spanning vector is given sparse. */
function isSparse(v: ArrayLike<number> | SparseVector): v is SparseVector {
  return (v as Partial<SparseVector>).index !== undefined && (v as Partial<SparseVector>).value !== undefined;
}

/** The vector's entries on `support` (ascending, holding every non-zero of v). */
function onSupport(support: Int32Array, v: ArrayLike<number> | SparseVector): Float64Array {
  if (!isSparse(v)) return Float64Array.from(support, (i) => v[i]!);
  const x = new Float64Array(support.length);
  for (let k = 0, u = 0; k < v.index.length; k++) {
    if (v.value[k] === 0) continue;
    while (support[u]! < v.index[k]!) u++; // both ascending
    x[u] = v.value[k]!;
  }
  return x;
}

/**
 * The union of the vectors' supports, ascending (checking lengths, indices and finiteness): off
 * it every vector and every remainder is an exact zero, so Gram–Schmidt on the compressed
 * vectors gives the same sums bit for bit. A stored zero of a sparse vector is not in its
 * support (as a zero of a dense one is not). O(nnz log nnz) when every vector is sparse, else O(d)
 * per dense vector.
 */
function unionSupport(dim: number, vectors: readonly (ArrayLike<number> | SparseVector)[], name: string): Int32Array {
  const held: number[] = [];
  let mark: Uint8Array | undefined;
  vectors.forEach((v, k) => {
    if (isSparse(v)) {
      if (v.dim !== dim) throw new ArgumentError(`${name}[${k}].dim`, v.dim, `must equal ${dim}`);
      if (v.value.length !== v.index.length)
        throw new ArgumentError(`${name}[${k}].value`, v.value, `must have one entry per index (${v.index.length})`);
      for (let t = 0; t < v.index.length; t++) {
        const i = v.index[t]!;
        if (!(Number.isInteger(i) && i >= 0 && i < dim && (t === 0 || i > v.index[t - 1]!)))
          throw new ArgumentError(`${name}[${k}].index[${t}]`, i, `must be an index in [0, ${dim}), increasing`);
        const a = v.value[t]!;
        if (!Number.isFinite(a)) throw new ArgumentError(`${name}[${k}][${i}]`, a, 'must be finite');
        if (a !== 0) held.push(i);
      }
      return;
    }
    if (v.length !== dim) throw new ArgumentError(`${name}[${k}]`, v, `must have length ${dim}`);
    mark ??= new Uint8Array(dim);
    for (let i = 0; i < dim; i++) {
      const a = v[i]!;
      if (a !== 0) {
        if (!Number.isFinite(a)) throw new ArgumentError(`${name}[${k}][${i}]`, a, 'must be finite');
        mark[i] = 1;
      }
    }
  });
  if (mark) {
    for (const i of held) mark[i] = 1;
    let m = 0;
    for (let i = 0; i < dim; i++) m += mark[i]!;
    const support = new Int32Array(m);
    for (let i = 0, t = 0; i < dim; i++) if (mark[i]) support[t++] = i;
    return support;
  }
  const sorted = Int32Array.from(held).sort();
  let m = 0;
  for (let t = 0; t < sorted.length; t++) if (t === 0 || sorted[t] !== sorted[t - 1]) sorted[m++] = sorted[t]!;
  return sorted.slice(0, m);
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The sparse vector of length `dim` with entries x on `support`, zeros dropped. */
function compress(dim: number, support: Int32Array, x: Float64Array): SparseVector {
  let nnz = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== 0) nnz++;
  const index = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  for (let i = 0, t = 0; i < x.length; i++)
    if (x[i] !== 0) {
      index[t] = support[i]!;
      value[t++] = x[i]!;
    }
  return { dim, index, value };
}

/**
 * The orthonormal basis of a {@link Subspace}: unit vectors for a coordinate block, else its
 * spanning vectors orthonormalised with dependent ones dropped.
 * @throws {ArgumentError} a coordinate out of range or repeated; a spanning vector of the wrong
 *   length, non-finite or zero.
 */
export function basisOf(dim: number, spec: Subspace): NamedBasis {
  if (isCoordinateBlock(spec)) {
    const vectors = coordinateBasis(dim, spec.coordinates, `subspaces.${spec.name}`);
    return { name: spec.name, vectors, coordinates: Int32Array.from(vectors, (v) => v.index[0]!) };
  }
  return {
    name: spec.name,
    vectors: orthonormalBasis(dim, spec.vectors, `subspaces.${spec.name}`, { dropDependent: true }),
    coordinates: null,
  };
}

/**
 * The combinations B·c_k in θ coordinates of the basis vectors B (sparse, θ coordinates) with
 * the first `count` columns c_k of `coef` (m × `stride`, row-major: c_k's j-th entry at
 * j·stride + k), each summed over j = 0, 1, …, m − 1 in turn from 0 into a dense accumulator
 * over the union of the supports. Each result holds, ascending, every index of that union
 * (`'union'`: a cancelled entry is kept as 0) or every index of the basis vectors with a
 * non-zero coefficient (`'moved'`). How a kernel basis of G_W or of the stack is reported in θ
 * coordinates. O(nnz(B) + union) per combination.
 */
export function basisCombinations(
  dim: number,
  basis: readonly SparseVector[],
  coef: Float64Array,
  stride: number,
  count: number,
  support: 'union' | 'moved',
): SparseVector[] {
  const pos = new Map<number, number>();
  for (const b of basis) for (let t = 0; t < b.index.length; t++) pos.set(b.index[t]!, -1);
  const union = Int32Array.from(pos.keys()).sort();
  union.forEach((i, u) => pos.set(i, u));
  const at = basis.map((b) => Int32Array.from(b.index, (i) => pos.get(i)!));
  const out: SparseVector[] = [];
  const value = new Float64Array(union.length);
  const held = new Uint8Array(union.length);
  for (let k = 0; k < count; k++) {
    value.fill(0);
    held.fill(support === 'union' ? 1 : 0);
    basis.forEach((b, j) => {
      const c = coef[j * stride + k]!;
      if (support === 'moved' && c === 0) return;
      const aj = at[j]!;
      for (let t = 0; t < aj.length; t++) {
        value[aj[t]!] = value[aj[t]!]! + c * b.value[t]!;
        held[aj[t]!] = 1;
      }
    });
    let nnz = 0;
    for (let u = 0; u < union.length; u++) nnz += held[u]!;
    const index = new Int32Array(nnz);
    const vals = new Float64Array(nnz);
    for (let u = 0, t = 0; u < union.length; u++)
      if (held[u]) {
        index[t] = union[u]!;
        vals[t++] = value[u]!;
      }
    out.push({ dim, index, value: vals });
  }
  return out;
}
