/**
 * Streaming QR update (LAPACK dtpqrt's triangular-pentagonal step, unblocked): the reference
 * backend's QR, by the method of assembly/linalg/dtpqrt.ts with sums in another order (the two
 * agree to the backward error, not bit for bit: docs/linalg.md, "Twin policy"). Used by
 * {@link StreamingQR}.
 *
 * Given the m×m upper-triangular R of the rows seen so far and a new b×m block B, computes the R
 * of [R; B] with m Householder reflectors: reflector j acts on row j of R and all rows of B
 * (R's column j is zero below the diagonal), so the stack never needs to be held. In row-major
 * storage each reflector is two passes along rows: w = R[j, j+1:] + Σ_r v_r B[r, j+1:], then
 * R[j, j+1:] −= τw and B[r, j+1:] −= τ v_r w.
 *
 * Each reflector is formed on its column scaled by an exact power of two s (max|x·s| in [1, 2),
 * as LAPACK dlarfg rescales before it divides): the norm, alpha − beta and its reciprocal are all
 * taken in scaled units and only beta is unscaled, so columns from subnormal to ~1e300 neither
 * overflow nor underflow, and |v_r| <= 1. Householder QR is backward stable (column-
 * wise): the R returned is the exact R of [R; B] + E with ||E_:,j|| <= O(b·m·eps)·||[R; B]_:,j||.
 * Cost 2·b·m² flops per block (4·b·(m−j) for column j).
 */
import { safeScale } from './shape.js';

/**
 * R (m×m upper triangular, row-major) ← R of [R; B]; B (b×m, row-major) is DESTROYED. Unchecked.
 */
export function referenceTpqrt(R: Float64Array, m: number, B: Float64Array, b: number): void {
  const w = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const alpha = R[j * m + j]!;
    let amax = Math.abs(alpha);
    for (let r = 0; r < b; r++) amax = Math.max(amax, Math.abs(B[r * m + j]!));
    if (amax === 0) continue;
    const s = safeScale(amax);
    let sigma2 = 0;
    for (let r = 0; r < b; r++) {
      const x = B[r * m + j]! * s;
      sigma2 += x * x;
    }
    if (sigma2 === 0) continue; // B's column is already zero: nothing to annihilate
    // Everything on the scaled column (x·s, |x·s| <= 2): alpha − beta is taken in scaled units, so
    // its reciprocal neither overflows (a subnormal column: 1/(alpha − beta) would be +Infinity)
    // nor underflows; only beta itself is unscaled (exactly, unless it is subnormal).
    const as = alpha * s;
    const betaS = -(alpha >= 0 ? 1 : -1) * Math.sqrt(as * as + sigma2);
    const tau = (betaS - as) / betaS;
    const invS = 1 / (as - betaS); // |as − betaS| >= sqrt(sigma2) > 0 and <= 2·(2 + 2√b)
    for (let r = 0; r < b; r++) B[r * m + j] = B[r * m + j]! * s * invS; // v_r, |v_r| <= 1
    R[j * m + j] = betaS / s;
    // w = R[j, j+1:] + Σ_r v_r B[r, j+1:]
    for (let c = j + 1; c < m; c++) w[c] = R[j * m + c]!;
    for (let r = 0; r < b; r++) {
      const v = B[r * m + j]!;
      if (v === 0) continue;
      const o = r * m;
      for (let c = j + 1; c < m; c++) w[c]! += v * B[o + c]!;
    }
    for (let c = j + 1; c < m; c++) {
      w[c]! *= tau;
      R[j * m + c]! -= w[c]!;
    }
    for (let r = 0; r < b; r++) {
      const v = B[r * m + j]!;
      if (v === 0) continue;
      const o = r * m;
      for (let c = j + 1; c < m; c++) B[o + c]! -= v * w[c]!;
    }
  }
}
