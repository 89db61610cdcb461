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

/** WebAssembly implementation (Q: θ copied into the arena; P_e: the coordinates it moves). */
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
    // P_e moves only F_e and the entry coordinates (disjoint): the kernels run on those values
    // gathered into the arena (F_e at positions 0 … m−1, the entry at m … m+n−1), the rest of θ
    // is θ's — O(|F_e| + |entry|) in wasm instead of two copies of θ
    const fp = item.footprint;
    const entry = item.entry;
    const m = fp.length;
    const ne = entry.length;
    const gathered = new Float64Array(m + ne);
    for (let f = 0; f < m; f++) gathered[f] = theta[fp[f]!]!;
    for (let k = 0; k < ne; k++) gathered[m + k] = theta[entry[k]!]!;
    if (out !== theta) out.set(theta);
    wasm().arena.scope((s) => {
      const x = s.from(gathered);
      const target = s.from(item.target);
      const rates = s.from(item.rates);
      const fpAt = s.fromI32(Int32Array.from({ length: m }, (_, f) => f));
      const kernels = graphKernels();
      kernels.graphBlendFootprintInPlace(x.ptr, fpAt.ptr, target.ptr, rates.ptr, m);
      if (ne)
        kernels.graphEntryConfidenceInPlace(x.ptr, s.fromI32(Int32Array.from({ length: ne }, (_, k) => m + k)).ptr, ne);
      gathered.set(x.view);
    });
    for (let f = 0; f < m; f++) out[fp[f]!] = gathered[f]!;
    for (let k = 0; k < ne; k++) out[entry[k]!] = gathered[m + k]!;
    return out;
  },
};

/** Both forms by name, for the package's one backend selector (src/wasm/backend.ts). */
export const graphBackends: Backends<GraphBackend> = Object.freeze({
  reference: referenceGraphBackend,
  wasm: wasmGraphBackend,
});
