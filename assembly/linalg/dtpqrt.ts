// Streaming QR update: R ← R of [R; B] (LAPACK dtpqrt's step, unblocked, row-major).
// Reference and derivation: src/linalg/tpqrt.ts. Reflector j: column j of [R; B] is (R_jj, B[:, j])
// (R is upper triangular), so it touches row j of R and every row of B; both passes run along
// rows (f64x2 axpy). The reflector is formed on its column scaled by an exact power of two
// (norm, alpha − beta and its reciprocal in scaled units; dlarfg's rescaling).
import { pow2Scale, vaxpy } from './vec';

/** R (m×m) ← R of [R; B]; B (b×m) destroyed; w: workspace of m values. */
export function dtpqrt(R: usize, m: i32, B: usize, b: i32, w: usize): void {
  const ld = <usize>m << 3;
  for (let j = 0; j < m; j++) {
    const rjj = R + <usize>j * ld + (<usize>j << 3);
    const alpha = load<f64>(rjj);
    let amax = abs(alpha);
    const bj = B + (<usize>j << 3);
    for (let r = 0; r < b; r++) amax = max(amax, abs(load<f64>(bj + <usize>r * ld)));
    if (amax == 0) continue;
    const s = pow2Scale(amax);
    let sigma2: f64 = 0;
    for (let r = 0; r < b; r++) {
      const x = load<f64>(bj + <usize>r * ld) * s;
      sigma2 += x * x;
    }
    if (sigma2 == 0) continue;
    // scaled units throughout (a subnormal column would make 1/(alpha − beta) overflow)
    const as = alpha * s;
    const betaS = -(alpha >= 0 ? 1.0 : -1.0) * sqrt(as * as + sigma2);
    const tau = (betaS - as) / betaS;
    const invS = 1 / (as - betaS);
    for (let r = 0; r < b; r++) {
      const p = bj + <usize>r * ld;
      store<f64>(p, load<f64>(p) * s * invS);
    }
    store<f64>(rjj, betaS / s);
    const n = m - j - 1;
    if (n == 0) continue;
    const rrow = rjj + 8;
    // w = R[j, j+1:] + Σ_r v_r B[r, j+1:]
    memory.copy(w, rrow, <usize>n << 3);
    for (let r = 0; r < b; r++) {
      const v = load<f64>(bj + <usize>r * ld);
      if (v != 0) vaxpy(n, v, bj + <usize>r * ld + 8, w);
    }
    // R[j, j+1:] −= τ w ; B[r, j+1:] −= τ v_r w
    vaxpy(n, -tau, w, rrow);
    for (let r = 0; r < b; r++) {
      const v = load<f64>(bj + <usize>r * ld);
      if (v != 0) vaxpy(n, -tau * v, w, bj + <usize>r * ld + 8);
    }
  }
}
