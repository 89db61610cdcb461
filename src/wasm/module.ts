/**
 * The single owner of the WebAssembly instance. `await init()` compiles build/ordergap.wasm
 * (built from assembly/ by `npm run build:wasm`), creates its memory and the {@link Arena} over
 * it. There is no top-level await anywhere in the package, so it can be `require()`d (Node's
 * require(esm)) and loaded from notebooks; call `init()` once before anything that needs wasm.
 *
 * The memory is a shared WebAssembly.Memory (the module is built with threads enabled) so that
 * worker threads can instantiate the same module over the same memory.
 */
import { readFile } from 'node:fs/promises';
import { Arena, WASM32_MAX_BYTES, WASM_PAGE_BYTES } from './arena.js';

/** Raw kernel exports. Pointers are byte offsets; strides are in f64 elements. */
export interface KernelExports {
  heapBase(): number;
  /** ||x||_2, overflow-safe (assembly/blas1/dnrm2.ts). */
  dnrm2(n: number, x: number, incx: number): number;
  /** ||x - y||_2, overflow-safe, contiguous. */
  ddist(n: number, x: number, y: number): number;
  /** y <- a x + y. */
  daxpy(n: number, a: number, x: number, incx: number, y: number, incy: number): void;
  /** y <- x. */
  dcopy(n: number, x: number, incx: number, y: number, incy: number): void;
  [name: string]: unknown;
}

/** What {@link init} sets up. */
export interface WasmRuntime {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  readonly arena: Arena;
}

/** Initial size of the memory: 16 pages = 1 MiB (it grows on demand). */
const INITIAL_PAGES = 16;

let runtime: WasmRuntime | undefined;
let pending: Promise<WasmRuntime> | undefined;

/** URL of the compiled kernels, relative to this file (src/wasm or dist/wasm). */
export const DEFAULT_WASM_URL = new URL('../../build/ordergap.wasm', import.meta.url);

/** Imports every instance needs: the shared memory and an abort handler. */
export function kernelImports(memory: WebAssembly.Memory): WebAssembly.Imports {
  return {
    env: {
      memory,
      abort(_msg: number, _file: number, line: number, col: number) {
        throw new Error(`wasm kernel aborted at ${line}:${col}`);
      },
    },
  };
}

/**
 * Loads and instantiates the kernels (idempotent; concurrent calls share one load).
 * @param options.wasm path or URL of the .wasm file (default: the package's build/ordergap.wasm)
 * @throws Error if the file is missing (run `npm run build`) or cannot be compiled.
 * @example
 * ```ts
 * import { init, blas1 } from 'ordergap';
 * await init();
 * blas1.norm([3e200, 4e200]); // 5e200
 * ```
 */
export async function init(options: { wasm?: string | URL } = {}): Promise<WasmRuntime> {
  if (runtime) return runtime;
  pending ??= (async () => {
    const where = options.wasm ?? DEFAULT_WASM_URL;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(await readFile(where));
    } catch (e) {
      throw new Error(
        `cannot read the wasm kernels at ${String(where)} (${(e as Error).message}); run \`npm run build\` first`,
      );
    }
    const module = await WebAssembly.compile(bytes);
    const memory = new WebAssembly.Memory({
      initial: INITIAL_PAGES,
      maximum: WASM32_MAX_BYTES / WASM_PAGE_BYTES,
      shared: true,
    });
    const instance = await WebAssembly.instantiate(module, kernelImports(memory));
    const exports = instance.exports as unknown as KernelExports;
    const arena = new Arena(memory, exports.heapBase() >>> 0);
    // The test suites set this (vitest.config.ts) so every uninitialised block starts as NaN.
    arena.poisonUninitialized = process.env.ORDERGAP_POISON_ARENA === '1';
    runtime = { module, memory, exports, arena };
    return runtime;
  })();
  try {
    return await pending;
  } catch (e) {
    pending = undefined;
    throw e;
  }
}

/** True once {@link init} has completed. */
export function isInitialized(): boolean {
  return runtime !== undefined;
}

/**
 * The loaded runtime.
 * @throws Error if {@link init} has not completed yet.
 */
export function wasm(): WasmRuntime {
  if (!runtime) throw new Error('ordergap: the WebAssembly kernels are not loaded; call `await init()` first');
  return runtime;
}
