// y <- a·x + y (BLAS-1 daxpy), f64. Contiguous path in f64x2; strided path scalar.
export function daxpy(n: i32, a: f64, x: usize, incx: i32, y: usize, incy: i32): void {
  if (n <= 0 || a == 0) return;
  if (incx == 1 && incy == 1) {
    const va = f64x2.splat(a);
    let i = 0;
    for (; i + 2 <= n; i += 2) {
      const o = <usize>i << 3;
      v128.store(y + o, f64x2.add(v128.load(y + o), f64x2.mul(va, v128.load(x + o))));
    }
    for (; i < n; i++) {
      const o = <usize>i << 3;
      store<f64>(y + o, load<f64>(y + o) + a * load<f64>(x + o));
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const py = y + <usize>(i * incy) * 8;
    store<f64>(py, load<f64>(py) + a * load<f64>(x + <usize>(i * incx) * 8));
  }
}
