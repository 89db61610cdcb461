/**
 * The reference operators behind one interface, in the forms the same test suite runs over:
 * `reference` (pure TypeScript, ./consolidate.ts and ./expand.ts) and `wasm` (assembly/graph,
 * the fast path, driven by ./wasmConsolidate.ts). Both are unchecked (θ has length d, the item
 * was compiled for this layout).
 * The tfjs form (float32, for autodiff) is in ../linearisation/tfjs.ts.
 */
import type { BackendName, Backends } from '../../wasm/backend.js';
import { wasm } from '../../wasm/module.js';
import { absorbDense, referenceConsolidate } from './consolidate.js';
import { referenceExpand, type CompiledItem } from './expand.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from '../model/shape.js';
import { graphKernels, wasmConsolidateNodeBlock } from './wasmConsolidate.js';

/** Q and P_e on the embedded graph. */
export interface GraphBackend {
  readonly name: BackendName;
  /** Q(θ) into `out` (a new array when omitted); `out` must not alias θ. */
  consolidate(shape: OperatorShape, params: GraphOperatorParams, theta: Float64Array, out?: Float64Array): Float64Array;
  /** P_e(θ) into `out` (a new array when omitted; may alias θ). */
  expand(item: CompiledItem, theta: Float64Array, out?: Float64Array): Float64Array;
}

/** Pure-TypeScript f64 reference. */
export const referenceGraphBackend: GraphBackend = {
  name: 'reference',
  consolidate: (shape, params, theta, out) => referenceConsolidate(shape, params, theta, out),
  expand: (item, theta, out) => referenceExpand(item, theta, out),
};

/** WebAssembly implementation (copies θ into the arena, runs the kernels, copies back). */
export const wasmGraphBackend: GraphBackend = {
  name: 'wasm',
  consolidate(shape, params, theta, out = new Float64Array(theta.length)) {
    const { arena } = wasm();
    arena.scope((s) => {
      const t = s.from(theta);
      const node = s.alloc(shape.edgeOffset);
      wasmConsolidateNodeBlock(s, shape, params, t, node);
      out.set(theta);
      out.set(node.view, 0);
    });
    absorbDense(shape, params, theta, out);
    return out;
  },
  expand(item, theta, out = new Float64Array(theta.length)) {
    wasm().arena.scope((s) => {
      const x = s.from(theta);
      const target = s.from(item.target);
      const rates = s.from(item.rates);
      const fp = s.fromI32(item.footprint);
      const kernels = graphKernels();
      kernels.graphBlendFootprintInPlace(x.ptr, fp.ptr, target.ptr, rates.ptr, item.footprint.length);
      if (item.entry.length) kernels.graphEntryConfidenceInPlace(x.ptr, s.fromI32(item.entry).ptr, item.entry.length);
      out.set(x.view);
    });
    return out;
  },
};

/** Both forms by name, for the package's one backend selector (src/wasm/backend.ts). */
export const graphBackends: Backends<GraphBackend> = Object.freeze({
  reference: referenceGraphBackend,
  wasm: wasmGraphBackend,
});
