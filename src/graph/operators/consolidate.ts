/**
 * The reference consolidation operator Q on the embedded graph (docs/graph.md, "Reference operators"; Sec. 3.1), pure TypeScript,
 * f64. Q derives confidences from structure, merges near-duplicate claims and sharpens each
 * question's answers; it leaves every edge weight unchanged, except where the absorbing merge
 * (below; off by default) folds one claim into another. Empty slots (all zeros) stay exactly zero. Formulas (S, R, X the Supports, Requires, Contradicts blocks; c confidences):
 *
 *   structure sums (first pass): r_j = Σ_{i≠j} S_ji, k_i = Σ_{j≠i} S_ji, d_i = Σ_j (X_ij + X_ji),
 *                   ρ_j = Σ_q R_jq, κ_q = Σ_j R_jq
 *   normalised:     Ŝ_ji = S_ji/(1 + r_j + k_i) (j ≠ i),  X̂_ij = (X_ij + X_ji)/(1 + d_i + d_j),
 *                   R̂_jq = R_jq/(1 + ρ_j + κ_q)   — all with spectral norm <= 1
 *   claim i:   z_i = b_C + b_d S_ii + b_s Σ_j Ŝ_ji c_j − b_x Σ_j X̂_ij c_j σ((c_j − c_i)/τ_x)
 *                    − b_r Σ_q R̂_iq c_q,           g_i = S_ii σ(z_i)
 *   answer a (question q):  z_a = b_A + b_in k̃_a/(1 + k̃_a) + b_s Σ_j Ŝ_ja c_j − b_r Σ_q R̂_aq c_q,
 *              k̃_a = Σ_{j≠a} S_ja S_jj (support weighted by the sources' reliability; structure only),
 *              m_a = 1 − exp(−(k_a + ρ_a)/ω),  g_a = m_a e^{z_a} / (1 + Σ_{b∈A(q)} m_b e^{z_b})
 *   question q: m_q = 1 − exp(−κ_q/ω),  g_q = m_q σ(b_Q − b_res Σ_{a∈A(q)} c_a − b_pro S_qq)   (openness;
 *              S_qq = Supports[q → q] is q's resolution support, written by P_e: a question
 *              with S_qq >= τ_promote is promoted to a PartialAnswer, Sec. 3.1)
 *   sharpen:   G = Σ_{A(q)} g,  s_a = m_a e^{g_a/τ_a} / Σ_b m_b e^{g_b/τ_a},
 *              h_a = (1 − η) g_a + η G s_a   (mass-preserving: Σ h = G <= 1)
 *   update:    c' = (1 − λ) c + λ h          (h = g outside answers)
 *   merge (claims, first mergeDims attributes ℓ̃):  s_ij = S_ii S_jj (1 − ‖ℓ̃_i − ℓ̃_j‖²/h²)_+³,
 *              ℓ̃_i' = ℓ̃_i + μ Σ_j s_ij (ℓ̃_j − ℓ̃_i) / (1 + Σ_j s_ij)
 *   absorb (claims i < j within the absorb radius h_a <= h of each other in θ; h_a = 0, the
 *              default, turns it off): weight m_ij = ψ((h_a² − r²)/(¾h_a²)) ψ(S_ii/s₀) ψ(S_jj/s₀)
 *              (ψ the C² smooth step, 1 for r <= h_a/2); pair by pair in ascending order, j's edges
 *              are carried over to i by w ⊕ m w' (a ⊕ b = a + b − ab), j's edges and node
 *              coordinates scaled by 1 − m: at m = 1 slot j is released ({@link absorptionWrites})
 *
 * The Lipschitz bound of c ↦ c' is in ./params.ts. Cost: O(Nmax²) for the edge sums (two
 * streaming passes over the edge block; exact zeros are skipped, which changes no sum) plus
 * O(C² · mergeDims) for merging C claim slots.
 *
 * The passes read edges through an {@link EdgeSource} and add one row at a time
 * ({@link addRowStructure}, {@link addRowWeighted}); the per-slot updates are
 * {@link confidenceUpdate} and {@link mergeClaim}. These are the only TypeScript copy of Q's
 * arithmetic: the structure-aware order-gap and step (./orderGap.ts) call the same functions.
 */
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from '../model/shape.js';

/** σ(z) = 1/(1 + e^{−z}). */
export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** The three edge blocks of θ in their type-major order: Supports, Requires, Contradicts. */
export type EdgeBlockIndex = 0 | 1 | 2;

/**
 * A run of present edges of one block: entries [start, end) of `idx` (column of a row, or row of
 * a column; ascending) and `vals`. Stored zeros may appear; every consumer skips them.
 */
export interface EdgeRow {
  idx: Int32Array;
  vals: Float64Array;
  start: number;
  end: number;
}

/** One edge block in compressed sparse rows: row j's entries are cols/vals[rowStart[j], rowStart[j + 1]), columns ascending. */
export interface CsrBlock {
  /** Row starts, length Nmax + 1. */
  readonly rowStart: Int32Array;
  readonly cols: Int32Array;
  readonly vals: Float64Array;
}

/** The row without edges. */
export const EMPTY_EDGE_ROW: Readonly<EdgeRow> = Object.freeze({
  idx: new Int32Array(0),
  vals: new Float64Array(0),
  start: 0,
  end: 0,
});

/**
 * The edge blocks of a state as Q reads them: by row, the present edges in ascending column
 * order — the order in which a streaming pass over a dense row-major block meets its non-zeros.
 * Every form that stores edges (dense θ: {@link denseEdges}; CSR/CSC: ./orderGap.ts; the edges
 * of P_e(θ) as a view over θ's) implements it, and Q's passes ({@link structureSums},
 * {@link weightedSums}) and the structure-aware order-gap are written once over it, so they
 * give the same sums bit for bit whatever the storage.
 */
export interface EdgeSource {
  /** Nmax (rows and columns of each block). */
  readonly nmax: number;
  /**
   * The three blocks' rows as CSR arrays, when the source stores them so (the structured state):
   * Q's second pass ({@link weightedSums}) then reads row j as `cols`/`vals`[rowStart[j],
   * rowStart[j + 1]) — the runs `row` returns — without a `row` call per row, which cost about
   * as much as the row's arithmetic (1.6 ms a block at Nmax 65536, ~7 edges a row).
   */
  readonly csr?: readonly [CsrBlock, CsrBlock, CsrBlock];
  /** Row j of a block. The returned run is valid until the next `row` call for that block. */
  row(block: EdgeBlockIndex, j: number): EdgeRow;
  /**
   * Column i of a block (rows ascending), for neighbourhood evaluations. The returned run is
   * valid until the next `column` call for that block.
   */
  column(block: EdgeBlockIndex, i: number): EdgeRow;
  /** The weight of edge j → i of a block (0 if absent). */
  value(block: EdgeBlockIndex, j: number, i: number): number;
}

/** Makes r the run of its first m entries (start 0) and returns it. */
export function firstEntries(r: EdgeRow, m: number): EdgeRow {
  r.start = 0;
  r.end = m;
  return r;
}

/** Position of `key` in the ascending idx[start, end), or −1. Binary search: O(log(end − start)). */
export function runPosition(idx: Int32Array, start: number, end: number, key: number): number {
  let lo = start;
  let hi = end - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = idx[mid]!;
    if (at === key) return mid;
    if (at < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The entry of column (or row) i in a run, 0 if absent. O(log length). */
export function edgeRowValue(r: EdgeRow, i: number): number {
  const p = runPosition(r.idx, r.start, r.end, i);
  return p < 0 ? 0 : r.vals[p]!;
}

function scratchRows(n: number): EdgeRow[] {
  return [0, 1, 2].map(() => ({ idx: new Int32Array(n), vals: new Float64Array(n), start: 0, end: 0 }));
}

/**
 * The edges of a dense θ (length d) as an {@link EdgeSource}: `row` scans the Nmax weights of
 * the row and gathers the non-zeros (O(Nmax)); `column` gathers a column with stride Nmax
 * (O(Nmax) cache lines: for a few columns only); `value` reads θ. θ is read, never written.
 */
export function denseEdges(shape: OperatorShape, theta: Float64Array): EdgeSource {
  const n = shape.nmax;
  const nn = n * n;
  const base = shape.edgeOffset;
  const rows = scratchRows(n);
  const cols = scratchRows(n);
  const gather = (r: EdgeRow, at: number, stride: number): EdgeRow => {
    const idx = r.idx;
    const vals = r.vals;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const w = theta[at + i * stride]!;
      if (w === 0) continue;
      idx[m] = i;
      vals[m++] = w;
    }
    return firstEntries(r, m);
  };
  return {
    nmax: n,
    row: (t, j) => gather(rows[t]!, base + t * nn + j * n, 1),
    column: (t, i) => gather(cols[t]!, base + t * nn + i, n),
    value: (t, j, i) => theta[base + t * nn + j * n + i]!,
  };
}

/** Structure sums of the edge block (everything Q needs from edges except the c-weighted sums). */
export interface StructureSums {
  /** S_ii: a claim's direct support, a question's resolution support (Q reads no other slot's). */
  diag: Float64Array;
  /** r_j: off-diagonal Supports out-sum. */
  supportOut: Float64Array;
  /** k_i: off-diagonal Supports in-sum. */
  supportIn: Float64Array;
  /** d_i: symmetric Contradicts degree. */
  contradictDegree: Float64Array;
  /** ρ_j: Requires out-sum. */
  requireOut: Float64Array;
  /** κ_q: Requires in-sum. */
  requireIn: Float64Array;
  /** k̃_i = Σ_{j≠i} S_ji S_jj: in-support weighted by the sources' direct support. */
  reliableIn: Float64Array;
}

/** Zeroed {@link StructureSums} for Nmax slots. */
export function emptyStructureSums(n: number): StructureSums {
  return {
    diag: new Float64Array(n),
    supportOut: new Float64Array(n),
    supportIn: new Float64Array(n),
    contradictDegree: new Float64Array(n),
    requireOut: new Float64Array(n),
    requireIn: new Float64Array(n),
    reliableIn: new Float64Array(n),
  };
}

/**
 * Adds row j's edges (its Supports, Requires and Contradicts rows) to the structure sums and sets
 * S_jj: the one implementation of the first pass. Contributions to a slot come only from its own
 * row and from the rows with an edge into it, in the order the rows are visited. O(row lengths).
 */
export function addRowStructure(s: StructureSums, j: number, S: EdgeRow, R: EdgeRow, X: EdgeRow): void {
  const sjj = edgeRowValue(S, j);
  s.diag[j] = sjj;
  const { supportOut, supportIn, reliableIn, requireOut, requireIn, contradictDegree } = s;
  for (let e = S.start; e < S.end; e++) {
    const w = S.vals[e]!;
    const i = S.idx[e]!;
    if (w === 0 || i === j) continue;
    supportOut[j] = supportOut[j]! + w;
    supportIn[i] = supportIn[i]! + w;
    reliableIn[i] = reliableIn[i]! + w * sjj;
  }
  addEndpoints(requireOut, requireIn, j, R);
  addEndpoints(contradictDegree, contradictDegree, j, X); // both endpoints' degrees
}

/** Each non-zero w of run r (entry i) as out[j] += w, then into[i] += w. */
function addEndpoints(out: Float64Array, into: Float64Array, j: number, r: EdgeRow): void {
  for (let e = r.start; e < r.end; e++) {
    const w = r.vals[e]!;
    if (w === 0) continue;
    const i = r.idx[e]!;
    out[j] = out[j]! + w;
    into[i] = into[i]! + w;
  }
}

/**
 * Recomputes slot x's entries of structure sums `s` from `edges` (which must have columns):
 * exactly what {@link structureSums} gives there, bit for bit — every sum of x is formed from the
 * same non-zero weights in the same order as the pass over rows in ascending order adds them
 * (an in-sum from column x, rows ascending; an out-sum from row x, columns ascending; the
 * Contradicts degree from column x's rows before x, row x (its diagonal twice, once as each
 * endpoint), then the rows after x). A slot's sums change only when an edge of its row or column
 * does, or, for k̃_x, when the Supports diagonal of a row with an edge into x does.
 * O(row and column lengths of x · log row).
 */
export function slotStructure(s: StructureSums, x: number, edges: EdgeSource): void {
  const S = edges.row(0, x);
  s.diag[x] = edgeRowValue(S, x);
  let out = 0;
  for (let e = S.start; e < S.end; e++) if (S.vals[e]! !== 0 && S.idx[e]! !== x) out += S.vals[e]!;
  s.supportOut[x] = out;
  const Sc = edges.column(0, x);
  let into = 0;
  let reliable = 0;
  for (let e = Sc.start; e < Sc.end; e++) {
    const w = Sc.vals[e]!;
    const j = Sc.idx[e]!;
    if (w === 0 || j === x) continue;
    into += w;
    reliable += w * edges.value(0, j, j);
  }
  s.supportIn[x] = into;
  s.reliableIn[x] = reliable;
  const R = edges.row(1, x);
  out = 0;
  for (let e = R.start; e < R.end; e++) if (R.vals[e]! !== 0) out += R.vals[e]!;
  s.requireOut[x] = out;
  const Rc = edges.column(1, x);
  into = 0;
  for (let e = Rc.start; e < Rc.end; e++) if (Rc.vals[e]! !== 0) into += Rc.vals[e]!;
  s.requireIn[x] = into;
  const X = edges.row(2, x);
  const Xc = edges.column(2, x);
  let degree = 0;
  let c = Xc.start;
  for (; c < Xc.end && Xc.idx[c]! < x; c++) if (Xc.vals[c]! !== 0) degree += Xc.vals[c]!;
  for (let e = X.start; e < X.end; e++) {
    const w = X.vals[e]!;
    if (w === 0) continue;
    degree += w;
    if (X.idx[e]! === x) degree += w;
  }
  for (; c < Xc.end; c++) if (Xc.idx[c]! > x && Xc.vals[c]! !== 0) degree += Xc.vals[c]!;
  s.contradictDegree[x] = degree;
}

/** Sets every sum of `s` to 0 (reused scratch starts as a fresh {@link emptyStructureSums}). */
function zeroStructureSums(s: StructureSums): void {
  s.diag.fill(0);
  s.supportOut.fill(0);
  s.supportIn.fill(0);
  s.contradictDegree.fill(0);
  s.requireOut.fill(0);
  s.requireIn.fill(0);
  s.reliableIn.fill(0);
}

/**
 * One streaming pass over the edges computing {@link StructureSums} (rows in ascending order).
 * `out` (optional scratch for Nmax slots) is zeroed and filled instead of allocating.
 * O(Nmax²) for a dense θ, O(nnz + Nmax) for stored edges.
 */
export function structureSums(edges: EdgeSource, out?: StructureSums): StructureSums {
  const n = edges.nmax;
  if (out) zeroStructureSums(out);
  else out = emptyStructureSums(n);
  for (let j = 0; j < n; j++) addRowStructure(out, j, edges.row(0, j), edges.row(1, j), edges.row(2, j));
  return out;
}

/** The c-weighted edge sums of the logits. */
export interface WeightedSums {
  /** Σ_j Ŝ_ji c_j. */
  support: Float64Array;
  /** Σ_j X̂_ij c_j σ((c_j − c_i)/τ_x). */
  contradict: Float64Array;
  /** Σ_q R̂_iq c_q. */
  require: Float64Array;
}

/** Zeroed {@link WeightedSums} for Nmax slots. */
export function emptyWeightedSums(n: number): WeightedSums {
  return { support: new Float64Array(n), contradict: new Float64Array(n), require: new Float64Array(n) };
}

/**
 * What Q's second pass reads besides the edges, and the sums it writes: θ's structure sums `s`,
 * the confidences `c`, τ_x, and the weighted sums `ws`. The row functions take it with a row as
 * its run idx/vals[start, end) (an EdgeRow's fields, or a CSR block's arrays and row bounds), so
 * a pass over CSR arrays calls them without building a row object.
 */
export interface SecondPass {
  readonly ws: WeightedSums;
  readonly s: StructureSums;
  readonly c: Float64Array;
  readonly tau: number;
}

/** Row j's Supports entries into Σ_j c_j S_ji/(1 + r_j + k_i) (i = j and zeros skipped). */
function addSupportRow(p: SecondPass, j: number, idx: Int32Array, vals: Float64Array, start: number, end: number) {
  const { ws, s, c } = p;
  const support = ws.support;
  const cj = c[j]!;
  const rj = 1 + s.supportOut[j]!;
  const sIn = s.supportIn;
  for (let e = start; e < end; e++) {
    const w = vals[e]!;
    const i = idx[e]!;
    if (w === 0 || i === j) continue;
    support[i] = support[i]! + (w * cj) / (rj + sIn[i]!);
  }
}

/** Row j's Requires entries: sets Σ_q c_q R_jq/(1 + ρ_j + κ_q). */
function setRequireRow(p: SecondPass, j: number, idx: Int32Array, vals: Float64Array, start: number, end: number) {
  const { s, c } = p;
  const pj = 1 + s.requireOut[j]!;
  const rIn = s.requireIn;
  let acc = 0;
  for (let e = start; e < end; e++) {
    const w = vals[e]!;
    if (w === 0) continue;
    const q = idx[e]!;
    acc += (w * c[q]!) / (pj + rIn[q]!);
  }
  p.ws.require[j] = acc;
}

/**
 * Row j's Contradicts entries, both endpoints: c_i·X̂·σ(u) into j's sum and c_j·X̂·σ(−u) into
 * i's, u = (c_i − c_j)/τ (so (c_j − c_i)/τ is −u exactly), X̂ = w/(1 + d_j + d_i). The pair
 * costs one exp: with E = e^{−|u|} <= 1 (never overflows) and r = 1/(1 + E), σ(|u|) = r and
 * σ(−|u|) = E·r, each within a few ulps of σ (E·r adds one rounding to r's); NaN stays NaN.
 */
function addContradictRow(p: SecondPass, j: number, idx: Int32Array, vals: Float64Array, start: number, end: number) {
  const { ws, s, c, tau } = p;
  const contradict = ws.contradict;
  const cj = c[j]!;
  const deg = s.contradictDegree;
  const dj = 1 + deg[j]!;
  for (let e = start; e < end; e++) {
    const w = vals[e]!;
    if (w === 0) continue;
    const i = idx[e]!;
    const f = w / (dj + deg[i]!);
    const ci = c[i]!;
    const u = (ci - cj) / tau;
    const E = Math.exp(-Math.abs(u));
    const r = 1 / (1 + E);
    const er = E * r;
    contradict[j] = contradict[j]! + f * ci * (u >= 0 ? r : er);
    contradict[i] = contradict[i]! + f * cj * (u >= 0 ? er : r);
  }
}

/**
 * Adds row j's edges to the c-weighted, normalised sums (sets the Requires sum of j), for a pass
 * that visits the three blocks row by row. Each sum receives its terms from one block only, in
 * ascending row order, so this and {@link weightedSums} (block by block) add the same terms in
 * the same order: the same sums bit for bit. O(row lengths).
 */
export function addRowWeighted(p: SecondPass, j: number, S: EdgeRow, R: EdgeRow, X: EdgeRow): void {
  addSupportRow(p, j, S.idx, S.vals, S.start, S.end);
  setRequireRow(p, j, R.idx, R.vals, R.start, R.end);
  addContradictRow(p, j, X.idx, X.vals, X.start, X.end);
}

/**
 * Second streaming pass: the c-weighted, normalised sums, block by block, rows ascending (each
 * loop a small monomorphic body: ~1.4× faster than visiting the three blocks per row at Nmax
 * 65536). `out` (optional scratch) is zeroed and filled instead of allocating. O(Nmax²) dense.
 */
export function weightedSums(
  edges: EdgeSource,
  params: GraphOperatorParams,
  c: Float64Array,
  s: StructureSums,
  out?: WeightedSums,
): WeightedSums {
  const n = edges.nmax;
  let ws: WeightedSums;
  if (out) {
    out.support.fill(0);
    out.contradict.fill(0);
    out.require.fill(0);
    ws = out;
  } else ws = emptyWeightedSums(n);
  const p: SecondPass = { ws, s, c, tau: params.tauContradict };
  const csr = edges.csr;
  if (csr) {
    // the same rows, read from the CSR arrays (EdgeSource.csr)
    const [S, R, X] = csr;
    for (let j = 0; j < n; j++) addSupportRow(p, j, S.cols, S.vals, S.rowStart[j]!, S.rowStart[j + 1]!);
    for (let j = 0; j < n; j++) setRequireRow(p, j, R.cols, R.vals, R.rowStart[j]!, R.rowStart[j + 1]!);
    for (let j = 0; j < n; j++) addContradictRow(p, j, X.cols, X.vals, X.rowStart[j]!, X.rowStart[j + 1]!);
    return ws;
  }
  for (let j = 0; j < n; j++) {
    const S = edges.row(0, j);
    addSupportRow(p, j, S.idx, S.vals, S.start, S.end);
  }
  for (let j = 0; j < n; j++) {
    const R = edges.row(1, j);
    setRequireRow(p, j, R.idx, R.vals, R.start, R.end);
  }
  for (let j = 0; j < n; j++) {
    const X = edges.row(2, j);
    addContradictRow(p, j, X.idx, X.vals, X.start, X.end);
  }
  return ws;
}

/**
 * Reusable scratch of {@link confidenceUpdate}: h (Nmax) and four per-group arrays as long as the
 * largest answer group. Build it with {@link updateScratch}.
 */
export interface UpdateScratch {
  readonly h: Float64Array;
  readonly gate: Float64Array;
  readonly z: Float64Array;
  readonly num: Float64Array;
  readonly sw: Float64Array;
}

/** Scratch of {@link confidenceUpdate} for a shape. O(Nmax + largest group). */
export function updateScratch(shape: OperatorShape): UpdateScratch {
  let m = 0;
  for (const g of shape.groups) m = Math.max(m, g.answers.length);
  const arr = () => new Float64Array(m);
  return { h: new Float64Array(shape.nmax), gate: arr(), z: arr(), num: arr(), sw: arr() };
}

/**
 * New confidences c' from θ's confidences, structure sums and weighted sums (the belief update,
 * the answer softmax-with-none, the sharpening). Writes Nmax values into `out` (with `only`,
 * just those slots). `scratch` ({@link updateScratch}) is reused instead of allocating; the
 * values are the same either way. O(Nmax).
 */
export function confidenceUpdate(
  shape: OperatorShape,
  p: GraphOperatorParams,
  c: Float64Array,
  s: StructureSums,
  ws: WeightedSums,
  out: Float64Array,
  only?: readonly number[],
  scratch?: UpdateScratch,
): void {
  const n = shape.nmax;
  const h = scratch ? scratch.h : new Float64Array(n);
  if (scratch) {
    if (only) for (const i of only) h[i] = 0;
    else h.fill(0);
  }
  // `only` (ascending slots): compute just these slots and their answer groups; each slot's
  // value is computed by exactly the same operations as in the full update.
  const claimSlots = only ? only.filter((i) => i < shape.claims) : null;
  const nClaims = claimSlots ? claimSlots.length : shape.claims;
  for (let t0 = 0; t0 < nClaims; t0++) {
    const i = claimSlots ? claimSlots[t0]! : t0;
    const sii = s.diag[i]!;
    if (sii === 0) continue;
    const z =
      p.biasClaim +
      p.direct * sii +
      p.support * ws.support[i]! -
      p.contradict * ws.contradict[i]! -
      p.require * ws.require[i]!;
    h[i] = sii * sigmoid(z);
  }
  let groups = shape.groups;
  if (only) {
    const ids = new Set<number>();
    for (const a of only)
      if (a >= shape.firstAnswer && a < shape.firstQuestion) {
        const q = shape.answerQuestion[a - shape.firstAnswer]!;
        if (q >= 0) ids.add(shape.questionGroup[q - shape.firstQuestion]!);
      }
    groups = [...ids].sort((x, y) => x - y).map((gi) => shape.groups[gi]!);
  }
  for (const g of groups) {
    const m = g.answers.length;
    const gate = scratch ? scratch.gate : new Float64Array(m);
    const z = scratch ? scratch.z : new Float64Array(m);
    let zmax = 0;
    for (let t = 0; t < m; t++) {
      const a = g.answers[t]!;
      gate[t] = 1 - Math.exp(-(s.supportIn[a]! + s.requireOut[a]!) / p.presenceScale);
      const kr = s.reliableIn[a]!;
      z[t] = p.biasAnswer + (p.answerSupport * kr) / (1 + kr) + p.support * ws.support[a]! - p.require * ws.require[a]!;
      if (gate[t]! > 0 && z[t]! > zmax) zmax = z[t]!;
    }
    let den = Math.exp(-zmax);
    const num = scratch ? scratch.num : new Float64Array(m);
    for (let t = 0; t < m; t++) {
      num[t] = gate[t]! * Math.exp(z[t]! - zmax);
      den += num[t]!;
    }
    let mass = 0;
    for (let t = 0; t < m; t++) {
      const gt = num[t]! / den;
      h[g.answers[t]!] = gt;
      mass += gt;
    }
    let sden = 0;
    const sw = scratch ? scratch.sw : new Float64Array(m);
    for (let t = 0; t < m; t++) {
      sw[t] = gate[t]! * Math.exp(h[g.answers[t]!]! / p.tauAnswer);
      sden += sw[t]!;
    }
    if (sden > 0) {
      for (let t = 0; t < m; t++) {
        const a = g.answers[t]!;
        h[a] = (1 - p.sharpen) * h[a]! + (p.sharpen * mass * sw[t]!) / sden;
      }
    }
  }
  const questionSlots = only ? only.filter((q) => q >= shape.firstQuestion) : null;
  const nQuestions = questionSlots ? questionSlots.length : n - shape.firstQuestion;
  for (let t1 = 0; t1 < nQuestions; t1++) {
    const q = questionSlots ? questionSlots[t1]! : shape.firstQuestion + t1;
    const kq = s.requireIn[q]!;
    if (kq === 0) continue;
    let answered = 0;
    const gi = shape.questionGroup[q - shape.firstQuestion]!;
    if (gi >= 0) for (const a of shape.groups[gi]!.answers) answered += c[a]!;
    // s.diag[q] = S_qq, the resolution support (a question's Supports row holds only its self-edge)
    const logit = p.biasQuestion - p.resolve * answered - p.promotion * s.diag[q]!;
    h[q] = (1 - Math.exp(-kq / p.presenceScale)) * sigmoid(logit);
  }
  if (only) for (const i of only) out[i] = (1 - p.lambda) * c[i]! + p.lambda * h[i]!;
  else for (let i = 0; i < n; i++) out[i] = (1 - p.lambda) * c[i]! + p.lambda * h[i]!;
}

/**
 * Smooth merge of near-duplicate claims: reads the attributes of θ, writes the merged ones
 * into `out` (only the first mergeDims attributes of claim slots change). Compactly supported
 * kernel (1 − r²/h²)_+³ (C²), gated by S_ii S_jj, so distinct claims (distance >= h) and empty
 * slots never interact. With a {@link MergeIndex} only the claims that have candidates are
 * merged, each against its candidates: the claims and pairs left out contribute exactly nothing
 * (a claim with no other claim within h is not pulled), so the result is bit for bit the
 * all-pairs loop. O(C² · mergeDims); with an index O(Σ candidates · mergeDims).
 */
export function mergeClaims(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  diag: Float64Array,
  out: Float64Array,
  index?: MergeIndex,
): void {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const pull = new Float64Array(md);
  const merged = new Float64Array(md);
  // in place (out = θ): each merge reads θ's attributes, so the merged ones wait until all are known
  const staged: [number, Float64Array][] | null = out === theta ? [] : null;
  const put = (i: number) => (staged ? staged.push([i, merged.slice()]) : out.set(merged, i * k1));
  if (index) {
    for (const i of index.claims()) if (mergeClaim(shape, p, theta, diag, i, pull, merged, index)) put(i);
  } else for (let i = 0; i < shape.claims; i++) if (mergeClaim(shape, p, theta, diag, i, pull, merged)) put(i);
  if (staged) for (const [i, m] of staged) out.set(m, i * k1);
}

/**
 * Which claims can pull on which, for θ's current attributes: every pair of claims within the
 * merge radius h of each other (on the first mergeDims attributes) must be listed; extra pairs
 * are allowed (the distance test rejects them). ../state/state.ts keeps one up to date as claims move.
 */
export interface MergeIndex {
  /** Claims with at least one candidate, ascending. */
  claims(): Iterable<number>;
  /** Ascending candidates of claim i (other claims possibly within h). */
  candidates(i: number): ArrayLike<number>;
}

/**
 * The merge of one claim slot i: writes its first mergeDims attributes after the merge into
 * `merged` and returns true, or returns false (writing nothing) when nothing pulls on it (an
 * empty slot, mergeRate 0, or no other claim within the radius). `pull` is scratch of length
 * mergeDims. With `index`, only its candidates for i are visited (in ascending order, as the
 * full loop visits them; the others contribute nothing). The one implementation of the merge
 * arithmetic: {@link mergeClaims} and the structure-aware order-gap (./orderGap.ts) both call
 * it, so they agree bit for bit.
 */
export function mergeClaim(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  diag: Float64Array,
  i: number,
  pull: Float64Array,
  merged: Float64Array,
  index?: MergeIndex,
): boolean {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const mi = diag[i]!;
  if (mi === 0 || p.mergeRate === 0) return false;
  const h2 = p.mergeRadius * p.mergeRadius;
  const oi = i * k1;
  pull.fill(0);
  let total = 0;
  const cand = index ? index.candidates(i) : undefined;
  const count = cand ? cand.length : shape.claims;
  for (let r = 0; r < count; r++) {
    const j = cand ? cand[r]! : r;
    const mj = diag[j]!;
    if (j === i || mj === 0) continue;
    const oj = j * k1;
    let r2 = 0;
    for (let t = 0; t < md; t++) {
      const dlt = theta[oj + t]! - theta[oi + t]!;
      r2 += dlt * dlt;
    }
    if (r2 >= h2) continue;
    const u = 1 - r2 / h2;
    const sij = mi * mj * u * u * u;
    total += sij;
    for (let t = 0; t < md; t++) pull[t] = pull[t]! + sij * (theta[oj + t]! - theta[oi + t]!);
  }
  if (total === 0) return false;
  const f = p.mergeRate / (1 + total);
  for (let t = 0; t < md; t++) merged[t] = theta[oi + t]! + f * pull[t]!;
  return true;
}

// ---------------------------------------------------------------------------------------------
// absorbing merge

/**
 * s₀: a claim slot's Supports diagonal (its reliability) at and above which it takes full part in
 * an absorbing merge. Below it the pair's weight is scaled by the C² ramp ψ(S/s₀), so a claim
 * fading out of the state (S → 0) stops absorbing continuously instead of at a jump.
 */
export const ABSORB_PRESENCE = 2 ** -6;

/**
 * The C² smooth step ψ(t) = 6t⁵ − 15t⁴ + 10t³ on [0, 1] (0 below, 1 above): ψ' and ψ'' vanish at
 * both ends, so a weight built from it is C² wherever its argument is.
 */
export function smoothStep(t: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return 1;
  return t * t * t * (t * (6 * t - 15) + 10);
}

/**
 * m_ij, the weight with which claim j is absorbed into claim i (i < j): with h_a the absorb radius,
 *   m_ij = ψ((h_a² − r²)/(h_a² − h_a²/4)) · ψ(S_ii/s₀) · ψ(S_jj/s₀),
 * r the distance of their first mergeDims attributes and s₀ = {@link ABSORB_PRESENCE}. It is 0 at
 * r >= h_a and exactly 1 for r <= h_a/2 between claims of reliability >= s₀: a pair that Q's
 * pulling merge has brought within half the radius is absorbed completely, in one application.
 * C² in θ. 0 when h_a = 0 (the default: no absorbing merge).
 */
export function absorptionWeight(p: GraphOperatorParams, r2: number, si: number, sj: number): number {
  const h2 = p.absorbRadius * p.absorbRadius;
  if (!(r2 < h2)) return 0;
  return smoothStep((h2 - r2) / (0.75 * h2)) * smoothStep(si / ABSORB_PRESENCE) * smoothStep(sj / ABSORB_PRESENCE);
}

/** One absorbing pair: claim j is absorbed into claim i (i < j) with weight m ∈ (0, 1]. */
export interface Absorption {
  readonly i: number;
  readonly j: number;
  readonly m: number;
}

/**
 * The absorbing pairs of a state, ascending by (i, j): every pair of claims i < j with
 * m_ij > 0 ({@link absorptionWeight}) for θ's attributes (`nodes`, its node block) and Supports
 * diagonal (read from `edges`). With a {@link MergeIndex} only its candidates are tested (the absorb radius is
 * at most the merge radius, so every pair within it is a candidate). Empty when h_a = 0.
 * Cost O(C² · mergeDims), with an index O(Σ candidates · mergeDims).
 */
export function absorbingPairs(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  edges: EdgeSource,
  index?: MergeIndex,
): Absorption[] {
  const out: Absorption[] = [];
  if (p.absorbRadius === 0) return out;
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const diag = (i: number) => edges.value(0, i, i);
  const test = (i: number, j: number) => {
    if (j <= i || diag(j) === 0) return;
    let r2 = 0;
    for (let t = 0; t < md; t++) {
      const dlt = nodes[j * k1 + t]! - nodes[i * k1 + t]!;
      r2 += dlt * dlt;
    }
    const m = absorptionWeight(p, r2, diag(i), diag(j));
    if (m > 0) out.push({ i, j, m });
  };
  if (index) {
    for (const i of index.claims()) {
      if (diag(i) === 0) continue;
      const cand = index.candidates(i);
      for (let r = 0; r < cand.length; r++) test(i, cand[r]!);
    }
    return out.sort((a, b) => a.i - b.i || a.j - b.j);
  }
  for (let i = 0; i < shape.claims; i++) if (diag(i) !== 0) for (let j = i + 1; j < shape.claims; j++) test(i, j);
  return out;
}

/** An edge weight an operator writes: block t, row j, column i, its new value. */
export interface EdgeValue {
  readonly block: EdgeBlockIndex;
  readonly row: number;
  readonly col: number;
  readonly value: number;
}

/** What an absorbing merge writes: node coordinates [index, value] and edge weights. */
export interface AbsorptionWrites {
  readonly nodes: ReadonlyArray<readonly [number, number]>;
  readonly edges: readonly EdgeValue[];
}

/** a ⊕ b = a + b − ab: the probabilistic "or" of two weights in [0, 1] (stays in [0, 1]; a ⊕ 0 = a exactly). */
function orWeight(a: number, b: number): number {
  return b === 0 ? a : a + b - a * b;
}

/**
 * The writes of the absorbing merge A for the given pairs, applied one pair after another in
 * their order (each reads what the previous ones wrote). For pair (i, j, m), in each edge block B:
 *   B'_ix = B_ix ⊕ m B_jx,  B'_xi = B_xi ⊕ m B_xj  (x ∉ {i, j}: j's edges carried over to i),
 *   B'_ii = B_ii ⊕ m B_jj,   B'_jx = (1 − m) B_jx,  B'_xj = (1 − m) B_xj  (all x, the pair's mutual
 *   edges B_ij, B_ji included: they are not carried over, a claim does not support itself),
 * and on the node block j's k + 1 coordinates (attributes and confidence) are scaled by 1 − m; i's
 * are left alone. At m = 1 slot j is released (all zeros: an empty slot) and i holds the union of
 * both claims' edges. `nodes` is the node block the writes apply to (Q's output), `edges` the
 * edges before A. Nothing is modified. Cost O(pairs · (the pair's row and column lengths)).
 */
export function absorptionWrites(
  shape: OperatorShape,
  nodes: Float64Array,
  edges: EdgeSource,
  pairs: readonly Absorption[],
): AbsorptionWrites {
  const n = shape.nmax;
  const k1 = shape.k + 1;
  const edgeOut = new Map<number, number>(); // key (t·n + row)·n + col, insertion order kept
  const byLine = new Map<number, Set<number>>(); // (2t + 0 row | 1 column)·n + line → others
  const nodeOut = new Map<number, number>();
  const read = (t: EdgeBlockIndex, x: number, column: boolean): Map<number, number> => {
    const line = new Map<number, number>();
    const r = column ? edges.column(t, x) : edges.row(t, x);
    for (let p = r.start; p < r.end; p++) line.set(r.idx[p]!, r.vals[p]!);
    for (const y of byLine.get((2 * t + (column ? 1 : 0)) * n + x) ?? []) {
      const key = column ? (t * n + y) * n + x : (t * n + x) * n + y;
      line.set(y, edgeOut.get(key)!);
    }
    return line;
  };
  const write = (t: EdgeBlockIndex, row: number, col: number, v: number) => {
    edgeOut.set((t * n + row) * n + col, v);
    for (const [kind, line, other] of [
      [0, row, col],
      [1, col, row],
    ] as const) {
      const key = (2 * t + kind) * n + line;
      let set = byLine.get(key);
      if (!set) byLine.set(key, (set = new Set()));
      set.add(other);
    }
  };
  for (const { i, j, m } of pairs) {
    for (const t of [0, 1, 2] as const) {
      const ri = read(t, i, false);
      const rj = read(t, j, false);
      const ci = read(t, i, true);
      const cj = read(t, j, true);
      for (const [x, w] of rj) {
        if (x === i || x === j) continue;
        write(t, i, x, orWeight(ri.get(x) ?? 0, m * w));
        write(t, j, x, (1 - m) * w);
      }
      for (const [x, w] of cj) {
        if (x === i || x === j) continue;
        write(t, x, i, orWeight(ci.get(x) ?? 0, m * w));
        write(t, x, j, (1 - m) * w);
      }
      const jj = rj.get(j) ?? 0;
      if (jj !== 0) {
        write(t, i, i, orWeight(ri.get(i) ?? 0, m * jj));
        write(t, j, j, (1 - m) * jj);
      }
      if (ri.has(j)) write(t, i, j, (1 - m) * ri.get(j)!);
      if (rj.has(i)) write(t, j, i, (1 - m) * rj.get(i)!);
    }
    for (let t = 0; t < k1; t++) {
      const x = j * k1 + t;
      nodeOut.set(x, (1 - m) * (nodeOut.get(x) ?? nodes[x]!));
    }
  }
  const edgeList: EdgeValue[] = [];
  for (const [key, value] of [...edgeOut].sort((a, b) => a[0] - b[0])) {
    const t = Math.floor(key / (n * n)) as EdgeBlockIndex;
    const row = Math.floor((key - t * n * n) / n);
    edgeList.push({ block: t, row, col: key - t * n * n - row * n, value });
  }
  return { nodes: [...nodeOut].sort((a, b) => a[0] - b[0]), edges: edgeList };
}

/** Reads the Nmax confidences of θ (into `out` when given). */
export function readConfidences(
  shape: OperatorShape,
  theta: Float64Array,
  out: Float64Array = new Float64Array(shape.nmax),
): Float64Array {
  const c = out;
  for (let s = 0; s < shape.nmax; s++) c[s] = theta[s * (shape.k + 1) + shape.k]!;
  return c;
}

/**
 * Everything {@link consolidateNodes} allocates per call, kept for reuse across calls on one
 * shape: the confidences before and after, both sums and the update's scratch. O(14·Nmax).
 */
export interface ConsolidateScratch {
  readonly c: Float64Array;
  readonly cNew: Float64Array;
  readonly sums: StructureSums;
  readonly ws: WeightedSums;
  readonly update: UpdateScratch;
}

/** A {@link ConsolidateScratch} for a shape. */
export function consolidateScratch(shape: OperatorShape): ConsolidateScratch {
  const n = shape.nmax;
  return {
    c: new Float64Array(n),
    cNew: new Float64Array(n),
    sums: emptyStructureSums(n),
    ws: emptyWeightedSums(n),
    update: updateScratch(shape),
  };
}

/**
 * Q's node block only: writes the (k+1)·Nmax node coordinates of Q(θ) into `nodeOut` (the edge
 * block of Q(θ) equals θ's). `nodes` holds θ's node block (θ itself will do) and `edges` its
 * edges in any storage: the result does not depend on the storage. `nodeOut` may be `nodes`
 * itself (Q in place: only the confidences and the merged attributes are written, the merged
 * ones once every claim's merge has read θ's) but must not overlap it otherwise.
 * `index` as for {@link mergeClaims}; `scratch` ({@link consolidateScratch}) is reused
 * instead of allocating (same values); `kept`, when given, must be exactly `structureSums(edges)`
 * (a caller that keeps them across calls: {@link slotStructure}) and replaces the first pass;
 * `confidences`, when given, must be exactly {@link readConfidences} of `nodes` (a caller that
 * has them already) and replaces that gather. Two passes over the edges plus the merge (one with
 * `kept`).
 */
export function consolidateNodes(
  shape: OperatorShape,
  p: GraphOperatorParams,
  nodes: Float64Array,
  edges: EdgeSource,
  nodeOut: Float64Array,
  index?: MergeIndex,
  scratch?: ConsolidateScratch,
  kept?: StructureSums,
  confidences?: Float64Array,
): void {
  const k1 = shape.k + 1;
  const c = confidences ?? readConfidences(shape, nodes, scratch?.c);
  const sums = kept ?? structureSums(edges, scratch?.sums);
  const ws = weightedSums(edges, p, c, sums, scratch?.ws);
  const cNew = scratch ? scratch.cNew : new Float64Array(shape.nmax);
  confidenceUpdate(shape, p, c, sums, ws, cNew, undefined, scratch?.update);
  if (nodeOut !== nodes) nodeOut.set(nodes.subarray(0, shape.edgeOffset));
  mergeClaims(shape, p, nodes, sums.diag, nodeOut, index);
  for (let s = 0; s < shape.nmax; s++) nodeOut[s * k1 + shape.k] = cNew[s]!;
}

/**
 * Q(θ) (reference form, docs/graph.md): node block from {@link consolidateNodes} over the dense
 * edges of θ, edge block copied, then the absorbing merge ({@link absorbDense}; nothing when
 * h_a = 0). `out` must not alias θ. Cost O(d + C² · mergeDims).
 */
export function referenceConsolidate(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  out: Float64Array = new Float64Array(shape.dim),
): Float64Array {
  out.set(theta);
  consolidateNodes(shape, p, theta, denseEdges(shape, theta), out);
  absorbDense(shape, p, theta, out);
  return out;
}

/**
 * The absorbing merge on a dense state: `out` holds Q's update of θ without it (node block
 * updated, edge block θ's) and receives the writes of {@link absorptionWrites} for θ's
 * {@link absorbingPairs}. Nothing happens when no pair absorbs (always when h_a = 0). `out` must
 * not alias θ. Cost O(C² · mergeDims) for the pairs + O(Nmax) per row or column a pair touches.
 */
export function absorbDense(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  out: Float64Array,
): void {
  if (p.absorbRadius === 0) return;
  const edges = denseEdges(shape, theta);
  const pairs = absorbingPairs(shape, p, theta, edges);
  if (pairs.length === 0) return;
  const w = absorptionWrites(shape, out, edges, pairs);
  for (const [x, v] of w.nodes) out[x] = v;
  const n = shape.nmax;
  for (const e of w.edges) out[shape.edgeOffset + (e.block * n + e.row) * n + e.col] = e.value;
}
