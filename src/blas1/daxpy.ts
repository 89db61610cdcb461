/** y <- a·x + y: the pure-TypeScript reference of assembly/blas1/daxpy.ts (mutates y). */
export function referenceAxpy(a: number, x: ArrayLike<number>, y: Float64Array): void {
  if (a === 0) return;
  for (let i = 0; i < y.length; i++) y[i]! += a * x[i]!;
}
