/**
 * Symmetric eigensolver (LAPACK dsyev's method): the reference backend's own eigensolver, an
 * independent reference of assembly/linalg/dsyev.ts (docs/linalg.md, "Twin policy"): the
 * textbook method of the kernel's unblocked path (panel width <= 1, method 0, what the wasm
 * backend runs below n = 96) in scalar code at every n, not its operations bit for bit. From
 * n = 96 the wasm kernel reduces in blocks and computes the eigenvectors of T by divide and
 * conquer (assembly/linalg/dstedc.ts) with a blocked back-transformation. Both are held by the
 * tests of test/linalg/syev.test.ts and dstedc.test.ts to the backward-error bounds (S = VΛVᵀ,
 * orthogonality) and to oracles (Sturm-count bisection, known spectra), not to each other's bits.
 * Used by {@link eigh}.
 *
 * 1. Householder tridiagonalisation T = QᵀSQ, working on rows (S row-major and symmetric, so row k
 *    right of the diagonal equals column k below it): for k = 0..n-3 the reflector H_k = I − τvvᵀ
 *    maps S[k][k+1:] to β·e1, and the trailing block is updated by the symmetric rank-2 update
 *    S22 −= v wᵀ + w vᵀ with w = τS22v − (τ²/2)(vᵀS22v) v. Only the upper triangle of S22 is read
 *    and written (half the memory traffic of the full square; the next reflector is row k+1 to
 *    the right of the diagonal, which it keeps current). Every inner loop runs along a row.
 * 2. Qᵀ = H_{n−3}···H_0, accumulated by right-multiplying the identity by H_{n−3}, …, H_0, each
 *    step touching only the trailing block (cost (4/3)n³).
 * 3. Implicit QL with Wilkinson-type shifts (EISPACK tql2 as in JAMA) on (d, e); each Givens
 *    rotation of eigenvector columns i, i+1 is applied to ROWS i, i+1 of Vᵀ (contiguous).
 * 4. Eigenvalues sorted ascending, rows of Vᵀ permuted along.
 *
 * Row j of the returned `vectorsT` is the eigenvector of `values[j]`.
 * Accuracy (backward stable): the computed pairs are exact for S + E with ||E||_2 = O(n·eps·||S||_2),
 * so |λ̂ − λ| <= O(n·eps)·||S||_2 and ||S v̂ − λ̂ v̂|| <= O(n·eps)·||S||_2; eigenvectors are
 * orthonormal to O(n·eps). Individual eigenvectors of clustered eigenvalues are not determined,
 * only the invariant subspace is (gap-dependent).
 * The caller scales S by an exact power of two so that max|s_ij| ~ 1 (no overflow in squares).
 */
import { iterationCaps } from './iterationCaps.js';

/**
 * Eigen-decomposition of the symmetric n×n matrix S (row-major, full; DESTROYED).
 * Writes eigenvalues ascending to `values` (n) and the eigenvectors as rows of `vectorsT` (n×n).
 * `work` must hold 2n values. Returns the number of QL iterations, or −1 if the QL phase did not
 * converge within iterationCaps.qlPerValue·n iterations (./iterationCaps.ts: LAPACK's 30·n). Unchecked.
 */
export function referenceSyev(
  S: Float64Array,
  n: number,
  values: Float64Array,
  vectorsT: Float64Array,
  work: Float64Array,
): number {
  if (n === 0) return 0;
  const d = values;
  const e = work; // e[0..n-1]: superdiagonal, e[n-1] = 0
  const tau = work.subarray(n); // tau[k] for k = 0..n-3
  const y = new Float64Array(n); // w = τ·S22·v − μ·v, reused for every k (no allocation in the loop)
  // 1. tridiagonalise
  for (let k = 0; k + 2 < n; k++) {
    const rk = k * n;
    d[k] = S[rk + k]!;
    const alpha = S[rk + k + 1]!;
    let sigma2 = 0;
    for (let j = k + 2; j < n; j++) sigma2 += S[rk + j]! * S[rk + j]!;
    if (sigma2 === 0) {
      tau[k] = 0;
      e[k] = alpha;
      continue;
    }
    const beta = -(alpha >= 0 ? 1 : -1) * Math.sqrt(alpha * alpha + sigma2);
    const t = (beta - alpha) / beta;
    const inv = 1 / (alpha - beta);
    S[rk + k + 1] = 1;
    for (let j = k + 2; j < n; j++) S[rk + j]! *= inv;
    tau[k] = t;
    e[k] = beta;
    // y = t · S22 v from the upper triangle of S22 only (row i from its diagonal on): row i adds
    // its dot with v to y_i and v_i times itself to y_{i+1..} — the operations of the wasm kernel.
    const p = n - k - 1;
    const vo = rk + k + 1; // v = S[k][k+1..n-1]
    y.fill(0, 0, p);
    for (let i = 0; i < p; i++) {
      const ri = (k + 1 + i) * n + k + 1 + i;
      const vi = S[vo + i]!;
      let sum = 0;
      for (let j = 1; j < p - i; j++) {
        const a = S[ri + j]!;
        sum += a * S[vo + i + j]!;
        y[i + j]! += a * vi;
      }
      y[i]! += S[ri]! * vi + sum;
    }
    for (let i = 0; i < p; i++) y[i]! *= t;
    let yv = 0;
    for (let i = 0; i < p; i++) yv += y[i]! * S[vo + i]!;
    const mu = 0.5 * t * yv;
    for (let i = 0; i < p; i++) y[i]! -= mu * S[vo + i]!;
    // S22 −= v wᵀ + w vᵀ on the upper triangle (what the next steps read)
    for (let i = 0; i < p; i++) {
      const ri = (k + 1 + i) * n + k + 1;
      const vi = S[vo + i]!;
      const wi = y[i]!;
      for (let j = i; j < p; j++) S[ri + j]! -= vi * y[j]! + wi * S[vo + j]!;
    }
  }
  if (n >= 2) {
    d[n - 2] = S[(n - 2) * n + n - 2]!;
    e[n - 2] = S[(n - 2) * n + n - 1]!;
  }
  d[n - 1] = S[(n - 1) * n + n - 1]!;
  e[n - 1] = 0;
  // 2. Vᵀ = Qᵀ = I·H_{n-3}···H_0
  vectorsT.fill(0);
  for (let i = 0; i < n; i++) vectorsT[i * n + i] = 1;
  for (let k = n - 3; k >= 0; k--) {
    const t = tau[k]!;
    if (t === 0) continue;
    const vo = k * n + k + 1; // v = S[k][k+1..n-1], v[0] = 1
    for (let i = k + 1; i < n; i++) {
      const ri = i * n + k + 1;
      let s = 0;
      for (let j = 0; j < n - k - 1; j++) s += vectorsT[ri + j]! * S[vo + j]!;
      s *= t;
      for (let j = 0; j < n - k - 1; j++) vectorsT[ri + j]! -= s * S[vo + j]!;
    }
  }
  // 3. implicit QL (tql2)
  const iters = tql2(n, d, e, vectorsT);
  if (iters < 0) return -1;
  // 4. sort ascending (selection sort: n swaps of rows at most)
  for (let i = 0; i < n - 1; i++) {
    let kmin = i;
    for (let j = i + 1; j < n; j++) if (d[j]! < d[kmin]!) kmin = j;
    if (kmin !== i) {
      const tmp = d[i]!;
      d[i] = d[kmin]!;
      d[kmin] = tmp;
      for (let c = 0; c < n; c++) {
        const a = vectorsT[i * n + c]!;
        vectorsT[i * n + c] = vectorsT[kmin * n + c]!;
        vectorsT[kmin * n + c] = a;
      }
    }
  }
  return iters;
}

/**
 * Implicit QL on the tridiagonal (d, e) (e[i] couples i and i+1, e[n−1] unused) with rotations
 * applied to rows of Vᵀ (none without VT: eigenvalues only, into d, unsorted); −1 on no convergence.
 */
export function tql2(n: number, d: Float64Array, e: Float64Array, VT?: Float64Array): number {
  let f = 0;
  let tst1 = 0;
  let total = 0;
  const cap = iterationCaps.qlPerValue * n;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n - 1) {
      if (Math.abs(e[m]!) <= EPS_QL * tst1) break;
      m++;
    }
    if (m > l) {
      do {
        if (++total > cap) return -1;
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i]! -= h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          if (!VT) continue;
          // columns i, i+1 of V = rows i, i+1 of Vᵀ
          const ri = i * n;
          const ri1 = ri + n;
          for (let k = 0; k < n; k++) {
            const hk = VT[ri1 + k]!;
            const vk = VT[ri + k]!;
            VT[ri1 + k] = s * vk + c * hk;
            VT[ri + k] = c * vk - s * hk;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > EPS_QL * tst1);
    }
    d[l]! += f;
    e[l] = 0;
  }
  return total;
}

/** 2^-52: the deflation threshold of tql2 (|e_m| <= eps·max(|d|+|e|) counts as zero). */
const EPS_QL = 2 ** -52;
