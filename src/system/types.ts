/**
 * The operator-system contract (ARCHITECTURE.md, "Contracts"): what a user supplies so the
 * toolkit can run Algorithm 1 and certify it. Row-major, f64, d = `dim` coordinates.
 */

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

/** What a user writes (the default export of an operator module). */
export interface OperatorSystemSpec {
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
  subspaces?: Readonly<Record<string, readonly number[]>>;
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
  /** The ids of the evidence pool (all items at θ0, including zero-probability ones). */
  readonly theta0: Float64Array | undefined;
  readonly subspaces: Readonly<Record<string, readonly number[]>>;
  readonly questions: Readonly<Record<string, readonly number[]>>;
  /** Names coordinate i (defaults to `theta[i]`). */
  describeCoordinate(index: number): string;
  /** The spec this system was built from. */
  readonly spec: OperatorSystemSpec;
}
