/**
 * The options of `certify` and the report it returns (the `--json` document of `ordergap
 * certify`), shared by its phases (./certify.ts names them).
 */
import type { CrossCheck } from '../linearize/crossCheck.js';
import type { JacobianMethod } from '../linearize/operator.js';
import type { RunOverrides } from '../system/runParams.js';
import type { StateBox, Subspace } from '../system/types.js';
import type { LinearizationMode, RedundancyItem } from './commutator.js';
import type { ContractionResult } from './contraction.js';
import type { QuestionCoverage } from './coverage.js';
import type { NamedComponent } from './describe.js';
import type { FixedPointOptions, FixedPointResult } from './fixedPoint.js';
import type { VerdictSensitivity } from './sensitivity.js';
import type { QuestionBasisKind } from './subspace.js';

/** Progress callback: phase name, items done, items in the phase. */
export type ProgressFn = (phase: string, done: number, total: number) => void;

/** Options of `certify`. Every default comes from the system's certification policy when it declares one. */
export interface CertifyOptions {
  /**
   * Linearise at this state instead of the fixed point of Q; 'stop' for where Algorithm 1 stops
   * (run with the system's `runDefaults`, overridden by `run`).
   */
  at?: ArrayLike<number> | 'stop';
  /**
   * Where the fixed-point iteration starts when `fixedPoint.theta0` is not given: θ0, or where
   * Algorithm 1 stops. Default: the system's `certification.start`, else 'theta0'.
   */
  from?: 'theta0' | 'stop';
  /** Algorithm 1's parameters for `at: 'stop'` / `from: 'stop'` (default the system's `runDefaults`). */
  run?: RunOverrides;
  /** What the state is, for the report (default 'fixed point' or 'given state'). */
  atLabel?: string;
  /** Fixed-point iteration options (start, tolerance, budget, ρ). */
  fixedPoint?: FixedPointOptions;
  /** Subspaces W to decide (names of system.subspaces, or explicit subspaces). Default: all declared. */
  subspaces?: readonly (string | Subspace)[];
  /** Questions (W_q); default the system's questions, or its subspaces as stand-ins. */
  questions?: readonly (string | Subspace)[] | ((theta: Float64Array) => readonly Subspace[]);
  /** Per contraction block, its box around the linearisation state (default the system's `certification.boxAt`). */
  contractionBoxAt?: (name: string, theta: Float64Array, radius: number) => StateBox | undefined;
  /** Per contraction block, its box (default the system's `certification.boxes`). */
  contractionBoxes?: Readonly<Record<string, StateBox>>;
  /** 'fd' (default) or 'autodiff' (needs the system's tfjs forms). */
  jacobian?: JacobianMethod;
  /** Eq. (4) where redundancy holds and DF_e elsewhere ('auto', default), or force one. */
  linearization?: LinearizationMode;
  /**
   * Subspaces for the contraction check (names, or explicit subspaces: a span of vectors is
   * checked as the map on W, docs/certify.md step 2); default 'all', the declared blocks with a
   * declared bound, and the declared blocks among the requested subspaces.
   */
  contractionSubspaces?: readonly (string | Subspace)[];
  /** Box half-width for the empirical Lipschitz search (relative, default 0.1). */
  radius?: number;
  /** Lower bound of every contraction box (one number for every coordinate of the block). */
  lower?: number;
  /** Upper bound of every contraction box. */
  upper?: number;
  /**
   * Prove contraction on each coordinate block by outward-rounded enclosures where the system
   * has an interval form or a tfjs form of Q (default true; docs/certify.md, "Proofs").
   */
  proofs?: boolean;
  /** Enclosures (interval evaluations of Q with |W| tangents) per block at most (default 40). */
  proofBudget?: number;
  /**
   * Largest d·|W| proved, for the contraction blocks and the subspaces' non-degeneracy; a larger
   * one is not attempted, and the report says so. Default: 2²⁴ for contraction blocks, and for a
   * subspace items·d·|W| <= 2²³ (its proof evaluates the forms twice per item).
   */
  proofMaxEntries?: number;
  /** Random pairs for the empirical Lipschitz bound (default 64). */
  samples?: number;
  /** Seed of every random choice (the contraction search, the power iterations, the probes). */
  seed?: number;
  /**
   * Cross-check FD against autodiff on this many DQ columns when the system has tfjs forms
   * (default 16 when d <= 20000, else 0: tfjs forms of large systems are costly to differentiate).
   */
  crossCheckColumns?: number;
  /** Whole-space subspace 'all' is decided only when d <= this (default 2048). */
  maxWholeSpace?: number;
  onProgress?: ProgressFn;
}

/** One decided subspace. */
export interface SubspaceReport {
  name: string;
  dim: number;
  lambdaMin: number;
  lambdaMax: number;
  tolerance: number;
  toleranceDerivation: string;
  nonDegenerate: boolean;
  margin: number;
  kernelDim: number;
  /** The whole spectrum of G_W: squared singular values of the stack [√p_e Σ_e B], descending. */
  eigenvalues: number[];
  kernel: NamedComponent[][];
  topContributors: { evidence: string; p: number; share: number }[];
  /** 'non-degenerate', 'DEGENERATE', or 'sensitive' (the margin lies inside the error band). */
  verdict: 'non-degenerate' | 'DEGENERATE' | 'sensitive';
  /** How the verdict depends on the fixed point's error and the Jacobians' (./sensitivity.ts). */
  sensitivity: VerdictSensitivity;
  /** G_W itself, its eigenvalues and the kernel of its small eigenvalues ({@link SubspaceGramian}). */
  gramian: SubspaceGramian;
  /**
   * 'proved' when the verdict is shown to hold at the fixed point θ* itself by enclosures
   * (src/certify/nondegeneracyProof.ts): λ_min(G_W) bounded below by a positive number over an
   * enclosure of θ*, or a degenerate verdict whose kernel is exact (structural zeros);
   * 'numerical' otherwise (the decision above, at the float state).
   */
  proof: 'proved' | 'numerical';
  /** The proof's numbers and its statement (where it holds, or why it stays numerical). */
  proofDetail: { lambdaMinLowerBound: number | null; exactKernel: number[]; statement: string };
}

/** A subspace as the float decision leaves it, before the proof phase adds `proof` and `proofDetail`. */
export type DecidedSubspace = Omit<SubspaceReport, 'proof' | 'proofDetail'>;

/**
 * The commutator Gramian of a decided subspace (`commutatorGramian`, accumulated with linalg's
 * Gramian kernel from the same columns as the decision). The decision itself is taken on the
 * stack by the streaming QR: G_W's eigenvalues are accurate only to `resolution` = m·eps·λ_max.
 */
export interface SubspaceGramian {
  /** Eigenvalues of G_W, descending. */
  eigenvalues: Float64Array;
  resolution: number;
  kernelThreshold: number;
  kernelDim: number;
  /** Kernel basis (eigenvalues <= kernelThreshold), first 8 vectors, in named coordinates. */
  kernel: NamedComponent[][];
  /** G_W (m×m row-major) when m <= 64, else null (any size: `commutatorGramian`, src/certify/commutator.ts). */
  matrix: Float64Array | null;
}

/** Where the fixed point stands: unique (certified contraction) or which one was linearised. */
export interface UniquenessStatement {
  /** true when a certified contraction on the whole space makes θ* unique in its box. */
  established: boolean;
  statement: string;
}

/** One question's row: its coverage, what W_q is made of, and the verdict with its sensitivity. */
export type CoverageRow = QuestionCoverage & {
  basis: QuestionBasisKind;
  verdict: 'covered' | 'NOT covered' | 'sensitive';
  sensitivity: VerdictSensitivity;
};

/** The certification report (the `--json` document). */
export interface CertificationReport {
  system: string;
  dim: number;
  /**
   * Where the linearisation happened: `kind` ('fixed point', 'given state', or where Algorithm 1
   * stopped), `note` how the state was reached when a run was involved, θ itself for d <= 64.
   */
  state: { kind: string; note: string | null; theta: number[] | null; norm: number };
  fixedPoint: FixedPointResult & { theta: Float64Array };
  /**
   * One entry per contraction block checked ('all' first when checked): its verdict
   * ('proved' | 'refuted' | 'undecided'), the proved upperBound with its box and the enclosure of
   * the block's fixed point, the search's lowerBound and counterexample pair.
   */
  contraction: ContractionResult[];
  redundancy: RedundancyItem[];
  subspaces: SubspaceReport[];
  /** How the decided subspaces were chosen (asked, the system's policy, its declared ones, or a default). */
  subspaceChoice: string;
  /** Per question: its coverage, what W_q is made of, and the verdict with its sensitivity. */
  coverage: CoverageRow[];
  uniqueness: UniquenessStatement;
  jacobian: {
    method: JacobianMethod;
    relativeAccuracy: number;
    backend: string | null;
    crossCheck: CrossCheck | null;
    evaluations: number;
    columns: number;
    /** ‖DQ‖ (whole space, independent of the subspaces asked) and max‖DP_e‖ estimates entering the global scale. */
    normDQ: number;
    normDP: number;
  };
  /** Milliseconds per phase (the only field that differs between two identical runs). */
  timings: Record<string, number>;
  notes: string[];
}
