/**
 * DQ of the reference graph operators by central differences on the graph's wasm kernels, with
 * the state kept in wasm memory between evaluations.
 *
 * Q leaves the edge block unchanged and writes only the node block (the first (k+1)·Nmax
 * coordinates; docs/graph.md), so column j of DQ is the node-block difference quotient plus,
 * for an edge coordinate j, the identity entry 1 at row j (Q copies θ_j: the quotient
 * ((θ_j + h) − (θ_j − h))/((θ_j + h) − (θ_j − h)) is exactly 1).
 *
 * What an evaluation at x ± h·e_j recomputes depends on what e_j can change (Q's stages:
 * structure sums of the edge block → confidence-weighted sums → belief update → merge of the
 * claims' attributes, docs/graph.md):
 * - a confidence: the structure sums do not change (they read edges only), nor the merge (it
 *   reads attributes and the Supports diagonal) — only the weighted sums and the belief update
 *   run, on the sums computed once at x;
 * - an attribute: only the merge runs (the beliefs do not read attributes), and only for the
 *   shifted claim and the claims within the merge radius of it;
 * - an edge weight: every stage runs, the structure passes over the edge blocks' non-zeros
 *   (stored by rows once at x, the perturbed entry overridden; assembly/graph/consolidate.ts), not over
 *   the dense Nmax² blocks; the merge only for a Supports diagonal entry.
 * A skipped stage would compute bit-identical values at x + h·e_j and x − h·e_j, whose quotient
 * is exactly 0 and dropped; the passes over the non-zeros visit them in the dense passes' order.
 * So every column is bit for bit the quotient of two full evaluations of the wasm Q
 * (`wasmConsolidateNodeBlock`, ../operators/wasmConsolidate.ts) — tested — at O(Nmax + nnz)
 * per confidence or edge column instead of O(Nmax²). A long direction v (one directional
 * difference) runs every stage the same way: the passes over the stored edges with v's entries
 * written in, the merge for the claims v moves and those within the merge radius of them. A
 * direction that moves Nmax² edge entries or more (the whole-space power steps) runs the full
 * wasm Q itself, dense passes and every claim merged, on x held whole in wasm.
 * Same step and accuracy as {@link FdJacobian}.
 */
import {
  denseWasmEdges,
  edgeRowsOf,
  graphKernels,
  type HostEdgeRows,
  type HostRows,
  residentBlocks,
  WasmConsolidation,
  WasmEdgeRows,
  type EdgeOverride,
  type ResidentBlocks,
} from '../operators/wasmConsolidate.js';
import type { Scenario } from '../scenarios/scenario.js';
import {
  centralStep,
  directionalStepGathered,
  directionalStepOfScales,
  finiteCopy,
  takenStepGathered,
} from '../../linearize/finiteDifference.js';
import { runPosition } from '../operators/consolidate.js';
import { CachedJacobian, FD_RELATIVE_ACCURACY } from '../../linearize/operator.js';
import { SparseAccumulator, sparseFromDense, type SparseVector } from '../../linearize/sparse.js';
import { ArgumentError } from '../../util/errors.js';
import type { F64Block, I32Block } from '../../wasm/arena.js';

/** The wasm blocks of one operator (all freed together). */
interface Resident {
  /** Q's stages; its `c` holds x's confidences (confidence columns shift one), `sums` is work space. */
  q: WasmConsolidation;
  /** The edge blocks of x by rows. */
  rows: WasmEdgeRows;
  /** The node block of x (the merge reads attributes from here; attribute columns shift it). */
  node: F64Block;
  /** Structure sums at x. */
  sums0: F64Block;
  /** New confidences at the two points. */
  cp: F64Block;
  cm: F64Block;
  /** Merged claim attributes at the two points (node layout, claims·(k+1)). */
  ap: F64Block;
  am: F64Block;
  /** Claim rows an attribute column re-merges. */
  mrows: I32Block;
  /** The quotient's non-zeros. */
  idx: I32Block;
  val: F64Block;
}

/** x as one dense block in wasm (d values) with Q's work arrays: a long direction's evaluations. */
interface DenseResident {
  q: WasmConsolidation;
  /** The state Q reads: x, with a direction's points written in while they are evaluated. */
  theta: F64Block;
  /** x itself, and the direction v (d values each). */
  x: F64Block;
  v: F64Block;
  /** Q's node block at the two points, and the step's two scales. */
  fp: F64Block;
  fm: F64Block;
  scales: F64Block;
}

/** A point held as another operator's array with a patch (see {@link GraphConsolidateJacobian.near}). */
interface NearPoint {
  readonly node: Float64Array;
  readonly edges: Float64Array;
  readonly patch: ReadonlyMap<number, number>;
  /** The rows of the point's non-zero edges. */
  readonly host: HostEdgeRows;
}

/**
 * `host` (rows of non-zero edges, no kept entries) with the edge entries at `at` (edge-block
 * coordinates, ascending) set to `value`: the rows {@link edgeRowsOf} builds from the patched
 * point — a changed row merged in column order, a zero dropped, the other rows and untouched
 * blocks shared. O(Nmax + nnz of the changed blocks).
 */
function patchedRows(host: HostEdgeRows, at: Int32Array, value: Float64Array, n: number): HostEdgeRows {
  if (at.length === 0) return host;
  const nn = n * n;
  let t = 0;
  const blocks = host.blocks.map((rows, b): HostRows => {
    const from = t;
    while (t < at.length && at[t]! < (b + 1) * nn) t++;
    if (from === t) return rows;
    const cap = Math.max(1, rows.start[n]! + (t - from));
    const start = new Int32Array(n + 1);
    const col = new Int32Array(cap);
    const val = new Float64Array(cap);
    let k = 0;
    for (let j = 0, c = from; j < n; j++) {
      start[j] = k;
      let p = rows.start[j]!;
      const end = rows.start[j + 1]!;
      for (; c < t && at[c]! < b * nn + (j + 1) * n; c++) {
        const i = at[c]! - b * nn - j * n;
        while (p < end && rows.col[p]! < i) {
          col[k] = rows.col[p]!;
          val[k++] = rows.val[p++]!;
        }
        if (p < end && rows.col[p] === i) p++;
        if (value[c] !== 0) {
          col[k] = i;
          val[k++] = value[c]!;
        }
      }
      col.set(rows.col.subarray(p, end), k);
      val.set(rows.val.subarray(p, end), k);
      k += end - p;
    }
    start[n] = k;
    return { start, col, val };
  }) as unknown as HostEdgeRows['blocks'];
  const active: number[] = [];
  for (let j = 0; j < n; j++) if (blocks.some((r) => r.start[j + 1]! > r.start[j]!)) active.push(j);
  return { blocks, active: Int32Array.from(active), kept: new Int32Array(0) };
}

/** Whether two index lists are equal entry by entry. */
function sameIndices(a: Int32Array, b: Int32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** The error of a non-finite quotient at node coordinate i. */
function notFinite(i: number, q: number): ArgumentError {
  return new ArgumentError(`reference-graph: consolidate(theta)[${i}]`, q, 'must be finite');
}

/**
 * The directional quotient (fp − fm)/den over the node block (exact zeros dropped) plus v's edge
 * entries (Q copies them), ascending: the node quotients come first (every node index is below
 * every edge index); v's own order is used when it is ascending, else `acc` sorts.
 */
function directionalQuotient(
  fp: Float64Array,
  fm: Float64Array,
  den: number,
  v: SparseVector,
  nodeLen: number,
  acc: SparseAccumulator,
): SparseVector {
  let ascending = true;
  for (let k = 1; k < v.index.length && ascending; k++) ascending = v.index[k]! > v.index[k - 1]!;
  if (!ascending) {
    for (let i = 0; i < fp.length; i++) {
      if (fp[i] === fm[i]) continue;
      const q = (fp[i]! - fm[i]!) / den;
      if (!Number.isFinite(q)) throw notFinite(i, q);
      acc.addEntry(i, q);
    }
    for (let k = 0; k < v.index.length; k++) if (v.index[k]! >= nodeLen) acc.addEntry(v.index[k]!, v.value[k]!);
    return acc.take();
  }
  // v's indices ascending (the usual form): the accumulator's sum without its O(nnz log nnz) sort
  let nnz = 0;
  for (let i = 0; i < fp.length; i++) if (fp[i] !== fm[i] && (fp[i]! - fm[i]!) / den !== 0) nnz++;
  let firstEdge = 0;
  while (firstEdge < v.index.length && v.index[firstEdge]! < nodeLen) firstEdge++;
  let edgeNnz = 0;
  for (let k = firstEdge; k < v.index.length; k++) if (v.value[k] !== 0) edgeNnz++;
  nnz += edgeNnz;
  const index = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  let at = 0;
  for (let i = 0; i < fp.length; i++) {
    if (fp[i] === fm[i]) continue;
    const q = (fp[i]! - fm[i]!) / den;
    if (!Number.isFinite(q)) throw notFinite(i, q);
    if (q === 0) continue; // an underflowed quotient: the accumulator drops it too
    index[at] = i;
    value[at++] = q;
  }
  if (edgeNnz === v.index.length - firstEdge) {
    // no zero among v's edge entries (a long direction's usual case): copied as blocks
    index.set(v.index.subarray(firstEdge), at);
    value.set(v.value.subarray(firstEdge), at);
  } else
    for (let k = firstEdge; k < v.index.length; k++)
      if (v.value[k] !== 0) {
        index[at] = v.index[k]!;
        value[at++] = v.value[k]!;
      }
  return { dim: v.dim, index, value };
}

/**
 * DQ(x) for the reference graph (see the module comment). It holds its wasm blocks (the node
 * block, the structure sums at x, the edge blocks by rows, scratch; O((k+1)·Nmax + nnz), not d)
 * from its first column on; {@link GraphConsolidateJacobian.release} frees them, and so does
 * `[Symbol.dispose]()`, so `using J = new GraphConsolidateJacobian(scenario, x)` frees them when
 * the enclosing block ends, however it ends. A method that throws has freed them already (and
 * left no shifted coordinate behind): the operator stays usable and re-creates them on demand.
 * @throws {ArgumentError} x of the wrong length or not finite; wasm not initialised.
 * @example
 * ```ts
 * await init();
 * using J = new GraphConsolidateJacobian(system.scenario, theta);
 * J.column(0); // DQ e_0 (sparse); the blocks are freed at the end of the block
 * ```
 */
export class GraphConsolidateJacobian extends CachedJacobian<'fd'> {
  readonly #scenario: Scenario;
  /** x's node block (own copy). */
  readonly #node: Float64Array;
  /** An array of length d holding x's edge weights except at #patch (shared between operators near each other). */
  readonly #edges: Float64Array;
  /** x's edge weights where they differ from #edges, by coordinate. */
  readonly #patch: ReadonlyMap<number, number>;
  readonly #nodeLen: number;
  /** x's edge non-zeros by rows: what the columns pass over. */
  #host: ReturnType<typeof edgeRowsOf> | undefined;
  /** The edge entries the wide rows store even where x is 0 (directions moved them), by edge-block coordinate. */
  #keep: Uint8Array | undefined;
  /** x's edges by rows with the entries #keep marks: what a direction moving a zero of x passes over. */
  #wideHost: ReturnType<typeof edgeRowsOf> | undefined;
  #res: { blocks: ResidentBlocks; value: Resident } | undefined;
  #denseRes: { blocks: ResidentBlocks; value: DenseResident } | undefined;
  #wideRes: { blocks: ResidentBlocks; value: Resident } | undefined;
  /** The last direction's edge positions (a power iteration asks for the same entries step after step). */
  #lastFound: { index: Int32Array; host: HostEdgeRows; at: Int32Array } | undefined;
  /** Accumulates a directional difference's quotients. */
  #colAcc: SparseAccumulator | undefined;

  /**
   * @param x the point (length d, finite; copied)
   * @param near internal ({@link GraphConsolidateJacobian.near}): the point as another operator's
   *   array with a patch, and its rows; `x` is then that array and is not copied
   */
  constructor(scenario: Scenario, x: ArrayLike<number>, near?: NearPoint) {
    const d = scenario.layout.dim;
    if (x.length !== d) throw new ArgumentError('x', x, `must have length ${d}`);
    super(d, d, 'fd', FD_RELATIVE_ACCURACY);
    this.#scenario = scenario;
    this.#nodeLen = scenario.shape.edgeOffset;
    if (near) {
      this.#node = near.node;
      this.#edges = near.edges;
      this.#patch = near.patch;
      this.#host = near.host;
    } else {
      const x0 = finiteCopy('x', x);
      this.#node = x0.subarray(0, this.#nodeLen);
      this.#edges = x0;
      this.#patch = new Map();
    }
  }

  /** x_j. */
  #xAt(j: number): number {
    return j < this.#nodeLen ? this.#node[j]! : (this.#patch.get(j) ?? this.#edges[j]!);
  }

  /** x at v's entries, in v's order. */
  #gather(v: SparseVector): Float64Array {
    const out = new Float64Array(v.index.length);
    const [node, edges, patch, nodeLen] = [this.#node, this.#edges, this.#patch, this.#nodeLen];
    for (let k = 0; k < out.length; k++) {
      const j = v.index[k]!;
      out[k] = j < nodeLen ? node[j]! : patch.size > 0 ? (patch.get(j) ?? edges[j]!) : edges[j]!;
    }
    return out;
  }

  /** x as one array (a d-copy when x is held as a patch). */
  #dense(): Float64Array {
    if (this.#patch.size === 0 && this.#edges.buffer === this.#node.buffer) return this.#edges;
    const x = new Float64Array(this.#edges);
    x.set(this.#node);
    for (const [j, w] of this.#patch) x[j] = w;
    return x;
  }

  /** The rows of x's non-zero edges (an operator made by `near` has them from the start). */
  #narrowHost(): HostEdgeRows {
    return (this.#host ??= edgeRowsOf(this.#dense(), this.#scenario.shape));
  }

  /**
   * DQ at this operator's point with the coordinates `index` (ascending) set to `value`: the
   * same operator as `new GraphConsolidateJacobian(scenario, x)` at that point, bit for bit
   * (tested), built from this one's: the rows of the edges are this operator's with the changed
   * entries merged in (O(Nmax + nnz) instead of the O(Nmax²) scan of a dense point) and the
   * point is held as this one's array plus the change (O(node block + changes), no d-copy). How
   * the certification makes DQ(P_e(θ)) of every evidence item from DQ(θ): P_e writes its
   * footprint only.
   * @throws {ArgumentError} lengths that differ, an index out of range or not ascending, a
   *   value not finite.
   */
  near(index: Int32Array, value: Float64Array): GraphConsolidateJacobian {
    if (value.length !== index.length)
      throw new ArgumentError('value', value, `must have one entry per index (${index.length})`);
    const nodeLen = this.#nodeLen;
    const node = Float64Array.from(this.#node);
    const patch = new Map(this.#patch);
    const edgeAt: number[] = [];
    const edgeValue: number[] = [];
    for (let k = 0; k < index.length; k++) {
      const j = index[k]!;
      if (!(Number.isInteger(j) && j >= 0 && j < this.dim && (k === 0 || j > index[k - 1]!)))
        throw new ArgumentError(`index[${k}]`, j, `must be an index in [0, ${this.dim}), ascending`);
      const w = value[k]!;
      if (!Number.isFinite(w)) throw new ArgumentError(`x[${j}]`, w, 'must be finite');
      if (j < nodeLen) node[j] = w;
      else {
        patch.set(j, w);
        edgeAt.push(j - nodeLen);
        edgeValue.push(w);
      }
    }
    const host = patchedRows(
      this.#narrowHost(),
      Int32Array.from(edgeAt),
      Float64Array.from(edgeValue),
      this.#scenario.shape.nmax,
    );
    return new GraphConsolidateJacobian(this.#scenario, this.#edges, { node, edges: this.#edges, patch, host });
  }

  /**
   * The resident blocks on x's non-zeros, or (`wide`) on the wide rows, created on first use; if
   * an allocation fails, the earlier ones are freed. The two storages give the same sums bit for
   * bit (a stored zero is skipped like an absent entry); the columns keep to the narrow one, whose
   * passes cost O(Nmax + nnz(x)) whatever a long direction stored before.
   */
  #resident(wide = false): Resident {
    const held = wide ? this.#wideRes : this.#res;
    if (held) return held.value;
    const { shape, params } = this.#scenario;
    const host = wide ? this.#wideHost! : this.#narrowHost();
    const claimsLen = Math.max(1, shape.claims * (shape.k + 1));
    const made = residentBlocks((a) => ({
      q: new WasmConsolidation(a, shape, params),
      rows: new WasmEdgeRows(a, host, shape.nmax),
      node: a.from(this.#node),
      sums0: a.alloc(7 * shape.nmax),
      cp: a.alloc(shape.nmax),
      cm: a.alloc(shape.nmax),
      ap: a.alloc(claimsLen),
      am: a.alloc(claimsLen),
      mrows: a.allocI32(Math.max(1, shape.claims)),
      idx: a.allocI32(this.#nodeLen),
      val: a.alloc(this.#nodeLen),
    }));
    if (wide) this.#wideRes = made;
    else this.#res = made;
    const r = made.value;
    r.q.readConfidences(this.#node);
    r.q.structureSums(r.rows, r.sums0);
    return r;
  }

  /**
   * The edge entries a column's passes visit: x's non-zero edge weights, whatever long
   * directions stored besides (those go to the wide rows). O(Nmax²) on first use.
   */
  get columnEdgeEntries(): number {
    return this.#narrowHost().blocks.reduce((sum, b) => sum + b.start[b.start.length - 1]!, 0);
  }

  /** Confidence-weighted sums and the belief update into `out` (n), from the structure sums `sums`. */
  #beliefs(r: Resident, sums: F64Block, override: EdgeOverride | undefined, out: F64Block): void {
    r.q.weightedSums(r.rows, sums, override);
    r.q.confidenceUpdate(sums, out);
  }

  /**
   * The claims' attributes after the merge into `out` (node layout), from the resident node
   * block: every row, or only the first `rows` rows listed in r.mrows (the others are left at
   * the unmerged values, identical at both points of a column).
   */
  #merge(r: Resident, sums: F64Block, out: F64Block, rows?: number): void {
    const { shape } = this.#scenario;
    const len = shape.claims * (shape.k + 1);
    if (len === 0) return;
    out.view.set(r.node.view.subarray(0, len));
    if (rows === undefined) r.q.mergeClaims(r.node, sums, out);
    else r.q.mergeClaims(r.node, sums, out, r.mrows, rows);
  }

  /**
   * The claim rows whose merge a shift of claim `slot`'s attribute to p or m can change: the
   * slot itself and every present claim within the merge radius of it at either point (a
   * superset by a relative 1e-9 on the radius: a listed row that does not change costs only
   * time). Writes them to r.mrows and returns their count; 0 when the slot is absent (its gate
   * S_ii = 0 keeps it out of every merge).
   */
  #mergeRows(r: Resident, j: number, slot: number, p: number, m: number): number {
    const { shape, params } = this.#scenario;
    const k1 = shape.k + 1;
    const limit = params.mergeRadius * params.mergeRadius * (1 + 1e-9);
    // the sums' first n values are S_ii; r.node is the node block (its entry j not yet shifted)
    return graphKernels().graphMergeRows(
      r.node.ptr,
      k1,
      shape.claims,
      shape.mergeDims,
      r.sums0.ptr,
      slot,
      j - slot * k1,
      p,
      m,
      limit,
      r.mrows.ptr,
    );
  }

  /** Sparse quotients of the node block (confidences cp/cm, and attributes ap/am when asked). */
  #quotient(r: Resident, cp: F64Block, cm: F64Block, withAttr: boolean, den: number, extra?: number): SparseVector {
    const { shape } = this.#scenario;
    const k1 = shape.k + 1;
    const nnz = graphKernels().graphNodeQuotient(
      shape.nmax,
      k1,
      shape.claims,
      cp.ptr,
      cm.ptr,
      r.ap.ptr,
      r.am.ptr,
      withAttr ? 1 : 0,
      den,
      r.idx.ptr,
      r.val.ptr,
    );
    if (nnz < 0) {
      const i = -nnz - 1;
      const slot = Math.floor(i / k1);
      const [a, b] = i % k1 === shape.k ? [cp.view[slot]!, cm.view[slot]!] : [r.ap.view[i]!, r.am.view[i]!];
      throw notFinite(i, (a - b) / den);
    }
    const len = nnz + (extra === undefined ? 0 : 1);
    const index = new Int32Array(len);
    const value = new Float64Array(len);
    index.set(r.idx.view.subarray(0, nnz));
    value.set(r.val.view.subarray(0, nnz));
    if (extra !== undefined) {
      index[nnz] = extra; // an edge coordinate: after every node index
      value[nnz] = 1;
    }
    return { dim: this.dim, index, value };
  }

  /** Column j by the stages e_j can change (module comment). */
  protected computeColumn(j: number): SparseVector {
    const r = this.#resident();
    const { shape } = this.#scenario;
    const n = shape.nmax;
    const k1 = shape.k + 1;
    const xj = this.#xAt(j);
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    const den = p - m;
    this.stats.evaluations += 2;
    if (j >= this.#nodeLen) {
      const e = j - this.#nodeLen;
      const block = Math.floor(e / (n * n));
      const row = Math.floor((e - block * n * n) / n);
      const col = e - block * n * n - row * n;
      const diagonal = block === 0 && row === col; // S_jj gates the merge too
      for (const [value, cOut, aOut] of [
        [p, r.cp, r.ap],
        [m, r.cm, r.am],
      ] as const) {
        const override = { block, row, col, value };
        r.q.structureSums(r.rows, r.q.sums, override);
        this.#beliefs(r, r.q.sums, override, cOut);
        if (diagonal) this.#merge(r, r.q.sums, aOut);
      }
      // the identity entry of Q's copy of θ_j: (p − m)/(p − m), exactly 1
      return this.#quotient(r, r.cp, r.cm, diagonal, den, j);
    }
    const slot = Math.floor(j / k1);
    if (j % k1 === shape.k) {
      const c = r.q.c.view;
      c[slot] = p;
      this.#beliefs(r, r.sums0, undefined, r.cp);
      r.q.c.view[slot] = m;
      this.#beliefs(r, r.sums0, undefined, r.cm);
      r.q.c.view[slot] = xj;
      return this.#quotient(r, r.cp, r.cm, false, den);
    }
    const rows = slot < shape.claims && j % k1 < shape.mergeDims ? this.#mergeRows(r, j, slot, p, m) : 0;
    if (rows === 0) {
      // an attribute no merge reads (an answer's or question's, the source code, an absent
      // claim's): Q copies it, so the column is e_j with the quotient (p − m)/(p − m) = 1
      return { dim: this.dim, index: Int32Array.of(j), value: Float64Array.of(den / den) };
    }
    r.node.view[j] = p;
    this.#merge(r, r.sums0, r.ap, rows);
    r.node.view[j] = m;
    this.#merge(r, r.sums0, r.am, rows);
    r.node.view[j] = xj;
    return this.#quotient(r, r.q.c, r.q.c, true, den);
  }

  /**
   * The resident blocks with every edge entry v moves stored in the rows: x's non-zeros when
   * they hold them all, else the wide rows (a zero of x stored as such, which the passes skip as
   * they skip an absent entry), rebuilt, once, when v moves an edge they do not store either.
   * Returns v's edge entries as (block, position in that block's values) pairs, in v's order.
   */
  #residentFor(v: SparseVector): { r: Resident; at: Int32Array } {
    const last = this.#lastFound;
    if (last && sameIndices(last.index, v.index)) {
      if (last.host === this.#host) return { r: this.#resident(), at: last.at };
      if (last.host === this.#wideHost) return { r: this.#resident(true), at: last.at };
    }
    const { shape } = this.#scenario;
    const n = shape.nmax;
    const nn = n * n;
    const at = new Int32Array(2 * v.index.length).fill(-1);
    // the positions of v's edge entries in `host`; false at the first one it does not store
    const find = (host: ReturnType<typeof edgeRowsOf>): boolean => {
      for (let k = 0; k < v.index.length; k++) {
        const e = v.index[k]! - this.#nodeLen;
        if (e < 0) continue;
        const b = Math.floor(e / nn);
        const row = Math.floor((e - b * nn) / n);
        const rows = host.blocks[b]!;
        const s0 = rows.start[row]!;
        const s1 = rows.start[row + 1]!;
        const c = e - b * nn - row * n;
        // a row that stores all n entries (wide rows of a direction along whole rows) is
        // indexed directly; else the column is searched for in the row's ascending run
        const p = s1 - s0 === n ? s0 + c : runPosition(rows.col, s0, s1, c);
        if (p < 0) return false;
        at[2 * k] = b;
        at[2 * k + 1] = p;
      }
      return true;
    };
    if (find(this.#narrowHost())) {
      this.#lastFound = { index: v.index.slice(), host: this.#host!, at };
      return { r: this.#resident(), at };
    }
    if (!this.#wideHost || !find(this.#wideHost)) {
      const keep = (this.#keep ??= new Uint8Array(3 * nn));
      for (let k = 0; k < v.index.length; k++) if (v.index[k]! >= this.#nodeLen) keep[v.index[k]! - this.#nodeLen] = 1;
      this.#wideRes?.blocks.free();
      this.#wideRes = undefined;
      this.#wideHost = edgeRowsOf(this.#dense(), shape, keep);
      find(this.#wideHost);
    }
    this.#lastFound = { index: v.index.slice(), host: this.#wideHost, at };
    return { r: this.#resident(true), at };
  }

  /**
   * The claim rows whose merge can differ between x + t·v and x − t·v: the claims whose merged
   * attributes or Supports diagonal v moves, and every claim within the merge radius of one of
   * them at either point (a superset by a relative 1e-9 on the radius). Every other row reads
   * the same values at both points, so its merge is the same there and its quotient exactly 0.
   * Writes them to r.mrows and returns their count.
   */
  #directionRows(r: Resident, v: SparseVector, t: number): number {
    const { shape, params } = this.#scenario;
    const k1 = shape.k + 1;
    const md = shape.mergeDims;
    const n = shape.nmax;
    const moved = new Set<number>();
    for (let k = 0; k < v.index.length; k++) {
      const j = v.index[k]!;
      if (j < this.#nodeLen) {
        if (Math.floor(j / k1) < shape.claims && j % k1 < md) moved.add(Math.floor(j / k1));
      } else {
        const e = j - this.#nodeLen;
        if (e < n * n && Math.floor(e / n) === e % n && e % n < shape.claims) moved.add(e % n);
      }
    }
    const rows = r.mrows.view;
    let count = 0;
    if (moved.size === 0) return 0;
    const x = this.#node; // attributes: node coordinates
    const shift = new Float64Array(shape.claims * md);
    for (let k = 0; k < v.index.length; k++) {
      const j = v.index[k]!;
      if (j < this.#nodeLen && Math.floor(j / k1) < shape.claims && j % k1 < md)
        shift[Math.floor(j / k1) * md + (j % k1)] = t * v.value[k]!;
    }
    const limit = params.mergeRadius * params.mergeRadius * (1 + 1e-9);
    for (let i = 0; i < shape.claims; i++) {
      let near = moved.has(i);
      for (const s of moved) {
        if (near) break;
        let rp = 0;
        let rm = 0;
        for (let u = 0; u < md; u++) {
          const d = x[s * k1 + u]! - x[i * k1 + u]!;
          const dv = shift[s * md + u]! - shift[i * md + u]!;
          rp += (d + dv) * (d + dv);
          rm += (d - dv) * (d - dv);
        }
        near = rp < limit || rm < limit;
      }
      if (near) rows[count++] = i;
    }
    return count;
  }

  /**
   * Q's node block at x + s·v by Q's stages on the resident blocks, v's entries written in and
   * put back after: the confidences from every stage, the merge for `rows` claim rows only (the
   * others are the same at both points of the difference, {@link #directionRows}).
   */
  #shifted(r: Resident, v: SparseVector, xv: Float64Array, at: Int32Array, s: number, rows: number): Float64Array {
    const { shape } = this.#scenario;
    const k1 = shape.k + 1;
    const nodeLen = this.#nodeLen;
    const write = (shift: boolean) => {
      // the views once per pass, not per entry: a long direction writes millions of entries,
      // and each `view` read checks the arena's buffer
      const node = r.node.view;
      const vals = [r.rows.vals[0].view, r.rows.vals[1].view, r.rows.vals[2].view];
      for (let k = 0; k < v.index.length; k++) {
        const j = v.index[k]!;
        const value = shift ? xv[k]! + s * v.value[k]! : xv[k]!;
        if (j < nodeLen) node[j] = value;
        else vals[at[2 * k]!]![at[2 * k + 1]!] = value;
      }
    };
    write(true);
    try {
      r.q.readConfidences(r.node.view);
      r.q.structureSums(r.rows, r.q.sums);
      this.#beliefs(r, r.q.sums, undefined, r.cp);
      if (rows > 0) this.#merge(r, r.q.sums, r.ap, rows);
      const out = Float64Array.from(r.node.view);
      if (rows > 0) out.set(r.ap.view.subarray(0, shape.claims * k1));
      const c = r.cp.view;
      for (let sl = 0; sl < shape.nmax; sl++) out[sl * k1 + shape.k] = c[sl]!;
      return out;
    } finally {
      write(false);
      r.q.readConfidences(this.#node);
    }
  }

  /**
   * Whether v moves at least Nmax² edge entries (a third of the edge block), more than x's
   * non-zero rows hold: its evaluations then run Q's dense passes on x held whole in wasm
   * ({@link applyDense}) instead of rows widened to v's entries. Rows holding that many
   * entries cost about what the dense passes cost per evaluation (a dense pass skips a zero at
   * one load and compare; every entry a row stores costs a column load besides), and widening
   * them costs an O(Nmax²) scan on the host and 12 bytes per entry: the whole-space power steps
   * at Nmax 1024 spent 0.5 s building them and ~0.2 s per evaluation writing v into them.
   */
  #movesManyEdges(v: SparseVector): boolean {
    const n = this.#scenario.shape.nmax;
    // v's indices increase strictly: the edge entries are those from the first index >= nodeLen
    // (a wrong count would only choose the other path, which gives the same values bit for bit)
    let lo = 0;
    let hi = v.index.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v.index[mid]! < this.#nodeLen) lo = mid + 1;
      else hi = mid;
    }
    const edges = v.index.length - lo;
    if (edges < n * n) return false;
    return edges > this.columnEdgeEntries;
  }

  /** x whole in wasm and Q's work arrays, created on first use (freed by `release`). */
  #denseResident(): DenseResident {
    if (this.#denseRes) return this.#denseRes.value;
    const { shape, params } = this.#scenario;
    const x = this.#dense();
    this.#denseRes = residentBlocks((a) => ({
      q: new WasmConsolidation(a, shape, params),
      theta: a.from(x),
      x: a.from(x),
      v: a.alloc(this.dim),
      fp: a.alloc(this.#nodeLen),
      fm: a.alloc(this.#nodeLen),
      scales: a.alloc(2),
    }));
    return this.#denseRes.value;
  }

  /**
   * J v for a dense v (length d) by one directional difference: the full wasm Q
   * (`wasmConsolidateNodeBlock`'s stages: every pass dense, every claim merged) at x ± t·v on x
   * held whole in wasm, v's non-zeros written in for each point and put back after. The values
   * are `apply`'s for v's non-zeros as a long direction, densified, bit for bit (tested): the
   * step and the taken step read v's non-zeros only, Q copies v's edge entries. How the
   * whole-space power steps of the certification's global scale run (every coordinate moves):
   * three passes over v and no sparse vectors of length d.
   * @param out where to write J v (length d, not overlapping v), else a new array; after a
   *   throw its contents are unspecified
   * @throws {ArgumentError} v or out of the wrong length, out aliasing v; a quotient not finite
   *   (the blocks are freed).
   */
  applyDense(v: Float64Array, out?: Float64Array): Float64Array {
    if (v.length !== this.dim) throw new ArgumentError('v', v, `must have length ${this.dim}`);
    if (out !== undefined && out.length !== this.dim)
      throw new ArgumentError('out', out, `must have length ${this.dim}`);
    if (
      out !== undefined &&
      out.buffer === v.buffer &&
      out.byteOffset < v.byteOffset + v.byteLength &&
      v.byteOffset < out.byteOffset + out.byteLength
    )
      throw new ArgumentError('out', 'v', 'must not overlap v');
    try {
      return this.#denseApply(v, out ?? new Float64Array(this.dim));
    } catch (e) {
      this.release();
      throw e;
    }
  }

  /**
   * {@link applyDense} into `out` without the checks (the long directions that move many edges
   * run it too). Every pass over the d coordinates is a wasm kernel (assembly/graph/direction.ts:
   * the loops of `directionalStepGathered` and `takenStepGathered` on (x, v), the same values),
   * with v copied in and J v's edge part copied out as blocks.
   */
  #denseApply(v: Float64Array, out: Float64Array): Float64Array {
    const d = this.dim;
    const nodeLen = this.#nodeLen;
    const k = graphKernels();
    const r = this.#denseResident();
    r.v.view.set(v);
    k.graphDirectionPositiveZeros(r.v.ptr, d); // a −0 of v: neither moved nor copied into J v
    k.graphDirectionScales(r.x.ptr, r.v.ptr, d, r.scales.ptr);
    const t = directionalStepOfScales(r.scales.view[0]!, r.scales.view[1]!);
    const edges = denseWasmEdges(r.theta, nodeLen);
    try {
      // the second point overwrites the first's entries
      k.graphDirectionShift(r.theta.ptr, r.x.ptr, r.v.ptr, d, t);
      r.q.consolidateNodes(r.theta, edges, r.fp);
      k.graphDirectionShift(r.theta.ptr, r.x.ptr, r.v.ptr, d, -t);
      r.q.consolidateNodes(r.theta, edges, r.fm);
    } finally {
      k.graphDirectionRestore(r.theta.ptr, r.x.ptr, r.v.ptr, d);
    }
    this.stats.evaluations += 2;
    this.stats.directional++;
    const den = k.graphDirectionTakenStep(r.x.ptr, r.v.ptr, d, t);
    const [fp, fm] = [r.fp.view, r.fm.view];
    for (let i = 0; i < nodeLen; i++) {
      out[i] = 0;
      if (fp[i] === fm[i]) continue;
      const q = (fp[i]! - fm[i]!) / den;
      if (!Number.isFinite(q)) throw notFinite(i, q);
      if (q !== 0) out[i] = q; // an underflowed quotient: dropped, as the sparse form drops it
    }
    out.set(r.v.view.subarray(nodeLen), nodeLen); // Q copies the edge block
    return out;
  }

  /**
   * One directional difference along v: Q at x ± t·v, bit for bit the two full evaluations of
   * the wasm Q (`wasmConsolidateNodeBlock`) on those points, by the stages on the resident
   * blocks: the passes over the stored edges (O(Nmax + nnz), not the dense Nmax² blocks) and
   * the merge of the claim rows v can change.
   */
  protected override directional(v: SparseVector): SparseVector {
    if (this.#movesManyEdges(v)) {
      const dense = new Float64Array(this.dim);
      for (let k = 0; k < v.index.length; k++) dense[v.index[k]!] = v.value[k]!;
      return sparseFromDense(this.#denseApply(dense, new Float64Array(this.dim)));
    }
    const xv = this.#gather(v);
    const t = directionalStepGathered(xv, v.value);
    const { r, at } = this.#residentFor(v);
    const rows = this.#directionRows(r, v, t);
    const fp = this.#shifted(r, v, xv, at, t, rows);
    const fm = this.#shifted(r, v, xv, at, -t, rows);
    this.stats.evaluations += 2;
    this.stats.directional++;
    const acc = (this.#colAcc ??= new SparseAccumulator(this.dim));
    return directionalQuotient(fp, fm, takenStepGathered(xv, v.value, t), v, this.#nodeLen, acc);
  }

  /** Frees the wasm blocks (the operator can still be used: they are re-created on demand). */
  protected override releaseResources(): void {
    this.#colAcc = undefined; // may hold a partial sum when a quotient was not finite
    this.#res?.blocks.free();
    this.#res = undefined;
    this.#denseRes?.blocks.free();
    this.#denseRes = undefined;
    this.#wideRes?.blocks.free();
    this.#wideRes = undefined;
  }
}
