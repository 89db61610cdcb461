/** The linalg implementation behind the friendly API, chosen by the one selector of ../wasm/backend.ts. */
import { selectBackend, type BackendOption } from '../wasm/backend.js';
import { referenceLinalg, type LinalgBackend } from './backend.js';
import { wasmLinalg } from './wasmBackend.js';

const BACKENDS = { reference: referenceLinalg, wasm: wasmLinalg } as const;

/** @throws {ArgumentError} `options.backend` is neither 'wasm' nor 'reference'. */
export function pickBackend(options: BackendOption | undefined): LinalgBackend {
  return selectBackend(BACKENDS, options?.backend);
}
