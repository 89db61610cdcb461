/** Chooses the implementation behind the friendly API. */
import { ArgumentError } from '../util/errors.js';
import { isInitialized } from '../wasm/module.js';
import { referenceLinalg, type LinalgBackend, type LinalgBackendName } from './backend.js';
import { wasmLinalg } from './wasmBackend.js';

/** Options shared by the friendly linalg functions. */
export interface BackendOption {
  /** Force an implementation (default: 'wasm' once `init()` has completed, else 'reference'). */
  backend?: LinalgBackendName;
}

/** @throws {ArgumentError} unknown backend name. */
export function pickBackend(options: BackendOption | undefined): LinalgBackend {
  const name = options?.backend ?? (isInitialized() ? 'wasm' : 'reference');
  if (name === 'wasm') return wasmLinalg;
  if (name === 'reference') return referenceLinalg;
  throw new ArgumentError('options.backend', name, "must be 'wasm' or 'reference'");
}
