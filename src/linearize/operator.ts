/**
 * The matrix-free view of a Jacobian the certification works with: J = Df(x) at a fixed base
 * point x, applied to sparse vectors, with its columns J e_j cached (the certification shares
 * DQ's columns across all evidence items). Two engines implement it: central differences in f64
 * ({@link FdJacobian}) and tfjs reverse-mode autodiff in float32 (`TfJacobian`).
 */
import type { SparseVector } from './sparse.js';

/** How a Jacobian was obtained. */
export type JacobianMethod = 'fd' | 'autodiff';

/** Counters for reports and benchmarks. */
export interface JacobianStats {
  /** Evaluations of the underlying map (FD) or forward/backward passes (autodiff). */
  evaluations: number;
  /** Columns J e_j computed (cache misses). */
  columns: number;
  /** Directional derivatives J v along non-unit directions. */
  directional: number;
}

/** J = Df(x) at a fixed base point, matrix-free. */
export interface JacobianOperator {
  /** Input dimension (columns of J). */
  readonly dim: number;
  /** Output dimension (rows of J). */
  readonly outDim: number;
  readonly method: JacobianMethod;
  /**
   * Relative accuracy r of J's entries: |computed − exact| ≲ r · (scale of J). Central
   * differences with h = eps^(1/3)·max(1, |x_j|): r = eps^(2/3) ≈ 3.7e-11 (truncation h²/6·f'''
   * and rounding eps·|f|/h balance there); float32 autodiff: r = 1e-6 (unit roundoff 6e-8 times
   * a growth of ~16 over a few dozen operations).
   */
  readonly relativeAccuracy: number;
  /** J e_j (cached). */
  column(j: number): SparseVector;
  /** Computes and caches the columns in `cols` (batched where the engine can). */
  prefetch(cols: readonly number[]): void;
  /** J v. */
  apply(v: SparseVector): SparseVector;
  readonly stats: JacobianStats;
  /** Frees resources held outside the JS heap (wasm blocks), if any. */
  release?(): void;
}

/** Relative step of 3-point central differences: eps^(1/3) (scipy's approx_derivative '3-point'). */
export const FD_RELATIVE_STEP = Math.cbrt(Number.EPSILON);

/** Relative accuracy of a central-difference Jacobian: eps^(2/3) (see {@link JacobianOperator}). */
export const FD_RELATIVE_ACCURACY = Math.pow(Number.EPSILON, 2 / 3);

/**
 * Relative accuracy of a float32 autodiff Jacobian: 1e-6 — float32 unit roundoff 2^-24 ≈ 6e-8
 * times a growth factor of ~16 for the few dozen operations between θ and the output.
 */
export const AUTODIFF_F32_RELATIVE_ACCURACY = 1e-6;
