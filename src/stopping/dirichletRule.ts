/**
 * Adaptive-Consistency's Dirichlet stopping criterion (Aggarwal et al. 2023; repository
 * Pranjal2041/AdaptiveConsistency, `adaptive_consistency/stopping_criterias.py`,
 * `DirichletStoppingCriteria.should_stop`). With fewer than three distinct answers it is the Beta
 * criterion (`BetaStoppingCriteria`, here {@link leaderProbability}); otherwise it keeps the
 * `top_k_elements` (default 5) largest counts c_1..c_m, puts the posterior Dirichlet(c_1 + 1, ...,
 * c_m + 1) on their shares (the repository's integrand is Π p_i^{c_i}: a uniform prior) and stops
 * when P(the leading share exceeds every other) >= `conf_thresh` (default 0.95).
 *
 * ## The probability, exactly
 * The repository estimates this probability by Monte Carlo over nested uniform limits (default
 * `use_markov=True`: N = 50 000 samples for up to four dimensions, unseeded) or by `scipy.nquad`
 * with `epsrel = epsabs = 0.1`. Both are random or coarse, so here it is computed in closed form.
 * A Dirichlet vector is a normalised vector of independent Gamma(a_i, 1) variables X_i, so with
 * a_i = c_i + 1 (integers) and L the leader,
 *
 *     P = P(X_L >= X_i for all i) = ∫_0^∞ g_{a_L}(x) Π_{i≠L} (1 − Q_{a_i}(x)) dx,
 *     Q_a(x) = P(Gamma(a) > x) = e^{−x} Σ_{j<a} x^j / j!   (integer a),
 *
 * and expanding the product over the subsets S of the other answers (inclusion–exclusion),
 *
 *     P = Σ_S (−1)^{|S|} T_S,   T_S = P(X_i > X_L for all i ∈ S)
 *       = Σ_n k_S(n) · Γ(a_L + n) / (Γ(a_L) · (1 + |S|)^{a_L + n}),
 *
 * where k_S is the coefficient sequence of Π_{i∈S} Σ_{j<a_i} x^j/j!. Every T_S lies in [0, 1] and is
 * a sum of positive terms, computed in log space (log-factorials by compensated summation, the
 * polynomial products by log-sum-exp convolution), so nothing overflows. No numerical integration
 * or sampling is involved; the only error is rounding.
 *
 * ## Error bound (returned with the probability)
 * Let ε = 2^−52, N = a_L + Σ_{i≠L} c_i (the largest factorial used) and Λ = log N! + N·log m + 1,
 * which bounds the magnitude of every exponent and partial sum formed. A log-factorial carries at
 * most 3ε·log N! (each `Math.log` within 1 ulp, compensated sum); each log-sum-exp convolution
 * round adds at most (3Λ + N + 2)ε; assembling an exponent adds at most 12εΛ. So every term of
 * T_S has relative error at most ρ_S = ε·((6|S| + 12)(Λ + N) + N + 3) (including the exp and the
 * N + 1 positive additions), and the signed sum over the 2^{m−1} subsets adds at most 4^{m−1}·ε
 * (partial sums are at most Σ T_S <= 2^{m−1}). The bound returned is
 * 1.01·Σ_S ρ_S·T_S + 4^{m−1}·ε. For counts (20, 10, 5, 3, 2) it is 9e-14; the tests
 * check the computed probability against exact rationals within it.
 */
import { ArgumentTypeError } from '../util/errors.js';
import { integerInRange, openInterval } from '../util/validate.js';
import { leaderProbability } from './betaTail.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** The Dirichlet criterion's published defaults (`DirichletStoppingCriteria.__init__`). */
export const DIRICHLET_DEFAULTS = Object.freeze({ threshold: 0.95, topK: 5 });

/** Most answers kept: cost and the inclusion–exclusion rounding grow as 2^{topK − 1}. */
export const DIRICHLET_MAX_TOP_K = 12;

/** P(the leading share exceeds every other) with a rigorous bound on its rounding error. */
export interface DirichletLeaderProbability {
  /** The probability, clamped to [0, 1]. */
  readonly probability: number;
  /** Bound on |probability − exact| (module comment). */
  readonly errorBound: number;
}

const EPS = 2 ** -52;

/** log k! for k = 0..n by Neumaier-compensated summation of Math.log(j). */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  let sum = 0;
  let comp = 0;
  for (let j = 2; j <= n; j++) {
    const x = Math.log(j);
    const t = sum + x;
    comp += Math.abs(sum) >= Math.abs(x) ? sum - t + x : x - t + sum;
    sum = t;
    out[j] = sum + comp;
  }
  return out;
}

/** Coefficients r[n] = log Σ_j exp(p[j] + q[n − j]) (the log of a product of positive polynomials). */
function logConvolve(p: Float64Array, q: Float64Array): Float64Array {
  const out = new Float64Array(p.length + q.length - 1);
  for (let n = 0; n < out.length; n++) {
    const lo = Math.max(0, n - q.length + 1);
    const hi = Math.min(n, p.length - 1);
    let max = -Infinity;
    for (let j = lo; j <= hi; j++) max = Math.max(max, p[j]! + q[n - j]!);
    let s = 0;
    for (let j = lo; j <= hi; j++) s += Math.exp(p[j]! + q[n - j]! - max);
    out[n] = max + Math.log(s);
  }
  return out;
}

/**
 * P(p_L > p_i for every i ≠ L) under Dirichlet(counts + 1), where L holds the largest count (any of
 * tied leaders gives the same value), by the closed form of the module comment, with its error
 * bound. Two counts give P(Beta(v1 + 1, v2 + 1) > 1/2), the Beta rule's probability; m equal
 * counts give 1/m.
 * @param counts vote counts, integers >= 0 (at most {@link DIRICHLET_MAX_TOP_K} of them, at least one)
 * @throws {ArgumentError} an empty or too long list, or a count that is not an integer >= 0.
 * @example
 * ```ts
 * dirichletLeaderProbability([1, 0, 0]).probability; // 11/18: ∫ x e^−x (1 − e^−x)^2 dx
 * ```
 */
export function dirichletLeaderProbability(counts: readonly number[]): DirichletLeaderProbability {
  if (!Array.isArray(counts)) throw new ArgumentTypeError('counts', counts, 'must be an array of counts');
  integerInRange('counts.length', counts.length, 1, DIRICHLET_MAX_TOP_K);
  counts.forEach((c, i) => integerInRange(`counts[${i}]`, c, 0, 1e6));
  return dirichletLeaderUnchecked(counts);
}

function dirichletLeaderUnchecked(counts: readonly number[]): DirichletLeaderProbability {
  const m = counts.length;
  let lead = 0;
  for (let i = 1; i < m; i++) if (counts[i]! > counts[lead]!) lead = i;
  const aL = counts[lead]! + 1;
  const others = counts.filter((_, i) => i !== lead);
  const n = aL + others.reduce((s, c) => s + c, 0);
  const lf = logFactorials(n);
  const factors = others.map((c) => Float64Array.from({ length: c + 1 }, (_, j) => -lf[j]!));
  const lambda = lf[n]! + n * Math.log(m) + 1;
  let sum = 1; // T_∅ = 1
  let bound = 0;
  // depth-first over the subsets S ≠ ∅, each product built from its parent's
  const visit = (from: number, size: number, poly: Float64Array | null): void => {
    for (let i = from; i < factors.length; i++) {
      const p = poly === null ? factors[i]! : logConvolve(poly, factors[i]!);
      const s = size + 1;
      const log1s = Math.log1p(s);
      let t = 0;
      for (let k = 0; k < p.length; k++) t += Math.exp(p[k]! + lf[aL - 1 + k]! - lf[aL - 1]! - (aL + k) * log1s);
      sum += s % 2 === 1 ? -t : t;
      bound += t * EPS * ((6 * s + 12) * (lambda + n) + n + 3);
      visit(i + 1, s, p);
    }
  };
  visit(0, 0, null);
  const errorBound = 1.01 * bound + 4 ** (m - 1) * EPS;
  return { probability: Math.min(1, Math.max(0, sum)), errorBound };
}

/** Parameters of {@link DirichletStoppingRule}. */
export interface DirichletStoppingParams {
  /** Stop when P(leader's share exceeds every other) >= threshold; in (1/2, 1) (default 0.95). */
  threshold?: number;
  /** Answers kept, the most voted (default 5; the repository's `top_k_elements`), in [2, 12]. */
  topK?: number;
  /** Minimum answered samples before testing (default 1). */
  minSamples?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`; empty or unparseable answers are not counted. Cost O(2^{k−1}·n²) per observation
 * for k kept answers and n answered samples (usually far less: the polynomial degrees are the counts).
 * @throws {ArgumentError} threshold outside (1/2, 1), topK not an integer in [2, 12], minSamples not an integer >= 1.
 * @example
 * ```ts
 * const r = new DirichletStoppingRule();
 * ['a', 'b', 'c', 'a', 'a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 8: at t = 9 the counts (7, 1, 1) give P = 0.963 >= 0.95 (at t = 8, (6, 1, 1) give 0.935)
 * ```
 */
export class DirichletStoppingRule extends BaseRule {
  readonly name = 'dirichlet';
  readonly params: RuleParams;
  readonly #threshold: number;
  readonly #topK: number;
  readonly #minSamples: number;
  readonly #tally = new VoteTally();
  constructor(params: DirichletStoppingParams = {}) {
    checkKnownParams('dirichlet', params, ['threshold', 'topK', 'minSamples', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    this.#threshold = openInterval('threshold', params.threshold ?? DIRICHLET_DEFAULTS.threshold, 0.5, 1);
    this.#topK = integerInRange('topK', params.topK ?? DIRICHLET_DEFAULTS.topK, 2, DIRICHLET_MAX_TOP_K);
    this.#minSamples = integerInRange('minSamples', params.minSamples ?? 1, 1);
    this.params = Object.freeze({
      threshold: this.#threshold,
      topK: this.#topK,
      minSamples: this.#minSamples,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
  }
  protected decide(obs: StepObservation): StopDecision {
    this.#tally.add(obs.answer ?? null);
    if (this.#tally.valid < this.#minSamples || this.#tally.valid === 0) return CONTINUE;
    const counts = this.#tally
      .entries()
      .map(([, c]) => c)
      .sort((x, y) => y - x);
    if (counts.length < 3) {
      // the repository's fallback to the Beta criterion, decided as the Beta rule decides
      const [v1, v2 = 0] = counts as [number, number?];
      const p = leaderProbability(v1, v2);
      if (p.below > 1 - this.#threshold) return CONTINUE;
      return {
        stop: true,
        reason: 'criterion',
        detail: `P(p1 > p2 | ${v1}, ${v2}) = ${p.above} >= ${this.#threshold}`,
      };
    }
    const top = counts.slice(0, this.#topK);
    const { probability } = dirichletLeaderUnchecked(top);
    if (probability < this.#threshold) return CONTINUE;
    return {
      stop: true,
      reason: 'criterion',
      detail: `P(p1 > p_i for all i | ${top.join(', ')}) = ${probability} >= ${this.#threshold}`,
    };
  }
  protected clear(): void {
    this.#tally.clear();
  }
}
