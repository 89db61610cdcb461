// Reference consolidation Q on the embedded graph (src/graph/operators/consolidate.ts has the formulas).
// Pointers are byte offsets; arrays are f64 unless named i32; edge blocks start at element
// `eoff` of theta (Supports, Requires, Contradicts, each n×n row-major). Nothing allocates:
// every output and scratch buffer belongs to the caller.

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
@inline function sigmoid(z: f64): f64 {
  return 1.0 / (1.0 + Math.exp(-z));
}

// First pass: structure sums into `sums` = 7 arrays of n: diag, supportOut, supportIn,
// contradictDegree, requireOut, requireIn, reliableIn (zeroed here).
export function gqsums(theta: usize, n: i32, eoff: i32, sums: usize): void {
  memory.fill(sums, 0, <usize>(7 * n) << 3);
  const diag = sums;
  const sOut = sums + (<usize>n << 3);
  const sIn = sums + (<usize>(2 * n) << 3);
  const xDeg = sums + (<usize>(3 * n) << 3);
  const rOut = sums + (<usize>(4 * n) << 3);
  const rIn = sums + (<usize>(5 * n) << 3);
  const kRel = sums + (<usize>(6 * n) << 3);
  const nn = n * n;
  const sB = theta + (<usize>eoff << 3);
  const rB = sB + (<usize>nn << 3);
  const xB = sB + (<usize>(2 * nn) << 3);
  for (let j = 0; j < n; j++) {
    const row = j * n;
    const sjj = ld(sB, row + j);
    st(diag, j, sjj);
    for (let i = 0; i < n; i++) {
      const w = ld(sB, row + i);
      if (w == 0 || i == j) continue;
      st(sOut, j, ld(sOut, j) + w);
      st(sIn, i, ld(sIn, i) + w);
      st(kRel, i, ld(kRel, i) + w * sjj);
    }
    for (let q = 0; q < n; q++) {
      const w = ld(rB, row + q);
      if (w == 0) continue;
      st(rOut, j, ld(rOut, j) + w);
      st(rIn, q, ld(rIn, q) + w);
    }
    for (let i = 0; i < n; i++) {
      const w = ld(xB, row + i);
      if (w == 0) continue;
      st(xDeg, j, ld(xDeg, j) + w);
      st(xDeg, i, ld(xDeg, i) + w);
    }
  }
}

// Second pass: c-weighted normalised sums into `ws` = 3 arrays of n: support, contradict, require.
export function gqweighted(theta: usize, n: i32, eoff: i32, c: usize, sums: usize, tau: f64, ws: usize): void {
  memory.fill(ws, 0, <usize>(3 * n) << 3);
  const sOut = sums + (<usize>n << 3);
  const sIn = sums + (<usize>(2 * n) << 3);
  const xDeg = sums + (<usize>(3 * n) << 3);
  const rOut = sums + (<usize>(4 * n) << 3);
  const rIn = sums + (<usize>(5 * n) << 3);
  const sup = ws;
  const con = ws + (<usize>n << 3);
  const req = ws + (<usize>(2 * n) << 3);
  const nn = n * n;
  const sB = theta + (<usize>eoff << 3);
  const rB = sB + (<usize>nn << 3);
  const xB = sB + (<usize>(2 * nn) << 3);
  for (let j = 0; j < n; j++) {
    const row = j * n;
    const cj = ld(c, j);
    const rj = 1 + ld(sOut, j);
    for (let i = 0; i < n; i++) {
      const w = ld(sB, row + i);
      if (w == 0 || i == j) continue;
      st(sup, i, ld(sup, i) + (w * cj) / (rj + ld(sIn, i)));
    }
    const pj = 1 + ld(rOut, j);
    let acc: f64 = 0;
    for (let q = 0; q < n; q++) {
      const w = ld(rB, row + q);
      if (w == 0) continue;
      acc += (w * ld(c, q)) / (pj + ld(rIn, q));
    }
    st(req, j, acc);
    const dj = 1 + ld(xDeg, j);
    for (let i = 0; i < n; i++) {
      const w = ld(xB, row + i);
      if (w == 0) continue;
      const f = w / (dj + ld(xDeg, i));
      const ci = ld(c, i);
      st(con, j, ld(con, j) + f * ci * sigmoid((ci - cj) / tau));
      st(con, i, ld(con, i) + f * cj * sigmoid((cj - ci) / tau));
    }
  }
}

// Belief update, answer softmax-with-none, sharpening: writes n new confidences to `cout`.
// p: 16 parameters (lambda, biasClaim, biasAnswer, biasQuestion, direct, answerSupport, support,
// contradict, tauContradict, require, resolve, presenceScale, mergeRate, mergeRadius, sharpen,
// tauAnswer). Groups: gstart[g..g+1] range into gans (answer slots),
// qgroup[q − firstQuestion] group of question q or −1. scratch: n + 4·maxGroup f64.
export function gqbelief(
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
  const diag = sums;
  const sIn = sums + (<usize>(2 * n) << 3);
  const rOut = sums + (<usize>(4 * n) << 3);
  const rIn = sums + (<usize>(5 * n) << 3);
  const kRel = sums + (<usize>(6 * n) << 3);
  const sup = ws;
  const con = ws + (<usize>n << 3);
  const req = ws + (<usize>(2 * n) << 3);
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
      st(gate, t, 1 - Math.exp(-(ld(sIn, a) + ld(rOut, a)) / omega));
      const kr = ld(kRel, a);
      st(zz, t, bA + (bIn * kr) / (1 + kr) + bS * ld(sup, a) - bR * ld(req, a));
      if (ld(gate, t) > 0 && ld(zz, t) > zmax) zmax = ld(zz, t);
    }
    let den = Math.exp(-zmax);
    for (let t = 0; t < m; t++) {
      st(num, t, ld(gate, t) * Math.exp(ld(zz, t) - zmax));
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
      st(sw, t, ld(gate, t) * Math.exp(ld(h, ldi(gans, s0 + t)) / tauA));
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
    st(h, q, (1 - Math.exp(-kq / omega)) * sigmoid(bQ - bRes * answered));
  }
  for (let i = 0; i < n; i++) st(cout, i, (1 - lambda) * ld(c, i) + lambda * ld(h, i));
}

// Merge of near-duplicate claims: reads attributes of theta, writes merged ones into `out`
// (node block layout, k1 = k+1 values per slot; only the first md attributes of claim slots
// are written, and only where some partner lies within the radius). pull: md f64 scratch.
export function gqmerge(
  theta: usize,
  k1: i32,
  claims: i32,
  md: i32,
  diag: usize,
  mu: f64,
  h2: f64,
  pull: usize,
  out: usize,
): void {
  if (mu == 0) return;
  for (let i = 0; i < claims; i++) {
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
