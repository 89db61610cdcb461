/**
 * The one place certification reads a system's declared index sets (`subspaces`, `questions`):
 * their names, and a set's coordinates as an array-like of indices. Everything else in
 * src/certify goes through these functions, so a change of representation (ranges, typed index
 * arrays) is an edit here only.
 */
import type { OperatorSystem } from '../system/types.js';

/** Which declared family: named subspaces W or question coordinate sets. */
export type IndexSetKind = 'subspaces' | 'questions';

/** The names declared in `kind`, in declaration order. */
export function declaredNames(system: OperatorSystem, kind: IndexSetKind): string[] {
  return Object.keys(system[kind]);
}

/** The coordinates of the set `name` declared in `kind`, or undefined when not declared. */
export function declaredIndexSet(
  system: OperatorSystem,
  kind: IndexSetKind,
  name: string,
): ArrayLike<number> | undefined {
  return (system[kind] as Readonly<Record<string, ArrayLike<number>>>)[name];
}

/** The coordinates as a plain index list (what a SubspaceSpec carries). */
export function indexList(set: ArrayLike<number>): readonly number[] {
  return Array.isArray(set) ? (set as readonly number[]) : Array.from(set);
}
