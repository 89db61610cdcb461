/**
 * Validation of a finite evidence distribution P(·|θ).
 *
 * Tolerance on the total: |Σ p_e − 1| <= sqrt(eps) ≈ 1.49e-8. Rounding in a correctly
 * normalised list of n probabilities (for example a softmax) accumulates at most about n·eps,
 * which is below sqrt(eps) for any pool smaller than ~6.7e7 items; a list that was never
 * normalised, or that dropped an item, misses by far more. Rounding far below this tolerance is
 * therefore accepted and real mistakes are not.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import type { EvidenceWeight } from './types.js';

/** Tolerance on |Σ p − 1|: sqrt(eps) (see the module comment for why). */
export const PROBABILITY_SUM_TOLERANCE = Math.sqrt(Number.EPSILON);

/**
 * Checks a finite evidence distribution and returns it as a frozen array of {id, p}.
 * @param name how to name the argument in errors (e.g. `evidence`, `P(.|theta)`)
 * @throws {ArgumentError} empty list, duplicate or empty id, p not finite or < 0, zero total
 *   support, or a total farther than sqrt(eps) from 1 — each naming the offending entry.
 */
export function validateDistribution(name: string, items: unknown): readonly EvidenceWeight[] {
  if (!Array.isArray(items)) throw new ArgumentTypeError(name, items, 'must be an array of {id, p}');
  if (items.length === 0) throw new ArgumentError(name, items, 'must list at least one evidence item');
  const seen = new Set<string>();
  const out: EvidenceWeight[] = [];
  let total = 0;
  let support = 0;
  for (let i = 0; i < items.length; i++) {
    const it = items[i] as { id?: unknown; p?: unknown } | null;
    if (typeof it !== 'object' || it === null)
      throw new ArgumentTypeError(`${name}[${i}]`, it, 'must be an object {id, p}');
    if (typeof it.id !== 'string' || it.id.length === 0) {
      throw new ArgumentTypeError(`${name}[${i}].id`, it.id, 'must be a non-empty string');
    }
    if (seen.has(it.id)) throw new ArgumentError(`${name}[${i}].id`, it.id, 'is a duplicate evidence id');
    seen.add(it.id);
    if (typeof it.p !== 'number') throw new ArgumentTypeError(`${name}[${i}].p`, it.p, 'must be a number');
    if (!Number.isFinite(it.p))
      throw new ArgumentError(`${name}[${i}].p`, it.p, `(evidence "${it.id}") must be finite`);
    if (it.p < 0) throw new ArgumentError(`${name}[${i}].p`, it.p, `(evidence "${it.id}") must be >= 0`);
    if (it.p > 0) support++;
    total += it.p;
    out.push(Object.freeze({ id: it.id, p: it.p }));
  }
  if (support === 0) throw new ArgumentError(name, items, 'has empty support: every probability is 0');
  if (Math.abs(total - 1) > PROBABILITY_SUM_TOLERANCE) {
    throw new ArgumentError(
      `${name} (sum of p)`,
      total,
      `probabilities must sum to 1 within sqrt(eps) = ${PROBABILITY_SUM_TOLERANCE.toExponential(2)}`,
    );
  }
  return Object.freeze(out);
}

/**
 * A uniform distribution over `ids`, except items listed in `overrides`, whose probability is
 * set as given; the remaining mass is shared equally by the others.
 * @throws {ArgumentError} an override names an unknown id, or overrides exceed total mass 1.
 */
export function uniformExcept(
  ids: readonly string[],
  overrides: Readonly<Record<string, number>> = {},
): EvidenceWeight[] {
  let fixed = 0;
  for (const [id, p] of Object.entries(overrides)) {
    if (!ids.includes(id))
      throw new ArgumentError(`probabilities.${id}`, p, `names no evidence item (known: ${ids.join(', ')})`);
    if (!Number.isFinite(p) || p < 0) throw new ArgumentError(`probabilities.${id}`, p, 'must be a finite number >= 0');
    fixed += p;
  }
  const free = ids.filter((id) => !(id in overrides));
  const rest = 1 - fixed;
  if (rest < -PROBABILITY_SUM_TOLERANCE)
    throw new ArgumentError('probabilities', overrides, `overrides sum to ${fixed} > 1`);
  if (free.length === 0 && Math.abs(rest) > PROBABILITY_SUM_TOLERANCE) {
    throw new ArgumentError('probabilities', overrides, `must sum to 1 when every item is given, got ${fixed}`);
  }
  return ids.map((id) => ({ id, p: id in overrides ? overrides[id]! : Math.max(rest, 0) / free.length }));
}
