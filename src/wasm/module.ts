/**
 * The single owner of the WebAssembly instance. `await init()` compiles build/ordergap.wasm
 * (built from assembly/ by `npm run build:wasm`), creates its memory and the {@link Arena} over
 * it. There is no top-level await anywhere in the package, so it can be `require()`d (Node's
 * require(esm)) and loaded from notebooks; call `init()` once before anything that needs wasm.
 *
 * The memory is a shared WebAssembly.Memory (the module is built with threads enabled) so that
 * worker threads can instantiate the same module over the same memory.
 *
 * Two builds of the one kernel source (assembly/linalg/madd.ts): 'plain' (build/ordergap.wasm,
 * 128-bit SIMD, every multiply-add rounded twice) and 'fma' (build/ordergap-fma.wasm, relaxed SIMD:
 * the multiply-adds of the gemm/Gramian tile, the symmetric matrix–vector product and rank-2
 * updates of the tridiagonal reduction, and vdot/vaxpy of the bidiagonal and QR reflectors are
 * fused). `init` picks one by `kernels` (or the environment variable ORDERGAP_KERNELS): 'auto'
 * (the default) runs 'fma' when the runtime validates a relaxed-SIMD probe module (Node 22 and
 * later by default; Node 20 with --experimental-wasm-relaxed-simd), else 'plain'.
 */
import { readFile } from 'node:fs/promises';
import { ArgumentError } from '../util/errors.js';
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

/** A build of the kernels: 'plain' (SIMD) or 'fma' (relaxed SIMD, fused multiply-adds). */
export type KernelBuild = 'plain' | 'fma';

/** The `kernels` option of {@link init}: a build, or 'auto' (fma where the runtime has relaxed SIMD). */
export type KernelChoice = KernelBuild | 'auto';

/** The options of {@link init}. */
export interface InitOptions {
  /**
   * Which build to run (default: the environment variable ORDERGAP_KERNELS when set, else
   * 'auto': 'fma' when {@link relaxedSimdSupported}, else 'plain').
   */
  kernels?: KernelChoice;
  /** Path or URL of the .wasm file of that build (default: the package's build/ file of it). */
  wasm?: string | URL;
}

/** What {@link init} sets up. */
export interface WasmRuntime {
  /** Which build of the kernels runs. */
  readonly kernels: KernelBuild;
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  readonly arena: Arena;
}

/** Initial size of the memory: 16 pages = 1 MiB (it grows on demand). */
const INITIAL_PAGES = 16;

let runtime: WasmRuntime | undefined;
let pending: Promise<WasmRuntime> | undefined;

/** URL of the compiled kernels, relative to this file (src/wasm or dist/wasm): the plain build. */
export const DEFAULT_WASM_URL = new URL('../../build/ordergap.wasm', import.meta.url);

/** URL of the FMA build of the kernels (relaxed SIMD). */
export const FMA_WASM_URL = new URL('../../build/ordergap-fma.wasm', import.meta.url);

/**
 * The smallest module using relaxed SIMD: one function (v128, v128, v128) → v128 returning
 * f64x2.relaxed_madd of its parameters (opcode 0xfd 0x107, LEB128 0x87 0x02).
 */
// prettier-ignore
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, // type section: (v128 v128 v128) → v128
  0x03, 0x02, 0x01, 0x00, // function section: function 0 of type 0
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x87, 0x02, 0x0b, // its code
]);

/**
 * True when this runtime accepts relaxed SIMD (WebAssembly.validate on a probe module using
 * f64x2.relaxed_madd): Node 22 and later by default, Node 20 with --experimental-wasm-relaxed-simd.
 */
export function relaxedSimdSupported(): boolean {
  return WebAssembly.validate(RELAXED_SIMD_PROBE);
}

/**
 * The build a `kernels` choice names on this runtime: `choice` (default: ORDERGAP_KERNELS when
 * set, else 'auto'); 'auto' is 'fma' when `supported`, else 'plain'.
 * @throws {ArgumentError} the choice is not 'auto', 'fma' or 'plain'; or it is 'fma' and the
 *   runtime lacks relaxed SIMD.
 * @example
 * ```ts
 * chooseKernelBuild('auto', false); // 'plain'
 * ```
 */
export function chooseKernelBuild(choice?: unknown, supported = relaxedSimdSupported()): KernelBuild {
  const env = process.env.ORDERGAP_KERNELS;
  const [name, value] = choice !== undefined ? ['options.kernels', choice] : ['ORDERGAP_KERNELS', env || 'auto'];
  if (value !== 'auto' && value !== 'fma' && value !== 'plain')
    throw new ArgumentError(name, value, "must be 'auto', 'fma' or 'plain'");
  if (value === 'fma' && !supported)
    throw new ArgumentError(
      name,
      value,
      `needs WebAssembly relaxed SIMD, which this runtime (Node ${process.version}) lacks: use Node 22 or later, node --experimental-wasm-relaxed-simd, or 'plain'`,
    );
  return value === 'auto' ? (supported ? 'fma' : 'plain') : value;
}

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
 * Loads and instantiates the kernels (idempotent; concurrent calls share one load): the build
 * `options.kernels` names (see {@link chooseKernelBuild}); the runtime's `kernels` says which runs.
 * @param options.kernels 'auto' (default; or ORDERGAP_KERNELS), 'fma' or 'plain'
 * @param options.wasm path or URL of the .wasm file (default: the package's build/ file of the build)
 * @throws {ArgumentError} a bad `kernels` (or ORDERGAP_KERNELS), or 'fma' on a runtime without
 *   relaxed SIMD.
 * @throws Error if the file is missing (run `npm run build`), cannot be compiled, or does not export
 *   every kernel of {@link KERNEL_SIGNATURES} with its parameter count (see {@link checkKernelExports});
 *   or if `options.kernels` names another build than the one already loaded.
 * @example
 * ```ts
 * import { init, linalg } from 'ordergap';
 * const { kernels } = await init(); // 'fma' on Node 22+, 'plain' on Node 20
 * linalg.norm([3e200, 4e200]); // ≈ 5e200 (no overflow on the way)
 * ```
 */
export async function init(options: InitOptions = {}): Promise<WasmRuntime> {
  const kernels = chooseKernelBuild(options.kernels);
  if (runtime) {
    if (options.kernels !== undefined && options.kernels !== 'auto' && kernels !== runtime.kernels)
      throw new Error(`init: the ${runtime.kernels} kernels are already loaded; cannot switch to ${kernels}`);
    return runtime;
  }
  pending ??= (async () => {
    const where = options.wasm ?? (kernels === 'fma' ? FMA_WASM_URL : DEFAULT_WASM_URL);
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
    runtime = { kernels, module, memory, exports, arena };
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
