// y <- x (BLAS-1 dcopy), f64. Contiguous path uses memory.copy (overlap-safe).
export function dcopy(n: i32, x: usize, incx: i32, y: usize, incy: i32): void {
  if (n <= 0) return;
  if (incx == 1 && incy == 1) {
    memory.copy(y, x, <usize>n << 3);
    return;
  }
  for (let i = 0; i < n; i++) {
    store<f64>(y + <usize>(i * incy) * 8, load<f64>(x + <usize>(i * incx) * 8));
  }
}
