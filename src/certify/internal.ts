/**
 * The certify names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export { type ContractionVerdict, type CounterexamplePair, ratioSlack } from './contraction.js';
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
export {
  type BoxEnclosure,
  type ContractionCertificate,
  type ContractionProof,
  type ContractionProofOptions,
  type Encloser,
  proveContraction,
} from './contractionProof.js';
export { consolidateEncloser, enclosureSource, expandEncloser } from './enclosure.js';
export { type NonDegeneracyProof, proveNonDegeneracy } from './nondegeneracyProof.js';
export { fixedPointBox } from './nondegeneracyPhase.js';
export type { CertificateBlock } from './certificate.js';
