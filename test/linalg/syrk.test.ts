import { fc, test as fcTest } from '@fast-check/vitest';
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { gram, gramAccumulate } from '../../src/linalg/api.js';
import {
  claimUnit,
  finishJob,
  lastCallerUnits,
  publishJob,
  stopThreads,
  threadCount,
  unitRows,
  type Pool,
} from '../../src/linalg/threads.js';
import { startThreads } from '../../src/linalg/threadChoice.js';
import { EPS, randn, rankLoss } from './cases.js';
import { useArenaGuard } from '../util/arenaGuard.js';
import { describeBackends, LINALG, LINALG_BACKENDS, usePool } from '../util/backends.js';
import { linalgKernels, syrkChunkRows } from '../../src/linalg/wasmKernels.js';
import { wasm } from '../../src/wasm/module.js';
import type { F64Block } from '../../src/wasm/arena.js';

useArenaGuard();

/** Shapes for both Gramian kernels: cols = 128 (the no-pack kernel) and cols = 70 (packed panels). */
function bothKernels(rowsNoPack: number, rowsPacked: number): [number, number][] {
  return [
    [rowsNoPack, 128],
    [rowsPacked, 70],
  ];
}

/** |A|ᵀ|A|: the scale of the rounding error of each Gramian entry. */
function absGram(A: Float64Array, rows: number, cols: number): Float64Array {
  const G = new Float64Array(cols * cols);
  for (let r = 0; r < rows; r++)
    for (let i = 0; i < cols; i++)
      for (let j = 0; j < cols; j++) G[i * cols + j]! += Math.abs(A[r * cols + i]! * A[r * cols + j]!);
  return G;
}

function naiveGram(A: Float64Array, rows: number, cols: number): Float64Array {
  const G = new Float64Array(cols * cols);
  for (let r = 0; r < rows; r++)
    for (let i = 0; i < cols; i++)
      for (let j = 0; j < cols; j++) G[i * cols + j]! += A[r * cols + i]! * A[r * cols + j]!;
  return G;
}

/**
 * Both the kernel and the naive sum are recursive sums of `rows` products (in different orders):
 * each is within γ_rows·(|A|ᵀ|A|)_ij of the exact value (γ_k ≈ k·eps), so they differ by at most
 * 2·rows·eps·(|A|ᵀ|A|)_ij (+ one rounding of the final scaling).
 */
function expectGramClose(G: Float64Array, A: Float64Array, rows: number, cols: number): void {
  const ref = naiveGram(A, rows, cols);
  const scale = absGram(A, rows, cols);
  for (let k = 0; k < G.length; k++) {
    const bound = (2 * rows + 2) * EPS * scale[k]!;
    expect(Math.abs(G[k]! - ref[k]!), `entry ${k}`).toBeLessThanOrEqual(bound);
  }
}

describeBackends(LINALG_BACKENDS, 'gram (%s)', (backend) => {
  it('size-0: no columns gives an empty G; no rows gives zeros', () => {
    expect(gram(new Float64Array(0), 0, 0, { backend })).toEqual(new Float64Array(0));
    expect(gram(new Float64Array(0), 0, 3, { backend })).toEqual(new Float64Array(9));
  });

  it('1x1: a² exactly', () => {
    expect(gram([3], 1, 1, { backend })).toEqual(Float64Array.of(9));
  });

  it('integer matrices: every product and partial sum is an exact integer < 2^53, so G is exact', () => {
    // Sizes cover the 4×4 tiles' padding (cols not a multiple of 4) and several row chunks.
    for (const [rows, cols] of [
      [7, 5],
      [300, 13],
      [1100, 9],
      [600, 12], // cols a multiple of 4 <= 128: the no-pack kernel
      [300, 128],
    ] as const) {
      const A = rankLoss(11, rows, cols, 0, 1, 2);
      expect(gram(A, rows, cols, { backend })).toEqual(naiveGram(A, rows, cols));
    }
  });

  it('random normal 200×37: within 2·rows·eps·(|A|ᵀ|A|) of the naive sum; exactly symmetric', () => {
    const rows = 200;
    const cols = 37;
    const A = randn(5, rows * cols);
    const G = gram(A, rows, cols, { backend });
    expectGramClose(G, A, rows, cols);
    for (let i = 0; i < cols; i++) for (let j = 0; j < cols; j++) expect(G[i * cols + j]).toBe(G[j * cols + i]);
  });

  it('scaled: entries 1e±200 give s²·G, not Infinity or 0 (power-of-two scaling inside)', () => {
    const rows = 40;
    const cols = 6;
    const A = randn(8, rows * cols);
    const G1 = gram(A, rows, cols, { backend });
    for (const s of [1e-150, 1e150, 2 ** -500]) {
      const As = A.map((x) => x * s);
      const Gs = gram(As, rows, cols, { backend });
      const scale = absGram(A, rows, cols);
      // As = s·A up to one rounding per entry (relative eps/2 each, so products 2·eps/2 relative),
      // plus the 2·rows·eps summation difference: bound (2·rows + 4)·eps·(|A|ᵀ|A|)·s².
      for (let k = 0; k < G1.length; k++)
        expect(Math.abs(Gs[k]! / (s * s) - G1[k]!)).toBeLessThanOrEqual((2 * rows + 4) * EPS * scale[k]!);
    }
  });

  fcTest.prop([fc.integer({ min: -450, max: 450 }), fc.constantFrom<[number, number]>([40, 6], [300, 8], [90, 20])])(
    'power-of-two scaling is exact: gram(2^e·A) = 4^e·gram(A), inside the unscaled band and beyond it',
    (e, [rows, cols]) => {
      // |a| in [2^-8, 8]: products 2^2e·a·b stay normal for |e| <= 450 (>= 2^-916), and multiplying
      // by 2^e is exact, so the scaled and unscaled sums see the same significands in the same
      // order: equality, not a tolerance, whichever path (|e| <= 256: unscaled) the kernel takes.
      const A = randn(rows + cols, rows * cols).map((x) => Math.sign(x) * Math.min(8, Math.max(2 ** -8, Math.abs(x))));
      const G = gram(A, rows, cols, { backend });
      const Gs = gram(
        A.map((x) => x * 2 ** e),
        rows,
        cols,
        { backend },
      );
      expect(Gs).toEqual(G.map((x) => x * 4 ** e));
    },
  );

  it('options.out: written in place and returned; a bad out or a failing call leaves it untouched', () => {
    const out = new Float64Array(4).fill(7);
    expect(gram([1, 2, 3, 4], 2, 2, { backend, out })).toBe(out);
    expect(out).toEqual(Float64Array.of(10, 14, 14, 20));
    out.fill(7);
    expect(() => gram([1, 2, 3, NaN], 2, 2, { backend, out })).toThrow(/A\[1\]\[1\] = NaN/);
    expect(() => gram([1e200, 1e200], 2, 1, { backend, out: out.subarray(0, 1) })).toThrow(/overflows/);
    expect(out).toEqual(new Float64Array(4).fill(7));
    expect(() => gram([1, 2, 3, 4], 2, 2, { backend, out: new Float64Array(3) })).toThrow(
      /options\.out = .*must hold cols² = 4 values, got 3/,
    );
    expect(() => gram([1, 2, 3, 4], 2, 2, { backend, out: [0, 0, 0, 0] as unknown as Float64Array })).toThrow(
      /options\.out = .*must be a Float64Array/,
    );
    const M = new Matrix([[1, 2]]);
    expect(() => gram(M, { backend, out } as never)).toThrow(/options\.out = .*Float64Array input/);
  });

  it('a NaN or Infinity deep in a tall matrix (several row chunks, both kernels) is named; out untouched', () => {
    for (const [rows, cols] of bothKernels(1000, 700)) {
      const A = randn(3, rows * cols);
      const out = new Float64Array(cols * cols).fill(-1);
      A[650 * cols + 5] = NaN;
      expect(() => gram(A, rows, cols, { backend, out })).toThrow(/A\[650\]\[5\] = NaN: must be finite/);
      A[650 * cols + 5] = -Infinity;
      expect(() => gram(A, rows, cols, { backend, out })).toThrow(/A\[650\]\[5\] = -Infinity/);
      expect(out.every((x) => x === -1)).toBe(true);
    }
  });

  it('a Gramian that overflows f64 is an error naming A, not a matrix of Infinity', () => {
    const A = Float64Array.of(1e200, 1e200);
    expect(() => gram(A, 2, 1, { backend })).toThrow(/A = .*Gramian overflows f64/);
  });

  it('NaN/Infinity are rejected with the entry named', () => {
    expect(() => gram([1, NaN, 3, 4], 2, 2, { backend })).toThrow(/A\[0\]\[1\] = NaN: must be finite/);
    expect(() => gram([1, 2, Infinity, 4], 2, 2, { backend })).toThrow(/A\[1\]\[0\] = Infinity/);
    expect(() => gram([1, 2, 3], 2, 2, { backend })).toThrow(/must hold rows·cols/);
  });

  it('ml-matrix in, ml-matrix out', () => {
    const G = gram(
      new Matrix([
        [1, 2],
        [3, 4],
      ]),
      { backend },
    );
    expect(G).toBeInstanceOf(Matrix);
    expect(G.to2DArray()).toEqual([
      [10, 14],
      [14, 20],
    ]);
  });

  it('gramAccumulate: G += w·AᵀA; a failing call leaves G untouched', () => {
    const G = Float64Array.of(1, 0, 0, 1);
    gramAccumulate(G, [1, 2, 3, 4], 2, 2, 0.5, { backend });
    expect(G).toEqual(Float64Array.of(6, 7, 7, 11));
    const before = Float64Array.from(G);
    expect(() => gramAccumulate(G, [1, 2, 3, NaN], 2, 2, 1, { backend })).toThrow(/A\[1\]\[1\]/);
    expect(() => gramAccumulate(G, [1, 2, 3, 4], 2, 2, NaN, { backend })).toThrow(/weight = NaN/);
    expect(() => gramAccumulate(G, [1e300, 1e300], 2, 1, 1, { backend })).toThrow(); // wrong G shape
    expect(() => gramAccumulate(Float64Array.of(1), [1e200, 1e200], 2, 1, 1, { backend })).toThrow(/overflows/);
    expect(G).toEqual(before);
    const Gm = new Matrix([
      [0, 0],
      [0, 0],
    ]);
    gramAccumulate(
      Gm,
      new Matrix([
        [1, 2],
        [3, 4],
      ]),
      2,
      { backend },
    );
    expect(Gm.to2DArray()).toEqual([
      [20, 28],
      [28, 40],
    ]);
  });

  // Properties from the definition G = AᵀA.
  // Moderate values: 0 or |v| in [1e-100, 100], so every product is a normal number and the
  // relative rounding model (no underflow term) behind the eps bounds holds.
  const small = fc
    .double({ min: -100, max: 100, noNaN: true, noDefaultInfinity: true })
    .filter((v) => v === 0 || Math.abs(v) >= 1e-100);
  const shaped = fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 9 }))
    .chain(([r, c]) =>
      fc.tuple(fc.constant(r), fc.constant(c), fc.array(small, { minLength: r * c, maxLength: r * c })),
    );

  fcTest.prop([shaped, fc.array(small, { minLength: 9, maxLength: 9 })], {
    // products that underflow to subnormals (found by the property: the bound needs its η term)
    examples: [
      [
        [4, 1, [-8.338491971695456e-63, 0, 0, 3.165391525970665e-64]],
        [2.375065999213352e-99, 0, 0, 0, 0, 0, 0, 0, 0],
      ],
    ],
  })('xᵀGx = ||Ax||² (so G is PSD) within the summation bounds', ([rows, cols, a], xs) => {
    const A = Float64Array.from(a);
    const x = Float64Array.from(xs.slice(0, cols));
    const G = gram(A, rows, cols, { backend });
    let xGx = 0;
    let absScale = 0;
    for (let i = 0; i < cols; i++)
      for (let j = 0; j < cols; j++) {
        xGx += x[i]! * G[i * cols + j]! * x[j]!;
        absScale += Math.abs(x[i]!) * Math.abs(x[j]!);
      }
    let ax2 = 0;
    let rowAbs = 0;
    for (let r = 0; r < rows; r++) {
      let s = 0;
      let sa = 0;
      for (let j = 0; j < cols; j++) {
        s += A[r * cols + j]! * x[j]!;
        sa += Math.abs(A[r * cols + j]! * x[j]!);
      }
      ax2 += s * s;
      rowAbs += sa * sa;
    }
    // Both sides are sums of O(rows + cols²) rounded terms of size <= Σ_r (Σ_j|a_rj x_j|)²:
    // bound 4·(rows + cols² + 2)·eps times that scale. Products that underflow (a ~ 1e-63 times
    // x ~ 1e-99, squared) add an absolute error of at most half the subnormal spacing 2^-1074
    // per rounding (fl(x∘y) = (x∘y)(1 + δ) + η, |η| <= 2^-1075): the same count of those.
    const amax2 = Math.max(...A.map(Math.abs)) ** 2;
    const bound = 4 * (rows + cols * cols + 2) * (EPS * Math.max(rowAbs, absScale * amax2 * rows) + Number.MIN_VALUE);
    expect(Math.abs(xGx - ax2)).toBeLessThanOrEqual(bound);
  });

  fcTest.prop([shaped, fc.integer({ min: 0, max: 12 })])(
    'G(A) = G(A[:k]) + G(A[k:]) (gramAccumulate over a row split)',
    ([rows, cols, a], k0) => {
      const A = Float64Array.from(a);
      const k = Math.min(k0, rows);
      const G = new Float64Array(cols * cols);
      gramAccumulate(G, A.subarray(0, k * cols), k, cols, 1, { backend });
      gramAccumulate(G, A.subarray(k * cols), rows - k, cols, 1, { backend });
      expectGramClose(G, A, rows, cols);
    },
  );
});

describe('gram: wasm kernel and TypeScript reference agree', () => {
  it('twins by contract: the same bits at weight 1 and scale 1 (each entry a sum in row order from +0), both kernels, chunks and padding', () => {
    for (const [rows, cols] of [
      [513, 70], // packed panels, padding, chunks
      [700, 128], // the no-pack kernel
      [300, 257],
    ] as const) {
      const A = randn(rows + cols, rows * cols);
      const [ref, wa] = [LINALG.reference, LINALG.wasm].map((b) => {
        const G = new Float64Array(cols * cols);
        b.syrk({ A, rows, cols, scale: 1, weight: 1, G, overwrite: true, accept: () => true });
        return G;
      });
      expect(wa).toEqual(ref);
    }
  });

  it('random 513×70 (tiles, padding, chunks): equal within 2·rows·eps·(|A|ᵀ|A|)', () => {
    const rows = 513;
    const cols = 70;
    const A = randn(21, rows * cols);
    const Gw = gram(A, rows, cols, { backend: 'wasm' });
    const Gr = gram(A, rows, cols, { backend: 'reference' });
    const scale = absGram(A, rows, cols);
    for (let k = 0; k < Gw.length; k++)
      expect(Math.abs(Gw[k]! - Gr[k]!)).toBeLessThanOrEqual(2 * rows * EPS * scale[k]!);
  });
});

describe('the two Gramian kernels (wasm): packed panels and in-place slices', () => {
  it('dsyrkDirectRows equals dsyrkTiles bit for bit (same products, same order), any cols % 4 = 0', () => {
    const k = linalgKernels();
    for (const [rows, cols, kc] of [
      [300, 8, 64],
      [513, 128, 256],
      [200, 256, 128],
    ] as const) {
      const A = randn(cols, rows * cols);
      const [direct, packed, fused] = wasm().arena.scope((s) => {
        const a = s.from(A);
        const W1 = s.alloc(cols * cols, 0);
        const W2 = s.alloc(cols * cols, 0);
        const P = s.alloc(kc * cols);
        const W3 = s.alloc(cols * cols, 0);
        const m1 = k.dsyrkDirectRows(a.ptr, rows, cols, kc, W1.ptr, 0, cols / 4, 0);
        const m2 = k.dsyrkTiles(a.ptr, rows, cols, 1, W2.ptr, P.ptr, kc, 0, cols / 4);
        const m3 = k.dsyrkDirectRows(a.ptr, rows, cols, kc, W3.ptr, 0, cols / 4, 1); // scan in the diagonal tiles
        // every scan sees every entry: max|a_ij|
        expect(m1).toBe(Math.max(...A.map(Math.abs)));
        expect(m2).toBe(m1);
        expect(m3).toBe(m1);
        return [W1.toFloat64Array(), W2.toFloat64Array(), W3.toFloat64Array()];
      });
      expect(direct).toEqual(packed);
      expect(fused).toEqual(direct);
    }
  });
});

describe('gram on two threads (shared wasm memory)', () => {
  usePool(2);

  it('the pool runs: two threads', () => {
    expect(threadCount()).toBe(2);
  });

  fcTest.prop([
    fc.integer({ min: 1, max: 200_000 }),
    fc.constantFrom(16, 64, 128, 256, 512),
    fc.integer({ min: 2, max: 8 }),
  ])(
    'unitRows: whole chunks covering every row once, largest first, within the unit and memory caps',
    (rows, kc, threads) => {
      const mp = Math.max(4, Math.floor(32768 / kc)); // the mp that gives this kc (syrkChunkRows)
      const b = unitRows(rows, kc, threads, mp);
      expect(b[0]).toBe(0);
      expect(b[b.length - 1]).toBe(rows);
      const sizes = b.slice(1).map((x, i) => x - b[i]!);
      for (let i = 0; i + 1 < b.length - 1; i++) expect(b[i + 1]! % kc).toBe(0); // chunk boundaries
      for (let i = 1; i + 1 < sizes.length; i++) expect(sizes[i]!).toBeLessThanOrEqual(sizes[i - 1]!);
      expect(sizes.every((x) => x > 0)).toBe(true);
      expect(sizes.length).toBeLessThanOrEqual(8 * threads);
      expect(sizes.length).toBeLessThanOrEqual(Math.max(threads, Math.floor(2 ** 21 / mp ** 2)));
    },
  );

  it('an update that overflows on two threads is refused and leaves G untouched (the non-finite count of the last step)', () => {
    const [rows, cols] = [600, 40];
    const A = randn(6, rows * cols);
    A[5 * cols + 7] = 1e200; // G[7][7] and G[7][j], G[j][7] overflow or not: (A[5][7])² = 1e400
    const G = new Float64Array(cols * cols).fill(3);
    expect(() => gramAccumulate(G, A, rows, cols, 1, { backend: 'wasm', threads: 2 })).toThrow(/overflows/);
    expect(G.every((x) => x === 3)).toBe(true);
  });

  it('a claim for a finished job neither runs nor uses up a unit of the next job', () => {
    // The pool protocol on a private control block: job g with 2 units, then job g + 1.
    const p: Pool = { workers: [], ctl: new Int32Array(new SharedArrayBuffer(4 * 5)), args: new Float64Array(16) };
    const g = publishJob(p);
    expect([claimUnit(p, g, 2), claimUnit(p, g, 2), claimUnit(p, g, 2)]).toEqual([0, 1, -1]);
    const next = publishJob(p);
    expect(claimUnit(p, g, 2)).toBe(-1); // a worker of job g, late: must not take unit 0 of job g + 1
    expect([claimUnit(p, next, 2), claimUnit(p, next, 2), claimUnit(p, next, 2)]).toEqual([0, 1, -1]);
  });

  it('a finished job is closed: a late worker with its generation and the next job’s unit count claims nothing', () => {
    // Job g has 1 unit, run by the caller; the caller then writes the next job's arguments (4
    // units) before publishing it. A worker that woke for g reads that 4 with generation g: the
    // closed claim word must refuse it (CI once saw a finish unit run twice this way).
    const p: Pool = { workers: [], ctl: new Int32Array(new SharedArrayBuffer(4 * 5)), args: new Float64Array(16) };
    const g = publishJob(p);
    expect(claimUnit(p, g, 1)).toBe(0);
    finishJob(p, g, 1, 1);
    expect(claimUnit(p, g, 4)).toBe(-1);
    const next = publishJob(p);
    expect(claimUnit(p, next, 4)).toBe(0);
  });

  /** Two-thread and one-thread Gramians: each a sum of `rows` products per entry, grouped differently. */
  function expectThreadsAgree(G2: Float64Array, G1: Float64Array, A: Float64Array, rows: number, cols: number): void {
    // Both are within γ_rows·(|A|ᵀ|A|)_ij of the exact AᵀA (recursive summation, γ_k <= k·eps/(1 − k·eps)):
    // they differ by at most 2·rows·eps·(|A|ᵀ|A|)_ij (+ the final scaling's rounding, in the + 2).
    const scale = absGram(A, rows, cols);
    for (let k = 0; k < G1.length; k++)
      expect(Math.abs(G2[k]! - G1[k]!), `entry ${k}`).toBeLessThanOrEqual((2 * rows + 2) * EPS * scale[k]!);
  }

  it('two threads: the one-thread result within the summation bound, and the same bits on every run', () => {
    for (const [rows, cols] of [
      [300, 61],
      [1000, 128], // no-pack kernel
      [17, 3],
      [700, 256], // packed kernel
      [2000, 64],
    ] as const) {
      const A = randn(rows + cols, rows * cols);
      const G1 = gram(A, rows, cols, { backend: 'wasm', threads: 1 });
      const G2 = gram(A, rows, cols, { backend: 'wasm', threads: 2 });
      expectThreadsAgree(G2, G1, A, rows, cols);
      // Per-unit sums are added in unit order: which thread ran which unit cannot change a bit.
      for (let i = 0; i < 5; i++) expect(gram(A, rows, cols, { backend: 'wasm', threads: 2 })).toEqual(G2);
      for (let i = 0; i < cols; i++) for (let j = 0; j < cols; j++) expect(G2[i * cols + j]).toBe(G2[j * cols + i]); // exactly symmetric
      const G = Float64Array.from(G2);
      gramAccumulate(G, A, rows, cols, 0.25, { backend: 'wasm', threads: 2 });
      const expected = G2.map((x) => x + x * 0.25);
      // G2 + 0.25·G2: one rounding in the sum: eps/2 relative.
      for (let k = 0; k < G.length; k++)
        expect(Math.abs(G[k]! - expected[k]!)).toBeLessThanOrEqual(EPS * Math.abs(expected[k]!));
    }
  });

  it('integer matrices on two threads: exact, like one thread (every partial sum is an integer < 2^53)', () => {
    for (const [rows, cols] of [
      [3000, 12],
      [1500, 70],
    ] as const) {
      const A = rankLoss(13, rows, cols, 0, 1, 2);
      expect(gram(A, rows, cols, { backend: 'wasm', threads: 2 })).toEqual(naiveGram(A, rows, cols));
    }
  });

  it('entries ~2^300 (outside the unscaled band: the scaled path, both kernels): 4^300 times the unscaled result', () => {
    for (const [rows, cols] of bothKernels(600, 300)) {
      const A = randn(9, rows * cols);
      const G = gram(A, rows, cols, { backend: 'wasm', threads: 2 });
      const Gs = gram(
        A.map((x) => x * 2 ** 300),
        rows,
        cols,
        { backend: 'wasm', threads: 2 },
      );
      expect(Gs).toEqual(G.map((x) => x * 4 ** 300)); // power-of-two scaling is exact
    }
  });

  it('edge shapes on two threads: no rows, one row, fewer chunks than threads', () => {
    expect(gram(new Float64Array(0), 0, 5, { backend: 'wasm', threads: 2 })).toEqual(new Float64Array(25));
    expect(gram([1, 2, 3], 1, 3, { backend: 'wasm', threads: 2 })).toEqual(Float64Array.of(1, 2, 3, 2, 4, 6, 3, 6, 9));
    const G = new Float64Array(4);
    gramAccumulate(G, [1, 2, 3, 4], 2, 2, 2, { backend: 'wasm', threads: 2 });
    expect(G).toEqual(Float64Array.of(20, 28, 28, 40));
  });

  it('a NaN deep in A on two threads is named, and G is left untouched', () => {
    const [rows, cols] = [900, 96];
    const A = randn(4, rows * cols);
    A[777 * cols + 90] = NaN;
    const G = new Float64Array(cols * cols).fill(2);
    expect(() => gramAccumulate(G, A, rows, cols, 1, { backend: 'wasm', threads: 2 })).toThrow(/A\[777\]\[90\] = NaN/);
    expect(G.every((x) => x === 2)).toBe(true);
  });

  it('repeated jobs (units claimed dynamically by whichever thread is free): always the same bits', () => {
    const rows = 64;
    const cols = 40;
    const A = randn(5, rows * cols);
    const G1 = gram(A, rows, cols, { backend: 'wasm', threads: 2 });
    // Back-to-back jobs also exercise the claim protocol's race: a worker that finishes its last
    // unit tries one more claim, possibly after the caller has published the next job; with an
    // unconditional increment that claim used up a unit of the new job and the caller waited
    // forever (seen as a hang in benchmarks). Claims are compare-and-swap on (generation, unit).
    for (let i = 0; i < 300; i++) expect(gram(A, rows, cols, { backend: 'wasm', threads: 2 })).toEqual(G1);
    const [r2, c2] = [2048, 128];
    const B = randn(6, r2 * c2);
    const H1 = gram(B, r2, c2, { backend: 'wasm', threads: 2 });
    for (let i = 0; i < 60; i++) expect(gram(B, r2, c2, { backend: 'wasm', threads: 2 })).toEqual(H1);
    // Which thread ran which unit varies from call to call (lastCallerUnits() tells how many the
    // caller ran, out of min(chunks, 4·threads) = 8 here); the result may not.
    expect(lastCallerUnits()).toBeGreaterThanOrEqual(0);
    expect(lastCallerUnits()).toBeLessThanOrEqual(8);
  });

  it('threads > 1 without a pool is an error naming options.threads', async () => {
    await stopThreads();
    expect(() => gram([1], 1, 1, { threads: 2 })).toThrow(/options\.threads = 2: needs a running pool/);
    await startThreads(2);
  });
});

/** Runs `fn` on a copy of `values` in an F64Block (wasm memory), freed when `fn` returns or throws. */
function withBlock(values: Float64Array, fn: (block: F64Block) => void): void {
  wasm().arena.scope((s) => fn(s.from(values)));
}

describe('gram of an F64Block: A already in wasm memory is read in place', () => {
  usePool(2);

  /** Bytes the arena had to find for the call beyond what was in use before it. */
  function peakOf(call: () => unknown): number {
    const { arena } = wasm();
    const before = arena.bytesInUse;
    arena.resetPeak();
    call();
    return arena.peakBytes - before;
  }

  // cols = 128: the no-pack kernel (one thread reads in place from 64 up to 128 columns);
  // cols = 70: the packed kernel. 700 rows are several chunks of either.
  it.each([
    [700, 128, 1],
    [700, 70, 1],
    [700, 128, 2],
    [700, 70, 2],
  ])('%i×%i on %i thread(s): the bits of the copied path, no copy of A, the block unchanged', (rows, cols, threads) => {
    const A = randn(12, rows * cols);
    withBlock(A, (block) => {
      const heap = new Float64Array(cols * cols);
      const resident = new Float64Array(cols * cols);
      const heapPeak = peakOf(() => gram(A, rows, cols, { backend: 'wasm', threads, out: heap }));
      const residentPeak = peakOf(() => gram(block, rows, cols, { backend: 'wasm', threads, out: resident }));
      expect(resident).toEqual(heap);
      // The copied path stages kc rows (one thread) or copies all of A (threads); in place, not.
      const staged = threads === 1 ? Math.min(syrkChunkRows(cols), rows) * cols * 8 : rows * cols * 8;
      expect(heapPeak - residentPeak).toBeGreaterThanOrEqual(staged);
      expect(block.view).toEqual(A);
      // a view of the block (here a subarray of its first rows) is read in place too
      const half = rows >> 1;
      const sub = block.view.subarray(0, half * cols);
      const viewPeak = peakOf(() => gram(sub, half, cols, { backend: 'wasm', threads, out: resident }));
      expect(resident).toEqual(gram(A.subarray(0, half * cols), half, cols, { backend: 'wasm', threads }));
      expect(viewPeak).toBeLessThan(heapPeak);
    });
  });

  it.each([1, 2])('entries ~2^300 on %i thread(s): scaled right, and the block itself is not scaled', (threads) => {
    const [rows, cols] = [600, 128];
    const A = randn(9, rows * cols);
    const big = A.map((x) => x * 2 ** 300);
    withBlock(big, (block) => {
      const G = gram(A, rows, cols, { backend: 'wasm', threads });
      expect(gram(block, rows, cols, { backend: 'wasm', threads })).toEqual(G.map((x) => x * 4 ** 300));
      expect(block.view).toEqual(big);
    });
  });

  it.each([1, 2])('a NaN in the block on %i thread(s) is named, and G is left untouched', (threads) => {
    const [rows, cols] = [900, 96];
    const A = randn(4, rows * cols);
    A[777 * cols + 90] = NaN;
    withBlock(A, (block) => {
      const G = new Float64Array(cols * cols).fill(2);
      expect(() => gramAccumulate(G, block, rows, cols, 1, { backend: 'wasm', threads })).toThrow(
        /A\[777\]\[90\] = NaN/,
      );
      expect(G.every((x) => x === 2)).toBe(true);
    });
  });

  it('gramAccumulate of a block: G + w·AᵀA, the same bits as from a Float64Array', () => {
    const [rows, cols] = [300, 64];
    const A = randn(3, rows * cols);
    withBlock(A, (block) => {
      const G1 = Float64Array.from(randn(5, cols * cols));
      const G2 = Float64Array.from(G1);
      gramAccumulate(G1, A, rows, cols, 0.25, { backend: 'wasm', threads: 1 });
      gramAccumulate(G2, block, rows, cols, 0.25, { backend: 'wasm', threads: 1 });
      expect(G2).toEqual(G1);
      // and on the reference backend, which reads the block's view like any array
      expect(gram(block, rows, cols, { backend: 'reference' })).toEqual(gram(A, rows, cols, { backend: 'reference' }));
    });
  });

  it('a freed block, or a view of one, is an error naming A; nothing is written', () => {
    const { arena } = wasm();
    const block = arena.alloc(8, 1);
    const view = block.view;
    arena.free(block);
    const G = new Float64Array(4).fill(3);
    expect(() => gram(block, 4, 2)).toThrow(/^A = .*: is an F64Block that was already freed/);
    expect(() => gramAccumulate(G, view, 4, 2, 1, { backend: 'wasm', threads: 1 })).toThrow(
      /^A = Float64Array.*: is a view onto bytes \[\d+, \d+\) of wasm memory, which are not allocated/,
    );
    expect(() => gramAccumulate(G, view, 4, 2, 1, { backend: 'wasm', threads: 2 })).toThrow(/not allocated/);
    expect(G.every((x) => x === 3)).toBe(true);
  });
});
