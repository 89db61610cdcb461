/**
 * The linearize names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
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
export { FD_RELATIVE_STEP } from './operator.js';
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
export type { ColumnDisagreement } from './crossCheck.js';
export { footprintOf, rawOperators, type RawOperators } from './systemJacobians.js';
