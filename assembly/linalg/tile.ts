// The 4×4 register-tile micro-kernel shared by the Gramian (dsyrk.ts) and GEMM (dgemm.ts).
//
// c (a 4×4 block of a row-major matrix with row stride ldcBytes) += Σ_k pA[k]ᵀ pB[k], where pA and
// pB are packed panels of 4 values per k (kc·4 contiguous f64 each). The tile is 8 f64x2
// accumulators (4 rows × 2 vectors); per k it loads 2 vectors of pB and 4 splats of pA: 8 mul +
// 8 add. With the loads and a temporary this fits the 15 vector registers V8 allocates on x86-64
// (it keeps one as scratch and schedules a step's loads ahead of its arithmetic): a 6×4 or 4×6
// tile spills accumulators, and a copy of the loop unrolled over k spills too — both measured
// slower; A panels stored pre-splatted (plain loads instead of broadcasts) measured no faster.
// Rounding: each entry is a plain recursive sum over k of exact-order products; each step is
// madd (./madd.ts): fused in the FMA build.
import { madd } from './madd';

/** c (4×4, row stride ldcBytes) += Σ_k pA[k]ᵀ pB[k] over kc values of k (packed panels). */
// @ts-ignore: decorator
@inline export function tile4x4(pA: usize, pB: usize, kc: i32, c: usize, ldcBytes: usize, fresh: bool = false): void {
  tile4x4Strided(pA, pB, kc, 32, c, ldcBytes, fresh);
}

/**
 * The same tile, same arithmetic in the same order, with the 4 values of step k at pA + k·stride
 * and pB + k·stride: stride 32 for packed panels, or the row stride of a row-major matrix whose
 * 4-column slices are read in place (the Gramian's no-pack path). With `fresh` the block of c is
 * not read — the sums start from +0, exactly as from a zeroed c — so an accumulator's first
 * chunk needs no zero-fill pass over it beforehand.
 */
// @ts-ignore: decorator
@inline export function tile4x4Strided(pA: usize, pB: usize, kc: i32, stride: usize, c: usize, ldcBytes: usize, fresh: bool = false): void {
  tile4x4Sums(pA, pB, kc, stride, c, ldcBytes, fresh, false, false);
}

/**
 * The diagonal tile of a Gramian (pA = pB = p): only the sums a Gramian keeps — the upper
 * triangle of the 4×4 block and the f64x2 pairs that hold it — so rows 2 and 3 skip columns 0–1
 * (c20, c30: entries below the diagonal, never read). The kept sums are those of tile4x4Strided,
 * in the same order, bit for bit. With `scan` it also returns max|p_kj| over the values it reads
 * (every value of these 4 columns over the kc rows: NaN if one is NaN, +Infinity if one is
 * ±Infinity), the scan of the no-pack Gramian riding on the tile's loads: the two dropped
 * accumulators free the floating-point slots the scan takes. Without `scan` it returns 0.
 */
// @ts-ignore: decorator
@inline export function tile4x4Diag(p: usize, kc: i32, stride: usize, c: usize, ldcBytes: usize, fresh: bool, scan: bool): f64 {
  return tile4x4Sums(p, p, kc, stride, c, ldcBytes, fresh, true, scan);
}

/**
 * The one loop of both tiles. `diag` and `scan` are constants at every call (the callers above),
 * so after inlining each branch on them folds away: the full tile keeps its 8 accumulators, the
 * diagonal tile drops c20 and c30 and reads pB through pA.
 */
// @ts-ignore: decorator
@inline function tile4x4Sums(
  pA: usize, pB: usize, kc: i32, stride: usize, c: usize, ldcBytes: usize, fresh: bool, diag: bool, scan: bool,
): f64 {
  const c1 = c + ldcBytes;
  const c2 = c1 + ldcBytes;
  const c3 = c2 + ldcBytes;
  const z = f64x2.splat(0);
  let c00 = fresh ? z : v128.load(c);
  let c01 = fresh ? z : v128.load(c, 16);
  let c10 = fresh ? z : v128.load(c1);
  let c11 = fresh ? z : v128.load(c1, 16);
  let c20 = fresh || diag ? z : v128.load(c2);
  let c21 = fresh ? z : v128.load(c2, 16);
  let c30 = fresh || diag ? z : v128.load(c3);
  let c31 = fresh ? z : v128.load(c3, 16);
  let vm = z;
  let nan = z;
  const end = pA + <usize>kc * stride;
  let a = pA;
  let b = pB;
  while (a < end) {
    const b0 = v128.load(diag ? a : b);
    const b1 = v128.load(diag ? a : b, 16);
    if (scan) {
      // pmax is one maxpd (wasm's NaN-propagating max is a long sequence on x86); NaN is caught
      // by the x != x mask instead.
      vm = f64x2.pmax(vm, f64x2.pmax(f64x2.abs(b0), f64x2.abs(b1)));
      nan = v128.or(nan, v128.or(f64x2.ne(b0, b0), f64x2.ne(b1, b1)));
    }
    let x = v128.load64_splat(a);
    c00 = madd(x, b0, c00);
    c01 = madd(x, b1, c01);
    x = v128.load64_splat(a, 8);
    c10 = madd(x, b0, c10);
    c11 = madd(x, b1, c11);
    x = v128.load64_splat(a, 16);
    if (!diag) c20 = madd(x, b0, c20);
    c21 = madd(x, b1, c21);
    x = v128.load64_splat(a, 24);
    if (!diag) c30 = madd(x, b0, c30);
    c31 = madd(x, b1, c31);
    a += stride;
    if (!diag) b += stride;
  }
  v128.store(c, c00);
  v128.store(c, c01, 16);
  v128.store(c1, c10);
  v128.store(c1, c11, 16);
  if (!diag) v128.store(c2, c20);
  v128.store(c2, c21, 16);
  if (!diag) v128.store(c3, c30);
  v128.store(c3, c31, 16);
  if (!scan) return 0;
  if (v128.any_true(nan)) return NaN;
  return max<f64>(f64x2.extract_lane(vm, 0), f64x2.extract_lane(vm, 1));
}
