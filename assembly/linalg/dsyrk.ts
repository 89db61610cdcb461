// Gramian W += (s·A)ᵀ(s·A) on packed panels with 4×4 register tiles of f64x2 (BLAS dsyrk,
// "transposed", row-major). Reference: src/linalg/syrk.ts.
//
// Layout. A is rows×cols row-major. Rows are processed in chunks of kc; each chunk is packed into
// P as panels of 4 columns: panel p holds A[r][4p..4p+3]·s for the chunk's rows, kc×4 contiguous
// (columns beyond `cols` are zero-padded), so the micro-kernel streams two panels linearly.
// W is the padded mp×mp accumulator (mp = cols rounded up to 4); only tiles (I, J) with J >= I
// are computed — the upper triangle; dsyrkFinish mirrors it into the caller's G.
//
// Micro-kernel: tile4x4 of tile.ts (shared with dgemm.ts), with panel I as pA and panel J as pB.
//
// No-pack variant (dsyrkDirectRows, cols a multiple of 4): the tile reads the 4-column slices of
// the chunk's rows in place (stride = the row length) — same products, same order, same result
// bit for bit, without the pack's write pass; it only pays while the row stride is short enough
// not to alias in L1 (the caller decides: src/linalg/wasmKernels.ts, syrkReadsInPlace).
//
// Validation rides along: pack (or, in the no-pack path, the diagonal tiles, which read every
// value of their columns) returns max|a_ij| of what it read, NaN if an entry is NaN and +Infinity
// if one is ±Infinity, so A is never read twice.
//
// Diagonal tiles (tile4x4Diag) keep only the pairs holding the upper triangle of their 4×4 block:
// entries (2,0), (2,1), (3,0), (3,1) of each diagonal block of W are never written nor read.
//
// Callers: the one-thread path feeds A in chunks (rows = kc per call, a staging buffer as A;
// W accumulates across calls). The threaded path gives each unit a range of rows, its own W and
// its own P (dsyrkRows, which waits for the rows to be copied in; its first chunk writes W instead of
// adding to it, so the accumulators need no zero-fill), then sums the units' W in unit order and
// writes each summed block and its mirror into G (dsyrkSumFinish), by ranges of blocks. The kernels also
// take a range of tile rows [ib0, ib1) (disjoint ranges write disjoint parts of W).

import { tile4x4, tile4x4Diag, tile4x4Strided } from './tile';
import { vscal } from './vec';

/**
 * Packs chunk rows [r0, r0 + kc) of A (panels p >= p0) into P, scaled by s, and returns max|a_ij|
 * over the packed (unscaled) source values: NaN if one of them is NaN, +Infinity if one is ±Infinity
 * (wasm's f64 max propagates NaN). The scan rides on the pack's memory pass, so validating A costs
 * no second read of it.
 */
function pack(A: usize, cols: i32, r0: i32, kc: i32, s: f64, P: usize, p0: i32, np: i32): f64 {
  const panelBytes = <usize>kc << 5; // kc rows × 4 values × 8 bytes
  const vs = f64x2.splat(s);
  let vm = f64x2.splat(0);
  let nan = i64x2.splat(0);
  let m: f64 = 0;
  for (let p = p0; p < np; p++) {
    const dst = P + <usize>p * panelBytes;
    const c0 = p << 2;
    const full = c0 + 4 <= cols;
    for (let r = 0; r < kc; r++) {
      const src = A + (<usize>((r0 + r) * cols + c0) << 3);
      const d = dst + (<usize>r << 5);
      if (full) {
        // A's rows are 8-byte aligned only: unaligned v128 loads are fine in wasm.
        const x0 = v128.load(src);
        const x1 = v128.load(src, 16);
        // pmax is one maxpd (wasm's NaN-propagating max is a long sequence on x86); NaN is
        // caught by the x != x mask instead.
        vm = f64x2.pmax(vm, f64x2.pmax(f64x2.abs(x0), f64x2.abs(x1)));
        nan = v128.or(nan, v128.or(f64x2.ne(x0, x0), f64x2.ne(x1, x1)));
        v128.store(d, f64x2.mul(x0, vs));
        v128.store(d, f64x2.mul(x1, vs), 16);
      } else {
        for (let q = 0; q < 4; q++) {
          let v: f64 = 0;
          if (c0 + q < cols) {
            const x = load<f64>(src + (<usize>q << 3));
            m = max<f64>(m, abs<f64>(x));
            v = x * s;
          }
          store<f64>(d + (<usize>q << 3), v);
        }
      }
    }
  }
  if (v128.any_true(nan)) return NaN;
  return max<f64>(m, max<f64>(f64x2.extract_lane(vm, 0), f64x2.extract_lane(vm, 1)));
}

/**
 * W += upper tiles of tile rows [ib0, ib1) of one packed chunk (k rows; panels of P); with `fresh`
 * W = those tiles (W is not read: see tile4x4Strided). Diagonal tiles keep only their upper part
 * (tile4x4Diag).
 */
// @ts-ignore: decorator
@inline function chunkTiles(
  P: usize,
  k: i32,
  np: i32,
  W: usize,
  ldwBytes: usize,
  ib0: i32,
  ib1: i32,
  fresh: bool = false,
): void {
  const panelBytes = <usize>k << 5;
  for (let I = ib0; I < ib1; I++) {
    const pI = P + <usize>I * panelBytes;
    const wRow = W + <usize>(I << 2) * ldwBytes;
    tile4x4Diag(pI, k, 32, wRow + (<usize>I << 5), ldwBytes, fresh, false);
    for (let J = I + 1; J < np; J++) {
      tile4x4(pI, P + <usize>J * panelBytes, k, wRow + (<usize>J << 5), ldwBytes, fresh);
    }
  }
}

/**
 * Spins until the i32 at `ready` (the rows of A copied so far, published with an atomic store by
 * the thread that copies A in) is >= rows: lets a worker start on the first row chunks while the
 * rest of A is still being copied. The copier never waits on anyone, so this ends.
 */
// @ts-ignore: decorator
@inline function waitForRows(ready: usize, rows: i32): void {
  while (atomic.load<i32>(ready) < rows) {}
}

/**
 * W += upper tiles of tile rows [ib0, ib1) of SᵀS, S k rows read in place (row stride bytes); with
 * `fresh` W = those tiles (W is not read). With `scan` returns max|s_ij| over columns
 * [4·ib0, 4·ib1) (NaN / +Infinity flag bad entries): the diagonal tiles (tile4x4Diag) read every
 * value of their columns and scan them on the way — for S already in L2 (the one-thread path's
 * staged chunk) that saves a pass of its own (~2.5 % at 16384×128). For S still in memory (the
 * threaded units) a separate sequential scan first is faster: it streams the chunk into cache for
 * the tiles' strided reads. Without `scan` returns 0.
 */
// @ts-ignore: decorator
@inline function directTiles(
  S: usize,
  k: i32,
  np: i32,
  stride: usize,
  W: usize,
  ib0: i32,
  ib1: i32,
  fresh: bool,
  scan: bool,
): f64 {
  let amax: f64 = 0;
  for (let I = ib0; I < ib1; I++) {
    const pI = S + (<usize>I << 5);
    const wRow = W + <usize>(I << 2) * stride;
    // f64.max propagates NaN, so a NaN found in any diagonal tile survives to the result.
    amax = max<f64>(amax, tile4x4Diag(pI, k, stride, wRow + (<usize>I << 5), stride, fresh, scan));
    for (let J = I + 1; J < np; J++) {
      tile4x4Strided(pI, S + (<usize>J << 5), k, stride, wRow + (<usize>J << 5), stride, fresh);
    }
  }
  return amax;
}

/**
 * max|s_ij| of n values at S (NaN if one is NaN, +Infinity if one is ±Infinity), n even; read
 * only, sequentially (which also brings S into cache). pmax is one maxpd (wasm's NaN-propagating
 * max is a long sequence on x86); NaN is caught by the x != x mask instead.
 */
function scanMaxAbs(S: usize, n: i32): f64 {
  let vm = f64x2.splat(0);
  let vm1 = f64x2.splat(0);
  let nan = i64x2.splat(0);
  const end = S + (<usize>n << 3);
  let p = S;
  for (; p + 32 <= end; p += 32) {
    const x0 = v128.load(p);
    const x1 = v128.load(p, 16);
    vm = f64x2.pmax(vm, f64x2.abs(x0));
    vm1 = f64x2.pmax(vm1, f64x2.abs(x1));
    nan = v128.or(nan, v128.or(f64x2.ne(x0, x0), f64x2.ne(x1, x1)));
  }
  let m: f64 = 0;
  for (; p < end; p += 8) m = max<f64>(m, abs<f64>(load<f64>(p)));
  if (v128.any_true(nan)) return NaN;
  vm = f64x2.pmax(vm, vm1);
  return max<f64>(m, max<f64>(f64x2.extract_lane(vm, 0), f64x2.extract_lane(vm, 1)));
}

/**
 * The no-pack Gramian over A in wasm memory (cols a multiple of 4) for tile rows [ib0, ib1): chunk
 * by chunk of kc rows, exactly the tiles and order of the one-thread path, so several threads with
 * disjoint tile-row ranges give the one-thread result bit for bit. Returns max|a_ij| (NaN /
 * +Infinity flag bad entries): with `cached` (A is a chunk already in cache, as the one-thread
 * path stages it) the diagonal tiles scan the columns of tile rows [ib0, ib1) as they read them;
 * otherwise each chunk is first scanned whole, sequentially, which also streams it into cache for
 * the tiles' strided reads (see directTiles).
 */
export function dsyrkDirectRows(
  A: usize,
  rows: i32,
  cols: i32,
  kc: i32,
  W: usize,
  ib0: i32,
  ib1: i32,
  cached: i32,
): f64 {
  const np = cols >> 2;
  const stride = <usize>cols << 3;
  let amax: f64 = 0;
  for (let r0 = 0; r0 < rows; r0 += kc) {
    const k = min(kc, rows - r0);
    const S = A + <usize>r0 * stride;
    if (cached) {
      amax = max<f64>(amax, directTiles(S, k, np, stride, W, ib0, ib1, false, true));
    } else {
      amax = max<f64>(amax, scanMaxAbs(S, k * cols));
      directTiles(S, k, np, stride, W, ib0, ib1, false, false);
    }
  }
  return amax;
}

/** x[0..n) *= s in place (the rare scaled case of the no-pack path). */
export function dscal(x: usize, n: i32, s: f64): void {
  vscal(n, s, x);
}

/**
 * W (mp×mp, mp = ceil(cols/4)·4) += upper tiles of (s·A)ᵀ(s·A) for tile rows [ib0, ib1), A in
 * wasm memory: chunk by chunk of kc rows, panels [ib0, np) of the chunk are packed into P (kc·mp
 * values, 16-byte aligned, one per thread) and the tiles run on them — the tiles and order of
 * dsyrkChunk, so threads with disjoint tile-row ranges give the one-thread result bit for bit.
 * Returns max|a_ij| over the columns packed (>= 4·ib0; all of them for ib0 = 0).
 */
export function dsyrkTiles(
  A: usize,
  rows: i32,
  cols: i32,
  s: f64,
  W: usize,
  P: usize,
  kc: i32,
  ib0: i32,
  ib1: i32,
): f64 {
  const np = (cols + 3) >> 2;
  const ldwBytes = <usize>(np << 2) << 3;
  let amax: f64 = 0;
  for (let r0 = 0; r0 < rows; r0 += kc) {
    const k = min(kc, rows - r0);
    amax = max<f64>(amax, pack(A, cols, r0, k, s, P, ib0, np));
    chunkTiles(P, k, np, W, ldwBytes, ib0, ib1);
  }
  return amax;
}

/**
 * One unit of the multi-thread Gramian: W (its own mp×mp accumulator) = upper tiles of
 * (s·A_rows)ᵀ(s·A_rows) for rows [r0, r1) of A (r1 > r0), in chunks of kc rows, each chunk waited
 * for (waitForRows on `ready`) and then run exactly as the one-thread path runs it: the no-pack
 * tiles when `direct`, else pack + tiles with the unit's own P. The first chunk's tiles start from
 * zero instead of reading W (`fresh`), so W needs no zero-fill: same sums, one memory pass less.
 * Returns max|a_ij| over the rows (NaN / +Infinity flag bad entries).
 */
export function dsyrkRows(
  A: usize, r0: i32, r1: i32, cols: i32, s: f64, direct: i32, W: usize, P: usize, kc: i32,
  ready: usize,
): f64 {
  const np = (cols + 3) >> 2;
  const stride = <usize>cols << 3;
  const ldwBytes = <usize>(np << 2) << 3;
  let amax: f64 = 0;
  for (let r = r0; r < r1; r += kc) {
    const k = min(kc, r1 - r);
    const fresh = r == r0;
    waitForRows(ready, r + k);
    const S = A + <usize>r * stride;
    if (direct) {
      amax = max<f64>(amax, scanMaxAbs(S, k * cols)); // streams the chunk in for the tiles
      directTiles(S, k, np, stride, W, 0, np, fresh, false);
    } else {
      amax = max<f64>(amax, pack(S, cols, 0, k, s, P, 0, np));
      chunkTiles(P, k, np, W, ldwBytes, 0, np, fresh);
    }
  }
  return amax;
}

/** Side of the square blocks of dsyrkSumFinish (a multiple of 4, so blocks start on W's pairs). */
const SUM_BLOCK = 32;

/** Upper blocks (I <= J) of an n×n matrix in SUM_BLOCK×SUM_BLOCK blocks: nb·(nb + 1)/2. */
export function sumFinishBlocks(cols: i32): i32 {
  const nb = (cols + SUM_BLOCK - 1) / SUM_BLOCK;
  return (nb * (nb + 1)) >> 1;
}

/**
 * The multi-thread Gramian's last step on blocks [b0, b1) of the upper triangle, in blocks of
 * SUM_BLOCK (numbered row by row: (0,0), (0,1), …, (1,1), …): for each entry (i, j >= i) of the
 * block, W0_ij = W0_ij + W1_ij + … + W_{n−1,ij} (in u order; n per-unit mp×mp accumulators at
 * W0 + u·mp²·8), then G[i][j] += (W_ij·weight)·f and the mirror G[j][i] += the same value (j > i).
 * The values are those of summing everything first and mirroring after (dsyrkFinish); each entry
 * of G is written by the one block holding (min(i, j), max(i, j)), so disjoint block ranges can run
 * on several threads at once. Blocks keep the mirror's column writes inside a few KiB of G.
 * Returns how many of the entries written are not finite afterwards (0 = all finite).
 */
export function dsyrkSumFinish(
  W0: usize,
  n: i32,
  cols: i32,
  weight: f64,
  f: f64,
  G: usize,
  b0: i32,
  b1: i32,
): i32 {
  const mp = ((cols + 3) >> 2) << 2;
  const step = (<usize>mp * <usize>mp) << 3;
  const ldg = <usize>cols << 3;
  const nb = (cols + SUM_BLOCK - 1) / SUM_BLOCK;
  let I = 0;
  let rem = b0;
  while (rem >= nb - I) {
    rem -= nb - I;
    I++;
  }
  let J = I + rem;
  let bad: f64 = 0;
  let count = 0;
  for (let b = b0; b < b1; b++) {
    const i0 = I * SUM_BLOCK;
    const i1 = min(i0 + SUM_BLOCK, cols);
    const j0 = J * SUM_BLOCK;
    const jw = min(j0 + SUM_BLOCK, mp); // W's columns (pairs) summed
    const j1 = min(j0 + SUM_BLOCK, cols); // G's columns written
    let blockBad: f64 = 0;
    for (let i = i0; i < i1; i++) {
      const wRow = W0 + (<usize>(i * mp) << 3);
      const js = I == J ? i : j0;
      // Sum the units from the 16-byte-aligned pair holding (i, js).
      for (let o = wRow + (<usize>(js & ~1) << 3); o < wRow + (<usize>jw << 3); o += 16) {
        let v = v128.load(o);
        for (let u = 1; u < n; u++) v = f64x2.add(v, v128.load(o + <usize>u * step));
        v128.store(o, v);
      }
      const gRow = G + <usize>i * ldg;
      for (let j = js; j < j1; j++) {
        const v = load<f64>(wRow + (<usize>j << 3)) * weight * f;
        const pij = gRow + (<usize>j << 3);
        const gij = load<f64>(pij) + v;
        store<f64>(pij, gij);
        blockBad += gij - gij;
        if (j != i) {
          const pji = G + <usize>j * ldg + (<usize>i << 3);
          const gji = load<f64>(pji) + v;
          store<f64>(pji, gji);
          blockBad += gji - gji;
        }
      }
    }
    if (blockBad != 0) {
      for (let i = i0; i < i1; i++) {
        for (let j = I == J ? i : j0; j < j1; j++) {
          const gij = load<f64>(G + <usize>i * ldg + (<usize>j << 3));
          if (gij - gij != 0) count++;
          if (j != i) {
            const gji = load<f64>(G + <usize>j * ldg + (<usize>i << 3));
            if (gji - gji != 0) count++;
          }
        }
      }
    }
    bad += blockBad;
    J++;
    if (J == nb) {
      I++;
      J = I;
    }
  }
  return bad == 0 ? 0 : count;
}

/**
 * Rows [i0, i1) of G (cols×cols, full) += (W_ij·weight)·f, where W (mp×mp) holds the upper
 * triangle; entries below the diagonal mirror those above. Returns how many of those entries of G
 * are not finite afterwards (0 = all finite), so the caller can refuse an overflowing update
 * before copying G out. Disjoint row ranges can run on several threads at once.
 */
export function dsyrkFinish(W: usize, cols: i32, weight: f64, f: f64, G: usize, i0: i32, i1: i32): i32 {
  const mp = ((cols + 3) >> 2) << 2;
  let bad: f64 = 0;
  for (let i = i0; i < i1; i++) {
    const wRow = W + (<usize>(i * mp) << 3);
    const gRow = G + (<usize>(i * cols) << 3);
    // Lower part of row i: G[i][j] += W[j][i] for j < i (W read down column i).
    for (let j = 0; j < i; j++) {
      const pij = gRow + (<usize>j << 3);
      const g = load<f64>(pij) + load<f64>(W + (<usize>(j * mp + i) << 3)) * weight * f;
      store<f64>(pij, g);
      bad += g - g;
    }
    // Upper part, contiguous.
    for (let j = i; j < cols; j++) {
      const pij = gRow + (<usize>j << 3);
      const g = load<f64>(pij) + load<f64>(wRow + (<usize>j << 3)) * weight * f;
      store<f64>(pij, g);
      bad += g - g;
    }
  }
  if (bad == 0) return 0;
  let count = 0;
  for (let k = i0 * cols; k < i1 * cols; k++) {
    const g = load<f64>(G + (<usize>k << 3));
    if (g - g != 0) count++;
  }
  return count;
}
