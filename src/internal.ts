/**
 * `ordergap/internal`: every area's full module list, below the public surface of src/index.ts —
 * the wasm instance and its arena, the TypeScript and wasm backends of every kernel, the
 * reference graph's structured state and fused passes, the Jacobian engines, the certification's
 * building blocks, the lab's replay machinery. For tools built on the kernels; no stability is
 * promised (the public entry is the supported API). Re-exports only.
 */
export * as wasm from './wasm/module.js';
export * as arena from './wasm/arena.js';
export * as backends from './wasm/backend.js';
export * as blas1 from './blas1/index.js';
export * as linalg from './linalg/index.js';
export * as coordinates from './system/coordinates.js';
export * as distribution from './system/distribution.js';
export * as rng from './ordergap/rng.js';
export * as stopping from './stopping/index.js';
export * as linearize from './linearize/index.js';
export * as certify from './certify/index.js';
export * as graph from './graph/index.js';
export * as lab from './lab/index.js';
export * as plot from './plot/index.js';
export * as html from './report/html.js';
