/**
 * Certification of an operator system: fixed point, contractivity, redundancy, the linearised
 * commutator Σ_e (Eq. 4) and non-degeneracy of its Gramian (Eq. 5, Prop. 5.2) on subspaces,
 * per-question coverage (Remark 5.4). Re-exports only.
 */
export { findFixedPoint, type FixedPointOptions, type FixedPointResult } from './fixedPoint.js';
export {
  type ContractionOptions,
  type ContractionResult,
  type ContractionVerdict,
  type CounterexamplePair,
  ratioSlack,
  verifyContraction,
} from './contraction.js';
export { spectralLowerBoundJvp, spectralNormDense } from './spectralNorm.js';
export { formatComponents, type NamedComponent, namedComponents } from './describe.js';
export { basisOf, coordinateBasis, type NamedBasis, orthonormalBasis } from './subspace.js';
export {
  commutatorColumns,
  commutatorGramian,
  type CommutatorGramian,
  consolidateImages,
  frobenius,
  type ItemColumns,
  Linearization,
  type LinearizationKind,
  type LinearizationMode,
  measureRedundancy,
  type RedundancyItem,
  redundancyTolerance,
  subspaceColumns,
} from './commutator.js';
export {
  type Contribution,
  decideNonDegeneracy,
  type NonDegeneracyDecision,
  nondegeneracyTolerance,
  type ToleranceDerivation,
  type WeightedColumns,
} from './nondegeneracy.js';
export { questionCoverage, type QuestionCoverage } from './coverage.js';
export { COORDINATES_SUFFIX, type ProgressFn, type QuestionBasisKind, type UniquenessStatement } from './certify.js';
export {
  type FixedPointError,
  type SensitivityItem,
  stackRateOfChange,
  type VerdictSensitivity,
  verdictSensitivity,
} from './sensitivity.js';
