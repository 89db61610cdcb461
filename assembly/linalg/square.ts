// Square-matrix layout steps around the symmetric eigensolver (dsyev.ts): symmetrising and
// scaling its input, and transposing its eigenvector output, inside wasm memory so that eigh
// needs no n×n JavaScript temporaries. Reference: the reference backend's syev
// (src/linalg/backend.ts), same expressions.

/**
 * Side of the square tiles both kernels walk: a tile's 8 rows on the strided side are 8 cache
 * lines, which stay in L1 even when the row length is a multiple of 4 KiB and all 8 fall in one
 * set (32×32 tiles thrashed there: n = 512 transposed in 1.9 ms against 0.45 at n = 508).
 */
const TILE: i32 = 8;

/**
 * In place, S (n×n row-major) ← (s·S + s·Sᵀ)/2, entry by entry as 0.5·(S_ij·s + S_ji·s) — the
 * diagonal becomes S_ii·s exactly. `s` is an exact power of two, so for symmetric S this is an
 * exact scaling.
 */
export function dsymmetrize(S: usize, n: i32, s: f64): void {
  for (let i0 = 0; i0 < n; i0 += TILE) {
    const i1 = min(i0 + TILE, n);
    for (let j0 = i0; j0 < n; j0 += TILE) {
      const j1 = min(j0 + TILE, n);
      for (let i = i0; i < i1; i++) {
        const row = S + (<usize>(i * n) << 3);
        for (let j = max(i, j0); j < j1; j++) {
          const pij = row + (<usize>j << 3);
          const pji = S + (<usize>(j * n + i) << 3);
          const w = 0.5 * (load<f64>(pij) * s + load<f64>(pji) * s);
          store<f64>(pij, w);
          store<f64>(pji, w);
        }
      }
    }
  }
}

/** B (n×n) ← Aᵀ (A n×n), both row-major and not overlapping, tile by tile. */
export function dtranspose(A: usize, n: i32, B: usize): void {
  for (let i0 = 0; i0 < n; i0 += TILE) {
    const i1 = min(i0 + TILE, n);
    for (let j0 = 0; j0 < n; j0 += TILE) {
      const j1 = min(j0 + TILE, n);
      for (let i = i0; i < i1; i++) {
        const src = A + (<usize>(i * n) << 3);
        for (let j = j0; j < j1; j++) store<f64>(B + (<usize>(j * n + i) << 3), load<f64>(src + (<usize>j << 3)));
      }
    }
  }
}
