/** BLAS-1: overflow-safe norm and distance, axpy, copy (validating tier and both backends). */
export { norm, distance, axpy, copy, type Blas1Options } from './api.js';
export { referenceBlas1, wasmBlas1, type Blas1Backend } from './backend.js';
export type { BackendName, BackendOption } from '../wasm/backend.js';
