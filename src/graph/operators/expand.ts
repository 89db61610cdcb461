/**
 * The reference expansion operator P_e (docs/graph.md, "Reference operators"; Sec. 3.1): an affine blend on e's footprint F_e,
 *   P_e(θ)_F = θ_F + A_e (t_e − θ_F),   P_e(θ)_i = θ_i for i ∉ F_e,
 * with A_e = diag of per-coordinate rates: the strength a_e ∈ (0, 1] on structure weights and
 * the pool's attribute strength (default 1: a claim's text embedding is copied, not graded, so
 * half-written attribute vectors never sit within the merge radius of an unrelated claim), and
 * target t_e (attributes and direct support of the claims e
 * adds, the edges it writes — a Requires edge it resolves has target 0). P_e writes structure
 * only, never a confidence. It is C^∞, non-expansive (‖DP_e‖ = 1; 1 − a_e on F_e), and
 * idempotent once incorporated: θ_F = t_e gives P_e(θ) = θ exactly.
 */

/** A compiled evidence item: footprint indices (ascending, distinct), targets, strength. */
export interface CompiledItem {
  readonly id: string;
  /** a_e ∈ (0, 1] (the rate on structure weights). */
  readonly strength: number;
  /** The blend rate of each footprint coordinate (a_e, or the attribute strength). */
  readonly rates: Float64Array;
  /** F_e: coordinates e writes, ascending (Float64Array when d >= 2^31, beyond int32). */
  readonly footprint: Int32Array | Float64Array;
  /** t_e on F_e (same order). */
  readonly target: Float64Array;
  /**
   * The confidence coordinates of the nodes e adds (ascending, distinct, disjoint from F_e):
   * where P_e writes the entry confidence, so that a node it adds is a node of the graph
   * (c ∈ (0, 1], Def. 2.1) before Q has run.
   */
  readonly entry: Int32Array;
}

/** Applies the blend on F_e in place: x_F ← x_F + A_e (t − x_F). O(|F_e|). */
export function blendFootprintInPlace(item: CompiledItem, x: Float64Array): void {
  const a = item.rates;
  const f = item.footprint;
  const t = item.target;
  for (let i = 0; i < f.length; i++) {
    const idx = f[i]!;
    const v = x[idx]!;
    x[idx] = v + a[i]! * (t[i]! - v);
  }
}

/**
 * P_e(θ) (reference form) into `out` (may alias θ: then it is updated in place).
 * Cost O(d) for the copy + O(|F_e|).
 */
export function referenceExpand(
  item: CompiledItem,
  theta: Float64Array,
  out: Float64Array = new Float64Array(theta.length),
): Float64Array {
  if (out !== theta) out.set(theta);
  blendFootprintInPlace(item, out);
  return out;
}

/** ‖P_e(θ) − θ‖₂ = ‖A_e (t_e − θ_F)‖₂: how far e is from incorporated (the redundancy residual). */
export function expansionResidual(item: CompiledItem, theta: Float64Array): number {
  let s = 0;
  for (let i = 0; i < item.footprint.length; i++) {
    const d = item.rates[i]! * (item.target[i]! - theta[item.footprint[i]!]!);
    s += d * d;
  }
  return Math.sqrt(s);
}
