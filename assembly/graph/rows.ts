// The two edge-block passes of Q (gqsums, gqweighted in ./consolidate.ts) over the non-zeros of
// each block stored by rows (CSR: start[n+1] i32, col i32, val f64, one triple per block:
// Supports, Requires, Contradicts), optionally with ONE entry overridden (block ob, row orow,
// column ocol, value oval; ob = -1 for none) — a central-difference evaluation at θ ± h·e_j for
// an edge coordinate j. The dense passes skip exact zeros and visit each block row-major; these
// visit the same non-zeros in the same order, so every sum is bit for bit the dense one and the
// cost is O(n + nnz) instead of O(n²): the passes visit only the rows listed in `active`
// (ascending: the rows with an entry in some block) and the overridden row — an empty row adds
// nothing to any sum. Nothing allocates: rc (n i32) and rv (n f64) are the caller's scratch for
// the overridden row.

// @ts-ignore: decorator
@inline function ld(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}
// @ts-ignore: decorator
@inline function st(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}
// @ts-ignore: decorator
@inline function ldi(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline function sti(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}
// @ts-ignore: decorator
@inline function sigmoid(z: f64): f64 {
  return 1.0 / (1.0 + Math.exp(-z));
}

let rowCols: usize = 0;
let rowVals: usize = 0;

// Row j of block b with the override applied: sets rowCols/rowVals, returns the row's length.
function rowOf(
  b: i32,
  j: i32,
  start: usize,
  col: usize,
  val: usize,
  ob: i32,
  orow: i32,
  ocol: i32,
  oval: f64,
  rc: usize,
  rv: usize,
): i32 {
  const s = ldi(start, j);
  const e = ldi(start, j + 1);
  if (b != ob || j != orow) {
    rowCols = col + (<usize>s << 2);
    rowVals = val + (<usize>s << 3);
    return e - s;
  }
  let len = 0;
  let done = false;
  for (let k = s; k < e; k++) {
    const c = ldi(col, k);
    if (!done && c >= ocol) {
      sti(rc, len, ocol);
      st(rv, len, oval);
      len++;
      done = true;
      if (c == ocol) continue;
    }
    sti(rc, len, c);
    st(rv, len, ld(val, k));
    len++;
  }
  if (!done) {
    sti(rc, len, ocol);
    st(rv, len, oval);
    len++;
  }
  rowCols = rc;
  rowVals = rv;
  return len;
}

// gqsums over the CSR blocks (csr: 9 i32 pointers sStart, sCol, sVal, rStart, rCol, rVal,
// xStart, xCol, xVal): 7 arrays of n into `sums` (diag, supportOut, supportIn,
// contradictDegree, requireOut, requireIn, reliableIn).
export function gcsrsums(
  n: i32,
  csr: usize,
  active: usize,
  nactive: i32,
  ob: i32,
  orow: i32,
  ocol: i32,
  oval: f64,
  rc: usize,
  rv: usize,
  sums: usize,
): void {
  memory.fill(sums, 0, <usize>(7 * n) << 3);
  const diag = sums;
  const sOut = sums + (<usize>n << 3);
  const sIn = sums + (<usize>(2 * n) << 3);
  const xDeg = sums + (<usize>(3 * n) << 3);
  const rOut = sums + (<usize>(4 * n) << 3);
  const rIn = sums + (<usize>(5 * n) << 3);
  const kRel = sums + (<usize>(6 * n) << 3);
  const sS = <usize>ldi(csr, 0);
  const sC = <usize>ldi(csr, 1);
  const sV = <usize>ldi(csr, 2);
  const rS = <usize>ldi(csr, 3);
  const rC = <usize>ldi(csr, 4);
  const rV = <usize>ldi(csr, 5);
  const xS = <usize>ldi(csr, 6);
  const xC = <usize>ldi(csr, 7);
  const xV = <usize>ldi(csr, 8);
  let a = 0;
  let pending = ob >= 0;
  while (true) {
    // the next row with entries (or the overridden row), ascending: empty rows add nothing
    const next = a < nactive ? ldi(active, a) : i32.MAX_VALUE;
    let j: i32 = 0;
    if (pending && orow <= next) {
      j = orow;
      pending = false;
      if (orow == next) a++;
    } else if (a < nactive) {
      j = next;
      a++;
    } else break;
    let len = rowOf(0, j, sS, sC, sV, ob, orow, ocol, oval, rc, rv);
    let cp = rowCols;
    let vp = rowVals;
    let sjj: f64 = 0;
    for (let k = 0; k < len; k++)
      if (ldi(cp, k) == j) {
        sjj = ld(vp, k);
        break;
      }
    st(diag, j, sjj);
    for (let k = 0; k < len; k++) {
      const i = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0 || i == j) continue;
      st(sOut, j, ld(sOut, j) + w);
      st(sIn, i, ld(sIn, i) + w);
      st(kRel, i, ld(kRel, i) + w * sjj);
    }
    len = rowOf(1, j, rS, rC, rV, ob, orow, ocol, oval, rc, rv);
    cp = rowCols;
    vp = rowVals;
    for (let k = 0; k < len; k++) {
      const q = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0) continue;
      st(rOut, j, ld(rOut, j) + w);
      st(rIn, q, ld(rIn, q) + w);
    }
    len = rowOf(2, j, xS, xC, xV, ob, orow, ocol, oval, rc, rv);
    cp = rowCols;
    vp = rowVals;
    for (let k = 0; k < len; k++) {
      const i = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0) continue;
      st(xDeg, j, ld(xDeg, j) + w);
      st(xDeg, i, ld(xDeg, i) + w);
    }
  }
}

// gqweighted over the CSR blocks: 3 arrays of n into `ws` (support, contradict, require).
export function gcsrweighted(
  n: i32,
  csr: usize,
  active: usize,
  nactive: i32,
  ob: i32,
  orow: i32,
  ocol: i32,
  oval: f64,
  rc: usize,
  rv: usize,
  c: usize,
  sums: usize,
  tau: f64,
  ws: usize,
): void {
  memory.fill(ws, 0, <usize>(3 * n) << 3);
  const sOut = sums + (<usize>n << 3);
  const sIn = sums + (<usize>(2 * n) << 3);
  const xDeg = sums + (<usize>(3 * n) << 3);
  const rOut = sums + (<usize>(4 * n) << 3);
  const rIn = sums + (<usize>(5 * n) << 3);
  const sup = ws;
  const con = ws + (<usize>n << 3);
  const req = ws + (<usize>(2 * n) << 3);
  const sS = <usize>ldi(csr, 0);
  const sC = <usize>ldi(csr, 1);
  const sV = <usize>ldi(csr, 2);
  const rS = <usize>ldi(csr, 3);
  const rC = <usize>ldi(csr, 4);
  const rV = <usize>ldi(csr, 5);
  const xS = <usize>ldi(csr, 6);
  const xC = <usize>ldi(csr, 7);
  const xV = <usize>ldi(csr, 8);
  let a = 0;
  let pending = ob >= 0;
  while (true) {
    // the next row with entries (or the overridden row), ascending: empty rows add nothing
    const next = a < nactive ? ldi(active, a) : i32.MAX_VALUE;
    let j: i32 = 0;
    if (pending && orow <= next) {
      j = orow;
      pending = false;
      if (orow == next) a++;
    } else if (a < nactive) {
      j = next;
      a++;
    } else break;
    const cj = ld(c, j);
    const rj = 1 + ld(sOut, j);
    let len = rowOf(0, j, sS, sC, sV, ob, orow, ocol, oval, rc, rv);
    let cp = rowCols;
    let vp = rowVals;
    for (let k = 0; k < len; k++) {
      const i = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0 || i == j) continue;
      st(sup, i, ld(sup, i) + (w * cj) / (rj + ld(sIn, i)));
    }
    const pj = 1 + ld(rOut, j);
    let acc: f64 = 0;
    len = rowOf(1, j, rS, rC, rV, ob, orow, ocol, oval, rc, rv);
    cp = rowCols;
    vp = rowVals;
    for (let k = 0; k < len; k++) {
      const q = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0) continue;
      acc += (w * ld(c, q)) / (pj + ld(rIn, q));
    }
    st(req, j, acc);
    const dj = 1 + ld(xDeg, j);
    len = rowOf(2, j, xS, xC, xV, ob, orow, ocol, oval, rc, rv);
    cp = rowCols;
    vp = rowVals;
    for (let k = 0; k < len; k++) {
      const i = ldi(cp, k);
      const w = ld(vp, k);
      if (w == 0) continue;
      const f = w / (dj + ld(xDeg, i));
      const ci = ld(c, i);
      st(con, j, ld(con, j) + f * ci * sigmoid((ci - cj) / tau));
      st(con, i, ld(con, i) + f * cj * sigmoid((cj - ci) / tau));
    }
  }
}

// Central quotients over the node block (slot s at s·k1, k1 − 1 attributes then the
// confidence): confidences (cp − cm)/den from two n-arrays and, when withAttr, attributes of the
// claim slots (ap − am)/den from two arrays in node layout (claims·k1 values). Writes the
// non-zero quotients in ascending node index to idx/val and returns their count, or −(i + 1)
// for the first node index i whose quotient is not finite (then idx/val hold a partial list).
export function gqquotient(
  n: i32,
  k1: i32,
  claims: i32,
  cp: usize,
  cm: usize,
  ap: usize,
  am: usize,
  withAttr: i32,
  den: f64,
  idx: usize,
  val: usize,
): i32 {
  let nnz = 0;
  const k = k1 - 1;
  for (let t = 0; t < n; t++) {
    const o = t * k1;
    if (withAttr != 0 && t < claims) {
      for (let u = 0; u < k; u++) {
        const a = ld(ap, o + u);
        const b = ld(am, o + u);
        if (a != b) {
          const q = (a - b) / den;
          if (!isFinite(q)) return -(o + u + 1);
          sti(idx, nnz, o + u);
          st(val, nnz, q);
          nnz++;
        }
      }
    }
    const a = ld(cp, t);
    const b = ld(cm, t);
    if (a != b) {
      const q = (a - b) / den;
      if (!isFinite(q)) return -(o + k + 1);
      sti(idx, nnz, o + k);
      st(val, nnz, q);
      nnz++;
    }
  }
  return nnz;
}

// gqmerge (./consolidate.ts) for the listed claim rows only (rows: nrows i32 claim slots), with
// the same arithmetic: the merged attributes of every listed row are bit for bit gqmerge's, the
// others are not written. An attribute column lists the shifted claim and the claims within the
// merge radius of it at either point — the only rows whose merge the shift can change.
export function gqmergeRows(
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
  for (let r = 0; r < nrows; r++) {
    const i = ldi(rows, r);
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
