/**
 * Linearisation: Jacobians of the operators by central differences (f64) or tfjs autodiff
 * (float32), matrix-free, and their cross-check. Re-exports only.
 */
export * from './sparse.js';
export * from './operator.js';
export * from './finiteDifference.js';
export * from './autodiff.js';
export * from './crossCheck.js';
export * from './systemJacobians.js';
