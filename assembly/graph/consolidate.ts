// The consolidation operator Q of the reference graph (Sec. 3.1: Q resolves Contradicts pairs by
// downweighting the lower-confidence endpoint, merges redundant claims and shifts weight toward
// the best PartialAnswer; the formulas are this toolkit's design, docs/graph.md "Q"), as pointer
// kernels over the embedded state θ = φ(S) of Def. 2.2. S, R, X are the Supports, Requires and
// Contradicts blocks (n×n each, row = source slot), c the n confidences:
//
//   structure sums   r_j = Σ_{i≠j} S_ji, k_i = Σ_{j≠i} S_ji, k̃_i = Σ_{j≠i} S_ji S_jj,
//                    d_i = Σ_j (X_ij + X_ji), ρ_j = Σ_q R_jq, κ_q = Σ_j R_jq, and S_ii
//   weighted sums    Σ_j c_j S_ji/(1 + r_j + k_i),  Σ_q c_q R_iq/(1 + ρ_i + κ_q),
//                    Σ_j c_j (X_ij + X_ji)/(1 + d_i + d_j) σ((c_j − c_i)/τ_x)
//   update           c' = (1 − λ) c + λ h (claim logits, answer softmax-with-none, sharpening,
//                    question openness m_q σ(b_Q − b_res Σ_{A(q)} c_a − b_pro S_qq), S_qq the
//                    question's resolution support)
//   merge            ℓ̃_i' = ℓ̃_i + μ Σ_j s_ij (ℓ̃_j − ℓ̃_i)/(1 + Σ_j s_ij),
//                    s_ij = S_ii S_jj (1 − ‖ℓ̃_i − ℓ̃_j‖²/h²)_+³
//
// One kernel, one name in every layer: kernel `graphX` computes what the TypeScript function `x`
// of src/graph/operators/consolidate.ts computes, with the same f64 operations in the same order,
// so its result is bit for bit that function's (e^x is ./exp.ts, V8's `Math.exp` bit for bit).
// The suffix `Csr` marks the form that reads the edge blocks by rows (CSR: the TypeScript
// functions read any `EdgeSource`; `csrEdges` is the CSR one):
//
//   graphStructureSums, graphStructureSumsCsr   ↔ structureSums
//   graphWeightedSums, graphWeightedSumsCsr     ↔ weightedSums
//   graphConfidenceUpdate                       ↔ confidenceUpdate
//   graphMergeClaims                            ↔ mergeClaims (every claim, or the listed ones)
//
// The dense and the CSR passes share their per-row arithmetic (the inlined *Row helpers below):
// both visit each row's non-zeros in ascending column order, skip exact zeros and add in the
// same order, so the two storages give the same sums bit for bit. Tested: the wasm form against
// the reference (test/graph/operators/forms.test.ts), the CSR passes through the resident DQ
// columns and the consolidation engine against full evaluations of the dense wasm Q
// (test/graph/linearisation/consolidateJacobian.test.ts, consolidationEngine.test.ts).
//
// Pointers are byte offsets; arrays are f64 unless named i32; θ's edge blocks start at element
// `eoff`. Nothing allocates: every output and scratch buffer belongs to the caller.
import { exp } from './exp';
import { addTo, ld, ldi, part, st, sti, sigmoid } from './memory';

// `sums` holds seven arrays of n values (S_ii, r, k, d, ρ, κ, k̃) and `ws` three (the weighted
// support, contradiction and requirement sums), in the orders of these enums.
enum Sum { Diag, SupportOut, SupportIn, ContradictDegree, RequireOut, RequireIn, ReliableIn }
enum Weighted { Support, Contradict, Require }

// ---------------------------------------------------------------------------------------------
// one row of one block, in either pass: `len` entries at cols (i32 columns) and vals. `weighted`
// (the second pass, else the first) and `dense` (a dense row: entry k is column k, cols unused)
// are constants at every call site, so each inlined copy keeps only its own branch. The arrays
// of the pass are set once per kernel call by startPass (read into locals once per row).

let passN: i32 = 0;
let passSums: usize = 0;
let passC: usize = 0;
let passTau: f64 = 0;
let passWs: usize = 0;

/** The arrays the row helpers read and write during one kernel call (c, tau, ws: second pass only). */
// @ts-ignore: decorator
@inline function startPass(n: i32, sums: usize, c: usize, tau: f64, ws: usize): void {
  passN = n;
  passSums = sums;
  passC = c;
  passTau = tau;
  passWs = ws;
}

/**
 * Row j's Supports entries (i = j and zeros skipped). First pass: r_j, k_i and k̃_i += w·x with
 * x = S_jj. Second pass: Σ_j c_j S_ji/(1 + r_j + k_i) with x = c_j.
 */
// @ts-ignore: decorator
@inline function supportRow(weighted: bool, dense: bool, cols: usize, vals: usize, len: i32, j: i32, x: f64): void {
  const sOut = part(passSums, passN, Sum.SupportOut);
  const sIn = part(passSums, passN, Sum.SupportIn);
  const kRel = part(passSums, passN, Sum.ReliableIn);
  const sup = part(passWs, passN, Weighted.Support);
  const rj: f64 = weighted ? 1 + ld(sOut, j) : 0;
  for (let k = 0; k < len; k++) {
    const i = dense ? k : ldi(cols, k);
    const w = ld(vals, k);
    if (w == 0 || i == j) continue;
    if (weighted) addTo(sup, i, (w * x) / (rj + ld(sIn, i)));
    else {
      addTo(sOut, j, w);
      addTo(sIn, i, w);
      addTo(kRel, i, w * x);
    }
  }
}

/** Row j's Requires entries. First pass: ρ_j, κ_q. Second pass: sets Σ_q c_q R_jq/(1 + ρ_j + κ_q). */
// @ts-ignore: decorator
@inline function requireRow(weighted: bool, dense: bool, cols: usize, vals: usize, len: i32, j: i32): void {
  const c = passC;
  const rOut = part(passSums, passN, Sum.RequireOut);
  const rIn = part(passSums, passN, Sum.RequireIn);
  const pj: f64 = weighted ? 1 + ld(rOut, j) : 0;
  let acc: f64 = 0;
  for (let k = 0; k < len; k++) {
    const q = dense ? k : ldi(cols, k);
    const w = ld(vals, k);
    if (w == 0) continue;
    if (weighted) acc += (w * ld(c, q)) / (pj + ld(rIn, q));
    else {
      addTo(rOut, j, w);
      addTo(rIn, q, w);
    }
  }
  if (weighted) st(part(passWs, passN, Weighted.Require), j, acc);
}

/**
 * Row j's Contradicts entries, both endpoints. First pass: d_j and d_i. Second pass:
 * c_i·X̂·σ(u) into j's sum and c_j·X̂·σ(−u) into i's, u = (c_i − c_j)/τ, X̂ = w/(1 + d_j + d_i),
 * the pair from one exp: E = e^{−|u|}, r = 1/(1 + E), σ(|u|) = r, σ(−|u|) = E·r (as
 * `addContradictRow` of src/graph/operators/consolidate.ts).
 */
// @ts-ignore: decorator
@inline function contradictRow(weighted: bool, dense: bool, cols: usize, vals: usize, len: i32, j: i32): void {
  const c = passC;
  const tau = passTau;
  const xDeg = part(passSums, passN, Sum.ContradictDegree);
  const con = part(passWs, passN, Weighted.Contradict);
  const cj: f64 = weighted ? ld(c, j) : 0;
  const dj: f64 = weighted ? 1 + ld(xDeg, j) : 0;
  for (let k = 0; k < len; k++) {
    const i = dense ? k : ldi(cols, k);
    const w = ld(vals, k);
    if (w == 0) continue;
    if (weighted) {
      const f = w / (dj + ld(xDeg, i));
      const ci = ld(c, i);
      const u = (ci - cj) / tau;
      const E = exp(-abs<f64>(u));
      const r = 1.0 / (1.0 + E);
      const er = E * r;
      addTo(con, j, f * ci * (u >= 0 ? r : er));
      addTo(con, i, f * cj * (u >= 0 ? er : r));
    } else {
      addTo(xDeg, j, w);
      addTo(xDeg, i, w);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// the dense passes: θ's three blocks row-major

/** Row j of dense edge block b of θ (the blocks start at element eoff, n×n each). */
// @ts-ignore: decorator
@inline function denseRow(theta: usize, eoff: i32, n: i32, b: i32, j: i32): usize {
  return theta + (<usize>(eoff + b * n * n + j * n) << 3);
}

/** One pass over θ's dense rows: the first (into `sums`, zeroed here) or, `weighted`, the second (into `ws`). */
// @ts-ignore: decorator
@inline function densePass(weighted: bool, theta: usize, n: i32, eoff: i32, c: usize, sums: usize, tau: f64, ws: usize): void {
  if (weighted) memory.fill(ws, 0, <usize>(3 * n) << 3);
  else memory.fill(sums, 0, <usize>(7 * n) << 3);
  startPass(n, sums, c, tau, ws);
  for (let j = 0; j < n; j++) {
    const sRow = denseRow(theta, eoff, n, 0, j);
    let x: f64 = 0; // S_jj in the first pass (stored as the diagonal), c_j in the second
    if (weighted) x = ld(c, j);
    else {
      x = ld(sRow, j);
      st(sums, j, x);
    }
    supportRow(weighted, true, 0, sRow, n, j, x);
    requireRow(weighted, true, 0, denseRow(theta, eoff, n, 1, j), n, j);
    contradictRow(weighted, true, 0, denseRow(theta, eoff, n, 2, j), n, j);
  }
}

/**
 * First pass over θ's dense edge blocks (↔ structureSums over denseEdges): 7 arrays of n into
 * `sums` (diag S_ii, supportOut r, supportIn k, contradictDegree d, requireOut ρ, requireIn κ,
 * reliableIn k̃), zeroed here.
 */
export function graphStructureSums(theta: usize, n: i32, eoff: i32, sums: usize): void {
  densePass(false, theta, n, eoff, 0, sums, 0, 0);
}

/**
 * Second pass over θ's dense edge blocks (↔ weightedSums over denseEdges): 3 arrays of n into
 * `ws` (support, contradict, require), zeroed here; reads c (n) and the first pass's `sums`.
 */
export function graphWeightedSums(theta: usize, n: i32, eoff: i32, c: usize, sums: usize, tau: f64, ws: usize): void {
  densePass(true, theta, n, eoff, c, sums, tau, ws);
}

// ---------------------------------------------------------------------------------------------
// the CSR passes: each block's non-zeros by rows, described by `rows`, 17 i32: for Supports,
// Requires and Contradicts in turn the pointers start (n+1 i32), col (i32), val (f64); the
// pointer to `active` (the rows with an entry in some block, ascending) and their count; the
// pointers rc (n i32) and rv (n f64), the caller's scratch for an overridden row; and ONE entry
// that replaces the stored one — block (−1 for none), row, column, and the pointer to its f64
// value — an evaluation at θ ± h·e_j for an edge coordinate j. The passes visit only the active
// rows and the overridden row (an empty row adds nothing to any sum), so the cost is O(n + nnz).

let csr: usize = 0;
let overrideBlock: i32 = -1;
let overrideRow: i32 = 0;
let overrideCol: i32 = 0;
let overrideValue: f64 = 0;
let cursor: i32 = 0;
let overridePending: bool = false;
let rowCols: usize = 0;
let rowVals: usize = 0;

/** Starts a visit of the rows described by `rows` (see {@link nextRow}). */
// @ts-ignore: decorator
@inline function startRows(rows: usize): void {
  csr = rows;
  overrideBlock = ldi(rows, 13);
  overrideRow = ldi(rows, 14);
  overrideCol = ldi(rows, 15);
  overrideValue = overrideBlock >= 0 ? load<f64>(<usize>ldi(rows, 16)) : 0;
  cursor = 0;
  overridePending = overrideBlock >= 0;
}

/** The next row to visit, ascending: the next active row or the overridden one; −1 after the last. */
// @ts-ignore: decorator
@inline function nextRow(): i32 {
  const active = <usize>ldi(csr, 9);
  const nactive = ldi(csr, 10);
  const next = cursor < nactive ? ldi(active, cursor) : i32.MAX_VALUE;
  if (overridePending && overrideRow <= next) {
    overridePending = false;
    if (overrideRow == next) cursor++;
    return overrideRow;
  }
  if (cursor < nactive) {
    cursor++;
    return next;
  }
  return -1;
}

/** Row j of block b with the override applied: sets rowCols/rowVals, returns the row's length. */
function rowOf(b: i32, j: i32): i32 {
  const start = <usize>ldi(csr, 3 * b);
  const col = <usize>ldi(csr, 3 * b + 1);
  const val = <usize>ldi(csr, 3 * b + 2);
  const s = ldi(start, j);
  const e = ldi(start, j + 1);
  if (b != overrideBlock || j != overrideRow) {
    rowCols = col + (<usize>s << 2);
    rowVals = val + (<usize>s << 3);
    return e - s;
  }
  const rc = <usize>ldi(csr, 11);
  const rv = <usize>ldi(csr, 12);
  let len = 0;
  let done = false;
  for (let k = s; k < e; k++) {
    const c = ldi(col, k);
    if (!done && c >= overrideCol) {
      sti(rc, len, overrideCol);
      st(rv, len, overrideValue);
      len++;
      done = true;
      if (c == overrideCol) continue;
    }
    sti(rc, len, c);
    st(rv, len, ld(val, k));
    len++;
  }
  if (!done) {
    sti(rc, len, overrideCol);
    st(rv, len, overrideValue);
    len++;
  }
  rowCols = rc;
  rowVals = rv;
  return len;
}

/** One pass over the CSR rows: the first (into `sums`, zeroed here) or, `weighted`, the second (into `ws`). */
// @ts-ignore: decorator
@inline function csrPass(weighted: bool, n: i32, rows: usize, c: usize, sums: usize, tau: f64, ws: usize): void {
  if (weighted) memory.fill(ws, 0, <usize>(3 * n) << 3);
  else memory.fill(sums, 0, <usize>(7 * n) << 3);
  startPass(n, sums, c, tau, ws);
  startRows(rows);
  for (let j = nextRow(); j >= 0; j = nextRow()) {
    let len = rowOf(0, j); // sets rowCols/rowVals: called before they are read
    let x: f64 = 0; // S_jj in the first pass (stored as the diagonal), c_j in the second
    if (weighted) x = ld(c, j);
    else {
      for (let k = 0; k < len; k++)
        if (ldi(rowCols, k) == j) {
          x = ld(rowVals, k);
          break;
        }
      st(sums, j, x);
    }
    supportRow(weighted, false, rowCols, rowVals, len, j, x);
    len = rowOf(1, j);
    requireRow(weighted, false, rowCols, rowVals, len, j);
    len = rowOf(2, j);
    contradictRow(weighted, false, rowCols, rowVals, len, j);
  }
}

/** ↔ structureSums over csrEdges: the first pass over the CSR blocks, into `sums` as {@link graphStructureSums}. */
export function graphStructureSumsCsr(n: i32, rows: usize, sums: usize): void {
  csrPass(false, n, rows, 0, sums, 0, 0);
}

/** ↔ weightedSums over csrEdges: the second pass over the CSR blocks, into `ws` as {@link graphWeightedSums}. */
export function graphWeightedSumsCsr(n: i32, rows: usize, c: usize, sums: usize, tau: f64, ws: usize): void {
  csrPass(true, n, rows, c, sums, tau, ws);
}

// ---------------------------------------------------------------------------------------------
// the node block

/**
 * ↔ confidenceUpdate: the belief update, the answer softmax-with-none and the sharpening; writes
 * n new confidences to `cout`. p: the 17 parameters in the order of `packParams`
 * (src/graph/operators/wasmConsolidate.ts): lambda, biasClaim, biasAnswer, biasQuestion, direct,
 * answerSupport, support, contradict, tauContradict, require, resolve, presenceScale, mergeRate,
 * mergeRadius, sharpen, tauAnswer, promotion. Groups: gstart[g..g+1] range into gans (i32 answer slots),
 * qgroup[q − firstQuestion] the group of question q or −1. scratch: n + 4·maxGroup f64.
 */
export function graphConfidenceUpdate(
  n: i32,
  claims: i32,
  firstQuestion: i32,
  c: usize,
  sums: usize,
  ws: usize,
  p: usize,
  ngroups: i32,
  gstart: usize,
  gans: usize,
  qgroup: usize,
  scratch: usize,
  cout: usize,
): void {
  const lambda = ld(p, 0);
  const bC = ld(p, 1);
  const bA = ld(p, 2);
  const bQ = ld(p, 3);
  const bD = ld(p, 4);
  const bIn = ld(p, 5);
  const bS = ld(p, 6);
  const bX = ld(p, 7);
  const bR = ld(p, 9);
  const bRes = ld(p, 10);
  const omega = ld(p, 11);
  const eta = ld(p, 14);
  const tauA = ld(p, 15);
  const bPro = ld(p, 16);
  const diag = part(sums, n, Sum.Diag);
  const sIn = part(sums, n, Sum.SupportIn);
  const rOut = part(sums, n, Sum.RequireOut);
  const rIn = part(sums, n, Sum.RequireIn);
  const kRel = part(sums, n, Sum.ReliableIn);
  const sup = part(ws, n, Weighted.Support);
  const con = part(ws, n, Weighted.Contradict);
  const req = part(ws, n, Weighted.Require);
  const h = scratch;
  memory.fill(h, 0, <usize>n << 3);
  for (let i = 0; i < claims; i++) {
    const sii = ld(diag, i);
    if (sii == 0) continue;
    const z = bC + bD * sii + bS * ld(sup, i) - bX * ld(con, i) - bR * ld(req, i);
    st(h, i, sii * sigmoid(z));
  }
  for (let g = 0; g < ngroups; g++) {
    const s0 = ldi(gstart, g);
    const m = ldi(gstart, g + 1) - s0;
    const gate = scratch + (<usize>n << 3);
    const zz = gate + (<usize>m << 3);
    const num = zz + (<usize>m << 3);
    const sw = num + (<usize>m << 3);
    let zmax: f64 = 0;
    for (let t = 0; t < m; t++) {
      const a = ldi(gans, s0 + t);
      st(gate, t, 1 - exp(-(ld(sIn, a) + ld(rOut, a)) / omega));
      const kr = ld(kRel, a);
      st(zz, t, bA + (bIn * kr) / (1 + kr) + bS * ld(sup, a) - bR * ld(req, a));
      if (ld(gate, t) > 0 && ld(zz, t) > zmax) zmax = ld(zz, t);
    }
    let den = exp(-zmax);
    for (let t = 0; t < m; t++) {
      st(num, t, ld(gate, t) * exp(ld(zz, t) - zmax));
      den += ld(num, t);
    }
    let mass: f64 = 0;
    for (let t = 0; t < m; t++) {
      const gt = ld(num, t) / den;
      st(h, ldi(gans, s0 + t), gt);
      mass += gt;
    }
    let sden: f64 = 0;
    for (let t = 0; t < m; t++) {
      st(sw, t, ld(gate, t) * exp(ld(h, ldi(gans, s0 + t)) / tauA));
      sden += ld(sw, t);
    }
    if (sden > 0) {
      for (let t = 0; t < m; t++) {
        const a = ldi(gans, s0 + t);
        st(h, a, (1 - eta) * ld(h, a) + (eta * mass * ld(sw, t)) / sden);
      }
    }
  }
  for (let q = firstQuestion; q < n; q++) {
    const kq = ld(rIn, q);
    if (kq == 0) continue;
    let answered: f64 = 0;
    const g = ldi(qgroup, q - firstQuestion);
    if (g >= 0) {
      const s0 = ldi(gstart, g);
      const s1 = ldi(gstart, g + 1);
      for (let t = s0; t < s1; t++) answered += ld(c, ldi(gans, t));
    }
    // ld(diag, q) = S_qq, the resolution support
    st(h, q, (1 - exp(-kq / omega)) * sigmoid(bQ - bRes * answered - bPro * ld(diag, q)));
  }
  for (let i = 0; i < n; i++) st(cout, i, (1 - lambda) * ld(c, i) + lambda * ld(h, i));
}

/**
 * ↔ mergeClaims: the merge of near-duplicate claims. Reads the attributes of `theta` (node block
 * layout, k1 = k+1 values per slot) and the Supports diagonal `diag` (the first n values of
 * `sums`), writes merged attributes into `out` (same layout): only the first md attributes of a
 * claim slot, and only where some partner lies within the radius (h2 = h²). rows = 0 merges
 * every claim slot; else the nrows i32 claim slots listed at `rows` (a DQ column lists the
 * shifted claim and the claims within the radius of it: the only rows the shift can change), each
 * with the same arithmetic, the others left unwritten. pull: md f64 scratch.
 */
export function graphMergeClaims(
  theta: usize,
  k1: i32,
  claims: i32,
  md: i32,
  diag: usize,
  mu: f64,
  h2: f64,
  pull: usize,
  out: usize,
  rows: usize,
  nrows: i32,
): void {
  if (mu == 0) return;
  const count = rows == 0 ? claims : nrows;
  for (let r = 0; r < count; r++) {
    const i = rows == 0 ? r : ldi(rows, r);
    const mi = ld(diag, i);
    if (mi == 0) continue;
    const oi = i * k1;
    memory.fill(pull, 0, <usize>md << 3);
    let total: f64 = 0;
    for (let j = 0; j < claims; j++) {
      const mj = ld(diag, j);
      if (j == i || mj == 0) continue;
      const oj = j * k1;
      let r2: f64 = 0;
      for (let t = 0; t < md; t++) {
        const d = ld(theta, oj + t) - ld(theta, oi + t);
        r2 += d * d;
      }
      if (r2 >= h2) continue;
      const u = 1 - r2 / h2;
      const sij = mi * mj * u * u * u;
      total += sij;
      for (let t = 0; t < md; t++) st(pull, t, ld(pull, t) + sij * (ld(theta, oj + t) - ld(theta, oi + t)));
    }
    if (total == 0) continue;
    const f = mu / (1 + total);
    for (let t = 0; t < md; t++) st(out, oi + t, ld(theta, oi + t) + f * ld(pull, t));
  }
}

/**
 * The claim rows of a DQ column that shifts attribute u of claim `slot` to p or m, for
 * {@link graphMergeClaims}: the slot itself and every other present claim (S_ii ≠ 0 in `diag`)
 * whose first md attributes lie within squared distance `limit` of the slot's at either point,
 * ascending after the slot; written to `rows` (i32), the count returned — 0 when the slot is
 * absent (its gate keeps it out of every merge). No TypeScript twin: the resident DQ engine's
 * row choice (src/graph/linearisation/consolidateJacobian.ts), tested through its columns.
 */
export function graphMergeRows(
  node: usize,
  k1: i32,
  claims: i32,
  md: i32,
  diag: usize,
  slot: i32,
  u: i32,
  p: f64,
  m: f64,
  limit: f64,
  rows: usize,
): i32 {
  if (ld(diag, slot) == 0) return 0;
  let count = 0;
  sti(rows, count++, slot);
  const os = slot * k1;
  for (let i = 0; i < claims; i++) {
    if (i == slot || ld(diag, i) == 0) continue;
    const oi = i * k1;
    let rp: f64 = 0;
    let rm: f64 = 0;
    for (let t = 0; t < md; t++) {
      const xi = ld(node, oi + t);
      const dp = (t == u ? p : ld(node, os + t)) - xi;
      const dm = (t == u ? m : ld(node, os + t)) - xi;
      rp += dp * dp;
      rm += dm * dm;
    }
    if (rp < limit || rm < limit) sti(rows, count++, i);
  }
  return count;
}
