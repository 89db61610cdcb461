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
// Threads: disjoint ranges of tile rows [ib0, ib1) write disjoint parts of W, so several
// instances over the same shared memory can run at once, each with its own P.

import { tile4x4 } from './tile';

/** Packs chunk rows [r0, r0 + kc) of A (panels p >= p0) into P, scaled by s. */
function pack(A: usize, cols: i32, r0: i32, kc: i32, s: f64, P: usize, p0: i32, np: i32): void {
  const panelBytes = <usize>kc << 5; // kc rows × 4 values × 8 bytes
  for (let p = p0; p < np; p++) {
    const dst = P + <usize>p * panelBytes;
    const c0 = p << 2;
    const full = c0 + 4 <= cols;
    const vs = f64x2.splat(s);
    for (let r = 0; r < kc; r++) {
      const src = A + (<usize>((r0 + r) * cols + c0) << 3);
      const d = dst + (<usize>r << 5);
      if (full) {
        // A's rows are 8-byte aligned only: unaligned v128 loads are fine in wasm.
        v128.store(d, f64x2.mul(v128.load(src), vs));
        v128.store(d, f64x2.mul(v128.load(src, 16), vs), 16);
      } else {
        for (let q = 0; q < 4; q++) {
          store<f64>(d + (<usize>q << 3), c0 + q < cols ? load<f64>(src + (<usize>q << 3)) * s : 0);
        }
      }
    }
  }
}

/**
 * W (mp×mp, mp = ceil(cols/4)·4) += upper tiles of (s·A)ᵀ(s·A) for tile rows [ib0, ib1).
 * P must hold kc·mp values (16-byte aligned), kc a positive multiple of 1.
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
): void {
  const np = (cols + 3) >> 2;
  const mp = np << 2;
  const ldwBytes = <usize>mp << 3;
  for (let r0 = 0; r0 < rows; r0 += kc) {
    const k = min(kc, rows - r0);
    pack(A, cols, r0, k, s, P, ib0, np);
    const panelBytes = <usize>k << 5;
    for (let I = ib0; I < ib1; I++) {
      const pI = P + <usize>I * panelBytes;
      const wRow = W + <usize>(I << 2) * ldwBytes;
      for (let J = I; J < np; J++) {
        tile4x4(pI, P + <usize>J * panelBytes, k, wRow + (<usize>J << 5), ldwBytes);
      }
    }
  }
}

/**
 * Packs ALL row chunks of s·A once (for the multi-thread path): chunk c (kc rows, the last one
 * possibly fewer) starts at P + c·kc·mp·8 and holds its np panels exactly as dsyrkTiles would.
 * P must hold ceil(rows/kc)·kc·mp values.
 */
export function dsyrkPack(A: usize, rows: i32, cols: i32, s: f64, P: usize, kc: i32): void {
  const np = (cols + 3) >> 2;
  const chunkBytes = (<usize>kc * <usize>(np << 2)) << 3;
  let c: usize = 0;
  for (let r0 = 0; r0 < rows; r0 += kc) {
    pack(A, cols, r0, min(kc, rows - r0), s, P + c * chunkBytes, 0, np);
    c++;
  }
}

/**
 * W += upper tiles of tile rows [ib0, ib1) from the pre-packed P of dsyrkPack. Same tiles, same
 * chunk order and same row order as dsyrkTiles, so the result is bit-identical to it.
 */
export function dsyrkPacked(P: usize, rows: i32, cols: i32, kc: i32, W: usize, ib0: i32, ib1: i32): void {
  const np = (cols + 3) >> 2;
  const mp = np << 2;
  const ldwBytes = <usize>mp << 3;
  const chunkBytes = (<usize>kc * <usize>mp) << 3;
  let chunk = P;
  for (let r0 = 0; r0 < rows; r0 += kc) {
    const k = min(kc, rows - r0);
    const panelBytes = <usize>k << 5;
    for (let I = ib0; I < ib1; I++) {
      const pI = chunk + <usize>I * panelBytes;
      const wRow = W + <usize>(I << 2) * ldwBytes;
      for (let J = I; J < np; J++) {
        tile4x4(pI, chunk + <usize>J * panelBytes, k, wRow + (<usize>J << 5), ldwBytes);
      }
    }
    chunk += chunkBytes;
  }
}

/** G (cols×cols, full) += (W_ij·weight)·f on and above the diagonal, mirrored below. */
export function dsyrkFinish(W: usize, cols: i32, weight: f64, f: f64, G: usize): void {
  const mp = ((cols + 3) >> 2) << 2;
  for (let i = 0; i < cols; i++) {
    for (let j = i; j < cols; j++) {
      const v = load<f64>(W + (<usize>(i * mp + j) << 3)) * weight * f;
      const pij = G + (<usize>(i * cols + j) << 3);
      store<f64>(pij, load<f64>(pij) + v);
      if (j != i) {
        const pji = G + (<usize>(j * cols + i) << 3);
        store<f64>(pji, load<f64>(pji) + v);
      }
    }
  }
}
