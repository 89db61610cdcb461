/**
 * Gramian G += w·AᵀA (BLAS dsyrk, "transposed" form, row-major): the pure-TypeScript twin of
 * assembly/linalg/dsyrk.ts by contract (docs/linalg.md, "Twin policy"): each entry is a recursive
 * sum in row order from +0, as in the kernel, so for weight 1 and scale 1 the two give the same
 * bits. This is the kernel of Eq. (5), G = Σ_e p_e Σ_eᵀ Σ_e.
 *
 * `scale` is an exact power of two (see {@link safeScale}): the products are formed on s·A and the
 * sum is multiplied by w/s² once, so entries ~1e±200 neither overflow nor flush to zero inside the
 * sum. Accuracy: each entry is a sum of `rows` products, |error| <= rows · eps · Σ_r |a_ri||a_rj|
 * (recursive summation bound) plus one rounding for the final scaling.
 */

import type { SyrkCall } from './calls.js';
import { maxAbsOrNaN } from './shape.js';

/**
 * G (cols×cols, row-major, full) ← weight·AᵀA or G + weight·AᵀA for A rows×cols (row-major),
 * written only if `accept(max|a_ij|, non-finite entries of the result)` holds (the contract of
 * LinalgBackend.syrk). Cost 2·rows·cols² flops here (the wasm kernel does half by symmetry), less
 * the products of zero multipliers, which are skipped. It ignores `upperTriangular` and `pool`:
 * for an A with zero lower triangle the full product is the triangular one, and the skipped zero
 * multipliers already leave out most of the lower triangle's products.
 */
export function referenceSyrk(call: SyrkCall): boolean {
  const { A, rows, cols, G, overwrite, accept } = call;
  const T = overwrite ? new Float64Array(cols * cols) : Float64Array.from(G);
  syrkUnchecked(call, T);
  let nonFinite = 0;
  for (let k = 0; k < T.length; k++) if (!Number.isFinite(T[k]!)) nonFinite++;
  if (!accept(maxAbsOrNaN(A.subarray(0, rows * cols)), nonFinite)) return false;
  G.set(T);
  return true;
}

/** T += weight·AᵀA of the call, no checks (the arithmetic of {@link referenceSyrk}). */
function syrkUnchecked({ A, rows, cols, scale, weight }: SyrkCall, T: Float64Array): void {
  const acc = new Float64Array(cols * cols);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let i = 0; i < cols; i++) {
      const a = A[o + i]! * scale;
      if (a === 0) continue;
      const gi = i * cols;
      for (let j = i; j < cols; j++) acc[gi + j]! += a * (A[o + j]! * scale);
    }
  }
  const f = 1 / (scale * scale);
  for (let i = 0; i < cols; i++) {
    for (let j = i; j < cols; j++) {
      const v = acc[i * cols + j]! * weight * f;
      T[i * cols + j]! += v;
      if (j !== i) T[j * cols + i]! += v;
    }
  }
}
