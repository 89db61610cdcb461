// General matrix product C = alpha·A·B + beta·C (BLAS dgemm, row-major, no transposes; the
// TypeScript layer transposes operands first). i-k-j loop order: the inner loop is an f64x2 axpy
// along a row of B into a row of C, both contiguous. Reference: src/linalg/gemm.ts.

/** C (M×N) = alpha·A (M×K)·B (K×N) + beta·C. With beta == 0, C is not read. */
export function dgemm(M: i32, N: i32, K: i32, alpha: f64, A: usize, B: usize, beta: f64, C: usize): void {
  for (let i = 0; i < M; i++) {
    const ci = C + (<usize>(i * N) << 3);
    // C_i ← beta·C_i
    for (let j = 0; j < N; j++) {
      const p = ci + (<usize>j << 3);
      store<f64>(p, beta == 0 ? 0 : beta * load<f64>(p));
    }
    const ai = A + (<usize>(i * K) << 3);
    for (let k = 0; k < K; k++) {
      const a = alpha * load<f64>(ai + (<usize>k << 3));
      if (a == 0) continue;
      const bk = B + (<usize>(k * N) << 3);
      const va = f64x2.splat(a);
      let j = 0;
      for (; j + 4 <= N; j += 4) {
        const o = <usize>j << 3;
        v128.store(ci + o, f64x2.add(v128.load(ci + o), f64x2.mul(va, v128.load(bk + o))));
        v128.store(ci + o, f64x2.add(v128.load(ci + o, 16), f64x2.mul(va, v128.load(bk + o, 16))), 16);
      }
      for (; j < N; j++) {
        const o = <usize>j << 3;
        store<f64>(ci + o, load<f64>(ci + o) + a * load<f64>(bk + o));
      }
    }
  }
}
