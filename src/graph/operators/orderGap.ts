/**
 * The order-gap Ω(θ; e) = ‖Q(P_e(θ)) − P_e(Q(θ))‖₂ (Eq. 2) and the step θ' = Q(P_e(θ)) of the
 * reference graph operators, structure-aware: neither composition is materialised (Eq. 2).
 *
 * - Q leaves every edge unchanged and P_e writes the same edge values in both orders, so the
 *   edge block contributes exactly 0; only the node block is compared.
 * - θ and P_e(θ) differ only on e's footprint F_e and on the confidences of the nodes e adds
 *   (the entry confidence, which changes c only below c₀: P_e(θ)'s confidences are θ's with
 *   those patched). The edges of P_e(θ) are a view over θ's ({@link EdgeSource} with e's edits
 *   merged in), and ONE pass over the rows feeds both states, each with its own confidences, to
 *   Q's row functions (`addRowStructure`, then `addRowWeighted` of ./consolidate.ts): each
 *   state's sums receive exactly the operations, in exactly the order, of Q's own passes over
 *   that state.
 * - A claim not within the merge radius of a claim e writes (in θ or in P_e(θ)) is merged
 *   identically in both orders: only the affected claims are merged (`mergeClaim`).
 * - The differences are gathered in ascending coordinate order and passed to the same distance
 *   as the definition (`referenceDistance`); coordinates left out differ by exactly 0, which
 *   changes neither its maximum nor its sum.
 *
 * Hence every path returns the generic evaluation
 * `referenceDistance(referenceConsolidate(P_e θ), referenceExpand(e, referenceConsolidate(θ)))`
 * bit for bit — no rounding bound is needed (tested by fast-check properties and on the default
 * scenario). The neighbourhood region (`'neighbourhood'`) runs the same pass restricted to the
 * rows that reach the slots whose beliefs can change; every other slot contributes exactly 0.
 *
 * Storages: a dense θ ({@link denseEdges}), CSR ({@link csrEdges} of a {@link SparseGraphState})
 * and CSR plus CSC ({@link withColumns}); all implement {@link EdgeSource}.
 */
import { referenceDistance } from '../../blas1/dnrm2.js';
import { ArgumentError } from '../../util/errors.js';
import {
  addRowStructure,
  addRowWeighted,
  confidenceUpdate,
  consolidateScratch,
  denseEdges,
  EMPTY_EDGE_ROW,
  edgeRowValue,
  firstEntries,
  emptyStructureSums,
  emptyWeightedSums,
  mergeClaim,
  mergeClaims,
  readConfidences,
  referenceConsolidate,
  type UpdateScratch,
  type EdgeBlockIndex,
  type CsrBlock,
  type EdgeRow,
  type MergeIndex,
  type EdgeSource,
  type StructureSums,
  type WeightedSums,
} from './consolidate.js';
import { entryConfidence, referenceExpand, type CompiledItem } from './expand.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from '../model/shape.js';

/** A state with its node block dense and its three edge blocks sparse. */
export interface SparseGraphState {
  /** (k+1)·Nmax node coordinates. */
  readonly nodes: Float64Array;
  /** Supports, Requires, Contradicts. */
  readonly edges: readonly [CsrBlock, CsrBlock, CsrBlock];
}

/** Edges of one type by column (rows ascending): the transpose of a {@link CsrBlock}. */
export interface CscBlock {
  /** Column starts, length Nmax + 1. */
  readonly colStart: Int32Array;
  readonly rows: Int32Array;
  readonly vals: Float64Array;
}

/**
 * A sparse state that also stores each edge block by column (in-edges), as an adjacency
 * structure in both directions does.
 */
export interface IndexedGraphState extends SparseGraphState {
  readonly columns: readonly [CscBlock, CscBlock, CscBlock];
}

function hasColumns(g: SparseGraphState): g is IndexedGraphState {
  return (g as Partial<IndexedGraphState>).columns !== undefined;
}

/**
 * The edges of a sparse state as an {@link EdgeSource}: `row` is O(1) (a view of the CSR
 * arrays), `value` O(log row length); `column` is O(column length) with the by-column index of
 * {@link withColumns}, else a binary search in every row (O(Nmax log row length)).
 */
export function csrEdges(g: SparseGraphState): EdgeSource {
  const n = g.edges[0].rowStart.length - 1;
  const rows: EdgeRow[] = g.edges.map((b) => ({ idx: b.cols, vals: b.vals, start: 0, end: 0 }));
  const byCol: EdgeRow[] = hasColumns(g)
    ? g.columns.map((b) => ({ idx: b.rows, vals: b.vals, start: 0, end: 0 }))
    : [0, 1, 2].map(() => ({ idx: new Int32Array(n), vals: new Float64Array(n), start: 0, end: 0 }));
  const row = (t: EdgeBlockIndex, j: number): EdgeRow => {
    const r = rows[t]!;
    const b = g.edges[t];
    r.start = b.rowStart[j]!;
    r.end = b.rowStart[j + 1]!;
    return r;
  };
  const column = hasColumns(g)
    ? (t: EdgeBlockIndex, i: number): EdgeRow => {
        const r = byCol[t]!;
        r.start = g.columns[t].colStart[i]!;
        r.end = g.columns[t].colStart[i + 1]!;
        return r;
      }
    : (t: EdgeBlockIndex, i: number): EdgeRow => {
        const r = byCol[t]!;
        let m = 0;
        for (let j = 0; j < n; j++) {
          const w = edgeRowValue(row(t, j), i);
          if (w === 0) continue;
          r.idx[m] = j;
          r.vals[m++] = w;
        }
        return firstEntries(r, m);
      };
  return { nmax: n, csr: g.edges, row, column, value: (t, j, i) => edgeRowValue(row(t, j), i) };
}

/**
 * The non-zero edges of a dense θ in CSR, from one streaming pass over the edge block; null
 * once more than `maxNonzeros` are found. Memory 12 bytes per non-zero.
 */
export function extractCsr(shape: OperatorShape, theta: Float64Array, maxNonzeros: number): SparseGraphState | null {
  const n = shape.nmax;
  const nn = n * n;
  let cap = Math.min(maxNonzeros, 1024);
  let cols = new Int32Array(cap);
  let vals = new Float64Array(cap);
  let count = 0;
  const blocks: CsrBlock[] = [];
  for (let t = 0; t < 3; t++) {
    const rowStart = new Int32Array(n + 1);
    const start = count;
    const base = shape.edgeOffset + t * nn;
    for (let j = 0; j < n; j++) {
      rowStart[j] = count - start;
      const b = base + j * n;
      for (let i = 0; i < n; i++) {
        const w = theta[b + i]!;
        if (w === 0) continue;
        if (count === cap) {
          if (cap >= maxNonzeros) return null;
          cap = Math.min(maxNonzeros, 2 * cap);
          const c2 = new Int32Array(cap);
          c2.set(cols);
          cols = c2;
          const v2 = new Float64Array(cap);
          v2.set(vals);
          vals = v2;
        }
        cols[count] = i;
        vals[count++] = w;
      }
    }
    rowStart[n] = count - start;
    blocks.push({ rowStart, cols: cols.slice(start, count), vals: vals.slice(start, count) });
  }
  return { nodes: theta.subarray(0, shape.edgeOffset), edges: blocks as [CsrBlock, CsrBlock, CsrBlock] };
}

/** The dense θ of a sparse state (length (k+1)·Nmax + 3·Nmax²). */
export function densify(shape: OperatorShape, g: SparseGraphState): Float64Array {
  const n = shape.nmax;
  const theta = new Float64Array(shape.dim);
  theta.set(g.nodes, 0);
  g.edges.forEach((b, t) => {
    for (let j = 0; j < n; j++)
      for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++)
        theta[shape.edgeOffset + t * n * n + j * n + b.cols[e]!] = b.vals[e]!;
  });
  return theta;
}

/**
 * The by-column index of one CSR block: each column's entries ascending by row, stored zeros
 * included (the same entries as the rows, in the order an in-place insertion keeps). O(nnz + Nmax).
 */
export function columnsOf(b: CsrBlock, nmax: number): CscBlock {
  const colStart = new Int32Array(nmax + 1);
  for (let e = 0; e < b.cols.length; e++) colStart[b.cols[e]! + 1] = colStart[b.cols[e]! + 1]! + 1;
  for (let i = 0; i < nmax; i++) colStart[i + 1] = colStart[i + 1]! + colStart[i]!;
  const fill = colStart.slice(0, nmax);
  const rows = new Int32Array(b.cols.length);
  const vals = new Float64Array(b.cols.length);
  for (let j = 0; j < nmax; j++)
    for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++) {
      const i = b.cols[e]!;
      const at = fill[i]!;
      fill[i] = at + 1;
      rows[at] = j;
      vals[at] = b.vals[e]!;
    }
  return { colStart, rows, vals };
}

/** Adds the by-column index to a sparse state ({@link columnsOf} of each block). O(nnz + Nmax). */
export function withColumns(g: SparseGraphState, nmax: number): IndexedGraphState {
  const columns = g.edges.map((b) => columnsOf(b, nmax)) as [CscBlock, CscBlock, CscBlock];
  return { ...g, columns };
}

// ---------------------------------------------------------------------------------------------
// e's writes, and the edges of P_e(θ) as a view over θ's

/** Sorted (index, new value) edits of one row or column. */
type Line = Array<[number, number]>;

/** The footprint of e split into node coordinates and edge edits, with P_e's values. */
interface ItemEdits {
  /** Node coordinate → [rate, target]. */
  nodeRate: Map<number, readonly [number, number]>;
  /** Slots whose node coordinates e writes, ascending. */
  slots: number[];
  /** Per block: row → edits (columns ascending); column → edits (rows ascending). */
  rows: [Map<number, Line>, Map<number, Line>, Map<number, Line>];
  cols: [Map<number, Line>, Map<number, Line>, Map<number, Line>];
  /** Per row: bit t set when block t has edits in that row. */
  edited: Uint8Array;
  /** Number of claim slots of the shape. */
  claims: number;
  /** Slots of e's entry coordinates (the confidences of the nodes e adds), ascending. */
  entrySlots: number[];
  /** The entry slots whose confidence P_e changes (θ's c below c₀), with P_e(θ)'s confidence. */
  entryChanged: Array<readonly [slot: number, value: number]>;
}

function claimsOf(ed: ItemEdits): number {
  return ed.claims;
}

/** P_e's value at one coordinate: x + a (t − x), the expression of `blendFootprintInPlace`. */
function blend(x: number, rate: number, target: number): number {
  return x + rate * (target - x);
}

function itemEdits(shape: OperatorShape, item: CompiledItem, nodes: Float64Array, edges: EdgeSource): ItemEdits {
  const n = shape.nmax;
  const nn = n * n;
  const k1 = shape.k + 1;
  const ed: ItemEdits = {
    nodeRate: new Map(),
    slots: [],
    rows: [new Map(), new Map(), new Map()],
    cols: [new Map(), new Map(), new Map()],
    edited: new Uint8Array(n),
    claims: shape.claims,
    entrySlots: [],
    entryChanged: [],
  };
  for (let i = 0; i < item.entry.length; i++) {
    const x = item.entry[i]!;
    const slot = Math.floor(x / k1);
    ed.entrySlots.push(slot);
    const v = entryConfidence(nodes[x]!);
    if (v !== nodes[x]) ed.entryChanged.push([slot, v]);
  }
  for (let f = 0; f < item.footprint.length; f++) {
    const idx = item.footprint[f]!;
    const r = item.rates[f]!;
    const t = item.target[f]!;
    if (idx < shape.edgeOffset) {
      ed.nodeRate.set(idx, [r, t]);
      const slot = Math.floor(idx / k1);
      if (ed.slots[ed.slots.length - 1] !== slot) ed.slots.push(slot);
      continue;
    }
    const rel = idx - shape.edgeOffset;
    const type = Math.floor(rel / nn) as EdgeBlockIndex;
    const j = Math.floor((rel - type * nn) / n);
    const i = rel - type * nn - j * n;
    const v = blend(edges.value(type, j, i), r, t);
    const push = (m: Map<number, Line>, key: number, at: number) => {
      const line = m.get(key);
      if (line) line.push([at, v]);
      else m.set(key, [[at, v]]);
    };
    push(ed.rows[type], j, i);
    push(ed.cols[type], i, j);
    ed.edited[j] = ed.edited[j]! | (1 << type);
  }
  return ed;
}

/** Merges a stored run with sorted edits into `out`: P_e(θ)'s run, zeros skipped. */
function mergeRun(r: EdgeRow, line: Line, out: EdgeRow): EdgeRow {
  const need = r.end - r.start + line.length;
  if (out.idx.length < need) {
    out.idx = new Int32Array(need);
    out.vals = new Float64Array(need);
  }
  let m = 0;
  let e = r.start;
  let u = 0;
  while (e < r.end || u < line.length) {
    const ci = e < r.end ? r.idx[e]! : Number.MAX_SAFE_INTEGER;
    const ui = u < line.length ? line[u]![0] : Number.MAX_SAFE_INTEGER;
    let w: number;
    let i: number;
    if (ci < ui) {
      i = ci;
      w = r.vals[e++]!;
    } else {
      i = ui;
      w = line[u++]![1];
      if (ci === ui) e++;
    }
    if (w === 0) continue;
    out.idx[m] = i;
    out.vals[m++] = w;
  }
  return firstEntries(out, m);
}

/** The edges of P_e(θ): θ's edges with e's edits merged in (rows and columns), as a view. */
function expandedEdges(base: EdgeSource, ed: ItemEdits): EdgeSource {
  const fresh = (): EdgeRow => ({ idx: new Int32Array(8), vals: new Float64Array(8), start: 0, end: 0 });
  const rows = [fresh(), fresh(), fresh()];
  const cols = [fresh(), fresh(), fresh()];
  return {
    nmax: base.nmax,
    row: (t, j) => {
      const line = ed.rows[t].get(j);
      return line ? mergeRun(base.row(t, j), line, rows[t]!) : base.row(t, j);
    },
    column: (t, i) => {
      const line = ed.cols[t].get(i);
      return line ? mergeRun(base.column(t, i), line, cols[t]!) : base.column(t, i);
    },
    value: (t, j, i) => {
      const line = ed.rows[t].get(j);
      const hit = line?.find((x) => x[0] === i);
      return hit ? hit[1] : base.value(t, j, i);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the fused pass

/** Rows a pass visits (ascending) and, per slot, the bits of the blocks read in that row. */
interface RowPlan {
  rows: Int32Array;
  blocks: Uint8Array;
}

/** Q's sums of θ (0) and of P_e(θ) (1). */
export interface PairSums {
  /** Q's structure sums of θ. */
  readonly s0: StructureSums;
  /** Q's structure sums of P_e θ. */
  readonly s1: StructureSums;
  readonly ws0: WeightedSums;
  readonly ws1: WeightedSums;
}

function emptyPairSums(n: number): PairSums {
  return { s0: emptyStructureSums(n), s1: emptyStructureSums(n), ws0: emptyWeightedSums(n), ws1: emptyWeightedSums(n) };
}

/** The per-slot arrays of both states' sums. */
function pairArrays(p: PairSums): Float64Array[] {
  return [p.s0, p.s1, p.ws0, p.ws1].flatMap((x) => Object.values(x) as Float64Array[]);
}

/**
 * The slots of an {@link OrderGapScratch}'s sums that its last pass wrote (`all`: possibly
 * every one): the only ones that can be non-zero, so the next pass zeroes just these.
 */
export interface TouchedSlots {
  all: boolean;
  /** The slots, each once. */
  readonly slots: number[];
  /** 1 at the listed slots, else 0 (Nmax entries). */
  readonly listed: Uint8Array;
}

/**
 * Sets both states' sums to 0: every slot, or with `touched` the slots it lists (the others
 * are 0 already), then marks none touched.
 */
function zeroPairSums(p: PairSums, touched?: TouchedSlots): void {
  const arrays = pairArrays(p);
  if (!touched || touched.all) for (const a of arrays) a.fill(0);
  else for (const a of arrays) for (const x of touched.slots) a[x] = 0;
  if (touched) {
    if (touched.all) touched.listed.fill(0);
    else for (const x of touched.slots) touched.listed[x] = 0;
    touched.all = false;
    touched.slots.length = 0;
  }
}

/** Lists slot x in `touched` (when given and not every slot is) unless it is listed already. */
function touch(touched: TouchedSlots | undefined, x: number): void {
  if (!touched || touched.all || touched.listed[x] === 1) return;
  touched.listed[x] = 1;
  touched.slots.push(x);
}

/** Records in `touched` (when given) the slots the sums of row j over runs r0 and r1 write: j and the runs' entries. */
function touchRow(touched: TouchedSlots | undefined, j: number, r0: readonly EdgeRow[], r1: readonly EdgeRow[]): void {
  if (!touched || touched.all) return;
  touch(touched, j);
  for (let t = 0; t < 3; t++) {
    const a = r0[t]!;
    const b = r1[t]!;
    for (let e = a.start; e < a.end; e++) touch(touched, a.idx[e]!);
    if (b !== a) for (let e = b.start; e < b.end; e++) touch(touched, b.idx[e]!);
  }
}

/**
 * Reusable per-slot scratch of the structure-aware order-gap ({@link orderGapScratch}): both
 * states' sums, the confidences before and after (`cE`: P_e θ's, when e's entry confidence
 * changes one), and the update's scratch — what one evaluation would otherwise allocate,
 * O(25·Nmax) doubles. Q's own scratch may share its confidences and the update's scratch
 * (../state/state.ts does) when the two never run at once, but not the sums: only the order-gap
 * passes may write them, since each pass zeroes just the slots the last one wrote (`touched`). The node block of P_e(θ) is not in
 * it: the caller lends one (`orderGapOver`'s `nodes1`).
 */
export interface OrderGapScratch extends PairSums {
  /** The sums' slots the last pass wrote (zeroed by the next instead of every slot). */
  readonly touched: TouchedSlots;
  readonly c: Float64Array;
  readonly cE: Float64Array;
  readonly c0: Float64Array;
  readonly c1: Float64Array;
  readonly update: UpdateScratch;
}

/** An {@link OrderGapScratch} for a shape: θ's half is Q's own scratch, P_e θ's sums and c1 come beside it. */
export function orderGapScratch(shape: OperatorShape): OrderGapScratch {
  const q = consolidateScratch(shape);
  const n = shape.nmax;
  return {
    s0: q.sums,
    ws0: q.ws,
    c: q.c,
    c0: q.cNew,
    update: q.update,
    s1: emptyStructureSums(n),
    ws1: emptyWeightedSums(n),
    c1: new Float64Array(n),
    cE: new Float64Array(n),
    touched: { all: false, slots: [], listed: new Uint8Array(n) }, // fresh arrays: every slot is 0
  };
}

/**
 * The live claims of θ near a position, for the merge: `near(nodes, i)` lists (any order, may
 * repeat) every claim j with S_jj ≠ 0 in θ whose θ attributes lie within the merge radius of
 * claim i's attributes in `nodes` (extra claims are allowed: the distance test rejects them).
 * ../state/state.ts answers it from its merge grid.
 */
export type MergeNear = (nodes: Float64Array, i: number) => Iterable<number>;

/**
 * Puts the three rows of j in θ into r0 and in P_e(θ) into r1 (the same runs where e edits
 * nothing). Only the blocks in `bits` are read; the others are empty.
 */
function bothRows(
  base: EdgeSource,
  expanded: EdgeSource,
  edited: number,
  j: number,
  bits: number,
  r0: EdgeRow[],
  r1: EdgeRow[],
): void {
  for (let t = 0; t < 3; t++) {
    const b = t as EdgeBlockIndex;
    if ((bits & (1 << t)) === 0) r0[t] = r1[t] = EMPTY_EDGE_ROW;
    else if ((edited & (1 << t)) === 0) r0[t] = r1[t] = base.row(b, j);
    else {
      // the expanded row first: for a dense θ it re-gathers θ's row into the same scratch
      r1[t] = expanded.row(b, j);
      r0[t] = base.row(b, j);
    }
  }
}

/**
 * P_e(θ)'s confidences: θ's (`c`, returned itself when e changes none) with the entry
 * confidences of {@link ItemEdits.entryChanged}, else a copy into `out` (allocated when omitted).
 */
function expandedConfidences(ed: ItemEdits, c: Float64Array, out?: Float64Array): Float64Array {
  if (ed.entryChanged.length === 0) return c;
  const cE = out ?? new Float64Array(c.length);
  cE.set(c);
  for (const [slot, v] of ed.entryChanged) cE[slot] = v;
  return cE;
}

/**
 * The fused pass: Q's two passes over the rows of `structure` and `weighted` (all rows when
 * null), for θ (confidences `c`) and P_e(θ) (confidences `cE`) at once. Sums are exact (as Q's
 * own passes) at every slot whose rows the plans include.
 */
function fusedSums(
  base: EdgeSource,
  expanded: EdgeSource,
  ed: ItemEdits,
  c: Float64Array,
  cE: Float64Array,
  tau: number,
  structure: RowPlan | null,
  weighted: RowPlan | null,
  scratch?: OrderGapScratch,
  lazyDiagonal = false,
): PairSums {
  const n = base.nmax;
  const touched = scratch?.touched;
  if (scratch) zeroPairSums(scratch, touched);
  if (touched && (structure === null || weighted === null || !lazyDiagonal)) touched.all = true;
  const { s0, s1, ws0, ws1 } = scratch ?? emptyPairSums(n);
  const r0: EdgeRow[] = [EMPTY_EDGE_ROW, EMPTY_EDGE_ROW, EMPTY_EDGE_ROW];
  const r1: EdgeRow[] = [EMPTY_EDGE_ROW, EMPTY_EDGE_ROW, EMPTY_EDGE_ROW];
  // the rows of `plan` (every row when null), ascending, each with θ's runs in r0 and P_e θ's in r1
  const visit = (plan: RowPlan | null, add: (j: number) => void) => {
    for (let r = 0, m = plan === null ? n : plan.rows.length; r < m; r++) {
      const j = plan === null ? r : plan.rows[r]!;
      bothRows(base, expanded, ed.edited[j]!, j, plan === null ? 7 : plan.blocks[j]!, r0, r1);
      touchRow(touched, j, r0, r1);
      add(j);
    }
  };
  visit(structure, (j) => {
    addRowStructure(s0, j, r0[0]!, r0[1]!, r0[2]!);
    addRowStructure(s1, j, r1[0]!, r1[1]!, r1[2]!);
  });
  if (structure !== null && !lazyDiagonal) {
    // claim rows not read in Supports: their diagonal (the merge gates read every claim's; no
    // other slot's diagonal is read)
    const sums = { s0, s1, ws0, ws1 };
    for (let j = 0, claims = Math.min(n, claimsOf(ed)); j < claims; j++)
      fillDiagonal(base, expanded, ed, structure, sums, j);
  }
  const p0 = { ws: ws0, s: s0, c, tau };
  const p1 = { ws: ws1, s: s1, c: cE, tau };
  visit(weighted, (j) => {
    addRowWeighted(p0, j, r0[0]!, r0[1]!, r0[2]!);
    addRowWeighted(p1, j, r1[0]!, r1[1]!, r1[2]!);
  });
  return { s0, s1, ws0, ws1 };
}

/**
 * S_jj of θ and of P_e θ for a claim row j the restricted pass did not read in Supports (rows it
 * read have theirs from `addRowStructure`); P_e θ's equals θ's where e edits no Supports entry
 * of row j. Other slots are left alone (no diagonal but a claim's is read).
 */
function fillDiagonal(
  base: EdgeSource,
  expanded: EdgeSource,
  ed: ItemEdits,
  structure: RowPlan,
  sums: PairSums,
  j: number,
  touched?: TouchedSlots,
): void {
  if (j >= claimsOf(ed) || (structure.blocks[j]! & 1) !== 0) return;
  touch(touched, j);
  const d = base.value(0, j, j);
  sums.s0.diag[j] = d;
  sums.s1.diag[j] = (ed.edited[j]! & 1) === 0 ? d : expanded.value(0, j, j);
}

// ---------------------------------------------------------------------------------------------
// the neighbourhood of e

/** Thrown (internally) when a neighbourhood would read more lines than its budget. */
class OverBudget {}

/**
 * Neighbour lists of θ ∪ P_e(θ), memoised: out-neighbours by row, in-neighbours by column. Each
 * distinct line is gathered once (twice where e edits it); past `budget` lines it throws
 * {@link OverBudget}.
 */
function neighbourLists(
  base: EdgeSource,
  expanded: EdgeSource,
  ed: ItemEdits,
  budget: number,
): (t: EdgeBlockIndex, x: number, byColumn: boolean) => readonly number[] {
  const n = base.nmax;
  const memo = new Map<number, number[]>();
  let lines = 0;
  const indices = (r: EdgeRow, out: number[]) => {
    for (let e = r.start; e < r.end; e++) if (r.vals[e] !== 0) out.push(r.idx[e]!);
  };
  return (t, x, byColumn) => {
    const key = (t * 2 + (byColumn ? 1 : 0)) * n + x;
    const hit = memo.get(key);
    if (hit) return hit;
    if (++lines > budget) throw new OverBudget();
    const out: number[] = [];
    indices(byColumn ? base.column(t, x) : base.row(t, x), out);
    if ((byColumn ? ed.cols : ed.rows)[t].has(x)) indices(byColumn ? expanded.column(t, x) : expanded.row(t, x), out);
    memo.set(key, out);
    return out;
  };
}

/**
 * Adds to A the slots whose update reads the confidence of slot j: j; the targets of j's
 * Supports row (Σ_j Ŝ_ji c_j); j's Contradicts neighbours either way (X̂_ij c_j σ((c_j − c_i)/τ_x));
 * the rows requiring j (Σ_q R̂_iq c_q); the question of an answer j (its openness reads Σ c_a).
 */
function readersOfConfidence(
  shape: OperatorShape,
  nb: (t: EdgeBlockIndex, x: number, byColumn: boolean) => readonly number[],
  j: number,
  A: Set<number>,
): void {
  A.add(j);
  for (const i of nb(0, j, false)) A.add(i);
  for (const i of nb(2, j, false)) A.add(i);
  for (const i of nb(2, j, true)) A.add(i);
  for (const i of nb(1, j, true)) A.add(i);
  if (j >= shape.firstAnswer && j < shape.firstQuestion) {
    const q = shape.answerQuestion[j - shape.firstAnswer]!;
    if (q >= 0) A.add(q);
  }
}

/** The slots whose confidences can differ, and the row plans of the restricted pass. */
interface Neighbourhood {
  slots: number[];
  structure: RowPlan;
  weighted: RowPlan;
}

/**
 * The slots A whose new confidence can differ between Q(θ) and Q(P_e θ), or where P_e writes the
 * entry confidence into Q(θ), and the rows the fused pass must read for their sums to be exact:
 * - A: the slots e writes and e's entry slots; endpoints of e's Supports rows; rows and targets
 *   of e's Requires edits that change a weight, and every row requiring such a target; both
 *   endpoints of a changed Contradicts edge and their Contradicts neighbours; for an entry slot
 *   whose confidence P_e changes, the slots whose sums read it (its Supports targets, its
 *   Contradicts neighbours, the rows requiring it, the question of an answer); the whole group
 *   of an answer.
 * - structure rows: Supports in-neighbours of A (k_a, k̃_a, and r_j of those rows); Requires rows
 *   of A and the Requires in-neighbours of A and of A's Requires targets (ρ, κ); D = A and its
 *   Contradicts neighbours, and their Contradicts in-neighbours (degrees).
 * - weighted rows: Supports in-neighbours of A, Requires rows of A, Contradicts rows of A and
 *   their Contradicts in-neighbours.
 * A slot's sums receive contributions only from its own row and from rows with an edge into it,
 * so running the pass over these rows (ascending) gives them exactly as the full pass does.
 */
function neighbourhood(
  shape: OperatorShape,
  base: EdgeSource,
  expanded: EdgeSource,
  ed: ItemEdits,
  budget = Infinity,
): Neighbourhood {
  const n = shape.nmax;
  const nb = neighbourLists(base, expanded, ed, budget);
  const A = new Set<number>(ed.slots);
  for (const j of ed.entrySlots) A.add(j);
  for (const [j] of ed.entryChanged) readersOfConfidence(shape, nb, j, A);
  for (const j of ed.rows[0].keys()) {
    A.add(j);
    for (const i of nb(0, j, false)) A.add(i);
  }
  const requireInChanged = new Set<number>();
  for (const [j, line] of ed.rows[1]) {
    A.add(j);
    for (const [q, w1] of line) if (base.value(1, j, q) !== w1) requireInChanged.add(q);
  }
  for (const q of requireInChanged) {
    A.add(q);
    for (const j of nb(1, q, true)) A.add(j);
  }
  const degreeChanged = new Set<number>();
  for (const [j, line] of ed.rows[2])
    for (const [i, w1] of line)
      if (base.value(2, j, i) !== w1) {
        degreeChanged.add(j);
        degreeChanged.add(i);
      }
  for (const a of degreeChanged) {
    A.add(a);
    for (const i of nb(2, a, false)) A.add(i);
    for (const j of nb(2, a, true)) A.add(j);
  }
  for (const a of [...A]) {
    if (a < shape.firstAnswer || a >= shape.firstQuestion) continue;
    const q = shape.answerQuestion[a - shape.firstAnswer]!;
    if (q < 0) continue;
    for (const b of shape.groups[shape.questionGroup[q - shape.firstQuestion]!]!.answers) A.add(b);
  }
  const slots = [...A].sort((x, y) => x - y);
  const sBits = new Uint8Array(n);
  const wBits = new Uint8Array(n);
  const mark = (bits: Uint8Array, rows: Iterable<number>, block: number) => {
    for (const j of rows) bits[j] = bits[j]! | (1 << block);
  };
  const D = new Set<number>(slots);
  for (const a of slots) {
    const sIn = nb(0, a, true);
    mark(sBits, sIn, 0);
    mark(wBits, sIn, 0);
    mark(sBits, [a], 1);
    mark(wBits, [a], 1);
    mark(sBits, nb(1, a, true), 1);
    for (const q of nb(1, a, false)) mark(sBits, nb(1, q, true), 1);
    mark(wBits, [a], 2);
    mark(wBits, nb(2, a, true), 2);
    for (const i of nb(2, a, false)) D.add(i);
    for (const j of nb(2, a, true)) D.add(j);
  }
  for (const x of D) {
    mark(sBits, [x], 2);
    mark(sBits, nb(2, x, true), 2);
  }
  const plan = (bits: Uint8Array): RowPlan => {
    const rows: number[] = [];
    for (let j = 0; j < n; j++) if (bits[j] !== 0) rows.push(j);
    return { rows: Int32Array.from(rows), blocks: bits };
  };
  return { slots, structure: plan(sBits), weighted: plan(wBits) };
}

// ---------------------------------------------------------------------------------------------
// merge and the norm

/**
 * Claims whose merge can differ between the two orders: claims e writes (attributes or the
 * Supports diagonal) and every claim within the merge radius of one of them in θ or in P_e(θ).
 */
function mergeAffected(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes0: Float64Array,
  nodes1: Float64Array,
  diag0: Float64Array,
  diag1: Float64Array,
  ed: ItemEdits,
  near?: MergeNear,
): number[] {
  if (p.mergeRate === 0) return [];
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const h2 = p.mergeRadius * p.mergeRadius;
  const changed = mergeChanged(shape, diag0, diag1, ed);
  const isChanged = new Set(changed);
  // with `near`: only live claims near a changed one (in θ or P_e θ) and the changed ones are
  // tested; the claims left out are not live in either state (else they would be listed or
  // changed), so both orders leave them unmerged and their difference is exactly 0
  let among: number[] | null = null;
  if (near) {
    const set = new Set(changed);
    for (const q of changed) {
      for (const j of near(nodes0, q)) set.add(j);
      for (const j of near(nodes1, q)) set.add(j);
    }
    among = [...set].sort((a, b) => a - b);
  }
  const affected: number[] = [];
  for (let r = 0, m = among ? among.length : shape.claims; r < m; r++) {
    const i = among ? among[r]! : r;
    let hit = isChanged.has(i);
    const oi = i * k1;
    for (let q = 0; !hit && q < changed.length; q++) {
      const oq = changed[q]! * k1;
      let r0 = 0;
      let r1 = 0;
      for (let t = 0; t < md; t++) {
        const a = nodes0[oi + t]! - nodes0[oq + t]!;
        const b = nodes1[oi + t]! - nodes1[oq + t]!;
        r0 += a * a;
        r1 += b * b;
      }
      hit = r0 < h2 || r1 < h2;
    }
    if (hit) affected.push(i);
  }
  return affected;
}

/** Claims e writes: their attributes, or a Supports diagonal that changes. */
function mergeChanged(shape: OperatorShape, diag0: Float64Array, diag1: Float64Array, ed: ItemEdits): number[] {
  const changed = ed.slots.filter((s) => s < shape.claims);
  for (const j of ed.rows[0].keys())
    if (j < shape.claims && diag0[j] !== diag1[j] && !changed.includes(j)) changed.push(j);
  return changed;
}

/**
 * A {@link MergeIndex} for the merges of the affected claims in θ or in P_e θ (`nodes` the
 * state's node block): claim i's candidates are `near(nodes, i)` and the changed claims,
 * ascending. Every claim that can pull on i in that state is among them: a claim live there
 * and unchanged by e is live in θ at the same attributes (so `near` lists it), and any other
 * live one is changed.
 */
function nearIndex(near: MergeNear, nodes: Float64Array, changed: readonly number[]): MergeIndex {
  const memo = new Map<number, number[]>();
  return {
    claims: () => [],
    candidates: (i) => {
      let list = memo.get(i);
      if (!list) {
        const set = new Set(changed);
        for (const j of near(nodes, i)) set.add(j);
        list = [...set].sort((a, b) => a - b);
        memo.set(i, list);
      }
      return list;
    },
  };
}

/** The merged first mergeDims attributes of claim i (its own attributes when nothing pulls). */
function mergedAttributes(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  diag: Float64Array,
  i: number,
  index?: MergeIndex,
): Float64Array {
  const out = new Float64Array(shape.mergeDims);
  if (!mergeClaim(shape, p, nodes, diag, i, new Float64Array(shape.mergeDims), out, index))
    out.set(nodes.subarray(i * (shape.k + 1), i * (shape.k + 1) + shape.mergeDims));
  return out;
}

/**
 * ‖Q(P_e θ) − P_e(Q θ)‖ over the node coordinates that can differ, in ascending order, by the
 * definition's distance. `slots` (ascending, or null for all; e's entry slots among them) are the
 * slots whose confidences c0 (of Q θ) are given; `merged0` the affected claims' merged attributes
 * in Q θ; `qpe(x, s, t)` the value of Q(P_e θ) at node coordinate x = s(k+1) + t. P_e(Q θ) is
 * the blend on F_e and the entry confidence at e's entry slots.
 */
function nodeDistance(
  shape: OperatorShape,
  nodes0: Float64Array,
  ed: ItemEdits,
  slots: readonly number[] | null,
  c0: Float64Array,
  merged0: Map<number, Float64Array>,
  qpe: (x: number, s: number, t: number) => number,
): number {
  const k = shape.k;
  const k1 = k + 1;
  const md = shape.mergeDims;
  const inSlots = new Uint8Array(shape.nmax);
  if (slots === null) inSlots.fill(1);
  else for (const s of slots) inSlots[s] = 1;
  const cand = new Set<number>(ed.slots);
  for (const s of ed.entrySlots) cand.add(s);
  for (const s of merged0.keys()) cand.add(s);
  const entry = new Set(ed.entrySlots);
  const order = slots === null ? null : [...new Set([...slots, ...cand])].sort((a, b) => a - b);
  const a: number[] = [];
  const b: number[] = [];
  const count = order === null ? shape.nmax : order.length;
  const fIdx = [...ed.nodeRate.keys()]; // ascending: the footprint is
  let f = 0;
  for (let r = 0; r < count; r++) {
    const s = order === null ? r : order[r]!;
    const m0 = merged0.get(s);
    const conf = inSlots[s] === 1;
    while (f < fIdx.length && fIdx[f]! < s * k1) f++;
    if (!conf && m0 === undefined && (f === fIdx.length || fIdx[f]! >= (s + 1) * k1)) continue;
    for (let t = 0; t <= k; t++) {
      const x = s * k1 + t;
      const inF = f < fIdx.length && fIdx[f] === x;
      const ra = inF ? ed.nodeRate.get(x)! : undefined;
      if (inF) f++;
      const isConf = t === k && conf;
      const attr = t < md && m0 !== undefined;
      if (!isConf && !attr && ra === undefined) continue;
      const q = isConf ? c0[s]! : attr ? m0[t]! : nodes0[x]!;
      a.push(qpe(x, s, t));
      b.push(ra !== undefined ? blend(q, ra[0], ra[1]) : isConf && entry.has(s) ? entryConfidence(q) : q);
    }
  }
  return referenceDistance(a, b);
}

// ---------------------------------------------------------------------------------------------
// entries

/** Which slots the order-gap pass evaluates. */
export type OrderGapRegion = 'all' | 'neighbourhood';

/**
 * Ω(θ; e) (Eq. 2) for a state given as its node block and its edges in any storage: the one
 * structure-aware pass of this module. `region`: `'all'` runs Q's two passes over every row
 * (for θ and P_e θ at once); `'neighbourhood'` restricts the same pass to the rows that reach
 * the slots whose beliefs can change (needs `edges.column`; cheap for stored columns). Both
 * return the generic evaluation bit for bit (module comment), whatever the storage.
 * Preconditions: `nodes` has (k+1)·Nmax entries, `edges.nmax` = Nmax, the item was compiled for
 * this shape. Nothing is modified.
 * Cost: `'all'` two passes over the edges + O(|F_e|·row length + C·k); `'neighbourhood'` the
 * rows and columns of e's neighbourhood + O(Nmax + C·k), independent of the number of edges.
 * @example
 * ```ts
 * const { shape, state, item } = syntheticProblem(256, 8, 10, 1);
 * orderGapOver(shape, DEFAULT_PARAMS, state.nodes, csrEdges(state), item, 'all'); // 0.2547…
 * ```
 */
export function orderGapOver(
  shape: OperatorShape,
  params: GraphOperatorParams,
  nodes: Float64Array,
  edges: EdgeSource,
  item: CompiledItem,
  region: OrderGapRegion,
  reuse?: OrderGapReuse,
): number {
  if (!reuse?.absorbsNothing) notAbsorbing(params);
  const ed = itemEdits(shape, item, nodes, edges);
  const expanded = expandedEdges(edges, ed);
  const local = region === 'neighbourhood' ? neighbourhood(shape, edges, expanded, ed) : null;
  return evaluate(shape, params, nodes, edges, expanded, ed, local, reuse);
}

/**
 * The structure-aware passes rest on Q leaving every edge unchanged, which the absorbing merge
 * (h_a > 0) does not: they refuse it, and the entry points that accept it ({@link graphOrderGap},
 * {@link graphStep}, the structured state's) evaluate the definition instead.
 * @throws {ArgumentError} `params.absorbRadius` > 0.
 */
function notAbsorbing(params: GraphOperatorParams): void {
  if (params.absorbRadius > 0)
    throw new ArgumentError(
      'params.absorbRadius',
      params.absorbRadius,
      'must be 0 for the structure-aware pass (the absorbing merge writes edges); use graphOrderGap or the structured state',
    );
}

/**
 * Ω(θ; e) (Eq. 2) by its definition on a dense θ: both compositions formed and compared by
 * `referenceDistance`. The path of {@link graphOrderGap} and {@link graphStep} when Q absorbs.
 * Cost: four operator applications on θ (O(d) each, plus Q's).
 */
function definitionOrderGap(
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
  qpe: Float64Array = referenceConsolidate(shape, params, referenceExpand(item, theta)),
): number {
  return referenceDistance(qpe, referenceExpand(item, referenceConsolidate(shape, params, theta)));
}

/**
 * What a caller that evaluates Ω repeatedly on one shape can lend {@link orderGapOver}, so an
 * evaluation allocates nothing of O(Nmax): per-slot scratch, a node block for P_e(θ) (length
 * (k+1)·Nmax, overwritten), and the live claims near a position ({@link MergeNear}) so the merge
 * of the affected claims visits candidates instead of all claims. None changes the result.
 */
export interface OrderGapReuse {
  readonly scratch?: OrderGapScratch;
  readonly nodes1?: Float64Array;
  readonly near?: MergeNear;
  /**
   * The caller has checked that Q absorbs no pair of claims in θ nor in P_e(θ) (always so when
   * `absorbRadius` is 0): the pass is then exact with the absorbing merge on, which it otherwise
   * refuses.
   */
  readonly absorbsNothing?: boolean;
}

/**
 * P_e θ's node block from θ's (`nodes`) into `nodes1`, which holds a copy of it: the blend on e's
 * node coordinates and the entry confidences.
 */
function expandNodesInPlace(shape: OperatorShape, ed: ItemEdits, nodes: Float64Array, nodes1: Float64Array): void {
  for (const [x, [r, t]] of ed.nodeRate) nodes1[x] = blend(nodes[x]!, r, t);
  const k = shape.k;
  const k1 = k + 1;
  for (const [slot, v] of ed.entryChanged) nodes1[slot * k1 + k] = v;
}

/** The pass of {@link orderGapOver} once e's edits (and its neighbourhood, or null) are known. */
function evaluate(
  shape: OperatorShape,
  params: GraphOperatorParams,
  nodes: Float64Array,
  edges: EdgeSource,
  expanded: EdgeSource,
  ed: ItemEdits,
  local: Neighbourhood | null,
  reuse: OrderGapReuse = {},
): number {
  const sc = reuse.scratch;
  const near = reuse.near;
  // with `near` on a neighbourhood, diagonals are read only where they are needed (below)
  const lazy = local !== null && near !== undefined;
  const c = readConfidences(shape, nodes, sc?.c);
  const cE = expandedConfidences(ed, c, sc?.cE);
  const sums = fusedSums(
    edges,
    expanded,
    ed,
    c,
    cE,
    params.tauContradict,
    local && local.structure,
    local && local.weighted,
    sc,
    lazy,
  );
  const diagonal = (j: number) => fillDiagonal(edges, expanded, ed, local!.structure, sums, j, sc?.touched);
  if (lazy) {
    // the update reads the diagonals of its claim slots, the merge test those of e's claims
    for (const j of local.slots) diagonal(j);
    for (const j of ed.slots) diagonal(j);
    for (const j of ed.rows[0].keys()) diagonal(j);
  }
  const n = shape.nmax;
  const c0 = sc ? sc.c0 : new Float64Array(n);
  const c1 = sc ? sc.c1 : new Float64Array(n);
  confidenceUpdate(shape, params, c, sums.s0, sums.ws0, c0, local?.slots, sc?.update);
  confidenceUpdate(shape, params, cE, sums.s1, sums.ws1, c1, local?.slots, sc?.update);
  let nodes1: Float64Array;
  if (reuse.nodes1) {
    nodes1 = reuse.nodes1;
    nodes1.set(nodes.subarray(0, shape.edgeOffset));
  } else nodes1 = nodes.slice(0, shape.edgeOffset);
  expandNodesInPlace(shape, ed, nodes, nodes1);
  const affected = mergeAffected(shape, params, nodes, nodes1, sums.s0.diag, sums.s1.diag, ed, near);
  const merged0 = new Map<number, Float64Array>();
  const merged1 = new Map<number, Float64Array>();
  const changed = near && affected.length ? mergeChanged(shape, sums.s0.diag, sums.s1.diag, ed) : [];
  const index0 = near ? nearIndex(near, nodes, changed) : undefined;
  const index1 = near ? nearIndex(near, nodes1, changed) : undefined;
  if (lazy)
    for (const i of affected) {
      // the merge of i reads its own diagonal and its candidates'
      diagonal(i);
      for (const idx of [index0!, index1!]) {
        const cand = idx.candidates(i);
        for (let r = 0; r < cand.length; r++) diagonal(cand[r]!);
      }
    }
  for (const i of affected) {
    merged0.set(i, mergedAttributes(shape, params, nodes, sums.s0.diag, i, index0));
    merged1.set(i, mergedAttributes(shape, params, nodes1, sums.s1.diag, i, index1));
  }
  const k = shape.k;
  const md = shape.mergeDims;
  return nodeDistance(shape, nodes, ed, local && local.slots, c0, merged0, (x, s, t) => {
    if (t === k) return c1[s]!;
    const m1 = t < md ? merged1.get(s) : undefined;
    return m1 !== undefined ? m1[t]! : nodes1[x]!;
  });
}

/**
 * A dense θ is evaluated in place on e's neighbourhood while the distinct rows and columns that
 * neighbourhood reads, and the rows of its restricted pass, stay below this fraction of the
 * 3·Nmax rows that extracting the edges streams through. Each line costs O(Nmax) either way; a
 * strided column touches Nmax cache lines where a row touches Nmax/8, so the break-even sits
 * at a fraction of all lines: on the synthetic problems (Nmax = 512, 10 to 400 edges per node)
 * in-place and extraction cost the same near 100 edges per node, where 1/2 still picks the
 * faster path or one within 25 % of it.
 */
const NEIGHBOURHOOD_FRACTION = 1 / 2;

/**
 * The structure-aware order-gap of the reference graph operators: Ω(θ; e) =
 * ‖Q(P_e(θ)) − P_e(Q(θ))‖₂ (Eq. 2) for a dense θ of length d — the capability a system declares
 * instead of two full Q applications. Returns exactly (bit for bit) the generic evaluation
 * `referenceDistance(referenceConsolidate(shape, params, referenceExpand(item, θ)),
 * referenceExpand(item, referenceConsolidate(shape, params, θ)))`: every path feeds Q's own
 * arithmetic the same operations in the same order, and leaves out only coordinates whose
 * difference is exactly 0 (module comment), so no rounding tolerance applies.
 * Path by the state's density: when e's neighbourhood is small it runs on θ in place (rows and
 * strided columns of that neighbourhood only); otherwise one streaming pass extracts the
 * non-zero edges (if at most Nmax²/2; 12 bytes each) and the full pass runs on them; denser edge
 * blocks run the full pass on θ in place.
 * Preconditions: θ has length `shape.dim`, the item was compiled for this shape. θ is not modified.
 * Cost: O(Nmax·(neighbourhood rows and columns)) when small, else one pass over the 3·Nmax²
 * edge weights + O(nnz + |F_e|·Nmax + C·k); memory O(Nmax + nnz).
 * @example
 * ```ts
 * const sc = defaultScenario();
 * graphOrderGap(sc.shape, sc.params, sc.theta0, sc.items[0]); // equals the generic Ω exactly
 * ```
 */
export function graphOrderGap(
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
): number {
  if (params.absorbRadius > 0) return definitionOrderGap(shape, params, theta, item);
  const n = shape.nmax;
  const dense = denseEdges(shape, theta);
  const ed = itemEdits(shape, item, theta, dense);
  const expanded = expandedEdges(dense, ed);
  const budget = NEIGHBOURHOOD_FRACTION * 3 * n;
  let local: Neighbourhood | null = null;
  try {
    local = neighbourhood(shape, dense, expanded, ed, budget);
  } catch (e) {
    if (!(e instanceof OverBudget)) throw e;
  }
  if (local !== null && local.structure.rows.length + local.weighted.rows.length <= budget)
    return evaluate(shape, params, theta, dense, expanded, ed, local);
  const sparse = extractCsr(shape, theta, Math.max(1024, Math.floor((n * n) / 2)));
  return sparse
    ? orderGapOver(shape, params, theta, csrEdges(sparse), item, 'all')
    : orderGapOver(shape, params, theta, dense, item, 'all');
}

/**
 * Ω(θ; e) (Eq. 2) for a state with sparse edges: the neighbourhood pass when the state carries
 * its by-column index ({@link withColumns}: cost independent of the number of edges), else the
 * full pass over the CSR rows (O(nnz)). Bit for bit {@link graphOrderGap} of the densified state
 * and the generic evaluation. Nothing is modified.
 * @example
 * ```ts
 * const { shape, state, item } = syntheticProblem(65536, 8, 10, 1);
 * graphOrderGapSparse(shape, DEFAULT_PARAMS, withColumns(state, 65536), item);
 * ```
 */
export function graphOrderGapSparse(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: SparseGraphState,
  item: CompiledItem,
): number {
  if (params.absorbRadius > 0) return definitionOrderGap(shape, params, densify(shape, state), item);
  return orderGapOver(shape, params, state.nodes, csrEdges(state), item, hasColumns(state) ? 'neighbourhood' : 'all');
}

/** The result of {@link graphStep}. */
export interface GraphStep {
  /** Ω(θ; e) (Eq. 2), bit for bit {@link graphOrderGap}. */
  readonly omega: number;
  /** θ' = Q(P_e(θ)), bit for bit `referenceConsolidate(shape, params, referenceExpand(item, θ))`. */
  readonly next: Float64Array;
}

/** One edge weight P_e writes: block t, row j, column i, its value in P_e(θ). */
export interface EdgeWrite {
  readonly block: EdgeBlockIndex;
  readonly row: number;
  readonly col: number;
  readonly value: number;
}

/** The result of {@link stepOver}. */
export interface NodeStep {
  /** Ω(θ; e) (Eq. 2). */
  readonly omega: number;
  /** The node block of P_e(θ) (its edges are θ's with {@link edgeWrites} applied). */
  readonly expandedNodes: Float64Array;
  /** The node block of θ' = Q(P_e(θ)) (Q leaves edges unchanged). */
  readonly nextNodes: Float64Array;
  /** The edge weights P_e writes (θ' has them), in ascending coordinate order. */
  readonly edgeWrites: readonly EdgeWrite[];
}

/** The edge weights e writes and their values in P_e(θ), in ascending coordinate order. */
export function expandEdgeWrites(shape: OperatorShape, edges: EdgeSource, item: CompiledItem): EdgeWrite[] {
  const n = shape.nmax;
  const nn = n * n;
  const out: EdgeWrite[] = [];
  for (let f = 0; f < item.footprint.length; f++) {
    const idx = item.footprint[f]!;
    if (idx < shape.edgeOffset) continue;
    const rel = idx - shape.edgeOffset;
    const block = Math.floor(rel / nn) as EdgeBlockIndex;
    const row = Math.floor((rel - block * nn) / n);
    const col = rel - block * nn - row * n;
    out.push({ block, row, col, value: blend(edges.value(block, row, col), item.rates[f]!, item.target[f]!) });
  }
  return out;
}

/**
 * The fused step over a state given as its node block and its edges in any storage: Ω(θ; e)
 * (Eq. 2) and the node block of θ' = Q(P_e(θ)) (Eq. 1) from ONE fused pass over the rows (Q's
 * sums of θ and of P_e θ together). `indexFor(expandedNodes)` may supply a {@link MergeIndex}
 * for the merge of P_e θ's claims (valid for those attributes); it is called after every read
 * of `edges` (so it may write e's edge values into the storage) and without it the merge visits
 * all pairs. Both results are bit for bit the generic evaluation (module comment) whatever the
 * storage. Nothing is modified.
 * Cost: two passes over the present edges + O(Nmax + |F_e|) + the merge.
 */
export function stepOver(
  shape: OperatorShape,
  params: GraphOperatorParams,
  nodes: Float64Array,
  edges: EdgeSource,
  item: CompiledItem,
  indexFor?: (expandedNodes: Float64Array) => MergeIndex | undefined,
): NodeStep {
  notAbsorbing(params);
  const n = shape.nmax;
  const k = shape.k;
  const k1 = k + 1;
  const ed = itemEdits(shape, item, nodes, edges);
  const c = readConfidences(shape, nodes);
  const cE = expandedConfidences(ed, c);
  const sums = fusedSums(edges, expandedEdges(edges, ed), ed, c, cE, params.tauContradict, null, null);
  const c0 = new Float64Array(n);
  const c1 = new Float64Array(n);
  confidenceUpdate(shape, params, c, sums.s0, sums.ws0, c0);
  confidenceUpdate(shape, params, cE, sums.s1, sums.ws1, c1);
  // θ' = Q(P_e θ): what referenceConsolidate does after its passes
  const nodes1 = nodes.slice(0, shape.edgeOffset);
  expandNodesInPlace(shape, ed, nodes, nodes1);
  const next = nodes1.slice();
  const edgeWrites = expandEdgeWrites(shape, edges, item); // before indexFor may apply them
  mergeClaims(shape, params, nodes1, sums.s1.diag, next, indexFor?.(nodes1));
  for (let s = 0; s < n; s++) next[s * k1 + k] = c1[s]!;
  const affected = mergeAffected(shape, params, nodes, nodes1, sums.s0.diag, sums.s1.diag, ed);
  const merged0 = new Map<number, Float64Array>();
  for (const i of affected) merged0.set(i, mergedAttributes(shape, params, nodes, sums.s0.diag, i));
  const omega = nodeDistance(shape, nodes, ed, null, c0, merged0, (x) => next[x]!);
  return { omega, expandedNodes: nodes1, nextNodes: next, edgeWrites };
}

/**
 * One step of the recursion with its order-gap: θ' = Q(P_e(θ)) and Ω(θ; e) (Eq. 2) in one call,
 * the reference graph's step capability for a dense θ: {@link stepOver} over θ's dense edges,
 * with θ' = P_e(θ) (formed once) whose node block is then replaced. `next` is bit for bit
 * `referenceConsolidate(shape, params, referenceExpand(item, θ))` and `omega` bit for bit the
 * generic evaluation (see {@link graphOrderGap}).
 * Preconditions as {@link graphOrderGap}; θ is not modified.
 * Cost: one copy of θ (d) + two passes over the edges of θ (O(Nmax²) dense) + O(C²·mergeDims)
 * for the merge of θ'.
 * @example
 * ```ts
 * const sc = defaultScenario();
 * const { omega, next } = graphStep(sc.shape, sc.params, sc.theta0, sc.items[0]);
 * ```
 */
export function graphStep(
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
): GraphStep {
  if (params.absorbRadius > 0) {
    const qpe = referenceConsolidate(shape, params, referenceExpand(item, theta));
    return { omega: definitionOrderGap(shape, params, theta, item, qpe), next: qpe };
  }
  const next = referenceExpand(item, theta);
  const r = stepOver(shape, params, theta.subarray(0, shape.edgeOffset), denseEdges(shape, theta), item);
  next.set(r.nextNodes, 0);
  return { omega: r.omega, next };
}
