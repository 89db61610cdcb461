import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsrBuilder, syntheticProblem } from '../../../src/graph/scenarios/synthetic.js';

/** The rows as maps (a column written again keeps its last value), read out sorted: the CSR the builder must give. */
function mapOracle(n: number, writes: readonly (readonly [number, number, number])[]) {
  const rows = Array.from({ length: n }, () => new Map<number, number>());
  for (const [j, i, w] of writes) rows[j]!.set(i, w);
  const rowStart = new Int32Array(n + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  rows.forEach((m, j) => {
    rowStart[j] = cols.length;
    for (const [i, w] of [...m.entries()].sort((a, b) => a[0] - b[0])) {
      cols.push(i);
      vals.push(w);
    }
  });
  rowStart[n] = cols.length;
  return { rowStart, cols: Int32Array.from(cols), vals: Float64Array.from(vals) };
}

describe('CsrBuilder', () => {
  it('gives the rows a map per row gives: columns sorted, a column written again keeps its last value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.double({ noNaN: true })), { maxLength: 60 }),
        (n, raw) => {
          // rows ascending (the builder's one precondition), columns in any order and repeated
          const writes = raw.map(([j, i, w]) => [j % n, i % 7, w] as const).sort((a, b) => a[0] - b[0]);
          const b = new CsrBuilder(n, writes.length);
          for (const [j, i, w] of writes) b.set(j, i, w);
          expect(b.finish()).toEqual(mapOracle(n, writes));
        },
      ),
    );
  });
});

describe('syntheticProblem', () => {
  const sizes = [
    [20, 1],
    [257, 4],
    [4096, 10],
  ] as const;
  it('rows strictly ascending, inside Nmax, and the same arrays for the same seed (Nmax 20, 257, 4096)', () => {
    for (const [n, epn] of sizes) checkProblem(n, epn);
  });
});

function checkProblem(n: number, epn: number) {
  const a = syntheticProblem(n, 8, epn, 3);
  const b = syntheticProblem(n, 8, epn, 3);
  expect(a.state.edges).toEqual(b.state.edges);
  let nnz = 0;
  for (const blk of a.state.edges) {
    expect(blk.rowStart.length).toBe(n + 1);
    expect(blk.rowStart[0]).toBe(0);
    expect(blk.rowStart[n]).toBe(blk.cols.length);
    let bad = 0;
    for (let j = 0; j < n; j++) {
      if (blk.rowStart[j + 1]! < blk.rowStart[j]!) bad++;
      for (let e = blk.rowStart[j]!; e < blk.rowStart[j + 1]!; e++) {
        const i = blk.cols[e]!;
        if (i < 0 || i >= n || (e > blk.rowStart[j]! && i <= blk.cols[e - 1]!)) bad++;
      }
    }
    expect(bad).toBe(0);
    nnz += blk.cols.length;
  }
  expect(a.nnz).toBe(nnz);
}
