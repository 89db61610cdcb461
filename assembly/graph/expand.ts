// The expansion operator P_e of the reference graph (Sec. 3.1: P_e adds e's claims, links them by
// typed edges and resolves the questions e answers; the blend and the entry confidence are this
// toolkit's design, docs/graph.md "P_e"), on the embedded state θ = φ(S) of Def. 2.2: on e's
// footprint F_e
//
//   x_F ← x_F + r (t − x_F),
//
// with per-coordinate rates r and targets t, and on the confidence coordinates of the nodes e adds
//
//   c ← c + (c₀/3) (1 − c/c₀)³₊,   c₀ = 2⁻¹⁰        (identity for c >= c₀; identity elsewhere).
//
// `graphBlendFootprintInPlace` ↔ the TypeScript `blendFootprintInPlace` and
// `graphEntryConfidenceInPlace` ↔ `entryConfidenceInPlace` (src/graph/operators/expand.ts): the
// same expressions per coordinate, so the results are bit for bit those functions'. Tested against
// the reference in test/graph/operators/forms.test.ts and, through the DP_e engine, in
// test/graph/linearisation/expandJacobian.test.ts. O(|F_e|) and O(|entry|), no allocation.
import { ld, ldi, st } from './memory';

/** c₀ = 2⁻¹⁰, `ENTRY_CONFIDENCE` of src/graph/operators/expand.ts. */
const ENTRY_CONFIDENCE: f64 = 0.0009765625;

/** In place on x: the m footprint coordinates (i32 indices at `footprint`), targets and rates (f64). */
export function graphBlendFootprintInPlace(x: usize, footprint: usize, target: usize, rates: usize, m: i32): void {
  for (let i = 0; i < m; i++) {
    const j = ldi(footprint, i);
    const v = ld(x, j);
    st(x, j, v + ld(rates, i) * (ld(target, i) - v));
  }
}

/** In place on x: the entry confidence c + (c₀/3) (1 − c/c₀)³₊ at the m coordinates (i32 indices at `entry`). */
export function graphEntryConfidenceInPlace(x: usize, entry: usize, m: i32): void {
  for (let i = 0; i < m; i++) {
    const j = ldi(entry, i);
    const c = ld(x, j);
    const u = 1.0 - c / ENTRY_CONFIDENCE;
    st(x, j, c + (u > 0 ? (ENTRY_CONFIDENCE / 3.0) * (u * u * u) : 0.0));
  }
}
