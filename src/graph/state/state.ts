/**
 * The structured state of the reference graph: θ = φ(S) (Def. 2.2) held as its node block
 * (dense, (k+1)·Nmax doubles) and its three edge blocks as CSR (rows = source slot, columns
 * ascending) with a by-column index (CSC) — 24 bytes per present edge instead of 8·3·Nmax²
 * doubles. Every operation equals, bit for bit, the same operation on the dense θ with the
 * reference operators (../operators/consolidate.ts, ../operators/expand.ts), because both run the one implementation
 * over an {@link EdgeSource} (../operators/orderGap.ts) and the dense θ's absent edges are exactly 0:
 *
 * - a step is {@link stepOver} (one fused pass: Ω and Q(P_e θ)'s node block), then e's edge
 *   writes are applied in place; an edge P_e adds for the first time is inserted in place, in
 *   the CSR and the CSC alike: the block's entries after it move up within arrays grown with
 *   room to spare (O(entries after it + Nmax), no allocation while the room lasts — values
 *   written later are updated in place, O(log row));
 * - Ω alone, and the scheduling estimate, is the neighbourhood pass of {@link orderGapOver}:
 *   exactly Ω (../operators/orderGap.ts module comment) without a pass of Q over the whole state;
 * - the merge of near-duplicate claims visits the pairs a maintained neighbour list names
 *   ({@link MergeIndex}): the pairs of claims within the merge radius are kept up to date as
 *   P_e and Q move claims, so a step costs O(moved claims · C) there instead of O(C²);
 * - with the absorbing merge on (`absorbRadius` > 0) Q writes the absorbed claims' edges, applied
 *   like P_e's, and Ω is the definition on two copies of the state (the neighbourhood pass
 *   assumes Q writes no edge).
 *
 * Memory: the node block, 24 bytes per stored edge (CSR + CSC), 4·(Nmax + 1) per block for the
 * row and column starts, and the neighbour lists (a few entries per claim near another) — what
 * `bytes` counts, the lists aside; beside it, the room an edge array that grew keeps for later
 * insertions (1/16 of it + 64 entries), and, made on first use and reused by every later step,
 * one spare node block (Q's output, swapped with the node block, and the order-gap's P_e θ) and
 * one set of per-slot scratch that Q and the order-gap pass share (they never run at once, Q's
 * weighted sums aside: 3·Nmax doubles of its own), and
 * Q's structure sums kept across steps (7·Nmax doubles: formed again only at the slots whose edges
 * change), so a step allocates nothing of O(Nmax).
 */
import { ArgumentError } from '../../util/errors.js';
import { referenceDistance } from '../../blas1/dnrm2.js';
import {
  absorbingPairs,
  absorptionWeight,
  absorptionWrites,
  consolidateNodes,
  emptyStructureSums,
  emptyWeightedSums,
  runPosition,
  slotStructure,
  structureSums,
  type ConsolidateScratch,
  type CsrBlock,
  type StructureSums,
  type EdgeBlockIndex,
  type EdgeSource,
  type MergeIndex,
} from '../operators/consolidate.js';
import { entryConfidenceInPlace, expansionResidualOf, type CompiledItem } from '../operators/expand.js';
import {
  columnsOf,
  csrEdges,
  expandEdgeWrites,
  orderGapOver,
  orderGapScratch,
  type OrderGapScratch,
  type CscBlock,
  type EdgeWrite,
  type IndexedGraphState,
  type SparseGraphState,
} from '../operators/orderGap.js';
import type { GraphOperatorParams } from '../operators/params.js';
import type { OperatorShape } from '../model/shape.js';
import { decodeParts, graphEntries, type Layout } from '../model/layout.js';
import type { EpistemicGraph } from '../model/model.js';

/**
 * One edge type's block: CSR and its by-column index. The index is null in a copy made for
 * reading ({@link copyStructuredInto}) and formed from the rows when first needed
 * ({@link columnsOfBlock}): the same arrays the kept index holds.
 */
interface Block {
  rowStart: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
  csc: CscBlock | null;
}

/** Block b's by-column index, formed from its rows if the block has none (O(nnz + Nmax) then). */
function columnsOfBlock(b: Block): CscBlock {
  return (b.csc ??= columnsOf(b, b.rowStart.length - 1));
}

/**
 * A mutable structured graph state (see the module comment). Build it with
 * {@link structuredFromDense} or {@link structuredFromSparse}; change it only through the
 * functions of this module, which keep its edges, index and neighbour lists consistent.
 */
export class StructuredGraphState {
  /** The node block: θ's first (k+1)·Nmax coordinates. */
  nodes: Float64Array;
  /** @internal */
  blocks: [Block, Block, Block];
  /** @internal Per claim: the other claims within the merge radius, ascending (null: none). */
  near: (number[] | null)[];
  /** @internal Claims with a non-empty neighbour list. */
  nearClaims: Set<number>;
  /**
   * @internal The merge grid over the live claims; null while the neighbour lists are not built
   * (a copy builds them on its first change: {@link ensureNear}).
   */
  grid: MergeGrid | null = null;
  /** @internal The one node-block scratch Q writes into (swapped with `nodes`), made on first use. */
  spare: Float64Array | null = null;
  /** @internal Q's per-slot scratch (sums, confidences), made on first use. */
  scratch: ConsolidateScratch | null = null;
  /** @internal The order-gap's per-slot scratch, made on first use. */
  omegaScratch: OrderGapScratch | null = null;
  /**
   * @internal Q's structure sums of the edges, kept across steps (null: not formed yet); exact
   * except at the slots in `staleSums`, whose edges changed since ({@link currentSums}).
   */
  sums: StructureSums | null = null;
  /** @internal Slots whose kept structure sums must be formed again. */
  readonly staleSums = new Set<number>();

  /** @internal */
  constructor(nodes: Float64Array, blocks: [Block, Block, Block], claims: number) {
    this.nodes = nodes;
    this.blocks = blocks;
    this.near = new Array<number[] | null>(claims).fill(null);
    this.nearClaims = new Set();
  }

  /** Number of stored edge weights (stored zeros included). */
  get storedEdges(): number {
    return this.blocks[0].cols.length + this.blocks[1].cols.length + this.blocks[2].cols.length;
  }

  /** The bytes the typed arrays of the state hold (nodes, CSR, CSC where formed): {@link typedArrays}. */
  get bytes(): number {
    let b = 0;
    for (const a of this.typedArrays()) b += a.byteLength;
    return b;
  }

  /**
   * @internal The typed arrays the state holds: the node block, then per edge block its CSR
   * (row starts, columns, weights) and, where formed, its CSC (column starts, rows, weights).
   */
  typedArrays(): (Float64Array | Int32Array)[] {
    const out: (Float64Array | Int32Array)[] = [this.nodes];
    for (const x of this.blocks) {
      out.push(x.rowStart, x.cols, x.vals);
      if (x.csc) out.push(x.csc.colStart, x.csc.rows, x.csc.vals);
    }
    return out;
  }

  /** The state's edges and index as the {@link IndexedGraphState} the passes read. */
  indexed(): IndexedGraphState {
    const [a, b, c] = this.blocks;
    const csr = (x: Block): CsrBlock => ({ rowStart: x.rowStart, cols: x.cols, vals: x.vals });
    const csc = columnsOfBlock;
    return { nodes: this.nodes, edges: [csr(a), csr(b), csr(c)], columns: [csc(a), csc(b), csc(c)] };
  }
}

function blockOf(csr: CsrBlock, nmax: number): Block {
  const rows = {
    rowStart: Int32Array.from(csr.rowStart),
    cols: Int32Array.from(csr.cols),
    vals: Float64Array.from(csr.vals),
  };
  return { ...rows, csc: columnsOf(rows, nmax) };
}

/** Position of column i in row j of a block's CSR, or −1. */
function csrPos(b: Block, j: number, i: number): number {
  return runPosition(b.cols, b.rowStart[j]!, b.rowStart[j + 1]!, i);
}

/** Position of row j in column i of a block's CSC, or −1. */
function cscPos(b: Block, j: number, i: number): number {
  const c = columnsOfBlock(b);
  return runPosition(c.rows, c.colStart[i]!, c.colStart[i + 1]!, j);
}

/** The weight of edge j → i of block t (0 if absent). O(log row length). */
export function structuredEdge(state: StructuredGraphState, t: EdgeBlockIndex, j: number, i: number): number {
  const b = state.blocks[t];
  const p = csrPos(b, j, i);
  return p < 0 ? 0 : b.vals[p]!;
}

/**
 * θ_index of the structured state (any coordinate of the dense θ). O(1) on the node block,
 * O(log row length) on an edge.
 * @throws {ArgumentError} index outside [0, d).
 */
export function structuredValue(shape: OperatorShape, state: StructuredGraphState, index: number): number {
  if (!(Number.isInteger(index) && index >= 0 && index < shape.dim))
    throw new ArgumentError('index', index, `must be an integer in [0, ${shape.dim})`);
  if (index < shape.edgeOffset) return state.nodes[index]!;
  const n = shape.nmax;
  const nn = n * n;
  const rel = index - shape.edgeOffset;
  const t = Math.floor(rel / nn) as EdgeBlockIndex;
  const j = Math.floor((rel - t * nn) / n);
  return structuredEdge(state, t, j, rel - t * nn - j * n);
}

// ---------------------------------------------------------------------------------------------
// the neighbour lists of the merge

/** r² < h² on the first mergeDims attributes (the test of `mergeClaim`), with early exit. */
function within(nodes: Float64Array, k1: number, md: number, h2: number, i: number, j: number): boolean {
  const oi = i * k1;
  const oj = j * k1;
  let r2 = 0;
  for (let t = 0; t < md; t++) {
    const d = nodes[oj + t]! - nodes[oi + t]!;
    r2 += d * d;
    if (r2 >= h2) return false;
  }
  return true;
}

function live(state: StructuredGraphState, j: number): boolean {
  return structuredEdge(state, 0, j, j) !== 0;
}

function setNear(state: StructuredGraphState, i: number, list: number[] | null): void {
  state.near[i] = list && list.length ? list : null;
  if (state.near[i]) state.nearClaims.add(i);
  else state.nearClaims.delete(i);
}

/** The {@link MergeGrid.fine} key of a claim whose cells there are not exact small integers. */
const FINE_ANY = -1;

/**
 * False only where two {@link MergeGrid.fine} keys put their claims in cells two or more apart
 * in some attribute. Each 10-bit field holds a cell modulo 1024, so a difference in {−1, 0, 1}
 * reads as (d + 1) mod 1024 in {0, 1, 2}, and cells far apart that wrap round read as near,
 * never the reverse; fields past the g2 attributes are 0 in both keys. The three fields are
 * tested together, without a branch per field (this runs for every candidate of a re-check).
 */
function fineKeysMayBeNear(a: number, b: number): boolean {
  if (a === FINE_ANY || b === FINE_ANY) return true;
  const d0 = (a - b + 1) & 1023;
  const d1 = ((a >> 10) - (b >> 10) + 1) & 1023;
  const d2 = ((a >> 20) - (b >> 20) + 1) & 1023;
  return ((d0 + 1) | (d1 + 1) | (d2 + 1)) < 4; // each d_t + 1 in {1, 2, 3} exactly when d_t <= 2
}

/**
 * The merge grid: live claims (S_jj ≠ 0) binned on their first g = min(3, mergeDims)
 * attributes with cells of width h·(1 + 2⁻²⁰). Two claims within distance h differ by less
 * than h in each of those attributes, hence lie in the same or adjacent cells; the slack absorbs
 * the rounding of x/width (relative error <= eps) while |x|/h < 2³². So the claims of the 3^g
 * cells around a claim include every claim within h of it. The same holds for any other of the
 * first mergeDims attributes ({@link buildNear} filters by cells on the next ones).
 */
class MergeGrid {
  readonly bins = new Map<number | string, number[]>();
  readonly keyOf: (number | string | null)[];
  readonly g: number;
  readonly width: number;
  /**
   * Per placed claim its cells in the next `g2` attributes (g … g+g2−1) modulo 1024, 10 bits
   * each, or {@link FINE_ANY} where a cell is not below 2³¹ in magnitude (non-finite or huge
   * attributes): the necessary condition {@link fineKeysMayBeNear} reads, 4 bytes per claim.
   */
  readonly fine: Int32Array;
  readonly g2: number;
  private readonly offsets: number[][];
  private readonly cellScratch: number[];
  /**
   * An empty grid for `claims` claims, binned on their first `g` attributes with cells of
   * `width`, keeping the cells of the next `g2` (<= 3) for {@link fineKeysMayBeNear}.
   */
  constructor(claims: number, g: number, width: number, g2: number) {
    this.keyOf = new Array<number | string | null>(claims).fill(null);
    this.g = g;
    this.width = width;
    this.g2 = g2;
    this.fine = new Int32Array(claims);
    const offsets: number[][] = [[]];
    for (let t = 0; t < this.g; t++)
      offsets.splice(0, offsets.length, ...offsets.flatMap((o) => [-1, 0, 1].map((d) => [...o, d])));
    this.offsets = offsets;
    this.cellScratch = new Array<number>(this.g).fill(0);
  }
  /** The grid of the merge radius of `p` for `shape`'s claims, empty. */
  static of(shape: OperatorShape, p: GraphOperatorParams): MergeGrid {
    const g = Math.min(3, shape.mergeDims);
    return new MergeGrid(shape.claims, g, p.mergeRadius * (1 + 2 ** -20), Math.min(3, shape.mergeDims - g));
  }
  /** An independent copy: the same bins with their claims in the same order. O(claims). */
  copy(): MergeGrid {
    const c = new MergeGrid(this.keyOf.length, this.g, this.width, this.g2);
    for (const [key, b] of this.bins) c.bins.set(key, b.slice());
    c.fine.set(this.fine);
    for (let i = 0; i < this.keyOf.length; i++) c.keyOf[i] = this.keyOf[i]!;
    return c;
  }
  private cell(nodes: Float64Array, k1: number, i: number): number[] {
    const c = this.cellScratch;
    for (let t = 0; t < this.g; t++) c[t] = Math.floor(nodes[i * k1 + t]! / this.width);
    return c;
  }
  /**
   * Whether every claim of `ids` lies in a cell whose coordinates, shifted by −1, 0 or 1, stay
   * inside the range of the number keys (|cell| < 2¹⁶ − 1): then its attributes are finite and
   * the claims of the cells around it have finite attributes too.
   */
  fits(nodes: Float64Array, k1: number, ids: readonly number[]): boolean {
    for (const i of ids) {
      const c = this.cell(nodes, k1, i);
      for (let t = 0; t < this.g; t++) if (!(c[t]! > 1 - 2 ** 16 && c[t]! < 2 ** 16 - 1)) return false;
    }
    return true;
  }

  /**
   * The bin key of a cell (shifted by `o`): one number while every cell coordinate lies in
   * (−2¹⁶, 2¹⁶) — g base-2¹⁷ digits, so distinct cells give distinct integers below 2⁵¹ (exact
   * in f64) — else the coordinates joined as a string (never equal to a number key).
   */
  private key(c: readonly number[], o?: readonly number[]): number | string {
    let key = 0;
    for (let t = 0; t < this.g; t++) {
      const x = c[t]! + (o ? o[t]! : 0);
      if (!(x > -(2 ** 16) && x < 2 ** 16)) return c.map((y, u) => y + (o ? o[u]! : 0)).join(',');
      key = key * 2 ** 17 + (x + 2 ** 16);
    }
    return key;
  }
  /** Puts claim i in its cell for `nodes` (or takes it out when `present` is false). */
  place(nodes: Float64Array, k1: number, i: number, present: boolean): void {
    const old = this.keyOf[i];
    const key = present ? this.key(this.cell(nodes, k1, i)) : null;
    if (key !== null) this.fine[i] = this.fineKey(nodes, k1, i);
    if (old === key) return;
    if (old !== null && old !== undefined) {
      const b = this.bins.get(old)!;
      b.splice(b.indexOf(i), 1);
      if (b.length === 0) this.bins.delete(old);
    }
    this.keyOf[i] = key;
    if (key !== null) {
      const b = this.bins.get(key);
      if (b) b.push(i);
      else this.bins.set(key, [i]);
    }
  }
  /** Claim i's cells in attributes g … g+g2−1, modulo 1024, 10 bits each ({@link fine}). */
  private fineKey(nodes: Float64Array, k1: number, i: number): number {
    let key = 0;
    for (let t = 0; t < this.g2; t++) {
      const c = Math.floor(nodes[i * k1 + this.g + t]! / this.width);
      if (!(c > -(2 ** 31) && c < 2 ** 31)) return FINE_ANY;
      key = (key << 10) | (c & 1023);
    }
    return key;
  }
  /** The claims of the cells around claim i (i included). */
  around(nodes: Float64Array, k1: number, i: number): number[] {
    const out: number[] = [];
    for (const b of this.aroundBins(nodes, k1, i)) for (let r = 0; r < b.length; r++) out.push(b[r]!);
    return out;
  }
  /**
   * The placed claims that may lie within the merge radius of claim i's position in `nodes`:
   * those of {@link around} whose fine cells ({@link fine}, of their placed attributes) pass
   * {@link fineKeysMayBeNear} against the cells of that position — a superset of the placed
   * claims within h of it, by the argument of the class comment applied to the attributes
   * g … g+g2−1. About 1 in 80 of the cells' claims at Nmax 65536.
   */
  nearPosition(nodes: Float64Array, k1: number, i: number): number[] {
    const key = this.fineKey(nodes, k1, i);
    const out: number[] = [];
    for (const b of this.aroundBins(nodes, k1, i))
      for (let r = 0; r < b.length; r++) if (fineKeysMayBeNear(key, this.fine[b[r]!]!)) out.push(b[r]!);
    return out;
  }
  /** The non-empty bins of the cells around claim i (i's among them), each read, not copied. */
  aroundBins(nodes: Float64Array, k1: number, i: number): number[][] {
    const c = this.cell(nodes, k1, i);
    const out: number[][] = [];
    for (const o of this.offsets) {
      const b = this.bins.get(this.key(c, o));
      if (b) out.push(b);
    }
    return out;
  }
}

/**
 * Recomputes the neighbour lists of the claims in `moved` for the state's current attributes and
 * live claims, and updates their partners' lists. A claim's neighbours change only when it or a
 * partner moves, so lists of claims that did not move and whose partners did not move stay
 * exact. The moved claims are placed in the grid in their order in `moved`; then each moved
 * claim's list is found afresh among the claims of its cells, and each partner's list (a claim
 * that did not move, near a moved one before or after) is its old list without the moved claims
 * merged with the moved claims now near it — every list is the ascending set of live claims
 * within the merge radius, as one list per moved claim updated in turn gives it, without
 * splicing each moved claim out of and into every partner's list.
 * O(|moved| · 3^g · claims per cell · mergeDims + the partners' lists).
 */
function refreshNear(
  shape: OperatorShape,
  p: GraphOperatorParams,
  state: StructuredGraphState,
  moved: Iterable<number>,
): void {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const h2 = p.mergeRadius * p.mergeRadius;
  const nodes = state.nodes;
  const grid = state.grid!;
  const movedSet = new Set<number>();
  for (const i of moved) if (i < shape.claims) movedSet.add(i);
  if (movedSet.size === 0) return;
  /** Per partner: the moved claims now near it (in the order found; sorted below). */
  const gained = new Map<number, number[]>();
  for (const i of movedSet) {
    for (const j of state.near[i] ?? []) if (!movedSet.has(j) && !gained.has(j)) gained.set(j, []);
    grid.place(nodes, k1, i, live(state, i));
  }
  const fresh: Array<[number, number[] | null]> = [];
  for (const i of movedSet) {
    if (grid.keyOf[i] === null) {
      fresh.push([i, null]);
      continue;
    }
    const list: number[] = [];
    const key = grid.fine[i]!;
    for (const bin of grid.aroundBins(nodes, k1, i))
      for (let r = 0; r < bin.length; r++) {
        const j = bin[r]!;
        if (j === i || !fineKeysMayBeNear(key, grid.fine[j]!) || !within(nodes, k1, md, h2, i, j)) continue;
        list.push(j);
        if (movedSet.has(j)) continue;
        const g = gained.get(j);
        if (g) g.push(i);
        else gained.set(j, [i]);
      }
    list.sort((a, b) => a - b);
    fresh.push([i, list]);
  }
  for (const [i, list] of fresh) setNear(state, i, list);
  for (const [j, add] of gained) {
    const kept = (state.near[j] ?? []).filter((x) => !movedSet.has(x));
    add.sort((a, b) => a - b);
    const list: number[] = [];
    let a = 0;
    let b = 0;
    while (a < kept.length || b < add.length)
      list.push(b >= add.length || (a < kept.length && kept[a]! < add[b]!) ? kept[a++]! : add[b++]!);
    setNear(state, j, list);
  }
}

/**
 * Called while a state is built with the claims whose neighbour lists are done and all claims
 * (the merge index is the part of the build that grows fastest with Nmax: ../scenarios/syntheticCost.ts).
 */
export type BuildProgress = (done: number, total: number) => void;

/**
 * The build's cells beyond the grid's ({@link nearInBin}): per claim its cells in the next g'
 * attributes, and the first s of them as one number (NaN where a cell is not below
 * {@link CELL_LIMIT}); and the per-bin scratch, grown as needed.
 */
interface FineCells {
  g2: number;
  s: number;
  key: Float64Array;
  cells: Int32Array;
  keys: Float64Array;
  ids: Int32Array;
  sorted: Int32Array;
}

/** Cells below this in magnitude are sorted and compared exactly as integers ({@link nearInBin}). */
const CELL_LIMIT = 2 ** 16 - 1;

/** The {@link FineCells} of the live claims (cells of attributes g … g+g'−1). O(C · g'). */
function fineCells(shape: OperatorShape, width: number, nodes: Float64Array, grid: MergeGrid): FineCells {
  const k1 = shape.k + 1;
  const g = grid.g;
  const g2 = Math.min(3, shape.mergeDims - g);
  const s = Math.min(2, g2);
  const key = new Float64Array(shape.claims);
  const cells = new Int32Array(shape.claims * g2);
  for (const members of grid.bins.values())
    for (const i of members) {
      let x = 0;
      for (let t = 0; t < g2; t++) {
        const c = Math.floor(nodes[i * k1 + g + t]! / width);
        if (!(c > -CELL_LIMIT && c < CELL_LIMIT)) x = NaN;
        else cells[i * g2 + t] = c;
        if (t < s) x = x * 2 ** 17 + (c + 2 ** 16);
      }
      key[i] = x;
    }
  const none = new Int32Array(0);
  return { g2, s, key, cells, keys: new Float64Array(0), ids: none, sorted: none };
}

/**
 * The neighbour lists of a bin's claims among `cand` (the claims of the cells around the bin),
 * filtered first by the cells of the next g' = min(3, mergeDims − g) attributes beyond the
 * grid's g ({@link fineCells}): the candidates are sorted by their cells in the first s =
 * min(2, g') of them (one number, base-2¹⁷ digits), each claim visits the 3^(s−1) runs within
 * ±1 of its own cells there and tests those candidates within ±1 in the others. Two claims
 * within h lie in the same or adjacent cells in every one of the first mergeDims attributes
 * (see {@link MergeGrid}: the test's partial sums over the finite attributes up to there stay
 * below h²), so every claim within h is visited and the lists are those of testing every
 * candidate. Returns false, doing nothing, where a candidate's cells there are not below
 * {@link CELL_LIMIT} (non-finite or huge attributes) or the candidates are too many for exact
 * keys: the caller then tests every one.
 */
function nearInBin(
  shape: OperatorShape,
  h2: number,
  state: StructuredGraphState,
  members: readonly number[],
  cand: readonly number[],
  fine: FineCells,
): boolean {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const { g2, s, cells } = fine;
  const nodes = state.nodes;
  const n = cand.length;
  let span = 1;
  while (span <= n) span *= 2;
  if (span > 2 ** 18) return false; // keys below 2^(17·s) · span <= 2⁵³: exact
  if (fine.ids.length < n) {
    fine.keys = new Float64Array(2 * n);
    fine.ids = new Int32Array(2 * n);
    fine.sorted = new Int32Array(2 * n * g2);
  }
  const { keys, ids, sorted } = fine;
  for (let b = 0; b < n; b++) {
    const key = fine.key[cand[b]!]!;
    if (Number.isNaN(key)) return false;
    keys[b] = key * span + b;
  }
  const order = keys.subarray(0, n).sort();
  for (let r = 0; r < n; r++) {
    const j = cand[order[r]! % span]!;
    ids[r] = j;
    for (let t = s; t < g2; t++) sorted[r * g2 + t] = cells[j * g2 + t]!;
    keys[r] = fine.key[j]!; // the sorted cells, in place of the sorted keys
  }
  for (const i of members) {
    const key = fine.key[i]!; // i is among the candidates: a number
    let list: number[] | null = null;
    for (let d = s === 2 ? -1 : 0; d <= (s === 2 ? 1 : 0); d++) {
      const mid = key + d * 2 ** 17; // the run of cells (own[0] + d, own[1] ± 1), or own[0] ± 1
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (keys[m]! < mid - 1) lo = m + 1;
        else hi = m;
      }
      for (let r = lo; r < n && keys[r]! <= mid + 1; r++) {
        let t = s;
        while (t < g2 && Math.abs(sorted[r * g2 + t]! - cells[i * g2 + t]!) <= 1) t++;
        const j = ids[r]!;
        if (t === g2 && j !== i && within(nodes, k1, md, h2, i, j)) (list ??= []).push(j);
      }
    }
    setNear(state, i, list === null ? null : list.sort((a, b) => a - b));
  }
  return true;
}

/**
 * All neighbour lists and the grid from scratch. The claims of a bin share the candidates of the
 * cells around it, filtered by {@link nearInBin} where the attributes allow; else each claim
 * tests every candidate. O(C · claims around each in all g + g' filtered attributes + bins ·
 * candidates · log).
 */
function buildNear(
  shape: OperatorShape,
  p: GraphOperatorParams,
  state: StructuredGraphState,
  onProgress?: BuildProgress,
): void {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const h2 = p.mergeRadius * p.mergeRadius;
  const nodes = state.nodes;
  const grid = MergeGrid.of(shape, p);
  state.grid = grid;
  let placed = 0;
  for (let i = 0; i < shape.claims; i++)
    if (live(state, i)) {
      grid.place(nodes, k1, i, true);
      placed++;
    }
  state.near.fill(null);
  state.nearClaims.clear();
  const fine = md > grid.g ? fineCells(shape, grid.width, nodes, grid) : null;
  let done = 0;
  onProgress?.(0, placed);
  for (const members of grid.bins.values()) {
    const cand = grid.around(nodes, k1, members[0]!);
    const filtered = fine !== null && grid.fits(nodes, k1, members) && nearInBin(shape, h2, state, members, cand, fine);
    if (!filtered)
      for (const i of members) {
        let list: number[] | null = null;
        for (const j of cand) if (j !== i && within(nodes, k1, md, h2, i, j)) (list ??= []).push(j);
        setNear(state, i, list === null ? null : list.sort((a, b) => a - b));
      }
    done += members.length;
    onProgress?.(done, placed);
  }
}

/**
 * The live claims within the merge radius of claim i (r² < h² on the first mergeDims attributes,
 * the test of `mergeClaim`), ascending; the neighbour lists are built on first use. O(1) after.
 */
export function structuredMergeNeighbours(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  i: number,
): readonly number[] {
  ensureNear(shape, params, state);
  return state.near[i] ?? [];
}

/** Builds the neighbour lists and the grid of a state that has none yet (a copy). */
function ensureNear(shape: OperatorShape, p: GraphOperatorParams, state: StructuredGraphState): MergeGrid {
  if (state.grid === null) buildNear(shape, p, state);
  return state.grid!;
}

/** The state's neighbour lists as the {@link MergeIndex} of `mergeClaims`. */
function mergeIndexOf(state: StructuredGraphState): MergeIndex {
  return {
    claims: () => [...state.nearClaims].sort((a, b) => a - b),
    candidates: (i) => state.near[i] ?? [],
  };
}

// ---------------------------------------------------------------------------------------------
// building and converting

/**
 * A structured state from a node block and CSR edge blocks (copied). O(nnz + Nmax + C·candidates).
 * `onProgress` follows the build of the merge index (see {@link BuildProgress}).
 */
export function structuredFromSparse(
  shape: OperatorShape,
  params: GraphOperatorParams,
  sparse: SparseGraphState,
  onProgress?: BuildProgress,
): StructuredGraphState {
  if (sparse.nodes.length !== shape.edgeOffset)
    throw new ArgumentError('state.nodes', sparse.nodes.length, `must have (k+1)·Nmax = ${shape.edgeOffset} entries`);
  const st = new StructuredGraphState(
    Float64Array.from(sparse.nodes),
    sparse.edges.map((b) => blockOf(b, shape.nmax)) as [Block, Block, Block],
    shape.claims,
  );
  buildNear(shape, params, st, onProgress);
  return st;
}

/** The structured state of a dense θ (one streaming pass over its edge block). */
export function structuredFromDense(
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: Float64Array,
): StructuredGraphState {
  if (theta.length !== shape.dim) throw new ArgumentError('theta', theta, `must have length d = ${shape.dim}`);
  const n = shape.nmax;
  const nn = n * n;
  const blocks: CsrBlock[] = [];
  for (let t = 0; t < 3; t++) {
    const rowStart = new Int32Array(n + 1);
    const cols: number[] = [];
    const vals: number[] = [];
    const base = shape.edgeOffset + t * nn;
    for (let j = 0; j < n; j++) {
      rowStart[j] = cols.length;
      for (let i = 0; i < n; i++) {
        const w = theta[base + j * n + i]!;
        if (w === 0) continue;
        cols.push(i);
        vals.push(w);
      }
    }
    rowStart[n] = cols.length;
    blocks.push({ rowStart, cols: Int32Array.from(cols), vals: Float64Array.from(vals) });
  }
  return structuredFromSparse(shape, params, {
    nodes: theta.subarray(0, shape.edgeOffset),
    edges: blocks as [CsrBlock, CsrBlock, CsrBlock],
  });
}

/** The dense θ of a structured state (length d; O(d) memory). */
export function structuredToDense(shape: OperatorShape, state: StructuredGraphState): Float64Array {
  const n = shape.nmax;
  const theta = new Float64Array(shape.dim);
  theta.set(state.nodes, 0);
  state.blocks.forEach((b, t) => {
    const base = shape.edgeOffset + t * n * n;
    for (let j = 0; j < n; j++)
      for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++) theta[base + j * n + b.cols[e]!] = b.vals[e]!;
  });
  return theta;
}

/**
 * An independent copy: node block, edges and index. Without `neighbours` the merge's neighbour
 * lists are not copied: the copy rebuilds them on its first change (O(C · claims around each)),
 * so a copy that is only read — a run's best state — costs O(Nmax·k + nnz) and nothing more.
 * With `neighbours` (and a state whose lists are built) the lists and the merge grid are copied
 * as they are, in O(C) more: a copy that will be stepped starts where the original is, with no
 * rebuild (the lists are never changed in place, only replaced, so the copy shares them).
 */
export function copyStructured(state: StructuredGraphState, neighbours = false): StructuredGraphState {
  const copy = copyStructuredInto(state, null);
  copy.blocks.forEach((b, t) => {
    const c = state.blocks[t]!.csc;
    if (c) b.csc = { colStart: c.colStart.slice(), rows: c.rows.slice(), vals: c.vals.slice() };
  });
  if (neighbours && state.grid !== null) {
    copy.near = state.near.slice();
    copy.nearClaims = new Set(state.nearClaims);
    copy.grid = state.grid.copy();
  }
  return copy;
}

/**
 * {@link copyStructured} into `into`'s storage, without the by-column index: a copy kept for
 * reading (a run's best state) needs only the rows, and a copy that is changed forms the index
 * from them first (the same arrays). Every array is overwritten in place, within the capacity of
 * its buffer ({@link withLength}: an edge array that grew past it is allocated with the same
 * slack as the state's own), so a run that keeps copying a state whose edges grow allocates only
 * when the edges outgrow that slack. Returns the copy (`into`, or a new state when null). `into`
 * must not be `state`.
 */
export function copyStructuredInto(
  state: StructuredGraphState,
  into: StructuredGraphState | null,
): StructuredGraphState {
  const same = <T extends Int32Array | Float64Array>(src: T, dst: T | undefined): T => {
    if (dst === undefined) return src.slice() as T;
    const out = dst.length === src.length ? dst : withLength(dst, src.length);
    out.set(src);
    return out;
  };
  const blocks = state.blocks.map((b, t) => {
    const d = into?.blocks[t];
    return {
      rowStart: same(b.rowStart, d?.rowStart),
      cols: same(b.cols, d?.cols),
      vals: same(b.vals, d?.vals),
      csc: null,
    };
  }) as [Block, Block, Block];
  const nodes = same(state.nodes, into?.nodes);
  if (into === null) return new StructuredGraphState(nodes, blocks, state.near.length);
  into.nodes = nodes;
  into.blocks = blocks;
  into.sums = null;
  into.staleSums.clear();
  into.near.fill(null);
  into.nearClaims.clear();
  into.grid = null;
  return into;
}

/**
 * The non-zero coordinates [index, value] of θ in ascending index order — what the dense
 * vector's scan for non-zeros gives, entry for entry (stored zeros are left out). O(Nmax·k + nnz).
 */
export function structuredEntries(shape: OperatorShape, state: StructuredGraphState): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const nodes = state.nodes;
  for (let i = 0; i < nodes.length; i++) if (nodes[i] !== 0) out.push([i, nodes[i]!]);
  const n = shape.nmax;
  state.blocks.forEach((b, t) => {
    const base = shape.edgeOffset + t * n * n;
    for (let j = 0; j < n; j++)
      for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++) {
        const w = b.vals[e]!;
        if (w !== 0) out.push([base + j * n + b.cols[e]!, w]);
      }
  });
  return out;
}

/** Calls `f(t, j, i, w)` for every non-zero edge in (type, source, target) order. */
export function forEachStructuredEdge(
  state: StructuredGraphState,
  f: (t: EdgeBlockIndex, j: number, i: number, w: number) => void,
): void {
  state.blocks.forEach((b, t) => {
    const n = b.rowStart.length - 1;
    for (let j = 0; j < n; j++)
      for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++) {
        const w = b.vals[e]!;
        if (w !== 0) f(t as EdgeBlockIndex, j, b.cols[e]!, w);
      }
  });
}

// ---------------------------------------------------------------------------------------------
// changing a state

/**
 * A view of length m on `a`'s buffer when it holds m elements from offset 0, else on a new buffer
 * with room to spare (1/16 + 64 more) holding `a`'s elements: the arrays of a block grow in place,
 * so an insertion moves entries instead of allocating the block anew.
 */
function withLength<T extends Int32Array | Float64Array>(a: T, m: number): T {
  const make = a instanceof Int32Array ? Int32Array : Float64Array;
  if (a.byteOffset === 0 && a.buffer.byteLength >= m * make.BYTES_PER_ELEMENT)
    return new make(a.buffer as ArrayBuffer, 0, m) as T;
  const grown = new make(m + (m >> 4) + 64);
  grown.set(a);
  return grown.subarray(0, m) as T;
}

/**
 * Inserts the absent edges `added` into one side of a block (CSR: lines = rows, `byColumn` false;
 * CSC: lines = columns): each at its place in its line, the lines' entries ascending. Entries move
 * from the back (copyWithin), the line starts shift by the count inserted before them: O(entries
 * after the first insertion + Nmax), the same arrays a rebuild gives (edges inserted in the
 * order of `added` where they tie). Returns the grown index and value arrays.
 */
function insertLines(
  starts: Int32Array,
  idx: Int32Array,
  vals: Float64Array,
  added: readonly EdgeWrite[],
  byColumn: boolean,
): { idx: Int32Array; vals: Float64Array } {
  const line = (w: EdgeWrite) => (byColumn ? w.col : w.row);
  const other = (w: EdgeWrite) => (byColumn ? w.row : w.col);
  const sorted = added.slice().sort((x, y) => line(x) - line(y) || other(x) - other(y));
  const k = sorted.length;
  const m = idx.length;
  const idx1 = withLength(idx, m + k);
  const vals1 = withLength(vals, m + k);
  let end = m; // old entries [0, end) are still in place
  let out = m + k;
  for (let a = k - 1; a >= 0; a--) {
    const w = sorted[a]!;
    let p = starts[line(w) + 1]!;
    const lo = starts[line(w)]!;
    while (p > lo && idx1[p - 1]! > other(w)) p--;
    out -= end - p;
    idx1.copyWithin(out, p, end);
    vals1.copyWithin(out, p, end);
    idx1[--out] = other(w);
    vals1[out] = w.value;
    end = p;
  }
  for (let j = 0, a = 0; j < starts.length; j++) {
    while (a < k && line(sorted[a]!) < j) a++;
    starts[j] = starts[j]! + a;
  }
  return { idx: idx1, vals: vals1 };
}

/** Inserts the absent edges `added` (row, col, value) into block b, CSR and CSC, in place. */
function insertEdges(b: Block, added: readonly EdgeWrite[]): void {
  const c = columnsOfBlock(b);
  const csr = insertLines(b.rowStart, b.cols, b.vals, added, false);
  const csc = insertLines(c.colStart, c.rows, c.vals, added, true);
  b.cols = csr.idx;
  b.vals = csr.vals;
  b.csc = { colStart: c.colStart, rows: csc.idx, vals: csc.vals };
}

/** Writes P_e's edge values into the state: in place where stored, inserting absent ones. */
function applyEdgeWrites(shape: OperatorShape, state: StructuredGraphState, writes: readonly EdgeWrite[]): void {
  const added: EdgeWrite[][] = [[], [], []];
  for (const w of writes) {
    const b = state.blocks[w.block];
    const p = csrPos(b, w.row, w.col);
    if (p >= 0) {
      b.vals[p] = w.value;
      columnsOfBlock(b).vals[cscPos(b, w.row, w.col)] = w.value;
    } else if (w.value !== 0) added[w.block]!.push(w);
  }
  for (let t = 0; t < 3; t++) if (added[t]!.length) insertEdges(state.blocks[t as EdgeBlockIndex], added[t]!);
  if (state.sums === null) return;
  // the kept sums of both endpoints; a Supports diagonal also weighs k̃ of its row's targets
  const S = state.blocks[0];
  for (const w of writes) {
    state.staleSums.add(w.row);
    state.staleSums.add(w.col);
    if (w.block === 0 && w.row === w.col)
      for (let e = S.rowStart[w.row]!; e < S.rowStart[w.row + 1]!; e++) state.staleSums.add(S.cols[e]!);
  }
}

/**
 * Q's structure sums of the state's edges, kept across steps: formed by one pass the first time,
 * then only the slots whose edges changed are formed again ({@link slotStructure}: bit for bit
 * the pass's values), so a step's Q reads the edges once instead of twice.
 */
function currentSums(shape: OperatorShape, state: StructuredGraphState, edges: EdgeSource): StructureSums {
  if (state.sums === null) {
    state.staleSums.clear();
    return (state.sums = structureSums(edges, emptyStructureSums(shape.nmax)));
  }
  for (const x of state.staleSums) slotStructure(state.sums, x, edges);
  state.staleSums.clear();
  return state.sums;
}

/** Claims whose merge attributes or Supports diagonal e writes. */
function claimsWritten(shape: OperatorShape, item: CompiledItem): number[] {
  const k1 = shape.k + 1;
  const n = shape.nmax;
  const out = new Set<number>();
  for (let f = 0; f < item.footprint.length; f++) {
    const x = item.footprint[f]!;
    if (x < shape.edgeOffset) {
      const s = Math.floor(x / k1);
      if (s < shape.claims && x - s * k1 < shape.mergeDims) out.add(s);
    } else {
      const rel = x - shape.edgeOffset;
      if (rel < n * n && rel % (n + 1) === 0 && rel / (n + 1) < shape.claims) out.add(rel / (n + 1));
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** The merge attributes of the claims `among` in `nodes`, one after the other (mergeDims each). */
function mergeAttributesOf(shape: OperatorShape, nodes: Float64Array, among: readonly number[]): Float64Array {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const out = new Float64Array(among.length * md);
  among.forEach((i, r) => out.set(nodes.subarray(i * k1, i * k1 + md), r * md));
  return out;
}

/** The claims of `among` whose merge attributes in `nodes` differ from `saved` ({@link mergeAttributesOf}). */
function claimsMoved(
  shape: OperatorShape,
  saved: Float64Array,
  nodes: Float64Array,
  among: readonly number[],
): number[] {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const out: number[] = [];
  among.forEach((i, r) => {
    for (let t = 0; t < md; t++)
      if (saved[r * md + t] !== nodes[i * k1 + t]) {
        out.push(i);
        break;
      }
  });
  return out;
}

/**
 * One step of Algorithm 1 on the state in place: returns Ω(θ; e) (Eq. 2) and sets θ ←
 * Q(P_e(θ)) (Eq. 1) — bit for bit {@link graphStep} on the dense θ. Ω comes from the
 * neighbourhood pass ({@link structuredOrderGap}: exact, and only e's neighbourhood is read), then
 * P_e and Q are applied in place; so one step reads the stored edges once (Q's second pass; its
 * first, the structure sums, is kept and formed again only where edges changed) where the fused
 * dense step reads them four times. Cost: one pass over the present edges + e's
 * neighbourhood + O(Nmax + |F_e|) + the merge's moved claims; memory: one node-block scratch and
 * the passes' per-slot sums, no copy of the edges (an edge e adds is inserted in place).
 */
export function structuredStep(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): number {
  const { omega, confidences } = orderGapOfState(shape, params, state, item);
  structuredExpand(shape, params, state, item);
  if (confidences) {
    // the pass read θ's confidences; P_e θ's differ only where e wrote a confidence coordinate
    const k1 = shape.k + 1;
    const write = (x: number) => {
      if (x < shape.edgeOffset && x % k1 === shape.k) confidences[(x - shape.k) / k1] = state.nodes[x]!;
    };
    item.entry.forEach(write);
    item.footprint.forEach(write);
  }
  structuredConsolidate(shape, params, state, confidences ?? undefined);
  return omega;
}

/**
 * Ω(θ; e) (Eq. 2) of the state, exactly (bit for bit the generic evaluation): the
 * neighbourhood pass of {@link orderGapOver} over the CSR rows and CSC columns of e's
 * neighbourhood — no pass of Q over the whole state. The state is not changed.
 */
export function structuredOrderGap(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): number {
  return orderGapOfState(shape, params, state, item).omega;
}

/**
 * {@link structuredOrderGap}, with θ's confidences when the neighbourhood pass read them (into
 * the order-gap's scratch; null when Q absorbs and both compositions were formed on copies).
 */
function orderGapOfState(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): { omega: number; confidences: Float64Array | null } {
  const k1 = shape.k + 1;
  const grid = ensureNear(shape, params, state);
  const absorbing = params.absorbRadius > 0;
  if (absorbing && absorbsAround(shape, params, state, item))
    return { omega: absorbingOrderGap(shape, params, state, item), confidences: null };
  const scratch = (state.omegaScratch ??= orderGapScratch(shape));
  const omega = orderGapOver(shape, params, state.nodes, csrEdges(state.indexed()), item, 'neighbourhood', {
    absorbsNothing: absorbing,
    scratch,
    // P_e θ's node block goes into the spare block (Q uses it only when a pair absorbs, never at once)
    nodes1: (state.spare ??= new Float64Array(shape.edgeOffset)),
    near: (nodes, i) => grid.nearPosition(nodes, k1, i),
  });
  return { omega, confidences: scratch.c };
}

/**
 * θ ← P_e(θ) in place (the blend on F_e and the entry confidences): O(|F_e| log row + |entry|)
 * (+ O(entries after it + Nmax) per block e adds an edge to) + the moved claims' lists.
 */
export function structuredExpand(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): void {
  ensureNear(shape, params, state);
  const edges: EdgeSource = csrEdges(state.indexed());
  const writes = expandEdgeWrites(shape, edges, item);
  for (let f = 0; f < item.footprint.length; f++) {
    const x = item.footprint[f]!;
    if (x >= shape.edgeOffset) continue;
    const v = state.nodes[x]!;
    state.nodes[x] = v + item.rates[f]! * (item.target[f]! - v);
  }
  entryConfidenceInPlace(item, state.nodes); // the entry coordinates are node coordinates
  applyEdgeWrites(shape, state, writes);
  refreshNear(shape, params, state, claimsWritten(shape, item));
}

/**
 * θ ← Q(θ) in place (bit for bit `referenceConsolidate`): one pass over the present edges (the
 * structure sums kept: {@link currentSums}) + the merge, with Q's per-slot scratch reused: no
 * allocation of O(Nmax) per call after the first. Without an absorbing pair Q writes only the
 * confidences and the merged claims' attributes, so it writes them into the node block itself;
 * when a pair absorbs it forms Q's node block in the spare one (then swapped), since the
 * absorption reads θ's. `confidences`, when given, must hold exactly the state's confidences (a
 * step passes the ones its order-gap pass read, with e's writes applied) and saves their gather.
 */
export function structuredConsolidate(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  confidences?: Float64Array,
): void {
  ensureNear(shape, params, state);
  state.scratch ??= sharedScratch(shape, state);
  const edges = csrEdges(state.indexed());
  const index = mergeIndexOf(state);
  const among = [...state.nearClaims];
  const saved = mergeAttributesOf(shape, state.nodes, among);
  const pairs = absorbingPairs(shape, params, state.nodes, edges, index);
  const out = pairs.length ? (state.spare ??= new Float64Array(shape.edgeOffset)) : state.nodes;
  const kept = currentSums(shape, state, edges);
  consolidateNodes(shape, params, state.nodes, edges, out, index, state.scratch, kept, confidences);
  if (pairs.length) {
    const absorbed = absorptionWrites(shape, out, edges, pairs);
    state.spare = state.nodes;
    state.nodes = out;
    for (const [x, v] of absorbed.nodes) out[x] = v;
    applyEdgeWrites(shape, state, absorbed.edges);
  }
  const moved = claimsMoved(shape, saved, state.nodes, among);
  for (const { i, j } of pairs) moved.push(i, j); // j's reliability, i's edges changed
  refreshNear(shape, params, state, moved);
}

/**
 * Whether Q absorbs a pair of claims in θ or in P_e(θ) (h_a > 0): θ's pairs from the neighbour
 * lists; in P_e(θ) only pairs with a claim e writes (attributes or reliability) can be new, so
 * each such claim, at its P_e(θ) attributes (the blend of `structuredExpand`, the same
 * arithmetic), is tested against the live claims of its grid cells and e's other claims. When
 * neither absorbs, Q writes no edge in either composition and the neighbourhood pass is exact.
 * Cost O(θ's candidate pairs + |F_e| log row + e's claims · claims around each) and a copy of the
 * node block.
 */
function absorbsAround(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): boolean {
  if (absorbingPairs(shape, params, state.nodes, csrEdges(state.indexed()), mergeIndexOf(state)).length) return true;
  const written = claimsWritten(shape, item);
  if (written.length === 0) return false;
  const k1 = shape.k + 1;
  const n = shape.nmax;
  const nodes1 = state.nodes.slice();
  const diag1 = new Map<number, number>();
  for (let f = 0; f < item.footprint.length; f++) {
    const x = item.footprint[f]!;
    const v = structuredValue(shape, state, x);
    const b = v + item.rates[f]! * (item.target[f]! - v);
    const rel = x - shape.edgeOffset;
    if (rel < 0) nodes1[x] = b;
    else if (rel < n * n && rel % (n + 1) === 0) diag1.set(rel / (n + 1), b);
  }
  const reliability = (i: number) => diag1.get(i) ?? structuredEdge(state, 0, i, i);
  for (const i of written) {
    if (reliability(i) === 0) continue;
    for (const j of new Set([...state.grid!.around(nodes1, k1, i), ...written])) {
      if (j === i || reliability(j) === 0) continue;
      let r2 = 0;
      for (let t = 0; t < shape.mergeDims; t++) {
        const d = nodes1[j * k1 + t]! - nodes1[i * k1 + t]!;
        r2 += d * d;
      }
      const [lo, hi] = i < j ? [i, j] : [j, i]; // the order absorbingPairs weighs a pair in
      if (absorptionWeight(params, r2, reliability(lo), reliability(hi)) > 0) return true;
    }
  }
  return false;
}

/**
 * Ω(θ; e) (Eq. 2) when Q absorbs (h_a > 0): Q writes edges there, which the structure-aware pass
 * assumes it never does, so both compositions are formed on copies of the state and compared by
 * the definition's distance over their non-zero coordinates in ascending order — bit for bit the
 * generic evaluation on the dense θ (a coordinate equal in both contributes exactly 0 to the
 * distance). Cost: two copies (O(Nmax·k + nnz)) and two applications of Q.
 */
function absorbingOrderGap(
  shape: OperatorShape,
  params: GraphOperatorParams,
  state: StructuredGraphState,
  item: CompiledItem,
): number {
  const qpe = copyStructured(state);
  structuredExpand(shape, params, qpe, item);
  structuredConsolidate(shape, params, qpe);
  const peq = copyStructured(state);
  structuredConsolidate(shape, params, peq);
  structuredExpand(shape, params, peq, item);
  const a = structuredEntries(shape, qpe);
  const b = structuredEntries(shape, peq);
  const x: number[] = [];
  const y: number[] = [];
  for (let p = 0, q = 0; p < a.length || q < b.length; ) {
    const ia = p < a.length ? a[p]![0] : Infinity;
    const ib = q < b.length ? b[q]![0] : Infinity;
    const va = ia <= ib ? a[p++]![1] : 0;
    const vb = ib <= ia ? b[q++]![1] : 0;
    if (va !== vb) {
      x.push(va);
      y.push(vb);
    }
  }
  return referenceDistance(x, y);
}

/**
 * Q's scratch, partly a view of the order-gap's: Q and the order-gap pass run one after the other
 * on a state, never interleaved, so Q reuses the confidences and the update's scratch of the
 * order-gap. Its weighted sums are its own: the order-gap zeroes only the slots of its sums that
 * its last pass wrote, so nothing else may write them (Q's structure sums are the kept ones,
 * {@link currentSums}: the scratch's, θ's sums of the order-gap, are never written by Q).
 */
function sharedScratch(shape: OperatorShape, state: StructuredGraphState): ConsolidateScratch {
  const o = (state.omegaScratch ??= orderGapScratch(shape));
  return { c: o.c, cNew: o.c0, sums: o.s0, ws: emptyWeightedSums(shape.nmax), update: o.update };
}

/**
 * ‖P_e(θ) − θ‖₂ of the structured state (`expansionResidualOf`, as `expansionResidual` on the
 * dense θ). O(|F_e| log row + |entry|).
 */
export function structuredResidual(shape: OperatorShape, state: StructuredGraphState, item: CompiledItem): number {
  return expansionResidualOf(item, (i) => structuredValue(shape, state, i));
}

/**
 * A structured state from its non-zero coordinates [index, value] (any order; later pairs win):
 * the inverse of {@link structuredEntries}. O(pairs log pairs + Nmax + C·candidates).
 * @throws {ArgumentError} an index outside [0, d) or a non-finite value, naming `pairs[i]`.
 */
export function structuredFromEntries(
  shape: OperatorShape,
  params: GraphOperatorParams,
  pairs: ReadonlyArray<readonly [number, number]>,
  name = 'entries',
): StructuredGraphState {
  const n = shape.nmax;
  const nn = n * n;
  const nodes = new Float64Array(shape.edgeOffset);
  const edges = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  pairs.forEach(([x, v], i) => {
    if (!(Number.isInteger(x) && x >= 0 && x < shape.dim))
      throw new ArgumentError(`${name}[${i}][0]`, x, `must be an integer in [0, ${shape.dim})`);
    if (!Number.isFinite(v)) throw new ArgumentError(`${name}[${i}][1]`, v, 'must be finite');
    if (x < shape.edgeOffset) nodes[x] = v;
    else {
      const rel = x - shape.edgeOffset;
      const t = Math.floor(rel / nn);
      edges[t]!.set(rel - t * nn, v);
    }
  });
  const blocks = edges.map((m): CsrBlock => {
    const keys = [...m.keys()].filter((key) => m.get(key) !== 0).sort((a, b) => a - b);
    const rowStart = new Int32Array(n + 1);
    const cols = new Int32Array(keys.length);
    const vals = new Float64Array(keys.length);
    keys.forEach((key, e) => {
      const j = Math.floor(key / n);
      rowStart[j + 1]!++;
      cols[e] = key - j * n;
      vals[e] = m.get(key)!;
    });
    for (let j = 0; j < n; j++) rowStart[j + 1] = rowStart[j + 1]! + rowStart[j]!;
    return { rowStart, cols, vals };
  });
  return structuredFromSparse(shape, params, { nodes, edges: blocks as [CsrBlock, CsrBlock, CsrBlock] });
}

/**
 * φ⁻¹ of the structured state: the graph it embeds — the same decoder as `decode` on the dense θ
 * (`decodeParts`), so the same graph and the same errors. O(Nmax·k + nnz).
 * @throws as `decode`.
 */
export function decodeStructured(state: StructuredGraphState, layout: Layout): EpistemicGraph {
  return decodeParts(state.nodes, layout, (visit) => forEachStructuredEdge(state, visit));
}

/** φ (Def. 2.2) of a graph straight into a structured state (no dense θ). @throws as `embed`. */
export function embedStructured(
  graph: EpistemicGraph,
  layout: Layout,
  shape: OperatorShape,
  params: GraphOperatorParams,
): StructuredGraphState {
  return structuredFromEntries(shape, params, graphEntries(graph, layout));
}
