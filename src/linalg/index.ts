/**
 * Dense f64 linear algebra on the WebAssembly kernels (row-major everywhere): Gramians (Eq. 5),
 * gemm, the symmetric eigensolver, singular values / rank / null space with stated tolerances,
 * and the streaming tall-skinny QR used to decide non-degeneracy (Prop. 5.2) without forming
 * the Gramian. The BLAS-1 set of the foundation is re-exported here.
 */
export { norm, distance, axpy, copy, type Blas1Options } from '../blas1/api.js';
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
export { StreamingQR, createStreamingQR, type NullSpaceResult } from './streamingQR.js';
export {
  EPS,
  defaultRtol,
  decideRank,
  resolveTolerance,
  type RankDecision,
  type RankToleranceOptions,
} from './tolerance.js';
export { type MatrixInput, safeScale, gramScale, GRAM_UNSCALED_MIN, GRAM_UNSCALED_MAX } from './shape.js';
export type { BackendName, BackendOption } from '../wasm/backend.js';
export { referenceLinalg, type LinalgBackend, type SyrkAccept, type SyrkCall, type GemmCall } from './backend.js';
export { wasmLinalg } from './wasmBackend.js';
export { startThreads, stopThreads, threadCount, lastCallerUnits, type ThreadOption } from './threads.js';
