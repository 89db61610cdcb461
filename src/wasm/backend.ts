/**
 * The one backend selector of the kernel areas (blas1, linalg, graph): each area holds its kernels
 * behind one interface in two implementations, the pure-TypeScript `reference` and `wasm` (the
 * AssemblyScript kernels over the arena), and its friendly API picks one per call from
 * `options.backend`: by default `wasm` once {@link init} has completed, else `reference`.
 */
import { ArgumentError } from '../util/errors.js';
import { isInitialized } from './module.js';

/** Which implementation runs a kernel. */
export type BackendName = 'reference' | 'wasm';

/** The `backend` option of every function that runs kernels. */
export interface BackendOption {
  /** Force an implementation (default: 'wasm' once `init()` has completed, else 'reference'). */
  backend?: BackendName;
}

/** An area's two implementations of one kernel interface, by name. */
export type Backends<B> = { readonly [N in BackendName]: B };

/**
 * The implementation named by `backend`, or by default `wasm` once `init()` has completed and
 * `reference` before. Cost O(1).
 * @param backends the area's two implementations
 * @param backend `options.backend` as the caller received it (checked here)
 * @throws {ArgumentError} `backend` is neither 'wasm' nor 'reference'.
 * @example
 * ```ts
 * selectBackend({ reference: referenceBlas1, wasm: wasmBlas1 }, options?.backend).norm(x);
 * ```
 */
export function selectBackend<B>(backends: Backends<B>, backend: unknown): B {
  const name = backend ?? (isInitialized() ? 'wasm' : 'reference');
  if (name === 'wasm' || name === 'reference') return backends[name];
  throw new ArgumentError('options.backend', name, "must be 'wasm' or 'reference'");
}
