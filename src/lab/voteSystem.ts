/**
 * The vote-state system: repeated sampling (self-consistency, BRANCH) written as an operator
 * system in the paper's terms (Sec. 3.1), so that Algorithm 1 and the order-gap rule apply to it
 * unchanged.
 *
 * ## State
 * For K candidate answers a_0..a_{K−1}, θ ∈ R^{2K+1} is
 *
 *     θ = (v_0..v_{K−1}, c_0..c_{K−1}, u)
 *
 * - v: the evidence tallies (the Claim nodes): the running mean of the answered samples, i.e.
 *   v_i = (votes for a_i) / n after n answered samples (uniform before any);
 * - c: the PartialAnswer confidences, a distribution over the candidates written by Q;
 * - u = 1/(n + 1): the uncertainty coordinate — the weight one more sample gets in the mean.
 *
 * θ0 = (uniform, uniform, 1).
 *
 * ## Operators
 * - Expansion by a sample with answer a_e (Eq. 1's P_e):
 *   P_e(v, c, u) = ((1 − u)·v + u·1_e, c, u/(1 + u)). An empty or unparseable sample (evidence id
 *   {@link EMPTY_EVIDENCE}) adds no vote: P_∅ is the identity.
 * - Consolidation (Q "shifts weight toward the current best PartialAnswer", Sec. 3.1), using only
 *   what is in the state: Q(v, c, u) = (v, (1 − λ)·v + λ·1_M/|M|, u), where M is the set of
 *   plurality candidates (v_i within τ of max v; τ below) and λ ∈ (0, 1] is the consolidation
 *   strength.
 * The consolidated answer of θ is the plurality of c after Q — the same as the plurality of v —
 * or undecided when |M| > 1.
 *
 * ## The order-gap in closed form
 * P_e leaves c alone and Q leaves v and u alone, so both orderings agree on v and u and
 *
 *     Ω(θ; e) = ‖Q(P_e θ) − P_e(Q θ)‖ = ‖(1 − λ)·u·(1_e − v) + λ·(1_{M'}/|M'| − 1_M/|M|)‖,
 *
 * with M the plurality set before the sample and M' after it. Hence:
 * - the sample does not change the consolidated answer (M' = M): Ω = (1 − λ)·u·‖1_e − v‖
 *   <= (1 − λ)·u·√2 (two points of the simplex are at most √2 apart), and Ω = 0 when the sample
 *   agrees with a unanimous tally;
 * - the sample changes it (M' ≠ M): Ω >= λ·g − (1 − λ)·u·√2, where g = ‖1_{M'}/|M'| − 1_M/|M|‖
 *   >= 1/√2 when the plurality was strict (|M| = 1: g = √2 if another answer takes the lead,
 *   1/√2 if it draws level).
 * So when the plurality is strict and u < λ/(4(1 − λ)) — for λ = 1/2, after n >= 4 answered
 * samples — a sample that changes the consolidated answer has Ω >= λ/√2 − (1 − λ)·u·√2, which is
 * strictly above {@link answerChangeBound}(u, λ) = (1 − λ)·u·√2, while a sample that does not
 * change it has Ω <= that bound: Ω is small exactly when one more sample would not change the
 * consolidated answer.
 * Since u = 1/(n + 1), the no-change order-gap also decays like 1/n: a sample that cannot move
 * the answer moves the state less and less. (test/lab/voteSystem.test.ts checks both cases and
 * the formula.)
 *
 * ## What it is not
 * Q is idempotent (Q∘Q = Q) and leaves v and u unchanged, so it is not a contraction and the
 * fixed-point / Gramian analysis of Sec. 5.3 does not apply; Algorithm 1 and Eq. (2)–(3) need
 * neither. An empty sample has Ω = 0 (it changes nothing), so a run of w empty samples
 * satisfies the window test; the replay reports such an item as having no answer, apart from
 * wrong ones.
 *
 * ## Tie tolerance τ = sqrt(eps)
 * After n answered samples the exact tallies are multiples of 1/n, so distinct counts differ by
 * at least 1/n, while the running-mean recurrence accumulates at most about 3·n·eps of rounding.
 * τ = sqrt(eps) ≈ 1.5e-8 separates the two for n up to ~3e7 samples (3·n·eps < τ < 1/n).
 */
import { defineSystem } from '../system/define.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';

/** Evidence id of an empty or unparseable sample. */
export const EMPTY_EVIDENCE = 'empty';
/** Evidence id of a sample whose normalised answer is `answer`. */
export function answerEvidence(answer: string): string {
  return `answer:${answer}`;
}
/** Tolerance deciding ties in the plurality set (see the module comment). */
export const TIE_TOLERANCE = Math.sqrt(Number.EPSILON);

/** Options of {@link voteStateSystem}. */
export interface VoteStateOptions {
  /** Consolidation strength λ ∈ (0, 1] (default 1/2). */
  lambda?: number;
  /**
   * P(·|θ) for Algorithm 1's sampling mode: weights per answer (and `empty`), e.g. the
   * empirical frequencies of an item's samples. Default: uniform over the candidates.
   */
  evidence?: Readonly<Record<string, number>>;
}

/** The layout of a vote state, for reading θ. */
export interface VoteStateLayout {
  readonly candidates: readonly string[];
  readonly lambda: number;
  /** Index of v_i is i; of c_i is K + i; of u is 2K. */
  readonly uIndex: number;
}

/**
 * The vote-state maps themselves, as the system's `expand` and `consolidate` call them but without
 * the operator contract's input copy and output scan: for callers that only feed them states the
 * maps produced from θ₀ (every output is a convex combination of finite inputs, so it is finite and
 * of length 2K + 1 by construction). Each writes its result into `out` when given (which may be θ
 * itself: every entry is computed from entries read before it is written) and returns it, else
 * returns a new array; neither writes its input otherwise.
 */
export interface VoteStateMaps {
  /** P_e with e the answer of candidate index `answer` (−1: an empty sample, the identity). */
  expand(answer: number, theta: Float64Array, out?: Float64Array): Float64Array;
  /** Q. */
  consolidate(theta: Float64Array, out?: Float64Array): Float64Array;
}

/** A vote-state system with its layout. */
export interface VoteStateSystem extends OperatorSystem {
  readonly layout: VoteStateLayout;
  /** The same maps without the contract's checks (see {@link VoteStateMaps}). */
  readonly maps: VoteStateMaps;
}

/** Indices i with v_i within τ of max v, over the first K entries of θ. */
export function pluralitySet(theta: ArrayLike<number>, k: number): number[] {
  let max = -Infinity;
  for (let i = 0; i < k; i++) if (theta[i]! > max) max = theta[i]!;
  const out: number[] = [];
  for (let i = 0; i < k; i++) if (theta[i]! >= max - TIE_TOLERANCE) out.push(i);
  return out;
}

/**
 * The bound (1 − λ)·u·√2 that Ω does not exceed when a sample leaves the consolidated answer
 * unchanged; a sample that changes a strict plurality while u < λ/(4(1 − λ)) has
 * Ω >= λ/√2 − (1 − λ)·u·√2, strictly above it.
 */
export function answerChangeBound(u: number, lambda: number): number {
  return (1 - lambda) * u * Math.SQRT2;
}

/**
 * Builds the vote-state system over the given candidate answers (see the module comment for the
 * formulas). Built with {@link defineSystem}, so every operator output is validated.
 * Cost: O(K) per operator application.
 * @throws {ArgumentError} duplicate or non-string candidates, λ outside (0, 1], evidence weights
 *   naming unknown answers.
 * @example
 * ```ts
 * const sys = voteStateSystem(['paris', 'lyon']);
 * let theta = sys.theta0!;
 * theta = sys.consolidate(sys.expand(answerEvidence('paris'), theta)); // v = (1, 0), u = 1/2
 * orderGap(sys, theta, answerEvidence('paris')); // 0: agreeing with a unanimous tally
 * ```
 */
export function voteStateSystem(candidates: readonly string[], options: VoteStateOptions = {}): VoteStateSystem {
  if (!Array.isArray(candidates)) throw new ArgumentTypeError('candidates', candidates, 'must be an array of strings');
  const seen = new Set<string>();
  candidates.forEach((a, i) => {
    if (typeof a !== 'string' || a.length === 0)
      throw new ArgumentTypeError(`candidates[${i}]`, a, 'must be a non-empty string');
    if (seen.has(a)) throw new ArgumentError(`candidates[${i}]`, a, 'is a duplicate answer');
    seen.add(a);
  });
  const lambda = finiteNumber('lambda', options.lambda ?? 0.5);
  if (!(lambda > 0 && lambda <= 1)) throw new ArgumentError('lambda', lambda, 'must lie in (0, 1]');
  const k = candidates.length;
  const dim = 2 * k + 1;
  const index = new Map(candidates.map((a, i) => [answerEvidence(a), i]));
  const ids = [...candidates.map(answerEvidence), EMPTY_EVIDENCE];

  let evidence: EvidenceWeight[];
  if (options.evidence) {
    let total = 0;
    for (const [id, w] of Object.entries(options.evidence)) {
      if (!ids.includes(id))
        throw new ArgumentError(`evidence.${id}`, w, `names no candidate (known: ${ids.join(', ')})`);
      finiteNumber(`evidence.${id}`, w);
      if (w < 0) throw new ArgumentError(`evidence.${id}`, w, 'must be >= 0');
      total += w;
    }
    if (!(total > 0)) throw new ArgumentError('evidence', options.evidence, 'must have positive total weight');
    evidence = ids.map((id) => ({ id, p: (options.evidence![id] ?? 0) / total }));
  } else if (k > 0) {
    evidence = ids.map((id) => ({ id, p: id === EMPTY_EVIDENCE ? 0 : 1 / k }));
  } else {
    evidence = [{ id: EMPTY_EVIDENCE, p: 1 }];
  }

  const theta0 = new Float64Array(dim);
  for (let i = 0; i < 2 * k; i++) theta0[i] = 1 / k;
  theta0[2 * k] = 1;

  const maps: VoteStateMaps = Object.freeze({
    expand(e: number, theta: Float64Array, into?: Float64Array): Float64Array {
      const out = copyInto(theta, into);
      if (e < 0) return out;
      const u = theta[2 * k]!;
      for (let i = 0; i < k; i++) out[i] = (1 - u) * theta[i]! + (i === e ? u : 0);
      out[2 * k] = u / (1 + u);
      return out;
    },
    consolidate(theta: Float64Array, into?: Float64Array): Float64Array {
      // the plurality set of pluralitySet, counted and then marked without building it
      let max = -Infinity;
      for (let i = 0; i < k; i++) if (theta[i]! > max) max = theta[i]!;
      const floor = max - TIE_TOLERANCE;
      let m = 0;
      for (let i = 0; i < k; i++) if (theta[i]! >= floor) m++;
      const share = lambda / m;
      const out = copyInto(theta, into);
      for (let i = 0; i < k; i++) {
        const c = (1 - lambda) * theta[i]!;
        out[k + i] = theta[i]! >= floor ? c + share : c;
      }
      return out;
    },
  });
  const system = defineSystem({
    name: `vote-state(K=${k}, lambda=${lambda})`,
    dim,
    theta0,
    evidence,
    subspaces: { tallies: [...Array(k).keys()], confidences: [...Array(k).keys()].map((i) => k + i) },
    expand: (id: string, theta: Float64Array) => maps.expand(id === EMPTY_EVIDENCE ? -1 : index.get(id)!, theta),
    consolidate: maps.consolidate,
    describeCoordinate(i: number): string {
      if (i < k) return `v[${candidates[i]}]`;
      if (i < 2 * k) return `c[${candidates[i - k]}]`;
      return 'u';
    },
  });
  return Object.freeze({
    ...system,
    layout: Object.freeze({ candidates: [...candidates], lambda, uIndex: 2 * k }),
    maps,
  });
}

/** θ copied into `out` (unless it is θ itself), or a copy of θ when no `out` is given. */
function copyInto(theta: Float64Array, out: Float64Array | undefined): Float64Array {
  if (out === undefined) return theta.slice();
  if (out !== theta) out.set(theta);
  return out;
}

/**
 * The consolidated answer of a state: the unique plurality candidate of v, or null when tied
 * (or when there are no candidates).
 */
export function consolidatedAnswer(system: VoteStateSystem, theta: ArrayLike<number>): string | null {
  const k = system.layout.candidates.length;
  if (k === 0) return null;
  const m = pluralitySet(theta, k);
  return m.length === 1 ? system.layout.candidates[m[0]!]! : null;
}
