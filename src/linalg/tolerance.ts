/**
 * The one place where rank tolerances are defined (Sec. 5.3–5.4; docs/linalg.md, "Tolerances").
 *
 * A singular value σ counts toward the rank iff σ > tol, where
 *
 *     tol = max(atol, rtol · σ_max)        default: rtol = max(rows, cols) · eps, atol = 0.
 *
 * The default is numpy's `matrix_rank` convention (`S.max() * max(M, N) * eps`): a backward-stable
 * SVD of A returns the exact singular values of A + E with ||E||_2 <= c · max(M, N) · eps · ||A||_2
 * for a modest constant c, so singular values below that level are indistinguishable from zero
 * *caused by the arithmetic alone*. It says nothing about errors already in A. Override it when
 * the data carry their own error:
 * - entries from central differences carry a relative error ~ eps^(2/3) ≈ 4e-11 → pass
 *   `rtol` of that order (times a safety factor);
 * - float32 sources (tfjs autodiff) → `rtol` ~ 1e-6;
 * - a decision that must be taken against a GLOBAL scale (Prop. 5.2 decided per subspace: a subspace whose own
 *   σ_max is tiny must not look full rank) → pass `atol` = rtol · (global scale), which a purely
 *   relative tolerance cannot express.
 * Relative (`rtol`) and absolute (`atol`) parts are kept separate and both are reported.
 *
 * Every decision returns the tolerance it used and the margin: the singular values on either side
 * of it. A decision whose margin ratio is near 1 is fragile and should be reported as such.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';

/** Machine epsilon of f64 (2^-52). */
export const EPS = Number.EPSILON;

/** Rank-tolerance options: see the module comment for the defaults and when to override them. */
export interface RankToleranceOptions {
  /** Relative tolerance, multiplied by σ_max. Default max(rows, cols) · eps. */
  rtol?: number;
  /** Absolute tolerance. Default 0. */
  atol?: number;
}

/** A rank decision with its tolerance and margin. */
export interface RankDecision {
  /** Number of singular values strictly greater than `tolerance`. */
  readonly rank: number;
  /** The threshold used: max(atol, rtol · σ_max). */
  readonly tolerance: number;
  /** The relative part used (default max(rows, cols) · eps). */
  readonly rtol: number;
  /** The absolute part used (default 0). */
  readonly atol: number;
  /** Which part set the threshold. */
  readonly toleranceFrom: 'rtol' | 'atol';
  /** Largest singular value (0 for an empty or zero matrix). */
  readonly sigmaMax: number;
  /** Smallest singular value kept (> tolerance), or null when the rank is 0. */
  readonly smallestKept: number | null;
  /** Largest singular value dropped (<= tolerance), or null when the rank is full. */
  readonly largestDropped: number | null;
  /**
   * min(smallestKept / tolerance, tolerance / largestDropped) over the sides that exist: how far
   * (as a factor) the decision is from flipping. Infinity when no singular value is near the
   * threshold in that sense (e.g. exact zeros against a zero tolerance).
   */
  readonly marginRatio: number;
  /** All singular values, descending. */
  readonly singularValues: Float64Array;
}

function nonNegative(name: string, v: unknown): number {
  if (typeof v !== 'number') throw new ArgumentTypeError(name, v, 'must be a number');
  if (!(v >= 0) || !Number.isFinite(v)) throw new ArgumentError(name, v, 'must be a finite number >= 0');
  return v;
}

/**
 * Default relative tolerance max(rows, cols) · eps (numpy matrix_rank).
 * @example
 * ```ts
 * defaultRtol(1000, 10); // 1000 · 2^-52 ≈ 2.22e-13
 * ```
 */
export function defaultRtol(rows: number, cols: number): number {
  return Math.max(rows, cols, 1) * EPS;
}

/**
 * Validates rank options and fills in the defaults (nothing else is read from `options`).
 * @throws {ArgumentError} rtol/atol negative, NaN or infinite (named `options.rtol`/`options.atol`).
 * @example
 * ```ts
 * resolveTolerance(4, 3, { atol: 1e-9 }); // { rtol: 4·eps, atol: 1e-9 }
 * ```
 */
export function resolveTolerance(
  rows: number,
  cols: number,
  options: RankToleranceOptions | undefined,
): { rtol: number; atol: number } {
  const rtol = options?.rtol === undefined ? defaultRtol(rows, cols) : nonNegative('options.rtol', options.rtol);
  const atol = options?.atol === undefined ? 0 : nonNegative('options.atol', options.atol);
  return { rtol, atol };
}

/**
 * Takes the rank decision on singular values sorted descending: rank = #{σ > max(atol, rtol·σ_max)},
 * with the margin (the singular values on either side of the threshold). Cost O(len).
 * @param sv singular values, descending, >= 0
 * @example
 * ```ts
 * const d = decideRank(Float64Array.of(2, 1e-3, 1e-20), 1e-6, 0);
 * d.rank;           // 2   (tolerance 2e-6)
 * d.smallestKept;   // 1e-3
 * d.largestDropped; // 1e-20
 * ```
 */
export function decideRank(sv: Float64Array, rtol: number, atol: number): RankDecision {
  const sigmaMax = sv.length > 0 ? sv[0]! : 0;
  const rel = rtol * sigmaMax;
  const tolerance = Math.max(atol, rel);
  let rank = 0;
  while (rank < sv.length && sv[rank]! > tolerance) rank++;
  const smallestKept = rank > 0 ? sv[rank - 1]! : null;
  const largestDropped = rank < sv.length ? sv[rank]! : null;
  let marginRatio = Infinity;
  if (smallestKept !== null && tolerance > 0) marginRatio = Math.min(marginRatio, smallestKept / tolerance);
  if (largestDropped !== null && largestDropped > 0) marginRatio = Math.min(marginRatio, tolerance / largestDropped);
  return {
    rank,
    tolerance,
    rtol,
    atol,
    toleranceFrom: atol > rel ? 'atol' : 'rtol',
    sigmaMax,
    smallestKept,
    largestDropped,
    marginRatio,
    singularValues: sv,
  };
}
