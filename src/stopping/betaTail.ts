/**
 * Tail probabilities of a Beta distribution with integer parameters, used by the Beta stopping
 * rule (Adaptive-Consistency) and by the evidence planner (src/lab/evidenceMemory.ts).
 *
 * ## The identity
 * For integers a, b >= 1 and x ∈ [0, 1], the regularised incomplete Beta function equals a
 * binomial tail (integrate by parts a − 1 times):
 *
 *     I_x(a, b) = P(Beta(a, b) <= x) = P(Bin(n, x) >= a),   n = a + b − 1,
 *
 * so P(Beta(a, b) > x) = P(Bin(n, x) <= a − 1) = Σ_{j=0}^{a−1} C(n, j) x^j (1 − x)^{n−j}.
 * No special function (log-gamma, continued fraction) is needed: the answer is a finite sum of
 * positive terms.
 *
 * ## Numerics
 * The n + 1 binomial terms t_j are computed in log space by the recurrence
 * log t_{j+1} = log t_j + log((n − j)/(j + 1)) + log(x/(1 − x)) starting at log t_0 = n·log(1 − x),
 * so nothing overflows (C(n, j) alone overflows f64 for n > 1029). Each side of the split
 * (j <= a − 1 and j >= a) is summed with log-sum-exp around its own largest term, and the
 * result is returned as lower / (lower + upper) and upper / (lower + upper). Renormalising by the
 * computed total cancels the common rounding of the recurrence, and — the important part — the
 * probability and its complement are each computed from their own terms, never as 1 − (the
 * other), so a tail of 1e-30 is returned with full relative accuracy instead of as 0 = 1 − 1.
 *
 * Error: every log t_j carries an absolute error of at most about 3·j·eps·max(1, |log t_j|)
 * (j additions of correctly rounded logs), i.e. a relative error of the same size in t_j; the
 * sums then add at most n·eps relative. For the counts this package sees (n up to a few
 * thousand) the relative error of either returned probability is below 1e-9 (test/stopping
 * checks it against exact BigInt rationals and against Gauss–Legendre integration of the Beta
 * density). Cost: O(n) logs and exps.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { logSumExp } from './logSpace.js';

/** A probability together with its complement, each computed from its own terms. */
export interface TailPair {
  /** P(Beta(a, b) > x). */
  above: number;
  /** P(Beta(a, b) <= x) = 1 − above, computed separately (accurate when tiny). */
  below: number;
}

/**
 * P(Beta(a, b) > x) and P(Beta(a, b) <= x) for integers a, b >= 1 (see the module comment for
 * the binomial identity and the error analysis).
 * @param a first shape parameter, an integer >= 1
 * @param b second shape parameter, an integer >= 1
 * @param x threshold in [0, 1]
 * @throws {ArgumentError} a or b not an integer >= 1 (or above 1e7), x outside [0, 1].
 * @example
 * ```ts
 * betaTailInt(5, 1, 0.5).above; // 1 − 2^−5 = 0.96875 (five agreeing votes, none against)
 * ```
 */
export function betaTailInt(a: number, b: number, x: number): TailPair {
  integerInRange('a', a, 1, 1e7);
  integerInRange('b', b, 1, 1e7);
  finiteNumber('x', x);
  if (!(x >= 0 && x <= 1)) throw new ArgumentError('x', x, 'must lie in [0, 1]');
  return betaTailIntUnchecked(a, b, x);
}

/** {@link betaTailInt} without validation. */
export function betaTailIntUnchecked(a: number, b: number, x: number): TailPair {
  if (x === 0) return { above: 1, below: 0 };
  if (x === 1) return { above: 0, below: 1 };
  const n = a + b - 1;
  const logRatio = Math.log(x) - Math.log1p(-x);
  const lower: number[] = []; // j = 0 .. a − 1  → Beta above x
  const upper: number[] = []; // j = a .. n      → Beta at or below x
  let logT = n * Math.log1p(-x);
  for (let j = 0; j <= n; j++) {
    (j <= a - 1 ? lower : upper).push(logT);
    if (j < n) logT += Math.log((n - j) / (j + 1)) + logRatio;
  }
  const lo = logSumExp(lower);
  const up = logSumExp(upper);
  const total = logSumExp([lo, up]);
  return { above: Math.exp(lo - total), below: Math.exp(up - total) };
}

/**
 * The Adaptive-Consistency stopping probability: with vote counts v1 >= v2 for the two leading
 * answers and a uniform prior on their shares, the leading share x = p1/(p1 + p2) has posterior
 * Beta(v1 + 1, v2 + 1), and P(p1 > p2 | v1, v2) = P(x > 1/2) = P(Bin(v1 + v2 + 1, 1/2) <= v1).
 * @param v1 count of the leading answer (integer >= 0)
 * @param v2 count of the runner-up (integer >= 0; 0 when only one answer has been seen)
 * @throws {ArgumentError} counts not integers >= 0.
 * @example
 * ```ts
 * leaderProbability(4, 0).above; // 1 − 2^−5 = 0.96875
 * leaderProbability(2, 1).above; // P(Bin(4, 1/2) <= 2) = 11/16 = 0.6875
 * ```
 */
export function leaderProbability(v1: number, v2: number): TailPair {
  integerInRange('v1', v1, 0, 1e7);
  integerInRange('v2', v2, 0, 1e7);
  return betaTailIntUnchecked(v1 + 1, v2 + 1, 0.5);
}
