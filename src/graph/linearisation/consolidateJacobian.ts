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
 *   (stored by rows once at x, the perturbed entry overridden; assembly/graph/rows.ts), not over
 *   the dense Nmax² blocks; the merge only for a Supports diagonal entry.
 * A skipped stage would compute bit-identical values at x + h·e_j and x − h·e_j, whose quotient
 * is exactly 0 and dropped; the passes over the non-zeros visit them in the dense passes' order.
 * So every column is bit for bit the quotient of two full evaluations of the wasm Q
 * ({@link wasmConsolidateNodeBlock}) — tested — at O(Nmax + nnz) per confidence or edge column
 * instead of O(Nmax²). Same step and accuracy as {@link FdJacobian}.
 */
import { groupTables, packParams, wasmConsolidateNodeBlock, type GraphKernels } from '../operators/backend.js';
import type { Scenario } from '../scenarios/scenario.js';
import { centralStep, directionalStep, finiteCopy, takenStep } from '../../linearize/finiteDifference.js';
import { FD_RELATIVE_ACCURACY, type JacobianOperator, type JacobianStats } from '../../linearize/operator.js';
import { SparseAccumulator, type SparseVector } from '../../linearize/sparse.js';
import { ArgumentError } from '../../util/errors.js';
import type { ArenaBlock, F64Block, I32Block } from '../../wasm/arena.js';
import { wasm, type KernelExports } from '../../wasm/module.js';

/** The kernels a column needs. */
type ColumnKernels = GraphKernels & Pick<KernelExports, 'gcsrsums' | 'gcsrweighted' | 'gqquotient' | 'gqmergeRows'>;

/** One edge block's non-zeros by rows (row starts n+1, columns, values), row-major. */
interface Rows {
  start: Int32Array;
  col: Int32Array;
  val: Float64Array;
}

/** Block b of x's edge blocks by rows (exact zeros dropped, as the dense passes skip them). */
function rowsOf(x: Float64Array, eoff: number, n: number, b: number): Rows {
  const base = eoff + b * n * n;
  const end = base + n * n;
  let nnz = 0;
  for (let i = base; i < end; i++) if (x[i] !== 0) nnz++;
  const start = new Int32Array(n + 1);
  const col = new Int32Array(nnz);
  const val = new Float64Array(nnz);
  let k = 0;
  for (let j = 0; j < n; j++) {
    start[j] = k;
    const o = base + j * n;
    for (let i = 0; i < n; i++) {
      const w = x[o + i]!;
      if (w !== 0) {
        col[k] = i;
        val[k++] = w;
      }
    }
  }
  start[n] = k;
  return { start, col, val };
}

/** The wasm blocks of one operator (all freed together). */
interface Resident {
  all: ArenaBlock[];
  /** The node block of x (the merge reads attributes from here; attribute columns shift it). */
  node: F64Block;
  /** Confidences of x (confidence columns shift them). */
  c: F64Block;
  /** Structure sums at x; work sums for edge columns. */
  sums0: F64Block;
  sums: F64Block;
  ws: F64Block;
  cp: F64Block;
  cm: F64Block;
  /** Merged claim attributes at the two points (node layout, claims·(k+1)). */
  ap: F64Block;
  am: F64Block;
  scratch: F64Block;
  pull: F64Block;
  params: F64Block;
  gstart: I32Block;
  gans: I32Block;
  qgroup: I32Block;
  /** Pointers of the three blocks' row arrays (9 i32), for the kernels. */
  csr: I32Block;
  /** The rows with an entry in some block, ascending. */
  active: I32Block;
  nactive: number;
  rc: I32Block;
  rv: F64Block;
  /** Claim rows an attribute column re-merges. */
  mrows: I32Block;
  idx: I32Block;
  val: F64Block;
}

/**
 * DQ(x) for the reference graph (see the module comment). It holds its wasm blocks (the node
 * block, the structure sums at x, the edge blocks by rows, scratch; O((k+1)·Nmax + nnz), not d)
 * from its first column on; {@link release} frees them, and so does `[Symbol.dispose]()`, so
 * `using J = new GraphConsolidateJacobian(scenario, x)` frees them when the enclosing block
 * ends, however it ends. A method that throws has freed them already (and left no shifted
 * coordinate behind): the operator stays usable and re-creates them on demand.
 * @throws {ArgumentError} x of the wrong length or not finite; wasm not initialised.
 * @example
 * ```ts
 * await init();
 * using J = new GraphConsolidateJacobian(system.scenario, theta);
 * J.column(0); // DQ e_0 (sparse); the blocks are freed at the end of the block
 * ```
 */
export class GraphConsolidateJacobian implements JacobianOperator, Disposable {
  readonly method = 'fd' as const;
  readonly relativeAccuracy = FD_RELATIVE_ACCURACY;
  readonly dim: number;
  readonly outDim: number;
  readonly stats: JacobianStats = { evaluations: 0, columns: 0, directional: 0 };
  readonly #scenario: Scenario;
  readonly #x: Float64Array;
  readonly #nodeLen: number;
  readonly #cache = new Map<number, SparseVector>();
  #rows: Rows[] | undefined;
  #res: Resident | undefined;
  /** Accumulates apply()'s sums. */
  #acc: SparseAccumulator | undefined;
  /** Accumulates a directional difference's quotients (not #acc: apply() calls column() mid-sum). */
  #colAcc: SparseAccumulator | undefined;

  constructor(scenario: Scenario, x: ArrayLike<number>) {
    this.#scenario = scenario;
    if (x.length !== scenario.layout.dim) throw new ArgumentError('x', x, `must have length ${scenario.layout.dim}`);
    this.#x = finiteCopy('x', x);
    this.dim = this.#x.length;
    this.outDim = this.dim;
    this.#nodeLen = scenario.shape.edgeOffset;
  }

  /** The resident blocks, created on first use; if an allocation fails, the earlier ones are freed. */
  #resident(): Resident {
    if (this.#res) return this.#res;
    const { shape, params } = this.#scenario;
    const n = shape.nmax;
    const k1 = shape.k + 1;
    const x = this.#x;
    this.#rows ??= [0, 1, 2].map((b) => rowsOf(x, shape.edgeOffset, n, b));
    const { arena } = wasm();
    const all: ArenaBlock[] = [];
    const keep = <B extends ArenaBlock>(b: B): B => {
      all.push(b);
      return b;
    };
    try {
      const tables = groupTables(shape);
      const rows3 = this.#rows;
      const active = Array.from({ length: n }, (_, j) => j).filter((j) =>
        rows3.some((r) => r.start[j + 1]! > r.start[j]!),
      );
      const rowBlocks = this.#rows.flatMap((r) => [
        keep(arena.fromI32(r.start)),
        keep(arena.fromI32(r.col.length ? r.col : [0])),
        keep(arena.from(r.val.length ? r.val : [0])),
      ]);
      const res: Resident = {
        all,
        node: keep(arena.from(x.subarray(0, this.#nodeLen))),
        c: keep(arena.from(Float64Array.from({ length: n }, (_, sl) => x[sl * k1 + shape.k]!))),
        sums0: keep(arena.alloc(7 * n)),
        sums: keep(arena.alloc(7 * n)),
        ws: keep(arena.alloc(3 * n)),
        cp: keep(arena.alloc(n)),
        cm: keep(arena.alloc(n)),
        ap: keep(arena.alloc(Math.max(1, shape.claims * k1))),
        am: keep(arena.alloc(Math.max(1, shape.claims * k1))),
        scratch: keep(arena.alloc(n + 4 * shape.maxAnswersPerQuestion + 1)),
        pull: keep(arena.alloc(Math.max(1, shape.mergeDims))),
        params: keep(arena.from(packParams(params))),
        gstart: keep(arena.fromI32(tables.gstart)),
        gans: keep(arena.fromI32(tables.gans.length ? tables.gans : [0])),
        qgroup: keep(arena.fromI32(tables.qgroup.length ? tables.qgroup : [0])),
        csr: keep(arena.fromI32(rowBlocks.map((b) => b.ptr))),
        active: keep(arena.fromI32(active.length ? active : [0])),
        nactive: active.length,
        rc: keep(arena.allocI32(n)),
        rv: keep(arena.alloc(n)),
        mrows: keep(arena.allocI32(Math.max(1, shape.claims))),
        idx: keep(arena.allocI32(this.#nodeLen)),
        val: keep(arena.alloc(this.#nodeLen)),
      };
      const k = this.#kernels();
      k.gcsrsums(n, res.csr.ptr, res.active.ptr, res.nactive, -1, 0, 0, 0, res.rc.ptr, res.rv.ptr, res.sums0.ptr);
      this.#res = res;
      return res;
    } catch (e) {
      for (const b of all) if (!b.freed) arena.free(b);
      throw e;
    }
  }

  #kernels(): ColumnKernels {
    return wasm().exports;
  }

  /**
   * Runs `fn` on the resident blocks; if it throws, frees them (so an exception cannot leave
   * them allocated, nor a coordinate shifted: the next call re-creates them from x), drops the
   * accumulators (which may hold a partial sum) and rethrows.
   */
  #withResident<T>(fn: (r: Resident) => T): T {
    try {
      return fn(this.#resident());
    } catch (e) {
      this.#acc = undefined;
      this.#colAcc = undefined;
      this.release();
      throw e;
    }
  }

  /**
   * Confidence-weighted sums and the belief update into `out` (n), with `sums` the structure
   * sums and (ob, orow, ocol, oval) the overridden edge entry (ob = −1: none).
   */
  #beliefs(r: Resident, sums: F64Block, ob: number, orow: number, ocol: number, oval: number, out: F64Block): void {
    const { shape, params } = this.#scenario;
    const k = this.#kernels();
    const n = shape.nmax;
    k.gcsrweighted(
      n,
      r.csr.ptr,
      r.active.ptr,
      r.nactive,
      ob,
      orow,
      ocol,
      oval,
      r.rc.ptr,
      r.rv.ptr,
      r.c.ptr,
      sums.ptr,
      params.tauContradict,
      r.ws.ptr,
    );
    k.gqbelief(
      n,
      shape.claims,
      shape.firstQuestion,
      r.c.ptr,
      sums.ptr,
      r.ws.ptr,
      r.params.ptr,
      shape.groups.length,
      r.gstart.ptr,
      r.gans.ptr,
      r.qgroup.ptr,
      r.scratch.ptr,
      out.ptr,
    );
  }

  /**
   * The claims' attributes after the merge into `out` (node layout), from the resident node
   * block: every row, or only the first `rows` rows listed in r.mrows (the others are left at
   * the unmerged values, identical at both points of a column).
   */
  #merge(r: Resident, sums: F64Block, out: F64Block, rows?: number): void {
    const { shape, params } = this.#scenario;
    const len = shape.claims * (shape.k + 1);
    if (len === 0) return;
    out.view.set(r.node.view.subarray(0, len));
    const k = this.#kernels();
    const h2 = params.mergeRadius * params.mergeRadius;
    if (rows === undefined)
      k.gqmerge(
        r.node.ptr,
        shape.k + 1,
        shape.claims,
        shape.mergeDims,
        sums.ptr,
        params.mergeRate,
        h2,
        r.pull.ptr,
        out.ptr,
      );
    else
      k.gqmergeRows(
        r.node.ptr,
        shape.k + 1,
        shape.claims,
        shape.mergeDims,
        sums.ptr,
        params.mergeRate,
        h2,
        r.pull.ptr,
        out.ptr,
        r.mrows.ptr,
        rows,
      );
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
    const md = shape.mergeDims;
    const diag = r.sums0.view; // the first n values are S_ii
    if (diag[slot] === 0) return 0;
    const x = this.#x;
    const limit = params.mergeRadius * params.mergeRadius * (1 + 1e-9);
    const rows = r.mrows.view;
    let count = 0;
    rows[count++] = slot;
    const os = slot * k1;
    const u = j - os;
    for (let i = 0; i < shape.claims; i++) {
      if (i === slot || diag[i] === 0) continue;
      const oi = i * k1;
      let rp = 0;
      let rm = 0;
      for (let t = 0; t < md; t++) {
        const xi = x[oi + t]!;
        const dp = (t === u ? p : x[os + t]!) - xi;
        const dm = (t === u ? m : x[os + t]!) - xi;
        rp += dp * dp;
        rm += dm * dm;
      }
      if (rp < limit || rm < limit) rows[count++] = i;
    }
    return count;
  }

  /** Sparse quotients of the node block (confidences cp/cm, and attributes ap/am when asked). */
  #quotient(r: Resident, cp: F64Block, cm: F64Block, withAttr: boolean, den: number, extra?: number): SparseVector {
    const { shape } = this.#scenario;
    const nnz = this.#kernels().gqquotient(
      shape.nmax,
      shape.k + 1,
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
      const k1 = shape.k + 1;
      const slot = Math.floor(i / k1);
      const [a, b] = i % k1 === shape.k ? [cp.view[slot]!, cm.view[slot]!] : [r.ap.view[i]!, r.am.view[i]!];
      throw new ArgumentError(`reference-graph: consolidate(theta)[${i}]`, (a - b) / den, 'must be finite');
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
  #computeColumn(r: Resident, j: number): SparseVector {
    const { shape } = this.#scenario;
    const n = shape.nmax;
    const k1 = shape.k + 1;
    const xj = this.#x[j]!;
    const h = centralStep(xj);
    const p = xj + h;
    const m = xj - h;
    const den = p - m;
    this.stats.evaluations += 2;
    if (j >= this.#nodeLen) {
      const e = j - this.#nodeLen;
      const b = Math.floor(e / (n * n));
      const row = Math.floor((e - b * n * n) / n);
      const col = e - b * n * n - row * n;
      const k = this.#kernels();
      const diagonal = b === 0 && row === col; // S_jj gates the merge too
      for (const [v, cOut, aOut] of [
        [p, r.cp, r.ap],
        [m, r.cm, r.am],
      ] as const) {
        k.gcsrsums(n, r.csr.ptr, r.active.ptr, r.nactive, b, row, col, v, r.rc.ptr, r.rv.ptr, r.sums.ptr);
        this.#beliefs(r, r.sums, b, row, col, v, cOut);
        if (diagonal) this.#merge(r, r.sums, aOut);
      }
      // the identity entry of Q's copy of θ_j: (p − m)/(p − m), exactly 1
      return this.#quotient(r, r.cp, r.cm, diagonal, den, j);
    }
    const slot = Math.floor(j / k1);
    if (j % k1 === shape.k) {
      const c = r.c.view;
      c[slot] = p;
      this.#beliefs(r, r.sums0, -1, 0, 0, 0, r.cp);
      r.c.view[slot] = m;
      this.#beliefs(r, r.sums0, -1, 0, 0, 0, r.cm);
      r.c.view[slot] = xj;
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
    return this.#quotient(r, r.c, r.c, true, den);
  }

  column(j: number): SparseVector {
    const hit = this.#cache.get(j);
    if (hit) return hit;
    if (!(Number.isInteger(j) && j >= 0 && j < this.dim))
      throw new ArgumentError('column', j, `must be an index in [0, ${this.dim})`);
    const col = this.#withResident((r) => this.#computeColumn(r, j));
    this.stats.columns++;
    this.#cache.set(j, col);
    return col;
  }

  prefetch(cols: readonly number[]): void {
    for (const j of cols) this.column(j);
  }

  apply(v: SparseVector): SparseVector {
    if (v.dim !== this.dim) throw new ArgumentError('v.dim', v.dim, `must equal ${this.dim}`);
    this.#acc ??= new SparseAccumulator(this.dim);
    let cached = true;
    for (let k = 0; k < v.index.length && cached; k++) cached = this.#cache.has(v.index[k]!);
    if (cached || v.index.length <= 64) {
      for (let k = 0; k < v.index.length; k++) this.#acc.add(v.value[k]!, this.column(v.index[k]!));
      return this.#acc.take();
    }
    return this.#directional(v);
  }

  /**
   * One directional difference along v: two full evaluations of the wasm Q on x ± t·v (a
   * temporary copy of the state in wasm memory; v may move edges, so the stored rows do not apply).
   */
  #directional(v: SparseVector): SparseVector {
    const acc = (this.#colAcc ??= new SparseAccumulator(this.dim));
    const t = directionalStep(this.#x, v);
    const { shape, params } = this.#scenario;
    const { arena } = wasm();
    try {
      const [fp, fm] = [t, -t].map((s) =>
        arena.scope((sc) => {
          const theta = sc.from(this.#x);
          const view = theta.view;
          for (let k = 0; k < v.index.length; k++) view[v.index[k]!] = this.#x[v.index[k]!]! + s * v.value[k]!;
          const node = sc.alloc(this.#nodeLen);
          wasmConsolidateNodeBlock(sc, shape, params, theta, node);
          return Float64Array.from(node.view);
        }),
      ) as [Float64Array, Float64Array];
      this.stats.evaluations += 2;
      this.stats.directional++;
      const den = takenStep(this.#x, v, t);
      let ascending = true;
      for (let k = 1; k < v.index.length && ascending; k++) ascending = v.index[k]! > v.index[k - 1]!;
      if (!ascending) {
        for (let i = 0; i < fp.length; i++) {
          if (fp[i] !== fm[i]) {
            const q = (fp[i]! - fm[i]!) / den;
            if (!Number.isFinite(q))
              throw new ArgumentError(`reference-graph: consolidate(theta)[${i}]`, q, 'must be finite');
            acc.addEntry(i, q);
          }
        }
        for (let k = 0; k < v.index.length; k++)
          if (v.index[k]! >= this.#nodeLen) acc.addEntry(v.index[k]!, v.value[k]!);
        return acc.take();
      }
      // v's indices ascending (the usual form): the node quotients, then v's edge entries (Q's
      // copy of them), already in order — the accumulator's sum without its O(nnz log nnz) sort
      let nnz = 0;
      for (let i = 0; i < fp.length; i++) if (fp[i] !== fm[i] && (fp[i]! - fm[i]!) / den !== 0) nnz++;
      let firstEdge = 0;
      while (firstEdge < v.index.length && v.index[firstEdge]! < this.#nodeLen) firstEdge++;
      for (let k = firstEdge; k < v.index.length; k++) if (v.value[k] !== 0) nnz++;
      const index = new Int32Array(nnz);
      const value = new Float64Array(nnz);
      let at = 0;
      for (let i = 0; i < fp.length; i++) {
        if (fp[i] !== fm[i]) {
          const q = (fp[i]! - fm[i]!) / den;
          if (!Number.isFinite(q))
            throw new ArgumentError(`reference-graph: consolidate(theta)[${i}]`, q, 'must be finite');
          if (q === 0) continue; // an underflowed quotient: the accumulator drops it too
          index[at] = i;
          value[at++] = q;
        }
      }
      for (let k = firstEdge; k < v.index.length; k++)
        if (v.value[k] !== 0) {
          index[at] = v.index[k]!;
          value[at++] = v.value[k]!;
        }
      return { dim: this.dim, index, value };
    } catch (e) {
      this.#acc = undefined;
      this.#colAcc = undefined;
      throw e;
    }
  }

  /**
   * Frees the wasm blocks (the operator can still be used: they are re-created on demand).
   * Idempotent.
   */
  release(): void {
    const res = this.#res;
    this.#res = undefined;
    if (!res) return;
    const { arena } = wasm();
    for (const b of res.all) if (!b.freed) arena.free(b);
  }

  /** Same as {@link release}: lets a caller write `using J = new GraphConsolidateJacobian(...)`. */
  [Symbol.dispose](): void {
    this.release();
  }
}
