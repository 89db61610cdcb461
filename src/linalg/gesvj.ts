/**
 * One-sided Jacobi SVD on rows (Hestenes; LAPACK dgesvj's method, row variant): the pure-TypeScript
 * reference of assembly/linalg/dgesvj.ts. Used for singular values, rank and null space.
 *
 * Input Y (m×m, row-major). Pairs of rows (i, j) are rotated until every pair is orthogonal to
 * |y_iᵀy_j| <= tol·||y_i||·||y_j|| with tol = JACOBI_TOL_FACTOR·sqrt(m)·eps; the same rotations are
 * applied to V (initialised to I). Then J·Y = W with orthogonal rows, so Y = Jᵀ·W: the row norms of
 * W are the singular values of Y and — applied to Y = Rᵀ — the rows of J are right singular
 * vectors of R (and of A = QR): R = (W's normalised rows)ᵀ·Σ·J.
 *
 * Why Jacobi on Rᵀ: one-sided Jacobi is invariant under row scaling, so each singular value is
 * computed with a relative error ~ m·eps·κ(D⁻¹Y) where D holds the row norms (Demmel–Veselić);
 * with Y = Rᵀ those are the column norms of A. Small singular values of a matrix with badly scaled
 * columns come out accurate, not just accurate relative to σ_max as with an eigensolver on AᵀA
 * (which squares the condition number).
 *
 * Row norms are re-accumulated in every rotation (no drift from updating formulas). The caller
 * scales Y so that max|y| ~ 1; a row whose squared norm underflows (norm < ~1e-154 relative) is
 * treated as zero during the sweeps (far below any rank tolerance), its final norm is still
 * computed safely by the caller.
 */

/** Sweep cap; convergence is quadratic and typically takes 5–10 sweeps. */
export const JACOBI_MAX_SWEEPS = 60;
/** Orthogonality threshold factor: pairs with |cos| <= sqrt(m)·eps are left alone. */
export const JACOBI_TOL_FACTOR = 1;

/**
 * Rotates rows of Y (m×m, overwritten) to mutual orthogonality, accumulating the rotations into
 * V (m×m, overwritten, starts from I). `norms2` (m) receives the squared row norms.
 * Returns the number of sweeps, or −1 if {@link JACOBI_MAX_SWEEPS} were not enough. Unchecked.
 */
export function referenceGesvj(Y: Float64Array, m: number, V: Float64Array, norms2: Float64Array): number {
  V.fill(0);
  for (let i = 0; i < m; i++) V[i * m + i] = 1;
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let k = 0; k < m; k++) s += Y[i * m + k]! * Y[i * m + k]!;
    norms2[i] = s;
  }
  const tol = JACOBI_TOL_FACTOR * Math.sqrt(m) * 2 ** -52;
  for (let sweep = 1; sweep <= JACOBI_MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (let i = 0; i < m - 1; i++) {
      for (let j = i + 1; j < m; j++) {
        const a = norms2[i]!;
        const b = norms2[j]!;
        if (a === 0 || b === 0) continue;
        const oi = i * m;
        const oj = j * m;
        let c = 0;
        for (let k = 0; k < m; k++) c += Y[oi + k]! * Y[oj + k]!;
        if (Math.abs(c) <= tol * Math.sqrt(a) * Math.sqrt(b)) continue;
        rotated = true;
        const zeta = (b - a) / (2 * c);
        const t =
          Math.abs(zeta) > 1e150
            ? 1 / (2 * zeta)
            : (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const cs = 1 / Math.sqrt(1 + t * t);
        const sn = cs * t;
        let na = 0;
        let nb = 0;
        for (let k = 0; k < m; k++) {
          const x = Y[oi + k]!;
          const y = Y[oj + k]!;
          const x2 = cs * x - sn * y;
          const y2 = sn * x + cs * y;
          Y[oi + k] = x2;
          Y[oj + k] = y2;
          na += x2 * x2;
          nb += y2 * y2;
        }
        norms2[i] = na;
        norms2[j] = nb;
        for (let k = 0; k < m; k++) {
          const x = V[oi + k]!;
          const y = V[oj + k]!;
          V[oi + k] = cs * x - sn * y;
          V[oj + k] = sn * x + cs * y;
        }
      }
    }
    if (!rotated) return sweep;
  }
  return -1;
}
