// Memory helpers of the linalg kernels: the f64 and i32 at index i of a contiguous array, and the
// address of entry (i, j) of a row-major matrix. All inlined where they are used.

/** The f64 at index i of the array at p. */
// @ts-ignore: decorator
@inline export function ld8(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}

/** Stores x at index i of the f64 array at p. */
// @ts-ignore: decorator
@inline export function st8(p: usize, i: i32, x: f64): void {
  store<f64>(p + (<usize>i << 3), x);
}

/** The i32 at index i of the array at p. */
// @ts-ignore: decorator
@inline export function ld4(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

/** Stores x at index i of the i32 array at p. */
// @ts-ignore: decorator
@inline export function st4(p: usize, i: i32, x: i32): void {
  store<i32>(p + (<usize>i << 2), x);
}

/** Address of entry (i, j) of the row-major matrix at M with rows of n values. */
// @ts-ignore: decorator
@inline export function at(M: usize, n: i32, i: i32, j: i32): usize {
  return M + (<usize>(i * n + j) << 3);
}
