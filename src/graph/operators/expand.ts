/**
 * The reference expansion operator P_e (docs/graph.md, "Reference operators"; Sec. 3.1): an affine blend on e's footprint F_e,
 *   P_e(θ)_F = θ_F + A_e (t_e − θ_F),
 * with A_e = diag of per-coordinate rates: the strength a_e ∈ (0, 1] on structure weights and
 * the pool's attribute strength (default 1: a claim's text embedding is copied, not graded, so
 * half-written attribute vectors never sit within the merge radius of an unrelated claim), and
 * target t_e (attributes and direct support of the claims e
 * adds, the edges it writes — a Requires edge it resolves has target 0); and on the confidence
 * coordinate c of each node e adds (`entry`, disjoint from F_e) the entry confidence
 *   c ← c + (c₀/3) (1 − c/c₀)³₊,   c₀ = {@link ENTRY_CONFIDENCE},
 * so that a node P_e adds is a node of the graph (c > 0) before Q derives its belief; identity
 * elsewhere. The entry confidence is the identity for c >= c₀, so wherever the nodes e adds hold a
 * belief of at least c₀ (once e is incorporated and Q has run: the fixed point of the recursion)
 * P_e writes structure only, and there it is C^∞, non-expansive (‖DP_e‖ = 1; 1 − a_e on F_e) and
 * idempotent once incorporated: θ_F = t_e gives P_e(θ) = θ exactly. Below c₀ the entry
 * confidence is a cubic, C² at c₀, increasing, with derivative 1 − (1 − c/c₀)² ∈ [0, 1]: P_e is
 * non-expansive everywhere on c >= 0, also where a node e adds is still absent.
 */

/**
 * c₀ = 2⁻¹⁰: the confidence a node has between P_e adding it and Q deriving its belief. P_e
 * raises the confidence c of each node it adds to c + (c₀/3)(1 − c/c₀)³₊ ({@link entryConfidence}):
 * c₀/3 for an empty slot (c = 0), so the node is present (Def. 2.1: c ∈ (0, 1]) and the state
 * decodes; and c itself for c >= c₀, so wherever the node already holds a belief of at least
 * c₀ — in particular at the fixed point of the recursion — P_e is unchanged and idempotence and
 * redundancy are unaffected. A power of two, so c/c₀ is exact.
 */
export const ENTRY_CONFIDENCE = 2 ** -10;

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

/**
 * (c₀/3) (1 − c/c₀)³₊ with c₀ = {@link ENTRY_CONFIDENCE}: what the entry confidence adds to c —
 * exactly 0 for c >= c₀. The one expression of it (the wasm kernel `graphEntryConfidenceInPlace`
 * has the same operations in the same order).
 */
export function entryDisplacement(c: number): number {
  const u = 1 - c / ENTRY_CONFIDENCE;
  return u > 0 ? (ENTRY_CONFIDENCE / 3) * (u * u * u) : 0;
}

/** P_e's value at an entry coordinate: c + (c₀/3) (1 − c/c₀)³₊ — c itself, exactly, for c >= c₀. */
export function entryConfidence(c: number): number {
  return c + entryDisplacement(c);
}

/**
 * W_e = F_e ∪ entry_e, ascending: every coordinate P_e writes, and all its values there read
 * (the two sets are disjoint). O(|W_e| log |W_e|).
 */
export function expandWriteSet(item: CompiledItem): number[] {
  return [...Array.from(item.footprint), ...Array.from(item.entry)].sort((a, b) => a - b);
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

/** Applies the entry confidence on e's entry coordinates in place: c ← {@link entryConfidence}(c). O(|entry|). */
export function entryConfidenceInPlace(item: CompiledItem, x: Float64Array): void {
  const e = item.entry;
  for (let i = 0; i < e.length; i++) x[e[i]!] = entryConfidence(x[e[i]!]!);
}

/**
 * P_e(θ) (reference form) into `out` (may alias θ: then it is updated in place).
 * Cost O(d) for the copy + O(|F_e| + |entry|).
 */
export function referenceExpand(
  item: CompiledItem,
  theta: Float64Array,
  out: Float64Array = new Float64Array(theta.length),
): Float64Array {
  if (out !== theta) out.set(theta);
  blendFootprintInPlace(item, out);
  entryConfidenceInPlace(item, out);
  return out;
}

/**
 * ‖P_e(θ) − θ‖₂ = ‖(A_e (t_e − θ_F), c₀ (1 − θ_entry/c₀)³₊)‖₂ with θ read through `value`:
 * how far e is from incorporated (the redundancy residual). The one implementation behind
 * {@link expansionResidual} and the structured state's. O(|F_e| + |entry|) reads.
 */
export function expansionResidualOf(item: CompiledItem, value: (index: number) => number): number {
  let s = 0;
  for (let i = 0; i < item.footprint.length; i++) {
    const d = item.rates[i]! * (item.target[i]! - value(item.footprint[i]!));
    s += d * d;
  }
  for (let i = 0; i < item.entry.length; i++) {
    const d = entryDisplacement(value(item.entry[i]!));
    s += d * d;
  }
  return Math.sqrt(s);
}

/** ‖P_e(θ) − θ‖₂ of a dense θ: {@link expansionResidualOf}. */
export function expansionResidual(item: CompiledItem, theta: Float64Array): number {
  return expansionResidualOf(item, (i) => theta[i]!);
}
