/** y <- x: the pure-TypeScript reference of assembly/blas1/dcopy.ts (mutates y). */
export function referenceCopy(x: ArrayLike<number>, y: Float64Array): void {
  for (let i = 0; i < y.length; i++) y[i] = x[i]!;
}
