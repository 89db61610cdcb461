// The expansion operator P_e of the reference graph (Sec. 3.1: P_e adds e's claims, links them by
// typed edges and resolves the questions e answers; the blend is this toolkit's design,
// docs/graph.md "P_e"), on the embedded state θ = φ(S) of Def. 2.2: on e's footprint F_e
//
//   x_F ← x_F + r (t − x_F)        (identity off F_e),
//
// with per-coordinate rates r and targets t. `graphBlendFootprintInPlace` ↔ the TypeScript
// `blendFootprintInPlace` (src/graph/operators/expand.ts): the same expression per coordinate,
// so the result is bit for bit that function's. Tested against the reference in
// test/graph/operators/forms.test.ts and, through the DP_e engine, in
// test/graph/linearisation/expandJacobian.test.ts. O(|F_e|), no allocation.
import { ld, ldi, st } from './memory';

/** In place on x: the m footprint coordinates (i32 indices at `footprint`), targets and rates (f64). */
export function graphBlendFootprintInPlace(x: usize, footprint: usize, target: usize, rates: usize, m: i32): void {
  for (let i = 0; i < m; i++) {
    const j = ldi(footprint, i);
    const v = ld(x, j);
    st(x, j, v + ld(rates, i) * (ld(target, i) - v));
  }
}
