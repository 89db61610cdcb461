/**
 * The reference operators behind one interface, in the forms the same test suite runs over:
 * `reference` (pure TypeScript, ./consolidate.ts and ./expand.ts) and `wasm` (assembly/graph,
 * the fast path). Both are unchecked (θ has length d, the item was compiled for this layout).
 * The tfjs form (float32, for autodiff) is in ./tfjs.ts.
 */
import { wasm } from '../wasm/module.js';
import type { F64Block } from '../wasm/arena.js';
import { referenceConsolidate } from './consolidate.js';
import { referenceExpand, type CompiledItem } from './expand.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from './shape.js';

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

/** Raw graph kernels of the wasm module (assembly/graph). */
export interface GraphKernels {
  gqsums(theta: number, n: number, eoff: number, sums: number): void;
  gqweighted(theta: number, n: number, eoff: number, c: number, sums: number, tau: number, ws: number): void;
  gqbelief(
    n: number,
    claims: number,
    firstQuestion: number,
    c: number,
    sums: number,
    ws: number,
    p: number,
    ngroups: number,
    gstart: number,
    gans: number,
    qgroup: number,
    scratch: number,
    cout: number,
  ): void;
  gqmerge(
    theta: number,
    k1: number,
    claims: number,
    md: number,
    diag: number,
    mu: number,
    h2: number,
    pull: number,
    out: number,
  ): void;
  gpblend(x: number, footprint: number, target: number, rates: number, m: number): void;
}

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

/** Allocates an i32 array in the arena (as an f64 block of ⌈n/2⌉) and copies `src` in. */
function int32Block(s: { alloc(n: number): F64Block }, src: Int32Array): F64Block {
  const b = s.alloc(Math.max(1, Math.ceil(src.length / 2)));
  new Int32Array(wasm().memory.buffer, b.ptr, src.length).set(src);
  return b;
}

/**
 * Q's node block by the wasm kernels, for θ already in wasm memory at `thetaPtr`; writes the
 * (k+1)·Nmax node coordinates at `nodeOutPtr`. Temporaries come from the scope `s`.
 */
export function wasmConsolidateNodeBlock(
  s: { alloc(n: number): F64Block; from(a: ArrayLike<number>): F64Block },
  shape: OperatorShape,
  params: GraphOperatorParams,
  thetaPtr: number,
  nodeOutPtr: number,
): void {
  const k = wasm().exports as unknown as GraphKernels;
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
  const gstart = int32Block(s, tables.gstart);
  const gans = int32Block(s, tables.gans);
  const qgroup = int32Block(s, tables.qgroup);
  const mem = new Float64Array(wasm().memory.buffer);
  const t0 = thetaPtr / 8;
  const cv = c.view;
  for (let sl = 0; sl < n; sl++) cv[sl] = mem[t0 + sl * k1 + shape.k]!;
  k.gqsums(thetaPtr, n, shape.edgeOffset, sums.ptr);
  k.gqweighted(thetaPtr, n, shape.edgeOffset, c.ptr, sums.ptr, params.tauContradict, ws.ptr);
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
  const mem2 = new Float64Array(wasm().memory.buffer);
  if (nodeOutPtr !== thetaPtr) mem2.copyWithin(nodeOutPtr / 8, t0, t0 + shape.edgeOffset);
  k.gqmerge(
    thetaPtr,
    k1,
    shape.claims,
    shape.mergeDims,
    sums.ptr,
    params.mergeRate,
    params.mergeRadius * params.mergeRadius,
    pull.ptr,
    nodeOutPtr,
  );
  const o0 = nodeOutPtr / 8;
  const cn = cNew.view;
  for (let sl = 0; sl < n; sl++) mem2[o0 + sl * k1 + shape.k] = cn[sl]!;
}

/** WebAssembly implementation (copies θ into the arena, runs the kernels, copies back). */
export const wasmGraphBackend: GraphBackend = {
  name: 'wasm',
  consolidate(shape, params, theta, out = new Float64Array(theta.length)) {
    const { arena } = wasm();
    arena.scope((s) => {
      const t = s.from(theta);
      const node = s.alloc(shape.edgeOffset);
      wasmConsolidateNodeBlock(s, shape, params, t.ptr, node.ptr);
      out.set(theta);
      out.set(node.view, 0);
    });
    return out;
  },
  expand(item, theta, out = new Float64Array(theta.length)) {
    const { arena, exports } = wasm();
    const k = exports as unknown as GraphKernels;
    arena.scope((s) => {
      const x = s.from(theta);
      const target = s.from(item.target);
      const rates = s.from(item.rates);
      const fp = int32Block(s, item.footprint instanceof Int32Array ? item.footprint : Int32Array.from(item.footprint));
      k.gpblend(x.ptr, fp.ptr, target.ptr, rates.ptr, item.footprint.length);
      out.set(x.view);
    });
    return out;
  },
};
