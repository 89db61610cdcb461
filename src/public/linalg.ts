/**
 * The public `linalg` namespace: dense f64 linear algebra on the WebAssembly kernels (row-major
 * everywhere) — the BLAS-1 set, Gramians (Eq. 5), gemm, the symmetric eigensolver, singular
 * values, rank and null space with stated tolerances, the streaming QR the certification decides
 * non-degeneracy on (Prop. 5.2), and the worker threads. Re-exports only.
 */
export { norm, distance, axpy, copy } from '../blas1/api.js';
export { gram, gramAccumulate, gemm, eigh, svdvals, rank, nullSpace } from '../linalg/api.js';
export type { GramOptions, GramOutOptions, GemmOptions, EighOptions, EighResult, RankOptions } from '../linalg/api.js';
export { StreamingQR, type NullSpaceResult } from '../linalg/streamingQR.js';
export { EPS, defaultRtol, decideRank, resolveTolerance } from '../linalg/tolerance.js';
export type { RankDecision, RankToleranceOptions } from '../linalg/tolerance.js';
export type { MatrixInput } from '../linalg/shape.js';
export type { BackendName, BackendOption } from '../wasm/backend.js';
export { startThreads, stopThreads, threadCount, type ThreadOption } from '../linalg/threads.js';
