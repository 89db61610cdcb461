/**
 * Certification of an operator system: fixed point, contractivity, redundancy, the linearised
 * commutator Σ_e (Eq. 4) and non-degeneracy of its Gramian (Eq. 5, Prop. 5.2) on subspaces,
 * per-question coverage (Remark 5.4). Re-exports only.
 */
export * from './fixedPoint.js';
export * from './contraction.js';
export * from './describe.js';
export * from './basis.js';
export * from './commutator.js';
export * from './nondegeneracy.js';
export * from './coverage.js';
export * from './certify.js';
