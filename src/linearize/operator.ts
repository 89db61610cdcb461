/**
 * The matrix-free view of a Jacobian the certification works with: J = Df(x) at a fixed base
 * point x, applied to sparse vectors, with its columns J e_j cached (the certification shares
 * DQ's columns across all evidence items). Two engines implement it: central differences in f64
 * ({@link FdJacobian}) and tfjs reverse-mode autodiff in float32 (`TfJacobian`). The interface
 * itself is part of the operator contract (src/system/types.ts), since a system may supply its own engine.
 */

export type { JacobianMethod, JacobianOperator, JacobianStats } from '../system/types.js';

/** Relative step of 3-point central differences: eps^(1/3) (scipy's approx_derivative '3-point'). */
export const FD_RELATIVE_STEP = Math.cbrt(Number.EPSILON);

/** Relative accuracy of a central-difference Jacobian: eps^(2/3) (see {@link JacobianOperator}). */
export const FD_RELATIVE_ACCURACY = Math.pow(Number.EPSILON, 2 / 3);

/**
 * Relative accuracy of a float32 autodiff Jacobian: 1e-6 — float32 unit roundoff 2^-24 ≈ 6e-8
 * times a growth factor of ~16 for the few dozen operations between θ and the output.
 */
export const AUTODIFF_F32_RELATIVE_ACCURACY = 1e-6;
