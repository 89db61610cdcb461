/**
 * Q of the reference graph operators on the wasm kernels (assembly/graph/consolidate.ts): the one
 * place that packs the parameters and the answer-group tables for the kernels, holds the work
 * arrays of Q's stages and calls the kernels in order —
 *
 *   confidences c → structure sums → c-weighted sums → confidence update → merge → c' written
 *
 * — for every caller: the wasm backend (./backend.ts, dense θ copied in per call), the
 * consolidation engine and the resident DQ engine of the certification
 * (../linearisation/consolidationEngine.ts, consolidateJacobian.ts: the edge blocks by rows,
 * kept in wasm memory). Each stage is the kernel of the TypeScript function of the same name in
 * ./consolidate.ts (`graphStructureSums` ↔ `structureSums`, …; docs/graph.md, "Three forms"), so
 * the node block is bit for bit the same whichever storage of the edges the passes read.
 */
import type { Arena, ArenaBlock, ArenaScope, F64Block, I32Block } from '../../wasm/arena.js';
import { wasm, type KernelExports } from '../../wasm/module.js';
import { ArgumentError } from '../../util/errors.js';
import { firstNonFinite } from '../../util/validate.js';
import { pushAll } from '../../util/arrays.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from '../model/shape.js';

/** The graph kernels of the wasm module (assembly/graph). */
export type GraphKernels = Pick<
  KernelExports,
  | 'graphStructureSums'
  | 'graphStructureSumsCsr'
  | 'graphWeightedSums'
  | 'graphWeightedSumsCsr'
  | 'graphConfidenceUpdate'
  | 'graphMergeClaims'
  | 'graphMergeRows'
  | 'graphBlendFootprintInPlace'
  | 'graphEntryConfidenceInPlace'
  | 'graphNodeQuotient'
  | 'graphDirectionScales'
  | 'graphDirectionShift'
  | 'graphDirectionRestore'
  | 'graphDirectionTakenStep'
  | 'graphDirectionPositiveZeros'
>;

/** The graph kernels of the loaded module. */
export function graphKernels(): GraphKernels {
  return wasm().exports;
}

/** The 17 parameters in the order the kernels read them (`promotion` last). */
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
    p.promotion,
  );
}

/** Group tables as i32 arrays: starts (G+1), answers, and per question slot its group or −1. */
export function groupTables(shape: OperatorShape): { gstart: Int32Array; gans: Int32Array; qgroup: Int32Array } {
  const gstart = new Int32Array(shape.groups.length + 1);
  const list: number[] = [];
  shape.groups.forEach((g, i) => {
    gstart[i] = list.length;
    pushAll(list, g.answers);
  });
  gstart[shape.groups.length] = list.length;
  return { gstart, gans: Int32Array.from(list), qgroup: shape.questionGroup };
}

/**
 * Wasm blocks that outlive one call, freed together by {@link ResidentBlocks.free} (idempotent).
 * It allocates like an {@link ArenaScope}, so the same code builds per-call and resident blocks.
 */
export class ResidentBlocks implements ArenaScope {
  readonly #arena: Arena;
  readonly #all: ArenaBlock[] = [];

  constructor(arena: Arena = wasm().arena) {
    this.#arena = arena;
  }

  #keep<B extends ArenaBlock>(b: B): B {
    this.#all.push(b);
    return b;
  }

  alloc(length: number, fill?: number): F64Block {
    return this.#keep(this.#arena.alloc(length, fill));
  }

  from(src: ArrayLike<number>): F64Block {
    return this.#keep(this.#arena.from(src));
  }

  allocI32(length: number, fill?: number): I32Block {
    return this.#keep(this.#arena.allocI32(length, fill));
  }

  fromI32(src: ArrayLike<number>): I32Block {
    return this.#keep(this.#arena.fromI32(src));
  }

  /** Frees every block allocated here. */
  free(): void {
    for (const b of this.#all) if (!b.freed) this.#arena.free(b);
    this.#all.length = 0;
  }
}

/**
 * Runs `build` on fresh {@link ResidentBlocks} and returns both; if `build` throws (an allocation
 * fails), the blocks it made are freed before the error propagates.
 */
export function residentBlocks<T>(build: (blocks: ResidentBlocks) => T): { blocks: ResidentBlocks; value: T } {
  const blocks = new ResidentBlocks();
  try {
    return { blocks, value: build(blocks) };
  } catch (e) {
    blocks.free();
    throw e;
  }
}

/** One edge entry replaced in the passes over the rows: block, row, column, value (block −1: none). */
export interface EdgeOverride {
  readonly block: number;
  readonly row: number;
  readonly col: number;
  readonly value: number;
}

/** No entry replaced. */
export const NO_OVERRIDE: EdgeOverride = Object.freeze({ block: -1, row: 0, col: 0, value: 0 });

/** The edge blocks of a state in wasm memory as Q's two passes read them. */
export interface WasmEdges {
  /** The first pass (`structureSums`) into `sums` (7·Nmax). */
  structureSums(k: GraphKernels, n: number, sums: F64Block, override: EdgeOverride): void;
  /** The second pass (`weightedSums`) into `ws` (3·Nmax). */
  weightedSums(
    k: GraphKernels,
    n: number,
    c: F64Block,
    sums: F64Block,
    tau: number,
    ws: F64Block,
    override: EdgeOverride,
  ): void;
}

/** The dense edge blocks of θ in wasm memory (θ of length d at `theta`); no override. */
export function denseWasmEdges(theta: F64Block, edgeOffset: number): WasmEdges {
  return {
    structureSums: (k, n, sums) => k.graphStructureSums(theta.ptr, n, edgeOffset, sums.ptr),
    weightedSums: (k, n, c, sums, tau, ws) =>
      k.graphWeightedSums(theta.ptr, n, edgeOffset, c.ptr, sums.ptr, tau, ws.ptr),
  };
}

/** One edge block's stored entries by rows: row starts (Nmax + 1), columns, values; row-major. */
export interface HostRows {
  readonly start: Int32Array;
  readonly col: Int32Array;
  readonly val: Float64Array;
}

/** The three edge blocks of a dense state by rows, as {@link edgeRowsOf} builds them. */
export interface HostEdgeRows {
  readonly blocks: readonly [HostRows, HostRows, HostRows];
  /** The rows with an entry in some block, ascending. */
  readonly active: Int32Array;
  /** For each entry `keep` marks, in ascending coordinate order: its position in its block's values. */
  readonly kept: Int32Array;
}

/**
 * Each edge block of the dense state x by rows: the non-zeros, plus the entries `keep` marks
 * (by edge-block coordinate, 3·Nmax² flags) even where they are 0 — a stored zero is skipped by
 * the passes exactly like an absent entry. Columns ascending within each row, the order of the
 * dense passes. O(Nmax²).
 */
export function edgeRowsOf(x: Float64Array, shape: OperatorShape, keep?: Uint8Array): HostEdgeRows {
  const n = shape.nmax;
  const nn = n * n;
  // counts first (stored entries per block, marked ones overall), then typed arrays filled in
  // place: a marked block of the whole space holds 10⁶ entries and more
  const stored = [0, 0, 0];
  const marks = [0, 0, 0];
  for (let b = 0; b < 3; b++) {
    const o = shape.edgeOffset + b * nn;
    for (let e = 0; e < nn; e++) {
      const m = keep !== undefined && keep[b * nn + e] === 1;
      if (m) marks[b]!++;
      if (m || x[o + e] !== 0) stored[b]!++;
    }
  }
  const kept = new Int32Array(marks[0]! + marks[1]! + marks[2]!);
  let t = 0;
  const blocks = [0, 1, 2].map((b): HostRows => {
    const o = shape.edgeOffset + b * nn;
    const start = new Int32Array(n + 1);
    const col = new Int32Array(Math.max(1, stored[b]!));
    const val = new Float64Array(Math.max(1, stored[b]!));
    if (marks[b] === nn) {
      // every entry marked: the block stored whole, row by row
      for (let j = 0; j <= n; j++) start[j] = j * n;
      for (let k = 0; k < nn; k++) {
        col[k] = k % n;
        kept[t++] = k;
      }
      val.set(x.subarray(o, o + nn));
      return { start, col, val };
    }
    let k = 0;
    for (let j = 0; j < n; j++) {
      start[j] = k;
      for (let i = 0; i < n; i++) {
        const e = j * n + i;
        const w = x[o + e]!;
        const marked = keep !== undefined && keep[b * nn + e] === 1;
        if (w === 0 && !marked) continue;
        if (marked) kept[t++] = k;
        col[k] = i;
        val[k++] = w;
      }
    }
    start[n] = k;
    return { start, col, val };
  }) as unknown as HostEdgeRows['blocks'];
  const active: number[] = [];
  for (let j = 0; j < n; j++) if (blocks.some((r) => r.start[j + 1]! > r.start[j]!)) active.push(j);
  return { blocks, active: Int32Array.from(active), kept };
}

/** The edge blocks by rows in wasm memory (assembly/graph/consolidate.ts, "the CSR passes"). */
export class WasmEdgeRows implements WasmEdges {
  /** Each block's values, in the host rows' order (a caller may rewrite stored entries). */
  readonly vals: readonly [F64Block, F64Block, F64Block];
  /** The kernels' description of the rows: 9 block pointers, active, its count, rc, rv, the override. */
  readonly #rows: I32Block;
  /** The override's value. */
  readonly #value: F64Block;

  constructor(alloc: ArenaScope, host: HostEdgeRows, n: number) {
    const uploaded = host.blocks.map((r) => [alloc.fromI32(r.start), alloc.fromI32(r.col), alloc.from(r.val)] as const);
    this.vals = uploaded.map((u) => u[2]) as unknown as WasmEdgeRows['vals'];
    const active = alloc.fromI32(host.active.length ? host.active : [0]);
    const rc = alloc.allocI32(n);
    const rv = alloc.alloc(n);
    this.#value = alloc.alloc(1, 0);
    this.#rows = alloc.fromI32([
      ...uploaded.flatMap((u) => u.map((b) => b.ptr)),
      active.ptr,
      host.active.length,
      rc.ptr,
      rv.ptr,
      -1,
      0,
      0,
      this.#value.ptr,
    ]);
  }

  /** Sets the entry the next pass replaces. */
  #use(o: EdgeOverride): number {
    const v = this.#rows.view;
    v[13] = o.block;
    v[14] = o.row;
    v[15] = o.col;
    this.#value.view[0] = o.value;
    return this.#rows.ptr;
  }

  structureSums(k: GraphKernels, n: number, sums: F64Block, o: EdgeOverride): void {
    k.graphStructureSumsCsr(n, this.#use(o), sums.ptr);
  }

  weightedSums(k: GraphKernels, n: number, c: F64Block, sums: F64Block, tau: number, ws: F64Block, o: EdgeOverride) {
    k.graphWeightedSumsCsr(n, this.#use(o), c.ptr, sums.ptr, tau, ws.ptr);
  }
}

/**
 * The work arrays of Q's stages on the wasm kernels for one shape and parameter set: the packed
 * parameters, the group tables, the confidences before (`c`) and after (`cNew`), both passes'
 * sums and the update's and merge's scratch, O(14·Nmax) doubles from `alloc`. Each stage writes
 * into its default array unless told otherwise, so a caller can keep several sets of sums (the
 * DQ engine keeps the sums at x beside work sums).
 */
export class WasmConsolidation {
  readonly sums: F64Block;
  readonly ws: F64Block;
  readonly c: F64Block;
  readonly cNew: F64Block;
  readonly #scratch: F64Block;
  readonly #pull: F64Block;
  readonly #p: F64Block;
  readonly #gstart: I32Block;
  readonly #gans: I32Block;
  readonly #qgroup: I32Block;
  readonly #k: GraphKernels = graphKernels();

  constructor(
    alloc: ArenaScope,
    readonly shape: OperatorShape,
    readonly params: GraphOperatorParams,
  ) {
    const n = shape.nmax;
    const tables = groupTables(shape);
    this.sums = alloc.alloc(7 * n);
    this.ws = alloc.alloc(3 * n);
    this.c = alloc.alloc(n);
    this.cNew = alloc.alloc(n);
    this.#scratch = alloc.alloc(n + 4 * shape.maxAnswersPerQuestion + 1);
    this.#pull = alloc.alloc(Math.max(1, shape.mergeDims));
    this.#p = alloc.from(packParams(params));
    this.#gstart = alloc.fromI32(tables.gstart);
    this.#gans = alloc.fromI32(tables.gans.length ? tables.gans : [0]);
    this.#qgroup = alloc.fromI32(tables.qgroup.length ? tables.qgroup : [0]);
  }

  /** c ← the confidences of a node block ((k+1)·Nmax values, θ itself will do). */
  readConfidences(nodes: Float64Array): void {
    const { k, nmax } = this.shape;
    const cv = this.c.view;
    for (let sl = 0; sl < nmax; sl++) cv[sl] = nodes[sl * (k + 1) + k]!;
  }

  /** The first pass over `edges` into `sums`. */
  structureSums(edges: WasmEdges, sums: F64Block = this.sums, override: EdgeOverride = NO_OVERRIDE): void {
    edges.structureSums(this.#k, this.shape.nmax, sums, override);
  }

  /** The second pass over `edges` from `c` and the structure sums `sums`, into `ws`. */
  weightedSums(edges: WasmEdges, sums: F64Block = this.sums, override: EdgeOverride = NO_OVERRIDE): void {
    edges.weightedSums(this.#k, this.shape.nmax, this.c, sums, this.params.tauContradict, this.ws, override);
  }

  /** The new confidences from `c`, `sums` and `ws`, into `out`. */
  confidenceUpdate(sums: F64Block = this.sums, out: F64Block = this.cNew): void {
    const { shape } = this;
    this.#k.graphConfidenceUpdate(
      shape.nmax,
      shape.claims,
      shape.firstQuestion,
      this.c.ptr,
      sums.ptr,
      this.ws.ptr,
      this.#p.ptr,
      shape.groups.length,
      this.#gstart.ptr,
      this.#gans.ptr,
      this.#qgroup.ptr,
      this.#scratch.ptr,
      out.ptr,
    );
  }

  /**
   * The merge of the claims' attributes of `nodes` (gated by the diagonal of `sums`) into `out`,
   * every claim, or the first `count` claim slots listed in `rows`; rows not merged are not written.
   */
  mergeClaims(nodes: F64Block, sums: F64Block, out: F64Block, rows?: I32Block, count = 0): void {
    const { shape, params } = this;
    this.#k.graphMergeClaims(
      nodes.ptr,
      shape.k + 1,
      shape.claims,
      shape.mergeDims,
      sums.ptr,
      params.mergeRate,
      params.mergeRadius * params.mergeRadius,
      this.#pull.ptr,
      out.ptr,
      rows === undefined ? 0 : rows.ptr,
      count,
    );
  }

  /**
   * The node block of Q(θ) into `nodeOut` ((k+1)·Nmax values; must not alias `nodes`), from θ's
   * node block `nodes` and its edges: every stage in order. `sums: 'given'` skips the first pass
   * and uses `this.sums` as they are (the edges have not changed since it ran).
   */
  consolidateNodes(nodes: F64Block, edges: WasmEdges, nodeOut: F64Block, sums: 'compute' | 'given' = 'compute'): void {
    const k = this.shape.k;
    this.readConfidences(nodes.view);
    if (sums === 'compute') this.structureSums(edges);
    this.weightedSums(edges);
    this.confidenceUpdate();
    nodeOut.view.set(nodes.view.subarray(0, this.shape.edgeOffset));
    this.mergeClaims(nodes, this.sums, nodeOut);
    const ov = nodeOut.view;
    const cn = this.cNew.view;
    for (let sl = 0; sl < this.shape.nmax; sl++) ov[sl * (k + 1) + k] = cn[sl]!;
  }
}

/**
 * Throws when a node block of Q(θ) that {@link WasmConsolidation.consolidateNodes} wrote holds a
 * non-finite value, naming the first (`reference-graph: consolidate(theta)[i]`). O((k+1)·Nmax).
 */
export function checkConsolidated(nodeOut: Float64Array, nodeLength: number): void {
  const bad = firstNonFinite(nodeOut, 0, nodeLength);
  if (bad >= 0) throw new ArgumentError(`reference-graph: consolidate(theta)[${bad}]`, nodeOut[bad], 'must be finite');
}

/**
 * Q's node block by the wasm kernels for θ already in wasm memory (the block `theta`, of length
 * d, its edges dense): writes the (k+1)·Nmax node coordinates into `nodeOut` (must not alias
 * `theta`). The work arrays come from the scope `s` and are freed with it. Unchecked.
 */
export function wasmConsolidateNodeBlock(
  s: ArenaScope,
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: F64Block,
  nodeOut: F64Block,
): void {
  new WasmConsolidation(s, shape, params).consolidateNodes(theta, denseWasmEdges(theta, shape.edgeOffset), nodeOut);
}
