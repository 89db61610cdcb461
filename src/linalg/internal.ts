/**
 * The linalg names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export type { Blas1Options } from '../blas1/api.js';
export { createStreamingQR } from './streamingQR.js';
export { safeScale, gramScale, GRAM_UNSCALED_MIN, GRAM_UNSCALED_MAX } from './shape.js';
export { referenceLinalg, type LinalgBackend, type SyrkAccept, type SyrkCall, type GemmCall } from './backend.js';
export { wasmLinalg } from './wasmBackend.js';
export { lastCallerUnits } from './threads.js';
export { AUTO_MIN_SPEEDUP, checkThreadRequest, chooseThreads, threadDecision, withThreads } from './threadChoice.js';
