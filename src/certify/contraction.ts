/**
 * Verifying the Contractivity assumption (Sec. 3.1) of Q on the whole space, on a block W (a
 * coordinate set), or on a subspace W = span(B) given by an orthonormal basis B — never assuming it.
 *
 * On a block W, Q is read as the map on W with every other coordinate held at the base state:
 * g(z) = Q(θ with θ_W = z)_W (for W = all coordinates, g = Q). On W = span(B) the pairs differ
 * along W only, x = θ_⊥ + Bz with θ_⊥ = θ − BBᵀθ held, and g(z) = Bᵀ Q(θ_⊥ + Bz): the ratio is
 * ‖P_W(Q(x) − Q(y))‖/‖x − y‖ with x − y ∈ W (for B = unit vectors, the block's g). The check,
 * in steps:
 * - the block and its box (`contractionBlock`, `searchBox`): W's coordinates z, the box in them
 *   (given, else z₀ ± radius·max(1, |z₀|) around the base's z₀), the search budget;
 * - the empirical search (./contractionSearch.ts): a LOWER bound on Lip(g) over the box, the
 *   largest ratio over random pairs, coordinate probes at the base, and SPSA gradient ascent on
 *   the ratio. A ratio >= 1 (up to rounding, see {@link ratioSlack}) is a counterexample: g is not
 *   a contraction — and neither is Q (‖P_W v‖ <= ‖v‖, so the pair is one Q does not contract);
 * - the local norm ‖Dg(θ)‖₂ = ‖J_{W,W}‖₂, or ‖Bᵀ DQ B‖₂ on a span (`localNorm`): exact (power
 *   iteration on the block's Jacobian columns) when dim W <= `exactColumns`, else a lower bound
 *   from JVP power iteration on the block;
 * - the proof (./contractionProof.ts), on a coordinate block when the system has an interval
 *   or tfjs form of Q and the search found no counterexample: outward-rounded enclosures of g and
 *   of Dg over a box B around the base prove g(B) ⊆ B and ‖Dg‖₂ <= L < 1 on B, hence a unique
 *   fixed point in B (Banach) with an enclosure of it;
 * - the verdict (`contractionVerdict`): 'refuted' (a counterexample pair, reported, or diverging
 *   fixed-point iterates), 'proved' (the proof above: bound, box, enclosure), else 'undecided'
 *   (what was tried). A declared analytic bound (`lipschitz[name]`) is compared with the proved
 *   one and checked against the search's pairs; it is never taken as a proof.
 * A bound < 1 on a span W says nothing about the components of Q(x) − Q(y) orthogonal to W; a
 * local norm < 1 proves nothing away from θ. On large states (d > 4096) the search ends at its
 * first counterexample by default: the verdict is decided there, and the reported lower bound is
 * that pair's ratio rather than the largest the whole budget would find.
 */
import { createRng, type Rng } from '../ordergap/rng.js';
import { indexRange } from './spectralNorm.js';
import { coordinateIndices } from '../system/coordinates.js';
import type { CoordinateSet, OperatorSystem, SparseVector } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange, positiveNumber } from '../util/validate.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { namedComponents, type NamedComponent } from './describe.js';
import {
  blockMap,
  coordinateProbes,
  directionProbe,
  PairSearch,
  randomPairs,
  spsaAscent,
  type ContractionBlock,
  type PairSource,
  type SearchBox,
} from './contractionSearch.js';
import { blockNorm, powerStepsLowerBound, spectralNormDense, type PowerIteration } from './spectralNorm.js';
import {
  proveContraction,
  type ContractionProof,
  type ContractionProofOptions,
  type Encloser,
  type ProofAttempt,
} from './contractionProof.js';
import { recordProof } from './proofStore.js';

export { ratioSlack } from './contractionSearch.js';

/**
 * The default limit on d·|W| for a proof by enclosure: 2²⁴. The reference graph's confidence block
 * at Nmax 128 (d·|W| = 6.4·10⁶) is proved in about 3 s; at Nmax 256 (5.1·10⁷) a proof takes about
 * 30 s (bench/results/proof.json), so it is run on request (`proofMaxEntries`).
 */
export const DEFAULT_PROOF_MAX_ENTRIES = 2 ** 24;

/** Verdict of {@link verifyContraction}. */
export type ContractionVerdict = 'proved' | 'refuted' | 'undecided';

/** A pair of points of the block and the ratio they give. */
export interface CounterexamplePair {
  /**
   * The block coordinates z of the two points (θ_W, or the coordinates in W's orthonormal basis
   * for a span; length dim W; null when dim W > 64, to keep reports small).
   */
  x: number[] | null;
  y: number[] | null;
  /** ‖g(x) − g(y)‖ / ‖x − y‖. */
  ratio: number;
  /** The rounding slack below 1 still counted as >= 1. */
  slack: number;
  /** How the pair was found. */
  source: PairSource;
  /** The largest components of x − y (in θ coordinates), named. */
  direction: NamedComponent[];
}

/** Options of {@link verifyContraction}. */
export interface ContractionOptions {
  /** Block W (coordinate indices); default all coordinates. */
  coordinates?: CoordinateSet;
  /**
   * W = span(basis) instead of a coordinate block: orthonormal vectors of length d (as `basisOf`
   * returns them; BᵀB = I to sqrt(eps) is checked). Excludes `coordinates`.
   */
  basis?: readonly SparseVector[];
  /** Name of the block (for reports and for looking up `lipschitz[name]`); default 'all'. */
  name?: string;
  /** Box of the block: lower and upper bound per coordinate of W (a Float64Array is read, not copied), or one number for all. */
  lower?: number | ArrayLike<number>;
  upper?: number | ArrayLike<number>;
  /** Default box: base ± radius·max(1, |base_j|) (default radius 0.1). */
  radius?: number;
  /** Random pairs (default 64; 8 when d > 4096, where every evaluation of Q costs O(d)). */
  samples?: number;
  /** Coordinate probes at the base (default min(|W|, 32); min(|W|, 8) when d > 4096; chosen evenly). */
  probes?: number;
  /** SPSA ascent steps in all, shared by the starts (default 40; 12 when d > 4096). */
  ascentSteps?: number;
  /** Ascent starts: the best pairs of the sampling phase (default 3). */
  starts?: number;
  /**
   * End the search at its first counterexample (a ratio >= 1 up to rounding): the verdict 'not
   * contractive' is then decided and further evaluations only raise the reported lower bound. The
   * coordinate probes run first (they need no random points), then the random pairs, then the
   * ascent. Default true when d > 4096 (every evaluation of Q costs O(d)), else false; pass false
   * for the largest ratio within the whole budget.
   */
  stopAtCounterexample?: boolean;
  /** How the box was chosen (for the report). */
  boxSource?: string;
  /** ‖Dg‖₂ already computed for this block (the whole-space norm certification shares). */
  localNorm?: PowerIteration & { kind: 'exact' | 'lower-bound' };
  /** Norms of diverging fixed-point iterates from the base (an expanding map's evidence). */
  divergingIterates?: readonly number[];
  seed?: number;
  /** An analytic upper bound on Lip(g) (overrides the system's `lipschitz[name]`). */
  analyticBound?: number | null;
  /** Exact local norm when |W| <= this (default 1024). */
  exactColumns?: number;
  /** DQ at the base state (shared with the rest of the certification). */
  jacobian: JacobianOperator;
  /**
   * Enclosures of Q over boxes (./enclosure.ts), for the proof on a coordinate block; null or
   * absent: no proof is attempted (the verdict is then 'refuted' or 'undecided').
   */
  enclose?: Encloser | null;
  /** Options of the proof (boxes, budget); its box defaults to the search box's `lower`/`upper` when given. */
  proof?: ContractionProofOptions;
  /**
   * No proof when d·|W| exceeds this (the interval evaluation of a form carries |W| tangents per
   * value, so its cost grows with d·|W|; default {@link DEFAULT_PROOF_MAX_ENTRIES}).
   */
  proofMaxEntries?: number;
}

/** Result of {@link verifyContraction}. */
export interface ContractionResult {
  subspace: string;
  dim: number;
  verdict: ContractionVerdict;
  /** true proved, false refuted, null undecided. */
  contractive: boolean | null;
  /** A rigorous upper bound on ‖Dg‖₂ over {@link box} (Euclidean norm on W's coordinates), when proved. */
  upperBound: number | null;
  /**
   * The largest ratio ‖g(x) − g(y)‖/‖x − y‖ the search found, computed in floating point: Lip(g)
   * is at least this up to its rounding (a few ulps, by which it can exceed a proved upperBound:
   * 0.7200000000000021 against 0.7200000000000006 for the closed form's linear block).
   */
  lowerBound: number;
  /** The box B the proof holds on (W's coordinates, ascending as W lists them), when proved. */
  box: { lo: number[]; hi: number[] } | null;
  /** An enclosure of g's unique fixed point in {@link box}, when proved. */
  fixedPointEnclosure: { lo: number[]; hi: number[] } | null;
  /** How the coordinates outside W are held and in which norm the bound holds (words). */
  proofStatement: string;
  /** What the proof tried (boxes, enclosures, why each failed), or null when none was attempted and why in `notes`. */
  proof: { attempts: ProofAttempt[]; evaluations: number; enclosureWidth: number | null } | null;
  empiricalLowerBound: number;
  localNorm: number;
  localNormKind: 'exact' | 'lower-bound';
  analyticBound: number | null;
  /** A pair found by the search has a ratio above the declared bound: the bound is wrong and unused. */
  analyticBoundRefuted: boolean;
  /** What the empirical search spent: random pairs, coordinate probes, ascent starts and steps, Q evaluations. */
  budget: { samples: number; probes: number; starts: number; ascentSteps: number; evaluations: number };
  /** The box searched, in words. */
  searchBox: string;
  /** Norms of the diverging fixed-point iterates when the iteration from the base ran away, else null. */
  divergingIterates: number[] | null;
  /** The best pair found (a counterexample when its ratio >= 1 − slack). */
  worstPair: CounterexamplePair | null;
  /** Directions where contraction fails or is weakest (top singular vector of Dg), named. */
  failingDirections: NamedComponent[];
  /** Evaluations of Q spent on the empirical bound. */
  evaluations: number;
  notes: string[];
}

/** Deviation of BᵀB from I tolerated in a given basis: Gram–Schmidt twice leaves O(m·eps), `basisOf`'s own dependence threshold is sqrt(eps). */
const ORTHONORMAL_TOLERANCE = Math.sqrt(Number.EPSILON);

function sparseDot(a: SparseVector, b: SparseVector): number {
  let s = 0;
  for (let i = 0, j = 0; i < a.index.length && j < b.index.length; ) {
    const d = a.index[i]! - b.index[j]!;
    if (d === 0) s += a.value[i++]! * b.value[j++]!;
    else if (d < 0) i++;
    else j++;
  }
  return s;
}

/** W's coordinates z for the search: θ_W, or Bᵀθ with the basis checked orthonormal. */
function contractionBlock(system: OperatorSystem, base: Float64Array, options: ContractionOptions): ContractionBlock {
  const d = system.dim;
  const basis = options.basis;
  if (basis === undefined) {
    const W = options.coordinates ? coordinateIndices(options.coordinates, 'coordinates') : indexRange(d);
    // plain loops: the whole space's block has d entries, and a callback per entry costs
    // seconds at the graph's dimensions
    for (let k = 0; k < W.length; k++)
      if (!(W[k]! >= 0 && W[k]! < d)) integerInRange(`coordinates[${k}]`, W[k]!, 0, d - 1);
    if (W.length === 0)
      throw new ArgumentError('coordinates', options.coordinates, 'must name at least one coordinate');
    const center = new Float64Array(W.length);
    for (let k = 0; k < W.length; k++) center[k] = base[W[k]!]!;
    return { m: W.length, support: W, basis: null, center };
  }
  if (options.coordinates !== undefined)
    throw new ArgumentError('basis', `${basis.length} vectors`, 'excludes coordinates: give one of them');
  if (basis.length === 0) throw new ArgumentError('basis', basis, 'must hold at least one vector');
  const mark = new Uint8Array(d);
  basis.forEach((b, k) => {
    if (b.dim !== d) throw new ArgumentError(`basis[${k}].dim`, b.dim, `must be d = ${d}`);
    for (const j of b.index) mark[integerInRange(`basis[${k}].index`, j, 0, d - 1)] = 1;
    for (let l = 0; l <= k; l++) {
      const g = sparseDot(basis[l]!, b) - (l === k ? 1 : 0);
      if (!(Math.abs(g) <= ORTHONORMAL_TOLERANCE))
        throw new ArgumentError(
          `basis[${k}]`,
          `⟨b${l}, b${k}⟩ − δ = ${g}`,
          'must be orthonormal to the earlier vectors (BᵀB = I)',
        );
    }
  });
  const support = Int32Array.from({ length: d }, (_, j) => j).filter((j) => mark[j] === 1);
  const center = Float64Array.from(basis, (b) => {
    let s = 0;
    for (let t = 0; t < b.index.length; t++) s += b.value[t]! * base[b.index[t]!]!;
    return s;
  });
  return { m: basis.length, support, basis, center };
}

function boxBound(
  name: string,
  v: number | ArrayLike<number> | undefined,
  m: number,
  fallback: Float64Array,
): Float64Array {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return new Float64Array(m).fill(finiteNumber(name, v));
  if (v.length !== m) throw new ArgumentError(name, v, `must have one bound per block coordinate (${m})`);
  // a Float64Array is checked and read as given (the whole space's box: d entries, no copy)
  const out = v instanceof Float64Array ? v : new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const x = v[i]!;
    out[i] = Number.isFinite(x) ? x : finiteNumber(`${name}[${i}]`, x); // the error names the entry
  }
  return out;
}

/** The box of the search in block coordinates (given bounds, else center ± radius·max(1, |center|)) and its description. */
function searchBox(block: ContractionBlock, options: ContractionOptions): SearchBox & { text: string } {
  const radius = positiveNumber('radius', options.radius ?? 0.1);
  const { m, center } = block;
  const around = (sign: number): Float64Array => {
    const out = new Float64Array(m);
    for (let i = 0; i < m; i++) out[i] = center[i]! + sign * (radius * Math.max(1, Math.abs(center[i]!)));
    return out;
  };
  const lower = boxBound('lower', options.lower, m, options.lower === undefined ? around(-1) : new Float64Array(0));
  const upper = boxBound('upper', options.upper, m, options.upper === undefined ? around(1) : new Float64Array(0));
  for (let i = 0; i < m; i++)
    if (!(lower[i]! <= upper[i]!))
      throw new ArgumentError(`lower[${i}]`, lower[i], `must be <= upper[${i}] = ${upper[i]}`);
  const given = options.lower !== undefined || options.upper !== undefined;
  const local = block.basis
    ? `Bᵀθ ± ${radius}·max(1, |(Bᵀθ)_k|) in an orthonormal basis B of W`
    : `base ± ${radius}·max(1, |base_j|)`;
  return { lower, upper, text: options.boxSource ?? (given ? 'the given lower/upper bounds' : local) };
}

/** The search budget: every evaluation of Q costs O(d) whatever the block, so a smaller default on large states. */
function searchBudget(d: number, m: number, options: ContractionOptions) {
  const large = d > 4096;
  const samples = integerInRange('samples', options.samples ?? (large ? 8 : 64), 0);
  const probes = integerInRange('probes', options.probes ?? Math.min(m, large ? 8 : 32), 0, m);
  const ascentSteps = integerInRange('ascentSteps', options.ascentSteps ?? (large ? 12 : 40), 0);
  const starts = integerInRange('starts', options.starts ?? 3, 1);
  if (options.stopAtCounterexample !== undefined && typeof options.stopAtCounterexample !== 'boolean')
    throw new ArgumentError('stopAtCounterexample', options.stopAtCounterexample, 'must be a boolean');
  const stopEarly = options.stopAtCounterexample ?? large;
  const exactColumns = integerInRange('exactColumns', options.exactColumns ?? 1024, 0);
  return { samples, probes, ascentSteps, starts, stopEarly, exactColumns };
}

/** A direction in block coordinates as named θ coordinates (B·v on a span). */
function namedDirection(system: OperatorSystem, block: ContractionBlock, v: Float64Array): NamedComponent[] {
  if (!block.basis) return namedComponents(system, v, block.support);
  const at = new Map<number, number>();
  block.support.forEach((j, i) => at.set(j, i));
  const u = new Float64Array(block.support.length);
  block.basis.forEach((b, k) => {
    for (let t = 0; t < b.index.length; t++) u[at.get(b.index[t]!)!]! += v[k]! * b.value[t]!;
  });
  return namedComponents(system, u, block.support);
}

/** ‖Bᵀ J B‖₂ on a span: exact from the m×m matrix BᵀJB when m <= exactColumns, else JVP power steps on it. */
function spanNorm(
  J: JacobianOperator,
  basis: readonly SparseVector[],
  exactColumns: number,
  random: Rng,
): PowerIteration & { kind: 'exact' | 'lower-bound' } {
  const m = basis.length;
  const project = (w: SparseVector, out: Float64Array, stride: number, offset: number) => {
    basis.forEach((b, i) => (out[i * stride + offset] = sparseDot(b, w)));
  };
  if (m <= exactColumns) {
    const M = new Float64Array(m * m);
    basis.forEach((b, k) => project(J.apply(b), M, m, k));
    return { ...spectralNormDense(M, m, m, random), kind: 'exact' };
  }
  const pw = powerStepsLowerBound(m, random, (v, nv) => {
    // B·(v/‖v‖) as a sparse vector
    const acc = new Map<number, number>();
    basis.forEach((b, k) => {
      const c = v[k]! / nv;
      for (let t = 0; t < b.index.length; t++) acc.set(b.index[t]!, (acc.get(b.index[t]!) ?? 0) + c * b.value[t]!);
    });
    const index = Int32Array.from([...acc.keys()].sort((a, b) => a - b));
    const dir: SparseVector = { dim: J.dim, index, value: Float64Array.from(index, (j) => acc.get(j)!) };
    const w = new Float64Array(m);
    project(J.apply(dir), w, 1, 0);
    return w;
  });
  return { ...pw, kind: 'lower-bound' };
}

/** ‖Dg(θ)‖₂ of the block (given, exact, or a JVP lower bound) with a note when it is a lower bound. */
function localNorm(
  block: ContractionBlock,
  options: ContractionOptions,
  exactColumns: number,
  random: Rng,
): { pw: PowerIteration & { kind: 'exact' | 'lower-bound' }; note: string | null } {
  if (options.localNorm) {
    const pw = options.localNorm;
    const note =
      pw.kind === 'lower-bound' ? `local norm: ‖Dg‖ is a lower bound from ${pw.iterations} JVP power steps` : null;
    return { pw, note };
  }
  const pw = block.basis
    ? spanNorm(options.jacobian, block.basis, exactColumns, random)
    : blockNorm(options.jacobian, block.support, exactColumns, random);
  const note =
    pw.kind === 'lower-bound'
      ? `local norm: |W| = ${block.m} > ${exactColumns} columns, so ‖Dg‖ is a lower bound from ${pw.iterations} JVP power steps`
      : null;
  return { pw, note };
}

/** x − y (a plain loop: on the whole space the pair has d entries). */
function difference(x: Float64Array, y: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i]! - y[i]!;
  return out;
}

/** The pair the search found, for the report. */
function reportedPair(system: OperatorSystem, block: ContractionBlock, search: PairSearch): CounterexamplePair | null {
  const found = search.best;
  if (!found) return null;
  const small = block.m <= 64;
  return {
    x: small ? Array.from(found.x) : null,
    y: small ? Array.from(found.y) : null,
    ratio: found.ratio,
    slack: found.slack,
    source: found.source,
    direction: namedDirection(system, block, difference(found.x, found.y)),
  };
}

/** The declared or given analytic upper bound on Lip(g), checked. */
function analyticBoundOf(system: OperatorSystem, name: string, options: ContractionOptions): number | null {
  const declared = system.capabilities.lipschitz?.[name]?.bound;
  const analyticBound = options.analyticBound !== undefined ? options.analyticBound : (declared ?? null);
  if (analyticBound !== null && !(finiteNumber('analyticBound', analyticBound) >= 0))
    throw new ArgumentError('analyticBound', analyticBound, 'must be >= 0');
  return analyticBound;
}

/**
 * The verdict from the search, the local norm and the analytic bound (module comment), with the
 * failing directions and the notes that explain it.
 */
function contractionVerdict(
  system: OperatorSystem,
  block: ContractionBlock,
  worstPair: CounterexamplePair | null,
  local: PowerIteration,
  analyticBound: number | null,
  divergingIterates: readonly number[] | undefined,
  proof: ContractionProof | null,
) {
  const notes: string[] = [];
  const empiricalLowerBound = worstPair?.ratio ?? 0;
  const counterexample = worstPair !== null && worstPair.ratio >= 1 - worstPair.slack;
  const diverging = divergingIterates ? Array.from(divergingIterates) : null;
  let verdict: ContractionVerdict;
  if (counterexample || diverging) verdict = 'refuted';
  else if (proof?.verdict === 'proved') verdict = 'proved';
  else verdict = 'undecided';
  if (diverging)
    notes.push(
      `the fixed-point iteration from the base diverges (‖θ_n‖ = ${diverging.map((x) => x.toPrecision(3)).join(', ')}): Q expands`,
    );
  const analyticBoundRefuted =
    analyticBound !== null && empiricalLowerBound > analyticBound * (1 + 1e-12) + (worstPair?.slack ?? 0);
  if (analyticBoundRefuted)
    notes.push(
      `the declared analytic bound ${analyticBound} is VIOLATED by a pair with ratio ${empiricalLowerBound}: the bound is wrong`,
    );
  else if (analyticBound !== null)
    notes.push(
      proof?.verdict === 'proved'
        ? `the declared analytic bound ${analyticBound} against the proved ${proof.upperBound!.toPrecision(6)} (on the proved box): ${proof.upperBound! <= analyticBound ? 'consistent, the proved bound is the tighter' : 'the proved bound is the looser (it holds on the proved box; the declared one is not proved)'}`
        : `the declared analytic bound ${analyticBound} is not a proof and was not used for the verdict`,
    );
  if (verdict === 'undecided' && local.norm >= 1)
    notes.push(
      `‖Dg‖₂ = ${local.norm.toPrecision(4)} >= 1 at the base state: not contractive in the Euclidean norm there`,
    );
  const failingDirections =
    counterexample && worstPair
      ? worstPair.direction
      : local.norm >= 1
        ? namedDirection(system, block, local.vector)
        : [];
  if (failingDirections.length === 0 && verdict !== 'proved')
    failingDirections.push(...namedDirection(system, block, local.vector));
  return { verdict, empiricalLowerBound, analyticBoundRefuted, diverging, failingDirections, notes };
}

/**
 * The proof on a coordinate block (./contractionProof.ts) when an encloser is given, the block
 * is small enough and the search found no counterexample; null with the reason noted otherwise.
 */
function attemptProof(
  base: Float64Array,
  block: ContractionBlock,
  options: ContractionOptions,
  searched: SearchBox,
  refuted: boolean,
  notes: string[],
): ContractionProof | null {
  if (refuted || !options.enclose) {
    if (!refuted) notes.push('no proof attempted: the system declares neither an interval form nor a tfjs form of Q');
    return null;
  }
  if (block.basis) {
    notes.push('no proof attempted: proofs cover coordinate blocks, not spans of vectors');
    return null;
  }
  const maxEntries = options.proofMaxEntries ?? DEFAULT_PROOF_MAX_ENTRIES;
  const entries = base.length * block.m;
  if (entries > maxEntries) {
    notes.push(
      `no proof attempted: d·|W| = ${base.length}·${block.m} = ${entries} > ${maxEntries} (proofMaxEntries; raise it to prove: the cost grows with d·|W|)`,
    );
    return null;
  }
  const given =
    options.proof?.box ??
    (options.lower !== undefined || options.upper !== undefined
      ? { lower: searched.lower, upper: searched.upper }
      : undefined);
  return proveContraction(options.enclose, base, block.support, {
    ...options.proof,
    ...(given ? { box: given } : {}),
    ...(options.radius !== undefined && options.proof?.radius === undefined ? { radius: options.radius } : {}),
  });
}

/** What a proof on the block states: the map, the norm, how the other coordinates are held. */
function proofStatement(name: string, block: ContractionBlock, d: number): string {
  if (block.basis) return `W = span of ${block.m} vectors: no proof (proofs cover coordinate blocks)`;
  if (block.m === d) return `Q on the whole space, Euclidean norm`;
  return `g(z) = Q(θ̂ with θ_W = z)_W on '${name}' (${block.m} coordinates), the other ${d - block.m} coordinates held at the linearisation state θ̂ (exact floats), Euclidean norm on W`;
}

/**
 * Runs the check of the module comment: block and box, the search, the local norm, the verdict.
 * Cost: at most 2·(samples + probes) + 4·ascentSteps applications of Q (fewer with
 * `stopAtCounterexample`, the default when d > 4096), plus dim W Jacobian columns (exact local
 * norm; on a span, dim W applications of DQ) or ~60 JVPs (lower bound).
 * @throws {ArgumentError} malformed block or basis, box (lower > upper) or options.
 * @example
 * ```ts
 * const sys = closedFormSystem();
 * const theta = Float64Array.of(0.2, 0);
 * verifyContraction(sys, theta, { jacobian: new FdJacobian((t) => sys.consolidate(t), theta) }).verdict;
 * // 'refuted' (Q fixes every (c, 0): the ratio along c is 1)
 * ```
 */
export function verifyContraction(
  system: OperatorSystem,
  base: Float64Array,
  options: ContractionOptions,
): ContractionResult {
  const block = contractionBlock(system, base, options);
  const name = options.name ?? 'all';
  const box = searchBox(block, options);
  const budget = searchBudget(system.dim, block.m, options);
  const rng = createRng(options.seed ?? 0);
  const analyticBound = analyticBoundOf(system, name, options);
  const map = blockMap(system, base, block);
  try {
    const search = new PairSearch(map, block.m, budget.starts, budget.stopEarly);
    if (budget.stopEarly) {
      coordinateProbes(search, box, block.center, budget.probes);
      randomPairs(search, rng, box, budget.samples);
    } else {
      randomPairs(search, rng, box, budget.samples);
      coordinateProbes(search, box, block.center, budget.probes);
    }
    spsaAscent(search, rng, box, budget.ascentSteps);
    const notes: string[] = [];
    const local = localNorm(block, options, budget.exactColumns, rng);
    if (local.note) notes.push(local.note);
    // a local norm >= 1 predicts an expanding pair along its direction: evaluate that pair
    if (local.pw.norm >= 1 && local.pw.vector.length === block.m)
      directionProbe(search, box, block.center, local.pw.vector);
    const worstPair = reportedPair(system, block, search);
    if (search.decided())
      notes.push(
        `the search stopped at its first counterexample (a ${worstPair!.source} pair, ratio ${worstPair!.ratio}) after ${map.evaluations} evaluations of Q (stopAtCounterexample; false searches the whole budget for the largest ratio)`,
      );
    if (map.outsideDomain > 0)
      notes.push(
        `Q rejected ${map.outsideDomain} sampled pair(s) (non-finite output: outside its domain); narrow the box (lower/upper)`,
      );
    if (block.basis)
      notes.push(
        `W is the span of ${block.m} orthonormal vectors: the ratio is ‖P_W(Q(x) − Q(y))‖/‖x − y‖ over pairs with x − y ∈ W (θ's part orthogonal to W held), the local norm ‖Bᵀ DQ B‖₂; a bound below 1 says nothing about the part of Q(x) − Q(y) orthogonal to W`,
      );
    const refuted =
      (worstPair !== null && worstPair.ratio >= 1 - worstPair.slack) || options.divergingIterates !== undefined;
    const proof = attemptProof(base, block, options, box, refuted, notes);
    const v = contractionVerdict(system, block, worstPair, local.pw, analyticBound, options.divergingIterates, proof);
    const result: ContractionResult = {
      subspace: name,
      dim: block.m,
      verdict: v.verdict,
      contractive: v.verdict === 'proved' ? true : v.verdict === 'refuted' ? false : null,
      upperBound: v.verdict === 'proved' ? proof!.upperBound : null,
      lowerBound: v.empiricalLowerBound,
      box: v.verdict === 'proved' ? proof!.box : null,
      fixedPointEnclosure: v.verdict === 'proved' ? proof!.fixedPointEnclosure : null,
      proofStatement: proofStatement(name, block, system.dim),
      proof: proof
        ? { attempts: proof.attempts, evaluations: proof.evaluations, enclosureWidth: proof.enclosureWidth }
        : null,

      empiricalLowerBound: v.empiricalLowerBound,
      localNorm: local.pw.norm,
      localNormKind: local.pw.kind,
      analyticBound,
      analyticBoundRefuted: v.analyticBoundRefuted,
      budget: {
        samples: budget.samples,
        probes: budget.probes,
        starts: budget.starts,
        ascentSteps: budget.ascentSteps,
        evaluations: map.evaluations,
      },
      searchBox: box.text,
      divergingIterates: v.diverging,
      worstPair,
      failingDirections: v.failingDirections,
      evaluations: map.evaluations,
      notes: [...notes, ...v.notes],
    };
    if (v.verdict === 'proved') recordProof(result, base, proof!.certificate!);
    return result;
  } finally {
    map.release();
  }
}
