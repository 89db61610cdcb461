/**
 * The f64 forms of the reference graph operators by name (src/graph/operators/backend.ts): the
 * one list the graph tests take them from, for suites that run over both forms and for systems
 * built on one of them.
 */
import {
  referenceGraphBackend,
  wasmGraphBackend,
  type GraphBackend,
  type GraphBackendName,
} from '../../src/graph/operators/backend.js';

/** Each backend by its name. */
export const graphBackends: Readonly<Record<GraphBackendName, GraphBackend>> = Object.freeze({
  reference: referenceGraphBackend,
  wasm: wasmGraphBackend,
});
