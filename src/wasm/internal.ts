/**
 * The wasm names below the public surface, for `ordergap/internal` (src/internal.ts): the instance
 * and its kernel table, the arena over the shared memory, the backend selector. No stability is
 * promised. Re-exports only.
 */
export { KERNEL_SIGNATURES, checkKernelExports, DEFAULT_WASM_URL, kernelImports, wasm } from './module.js';
export type { KernelExports, WasmRuntime } from './module.js';
export { Arena, ArenaBlock, F64Block, I32Block, I32_POISON, WASM32_MAX_BYTES, WASM_PAGE_BYTES } from './arena.js';
export type { ArenaScope } from './arena.js';
export { selectBackend, type BackendName, type BackendOption, type Backends } from './backend.js';
