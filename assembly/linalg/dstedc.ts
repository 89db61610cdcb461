// Eigenvectors of a symmetric tridiagonal by divide and conquer: LAPACK dstedc (compz = 'I') with
// dlaed0 (icompq = 2), dlaed1, dlaed2, dlaed3, dlaed4, dlaed5, dlaed6 and dlamrg, 0-based
// (Cuppen 1981; Gu & Eisenstat, SIAM J. Matrix Anal. Appl. 16 (1995) 172–191). Used by
// assembly/linalg/dsyev.ts (method 1); tests: test/linalg/dstedc.test.ts.
//
// Q is column-major with leading dimension ldq: entry (i, j) at Q + (j·ldq + i)·8, so column j
// (eigenvector j) is contiguous — the row-major n×n Vᵀ of assembly/linalg/dsyev.ts is this Q with
// ldq = n. The products of the merge are row-major gemm calls on the transposes (Cᵀ = Bᵀ·Aᵀ).
//
// 1. Split T where |e_i| <= eps·sqrt|d_i|·sqrt|d_{i+1}|; each unreduced block of more than
//    SMLSIZ rows is scaled to unit max-norm and solved by 2–4, the others by QL with vectors.
// 2. Tear: cut the block in halves recursively down to leaves of at most SMLSIZ rows; at each cut
//    T = diag(T1 − |β|e_last e_lastᵀ, T2 − |β|e_1 e_1ᵀ) + β·vvᵀ. Leaves: QL with vectors.
// 3. Merge two solved halves Q1ᵀT1Q1 = D1, Q2ᵀT2Q2 = D2: the rank-one update D + ρzzᵀ with
//    z = (last row of Q1, first row of Q2). Deflation (dlaed2): components with ρ|z_i| <= tol and
//    pairs of close d_i (Givens rotation zeroing one z, if the off-diagonal it creates is <= tol),
//    tol = 64·eps·max(|d|_max, |z|_max); the deflated pairs are exact eigenpairs to within tol.
// 4. The K remaining roots of the secular equation 1/ρ + Σ z_i²/(d_i − λ) = 0 (dlaed4): each
//    computed in coordinates shifted to the nearer pole, δ_i = d_i − λ_j kept (never λ_j − d_i
//    from a rounded λ_j), by the fixed-weight rational iteration with bisection safeguard. Then
//    z is recomputed from the roots by Löwner's formula (Gu–Eisenstat),
//    ẑ_i² = Π_j (λ_j − d_i) / Π_{j≠i} (d_j − d_i), so the computed λ are the exact eigenvalues of
//    D + ρẑẑᵀ and the vectors u_j = (ẑ_i/δ_ij)_i / ||·|| are orthogonal to working precision.
//    The new eigenvectors Q·U are two gemm calls on the column-type blocks (dlaed3).
import { gemmStrided } from './dgemm';
import { sortRows, tql2 } from './tridiag';
import { capSecular } from './caps';
import { vrot } from './vec';
import { ld8, st8, ld4, st4 } from './mem';

const EPS: f64 = 2.220446049250313e-16;
/** Largest subproblem solved by QL with vectors (LAPACK ilaenv(9, 'DLAED0') = 25). */
export const SMLSIZ: i32 = 25;
/** Iteration cap of dlaed6 (dlaed4's is capSecular: ./caps.ts). */
const MAXIT6: i32 = 40;
/** 2^-340 (dlaed6's base^int(log(safmin)/log(base)/3)) and its square: scaling thresholds. */
const SMALL1: f64 = reinterpret<f64>(<u64>(1023 - 340) << 52);
const SMINV1: f64 = reinterpret<f64>(<u64>(1023 + 340) << 52);

const KC: i32 = 256;
const MC: i32 = 128;
const NC: i32 = 512;

/** Address of Q(i, j), column-major with leading dimension ldq. */
// @ts-ignore: decorator
@inline function qa(Q: usize, ldq: i32, i: i32, j: i32): usize {
  return Q + ((<usize>j * <usize>ldq + <usize>i) << 3);
}

/** Values of workspace {@link dstedc} needs for side n (f64 and i32 scratch). */
export function dstedcWork(n: i32): i32 {
  return 2 * n * n + 12 * n + 64;
}

/**
 * Eigenpairs of the symmetric tridiagonal (d, e) of side n: d (n) becomes the eigenvalues
 * ascending, e (n, e[n−1] unused) is destroyed, Q (n×n column-major, ldq = n) the eigenvectors
 * (column j for d[j]). work: {@link dstedcWork}(n) values; PA, PB, T16: gemm packing buffers for
 * blocking KC, MC, NC (see dgemm). Returns the QL iterations of the leaves, or −1 if a QL leaf
 * or a secular root failed.
 */
export function dstedc(n: i32, d: usize, e: usize, Q: usize, work: usize, PA: usize, PB: usize, T16: usize): i32 {
  if (n <= 0) return 0;
  const N8 = <usize>n << 3;
  memory.fill(Q, 0, <usize>n * N8);
  for (let i = 0; i < n; i++) st8(qa(Q, n, i, i), 0, 1);
  if (n == 1) return 0;
  let orgnrm: f64 = 0;
  for (let i = 0; i < n; i++) orgnrm = max(orgnrm, abs(ld8(d, i)));
  for (let i = 0; i < n - 1; i++) orgnrm = max(orgnrm, abs(ld8(e, i)));
  if (orgnrm == 0) return 0;
  let total = 0;
  let start = 0;
  while (start < n) {
    let finish = start;
    while (finish < n - 1) {
      const tiny = EPS * sqrt(abs(ld8(d, finish))) * sqrt(abs(ld8(d, finish + 1)));
      if (abs(ld8(e, finish)) > tiny) finish++;
      else break;
    }
    const m = finish - start + 1;
    if (m > 1) {
      const dB = d + (<usize>start << 3);
      const eB = e + (<usize>start << 3);
      const QB = qa(Q, n, start, start);
      if (m > SMLSIZ) {
        let nrm: f64 = 0;
        for (let i = 0; i < m; i++) nrm = max(nrm, abs(ld8(dB, i)));
        for (let i = 0; i < m - 1; i++) nrm = max(nrm, abs(ld8(eB, i)));
        const inv = 1 / nrm;
        if (isFinite(inv)) {
          for (let i = 0; i < m; i++) st8(dB, i, ld8(dB, i) * inv);
          for (let i = 0; i < m - 1; i++) st8(eB, i, ld8(eB, i) * inv);
        } else {
          for (let i = 0; i < m; i++) st8(dB, i, ld8(dB, i) / nrm);
          for (let i = 0; i < m - 1; i++) st8(eB, i, ld8(eB, i) / nrm);
        }
        const it = laed0(m, dB, eB, QB, n, work, PA, PB, T16);
        if (it < 0) return -1;
        total += it;
        for (let i = 0; i < m; i++) st8(dB, i, ld8(dB, i) * nrm);
      } else {
        const it = leafQL(m, dB, eB, QB, n, work);
        if (it < 0) return -1;
        total += it;
      }
    }
    start = finish + 1;
  }
  sortRows(d, Q, n);
  return total;
}

/**
 * QL with vectors on the block (d, e) of side m (e[m−1] not read, e not modified), its
 * eigenvectors into the m×m block at Q (leading dimension ldq), eigenvalues ascending.
 * scratch: m² + m values. Returns the QL iterations or −1.
 */
function leafQL(m: i32, d: usize, e: usize, Q: usize, ldq: i32, scratch: usize): i32 {
  const M8 = <usize>m << 3;
  const V = scratch;
  const eL = V + <usize>m * M8;
  memory.copy(eL, e, <usize>(m - 1) << 3);
  st8(eL, m - 1, 0);
  memory.fill(V, 0, <usize>m * M8);
  for (let i = 0; i < m; i++) st8(V + <usize>i * M8, i, 1);
  const it = tql2(m, d, eL, V, m);
  if (it < 0) return -1;
  sortRows(d, V, m);
  for (let j = 0; j < m; j++) memory.copy(qa(Q, ldq, 0, j), V + <usize>j * M8, M8);
  return it;
}

/** dlaed0 (icompq = 2) on the unreduced block (d, e) of side n at Q (ldq): leaf QL iterations or −1. */
function laed0(n: i32, d: usize, e: usize, Q: usize, ldq: i32, work: usize, PA: usize, PB: usize, T16: usize): i32 {
  const N8 = <usize>n << 3;
  // workspace: f64 z, dlambda, w (n each), q2 (n²), s (n²); i32 indxq, indx, indxc, indxp,
  // coltyp (n each), subproblem bounds (2n + 8)
  const z = work;
  const dlambda = z + N8;
  const w = dlambda + N8;
  const q2 = w + N8;
  const s = q2 + <usize>n * N8;
  const indxq = s + <usize>n * N8;
  const N4 = <usize>n << 2;
  const indx = indxq + N4;
  const indxc = indx + N4;
  const indxp = indxc + N4;
  const coltyp = indxp + N4;
  const cum = coltyp + N4 + 16;
  // subproblem sizes, halving until the largest is at most SMLSIZ, then end offsets
  st4(cum, 0, n);
  let subpbs = 1;
  while (ld4(cum, subpbs - 1) > SMLSIZ) {
    for (let j = subpbs - 1; j >= 0; j--) {
      const sj = ld4(cum, j);
      st4(cum, 2 * j + 1, (sj + 1) / 2);
      st4(cum, 2 * j, sj / 2);
    }
    subpbs *= 2;
  }
  for (let j = 1; j < subpbs; j++) st4(cum, j, ld4(cum, j) + ld4(cum, j - 1));
  // tear: T = blocks + β·vvᵀ at each cut
  for (let i = 0; i < subpbs - 1; i++) {
    const last = ld4(cum, i) - 1;
    const b = abs(ld8(e, last));
    st8(d, last, ld8(d, last) - b);
    st8(d, last + 1, ld8(d, last + 1) - b);
  }
  // leaves
  let total = 0;
  for (let i = 0; i < subpbs; i++) {
    const submat = i == 0 ? 0 : ld4(cum, i - 1);
    const matsiz = ld4(cum, i) - submat;
    const it = leafQL(matsiz, d + (<usize>submat << 3), e + (<usize>submat << 3), qa(Q, ldq, submat, submat), ldq, q2);
    if (it < 0) return -1;
    total += it;
    for (let j = 0; j < matsiz; j++) st4(indxq, submat + j, j);
  }
  // merges, level by level
  while (subpbs > 1) {
    for (let i = 0; i <= subpbs - 2; i += 2) {
      let submat: i32, matsiz: i32, msd2: i32;
      if (i == 0) {
        submat = 0;
        matsiz = ld4(cum, 1);
        msd2 = ld4(cum, 0);
      } else {
        submat = ld4(cum, i - 1);
        matsiz = ld4(cum, i + 1) - submat;
        msd2 = matsiz / 2;
      }
      const info = laed1(
        matsiz,
        d + (<usize>submat << 3),
        qa(Q, ldq, submat, submat),
        ldq,
        indxq + (<usize>submat << 2),
        ld8(e, submat + msd2 - 1),
        msd2,
        z,
        dlambda,
        w,
        q2,
        s,
        indx,
        indxc,
        indxp,
        coltyp,
        PA,
        PB,
        T16,
      );
      if (info < 0) return -1;
      st4(cum, i / 2, ld4(cum, i + 1));
    }
    subpbs /= 2;
  }
  // eigenvalues ascending with their vectors
  for (let i = 0; i < n; i++) {
    const j = ld4(indxq, i);
    st8(z, i, ld8(d, j));
    memory.copy(q2 + <usize>i * N8, qa(Q, ldq, 0, j), N8);
  }
  memory.copy(d, z, N8);
  for (let j = 0; j < n; j++) memory.copy(qa(Q, ldq, 0, j), q2 + <usize>j * N8, N8);
  return total;
}

/** ρ after deflation (dlaed2 returns it doubled and made positive). */
let rhoOut: f64 = 0;

/**
 * dlaed1: merges the two solved halves (cut after row cutpnt) of the n×n block at Q into its
 * eigendecomposition; d: their eigenvalues, indxq: their ascending orders (local to each half,
 * on entry; of the merged block, on return).
 */
function laed1(
  n: i32,
  d: usize,
  Q: usize,
  ldq: i32,
  indxq: usize,
  rho: f64,
  cutpnt: i32,
  z: usize,
  dlambda: usize,
  w: usize,
  q2: usize,
  s: usize,
  indx: usize,
  indxc: usize,
  indxp: usize,
  coltyp: usize,
  PA: usize,
  PB: usize,
  T16: usize,
): i32 {
  for (let j = 0; j < cutpnt; j++) st8(z, j, load<f64>(qa(Q, ldq, cutpnt - 1, j)));
  for (let j = cutpnt; j < n; j++) st8(z, j, load<f64>(qa(Q, ldq, cutpnt, j)));
  const k = laed2(n, cutpnt, d, Q, ldq, indxq, rho, z, dlambda, w, q2, indx, indxc, indxp, coltyp);
  if (k != 0) {
    if (laed3(k, n, cutpnt, d, Q, ldq, rhoOut, dlambda, q2, indxc, coltyp, w, s, PA, PB, T16) < 0) return -1;
    lamrg(k, n - k, d, 1, -1, indxq);
  } else {
    for (let i = 0; i < n; i++) st4(indxq, i, i);
  }
  return 0;
}

/**
 * dlamrg: the permutation (0-based, into index) that merges a[0:n1] (ascending if s1 = 1,
 * descending if −1) and a[n1:n1+n2] (likewise s2) into one ascending list.
 */
function lamrg(n1: i32, n2: i32, a: usize, s1: i32, s2: i32, index: usize): void {
  let n1sv = n1;
  let n2sv = n2;
  let ind1 = s1 > 0 ? 0 : n1 - 1;
  let ind2 = s2 > 0 ? n1 : n1 + n2 - 1;
  let i = 0;
  while (n1sv > 0 && n2sv > 0) {
    if (ld8(a, ind1) <= ld8(a, ind2)) {
      st4(index, i++, ind1);
      ind1 += s1;
      n1sv--;
    } else {
      st4(index, i++, ind2);
      ind2 += s2;
      n2sv--;
    }
  }
  if (n1sv == 0) {
    for (; n2sv > 0; n2sv--) {
      st4(index, i++, ind2);
      ind2 += s2;
    }
  } else {
    for (; n1sv > 0; n1sv--) {
      st4(index, i++, ind1);
      ind1 += s1;
    }
  }
}

/**
 * dlaed2: deflation of D + ρzzᵀ. Returns K, the number of non-deflated values: dlambda[0:K] and
 * w[0:K] the secular equation's poles and weights, q2 the eigenvector columns grouped by type
 * (1: upper half only, 2: both, 3: lower only, 4: deflated), coltyp[0:4] the counts, indxc the
 * permutation of the merged columns, d[K:] and Q[:, K:] the deflated pairs. ρ into rhoOut.
 */
function laed2(
  n: i32,
  n1: i32,
  d: usize,
  Q: usize,
  ldq: i32,
  indxq: usize,
  rhoIn: f64,
  z: usize,
  dlambda: usize,
  w: usize,
  q2: usize,
  indx: usize,
  indxc: usize,
  indxp: usize,
  coltyp: usize,
): i32 {
  const n2 = n - n1;
  const N8 = <usize>n << 3;
  let rho = rhoIn;
  if (rho < 0) for (let i = n1; i < n; i++) st8(z, i, -ld8(z, i));
  const t0 = 1 / sqrt(2.0);
  for (let i = 0; i < n; i++) st8(z, i, ld8(z, i) * t0);
  rho = abs(2 * rho);
  rhoOut = rho;
  for (let i = n1; i < n; i++) st4(indxq, i, ld4(indxq, i) + n1);
  for (let i = 0; i < n; i++) st8(dlambda, i, ld8(d, ld4(indxq, i)));
  lamrg(n1, n2, dlambda, 1, 1, indxc);
  for (let i = 0; i < n; i++) st4(indx, i, ld4(indxq, ld4(indxc, i)));
  let zmax: f64 = 0;
  let dmax: f64 = 0;
  for (let i = 0; i < n; i++) {
    zmax = max(zmax, abs(ld8(z, i)));
    dmax = max(dmax, abs(ld8(d, i)));
  }
  const tol = 64 * EPS * max(dmax, zmax);
  if (rho * zmax <= tol) {
    for (let j = 0; j < n; j++) {
      const i = ld4(indx, j);
      memory.copy(q2 + <usize>j * N8, qa(Q, ldq, 0, i), N8);
      st8(dlambda, j, ld8(d, i));
    }
    for (let j = 0; j < n; j++) memory.copy(qa(Q, ldq, 0, j), q2 + <usize>j * N8, N8);
    memory.copy(d, dlambda, N8);
    return 0;
  }
  for (let i = 0; i < n1; i++) st4(coltyp, i, 1);
  for (let i = n1; i < n; i++) st4(coltyp, i, 3);
  let k = 0;
  let k2 = n;
  let j = 0;
  let pj = 0;
  for (; j < n; j++) {
    const nj = ld4(indx, j);
    if (rho * abs(ld8(z, nj)) <= tol) {
      k2--;
      st4(coltyp, nj, 4);
      st4(indxp, k2, nj);
    } else {
      pj = nj;
      break;
    }
  }
  // (some z is above tol, so the loop stopped at a pj)
  for (j++; j < n; j++) {
    const nj = ld4(indx, j);
    if (rho * abs(ld8(z, nj)) <= tol) {
      k2--;
      st4(coltyp, nj, 4);
      st4(indxp, k2, nj);
      continue;
    }
    let s = ld8(z, pj);
    let c = ld8(z, nj);
    const tau = sqrt(c * c + s * s); // |z| <= 1 after scaling and > tol/ρ: no overflow or underflow
    const t = ld8(d, nj) - ld8(d, pj);
    c /= tau;
    s = -s / tau;
    if (abs(t * c * s) <= tol) {
      // pj deflates: rotate it onto nj
      st8(z, nj, tau);
      st8(z, pj, 0);
      if (ld4(coltyp, nj) != ld4(coltyp, pj)) st4(coltyp, nj, 2);
      st4(coltyp, pj, 4);
      // drot(x, y, c, s): x ← c·x + s·y, y ← c·y − s·x
      vrot(n, qa(Q, ldq, 0, pj), qa(Q, ldq, 0, nj), c, -s);
      const dp = ld8(d, pj);
      const dn = ld8(d, nj);
      st8(d, pj, dp * c * c + dn * s * s);
      st8(d, nj, dp * s * s + dn * c * c);
      k2--;
      let i = 1;
      for (;;) {
        if (k2 + i <= n - 1 && ld8(d, pj) < ld8(d, ld4(indxp, k2 + i))) {
          st4(indxp, k2 + i - 1, ld4(indxp, k2 + i));
          st4(indxp, k2 + i, pj);
          i++;
        } else {
          st4(indxp, k2 + i - 1, pj);
          break;
        }
      }
      pj = nj;
    } else {
      st8(dlambda, k, ld8(d, pj));
      st8(w, k, ld8(z, pj));
      st4(indxp, k, pj);
      k++;
      pj = nj;
    }
  }
  st8(dlambda, k, ld8(d, pj));
  st8(w, k, ld8(z, pj));
  st4(indxp, k, pj);
  k++;
  // counts of the column types and the columns grouped by type into q2
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let c4 = 0;
  for (let jj = 0; jj < n; jj++) {
    const ct = ld4(coltyp, jj);
    if (ct == 1) c1++;
    else if (ct == 2) c2++;
    else if (ct == 3) c3++;
    else c4++;
  }
  let p1 = 0;
  let p2 = c1;
  let p3 = c1 + c2;
  let p4 = c1 + c2 + c3;
  k = n - c4;
  for (let jj = 0; jj < n; jj++) {
    const js = ld4(indxp, jj);
    const ct = ld4(coltyp, js);
    let p: i32;
    if (ct == 1) p = p1++;
    else if (ct == 2) p = p2++;
    else if (ct == 3) p = p3++;
    else p = p4++;
    st4(indx, p, js);
    st4(indxc, p, jj);
  }
  const N1B = <usize>n1 << 3;
  const N2B = <usize>n2 << 3;
  let i = 0;
  let iq1: usize = 0;
  let iq2: usize = <usize>(c1 + c2) * <usize>n1;
  for (let jj = 0; jj < c1; jj++, i++) {
    const js = ld4(indx, i);
    memory.copy(q2 + (iq1 << 3), qa(Q, ldq, 0, js), N1B);
    st8(z, i, ld8(d, js));
    iq1 += <usize>n1;
  }
  for (let jj = 0; jj < c2; jj++, i++) {
    const js = ld4(indx, i);
    memory.copy(q2 + (iq1 << 3), qa(Q, ldq, 0, js), N1B);
    memory.copy(q2 + (iq2 << 3), qa(Q, ldq, n1, js), N2B);
    st8(z, i, ld8(d, js));
    iq1 += <usize>n1;
    iq2 += <usize>n2;
  }
  for (let jj = 0; jj < c3; jj++, i++) {
    const js = ld4(indx, i);
    memory.copy(q2 + (iq2 << 3), qa(Q, ldq, n1, js), N2B);
    st8(z, i, ld8(d, js));
    iq2 += <usize>n2;
  }
  const iq4 = iq2;
  for (let jj = 0; jj < c4; jj++, i++) {
    const js = ld4(indx, i);
    memory.copy(q2 + (iq2 << 3), qa(Q, ldq, 0, js), N8);
    st8(z, i, ld8(d, js));
    iq2 += <usize>n;
  }
  if (k < n) {
    for (let jj = 0; jj < c4; jj++) memory.copy(qa(Q, ldq, 0, k + jj), q2 + ((iq4 + <usize>jj * <usize>n) << 3), N8);
    memory.copy(d + (<usize>k << 3), z + (<usize>k << 3), <usize>(n - k) << 3);
  }
  st4(coltyp, 0, c1);
  st4(coltyp, 1, c2);
  st4(coltyp, 2, c3);
  st4(coltyp, 3, c4);
  return k;
}

/**
 * dlaed3: the K roots of the secular equation into d[0:K], ẑ by Löwner's formula, the
 * eigenvectors of D + ρẑẑᵀ, and Q[:, 0:K] = (grouped columns of q2)·U by two gemm calls.
 */
function laed3(
  k: i32,
  n: i32,
  n1: i32,
  d: usize,
  Q: usize,
  ldq: i32,
  rho: f64,
  dlambda: usize,
  q2: usize,
  indx: usize,
  ctot: usize,
  w: usize,
  s: usize,
  PA: usize,
  PB: usize,
  T16: usize,
): i32 {
  for (let j = 0; j < k; j++) {
    if (laed4(k, j, dlambda, w, qa(Q, ldq, 0, j), rho, d + (<usize>j << 3)) != 0) return -1;
  }
  if (k == 2) {
    for (let j = 0; j < 2; j++) {
      const w0 = load<f64>(qa(Q, ldq, 0, j));
      const w1 = load<f64>(qa(Q, ldq, 1, j));
      store<f64>(qa(Q, ldq, 0, j), ld4(indx, 0) == 0 ? w0 : w1);
      store<f64>(qa(Q, ldq, 1, j), ld4(indx, 1) == 0 ? w0 : w1);
    }
  } else if (k > 2) {
    // ẑ_i² = −Π_j δ_ij / Π_{j≠i} (d_i − d_j), δ_ij = d_i − λ_j = Q(i, j)
    memory.copy(s, w, <usize>k << 3);
    for (let i = 0; i < k; i++) st8(w, i, load<f64>(qa(Q, ldq, i, i)));
    // four roots at a time: one division per four factors. On the scaled block every pole gap
    // and every δ_ij but the one of the root next to d_i on the group's side exceed 2·tol > 2^-60;
    // that one exceeds z_i²·tol/2 >= tol³/8 > 2^-180; all are below 2^4 — so a product of four
    // lies in [2^-360, 2^16], far from overflow and underflow.
    let j = 0;
    for (; j + 4 <= k; j += 4) {
      const col = qa(Q, ldq, 0, j);
      lownerFactor4(0, j, w, col, <usize>ldq << 3, dlambda, j);
      lownerFactor4(j + 4, k, w, col, <usize>ldq << 3, dlambda, j);
      for (let jj = j; jj < j + 4; jj++) {
        const cj = qa(Q, ldq, 0, jj);
        const dj = ld8(dlambda, jj);
        for (let i = j; i < j + 4; i++) {
          if (i != jj) st8(w, i, ld8(w, i) * (ld8(cj, i) / (ld8(dlambda, i) - dj)));
        }
      }
    }
    for (; j < k; j++) {
      const col = qa(Q, ldq, 0, j);
      const dj = ld8(dlambda, j);
      lownerFactor(0, j, w, col, dlambda, dj);
      lownerFactor(j + 1, k, w, col, dlambda, dj);
    }
    for (let i = 0; i < k; i++) {
      const r = sqrt(-ld8(w, i));
      st8(w, i, ld8(s, i) < 0 ? -r : r);
    }
    // U (k×k, row j = eigenvector j, rows grouped by column type through indx) straight into s
    for (let i = 0; i < k; i++) st8(dlambda, i, ld8(w, ld4(indx, i)));
    for (let j = 0; j < k; j++) unitQuotients(k, dlambda, qa(Q, ldq, 0, j), indx, s + ((<usize>j * <usize>k) << 3));
  }
  if (k <= 2) for (let j = 0; j < k; j++) memory.copy(s + ((<usize>j * <usize>k) << 3), qa(Q, ldq, 0, j), <usize>k << 3);
  const n2 = n - n1;
  const n12 = ld4(ctot, 0) + ld4(ctot, 1);
  const n23 = ld4(ctot, 1) + ld4(ctot, 2);
  const c0 = ld4(ctot, 0);
  // Q[n1:, 0:k] = Q2b (n2 × n23) · U[c0 : c0 + n23, :] (the rows of s from column c0)
  const iq2 = q2 + ((<usize>n1 * <usize>n12) << 3);
  if (n23 != 0) {
    gemmStrided(false, false, k, n2, n23, 1, s + (<usize>c0 << 3), k, iq2, n2, 0, qa(Q, ldq, n1, 0), ldq, PA, PB, T16, KC, MC, NC);
  } else {
    for (let j = 0; j < k; j++) memory.fill(qa(Q, ldq, n1, j), 0, <usize>n2 << 3);
  }
  // Q[0:n1, 0:k] = Q2a (n1 × n12) · U[0 : n12, :]
  if (n12 != 0) {
    gemmStrided(false, false, k, n1, n12, 1, s, k, q2, n1, 0, Q, ldq, PA, PB, T16, KC, MC, NC);
  } else {
    for (let j = 0; j < k; j++) memory.fill(qa(Q, ldq, 0, j), 0, <usize>n1 << 3);
  }
  return 0;
}

/**
 * w_i ← w_i·Π_{c<4} δ_{i,j+c} / Π_{c<4} (dλ_i − dλ_{j+c}) for i in [lo, hi) (outside j..j+3): four
 * Löwner factors with one division, two lanes at a time. col: column j of δ, cs: column stride
 * in bytes.
 */
function lownerFactor4(lo: i32, hi: i32, w: usize, col: usize, cs: usize, dlambda: usize, j: i32): void {
  const d0 = ld8(dlambda, j);
  const d1 = ld8(dlambda, j + 1);
  const d2 = ld8(dlambda, j + 2);
  const d3 = ld8(dlambda, j + 3);
  const v0 = f64x2.splat(d0);
  const v1 = f64x2.splat(d1);
  const v2 = f64x2.splat(d2);
  const v3 = f64x2.splat(d3);
  const c1 = col + cs;
  const c2 = c1 + cs;
  const c3 = c2 + cs;
  let i = lo;
  for (; i + 2 <= hi; i += 2) {
    const o = <usize>i << 3;
    const dl = v128.load(dlambda + o);
    const num = f64x2.mul(
      f64x2.mul(v128.load(col + o), v128.load(c1 + o)),
      f64x2.mul(v128.load(c2 + o), v128.load(c3 + o)),
    );
    const den = f64x2.mul(
      f64x2.mul(f64x2.sub(dl, v0), f64x2.sub(dl, v1)),
      f64x2.mul(f64x2.sub(dl, v2), f64x2.sub(dl, v3)),
    );
    v128.store(w + o, f64x2.mul(v128.load(w + o), f64x2.div(num, den)));
  }
  for (; i < hi; i++) {
    const dl = ld8(dlambda, i);
    const o = <usize>i << 3;
    const num = load<f64>(col + o) * load<f64>(c1 + o) * (load<f64>(c2 + o) * load<f64>(c3 + o));
    const den = (dl - d0) * (dl - d1) * ((dl - d2) * (dl - d3));
    st8(w, i, ld8(w, i) * (num / den));
  }
}

/** w_i ← w_i·(δ_i / (dλ_i − dj)) for i in [lo, hi): one Löwner factor per entry, two lanes at a time. */
function lownerFactor(lo: i32, hi: i32, w: usize, col: usize, dlambda: usize, dj: f64): void {
  const vdj = f64x2.splat(dj);
  let i = lo;
  for (; i + 2 <= hi; i += 2) {
    const o = <usize>i << 3;
    const q = f64x2.div(v128.load(col + o), f64x2.sub(v128.load(dlambda + o), vdj));
    v128.store(w + o, f64x2.mul(v128.load(w + o), q));
  }
  for (; i < hi; i++) st8(w, i, ld8(w, i) * (ld8(col, i) / (ld8(dlambda, i) - dj)));
}

/**
 * out_i = (wp_i / δ_{p(i)}) / ||·|| for i < k, p = indx (wp already permuted): one eigenvector of
 * D + ρẑẑᵀ (dlaed3), its entries in the order of the grouped columns. Two lanes.
 */
function unitQuotients(k: i32, wp: usize, col: usize, indx: usize, out: usize): void {
  let acc = f64x2.splat(0);
  let i = 0;
  for (; i + 2 <= k; i += 2) {
    const o = <usize>i << 3;
    const dv = f64x2.replace_lane(f64x2.splat(ld8(col, ld4(indx, i))), 1, ld8(col, ld4(indx, i + 1)));
    const v = f64x2.div(v128.load(wp + o), dv);
    v128.store(out + o, v);
    acc = f64x2.add(acc, f64x2.mul(v, v));
  }
  let ss = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
  for (; i < k; i++) {
    const v = ld8(wp, i) / ld8(col, ld4(indx, i));
    st8(out, i, v);
    ss += v * v;
  }
  const inv = 1 / sqrt(ss);
  const vi = f64x2.splat(inv);
  i = 0;
  for (; i + 2 <= k; i += 2) {
    const p = out + (<usize>i << 3);
    v128.store(p, f64x2.mul(v128.load(p), vi));
  }
  for (; i < k; i++) st8(out, i, ld8(out, i) * inv);
}

/**
 * dlaed5: root i (0 or 1) of the 2×2 secular equation; delta gets the normalised eigenvector
 * (dlaed5's DELTA), the root into lam.
 */
function laed5(i: i32, d: usize, z: usize, delta: usize, rho: f64, lam: usize): void {
  const d1 = ld8(d, 0);
  const d2 = ld8(d, 1);
  const z1 = ld8(z, 0);
  const z2 = ld8(z, 1);
  const del = d2 - d1;
  let tau: f64;
  if (i == 0) {
    const w = 1 + (2 * rho * (z2 * z2 - z1 * z1)) / del;
    if (w > 0) {
      const b = del + rho * (z1 * z1 + z2 * z2);
      const c = rho * z1 * z1 * del;
      tau = (2 * c) / (b + sqrt(abs(b * b - 4 * c)));
      st8(lam, 0, d1 + tau);
      st8(delta, 0, -z1 / tau);
      st8(delta, 1, z2 / (del - tau));
    } else {
      const b = -del + rho * (z1 * z1 + z2 * z2);
      const c = rho * z2 * z2 * del;
      if (b > 0) tau = (-2 * c) / (b + sqrt(b * b + 4 * c));
      else tau = (b - sqrt(b * b + 4 * c)) / 2;
      st8(lam, 0, d2 + tau);
      st8(delta, 0, -z1 / (del + tau));
      st8(delta, 1, -z2 / tau);
    }
  } else {
    const b = -del + rho * (z1 * z1 + z2 * z2);
    const c = rho * z2 * z2 * del;
    if (b > 0) tau = (b + sqrt(b * b + 4 * c)) / 2;
    else tau = (2 * c) / (-b + sqrt(b * b + 4 * c));
    st8(lam, 0, d2 + tau);
    st8(delta, 0, -z1 / (del + tau));
    st8(delta, 1, -z2 / tau);
  }
  const t = sqrt(ld8(delta, 0) * ld8(delta, 0) + ld8(delta, 1) * ld8(delta, 1));
  st8(delta, 0, ld8(delta, 0) / t);
  st8(delta, 1, ld8(delta, 1) / t);
}

/** dlaed6's result τ and failure flag. */
let tau6: f64 = 0;

/**
 * dlaed6: the root τ of f(x) = ρ + Σ_{i<3} z_i/(d_i − x) near the origin (finit = f(0)) in the
 * interval (d1, d2) if orgati is false, (d2, d3) otherwise, by a cubically convergent rational
 * iteration; τ into tau6. Returns 0, or 1 if it did not converge.
 */
function laed6(kniter: i32, orgati: bool, rho: f64, d: usize, z: usize, finit: f64): i32 {
  const D1 = ld8(d, 0);
  const D2 = ld8(d, 1);
  const D3 = ld8(d, 2);
  const Z1 = ld8(z, 0);
  const Z2 = ld8(z, 1);
  const Z3 = ld8(z, 2);
  let lbd: f64 = orgati ? D2 : D1;
  let ubd: f64 = orgati ? D3 : D2;
  if (finit < 0) lbd = 0;
  else ubd = 0;
  let tau: f64 = 0;
  let a: f64, b: f64, c: f64, temp: f64;
  if (kniter == 2) {
    if (orgati) {
      temp = (D3 - D2) / 2;
      c = rho + Z1 / (D1 - D2 - temp);
      a = c * (D2 + D3) + Z2 + Z3;
      b = c * D2 * D3 + Z2 * D3 + Z3 * D2;
    } else {
      temp = (D1 - D2) / 2;
      c = rho + Z3 / (D3 - D2 - temp);
      a = c * (D1 + D2) + Z1 + Z2;
      b = c * D1 * D2 + Z1 * D2 + Z2 * D1;
    }
    temp = max(abs(a), max(abs(b), abs(c)));
    a /= temp;
    b /= temp;
    c /= temp;
    if (c == 0) tau = b / a;
    else if (a <= 0) tau = (a - sqrt(abs(a * a - 4 * b * c))) / (2 * c);
    else tau = (2 * b) / (a + sqrt(abs(a * a - 4 * b * c)));
    if (tau < lbd || tau > ubd) tau = (lbd + ubd) / 2;
    if (D1 == tau || D2 == tau || D3 == tau) tau = 0;
    else {
      temp = finit + (tau * Z1) / (D1 * (D1 - tau)) + (tau * Z2) / (D2 * (D2 - tau)) + (tau * Z3) / (D3 * (D3 - tau));
      if (temp <= 0) lbd = tau;
      else ubd = tau;
      if (abs(finit) <= abs(temp)) tau = 0;
    }
  }
  temp = orgati ? min(abs(D2 - tau), abs(D3 - tau)) : min(abs(D1 - tau), abs(D2 - tau));
  let scale = false;
  let sclfac: f64 = 1;
  let sclinv: f64 = 1;
  if (temp <= SMALL1) {
    scale = true;
    if (temp <= SMALL1 * SMALL1) {
      sclfac = SMINV1 * SMINV1;
      sclinv = SMALL1 * SMALL1;
    } else {
      sclfac = SMINV1;
      sclinv = SMALL1;
    }
  }
  const ds0 = D1 * sclfac;
  const ds1 = D2 * sclfac;
  const ds2 = D3 * sclfac;
  const zs0 = Z1 * sclfac;
  const zs1 = Z2 * sclfac;
  const zs2 = Z3 * sclfac;
  if (scale) {
    tau *= sclfac;
    lbd *= sclfac;
    ubd *= sclfac;
  }
  let fc: f64 = 0;
  let df: f64 = 0;
  let ddf: f64 = 0;
  {
    let t = 1 / (ds0 - tau);
    let t1 = zs0 * t;
    let t2 = t1 * t;
    fc += t1 / ds0;
    df += t2;
    ddf += t2 * t;
    t = 1 / (ds1 - tau);
    t1 = zs1 * t;
    t2 = t1 * t;
    fc += t1 / ds1;
    df += t2;
    ddf += t2 * t;
    t = 1 / (ds2 - tau);
    t1 = zs2 * t;
    t2 = t1 * t;
    fc += t1 / ds2;
    df += t2;
    ddf += t2 * t;
  }
  let f = finit + tau * fc;
  let info = 0;
  if (abs(f) > 0) {
    if (f <= 0) lbd = tau;
    else ubd = tau;
    info = 1;
    for (let niter = 2; niter <= MAXIT6; niter++) {
      const t1 = orgati ? ds1 - tau : ds0 - tau;
      const t2 = orgati ? ds2 - tau : ds1 - tau;
      a = (t1 + t2) * f - t1 * t2 * df;
      b = t1 * t2 * f;
      c = f - (t1 + t2) * df + t1 * t2 * ddf;
      temp = max(abs(a), max(abs(b), abs(c)));
      a /= temp;
      b /= temp;
      c /= temp;
      let eta: f64;
      if (c == 0) eta = b / a;
      else if (a <= 0) eta = (a - sqrt(abs(a * a - 4 * b * c))) / (2 * c);
      else eta = (2 * b) / (a + sqrt(abs(a * a - 4 * b * c)));
      if (f * eta >= 0) eta = -f / df;
      tau += eta;
      if (tau < lbd || tau > ubd) tau = (lbd + ubd) / 2;
      fc = 0;
      let erretm: f64 = 0;
      df = 0;
      ddf = 0;
      if (ds0 == tau || ds1 == tau || ds2 == tau) {
        info = 0;
        break;
      }
      let t = 1 / (ds0 - tau);
      let q1 = zs0 * t;
      let q2 = q1 * t;
      let q4 = q1 / ds0;
      fc += q4;
      erretm += abs(q4);
      df += q2;
      ddf += q2 * t;
      t = 1 / (ds1 - tau);
      q1 = zs1 * t;
      q2 = q1 * t;
      q4 = q1 / ds1;
      fc += q4;
      erretm += abs(q4);
      df += q2;
      ddf += q2 * t;
      t = 1 / (ds2 - tau);
      q1 = zs2 * t;
      q2 = q1 * t;
      q4 = q1 / ds2;
      fc += q4;
      erretm += abs(q4);
      df += q2;
      ddf += q2 * t;
      f = finit + tau * fc;
      erretm = 8 * (abs(finit) + abs(tau) * erretm) + abs(tau) * df;
      if (abs(f) <= 4 * EPS * erretm || ubd - lbd <= 4 * EPS * abs(tau)) {
        info = 0;
        break;
      }
      if (f <= 0) lbd = tau;
      else ubd = tau;
    }
  }
  if (scale) tau *= sclinv;
  tau6 = tau;
  return info;
}

/**
 * dlaed4: root i (0-based) of 1/ρ + Σ_j z_j²/(d_j − λ) = 0 (d ascending, distinct, z nonzero,
 * ρ > 0), λ into lam, delta[j] = d_j − λ computed in coordinates shifted to the nearer pole.
 * Returns 0, or 1 if the iteration did not converge within capSecular (./caps.ts) (delta, lam then the last
 * iterate).
 */
function laed4(n: i32, i: i32, d: usize, z: usize, delta: usize, rho: f64, lam: usize): i32 {
  if (n == 1) {
    st8(lam, 0, ld8(d, 0) + rho * ld8(z, 0) * ld8(z, 0));
    st8(delta, 0, 1);
    return 0;
  }
  if (n == 2) {
    laed5(i, d, z, delta, rho, lam);
    return 0;
  }
  const rhoinv = 1 / rho;
  let a: f64, b: f64, c: f64, del: f64, w: f64, tau: f64, eta: f64, temp: f64, temp1: f64;
  let psi: f64, dpsi: f64, phi: f64, dphi: f64, erretm: f64, dltlb: f64, dltub: f64;
  if (i == n - 1) {
    // the last root, in (d_{n−1}, d_{n−1} + ρ||z||²)
    const ii = n - 2;
    const di = ld8(d, i);
    const midpt = rho / 2;
    polesShifted(n, delta, d, di, midpt);
    psi = weightedPoles(0, n - 2, z, delta);
    c = rhoinv + psi;
    const zn1 = ld8(z, n - 2);
    const zn = ld8(z, n - 1);
    w = c + (zn1 * zn1) / ld8(delta, ii) + (zn * zn) / ld8(delta, n - 1);
    if (w <= 0) {
      temp = (zn1 * zn1) / (ld8(d, n - 1) - ld8(d, n - 2) + rho) + (zn * zn) / rho;
      if (c <= temp) tau = rho;
      else {
        del = ld8(d, n - 1) - ld8(d, n - 2);
        a = -c * del + zn1 * zn1 + zn * zn;
        b = zn * zn * del;
        if (a < 0) tau = (2 * b) / (sqrt(a * a + 4 * b * c) - a);
        else tau = (a + sqrt(a * a + 4 * b * c)) / (2 * c);
      }
      dltlb = midpt;
      dltub = rho;
    } else {
      del = ld8(d, n - 1) - ld8(d, n - 2);
      a = -c * del + zn1 * zn1 + zn * zn;
      b = zn * zn * del;
      if (a < 0) tau = (2 * b) / (sqrt(a * a + 4 * b * c) - a);
      else tau = (a + sqrt(a * a + 4 * b * c)) / (2 * c);
      dltlb = 0;
      dltub = midpt;
    }
    polesShifted(n, delta, d, di, tau);
    poleSums(0, ii + 1, z, delta, true);
    psi = sumU;
    dpsi = sumT2;
    erretm = abs(sumPartials);
    temp = zn / ld8(delta, n - 1);
    phi = zn * temp;
    dphi = temp * temp;
    erretm = 8 * (-phi - psi) + erretm - phi + rhoinv + abs(tau) * (dpsi + dphi);
    w = rhoinv + phi + psi;
    if (abs(w) <= EPS * erretm) {
      st8(lam, 0, di + tau);
      return 0;
    }
    if (w <= 0) dltlb = max(dltlb, tau);
    else dltub = min(dltub, tau);
    for (let niter = 2; niter <= capSecular; niter++) {
      const dn1 = ld8(delta, n - 2);
      const dn = ld8(delta, n - 1);
      c = w - dn1 * dpsi - dn * dphi;
      a = (dn1 + dn) * w - dn1 * dn * (dpsi + dphi);
      b = dn1 * dn * w;
      if (niter == 2) {
        if (c < 0) c = abs(c);
        if (c == 0) eta = -w / (dpsi + dphi);
        else if (a >= 0) eta = (a + sqrt(abs(a * a - 4 * b * c))) / (2 * c);
        else eta = (2 * b) / (a - sqrt(abs(a * a - 4 * b * c)));
      } else {
        if (a >= 0) eta = (a + sqrt(abs(a * a - 4 * b * c))) / (2 * c);
        else eta = (2 * b) / (a - sqrt(abs(a * a - 4 * b * c)));
      }
      if (w * eta > 0) eta = -w / (dpsi + dphi);
      temp = tau + eta;
      if (temp > dltub || temp < dltlb) {
        if (niter == 2) {
          const eta1 = -w / (dpsi + dphi);
          temp = tau + eta1;
          const eta2 = w < 0 ? (dltub - tau) / 2 : (dltlb - tau) / 2;
          if (dltlb <= temp && temp <= dltub) eta = (eta1 < 0 ? -1.0 : 1.0) * sqrt(abs(eta1)) * sqrt(abs(eta2));
          else eta = eta2;
        } else {
          eta = w < 0 ? (dltub - tau) / 2 : (dltlb - tau) / 2;
        }
      }
      shiftDelta(n, delta, eta);
      tau += eta;
      poleSums(0, ii + 1, z, delta, true);
      psi = sumU;
      dpsi = sumT2;
      erretm = abs(sumPartials);
      temp = zn / ld8(delta, n - 1);
      phi = zn * temp;
      dphi = temp * temp;
      erretm = 8 * (-phi - psi) + erretm - phi + rhoinv + abs(tau) * (dpsi + dphi);
      w = rhoinv + phi + psi;
      if (niter == capSecular) break;
      if (abs(w) <= EPS * erretm) {
        st8(lam, 0, di + tau);
        return 0;
      }
      if (w <= 0) dltlb = max(dltlb, tau);
      else dltub = min(dltub, tau);
    }
    st8(lam, 0, di + tau);
    return 1;
  }

  // a root in (d_i, d_{i+1})
  const ip1 = i + 1;
  const di = ld8(d, i);
  const dip1 = ld8(d, ip1);
  const zi = ld8(z, i);
  const zip1 = ld8(z, ip1);
  del = dip1 - di;
  const midpt = del / 2;
  polesShifted(n, delta, d, di, midpt);
  psi = weightedPoles(0, i, z, delta);
  phi = weightedPoles(i + 2, n, z, delta);
  c = rhoinv + psi + phi;
  w = c + (zi * zi) / ld8(delta, i) + (zip1 * zip1) / ld8(delta, ip1);
  let orgati: bool;
  if (w > 0) {
    // the root is nearer d_i
    orgati = true;
    a = c * del + zi * zi + zip1 * zip1;
    b = zi * zi * del;
    if (a > 0) tau = (2 * b) / (a + sqrt(abs(a * a - 4 * b * c)));
    else tau = (a - sqrt(abs(a * a - 4 * b * c))) / (2 * c);
    dltlb = 0;
    dltub = midpt;
  } else {
    orgati = false;
    a = c * del - zi * zi - zip1 * zip1;
    b = zip1 * zip1 * del;
    if (a < 0) tau = (2 * b) / (a - sqrt(abs(a * a + 4 * b * c)));
    else tau = -(a + sqrt(abs(a * a + 4 * b * c))) / (2 * c);
    dltlb = -midpt;
    dltub = 0;
  }
  const origin = orgati ? di : dip1;
  polesShifted(n, delta, d, origin, tau);
  const ii = orgati ? i : i + 1;
  const iim1 = ii - 1;
  const iip1 = ii + 1;
  poleSums(0, iim1 + 1, z, delta, true);
  psi = sumU;
  dpsi = sumT2;
  erretm = abs(sumPartials);
  poleSums(iip1, n, z, delta, false);
  phi = sumU;
  dphi = sumT2;
  erretm += sumPartials;
  w = rhoinv + phi + psi;
  let swtch3 = orgati ? w < 0 : w > 0;
  if (ii == 0 || ii == n - 1) swtch3 = false;
  const zii = ld8(z, ii);
  temp = zii / ld8(delta, ii);
  let dw = dpsi + dphi + temp * temp;
  temp = zii * temp;
  w += temp;
  erretm = 8 * (phi - psi) + erretm + 2 * rhoinv + 3 * abs(temp) + abs(tau) * dw;
  if (abs(w) <= EPS * erretm) {
    st8(lam, 0, origin + tau);
    return 0;
  }
  if (w <= 0) dltlb = max(dltlb, tau);
  else dltub = min(dltub, tau);
  const zz = changetype<usize>(ZZ);
  // first step (niter = 2)
  {
    const dI = ld8(delta, i);
    const dIp1 = ld8(delta, ip1);
    if (!swtch3) {
      if (orgati) c = w - dIp1 * dw - (di - dip1) * (zi / dI) * (zi / dI);
      else c = w - dI * dw - (dip1 - di) * (zip1 / dIp1) * (zip1 / dIp1);
      a = (dI + dIp1) * w - dI * dIp1 * dw;
      b = dI * dIp1 * w;
      if (c == 0) {
        if (a == 0) {
          if (orgati) a = zi * zi + dIp1 * dIp1 * (dpsi + dphi);
          else a = zip1 * zip1 + dI * dI * (dpsi + dphi);
        }
        eta = b / a;
      } else if (a <= 0) eta = (a - sqrt(abs(a * a - 4 * b * c))) / (2 * c);
      else eta = (2 * b) / (a + sqrt(abs(a * a - 4 * b * c)));
    } else {
      temp = rhoinv + psi + phi;
      const dm = ld8(delta, iim1);
      const dp = ld8(delta, iip1);
      if (orgati) {
        temp1 = ld8(z, iim1) / dm;
        temp1 *= temp1;
        c = temp - dp * (dpsi + dphi) - (ld8(d, iim1) - ld8(d, iip1)) * temp1;
        st8(zz, 0, ld8(z, iim1) * ld8(z, iim1));
        st8(zz, 2, dp * dp * (dpsi - temp1 + dphi));
      } else {
        temp1 = ld8(z, iip1) / dp;
        temp1 *= temp1;
        c = temp - dm * (dpsi + dphi) - (ld8(d, iip1) - ld8(d, iim1)) * temp1;
        st8(zz, 0, dm * dm * (dpsi + (dphi - temp1)));
        st8(zz, 2, ld8(z, iip1) * ld8(z, iip1));
      }
      st8(zz, 1, zii * zii);
      if (laed6(2, orgati, c, delta + (<usize>iim1 << 3), zz, w) != 0) {
        st8(lam, 0, origin + tau);
        return 1;
      }
      eta = tau6;
    }
    if (w * eta >= 0) eta = -w / dw;
    temp = tau + eta;
    if (temp > dltub || temp < dltlb) eta = w < 0 ? (dltub - tau) / 2 : (dltlb - tau) / 2;
  }
  let prew = w;
  shiftDelta(n, delta, eta);
  poleSums(0, iim1 + 1, z, delta, true);
  psi = sumU;
  dpsi = sumT2;
  erretm = abs(sumPartials);
  poleSums(iip1, n, z, delta, false);
  phi = sumU;
  dphi = sumT2;
  erretm += sumPartials;
  temp = zii / ld8(delta, ii);
  dw = dpsi + dphi + temp * temp;
  temp = zii * temp;
  w = rhoinv + phi + psi + temp;
  erretm = 8 * (phi - psi) + erretm + 2 * rhoinv + 3 * abs(temp) + abs(tau + eta) * dw;
  let swtch = orgati ? -w > abs(prew) / 10 : w > abs(prew) / 10;
  tau += eta;
  for (let niter = 3; niter <= capSecular; niter++) {
    if (abs(w) <= EPS * erretm) {
      st8(lam, 0, origin + tau);
      return 0;
    }
    if (w <= 0) dltlb = max(dltlb, tau);
    else dltub = min(dltub, tau);
    const dI = ld8(delta, i);
    const dIp1 = ld8(delta, ip1);
    if (!swtch3) {
      if (!swtch) {
        if (orgati) c = w - dIp1 * dw - (di - dip1) * (zi / dI) * (zi / dI);
        else c = w - dI * dw - (dip1 - di) * (zip1 / dIp1) * (zip1 / dIp1);
      } else {
        temp = zii / ld8(delta, ii);
        if (orgati) dpsi += temp * temp;
        else dphi += temp * temp;
        c = w - dI * dpsi - dIp1 * dphi;
      }
      a = (dI + dIp1) * w - dI * dIp1 * dw;
      b = dI * dIp1 * w;
      if (c == 0) {
        if (a == 0) {
          if (!swtch) {
            if (orgati) a = zi * zi + dIp1 * dIp1 * (dpsi + dphi);
            else a = zip1 * zip1 + dI * dI * (dpsi + dphi);
          } else a = dI * dI * dpsi + dIp1 * dIp1 * dphi;
        }
        eta = b / a;
      } else if (a <= 0) eta = (a - sqrt(abs(a * a - 4 * b * c))) / (2 * c);
      else eta = (2 * b) / (a + sqrt(abs(a * a - 4 * b * c)));
    } else {
      temp = rhoinv + psi + phi;
      const dm = ld8(delta, iim1);
      const dp = ld8(delta, iip1);
      if (swtch) {
        c = temp - dm * dpsi - dp * dphi;
        st8(zz, 0, dm * dm * dpsi);
        st8(zz, 2, dp * dp * dphi);
      } else if (orgati) {
        temp1 = ld8(z, iim1) / dm;
        temp1 *= temp1;
        c = temp - dp * (dpsi + dphi) - (ld8(d, iim1) - ld8(d, iip1)) * temp1;
        st8(zz, 0, ld8(z, iim1) * ld8(z, iim1));
        st8(zz, 2, dp * dp * (dpsi - temp1 + dphi));
      } else {
        temp1 = ld8(z, iip1) / dp;
        temp1 *= temp1;
        c = temp - dm * (dpsi + dphi) - (ld8(d, iip1) - ld8(d, iim1)) * temp1;
        st8(zz, 0, dm * dm * (dpsi + (dphi - temp1)));
        st8(zz, 2, ld8(z, iip1) * ld8(z, iip1));
      }
      st8(zz, 1, zii * zii);
      if (laed6(niter, orgati, c, delta + (<usize>iim1 << 3), zz, w) != 0) {
        st8(lam, 0, origin + tau);
        return 1;
      }
      eta = tau6;
    }
    if (w * eta >= 0) eta = -w / dw;
    temp = tau + eta;
    if (temp > dltub || temp < dltlb) {
      const eta1 = -w / dw;
      temp = tau + eta1;
      const eta2 = w < 0 ? (dltub - tau) / 2 : (dltlb - tau) / 2;
      if (dltlb <= temp && temp <= dltub) eta = (eta1 < 0 ? -1.0 : 1.0) * sqrt(abs(eta1)) * sqrt(abs(eta2));
      else eta = eta2;
    }
    shiftDelta(n, delta, eta);
    tau += eta;
    prew = w;
    poleSums(0, iim1 + 1, z, delta, true);
    psi = sumU;
    dpsi = sumT2;
    erretm = abs(sumPartials);
    poleSums(iip1, n, z, delta, false);
    phi = sumU;
    dphi = sumT2;
    erretm += sumPartials;
    temp = zii / ld8(delta, ii);
    dw = dpsi + dphi + temp * temp;
    temp = zii * temp;
    w = rhoinv + phi + psi + temp;
    erretm = 8 * (phi - psi) + erretm + 2 * rhoinv + 3 * abs(temp) + abs(tau) * dw;
    if (w * prew > 0 && abs(w) > abs(prew) / 10) swtch = !swtch;
  }
  st8(lam, 0, origin + tau);
  return 1;
}

/** Sums of {@link poleSums}: Σ z_j²/δ_j, Σ (z_j/δ_j)², and the sum of the running sums Σ z_j²/δ_j. */
let sumU: f64 = 0;
let sumT2: f64 = 0;
let sumPartials: f64 = 0;

/**
 * dlaed4's sums over j in [lo, hi) of u_j = z_j·(z_j/δ_j) and (z_j/δ_j)² (two lanes), and the sum
 * of the running sums of u (dlaed4's erretm term) as Σ c_j·u_j with c_j the number of running sums
 * holding u_j: hi − j when the running sum starts at lo (below the root, ψ), j − lo + 1 when it
 * starts at hi − 1 (above, φ). All u_j share one sign (δ_j < 0 below the root, > 0 above), so the
 * order of summation changes each sum by a relative O(eps) only.
 */
function poleSums(lo: i32, hi: i32, z: usize, delta: usize, below: bool): void {
  let su = f64x2.splat(0);
  let st = f64x2.splat(0);
  let sp = f64x2.splat(0);
  let j = lo;
  // lane weights for j, j + 1, stepping by ∓2
  let cw = below ? f64x2(<f64>(hi - lo), <f64>(hi - lo - 1)) : f64x2(1, 2);
  const step = below ? f64x2.splat(-2) : f64x2.splat(2);
  for (; j + 2 <= hi; j += 2) {
    const o = <usize>j << 3;
    const zv = v128.load(z + o);
    const t = f64x2.div(zv, v128.load(delta + o));
    const u = f64x2.mul(zv, t);
    su = f64x2.add(su, u);
    st = f64x2.add(st, f64x2.mul(t, t));
    sp = f64x2.add(sp, f64x2.mul(cw, u));
    cw = f64x2.add(cw, step);
  }
  let a = f64x2.extract_lane(su, 0) + f64x2.extract_lane(su, 1);
  let b = f64x2.extract_lane(st, 0) + f64x2.extract_lane(st, 1);
  let c = f64x2.extract_lane(sp, 0) + f64x2.extract_lane(sp, 1);
  for (; j < hi; j++) {
    const zj = ld8(z, j);
    const t = zj / ld8(delta, j);
    const u = zj * t;
    a += u;
    b += t * t;
    c += <f64>(below ? hi - j : j - lo + 1) * u;
  }
  sumU = a;
  sumT2 = b;
  sumPartials = c;
}

/**
 * Σ z_j²/δ_j over j in [lo, hi) (two lanes; the terms share one sign on each side of the root, so
 * the order changes the sum by a relative O(eps) only).
 */
function weightedPoles(lo: i32, hi: i32, z: usize, delta: usize): f64 {
  let acc = f64x2.splat(0);
  let j = lo;
  for (; j + 2 <= hi; j += 2) {
    const o = <usize>j << 3;
    const zv = v128.load(z + o);
    acc = f64x2.add(acc, f64x2.div(f64x2.mul(zv, zv), v128.load(delta + o)));
  }
  let sum = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
  for (; j < hi; j++) sum += (ld8(z, j) * ld8(z, j)) / ld8(delta, j);
  return sum;
}

/** δ_j ← δ_j − eta for j < n (two lanes). */
function shiftDelta(n: i32, delta: usize, eta: f64): void {
  const ve = f64x2.splat(eta);
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const p = delta + (<usize>j << 3);
    v128.store(p, f64x2.sub(v128.load(p), ve));
  }
  for (; j < n; j++) st8(delta, j, ld8(delta, j) - eta);
}

/** δ_j = (d_j − origin) − tau for j < n (two lanes; the pole-shifted differences of dlaed4). */
function polesShifted(n: i32, delta: usize, d: usize, origin: f64, tau: f64): void {
  const vo = f64x2.splat(origin);
  const vt = f64x2.splat(tau);
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const o = <usize>j << 3;
    v128.store(delta + o, f64x2.sub(f64x2.sub(v128.load(d + o), vo), vt));
  }
  for (; j < n; j++) st8(delta, j, ld8(d, j) - origin - tau);
}

/** dlaed4's three weights for dlaed6 (static data: the kernels never allocate). */
const ZZ: StaticArray<f64> = [0, 0, 0];
