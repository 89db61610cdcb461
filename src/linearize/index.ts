/**
 * Linearisation: Jacobians of the operators by central differences (f64) or tfjs autodiff
 * (float32), matrix-free, and their cross-check. Re-exports only.
 */
export {
  SparseAccumulator,
  sparseCombine,
  sparseDot,
  sparseFromDense,
  sparseMaxAbs,
  sparseNorm,
  sparseScaledDifference,
  toDense,
  unitVector,
} from './sparse.js';
export { AUTODIFF_F32_RELATIVE_ACCURACY, FD_RELATIVE_ACCURACY, FD_RELATIVE_STEP } from './operator.js';
export {
  type BatchedVectorMap,
  centralStep,
  type DenseJacobian,
  directionalStep,
  FdJacobian,
  type FdJacobianOptions,
  finiteCopy,
  jacobianCentral,
  type JacobianCentralOptions,
  jvpCentral,
  type JvpResult,
  takenStep,
  type VectorMap,
} from './finiteDifference.js';
export { jacobianByVjp, jvpBatch, loadTf, type TfBatchMap, TfJacobian, type TfRuntime, vjpBatch } from './autodiff.js';
export { type ColumnDisagreement, type CrossCheck, crossCheckJacobians } from './crossCheck.js';
export {
  consolidateJacobian,
  type EngineChoice,
  expandJacobian,
  footprintOf,
  rawOperators,
  type RawOperators,
} from './systemJacobians.js';
