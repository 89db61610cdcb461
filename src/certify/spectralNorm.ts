/**
 * Spectral norms of Jacobian blocks for the certification: ‖J_{W,W}‖₂ exactly by power iteration
 * on the block's non-zeros (from its columns), and a lower bound from JVPs only when the block is
 * too large for its columns. The contraction check's local norm ‖Dg‖₂ (Sec. 3.1), the global
 * scale ‖DQ‖·max‖DP_e‖ of every non-degeneracy tolerance (Prop. 5.2) and ‖DP_e‖ come from here.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { sparseFromDense, withPositions } from '../linearize/sparse.js';
import type { SparseVector } from '../system/types.js';
import type { Rng } from '../ordergap/rng.js';

/** A power iteration's result: the norm (or its lower bound), the top right singular vector, the steps. */
export interface PowerIteration {
  norm: number;
  vector: Float64Array;
  iterations: number;
}

/** A matrix by rows: row r's entries are col/val[start[r], start[r + 1]), columns ascending. */
export interface RowMatrix {
  start: Int32Array;
  col: Int32Array;
  val: Float64Array;
}

/**
 * ‖A‖₂ of a dense rows×cols matrix (row-major) by power iteration on AᵀA: {@link spectralNormSparse}
 * on its non-zeros (the same sums bit for bit: a zero entry adds an exact zero).
 */
export function spectralNormDense(A: Float64Array, rows: number, cols: number, random: Rng): PowerIteration {
  const start = new Int32Array(rows + 1);
  for (let r = 0; r < rows; r++) {
    let c = 0;
    for (let k = 0; k < cols; k++) if (A[r * cols + k] !== 0) c++;
    start[r + 1] = start[r]! + c;
  }
  const col = new Int32Array(start[rows]!);
  const val = new Float64Array(start[rows]!);
  for (let r = 0, at = 0; r < rows; r++)
    for (let k = 0; k < cols; k++) {
      const a = A[r * cols + k]!;
      if (a !== 0) {
        col[at] = k;
        val[at++] = a;
      }
    }
  return spectralNormSparse({ start, col, val }, rows, cols, random);
}

/**
 * The block J_{W,W} (rows and columns W, in W's order) by rows, from J's columns (prefetched in
 * one batch); exact zeros are not stored, so the power iteration on it gives the dense block's
 * sums bit for bit at O(nnz) per step. Cost: |W| columns of J (cached ones are free).
 */
export function blockRows(J: JacobianOperator, W: ArrayLike<number>): RowMatrix {
  const m = W.length;
  J.prefetch(Array.from(W));
  const cols = Array.from({ length: m }, (_, c) => J.column(W[c]!));
  return withPositions(W, Math.max(J.dim, J.outDim), (pos) => {
    const start = new Int32Array(m + 1);
    for (const col of cols)
      for (let k = 0; k < col.index.length; k++) {
        const r = pos[col.index[k]!]!;
        if (r >= 0 && col.value[k] !== 0) start[r + 1]!++;
      }
    for (let r = 0; r < m; r++) start[r + 1]! += start[r]!;
    const fill = start.slice(0, m);
    const colIdx = new Int32Array(start[m]!);
    const vals = new Float64Array(start[m]!);
    cols.forEach((col, c) => {
      for (let k = 0; k < col.index.length; k++) {
        const r = pos[col.index[k]!]!;
        if (r >= 0 && col.value[k] !== 0) {
          colIdx[fill[r]!] = c; // columns visited ascending: each row's entries ascending
          vals[fill[r]!++] = col.value[k]!;
        }
      }
    });
    return { start, col: colIdx, val: vals };
  });
}

/**
 * ‖A‖₂ of a rows×cols matrix stored by rows, by power iteration on AᵀA (at most 500 steps, stops
 * when the estimate changes by < 1e-14 relative); returns the top right singular vector.
 * Cost O(nnz) per step.
 */
export function spectralNormSparse(A: RowMatrix, rows: number, cols: number, random: Rng): PowerIteration {
  const { start, col, val } = A;
  const v = random.fill(new Float64Array(cols));
  for (let i = 0; i < cols; i++) v[i] = v[i]! - 0.5;
  let nv = referenceNorm(v);
  if (nv === 0) {
    v[0] = 1;
    nv = 1;
  }
  // plain loops into two arrays reused by every step (a map callback boxes each value it returns)
  for (let i = 0; i < cols; i++) v[i] = v[i]! / nv;
  let sigma = 0;
  let it = 0;
  const Av = new Float64Array(rows);
  const w = new Float64Array(cols);
  for (; it < 500; it++) {
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let k = start[r]!; k < start[r + 1]!; k++) s += val[k]! * v[col[k]!]!;
      Av[r] = s;
    }
    w.fill(0);
    for (let r = 0; r < rows; r++) {
      const a = Av[r]!;
      if (a !== 0) for (let k = start[r]!; k < start[r + 1]!; k++) w[col[k]!]! += val[k]! * a;
    }
    const nw = referenceNorm(w);
    const next = Math.sqrt(nw);
    if (nw === 0) return { norm: 0, vector: v, iterations: it + 1 };
    for (let i = 0; i < cols; i++) v[i] = w[i]! / nw;
    if (Math.abs(next - sigma) <= 1e-14 * next) {
      sigma = next;
      break;
    }
    sigma = next;
  }
  return { norm: sigma, vector: v, iterations: it + 1 };
}

/**
 * Relative change of two successive power-step ratios at which {@link spectralLowerBoundJvp}
 * stops once they lie below the best ratio: the iteration has settled on a smaller number, and
 * resolving that number further (each step is one JVP, two evaluations of Q on the whole state)
 * cannot raise the bound.
 */
export const POWER_SETTLED_RTOL = 1e-3;

/**
 * The power steps of {@link spectralLowerBoundJvp} on an m-dimensional space with a given
 * image map: `image(v, ‖v‖)` returns M·(v/‖v‖) for the operator M whose norm is bounded below.
 */
export function powerStepsLowerBound(
  m: number,
  random: Rng,
  image: (v: Float64Array, nv: number) => Float64Array,
): PowerIteration {
  // plain loops over the m entries (a callback per entry costs ~0.3 s at m = 3·10⁶, the whole
  // space at Nmax 1024; the same values)
  let v: Float64Array = random.fill(new Float64Array(m));
  for (let i = 0; i < m; i++) v[i] = v[i]! - 0.5;
  let best = 0;
  let bestVec: Float64Array | null = null; // one array, rewritten at each new best
  let previous = NaN;
  let fall = NaN; // the last fall of the ratio (previous one − previous), when previous lay below the best
  let it = 0;
  let nv = referenceNorm(v); // then each step's ratio: ‖w‖ of the w that becomes v
  for (; it < 30; it++) {
    if (nv === 0) break;
    const w = image(v, nv);
    const ratio = referenceNorm(w);
    if (ratio > best) {
      best = ratio;
      bestVec ??= new Float64Array(m);
      for (let i = 0; i < m; i++) bestVec[i] = v[i]! / nv;
    }
    v = w;
    const drop = previous - ratio;
    if (ratio < best && (Math.abs(drop) <= POWER_SETTLED_RTOL * ratio || (drop > 0 && drop < fall))) {
      it++;
      break;
    }
    fall = ratio < best ? drop : NaN;
    previous = ratio;
    nv = ratio;
  }
  return { norm: best, vector: bestVec ?? v, iterations: it };
}

/**
 * A lower bound on ‖J_{W,W}‖₂ from JVPs only: at most 30 power steps v ← (Jv)_W / ‖(Jv)_W‖
 * from a random start, keeping the largest ‖(Jv)_W‖/‖v‖ seen (each ratio is attained, so the
 * maximum is a lower bound on the norm whenever the steps stop). The ratios converge to the
 * spectral radius (itself <= the norm); the steps stop early, below the best ratio seen, once
 * - two successive ratios agree to {@link POWER_SETTLED_RTOL} relative: the iteration has
 *   settled on a ratio smaller than the bound already held, and more steps would only refine
 *   that smaller number; or
 * - the ratios have fallen twice in a row below the best, the second fall smaller than the
 *   first: a power iteration that converges from above does so geometrically, so the ratios
 *   still to come lie between their limit and the current ratio, below the bound held.
 * The bound stays a lower bound either way; what stopping can lose is a later transient rise
 * above the best, which a settled or steadily converging power iteration does not show. For the
 * graph's DQ = [[A, B], [0, I]] the ratio falls from its first steps towards the identity block's
 * 1 at about ‖A‖ (~0.5) per step: 4 steps (the falls rule) instead of 8–10 (the settled rule) or
 * 30, with the same bound: each step is a JVP, two evaluations of Q on the whole state (0.6–1 s at
 * Nmax 1024).
 */
export function spectralLowerBoundJvp(J: JacobianOperator, W: Int32Array, random: Rng): PowerIteration {
  const m = W.length;
  let ascending = true; // plain loops: W is the whole space for the global scale
  for (let i = 1; i < m; i++) if (!(W[i]! > W[i - 1]!)) ascending = false;
  if (ascending && m === J.dim && J.outDim === J.dim && J.applyDense) {
    // W is every coordinate (ascending, as many as there are): the dense form, no sparse
    // vectors of length d; the same values (zeros of v/‖v‖ are not moved either way)
    const dv = new Float64Array(m);
    const applyDense = J.applyDense.bind(J);
    let spare: Float64Array | undefined; // the step before's v: free once its step is done
    return powerStepsLowerBound(m, random, (v, nv) => {
      for (let i = 0; i < m; i++) dv[i] = v[i]! / nv;
      const w = applyDense(dv, spare);
      spare = v;
      return w;
    });
  }
  const index = Int32Array.from(W);
  return withPositions(W, J.dim, (pos) => lowerBoundOnBlock(J, W, index, pos, ascending, random));
}

/** {@link spectralLowerBoundJvp} on a block W given as a sparse direction (pos: W's positions in θ). */
function lowerBoundOnBlock(
  J: JacobianOperator,
  W: Int32Array,
  index: Int32Array,
  pos: Int32Array,
  ascending: boolean,
  random: Rng,
): PowerIteration {
  const m = W.length;
  return powerStepsLowerBound(m, random, (v, nv) => {
    let dir: SparseVector;
    if (ascending) {
      // v/‖v‖ on W with its zeros dropped: sparseFromDense of the scattered vector, without it,
      // in one pass; W itself is the index until the first zero
      const dv = new Float64Array(m);
      let di: Int32Array | undefined;
      let k = 0;
      for (let i = 0; i < m; i++) {
        const a = v[i]! / nv;
        if (a !== 0) {
          if (di) di[k] = index[i]!;
          dv[k++] = a;
        } else di ??= index.slice(); // entries before i kept their positions: index[0..k) = W[0..i)
      }
      dir = { dim: J.dim, index: di ? di.subarray(0, k) : index, value: dv.subarray(0, k) };
    } else {
      const full = new Float64Array(J.dim);
      W.forEach((j, i) => (full[j] = v[i]! / nv));
      dir = sparseFromDense(full);
    }
    const out = J.apply(dir);
    const w = new Float64Array(m);
    for (let k = 0; k < out.index.length; k++) {
      const r = pos[out.index[k]!]!;
      if (r >= 0) w[r] = out.value[k]!;
    }
    return w;
  });
}

/** The indices 0, 1, …, d − 1 (a plain loop: a callback per entry costs ~1 s at d = 3·10⁶). */
export function indexRange(d: number): Int32Array {
  const out = new Int32Array(d);
  for (let i = 0; i < d; i++) out[i] = i;
  return out;
}

/**
 * ‖J_{W,W}‖₂: exact from the block's columns when |W| <= `exactColumns`, else the JVP lower
 * bound ({@link spectralLowerBoundJvp}).
 */
export function blockNorm(
  J: JacobianOperator,
  W: Int32Array,
  exactColumns: number,
  random: Rng,
): PowerIteration & { kind: 'exact' | 'lower-bound' } {
  if (W.length <= exactColumns)
    return { ...spectralNormSparse(blockRows(J, W), W.length, W.length, random), kind: 'exact' };
  return { ...spectralLowerBoundJvp(J, W, random), kind: 'lower-bound' };
}
