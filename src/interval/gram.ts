/**
 * The interval Gramian G = Σ_e p_e JᵀJ of interval matrices J_e (d × m, e.g. the columns of DF_e
 * along a coordinate block) with weights p_e > 0, in outward-rounded interval arithmetic: every
 * product, weighted item and sum is rounded outward, so G contains Σ_e p_e J_eᵀJ_e for every
 * choice of J_e inside its enclosure. Entries of J_e that are exactly the point 0 are skipped (the
 * cost follows the nonzeros, and an exact 0 adds nothing), so an entry of G no item touched stays
 * exactly 0, and a column that is exactly 0 for every item is known as such (`zeroColumn`).
 */
import { R, mul, scale, square } from './arith.js';
import type { JacobianEnclosure } from './intervalTf.js';
import { midRad, type MidRad } from './matrixBounds.js';
import { accumulate } from './tfReduce.js';

/** The interval Gramian Σ_e p_e JᵀJ (m × m, symmetric; the upper triangle is kept) and its exact zero columns. */
export interface IntervalGram {
  /** Order of G: the columns of every J. */
  m: number;
  /** Lower ends of G's upper triangle (row-major m × m; the lower triangle stays 0). */
  lo: Float64Array;
  /** Upper ends of G's upper triangle. */
  hi: Float64Array;
  /** 1 while column j of every item added so far is exactly the point 0. */
  zeroColumn: Uint8Array;
  /** One item's JᵀJ (upper triangle) before weighting, and the entries it touched (scratch). */
  itemLo: Float64Array;
  itemHi: Float64Array;
  touched: number[];
}

const isZero = (l: number, h: number) => l === 0 && h === 0;

/** An empty interval Gramian of order m (G = 0, every column still exactly 0). */
export function newGram(m: number): IntervalGram {
  const z = () => new Float64Array(m * m);
  return { m, lo: z(), hi: z(), zeroColumn: new Uint8Array(m).fill(1), itemLo: z(), itemHi: z(), touched: [] };
}

/**
 * G += p·JᵀJ (upper triangle) for one item's interval matrix J (J.rows × g.m), with every
 * product, the weighting by p and every sum rounded outward; exact zero entries of J are skipped
 * and mark nothing, nonzero ones clear their column's `zeroColumn`. p is taken as given (the
 * caller skips items with p <= 0); a NaN or infinite entry of J makes G non-finite.
 */
export function addItem(g: IntervalGram, J: JacobianEnclosure, p: number): void {
  const { m, itemLo, itemHi, touched } = g;
  const nz: number[] = [];
  for (let r = 0; r < J.rows; r++) {
    nz.length = 0;
    for (let c = 0; c < m; c++) if (!isZero(J.lo[r * m + c]!, J.hi[r * m + c]!)) nz.push(c);
    for (let x = 0; x < nz.length; x++) {
      const a = nz[x]!;
      g.zeroColumn[a] = 0;
      for (let y = x; y < nz.length; y++) {
        const b = nz[y]!;
        if (a === b) square(J.lo[r * m + a]!, J.hi[r * m + a]!);
        else mul(J.lo[r * m + a]!, J.hi[r * m + a]!, J.lo[r * m + b]!, J.hi[r * m + b]!);
        const k = a * m + b;
        if (isZero(itemLo[k]!, itemHi[k]!)) touched.push(k);
        accumulate(itemLo, itemHi, k, R.lo, R.hi);
      }
    }
  }
  for (const k of touched) {
    scale(itemLo[k]!, itemHi[k]!, p);
    accumulate(g.lo, g.hi, k, R.lo, R.hi);
    itemLo[k] = itemHi[k] = 0;
  }
  touched.length = 0;
}

/**
 * The midpoint–radius form (src/interval/matrixBounds.ts, `midRad`) of G restricted to the
 * indices `keep` (default all m, in order), the upper triangle mirrored: the symmetric
 * n × n input of `lambdaMinAbove` / `lambdaMinLower`, n = keep.length.
 */
export function gramMidRad(g: IntervalGram, keep?: readonly number[]): MidRad & { n: number } {
  const idx = keep ?? Array.from({ length: g.m }, (_, j) => j);
  const n = idx.length;
  const lo = new Float64Array(n * n);
  const hi = new Float64Array(n * n);
  idx.forEach((a, i) =>
    idx.forEach((b, j) => {
      const k = a <= b ? a * g.m + b : b * g.m + a;
      lo[i * n + j] = g.lo[k]!;
      hi[i * n + j] = g.hi[k]!;
    }),
  );
  return { ...midRad(lo, hi), n };
}
