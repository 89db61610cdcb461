/**
 * The public `linearize` namespace: a system's Jacobians DQ and DP_e (Sec. 5.3) by central
 * differences in f64 or tfjs autodiff in float32 (or the system's own engines), their stated
 * accuracy, and the cross-check of the two. Re-exports only.
 */
export { AUTODIFF_F32_RELATIVE_ACCURACY, FD_RELATIVE_ACCURACY } from './operator.js';
export { type CrossCheck, crossCheckJacobians } from './crossCheck.js';
export { consolidateJacobian, expandJacobian, type EngineChoice } from './systemJacobians.js';
