/**
 * The public `linalg` namespace: dense f64 linear algebra on the WebAssembly kernels (row-major
 * everywhere) — the BLAS-1 set, Gramians (Eq. 5), gemm, the symmetric eigensolver, singular
 * values, rank and null space with stated tolerances, the streaming QR the certification decides
 * non-degeneracy on (Prop. 5.2), and the worker threads. Re-exports only.
 */
export { norm, distance, axpy, copy } from '../blas1/api.js';
export {
  gram,
  gramAccumulate,
  gemm,
  eigh,
  svdvals,
  rank,
  nullSpace,
  type GramOptions,
  type GramOutOptions,
  type GemmOptions,
  type EighOptions,
  type EighResult,
  type RankOptions,
} from './api.js';
export { StreamingQR, type NullSpaceResult } from './streamingQR.js';
export { residentMatrix, type ResidentMatrix } from './resident.js';
export {
  EPS,
  defaultRtol,
  decideRank,
  resolveTolerance,
  type RankDecision,
  type RankToleranceOptions,
} from './tolerance.js';
export type { MatrixInput } from './shape.js';
export type { BackendName, BackendOption } from '../wasm/backend.js';
export { stopThreads, threadCount, type ThreadOption } from './threads.js';
export { startThreads, type ThreadRequest, type ThreadDecision, type ThreadProbe } from './threadChoice.js';
