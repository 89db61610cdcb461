// The multiply-add of the kernels' inner loops, one source for two builds. The plain build
// (build/ordergap.wasm) computes c + a·b as two roundings, f64x2.add(c, f64x2.mul(a, b)) — the
// operations and operand order the loops had written out, so that build is bit for bit what it
// was. The FMA build (build/ordergap-fma.wasm: asc --enable relaxed-simd --use FMA=1) computes
// f64x2.relaxed_madd(a, b, c), which V8 compiles to a fused multiply-add (one rounding) where the
// CPU has one; relaxed SIMD lets an engine round twice instead, so either result is possible
// there, and each differs from the plain one by at most one rounding of the product a·b
// (|fl(a·b) − a·b| <= u·|a·b|, u = 2⁻⁵³). The branch on FMA is decided at compile time; the other
// side is never compiled.

/** c + a·b lane by lane: fused in the FMA build, add(c, mul(a, b)) in the plain build. */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  // @ts-ignore: FMA is defined only by asc --use FMA=1 (the FMA build)
  if (isDefined(FMA)) return f64x2.relaxed_madd(a, b, c);
  return f64x2.add(c, f64x2.mul(a, b));
}
