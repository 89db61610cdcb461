/**
 * Structure-aware order-gap Ω(θ; e) = ‖Q(P_e(θ)) − P_e(Q(θ))‖ (Eq. 2) for the reference
 * operators, without materialising Q(θ), P_e(θ) or either composition (MATH.md §6):
 *
 * - Q leaves every edge unchanged and P_e writes the same edge values in both orders, so the
 *   edge block contributes exactly 0; only the node block is compared.
 * - P_e never writes a confidence, so θ and P_e(θ) share c; they differ only on e's footprint.
 *   The structure sums of P_e(θ) are the sums of θ patched by the footprint's edge deltas, and
 *   ONE fused streaming pass over the edges accumulates the c-weighted sums of both states.
 * - The merge of a claim that is not within the merge radius of one of e's claims (in θ or in
 *   P_e(θ)) is the same in both orders and P_e does not touch it: its contribution is 0, so only
 *   those claims are merged.
 * Cost: two streaming passes over the edge block (sums; fused weighted sums) plus O(|F_e|·Nmax)
 * for the patches and O(C·k) to find the affected claims; memory O(Nmax) besides θ.
 *
 * Two storages give exactly the same Ω (same operations in the same order): a dense θ
 * ({@link orderGapDense}) and sparse edges in CSR ({@link orderGapSparse}). The result agrees
 * with the generic evaluation (two full Q and P_e applications) to rounding: the patched sums
 * of P_e(θ) add the deltas in a different order than a fresh pass would.
 */
import {
  confidenceUpdate,
  mergeClaim,
  sigmoid,
  structureSums,
  type StructureSums,
  type WeightedSums,
} from './consolidate.js';
import type { CompiledItem } from './expand.js';
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from './shape.js';

/** Edges of one type in CSR (rows = source slot, columns ascending). */
export interface CsrBlock {
  /** Row starts, length Nmax + 1. */
  readonly rowStart: Int32Array;
  readonly cols: Int32Array;
  readonly vals: Float64Array;
}

/** A state with its node block dense and its three edge blocks sparse. */
export interface SparseGraphState {
  /** (k+1)·Nmax node coordinates. */
  readonly nodes: Float64Array;
  /** Supports, Requires, Contradicts. */
  readonly edges: readonly [CsrBlock, CsrBlock, CsrBlock];
}

/** The footprint of e split into node coordinates and per-(type, row) edge edits. */
interface Edits {
  /** Node coordinates of F_e (indices into the node block), rates and targets. */
  nodeIdx: number[];
  nodeRate: number[];
  nodeTarget: number[];
  /** Per type: row → sorted [col, new value] pairs; rows listed ascending. */
  rows: Array<Map<number, Array<[number, number]>>>;
  /** Claim slots whose attributes e writes. */
  claims: number[];
}

function splitFootprint(
  shape: OperatorShape,
  item: CompiledItem,
  edgeValue: (t: number, j: number, i: number) => number,
): Edits {
  const n = shape.nmax;
  const nn = n * n;
  const e: Edits = { nodeIdx: [], nodeRate: [], nodeTarget: [], rows: [new Map(), new Map(), new Map()], claims: [] };
  const k1 = shape.k + 1;
  for (let f = 0; f < item.footprint.length; f++) {
    const idx = item.footprint[f]!;
    const r = item.rates[f]!;
    const t = item.target[f]!;
    if (idx < shape.edgeOffset) {
      e.nodeIdx.push(idx);
      e.nodeRate.push(r);
      e.nodeTarget.push(t);
      const slot = Math.floor(idx / k1);
      if (e.claims[e.claims.length - 1] !== slot) e.claims.push(slot);
      continue;
    }
    const rel = idx - shape.edgeOffset;
    const type = Math.floor(rel / nn);
    const j = Math.floor((rel - type * nn) / n);
    const i = rel - type * nn - j * n;
    const x = edgeValue(type, j, i);
    const list = e.rows[type]!.get(j) ?? [];
    list.push([i, x + r * (t - x)]);
    e.rows[type]!.set(j, list);
  }
  return e;
}

function cloneSums(s: StructureSums): StructureSums {
  return {
    diag: s.diag.slice(),
    supportOut: s.supportOut.slice(),
    supportIn: s.supportIn.slice(),
    contradictDegree: s.contradictDegree.slice(),
    requireOut: s.requireOut.slice(),
    requireIn: s.requireIn.slice(),
    reliableIn: s.reliableIn.slice(),
  };
}

/** Row j of an edge block as (col, old, new) triples over the union of non-zeros and edits. */
type RowVisitor = (type: number, j: number, visit: (i: number, w0: number, w1: number) => void) => void;

/** Patches the structure sums of θ into those of P_e(θ) (only rows e edits are visited). */
function patchSums(shape: OperatorShape, s0: StructureSums, edits: Edits, visitRow: RowVisitor): StructureSums {
  const s1 = cloneSums(s0);
  for (const j of [...edits.rows[0]!.keys()].sort((a, b) => a - b)) {
    const d0 = s0.diag[j]!;
    let d1 = d0;
    for (const [i, v] of edits.rows[0]!.get(j)!) if (i === j) d1 = v;
    s1.diag[j] = d1;
    visitRow(0, j, (i, w0, w1) => {
      if (i === j) return;
      s1.supportOut[j] = s1.supportOut[j]! + (w1 - w0);
      s1.supportIn[i] = s1.supportIn[i]! + (w1 - w0);
      s1.reliableIn[i] = s1.reliableIn[i]! + (w1 * d1 - w0 * d0);
    });
  }
  for (const [j, list] of [...edits.rows[1]!.entries()].sort((a, b) => a[0] - b[0])) {
    visitRow(1, j, (q, w0, w1) => {
      if (w0 === w1) return;
      s1.requireOut[j] = s1.requireOut[j]! + (w1 - w0);
      s1.requireIn[q] = s1.requireIn[q]! + (w1 - w0);
    });
    void list;
  }
  for (const j of [...edits.rows[2]!.keys()].sort((a, b) => a - b)) {
    visitRow(2, j, (i, w0, w1) => {
      if (w0 === w1) return;
      s1.contradictDegree[j] = s1.contradictDegree[j]! + (w1 - w0);
      s1.contradictDegree[i] = s1.contradictDegree[i]! + (w1 - w0);
    });
  }
  return s1;
}

/** Accumulators of the fused weighted pass for θ (0) and P_e(θ) (1). */
interface Fused {
  ws0: WeightedSums;
  ws1: WeightedSums;
}

function newFused(n: number): Fused {
  const ws = (): WeightedSums => ({
    support: new Float64Array(n),
    contradict: new Float64Array(n),
    require: new Float64Array(n),
  });
  return { ws0: ws(), ws1: ws() };
}

/** Per-row kernels of the fused pass (shared by both storages, so the arithmetic is identical). */
function fusedKernels(c: Float64Array, s0: StructureSums, s1: StructureSums, f: Fused, tau: number) {
  const { ws0, ws1 } = f;
  return {
    support(j: number, i: number, w0: number, w1: number, rj0: number, rj1: number, cj: number) {
      if (i === j) return;
      ws0.support[i] = ws0.support[i]! + (w0 * cj) / (rj0 + s0.supportIn[i]!);
      ws1.support[i] = ws1.support[i]! + (w1 * cj) / (rj1 + s1.supportIn[i]!);
    },
    contradict(j: number, i: number, w0: number, w1: number, dj0: number, dj1: number, cj: number) {
      const f0 = w0 / (dj0 + s0.contradictDegree[i]!);
      const f1 = w1 / (dj1 + s1.contradictDegree[i]!);
      const ci = c[i]!;
      const sij = sigmoid((ci - cj) / tau);
      const sji = sigmoid((cj - ci) / tau);
      ws0.contradict[j] = ws0.contradict[j]! + f0 * ci * sij;
      ws0.contradict[i] = ws0.contradict[i]! + f0 * cj * sji;
      ws1.contradict[j] = ws1.contradict[j]! + f1 * ci * sij;
      ws1.contradict[i] = ws1.contradict[i]! + f1 * cj * sji;
    },
  };
}

/** The merge of one claim slot i into `out` (unchanged attributes when nothing pulls on it). */
function mergeOne(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  diag: Float64Array,
  i: number,
  out: Float64Array,
): void {
  const oi = i * (shape.k + 1);
  if (!mergeClaim(shape, p, nodes, diag, i, new Float64Array(shape.mergeDims), out)) {
    for (let t = 0; t < shape.mergeDims; t++) out[t] = nodes[oi + t]!;
  }
}

/** Everything after the passes: confidence updates, affected merges, the norm. */
function finish(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  c: Float64Array,
  s0: StructureSums,
  s1: StructureSums,
  f: Fused,
  edits: Edits,
): number {
  const n = shape.nmax;
  const c0 = new Float64Array(n);
  const c1 = new Float64Array(n);
  confidenceUpdate(shape, p, c, s0, f.ws0, c0);
  confidenceUpdate(shape, p, c, s1, f.ws1, c1);
  let sum = 0;
  for (let s = 0; s < n; s++) {
    const d = c1[s]! - c0[s]!;
    sum += d * d;
  }
  return mergePart(shape, p, nodes, s0.diag, s1.diag, edits, sum);
}

/** Adds the merge contributions of the affected claims to Σ (confidence part) and returns Ω. */
function mergePart(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  diag0: Float64Array,
  diag1: Float64Array,
  edits: Edits,
  confidenceSum: number,
): number {
  const k1 = shape.k + 1;
  let sum = confidenceSum;
  // node coordinates of P_e(θ): a copy of the node block ((k+1)·Nmax values) with e's writes
  const nodes1 = nodes.slice();
  const rateOf = new Map<number, [number, number]>();
  edits.nodeIdx.forEach((idx, t) => {
    const x = nodes[idx]!;
    nodes1[idx] = x + edits.nodeRate[t]! * (edits.nodeTarget[t]! - x);
    rateOf.set(idx, [edits.nodeRate[t]!, edits.nodeTarget[t]!]);
  });
  const md = shape.mergeDims;
  const h2 = p.mergeRadius * p.mergeRadius;
  const affected: number[] = [];
  const changed = edits.claims.filter((sl) => sl < shape.claims);
  for (let i = 0; i < shape.claims; i++) {
    let hit = changed.includes(i);
    const oi = i * k1;
    for (let q = 0; !hit && q < changed.length; q++) {
      const oq = changed[q]! * k1;
      let r0 = 0;
      let r1 = 0;
      for (let t = 0; t < md; t++) {
        const a = nodes[oi + t]! - nodes[oq + t]!;
        const b = nodes1[oi + t]! - nodes1[oq + t]!;
        r0 += a * a;
        r1 += b * b;
      }
      hit = r0 < h2 || r1 < h2;
    }
    if (hit) affected.push(i);
  }
  const m0 = new Float64Array(md);
  const m1 = new Float64Array(md);
  for (const i of affected) {
    mergeOne(shape, p, nodes, diag0, i, m0);
    mergeOne(shape, p, nodes1, diag1, i, m1);
    for (let t = 0; t < md; t++) {
      const ra = rateOf.get(i * k1 + t);
      const pq = ra ? m0[t]! + ra[0] * (ra[1] - m0[t]!) : m0[t]!;
      const d = m1[t]! - pq;
      sum += d * d;
    }
  }
  return Math.sqrt(sum);
}

/**
 * The non-zero edges of a dense θ in CSR, from one streaming pass over the edge block; null
 * once more than `maxNonzeros` are found (then a dense two-pass evaluation is cheaper).
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

/**
 * Ω(θ; e) for a dense θ (length d), structure-aware (module comment). θ is not modified.
 * One streaming pass over the 3·Nmax² edge weights collects the non-zeros (if at most
 * Nmax²/2 of them: memory 12 bytes each), then the sparse evaluation runs on them — so the
 * result is bit for bit {@link orderGapSparse}. Denser edge blocks take
 * {@link orderGapDenseTwoPass} (same Ω bit for bit, two passes, no extra memory).
 * Cost: one pass over the edge block + O(nnz + |F_e| Nmax + C k).
 */
export function orderGapDense(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
): number {
  const sparse = extractCsr(shape, theta, Math.max(1024, Math.floor((shape.nmax * shape.nmax) / 2)));
  return sparse ? orderGapSparse(shape, p, sparse, item) : orderGapDenseTwoPass(shape, p, theta, item);
}

/**
 * Ω(θ; e) for a dense θ with two streaming passes over the edge block (structure sums, then one
 * fused pass for θ and P_e(θ)), no memory beyond O(Nmax). Same Ω bit for bit as
 * {@link orderGapSparse}.
 */
export function orderGapDenseTwoPass(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  item: CompiledItem,
): number {
  const n = shape.nmax;
  const nn = n * n;
  const E0 = shape.edgeOffset;
  const edits = splitFootprint(shape, item, (t, j, i) => theta[E0 + t * nn + j * n + i]!);
  const s0 = structureSums(shape, theta);
  const visitRow: RowVisitor = (type, j, visit) => {
    const base = E0 + type * nn + j * n;
    const ed = edits.rows[type]!.get(j);
    const upd = new Map(ed ?? []);
    for (let i = 0; i < n; i++) {
      const w0 = theta[base + i]!;
      const u = upd.get(i);
      const w1 = u === undefined ? w0 : u;
      if (w0 === 0 && w1 === 0) continue;
      visit(i, w0, w1);
    }
  };
  const s1 = patchSums(shape, s0, edits, visitRow);
  const c = new Float64Array(n);
  const k1 = shape.k + 1;
  for (let s = 0; s < n; s++) c[s] = theta[s * k1 + shape.k]!;
  const fused = newFused(n);
  fusedPassDense(theta, n, E0, c, s0, s1, fused, p.tauContradict, edits, visitRow);
  return finish(shape, p, theta, c, s0, s1, fused, edits);
}

/**
 * The fused weighted pass over a dense edge block: rows without edits run tight loops with the
 * arithmetic inlined (identical expressions to {@link fusedKernels}, so the result is the same
 * bit for bit); edited rows go through the row visitor. Everything the loops touch is a
 * parameter or a local (no captured variables in the hot loops).
 */
function fusedPassDense(
  theta: Float64Array,
  n: number,
  E0: number,
  c: Float64Array,
  s0: StructureSums,
  s1: StructureSums,
  fused: Fused,
  tau: number,
  edits: Edits,
  visitRow: RowVisitor,
): void {
  const K = fusedKernels(c, s0, s1, fused, tau);
  const nn = n * n;
  const sB = E0;
  const rB = E0 + nn;
  const xB = E0 + 2 * nn;
  const sup0 = fused.ws0.support;
  const sup1 = fused.ws1.support;
  const con0 = fused.ws0.contradict;
  const con1 = fused.ws1.contradict;
  const sIn0 = s0.supportIn;
  const sIn1 = s1.supportIn;
  const rIn0 = s0.requireIn;
  const rIn1 = s1.requireIn;
  const xd0 = s0.contradictDegree;
  const xd1 = s1.contradictDegree;
  const eS = edits.rows[0]!;
  const eR = edits.rows[1]!;
  const eX = edits.rows[2]!;
  for (let j = 0; j < n; j++) {
    const row = j * n;
    const cj = c[j]!;
    const rj0 = 1 + s0.supportOut[j]!;
    const rj1 = 1 + s1.supportOut[j]!;
    if (!eS.has(j)) {
      const b = sB + row;
      for (let i = 0; i < n; i++) {
        const w = theta[b + i]!;
        if (w === 0 || i === j) continue;
        sup0[i] = sup0[i]! + (w * cj) / (rj0 + sIn0[i]!);
        sup1[i] = sup1[i]! + (w * cj) / (rj1 + sIn1[i]!);
      }
    } else visitRow(0, j, (i, w0, w1) => K.support(j, i, w0, w1, rj0, rj1, cj));
    const pj0 = 1 + s0.requireOut[j]!;
    const pj1 = 1 + s1.requireOut[j]!;
    if (!eR.has(j)) {
      let a0 = 0;
      let a1 = 0;
      const b = rB + row;
      for (let q = 0; q < n; q++) {
        const w = theta[b + q]!;
        if (w === 0) continue;
        a0 += (w * c[q]!) / (pj0 + rIn0[q]!);
        a1 += (w * c[q]!) / (pj1 + rIn1[q]!);
      }
      fused.ws0.require[j] = a0;
      fused.ws1.require[j] = a1;
    } else {
      const acc = [0, 0];
      visitRow(1, j, (q, w0, w1) => {
        acc[0] = acc[0]! + (w0 * c[q]!) / (pj0 + rIn0[q]!);
        acc[1] = acc[1]! + (w1 * c[q]!) / (pj1 + rIn1[q]!);
      });
      fused.ws0.require[j] = acc[0]!;
      fused.ws1.require[j] = acc[1]!;
    }
    const dj0 = 1 + xd0[j]!;
    const dj1 = 1 + xd1[j]!;
    if (!eX.has(j)) {
      const b = xB + row;
      for (let i = 0; i < n; i++) {
        const w = theta[b + i]!;
        if (w === 0) continue;
        const f0 = w / (dj0 + xd0[i]!);
        const f1 = w / (dj1 + xd1[i]!);
        const ci = c[i]!;
        const sij = sigmoid((ci - cj) / tau);
        const sji = sigmoid((cj - ci) / tau);
        con0[j] = con0[j]! + f0 * ci * sij;
        con0[i] = con0[i]! + f0 * cj * sji;
        con1[j] = con1[j]! + f1 * ci * sij;
        con1[i] = con1[i]! + f1 * cj * sji;
      }
    } else visitRow(2, j, (i, w0, w1) => K.contradict(j, i, w0, w1, dj0, dj1, cj));
  }
}

/**
 * The fused weighted pass over CSR edges: rows without edits run tight loops with the arithmetic
 * inlined (the same expressions, in the same order, as {@link fusedPassDense}).
 */
function fusedPassSparse(
  g: SparseGraphState,
  n: number,
  c: Float64Array,
  s0: StructureSums,
  s1: StructureSums,
  fused: Fused,
  tau: number,
  edits: Edits,
  visitRow: RowVisitor,
): void {
  const K = fusedKernels(c, s0, s1, fused, tau);
  const [S, R, X] = g.edges;
  const sup0 = fused.ws0.support;
  const sup1 = fused.ws1.support;
  const con0 = fused.ws0.contradict;
  const con1 = fused.ws1.contradict;
  const sIn0 = s0.supportIn;
  const sIn1 = s1.supportIn;
  const rIn0 = s0.requireIn;
  const rIn1 = s1.requireIn;
  const xd0 = s0.contradictDegree;
  const xd1 = s1.contradictDegree;
  const eS = edits.rows[0]!;
  const eR = edits.rows[1]!;
  const eX = edits.rows[2]!;
  for (let j = 0; j < n; j++) {
    const cj = c[j]!;
    const rj0 = 1 + s0.supportOut[j]!;
    const rj1 = 1 + s1.supportOut[j]!;
    if (!eS.has(j)) {
      for (let e = S.rowStart[j]!, end = S.rowStart[j + 1]!; e < end; e++) {
        const w = S.vals[e]!;
        const i = S.cols[e]!;
        if (w === 0 || i === j) continue;
        sup0[i] = sup0[i]! + (w * cj) / (rj0 + sIn0[i]!);
        sup1[i] = sup1[i]! + (w * cj) / (rj1 + sIn1[i]!);
      }
    } else visitRow(0, j, (i, w0, w1) => K.support(j, i, w0, w1, rj0, rj1, cj));
    const pj0 = 1 + s0.requireOut[j]!;
    const pj1 = 1 + s1.requireOut[j]!;
    if (!eR.has(j)) {
      let a0 = 0;
      let a1 = 0;
      for (let e = R.rowStart[j]!, end = R.rowStart[j + 1]!; e < end; e++) {
        const w = R.vals[e]!;
        if (w === 0) continue;
        const q = R.cols[e]!;
        a0 += (w * c[q]!) / (pj0 + rIn0[q]!);
        a1 += (w * c[q]!) / (pj1 + rIn1[q]!);
      }
      fused.ws0.require[j] = a0;
      fused.ws1.require[j] = a1;
    } else {
      const acc = [0, 0];
      visitRow(1, j, (q, w0, w1) => {
        acc[0] = acc[0]! + (w0 * c[q]!) / (pj0 + rIn0[q]!);
        acc[1] = acc[1]! + (w1 * c[q]!) / (pj1 + rIn1[q]!);
      });
      fused.ws0.require[j] = acc[0]!;
      fused.ws1.require[j] = acc[1]!;
    }
    const dj0 = 1 + xd0[j]!;
    const dj1 = 1 + xd1[j]!;
    if (!eX.has(j)) {
      for (let e = X.rowStart[j]!, end = X.rowStart[j + 1]!; e < end; e++) {
        const w = X.vals[e]!;
        if (w === 0) continue;
        const i = X.cols[e]!;
        const f0 = w / (dj0 + xd0[i]!);
        const f1 = w / (dj1 + xd1[i]!);
        const ci = c[i]!;
        const sij = sigmoid((ci - cj) / tau);
        const sji = sigmoid((cj - ci) / tau);
        con0[j] = con0[j]! + f0 * ci * sij;
        con0[i] = con0[i]! + f0 * cj * sji;
        con1[j] = con1[j]! + f1 * ci * sij;
        con1[i] = con1[i]! + f1 * cj * sji;
      }
    } else visitRow(2, j, (i, w0, w1) => K.contradict(j, i, w0, w1, dj0, dj1, cj));
  }
}

/** Merges a stored line (indices ascending) with its sorted edits: (index, old, new), zeros skipped. */
function mergeLine(
  idx: Int32Array,
  vals: Float64Array,
  start: number,
  end: number,
  sorted: ReadonlyArray<readonly [number, number]> | undefined,
  visit: (i: number, w0: number, w1: number) => void,
): void {
  let e = start;
  if (sorted === undefined) {
    for (; e < end; e++) {
      const w = vals[e]!;
      if (w !== 0) visit(idx[e]!, w, w);
    }
    return;
  }
  let u = 0;
  while (e < end || u < sorted.length) {
    const ci = e < end ? idx[e]! : Number.MAX_SAFE_INTEGER;
    const ui = u < sorted.length ? sorted[u]![0] : Number.MAX_SAFE_INTEGER;
    let i: number;
    let w0: number;
    let w1: number;
    if (ci < ui) {
      i = ci;
      w0 = vals[e++]!;
      w1 = w0;
    } else if (ui < ci) {
      i = ui;
      w0 = 0;
      w1 = sorted[u++]![1];
    } else {
      i = ci;
      w0 = vals[e++]!;
      w1 = sorted[u++]![1];
    }
    if (w0 === 0 && w1 === 0) continue;
    visit(i, w0, w1);
  }
}

/** Row visitor over CSR edges and e's edits (edits of a row are ascending: the footprint is). */
function csrRowVisitor(g: SparseGraphState, edits: Edits): RowVisitor {
  return (type, j, visit) => {
    const b = g.edges[type]!;
    mergeLine(b.cols, b.vals, b.rowStart[j]!, b.rowStart[j + 1]!, edits.rows[type]!.get(j), visit);
  };
}

/** Structure sums from CSR (same order of operations as the dense pass). */
function sparseStructureSums(n: number, g: SparseGraphState): StructureSums {
  const out: StructureSums = {
    diag: new Float64Array(n),
    supportOut: new Float64Array(n),
    supportIn: new Float64Array(n),
    contradictDegree: new Float64Array(n),
    requireOut: new Float64Array(n),
    requireIn: new Float64Array(n),
    reliableIn: new Float64Array(n),
  };
  const [S, R, X] = g.edges;
  for (let j = 0; j < n; j++) {
    let sjj = 0;
    for (let e = S.rowStart[j]!; e < S.rowStart[j + 1]!; e++) if (S.cols[e] === j) sjj = S.vals[e]!;
    out.diag[j] = sjj;
    for (let e = S.rowStart[j]!; e < S.rowStart[j + 1]!; e++) {
      const i = S.cols[e]!;
      const w = S.vals[e]!;
      if (w === 0 || i === j) continue;
      out.supportOut[j] = out.supportOut[j]! + w;
      out.supportIn[i] = out.supportIn[i]! + w;
      out.reliableIn[i] = out.reliableIn[i]! + w * sjj;
    }
    for (let e = R.rowStart[j]!; e < R.rowStart[j + 1]!; e++) {
      const q = R.cols[e]!;
      const w = R.vals[e]!;
      if (w === 0) continue;
      out.requireOut[j] = out.requireOut[j]! + w;
      out.requireIn[q] = out.requireIn[q]! + w;
    }
    for (let e = X.rowStart[j]!; e < X.rowStart[j + 1]!; e++) {
      const i = X.cols[e]!;
      const w = X.vals[e]!;
      if (w === 0) continue;
      out.contradictDegree[j] = out.contradictDegree[j]! + w;
      out.contradictDegree[i] = out.contradictDegree[i]! + w;
    }
  }
  return out;
}

function csrValue(b: CsrBlock, j: number, i: number): number {
  let lo = b.rowStart[j]!;
  let hi = b.rowStart[j + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const col = b.cols[mid]!;
    if (col === i) return b.vals[mid]!;
    if (col < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/**
 * Ω(θ; e) with sparse edges — exactly (bit for bit) {@link orderGapDense} on the densified state.
 * Cost O(nnz + |F_e|·row length + C k). The state is not modified.
 */
export function orderGapSparse(
  shape: OperatorShape,
  p: GraphOperatorParams,
  g: SparseGraphState,
  item: CompiledItem,
): number {
  const n = shape.nmax;
  const edits = splitFootprint(shape, item, (t, j, i) => csrValue(g.edges[t]!, j, i));
  const s0 = sparseStructureSums(n, g);
  const visitRow = csrRowVisitor(g, edits);
  const s1 = patchSums(shape, s0, edits, visitRow);
  const k1 = shape.k + 1;
  const c = new Float64Array(n);
  for (let s = 0; s < n; s++) c[s] = g.nodes[s * k1 + shape.k]!;
  const fused = newFused(n);
  fusedPassSparse(g, n, c, s0, s1, fused, p.tauContradict, edits, visitRow);
  return finish(shape, p, g.nodes, c, s0, s1, fused, edits);
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

/** Edges of one type by column (rows ascending): the transpose of a {@link CsrBlock}. */
export interface CscBlock {
  /** Column starts, length Nmax + 1. */
  readonly colStart: Int32Array;
  readonly rows: Int32Array;
  readonly vals: Float64Array;
}

/** A sparse state that also stores each edge block by column (in-edges), as an adjacency
 * structure in both directions does. */
export interface IndexedGraphState extends SparseGraphState {
  readonly columns: readonly [CscBlock, CscBlock, CscBlock];
}

/** Adds the by-column index to a sparse state. O(nnz + Nmax). */
export function withColumns(g: SparseGraphState, nmax: number): IndexedGraphState {
  const columns = g.edges.map((b): CscBlock => {
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
  }) as [CscBlock, CscBlock, CscBlock];
  return { ...g, columns };
}

/**
 * Ω(θ; e) touching only the neighbourhood of e's footprint: the slots whose beliefs can differ
 * between θ and P_e(θ) (endpoints of e's edges, targets of the Supports rows e edits, rows that
 * require a question whose Requires in-sum e changes, Contradicts neighbours of nodes whose
 * degree e changes, and the whole answer group of any affected answer). Every quantity is
 * computed by the same operations in the same order as the full passes, and every other slot
 * contributes exactly 0 there, so the result is bit for bit {@link orderGapSparse} (tested).
 * Cost O(Nmax) for zeroed work arrays and one scan of claim attributes, plus the degrees of
 * the neighbourhood — independent of nnz.
 */
export function orderGapLocal(
  shape: OperatorShape,
  p: GraphOperatorParams,
  g: IndexedGraphState,
  item: CompiledItem,
): number {
  const n = shape.nmax;
  const k1 = shape.k + 1;
  const edits = splitFootprint(shape, item, (t, j, i) => csrValue(g.edges[t]!, j, i));
  const colEdits = [0, 1, 2].map((t) => {
    const m = new Map<number, Array<[number, number]>>();
    for (const j of [...edits.rows[t]!.keys()].sort((a, b) => a - b))
      for (const [i, v] of edits.rows[t]!.get(j)!) {
        let list = m.get(i);
        if (!list) m.set(i, (list = []));
        list.push([j, v]);
      }
    return m;
  });
  const visitRow = csrRowVisitor(g, edits);
  const visitCol: RowVisitor = (type, a, visit) => {
    const b = g.columns[type]!;
    mergeLine(b.rows, b.vals, b.colStart[a]!, b.colStart[a + 1]!, colEdits[type]!.get(a), visit);
  };
  const row0 = (type: number, j: number, visit: (i: number, w: number) => void) => {
    const b = g.edges[type]!;
    for (let e = b.rowStart[j]!; e < b.rowStart[j + 1]!; e++) if (b.vals[e] !== 0) visit(b.cols[e]!, b.vals[e]!);
  };
  const col0 = (type: number, a: number, visit: (j: number, w: number) => void) => {
    const b = g.columns[type]!;
    for (let e = b.colStart[a]!; e < b.colStart[a + 1]!; e++) if (b.vals[e] !== 0) visit(b.rows[e]!, b.vals[e]!);
  };
  // --- the affected slots A
  const A = new Set<number>();
  for (const [j] of edits.rows[0]!) {
    A.add(j);
    visitRow(0, j, (i) => A.add(i));
  }
  const requireInChanged = new Set<number>();
  for (const [j] of edits.rows[1]!) {
    A.add(j);
    visitRow(1, j, (q, w0, w1) => {
      if (w0 !== w1) requireInChanged.add(q);
    });
  }
  for (const q of requireInChanged) {
    A.add(q);
    visitCol(1, q, (j) => A.add(j));
  }
  const degreeChanged = new Set<number>();
  for (const [j] of edits.rows[2]!)
    visitRow(2, j, (i, w0, w1) => {
      if (w0 !== w1) {
        degreeChanged.add(j);
        degreeChanged.add(i);
      }
    });
  for (const a of degreeChanged) {
    A.add(a);
    visitRow(2, a, (i) => A.add(i));
    visitCol(2, a, (j) => A.add(j));
  }
  for (const a of [...A]) {
    if (a < shape.firstAnswer || a >= shape.firstQuestion) continue;
    const q = shape.answerQuestion[a - shape.firstAnswer]!;
    if (q < 0) continue;
    for (const b of shape.groups[shape.questionGroup[q - shape.firstQuestion]!]!.answers) A.add(b);
  }
  const affected = [...A].sort((x, y) => x - y);
  // --- θ's structure sums, exactly, wherever they are read
  const s0: StructureSums = {
    diag: new Float64Array(n),
    supportOut: new Float64Array(n),
    supportIn: new Float64Array(n),
    contradictDegree: new Float64Array(n),
    requireOut: new Float64Array(n),
    requireIn: new Float64Array(n),
    reliableIn: new Float64Array(n),
  };
  // every claim's diagonal (the merge gates read all of them)
  for (let j = 0; j < n; j++) s0.diag[j] = csrValue(g.edges[0], j, j);
  const done = [
    new Set<number>(),
    new Set<number>(),
    new Set<number>(),
    new Set<number>(),
    new Set<number>(),
    new Set<number>(),
  ];
  const sOut = (j: number) => {
    if (done[0]!.has(j)) return;
    done[0]!.add(j);
    let acc = 0;
    row0(0, j, (i, w) => {
      if (i !== j) acc += w;
    });
    s0.supportOut[j] = acc;
  };
  const sIn = (i: number) => {
    if (done[1]!.has(i)) return;
    done[1]!.add(i);
    let a = 0;
    let r = 0;
    col0(0, i, (j, w) => {
      if (j === i) return;
      a += w;
      r += w * s0.diag[j]!;
    });
    s0.supportIn[i] = a;
    s0.reliableIn[i] = r;
  };
  const xDeg = (a: number) => {
    if (done[2]!.has(a)) return;
    done[2]!.add(a);
    let acc = 0;
    col0(2, a, (j, w) => {
      if (j < a) acc += w;
    });
    row0(2, a, (i, w) => {
      acc += w;
      if (i === a) acc += w;
    });
    col0(2, a, (j, w) => {
      if (j > a) acc += w;
    });
    s0.contradictDegree[a] = acc;
  };
  const rOut = (j: number) => {
    if (done[3]!.has(j)) return;
    done[3]!.add(j);
    let acc = 0;
    row0(1, j, (_q, w) => (acc += w));
    s0.requireOut[j] = acc;
  };
  const rIn = (q: number) => {
    if (done[4]!.has(q)) return;
    done[4]!.add(q);
    let acc = 0;
    col0(1, q, (_j, w) => (acc += w));
    s0.requireIn[q] = acc;
  };
  // read by the patches
  for (const [j] of edits.rows[0]!) {
    sOut(j);
    visitRow(0, j, (i) => sIn(i));
  }
  for (const [j] of edits.rows[1]!) {
    rOut(j);
    visitRow(1, j, (q) => rIn(q));
  }
  for (const [j] of edits.rows[2]!) {
    xDeg(j);
    visitRow(2, j, (i) => xDeg(i));
  }
  // read by the weighted sums and targets of A
  for (const a of affected) {
    sIn(a);
    rOut(a);
    rIn(a);
    xDeg(a);
    visitCol(0, a, (j) => sOut(j));
    visitRow(1, a, (q) => rIn(q));
    visitRow(2, a, (i) => xDeg(i));
    visitCol(2, a, (j) => xDeg(j));
  }
  const s1 = patchSums(shape, s0, edits, visitRow);
  // --- weighted sums of A, both states, in the full passes' order
  const c = new Float64Array(n);
  for (let sl = 0; sl < n; sl++) c[sl] = g.nodes[sl * k1 + shape.k]!;
  const fused = newFused(n);
  const tau = p.tauContradict;
  for (const a of affected) {
    let sp0 = 0;
    let sp1 = 0;
    visitCol(0, a, (j, w0, w1) => {
      if (j === a) return;
      const cj = c[j]!;
      sp0 += (w0 * cj) / (1 + s0.supportOut[j]! + s0.supportIn[a]!);
      sp1 += (w1 * cj) / (1 + s1.supportOut[j]! + s1.supportIn[a]!);
    });
    fused.ws0.support[a] = sp0;
    fused.ws1.support[a] = sp1;
    let rq0 = 0;
    let rq1 = 0;
    const pa0 = 1 + s0.requireOut[a]!;
    const pa1 = 1 + s1.requireOut[a]!;
    visitRow(1, a, (q, w0, w1) => {
      rq0 += (w0 * c[q]!) / (pa0 + s0.requireIn[q]!);
      rq1 += (w1 * c[q]!) / (pa1 + s1.requireIn[q]!);
    });
    fused.ws0.require[a] = rq0;
    fused.ws1.require[a] = rq1;
    const ca = c[a]!;
    let x0 = 0;
    let x1 = 0;
    const fromColumn = (j: number, w0: number, w1: number) => {
      const cj = c[j]!;
      const sji = sigmoid((cj - ca) / tau);
      x0 += (w0 / (1 + s0.contradictDegree[j]! + s0.contradictDegree[a]!)) * cj * sji;
      x1 += (w1 / (1 + s1.contradictDegree[j]! + s1.contradictDegree[a]!)) * cj * sji;
    };
    visitCol(2, a, (j, w0, w1) => {
      if (j < a) fromColumn(j, w0, w1);
    });
    visitRow(2, a, (i, w0, w1) => {
      const ci = c[i]!;
      const f0 = w0 / (1 + s0.contradictDegree[a]! + s0.contradictDegree[i]!);
      const f1 = w1 / (1 + s1.contradictDegree[a]! + s1.contradictDegree[i]!);
      const sia = sigmoid((ci - ca) / tau);
      x0 += f0 * ci * sia;
      x1 += f1 * ci * sia;
      if (i === a) {
        const saa = sigmoid((ca - ci) / tau);
        x0 += f0 * ca * saa;
        x1 += f1 * ca * saa;
      }
    });
    visitCol(2, a, (j, w0, w1) => {
      if (j > a) fromColumn(j, w0, w1);
    });
    fused.ws0.contradict[a] = x0;
    fused.ws1.contradict[a] = x1;
  }
  const c0 = new Float64Array(n);
  const c1 = new Float64Array(n);
  confidenceUpdate(shape, p, c, s0, fused.ws0, c0, affected);
  confidenceUpdate(shape, p, c, s1, fused.ws1, c1, affected);
  let sum = 0;
  for (const a of affected) {
    const d = c1[a]! - c0[a]!;
    sum += d * d;
  }
  return mergePart(shape, p, g.nodes, s0.diag, s1.diag, edits, sum);
}
