/**
 * Naming directions in coordinates people can read: the largest entries of a vector, each with
 * the system's coordinate decoder (`describeCoordinate`, e.g. `c[q:birthplace]`).
 */
import type { OperatorSystem } from '../system/types.js';

/** One named coordinate of a direction. */
export interface NamedComponent {
  index: number;
  name: string;
  value: number;
}

/**
 * The `top` largest-magnitude entries of v (dense over `coords`, or over all coordinates when
 * `coords` is omitted), named; entries below 1e-3·max|v| are left out.
 */
export function namedComponents(
  system: OperatorSystem,
  v: ArrayLike<number>,
  coords?: ArrayLike<number>,
  top = 5,
): NamedComponent[] {
  let vmax = 0;
  for (let i = 0; i < v.length; i++) vmax = Math.max(vmax, Math.abs(v[i]!));
  if (vmax === 0) return [];
  const large: number[] = []; // a plain loop: an index array of v's length costs ~1 s at d = 3·10⁶
  for (let i = 0; i < v.length; i++) if (Math.abs(v[i]!) >= 1e-3 * vmax) large.push(i);
  const order = large.sort((a, b) => Math.abs(v[b]!) - Math.abs(v[a]!)).slice(0, top);
  return order.map((i) => {
    const index = coords ? coords[i]! : i;
    return { index, name: system.describeCoordinate(index), value: v[i]! };
  });
}

/** "c (0.98), u (-0.2)" */
export function formatComponents(parts: readonly NamedComponent[]): string {
  return parts.map((p) => `${p.name} (${p.value.toPrecision(3)})`).join(', ');
}
