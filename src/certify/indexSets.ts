/**
 * The one place certification reads a system's declared index sets (`subspaces`, `questions`):
 * their names, and a set's coordinates. Declared sets are {@link CoordinateSet}s (a list, a typed
 * index array or a range, src/system/coordinates.ts); everything else in src/certify goes through
 * these functions.
 */
import { coordinateArray, coordinateCount } from '../system/coordinates.js';
import type { CoordinateSet, OperatorSystem } from '../system/types.js';

/** Which declared family: named subspaces W or question coordinate sets. */
export type IndexSetKind = 'subspaces' | 'questions';

/** The names declared in `kind`, in declaration order. */
export function declaredNames(system: OperatorSystem, kind: IndexSetKind): string[] {
  return Object.keys(system[kind]);
}

/** The coordinates of the set `name` declared in `kind`, or undefined when not declared. */
export function declaredIndexSet(system: OperatorSystem, kind: IndexSetKind, name: string): CoordinateSet | undefined {
  return (system[kind] as Readonly<Record<string, CoordinateSet>>)[name];
}

/** Number of coordinates of a declared set, O(1) (ranges are never enumerated for it). */
export function indexCount(set: CoordinateSet): number {
  return coordinateCount(set);
}

/**
 * The coordinates as a plain index list (what a SubspaceSpec carries).
 * @throws {ArgumentError} a set too large to enumerate (see `coordinateArray`), naming it.
 */
export function indexList(set: CoordinateSet, name = 'subspace'): readonly number[] {
  return coordinateArray(set, name);
}
