/**
 * Node capacity that grows with a run: when the claims, answers or questions a state must hold
 * exceed its layout's capacities, a larger layout is built (each type's capacity at least
 * doubled, and at least what is needed) and θ is carried over by coordinate name — every node
 * keeps its id, attributes and confidence, every edge its (type, source id, target id) and
 * weight, so `describeCoordinate` names the same quantity before and after. Empty slots and
 * absent edges stay exactly 0 (Def. 2.2), so the re-laid-out θ decodes to the same graph.
 */
import { ArgumentError } from '../../util/errors.js';
import { createLayout, edgeIndex, nodeOffset, type Layout, type ReservedNode } from './layout.js';
import { EDGE_TYPES, type Capacities, type EpistemicGraph } from './model.js';

/** The capacities that hold the graph's nodes plus `reserved`: each type doubled until it fits. */
export function grownCapacities(graph: EpistemicGraph, reserved: readonly ReservedNode[]): Capacities {
  const need = { claims: 0, answers: 0, questions: 0 };
  const key = { claim: 'claims', answer: 'answers', question: 'questions' } as const;
  for (const n of [...graph.nodes, ...reserved]) need[key[n.type]]++;
  const out = { ...graph.capacities };
  for (const t of ['claims', 'answers', 'questions'] as const) {
    let c = out[t];
    while (c < need[t]) c = Math.max(1, 2 * c);
    out[t] = c;
  }
  return out;
}

/**
 * The layout of `graph` plus `reserved`, growing the capacities when they do not fit (the graph
 * returned carries the capacities used). Slots keep their order within each type.
 * @throws {ArgumentError} as `createLayout` for anything but exceeded capacity (duplicate ids,
 *   an answer naming no question).
 */
export function layoutWithGrowth(
  graph: EpistemicGraph,
  reserved: readonly ReservedNode[],
): { graph: EpistemicGraph; layout: Layout; grew: boolean } {
  const capacities = grownCapacities(graph, reserved);
  const grew = (['claims', 'answers', 'questions'] as const).some((t) => capacities[t] !== graph.capacities[t]);
  const g = grew ? { ...graph, capacities } : graph;
  return { graph: g, layout: createLayout(g, reserved), grew };
}

/**
 * θ in layout `from` carried to layout `to` by coordinate name (module comment). Every named
 * slot of `from` must exist in `to` with the same type. Cost O(d_to + named slots² ).
 * @throws {ArgumentError} θ of the wrong length, k differs, or a node of `from` has no slot in `to`.
 */
export function relayout(theta: Float64Array, from: Layout, to: Layout): Float64Array {
  if (theta.length !== from.dim) throw new ArgumentError('theta', theta, `must have length d = ${from.dim}`);
  if (from.k !== to.k) throw new ArgumentError('to.k', to.k, `must equal k = ${from.k}`);
  if (from === to) return Float64Array.from(theta);
  const out = new Float64Array(to.dim);
  const map: Array<[number, number]> = [];
  from.slots.forEach((s, i) => {
    if (s.id === null) return;
    const j = to.slotOf.get(s.id);
    if (j === undefined || to.slots[j]!.type !== s.type)
      throw new ArgumentError('to', s.id, `has no ${s.type} slot for node ${s.id}`);
    map.push([i, j]);
  });
  const k1 = from.k + 1;
  for (const [i, j] of map) {
    const a = nodeOffset(from, i);
    const b = nodeOffset(to, j);
    for (let c = 0; c < k1; c++) out[b + c] = theta[a + c]!;
  }
  for (let t = 0; t < EDGE_TYPES.length; t++)
    for (const [si, sj] of map)
      for (const [ti, tj] of map) out[edgeIndex(to, t, sj, tj)] = theta[edgeIndex(from, t, si, ti)]!;
  return out;
}
