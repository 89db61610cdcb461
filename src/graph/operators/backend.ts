/**
 * The reference operators behind one interface, in the forms the same test suite runs over:
 * `reference` (pure TypeScript, ./consolidate.ts and ./expand.ts) and `wasm` (assembly/graph,
 * the fast path). Both are unchecked (θ has length d, the item was compiled for this layout).
 * The tfjs form (float32, for autodiff) is in ../linearisation/tfjs.ts.
 */
import type { ArenaScope, F64Block } from '../../wasm/arena.js';
import { wasm, type KernelExports } from '../../wasm/module.js';
import { referenceConsolidate } from './consolidate.js';
import { referenceExpand, type CompiledItem } from './expand.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from '../model/shape.js';

/** Which implementation runs the operators. */
export type GraphBackendName = 'reference' | 'wasm';

/** Q and P_e on the embedded graph. */
export interface GraphBackend {
  readonly name: GraphBackendName;
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

/** The graph kernels of the wasm module (assembly/graph). */
export type GraphKernels = Pick<KernelExports, 'gqsums' | 'gqweighted' | 'gqbelief' | 'gqmerge' | 'gpblend'>;

/** The 16 parameters in the order the kernels read them. */
export function packParams(p: GraphOperatorParams): Float64Array {
  return Float64Array.of(
    p.lambda,
    p.biasClaim,
    p.biasAnswer,
    p.biasQuestion,
    p.direct,
    p.answerSupport,
    p.support,
    p.contradict,
    p.tauContradict,
    p.require,
    p.resolve,
    p.presenceScale,
    p.mergeRate,
    p.mergeRadius,
    p.sharpen,
    p.tauAnswer,
  );
}

/** Group tables as i32 arrays: starts (G+1), answers, and per question slot its group or −1. */
export function groupTables(shape: OperatorShape): { gstart: Int32Array; gans: Int32Array; qgroup: Int32Array } {
  const gstart = new Int32Array(shape.groups.length + 1);
  const list: number[] = [];
  shape.groups.forEach((g, i) => {
    gstart[i] = list.length;
    list.push(...g.answers);
  });
  gstart[shape.groups.length] = list.length;
  return { gstart, gans: Int32Array.from(list), qgroup: shape.questionGroup };
}

/**
 * Q's node block by the wasm kernels, for θ already in wasm memory (the block `theta`, of length
 * d); writes the (k+1)·Nmax node coordinates into `nodeOut` (at least that long; may be `theta`
 * itself, for Q in place). Temporaries, the i32 group tables among them, come from the scope `s`
 * and are freed with it.
 */
export function wasmConsolidateNodeBlock(
  s: ArenaScope,
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: F64Block,
  nodeOut: F64Block,
): void {
  const k: GraphKernels = wasm().exports;
  const n = shape.nmax;
  const k1 = shape.k + 1;
  const tables = groupTables(shape);
  const maxGroup = shape.maxAnswersPerQuestion;
  const sums = s.alloc(7 * n);
  const ws = s.alloc(3 * n);
  const c = s.alloc(n);
  const cNew = s.alloc(n);
  const scratch = s.alloc(n + 4 * maxGroup + 1);
  const pull = s.alloc(Math.max(1, shape.mergeDims));
  const p = s.from(packParams(params));
  const gstart = s.fromI32(tables.gstart);
  const gans = s.fromI32(tables.gans);
  const qgroup = s.fromI32(tables.qgroup);
  // every allocation is done: the views below stay valid until the end
  const tv = theta.view;
  const cv = c.view;
  for (let sl = 0; sl < n; sl++) cv[sl] = tv[sl * k1 + shape.k]!;
  k.gqsums(theta.ptr, n, shape.edgeOffset, sums.ptr);
  k.gqweighted(theta.ptr, n, shape.edgeOffset, c.ptr, sums.ptr, params.tauContradict, ws.ptr);
  k.gqbelief(
    n,
    shape.claims,
    shape.firstQuestion,
    c.ptr,
    sums.ptr,
    ws.ptr,
    p.ptr,
    shape.groups.length,
    gstart.ptr,
    gans.ptr,
    qgroup.ptr,
    scratch.ptr,
    cNew.ptr,
  );
  const ov = nodeOut.view;
  if (nodeOut !== theta) ov.set(tv.subarray(0, shape.edgeOffset));
  k.gqmerge(
    theta.ptr,
    k1,
    shape.claims,
    shape.mergeDims,
    sums.ptr,
    params.mergeRate,
    params.mergeRadius * params.mergeRadius,
    pull.ptr,
    nodeOut.ptr,
  );
  const cn = cNew.view;
  for (let sl = 0; sl < n; sl++) ov[sl * k1 + shape.k] = cn[sl]!;
}

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
    return out;
  },
  expand(item, theta, out = new Float64Array(theta.length)) {
    const { arena, exports } = wasm();
    const k: GraphKernels = exports;
    arena.scope((s) => {
      const x = s.from(theta);
      const target = s.from(item.target);
      const rates = s.from(item.rates);
      const fp = s.fromI32(item.footprint);
      k.gpblend(x.ptr, fp.ptr, target.ptr, rates.ptr, item.footprint.length);
      out.set(x.view);
    });
    return out;
  },
};
