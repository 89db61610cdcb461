/**
 * Comparison helpers that never hide failure: NaN equals only NaN, infinities compare exactly,
 * tolerances scale with magnitude and are given in units of eps.
 */
import { expect } from 'vitest';

/** Machine epsilon of f64. */
export const EPS = Number.EPSILON;

/**
 * |actual − expected| <= tol·eps·scale, with scale = max(|expected|, scaleFloor).
 * NaN matches only NaN; ±Infinity match only themselves.
 */
export function closeInEps(actual: number, expected: number, tol: number, scaleFloor = 0): boolean {
  if (Number.isNaN(expected) || Number.isNaN(actual)) return Number.isNaN(expected) && Number.isNaN(actual);
  if (!Number.isFinite(expected) || !Number.isFinite(actual)) return actual === expected;
  return Math.abs(actual - expected) <= tol * EPS * Math.max(Math.abs(expected), scaleFloor);
}

/** Asserts {@link closeInEps} with a message showing the error in units of eps·scale. */
export function expectCloseInEps(actual: number, expected: number, tol: number, scaleFloor = 0): void {
  const scale = Math.max(Math.abs(expected), scaleFloor);
  const err = Math.abs(actual - expected) / (EPS * (scale || 1));
  expect(
    closeInEps(actual, expected, tol, scaleFloor),
    `actual ${actual} vs expected ${expected}: error ${err.toFixed(1)} eps·scale > ${tol}`,
  ).toBe(true);
}
