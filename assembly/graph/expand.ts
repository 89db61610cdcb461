// Reference expansion P_e: x_F <- x_F + r (t - x_F) in place on the footprint F (i32 indices),
// targets t and per-coordinate rates r (src/graph/operators/expand.ts). O(m), no allocation.
export function gpblend(x: usize, footprint: usize, target: usize, rates: usize, m: i32): void {
  for (let i = 0; i < m; i++) {
    const px = x + (<usize>load<i32>(footprint + (<usize>i << 2)) << 3);
    const v = load<f64>(px);
    store<f64>(px, v + load<f64>(rates + (<usize>i << 3)) * (load<f64>(target + (<usize>i << 3)) - v));
  }
}
