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
import { KERNEL_SIGNATURES, type KernelExports, type KernelSignature } from './kernels.generated.js';

export type { KernelExports, KernelName, KernelSignature, KernelValueType } from './kernels.generated.js';
export { KERNEL_SIGNATURES } from './kernels.generated.js';

/**
 * The exports of an instance of the kernels, typed: the one checked cast from
 * `WebAssembly.Exports`. Every kernel of {@link KERNEL_SIGNATURES} must be a function export
 * taking as many parameters as the raw bindings declare, so a .wasm built from other sources than
 * src/wasm/kernels.generated.ts was generated from fails here, naming what differs, instead of at
 * the first call of a missing kernel (`k.dsyrkRows is not a function`) or, worse, by running
 * with arguments shifted.
 * @param where the .wasm file, for the message
 * @throws Error naming every missing export and every parameter-count mismatch.
 * @example
 * ```ts
 * checkKernelExports({}, 'empty.wasm'); // throws: empty.wasm does not export the kernels ... heapBase, dnrm2, ...
 * ```
 */
export function checkKernelExports(exports: WebAssembly.Exports, where: string | URL): KernelExports {
  const missing: string[] = [];
  const arity: string[] = [];
  for (const [name, sig] of Object.entries(KERNEL_SIGNATURES) as [string, KernelSignature][]) {
    const f = exports[name];
    if (typeof f !== 'function') missing.push(name);
    else if (f.length !== sig.params.length)
      arity.push(`${name} (${f.length} parameters, expected ${sig.params.length})`);
  }
  if (missing.length || arity.length) {
    throw new Error(
      `${String(where)} does not export the kernels src/wasm/kernels.generated.ts declares` +
        (missing.length ? `; missing function exports: ${missing.join(', ')}` : '') +
        (arity.length ? `; different signatures: ${arity.join(', ')}` : '') +
        ' (rebuild with `npm run build:wasm`, which also regenerates that file)',
    );
  }
  return exports as unknown as KernelExports;
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
 * @throws Error if the file is missing (run `npm run build`), cannot be compiled, or does not export
 *   every kernel of {@link KERNEL_SIGNATURES} with its parameter count (see {@link checkKernelExports}).
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
    const exports = checkKernelExports(instance.exports, where);
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
