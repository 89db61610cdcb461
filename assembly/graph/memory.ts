// Loads and stores of the graph kernels (assembly/graph): element i of an f64 or i32 array at
// byte offset p, and the logistic function both passes of Q use. Every helper is inlined at its
// call site, so a kernel compiles to the same loads and stores as if it spelled them out.
// Nothing here allocates.
import { exp } from './exp';

/** Element i of the f64 array at p. */
// @ts-ignore: decorator
@inline export function ld(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}

/** Sets element i of the f64 array at p to v. */
// @ts-ignore: decorator
@inline export function st(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}

/** Adds w to element i of the f64 array at p (one load, one add, one store). */
// @ts-ignore: decorator
@inline export function addTo(p: usize, i: i32, w: f64): void {
  store<f64>(p + (<usize>i << 3), load<f64>(p + (<usize>i << 3)) + w);
}

/** Element i of the i32 array at p. */
// @ts-ignore: decorator
@inline export function ldi(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

/** Sets element i of the i32 array at p to v. */
// @ts-ignore: decorator
@inline export function sti(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

/** The k-th of consecutive f64 arrays of n values each that start at p. */
// @ts-ignore: decorator
@inline export function part(p: usize, n: i32, k: i32): usize {
  return p + (<usize>(k * n) << 3);
}

/** σ(z) = 1/(1 + e^{−z}), as src/graph/operators/consolidate.ts `sigmoid` computes it. */
// @ts-ignore: decorator
@inline export function sigmoid(z: f64): f64 {
  return 1.0 / (1.0 + exp(-z));
}
