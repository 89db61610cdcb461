/**
 * The operator-system contract (docs/ARCHITECTURE.md, "Operator contract"): what a user
 * supplies so the toolkit can run Algorithm 1 and certify it, and the optional capabilities a
 * system that knows more about itself declares so the generic code uses them. Row-major, f64,
 * d = `dim` coordinates.
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import type { RunParams } from './runParams.js';

/** One evidence item and its probability P(e | θ). */
export interface EvidenceWeight {
  /** Stable identifier of the evidence item. */
  readonly id: string;
  /** Probability, finite and >= 0; the whole list sums to 1 (within sqrt(eps)). */
  readonly p: number;
}

/**
 * The evidence distribution P(·|θ) over a finite pool: a fixed list, or a function of the
 * state. Items with p = 0 are part of the pool (they can be diagnosed) but are never sampled.
 */
export type EvidenceDistribution = readonly EvidenceWeight[] | ((theta: Float64Array) => readonly EvidenceWeight[]);

/** A vector result: operators may return a Float64Array or a plain array. */
export type VectorLike = Float64Array | readonly number[];

/** A vector of length `dim` with non-zeros at the strictly increasing positions `index`. */
export interface SparseVector {
  readonly dim: number;
  readonly index: Int32Array;
  readonly value: Float64Array;
}

/** How a Jacobian was obtained: central differences in f64, or tfjs autodiff in float32. */
export type JacobianMethod = 'fd' | 'autodiff';

/** Counters of a {@link JacobianOperator}, for reports and benchmarks. */
export interface JacobianStats {
  /** Evaluations of the underlying map (FD) or forward/backward passes (autodiff). */
  evaluations: number;
  /** Columns J e_j computed (cache misses). */
  columns: number;
  /** Directional derivatives J v along non-unit directions. */
  directional: number;
}

/**
 * J = Df(x) at a fixed base point x, matrix-free: applied to sparse vectors, with its columns
 * J e_j cached (the certification shares DQ's columns across all evidence items).
 */
export interface JacobianOperator {
  /** Input dimension (columns of J). */
  readonly dim: number;
  /** Output dimension (rows of J). */
  readonly outDim: number;
  readonly method: JacobianMethod;
  /**
   * Relative accuracy r of J's entries: |computed − exact| ≲ r · (scale of J). Central
   * differences with h = eps^(1/3)·max(1, |x_j|): r = eps^(2/3) ≈ 3.7e-11 (truncation h²/6·f‴
   * and rounding eps·|f|/h balance there); float32 autodiff: r = 1e-6 (unit roundoff 6e-8
   * times a growth of ~16 over a few dozen operations).
   */
  readonly relativeAccuracy: number;
  /** J e_j (cached). */
  column(j: number): SparseVector;
  /** Computes and caches the columns in `cols` (batched where the engine can). */
  prefetch(cols: readonly number[]): void;
  /** J v. */
  apply(v: SparseVector): SparseVector;
  /**
   * J v for a dense v (length `dim`), dense (length `outDim`): for engines that can take a
   * direction along every coordinate without sparse vectors of that length. The values of
   * `apply` on v's non-zeros by one directional difference, densified (a power iteration over
   * the whole state runs it), into `out` when given (length `outDim`, not aliasing v; every
   * entry written). Absent: the caller applies the sparse form.
   */
  applyDense?(v: Float64Array, out?: Float64Array): Float64Array;
  readonly stats: JacobianStats;
  /** Frees resources held outside the JS heap (wasm blocks), if any. Idempotent. */
  release?(): void;
  /**
   * The same engine at this operator's point with the coordinates `index` (ascending) set to
   * `value`, built from what this operator holds — for engines where that is cheaper than from
   * the dense point (the certification's DQ(P_e(θ)) when P_e writes a small footprint). Absent:
   * the caller builds the operator at the dense point.
   */
  near?(index: Int32Array, value: Float64Array): JacobianOperator;
}

/**
 * The tfjs namespace the tfjs forms of an operator are written against (float32). The published
 * declarations spell it (and the tensor types) as `any` (scripts/dts-tfjs.mjs), so that they
 * type-check without tfjs's typings; pass `import * as tf from '@tensorflow/tfjs-core'`.
 */
export type Tf = typeof TfCore;

/** Q as a tfjs function on a batch of states: `X` is [batch, d], the result [batch, d]. */
export type TfConsolidate = (tf: Tf, X: TfCore.Tensor2D) => TfCore.Tensor2D;

/** P_e as a tfjs function on a batch of states. */
export type TfExpand = (tf: Tf, evidenceId: string, X: TfCore.Tensor2D) => TfCore.Tensor2D;

/**
 * An arithmetic run of coordinate indices start, start + stride, …, start + (count − 1)·stride:
 * how a block of Nmax² edge weights is named without holding Nmax² indices.
 */
export interface CoordinateRange {
  readonly start: number;
  readonly count: number;
  /** >= 1. */
  readonly stride: number;
}

/**
 * A named set of coordinate indices, ascending: a list (what a user writes), a typed index
 * array, or a {@link CoordinateRange}. Read it through the accessors of src/system/coordinates.ts
 * (`coordinateCount`, `coordinateAt`, `coordinateArray`), never by assuming an array.
 */
export type CoordinateSet = readonly number[] | Int32Array | CoordinateRange;

/**
 * A named subspace W ⊆ R^d: the span of some coordinate axes (a {@link CoordinateSet}, so a block
 * of Nmax² edge weights is named without listing its indices) or the span of vectors (dense,
 * length d, or sparse, {@link SparseVector} of dim d: a few non-zeros of a large state cost
 * O(nnz), not O(d); they need not be orthonormal or independent). src/certify/subspace.ts reads
 * it: its resolution by name, its dimension and its orthonormal basis.
 */
export type Subspace =
  | { readonly name: string; readonly coordinates: CoordinateSet }
  | { readonly name: string; readonly vectors: readonly (ArrayLike<number> | SparseVector)[] };

/** A box of states: lower and upper bound per coordinate of a block, or one number for all. */
export interface StateBox {
  readonly lower: number | ArrayLike<number>;
  readonly upper: number | ArrayLike<number>;
}

/** An analytic upper bound on the Lipschitz constant of Q restricted to one block. */
export interface LipschitzDeclaration {
  /** The bound L >= 0: ‖Q(x) − Q(y)‖ <= L ‖x − y‖ on the block's domain box. */
  readonly bound: number;
  /** How it was derived, for reports. */
  readonly derivation?: string;
}

/** How a system's Jacobians DQ and DP_e (Sec. 5.3) are best obtained. */
export interface LinearizationCapability {
  /**
   * The coordinates P_e reads and writes: P_e(θ)_i = θ_i off the footprint, and its values on
   * it depend on it only. DP_e is then blockdiag(D_e, I) and off-footprint columns are free.
   */
  footprint?(evidenceId: string): readonly number[];
  /**
   * A system-specific central-difference engine for DQ at x (for example one that keeps x in
   * wasm memory), or undefined to fall back to the generic engine. Same accuracy contract as
   * the generic engine (relative accuracy eps^(2/3)).
   */
  consolidateJacobian?(x: Float64Array): JacobianOperator | undefined;
  /**
   * The same for DP_e at x (for example one that differences P_e on its footprint only), or
   * undefined to fall back to the generic engine; same accuracy contract.
   */
  expandJacobian?(evidenceId: string, x: Float64Array): JacobianOperator | undefined;
  /** Q with tfjs ops only (float32), for `jacobian: 'autodiff'` and the FD cross-check. */
  consolidateTf?: TfConsolidate;
  /** P_e with tfjs ops only (float32). */
  expandTf?: TfExpand;
}

/**
 * An enclosure of a map over a box (outward-rounded interval arithmetic, so that it holds for the
 * real-number map): every output's interval and, when seeds were asked, the Jacobian columns
 * along them over the same box.
 */
export interface FormEnclosure {
  /** Enclosure of every output (length d). */
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  /**
   * Enclosure of ∂f_{rows[r]}/∂x_{seeds[s]} over the box at r·cols + s (rows: the asked rows,
   * else every output); null when no seeds were asked.
   */
  readonly jacobian: {
    readonly lo: Float64Array;
    readonly hi: Float64Array;
    readonly rows: number;
    readonly cols: number;
  } | null;
}

/**
 * Interval forms of Q and P_e for maps written without tfjs (a system with tfjs forms gets them
 * from `linearization.consolidateTf`/`expandTf` evaluated in interval arithmetic). Each encloses
 * the map over the box [lo, hi] and its Jacobian columns along `seeds` (indices of θ) on the
 * output rows `rows` (null: every output); ordergap's interval primitives (`interval` in
 * `ordergap/internal`) are the building blocks.
 */
export interface IntervalFormCapability {
  consolidate(lo: Float64Array, hi: Float64Array, seeds: Int32Array | null, rows: Int32Array | null): FormEnclosure;
  expand?(
    evidenceId: string,
    lo: Float64Array,
    hi: Float64Array,
    seeds: Int32Array | null,
    rows: Int32Array | null,
  ): FormEnclosure;
}

/** The certification policy a system wants by default (every field can be overridden per call). */
export interface CertificationPolicy {
  /** Subspaces W decided by default (names of `subspaces`, or 'all'). */
  readonly subspaces?: readonly string[];
  /** The per-question subspaces W_q at the linearisation state θ (Remark 5.4). */
  questionSpaces?(theta: Float64Array): readonly Subspace[];
  /** Fixed domain boxes per contraction block (e.g. the unit cube for confidences). */
  readonly boxes?: Readonly<Record<string, StateBox>>;
  /**
   * The box of contraction block `block` around θ with relative half-width `radius`, clipped to
   * the operators' domain; undefined for the generic θ ± radius·max(1, |θ|).
   */
  boxAt?(block: string, theta: Float64Array, radius: number): StateBox | undefined;
  /** Where the fixed-point iteration starts: θ0, or where Algorithm 1 with `runDefaults` stops. */
  readonly start?: 'theta0' | 'stop';
  /**
   * An engine for the many evaluations of Q the certification makes near `base` (the
   * fixed-point iteration, the contraction search on `block`), or undefined to use
   * `consolidate`. The engine's `varying` coordinates include `block`; Q must copy every other
   * coordinate (Q(θ)_i = θ_i), so it maps the states equal to `base` off `varying` to themselves.
   */
  consolidateOn?(base: Float64Array, block: ArrayLike<number>): ConsolidationEngine | undefined;
}

/**
 * Q restricted to the states θ that equal a base state off the coordinates `varying`: the map
 * z ↦ Q(θ with θ_varying = z)_varying, equal bit for bit to the system's `consolidate` there.
 */
export interface ConsolidationEngine {
  /** The coordinates that vary, ascending. Q copies every other coordinate of the base. */
  readonly varying: Int32Array;
  /**
   * Q(θ)_varying for θ = base with θ_varying = z, into `out` (both of length |varying|; `out`
   * must not alias z).
   * @throws {ArgumentError} Q has a non-finite entry there (the message names it as `consolidate` would).
   */
  consolidate(z: Float64Array, out: Float64Array): void;
  /** Frees what the engine holds outside the JS heap. Idempotent; the engine is unusable after. */
  release(): void;
}

/**
 * What a system may declare beyond the minimal contract. The generic code — the run loop, the
 * rule comparisons, the agent API, the certification — uses what is declared instead of a
 * special case for that system; `defineSystem` validates each once.
 */
export interface SystemCapabilities {
  /**
   * Structure-aware Ω(θ; e) = ‖Q(P_e(θ)) − P_e(Q(θ))‖ (Eq. 2), equal to the generic two-Q
   * evaluation to the bound the system documents. Must not modify θ.
   */
  orderGap?(theta: Float64Array, evidenceId: string): number;
  /**
   * One step of Algorithm 1: Ω(θ; e) (Eq. 2) and θ' = Q(P_e(θ)) (Eq. 1), sharing work between
   * them. `next` must equal `consolidate(expand(e, θ))` bit for bit. Must not modify θ.
   */
  step?(theta: Float64Array, evidenceId: string): { readonly omega: number; readonly next: Float64Array };
  /** A structured state the loop runs on instead of a dense θ. */
  state?: StateCapability;
  /** Jacobian engines and structure for the linearisation. */
  linearization?: LinearizationCapability;
  /** Analytic Lipschitz bounds of Q per block (a name of `subspaces`, or 'all'). */
  lipschitz?: Readonly<Record<string, LipschitzDeclaration>>;
  /** Interval forms of Q (and P_e) for proofs by enclosure, when the system has no tfjs forms. */
  intervalForm?: IntervalFormCapability;
  /** The default certification policy. */
  certification?: CertificationPolicy;
  /** The Algorithm 1 parameters the system recommends (src/system/runParams.ts). */
  runDefaults?: RunParams;
  /** Facts about the system and its states in words, for reports. */
  describe?: DescribeCapability;
}

/** One answer with its confidence (Sec. 2.1: a PartialAnswer node). */
export interface AnswerSummary {
  question: string;
  answer: string;
  text: string | null;
  confidence: number;
  /** The highest-confidence answer of its question. */
  best: boolean;
}

/** One question's openness (Sec. 2.1: an OpenQuestion node). */
export interface QuestionSummary {
  question: string;
  text: string | null;
  openness: number;
  /** openness > δ and not promoted (a promoted question is a PartialAnswer, not an OpenQuestion). */
  open: boolean;
  /** The question this one is a sub-question of, when the system knows one (its answers depend on this one). */
  parent?: string;
  /** Promoted to a PartialAnswer (Sec. 3.1): listed in {@link StateSummary.promoted}. */
  promoted: boolean;
}

/** A question promoted to a PartialAnswer (Sec. 3.1): its resolution support reached the threshold. */
export interface PromotionSummary {
  question: string;
  text: string | null;
  /** The question's resolution support (the reference graph: its Supports self-edge S_qq). */
  support: number;
  /** The promotion threshold τ_promote: promoted iff support >= threshold. */
  threshold: number;
  /** Its best answer (highest confidence, when above 0), null when it has none. */
  answer: string | null;
  /** That answer's text (null: none, or no text). */
  answerText: string | null;
  /** That answer's confidence (0 when there is none). */
  confidence: number;
}

/** A Contradicts edge between two present claims. */
export interface ContradictionSummary {
  source: string;
  target: string;
  weight: number;
  sourceConfidence: number;
  targetConfidence: number;
  /** Both endpoints above δ: a consistency violation (Sec. 2.2). */
  violating: boolean;
  /** The lower-confidence endpoint. */
  weaker: string;
}

/** A pair of claims within the merge radius (they interact in Q's merge). */
export interface MergeSummary {
  claims: [string, string];
  sources: [string | null, string | null];
  /** Distance of their merged (text) attributes now. */
  distance: number;
  /**
   * Distance of their targets as the evidence wrote them (before any merging); null when the
   * original attributes of either claim are not known (an agent keeps no pool: claims that came
   * from evidence).
   */
  originalDistance: number | null;
}

/**
 * A state in words, in the terms of the epistemic state graph (Sec. 2): answers with their
 * confidences, questions with their openness, contradictions, claims that merge, at the
 * threshold δ that calls a confidence high and a question open.
 */
export interface StateSummary {
  delta: number;
  answers: AnswerSummary[];
  questions: QuestionSummary[];
  /** The questions still open: openness > δ and not promoted. */
  openQuestions: string[];
  /** The questions promoted to PartialAnswers, in slot order. */
  promoted: PromotionSummary[];
  contradictions: ContradictionSummary[];
  contradictionsLeft: number;
  merged: MergeSummary[];
  /** Claims present (direct support > 0), with confidences. */
  claims: Array<{ id: string; confidence: number; source: string | null }>;
  /**
   * Pending edges: edges written before one of their endpoints is a node (a node evidence will
   * add), in (type, source, target) order; absent for a system that has none to report.
   */
  pendingEdges?: Array<{ type: string; source: string; target: string; weight: number }>;
}

/**
 * How a system describes itself and its states for people: what `ordergap run` prints about the
 * system and about the states a run reaches. `state` is the run's state — the structured state S
 * when the system declares `state`, else the dense θ.
 */
export interface DescribeCapability<S = unknown> {
  /**
   * Facts about the system in display order, numbers or text (the reference graph: `k`, `nmax`,
   * `nodes`, `evidenceItems`, `confidenceLipschitzBound`).
   */
  facts(): Readonly<Record<string, number | string>>;
  /**
   * The state in words at the threshold δ ∈ (0, 1); absent when the system has no words for its
   * states (a synthetic graph's nodes have no names).
   */
  summary?(state: S, delta: number): StateSummary;
  /** Counts a report shows of a state, in display order (the reference graph: `storedEdges`). */
  stateFacts?(state: S): Readonly<Record<string, number>>;
  /**
   * What the answer-based stopping rules read of a state: the leading answer (null: none yet)
   * and its confidence in [0, 1], from the state's dense head (the reference graph: the best
   * answer of its first question). With it every registered rule can drive a run.
   */
  answer?(head: Float64Array): { readonly answer: string | null; readonly confidence: number };
}

/**
 * A state held in the system's own representation S instead of one dense Float64Array of d
 * entries (the reference graph: the node block dense, each edge block sparse). The loop, the rule
 * comparisons and the agent API run on it; the dense θ stays the oracle: every operation here
 * equals, bit for bit, the same operation on the dense θ with the system's reference operators
 * (`toDense` of the result is what the dense path computes). Operations that change a state
 * change it in place (no copy of θ per step).
 */
export interface StateCapability<S = unknown> {
  /** θ0 in this representation (a new state). */
  initial(): S;
  /** From a dense θ of length d (copied). */
  fromDense(theta: Float64Array): S;
  /** The dense θ (length d; O(d) memory: small problems, tests, exports). */
  toDense(state: S): Float64Array;
  /** An independent copy. */
  copy(state: S): S;
  /**
   * Optional: an independent copy of `state` written into `into`'s storage where it fits (null:
   * a new copy), returned. A loop that keeps one copy (the best state) reuses it with this.
   */
  copyInto?(state: S, into: S | null): S;
  /**
   * The leading coordinates θ_0 … θ_{m−1} the state holds densely, as a view valid until the
   * state changes (the graph's node block). P(·|θ) and the readers of a run's states
   * (`answerOf`, `confidenceOf`, `scoreOf`) read this prefix; they must not read beyond it.
   */
  head(state: S): Float64Array;
  /** Ω(θ; e) (Eq. 2), then θ ← Q(P_e(θ)) (Eq. 1), in place; returns Ω. */
  step(state: S, evidenceId: string): number;
  /** Ω(θ; e) (Eq. 2) exactly, without changing the state. */
  orderGap(state: S, evidenceId: string): number;
  /**
   * Ω(θ; e) computed without a pass of Q over the whole state (e.g. restricted to the part of θ
   * P_e and Q couple), for consolidation scheduling (Sec. 7.3). Exact or an upper bound; the
   * capability says which in `estimateIsExact`.
   */
  orderGapEstimate(state: S, evidenceId: string): number;
  /** True when {@link orderGapEstimate} returns Ω itself (bit for bit), false for a bound. */
  readonly estimateIsExact: boolean;
  /** θ ← P_e(θ), in place. */
  expand(state: S, evidenceId: string): void;
  /** θ ← Q(θ), in place. */
  consolidate(state: S): void;
  /** P(·|θ) of the state. */
  evidenceAt(state: S): readonly EvidenceWeight[];
  /** The bytes the state holds (typed arrays), for sizing and benchmarks. */
  bytes(state: S): number;
  /** The non-zero coordinates [index, value] in ascending index order (the sparse export). */
  entries(state: S): Array<[number, number]>;
  /**
   * Optional: ‖P_e(θ) − θ‖, how much of item e the state does not yet represent (0 when e is
   * redundant at θ, Sec. 5.3), without changing the state; equal to the dense computation.
   */
  residual?(state: S, evidenceId: string): number;
}

/** What a user writes (the default export of an operator module), capabilities optional. */
export interface OperatorSystemSpec extends SystemCapabilities {
  /** Human-readable name. */
  name: string;
  /** Dimension d of the state θ ∈ R^d. */
  dim: number;
  /** Consolidation Q: R^d -> R^d (must not modify its argument). */
  consolidate(theta: Float64Array): VectorLike;
  /** Expansion P_e: R^d -> R^d for evidence item `evidenceId` (must not modify θ). */
  expand(evidenceId: string, theta: Float64Array): VectorLike;
  /** P(·|θ): finite, non-negative, non-empty support, sums to 1. */
  evidence: EvidenceDistribution;
  /** Start state for Algorithm 1 and the fixed-point iteration. */
  theta0?: readonly number[] | Float64Array;
  /** Named coordinate index sets W (default for certification: all coordinates). */
  subspaces?: Readonly<Record<string, CoordinateSet>>;
  /** Per-open-question coordinate sets W_q (Remark 5.4). */
  questions?: Readonly<Record<string, readonly number[]>>;
  /** Optional: names coordinate i for people (e.g. `c[q:birthplace]`). */
  describeCoordinate?(index: number): string;
}

/**
 * A validated system. Its operators check their outputs (length d, finite) and return
 * Float64Arrays; `evidenceAt` validates the distribution at each call.
 */
export interface OperatorSystem {
  readonly name: string;
  readonly dim: number;
  /** Q(θ), validated. */
  consolidate(theta: Float64Array): Float64Array;
  /** P_e(θ), validated; unknown ids are an error. */
  expand(evidenceId: string, theta: Float64Array): Float64Array;
  /** P(·|θ), validated. */
  evidenceAt(theta: Float64Array): readonly EvidenceWeight[];
  /** The start state, if declared. */
  readonly theta0: Float64Array | undefined;
  /** Named coordinate sets (read with src/system/coordinates.ts). */
  readonly subspaces: Readonly<Record<string, CoordinateSet>>;
  readonly questions: Readonly<Record<string, readonly number[]>>;
  /** Names coordinate i (defaults to `theta[i]`). */
  describeCoordinate(index: number): string;
  /**
   * The declared capabilities, validated; those that return a result have it checked (finite,
   * the right length) like Q and P_e.
   */
  readonly capabilities: Readonly<SystemCapabilities>;
  /** The spec this system was built from. */
  readonly spec: OperatorSystemSpec;
}
