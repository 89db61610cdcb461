// Square-matrix layout steps around the symmetric eigensolver (dsyev.ts): symmetrising and
// scaling its input, and transposing its eigenvector output, inside wasm memory so that eigh
// needs no n×n JavaScript temporaries. Reference: the reference backend's syev
// (src/linalg/backend.ts), same expressions.

/** Side of the square tiles of dtranspose: two 32×32 f64 tiles (16 KiB) fit in L1. */
const TILE: i32 = 32;

/**
 * In place, S (n×n row-major) ← (s·S + s·Sᵀ)/2, entry by entry as 0.5·(S_ij·s + S_ji·s) — the
 * diagonal becomes S_ii·s exactly. `s` is an exact power of two, so for symmetric S this is an
 * exact scaling.
 */
export function dsymmetrize(S: usize, n: i32, s: f64): void {
  for (let i = 0; i < n; i++) {
    const row = S + (<usize>(i * n) << 3);
    for (let j = i; j < n; j++) {
      const pij = row + (<usize>j << 3);
      const pji = S + (<usize>(j * n + i) << 3);
      const w = 0.5 * (load<f64>(pij) * s + load<f64>(pji) * s);
      store<f64>(pij, w);
      store<f64>(pji, w);
    }
  }
}

/** B (n×n) ← Aᵀ (A n×n), both row-major and not overlapping, by TILE×TILE tiles. */
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
