/**
 * `ordergap/internal`: the names below the public surface of src/index.ts — the wasm instance
 * and its arena, the TypeScript and wasm backends of every kernel, the reference graph's
 * structured state and fused passes, the Jacobian engines, the certification's building blocks,
 * the lab's replay machinery — one namespace per area (its internal.ts, which lists exactly the
 * names its public index does not). For tools built on the kernels; no stability is promised.
 * Re-exports only.
 */
export * as wasm from './wasm/internal.js';
export * as interval from './interval/internal.js';
export * as blas1 from './blas1/internal.js';
export * as linalg from './linalg/internal.js';
export * as system from './system/internal.js';
export * as ordergap from './ordergap/internal.js';
export * as stopping from './stopping/internal.js';
export * as linearize from './linearize/internal.js';
export * as certify from './certify/internal.js';
export * as coverageStop from './coverageStop/internal.js';
export * as graph from './graph/internal.js';
export * as lab from './lab/internal.js';
export * as plot from './plot/internal.js';
export * as report from './report/internal.js';
