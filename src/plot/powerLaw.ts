/**
 * Power-law fit y ≈ C·x^k by least squares on (ln x, ln y): the exponent k is the slope of the
 * log-log line, used to report how a cost scales with the problem size (bench JSON → scaling plot).
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';

/** Result of {@link fitPowerLaw}. */
export interface PowerLawFit {
  /** Fitted exponent k (slope in log-log). */
  exponent: number;
  /** Fitted coefficient C (y at x = 1). */
  coefficient: number;
  /**
   * Coefficient of determination of the log-log fit (1 = exact power law; also 1 when all y are
   * equal up to rounding, where the fit k = 0 is exact).
   */
  r2: number;
  /** Number of points used. */
  n: number;
}

/**
 * Fits y = C·x^k to points with x > 0 and y > 0: ordinary least squares of ln y on ln x, with the
 * logs centred before the sums (so a large common offset does not cancel digits).
 * @throws {ArgumentError} fewer than 2 points, a non-finite or non-positive coordinate (named by
 *   index), or all x equal (the slope is undefined).
 * Cost: O(n).
 * @example
 * ```ts
 * fitPowerLaw([{ x: 1, y: 3 }, { x: 2, y: 12 }, { x: 4, y: 48 }]).exponent; // 2 (up to rounding)
 * ```
 */
export function fitPowerLaw(points: readonly { x: number; y: number }[]): PowerLawFit {
  if (!Array.isArray(points) || points.length < 2)
    throw new ArgumentError('points', points, 'needs at least 2 points to fit a power law');
  const n = points.length;
  const lx = new Float64Array(n);
  const ly = new Float64Array(n);
  points.forEach((p, i) => {
    const x = finiteNumber(`points[${i}].x`, p?.x);
    const y = finiteNumber(`points[${i}].y`, p?.y);
    if (!(x > 0)) throw new ArgumentError(`points[${i}].x`, x, 'must be > 0 for a log-log fit');
    if (!(y > 0)) throw new ArgumentError(`points[${i}].y`, y, 'must be > 0 for a log-log fit');
    lx[i] = Math.log(x);
    ly[i] = Math.log(y);
  });
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += lx[i]!;
    my += ly[i]!;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = lx[i]! - mx;
    const dy = ly[i]! - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx === 0) throw new ArgumentError('points', points, 'all x are equal: the exponent is undefined');
  const exponent = sxy / sxx;
  const intercept = my - exponent * mx;
  let ssRes = 0;
  for (let i = 0; i < n; i++) {
    const r = ly[i]! - (intercept + exponent * lx[i]!);
    ssRes += r * r;
  }
  // r² compares the residuals with the spread of ln y. When every ln y is the same up to
  // rounding (spread below n·(4·eps·(1 + max|ln y|))², the size of the rounding in the logs and
  // their mean), r² is 0/0 noise: such data are fitted exactly by k = 0, so report 1.
  let maxLy = 0;
  for (let i = 0; i < n; i++) maxLy = Math.max(maxLy, Math.abs(ly[i]!));
  const roundingFloor = n * (4 * Number.EPSILON * (1 + maxLy)) ** 2;
  const r2 = syy <= roundingFloor ? 1 : Math.max(0, 1 - ssRes / syy);
  return { exponent, coefficient: Math.exp(intercept), r2, n };
}
