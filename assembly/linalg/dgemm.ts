// General matrix product C = alpha·op(A)·op(B) + beta·C (BLAS dgemm, row-major, op = identity or
// transpose) on packed panels with 4×4 register tiles of f64x2 — the micro-kernel of dsyrk.ts.
// Reference: src/linalg/gemm.ts.
//
// Blocking (Goto): for each block of nc columns of op(B) and each chunk of kc values of the inner
// index, op(B)[chunk][block] is packed into PB as panels of 4 columns (kc×4 contiguous, columns
// beyond N zero-padded); then for each block of mc rows, op(A)[block][chunk] is packed into PA as
// panels of 4 rows (for each k the 4 row values, kc×4 contiguous, rows beyond M zero-padded).
// Transposed operands are packed into the same layout, so one micro-kernel serves all four
// combinations. Where the 4 values of a panel step come from 4 different rows of the operand
// (op(A) not transposed, op(B) transposed), full panels are packed two steps at a time with
// f64x2 loads and 2×2 register transposes (packStreams4). The macro-kernel keeps one A panel
// (kc·32 bytes) in L1 while it runs along the B panels of the block, so the tiles of C it updates
// lie side by side in 4 rows that are read and written in address order (which the hardware
// prefetches) rather than 4 rows apart down a column. The order of the tiles does not change any
// sum: every entry of C accumulates its products in k order, chunk after chunk.
//
// Scaling: C ← beta·C first (with beta == 0, C is written as 0 and never read, so NaN in an
// uninitialised C cannot leak); alpha is folded into the packed A panels; every chunk then
// accumulates into C.
//
// Micro-kernel (tile.ts, shared with dsyrk.ts): a 4×4 tile of C is 8 f64x2 accumulators loaded from C; per k it
// loads 2 vectors of the B panel and 4 splats of the A panel: 8 mul + 8 add. Edge tiles (fewer
// than 4 valid rows or columns: M or N not a multiple of 4) run on the 16-value scratch T,
// zero-padded, and only the valid part is copied back.
//
// Never allocates: PA (mc rounded up to 4, times kc), PB (kc times nc rounded up to 4) and T
// (16 values) are the caller's.

import { tile4x4 } from './tile';

/**
 * Interleaves 4 contiguous streams of kc values (stream q at src + q·ld bytes) into a packed
 * panel: dst[k][q] = scale·stream_q[k] (kc×4 contiguous). Two values of each stream per step,
 * transposed in registers (2×2 unpacks), so loads and stores are f64x2; with scale == 1 the values
 * are copied without a multiply (x·1 == x exactly). Same values as the scalar pack.
 */
// @ts-ignore: decorator
@inline function packStreams4(src: usize, ld: usize, kc: i32, scale: f64, dst: usize): void {
  const s1 = src + ld;
  const s2 = s1 + ld;
  const s3 = s2 + ld;
  const vs = f64x2.splat(scale);
  const one = scale == 1;
  let k = 0;
  for (; k + 2 <= kc; k += 2) {
    const o = <usize>k << 3;
    let x0 = v128.load(src + o);
    let x1 = v128.load(s1 + o);
    let x2 = v128.load(s2 + o);
    let x3 = v128.load(s3 + o);
    if (!one) {
      x0 = f64x2.mul(vs, x0);
      x1 = f64x2.mul(vs, x1);
      x2 = f64x2.mul(vs, x2);
      x3 = f64x2.mul(vs, x3);
    }
    const d = dst + (<usize>k << 5);
    v128.store(d, v128.shuffle<f64>(x0, x1, 0, 2));
    v128.store(d, v128.shuffle<f64>(x2, x3, 0, 2), 16);
    v128.store(d, v128.shuffle<f64>(x0, x1, 1, 3), 32);
    v128.store(d, v128.shuffle<f64>(x2, x3, 1, 3), 48);
  }
  if (k < kc) {
    const o = <usize>k << 3;
    const d = dst + (<usize>k << 5);
    store<f64>(d, scale * load<f64>(src + o));
    store<f64>(d, scale * load<f64>(s1 + o), 8);
    store<f64>(d, scale * load<f64>(s2 + o), 16);
    store<f64>(d, scale * load<f64>(s3 + o), 24);
  }
}

/**
 * Packs op(B)[p0..p0+kc)[j0..j0+nc) into PB as 4-column panels (zero-padded past N); ldb is B's
 * row stride (N when B is K×N contiguous, K when it is N×K).
 */
function packB(
  transB: bool, N: i32, ldb: i32, B: usize, p0: i32, kc: i32, j0: i32, nc: i32, PB: usize,
): void {
  const np = (nc + 3) >> 2;
  const panelBytes = <usize>kc << 5;
  for (let J = 0; J < np; J++) {
    const dst = PB + <usize>J * panelBytes;
    const c0 = j0 + (J << 2);
    const full = c0 + 4 <= N;
    if (!transB) {
      // op(B)[k][j] = B[k·N + j]: 4 contiguous values per k.
      for (let k = 0; k < kc; k++) {
        const src = B + (<usize>((p0 + k) * ldb + c0) << 3);
        const d = dst + (<usize>k << 5);
        if (full) {
          v128.store(d, v128.load(src));
          v128.store(d, v128.load(src, 16), 16);
        } else {
          for (let q = 0; q < 4; q++) store<f64>(d + (<usize>q << 3), c0 + q < N ? load<f64>(src + (<usize>q << 3)) : 0);
        }
      }
    } else {
      // op(B)[k][j] = B[j·K + k]: each of the 4 columns is contiguous in k.
      if (full) {
        packStreams4(B + (<usize>(c0 * ldb + p0) << 3), <usize>ldb << 3, kc, 1, dst);
        continue;
      }
      for (let q = 0; q < 4; q++) {
        const d = dst + (<usize>q << 3);
        if (c0 + q < N) {
          const src = B + (<usize>((c0 + q) * ldb + p0) << 3);
          for (let k = 0; k < kc; k++) store<f64>(d + (<usize>k << 5), load<f64>(src + (<usize>k << 3)));
        } else {
          for (let k = 0; k < kc; k++) store<f64>(d + (<usize>k << 5), 0);
        }
      }
    }
  }
}

/**
 * Packs alpha·op(A)[i0..i0+mc)[p0..p0+kc) into PA as 4-row panels (zero-padded past M); lda is
 * A's row stride (K when A is M×K contiguous, M when it is K×M).
 */
function packA(
  transA: bool, M: i32, lda: i32, alpha: f64, A: usize, i0: i32, mc: i32, p0: i32, kc: i32,
  PA: usize,
): void {
  const np = (mc + 3) >> 2;
  const va = f64x2.splat(alpha);
  const panelBytes = <usize>kc << 5;
  for (let I = 0; I < np; I++) {
    const dst = PA + <usize>I * panelBytes;
    const r0 = i0 + (I << 2);
    const full = r0 + 4 <= M;
    if (transA) {
      // op(A)[i][k] = A[k·M + i]: 4 contiguous values per k.
      for (let k = 0; k < kc; k++) {
        const src = A + (<usize>((p0 + k) * lda + r0) << 3);
        const d = dst + (<usize>k << 5);
        if (full) {
          v128.store(d, f64x2.mul(va, v128.load(src)));
          v128.store(d, f64x2.mul(va, v128.load(src, 16)), 16);
        } else {
          for (let q = 0; q < 4; q++)
            store<f64>(d + (<usize>q << 3), r0 + q < M ? alpha * load<f64>(src + (<usize>q << 3)) : 0);
        }
      }
    } else {
      // op(A)[i][k] = A[i·K + k]: each of the 4 rows is contiguous in k.
      if (full) {
        packStreams4(A + (<usize>(r0 * lda + p0) << 3), <usize>lda << 3, kc, alpha, dst);
        continue;
      }
      for (let q = 0; q < 4; q++) {
        const d = dst + (<usize>q << 3);
        if (r0 + q < M) {
          const src = A + (<usize>((r0 + q) * lda + p0) << 3);
          for (let k = 0; k < kc; k++) store<f64>(d + (<usize>k << 5), alpha * load<f64>(src + (<usize>k << 3)));
        } else {
          for (let k = 0; k < kc; k++) store<f64>(d + (<usize>k << 5), 0);
        }
      }
    }
  }
}

/** Edge tile (rows×cols < 4×4 valid): through the 4×4 scratch T (zero-padded), then back. */
function edgeTile(pA: usize, pB: usize, kc: i32, c: usize, ldcBytes: usize, rows: i32, cols: i32, T: usize): void {
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const t = T + (<usize>((i << 2) + j) << 3);
      store<f64>(t, i < rows && j < cols ? load<f64>(c + <usize>i * ldcBytes + (<usize>j << 3)) : 0);
    }
  }
  tile4x4(pA, pB, kc, T, 32);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      store<f64>(c + <usize>i * ldcBytes + (<usize>j << 3), load<f64>(T + (<usize>((i << 2) + j) << 3)));
    }
  }
}

/**
 * C (M×N) = alpha·op(A)·op(B) + beta·C; op(A) is M×K (A stored M×K, or K×M if transA), op(B) is
 * K×N (B stored K×N, or N×K if transB). With beta == 0, C is not read. PA must hold
 * ceil(mc/4)·4·kc values, PB kc·ceil(nc/4)·4 values, T 16 values; kc, mc, nc >= 1.
 */
export function dgemm(
  transA: bool, transB: bool, M: i32, N: i32, K: i32, alpha: f64, A: usize, B: usize, beta: f64,
  C: usize, PA: usize, PB: usize, T: usize, kc: i32, mc: i32, nc: i32,
): void {
  gemmStrided(transA, transB, M, N, K, alpha, A, transA ? M : K, B, transB ? K : N, beta, C, N, PA, PB, T, kc, mc, nc);
}

/**
 * {@link dgemm} on submatrices: the same products with explicit row strides lda, ldb, ldc (in
 * values) of A, B and C as stored — the blocked eigensolver's operands are blocks of larger
 * matrices. Same arithmetic in the same order as dgemm for the same blocking. With `upper` (square
 * C, M = N) only the 4×4 tiles on and above the diagonal are computed — those holding an entry
 * (i, j) with j >= i; the others are not read or written (the symmetric rank-2k update of the
 * blocked tridiagonalisation, ./dsyev.ts).
 */
export function gemmStrided(
  transA: bool, transB: bool, M: i32, N: i32, K: i32, alpha: f64, A: usize, lda: i32, B: usize,
  ldb: i32, beta: f64, C: usize, ldc: i32, PA: usize, PB: usize, T: usize, kc: i32, mc: i32, nc: i32, upper: bool = false,
): void {
  if (M <= 0 || N <= 0) return;
  const ldcBytes = <usize>ldc << 3;
  // C ← beta·C (C is not read when beta == 0); the chunks then accumulate alpha·op(A)·op(B).
  if (beta != 1) {
    const vb = f64x2.splat(beta);
    for (let r = 0; r < M; r++) {
      const row = C + <usize>r * ldcBytes;
      let i = 0;
      for (; i + 2 <= N; i += 2) {
        const p = row + (<usize>i << 3);
        v128.store(p, beta == 0 ? f64x2.splat(0) : f64x2.mul(vb, v128.load(p)));
      }
      if (i < N) {
        const p = row + (<usize>i << 3);
        store<f64>(p, beta == 0 ? 0 : beta * load<f64>(p));
      }
    }
  }
  if (K <= 0) return;
  for (let j0 = 0; j0 < N; j0 += nc) {
    const nb = min(nc, N - j0);
    const npB = (nb + 3) >> 2;
    for (let p0 = 0; p0 < K; p0 += kc) {
      const kb = min(kc, K - p0);
      const panelBytes = <usize>kb << 5;
      packB(transB, N, ldb, B, p0, kb, j0, nb, PB);
      const iEnd = upper ? min(M, j0 + nb) : M; // upper: rows below this block's columns hold none
      for (let i0 = 0; i0 < iEnd; i0 += mc) {
        const mb = min(mc, iEnd - i0);
        const npA = (mb + 3) >> 2;
        packA(transA, M, lda, alpha, A, i0, mb, p0, kb, PA);
        for (let I = 0; I < npA; I++) {
          const row = i0 + (I << 2);
          const rows = min(4, M - row);
          const pA = PA + <usize>I * panelBytes;
          const cRow = C + <usize>row * ldcBytes;
          // upper: tiles left of the diagonal tile (col + 3 < row) hold no upper entry
          for (let J = upper ? max(0, (row - j0) >> 2) : 0; J < npB; J++) {
            const pB = PB + <usize>J * panelBytes;
            const col = j0 + (J << 2);
            const cols = min(4, N - col);
            const c = cRow + (<usize>col << 3);
            if (rows == 4 && cols == 4) tile4x4(pA, pB, kb, c, ldcBytes);
            else edgeTile(pA, pB, kb, c, ldcBytes, rows, cols, T);
          }
        }
      }
    }
  }
}

/**
 * C (M×n) = A·Rᵀ for R n×n upper triangular (BLAS dtrmm, side R, upper, transposed, out of place;
 * A, R and C with row strides lda, ldr, ldc in values). R's entries below the diagonal must be
 * zero: C[:, j] = A[:, j:n]·R[j, j:n]ᵀ, so in each block of w columns [j0, j1) the inner index
 * runs over [j0, n) only — C[:, j0:j1] = A[:, j0:n]·R[j0:j1, j0:n]ᵀ by {@link gemmStrided} (the
 * zeros below the diagonal inside the block read and multiplied; those left of the block never
 * read), about n·(n + w)·M flops against 2n²·M.
 * Each entry is the sum of gemmStrided, in k order from k = j0: the full product's sum from k = 0
 * with the leading products a·0 = ±0 left out, which changes nothing (the sum starts at +0, and
 * +0 + ±0 = +0), so for finite A the result equals dgemm(N, T) on the full R bit for bit. PA must
 * hold ceil(mc/4)·4·kc values, PB kc·ceil(w/4)·4, T 16; kc, mc, w >= 1.
 */
export function dtrmmUpperT(
  M: i32, n: i32, A: usize, lda: i32, R: usize, ldr: i32, C: usize, ldc: i32, PA: usize, PB: usize,
  T: usize, kc: i32, mc: i32, w: i32,
): void {
  for (let j0 = 0; j0 < n; j0 += w) {
    const nb = min(w, n - j0);
    const K = n - j0;
    const a = A + (<usize>j0 << 3);
    const r = R + ((<usize>j0 * <usize>ldr + <usize>j0) << 3);
    const c = C + (<usize>j0 << 3);
    gemmStrided(false, true, M, nb, K, 1, a, lda, r, ldr, 0, c, ldc, PA, PB, T, min(kc, K), mc, nb);
  }
}
