/**
 * The blas1 names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export type { Blas1Options } from './api.js';
export { referenceBlas1, wasmBlas1, type Blas1Backend } from './backend.js';
export type { BackendName, BackendOption } from '../wasm/backend.js';
