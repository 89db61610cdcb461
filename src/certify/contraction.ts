/**
 * Verifying the Contractivity assumption (Sec. 3.1) of Q on the whole space or on a block W
 * (a coordinate set), never assuming it.
 *
 * On a block W, Q is read as the map on W with every other coordinate held at the base state:
 * g(z) = Q(θ with θ_W = z)_W (for W = all coordinates, g = Q). Three pieces of evidence:
 * - an empirical LOWER bound on Lip(g) over a box: the largest ‖g(x) − g(y)‖/‖x − y‖ over random
 *   pairs, coordinate probes at the base state, and SPSA gradient ascent on that ratio (two
 *   evaluations of the ratio per step, whatever the dimension). A ratio >= 1 (up to rounding,
 *   see {@link ratioSlack}) is a counterexample: g is not a contraction.
 * - the local norm ‖Dg(θ)‖₂: exact (power iteration on the dense block of Jacobian columns)
 *   when |W| <= `exactColumns`, else a lower bound from JVP power iteration on the block.
 * - an analytic UPPER bound declared by the system (`lipschitz[name]`), the only way to certify.
 * Verdict: 'not contractive' (a counterexample pair, reported), 'certified' (analytic bound < 1
 * and no counterexample), else 'unverified'.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import { createRng } from '../ordergap/rng.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange, positiveNumber } from '../util/validate.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { sparseFromDense } from '../linearize/sparse.js';
import { rawOperators } from '../linearize/systemJacobians.js';
import { namedComponents, type NamedComponent } from './describe.js';

/** Verdict of {@link verifyContraction}. */
export type ContractionVerdict = 'certified' | 'not contractive' | 'unverified';

/** A pair of points of the block and the ratio they give. */
export interface CounterexamplePair {
  /** The block coordinates of the two points (length |W|; null when |W| > 64, to keep reports small). */
  x: number[] | null;
  y: number[] | null;
  /** ‖g(x) − g(y)‖ / ‖x − y‖. */
  ratio: number;
  /** The rounding slack below 1 still counted as >= 1. */
  slack: number;
  /** How the pair was found. */
  source: 'random' | 'coordinate' | 'ascent';
  /** The largest components of x − y, named. */
  direction: NamedComponent[];
}

/** Options of {@link verifyContraction}. */
export interface ContractionOptions {
  /** Block W (coordinate indices); default all coordinates. */
  coordinates?: readonly number[];
  /** Name of the block (for reports and for looking up `lipschitz[name]`); default 'all'. */
  name?: string;
  /** Box of the block: lower and upper bound per coordinate of W, or one number for all. */
  lower?: number | ArrayLike<number>;
  upper?: number | ArrayLike<number>;
  /** Default box: base ± radius·max(1, |base_j|) (default radius 0.1). */
  radius?: number;
  /** Random pairs (default 64; 8 when d > 4096, where every evaluation of Q costs O(d)). */
  samples?: number;
  /** Coordinate probes at the base (default min(|W|, 32); min(|W|, 8) when d > 4096; chosen evenly). */
  probes?: number;
  /** SPSA ascent steps in all, shared by the starts (default 40; 12 when d > 4096). */
  ascentSteps?: number;
  /** Ascent starts: the best pairs of the sampling phase (default 3). */
  starts?: number;
  /** How the box was chosen (for the report). */
  boxSource?: string;
  /** ‖Dg‖₂ already computed for this block (the whole-space norm certification shares). */
  localNorm?: { norm: number; vector: Float64Array; kind: 'exact' | 'lower-bound'; iterations: number };
  /** Norms of diverging fixed-point iterates from the base (an expanding map's evidence). */
  divergingIterates?: readonly number[];
  seed?: number;
  /** An analytic upper bound on Lip(g) (overrides the system's `lipschitz[name]`). */
  analyticBound?: number | null;
  /** Exact local norm when |W| <= this (default 1024). */
  exactColumns?: number;
  /** DQ at the base state (shared with the rest of the certification). */
  jacobian: JacobianOperator;
}

/** Result of {@link verifyContraction}. */
export interface ContractionResult {
  subspace: string;
  dim: number;
  verdict: ContractionVerdict;
  /** true certified, false not contractive, null unverified. */
  contractive: boolean | null;
  empiricalLowerBound: number;
  localNorm: number;
  localNormKind: 'exact' | 'lower-bound';
  analyticBound: number | null;
  /** A pair found by the search has a ratio above the declared bound: the bound is wrong and unused. */
  analyticBoundRefuted: boolean;
  /** What the empirical search spent: random pairs, coordinate probes, ascent starts and steps, Q evaluations. */
  budget: { samples: number; probes: number; starts: number; ascentSteps: number; evaluations: number };
  /** The box searched, in words. */
  box: string;
  /** Norms of the diverging fixed-point iterates when the iteration from the base ran away, else null. */
  divergingIterates: number[] | null;
  /** The best pair found (a counterexample when its ratio >= 1 − slack). */
  worstPair: CounterexamplePair | null;
  /** Directions where contraction fails or is weakest (top singular vector of Dg), named. */
  failingDirections: NamedComponent[];
  /** Evaluations of Q spent on the empirical bound. */
  evaluations: number;
  notes: string[];
}

/**
 * Rounding slack of a ratio ‖g(x) − g(y)‖/‖x − y‖ computed in f64: each norm carries ~eps
 * relative error and the difference g(x) − g(y) an absolute error <= eps·(‖g(x)‖ + ‖g(y)‖),
 * so slack = 4·eps·(‖g(x)‖ + ‖g(y)‖)/‖x − y‖ + 4·eps.
 */
export function ratioSlack(gx: number, gy: number, dxy: number): number {
  return (4 * Number.EPSILON * (gx + gy)) / dxy + 4 * Number.EPSILON;
}

function boxBound(
  name: string,
  v: number | ArrayLike<number> | undefined,
  m: number,
  fallback: Float64Array,
): Float64Array {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return new Float64Array(m).fill(finiteNumber(name, v));
  if (v.length !== m) throw new ArgumentError(name, v, `must have one bound per block coordinate (${m})`);
  return Float64Array.from(v, (x, i) => finiteNumber(`${name}[${i}]`, x));
}

/**
 * Runs the three checks of the module comment.
 * Cost: 2·(samples + probes) + 4·ascentSteps applications of Q, plus |W| Jacobian columns (exact
 * local norm) or ~60 JVPs (lower bound).
 * @throws {ArgumentError} malformed block, box (lower > upper) or options.
 * @example
 * ```ts
 * const sys = closedFormSystem();
 * const theta = Float64Array.of(0.2, 0);
 * verifyContraction(sys, theta, { jacobian: new FdJacobian((t) => sys.consolidate(t), theta) }).verdict;
 * // 'not contractive' (Q fixes every (c, 0): the ratio along c is 1)
 * ```
 */
export function verifyContraction(
  system: OperatorSystem,
  base: Float64Array,
  options: ContractionOptions,
): ContractionResult {
  const d = system.dim;
  const W = Int32Array.from(options.coordinates ?? Array.from({ length: d }, (_, i) => i));
  W.forEach((j, k) => integerInRange(`coordinates[${k}]`, j, 0, d - 1));
  const m = W.length;
  if (m === 0) throw new ArgumentError('coordinates', options.coordinates, 'must name at least one coordinate');
  const name = options.name ?? 'all';
  const radius = positiveNumber('radius', options.radius ?? 0.1);
  const center = Float64Array.from(W, (j) => base[j]!);
  const lower = boxBound(
    'lower',
    options.lower,
    m,
    Float64Array.from(center, (c) => c - radius * Math.max(1, Math.abs(c))),
  );
  const upper = boxBound(
    'upper',
    options.upper,
    m,
    Float64Array.from(center, (c) => c + radius * Math.max(1, Math.abs(c))),
  );
  for (let i = 0; i < m; i++)
    if (!(lower[i]! <= upper[i]!))
      throw new ArgumentError(`lower[${i}]`, lower[i], `must be <= upper[${i}] = ${upper[i]}`);
  // every evaluation of Q costs O(d) whatever the block: a smaller default budget on large states
  const large = d > 4096;
  const samples = integerInRange('samples', options.samples ?? (large ? 8 : 64), 0);
  const probes = integerInRange('probes', options.probes ?? Math.min(m, large ? 8 : 32), 0, m);
  const ascentSteps = integerInRange('ascentSteps', options.ascentSteps ?? (large ? 12 : 40), 0);
  const starts = integerInRange('starts', options.starts ?? 3, 1);
  const exactColumns = integerInRange('exactColumns', options.exactColumns ?? 1024, 0);
  const rng = createRng(options.seed ?? 0);
  const declared = system.capabilities.lipschitz?.[name]?.bound;
  const analyticBound = options.analyticBound !== undefined ? options.analyticBound : (declared ?? null);
  if (analyticBound !== null && !(finiteNumber('analyticBound', analyticBound) >= 0))
    throw new ArgumentError('analyticBound', analyticBound, 'must be >= 0');
  const notes: string[] = [];

  // g(z) = Q(base with θ_W = z)_W, evaluated on a reused work vector.
  const work = Float64Array.from(base);
  const raw = rawOperators(system);
  let evaluations = 0;
  const whole = m === d;
  const g = (z: Float64Array): Float64Array => {
    evaluations++;
    if (whole) return raw.consolidate(z); // W = every coordinate in order: g = Q, no gather
    for (let i = 0; i < m; i++) work[W[i]!] = z[i]!;
    const q = raw.consolidate(work);
    const out = new Float64Array(m);
    for (let i = 0; i < m; i++) out[i] = q[W[i]!]!;
    return out;
  };
  const clip = (z: Float64Array): Float64Array => {
    for (let i = 0; i < m; i++) z[i] = Math.min(upper[i]!, Math.max(lower[i]!, z[i]!));
    return z;
  };
  let outsideDomain = 0;
  const ratioOf = (x: Float64Array, y: Float64Array): { ratio: number; slack: number } => {
    let gx: Float64Array;
    let gy: Float64Array;
    try {
      gx = g(x);
      gy = g(y);
    } catch {
      // Q rejected a sampled point (a non-finite output: outside its domain); skip the pair
      outsideDomain++;
      return { ratio: -1, slack: 0 };
    }
    const dxy = referenceDistance(x, y);
    if (dxy === 0) return { ratio: 0, slack: 0 };
    return { ratio: referenceDistance(gx, gy) / dxy, slack: ratioSlack(referenceNorm(gx), referenceNorm(gy), dxy) };
  };
  // the best pair so far (its points are never written after they are considered); the named
  // direction is computed once at the end: naming sorts |W| entries
  let best: {
    x: Float64Array;
    y: Float64Array;
    ratio: number;
    slack: number;
    source: CounterexamplePair['source'];
  } | null = null;
  // the pairs of the sampling phase, as ascent starts (kept small: the top `starts` matter)
  const pool: { ratio: number; xy: { x: Float64Array; y: Float64Array } }[] = [];
  const consider = (x: Float64Array, y: Float64Array, source: CounterexamplePair['source']): number => {
    const r = ratioOf(x, y);
    if (source !== 'ascent' && r.ratio >= 0) {
      pool.push({ ratio: r.ratio, xy: { x, y } });
      if (pool.length > 4 * starts) {
        pool.sort((a, b) => b.ratio - a.ratio);
        pool.length = starts;
      }
    }
    if (r.ratio >= 0 && (best === null || r.ratio > best.ratio))
      best = { x, y, ratio: r.ratio, slack: r.slack, source };
    return r.ratio;
  };
  const uniform = (): Float64Array => Float64Array.from(lower, (lo, i) => lo + (upper[i]! - lo) * rng.next());

  for (let s = 0; s < samples; s++) consider(uniform(), uniform(), 'random');
  // coordinate probes at the base (clipped into the box)
  const probeCenter = clip(Float64Array.from(center));
  for (let p = 0; p < probes; p++) {
    const i = Math.floor((p * m) / probes);
    const width = upper[i]! - lower[i]!;
    const delta = width > 0 ? 1e-3 * width : 1e-3 * Math.max(1, Math.abs(center[i]!));
    const y = Float64Array.from(probeCenter);
    y[i] = probeCenter[i]! + delta <= upper[i]! || width === 0 ? probeCenter[i]! + delta : probeCenter[i]! - delta;
    consider(probeCenter, y, 'coordinate');
  }
  // SPSA ascent on R(x, y) from the best `starts` pairs so far, sharing the step budget
  const seeds = pool
    .sort((a, b) => b.ratio - a.ratio)
    .slice(0, starts)
    .map((p) => p.xy);
  let stepsLeft = ascentSteps;
  seeds.forEach((s0, si) => {
    const steps = Math.floor(stepsLeft / (seeds.length - si));
    stepsLeft -= steps;
    let x: Float64Array = Float64Array.from(s0.x);
    let y: Float64Array = Float64Array.from(s0.y);
    let current = ratioOf(x, y).ratio;
    for (let k = 0; k < steps; k++) {
      const c = 0.05 * referenceDistance(x, y) + 1e-12;
      const sx = Float64Array.from({ length: m }, () => (rng.next() < 0.5 ? -1 : 1));
      const sy = Float64Array.from({ length: m }, () => (rng.next() < 0.5 ? -1 : 1));
      const xp = clip(Float64Array.from(x, (a, i) => a + c * sx[i]!));
      const yp = clip(Float64Array.from(y, (a, i) => a + c * sy[i]!));
      const rp = consider(xp, yp, 'ascent');
      if (rp > current) {
        x = xp;
        y = yp;
        current = rp;
      } else {
        const xm = clip(Float64Array.from(x, (a, i) => a - c * sx[i]!));
        const ym = clip(Float64Array.from(y, (a, i) => a - c * sy[i]!));
        const rm = consider(xm, ym, 'ascent');
        if (rm > current) {
          x = xm;
          y = ym;
          current = rm;
        }
      }
    }
  });
  const found = best as {
    x: Float64Array;
    y: Float64Array;
    ratio: number;
    slack: number;
    source: CounterexamplePair['source'];
  } | null;
  const worstPair: CounterexamplePair | null = found
    ? {
        x: m <= 64 ? Array.from(found.x) : null,
        y: m <= 64 ? Array.from(found.y) : null,
        ratio: found.ratio,
        slack: found.slack,
        source: found.source,
        direction: namedComponents(
          system,
          Float64Array.from(found.x, (a, i) => a - found.y[i]!),
          W,
        ),
      }
    : null;
  if (outsideDomain > 0)
    notes.push(
      `Q rejected ${outsideDomain} sampled pair(s) (non-finite output: outside its domain); narrow the box (lower/upper)`,
    );
  const empiricalLowerBound = worstPair?.ratio ?? 0;
  const counterexample = worstPair !== null && worstPair.ratio >= 1 - worstPair.slack;

  // local norm of the block Jacobian
  const J = options.jacobian;
  let localNorm: number;
  let localNormKind: 'exact' | 'lower-bound';
  let topDirection: Float64Array;
  if (options.localNorm) {
    localNorm = options.localNorm.norm;
    topDirection = options.localNorm.vector;
    localNormKind = options.localNorm.kind;
    if (localNormKind === 'lower-bound')
      notes.push(`local norm: ‖Dg‖ is a lower bound from ${options.localNorm.iterations} JVP power steps`);
  } else if (m <= exactColumns) {
    const pos = new Map<number, number>();
    W.forEach((j, i) => pos.set(j, i));
    const A = new Float64Array(m * m); // rows W (block outputs) × cols W, row-major
    J.prefetch(Array.from(W));
    for (let c = 0; c < m; c++) {
      const col = J.column(W[c]!);
      for (let k = 0; k < col.index.length; k++) {
        const r = pos.get(col.index[k]!);
        if (r !== undefined) A[r * m + c] = col.value[k]!;
      }
    }
    const pw = spectralNormDense(A, m, m, rng.next);
    localNorm = pw.norm;
    topDirection = pw.vector;
    localNormKind = 'exact';
  } else {
    const pw = spectralLowerBoundJvp(J, W, rng.next);
    localNorm = pw.norm;
    topDirection = pw.vector;
    localNormKind = 'lower-bound';
    notes.push(
      `local norm: |W| = ${m} > ${exactColumns} columns, so ‖Dg‖ is a lower bound from ${pw.iterations} JVP power steps`,
    );
  }

  const diverging = options.divergingIterates ? Array.from(options.divergingIterates) : null;
  let verdict: ContractionVerdict;
  if (counterexample || diverging) verdict = 'not contractive';
  else if (analyticBound !== null && analyticBound < 1) verdict = 'certified';
  else verdict = 'unverified';
  if (diverging)
    notes.push(
      `the fixed-point iteration from the base diverges (‖θ_n‖ = ${diverging.map((x) => x.toPrecision(3)).join(', ')}): Q expands`,
    );
  const analyticBoundRefuted =
    analyticBound !== null && empiricalLowerBound > analyticBound * (1 + 1e-12) + (worstPair?.slack ?? 0);
  if (analyticBoundRefuted) {
    notes.push(
      `the declared analytic bound ${analyticBound} is VIOLATED by a pair with ratio ${empiricalLowerBound}: the bound is wrong`,
    );
    if (verdict === 'certified') verdict = 'unverified';
  }
  if (verdict === 'unverified' && localNorm >= 1)
    notes.push(
      `‖Dg‖₂ = ${localNorm.toPrecision(4)} >= 1 at the base state: not contractive in the Euclidean norm there`,
    );
  const failingDirections =
    counterexample && worstPair ? worstPair.direction : localNorm >= 1 ? namedComponents(system, topDirection, W) : [];
  if (failingDirections.length === 0 && verdict !== 'certified')
    failingDirections.push(...namedComponents(system, topDirection, W));
  return {
    subspace: name,
    dim: m,
    verdict,
    contractive: verdict === 'certified' ? true : verdict === 'not contractive' ? false : null,
    empiricalLowerBound,
    localNorm,
    localNormKind,
    analyticBound,
    analyticBoundRefuted,
    budget: { samples, probes, starts, ascentSteps, evaluations },
    box:
      options.boxSource ??
      (options.lower === undefined && options.upper === undefined
        ? `base ± ${radius}·max(1, |base_j|)`
        : 'the given lower/upper bounds'),
    divergingIterates: diverging,
    worstPair,
    failingDirections,
    evaluations,
    notes,
  };
}

function referenceDistance(a: Float64Array, b: Float64Array): number {
  const diff = Float64Array.from(a, (x, i) => x - b[i]!);
  return referenceNorm(diff);
}

/**
 * ‖A‖₂ of a dense rows×cols matrix by power iteration on AᵀA (at most 500 steps, stops when the
 * estimate changes by < 1e-14 relative); returns the top right singular vector.
 */
export function spectralNormDense(
  A: Float64Array,
  rows: number,
  cols: number,
  random: () => number,
): { norm: number; vector: Float64Array; iterations: number } {
  let v = Float64Array.from({ length: cols }, () => random() - 0.5);
  let nv = referenceNorm(v);
  if (nv === 0) {
    v[0] = 1;
    nv = 1;
  }
  v = v.map((x) => x / nv);
  let sigma = 0;
  let it = 0;
  const Av = new Float64Array(rows);
  for (; it < 500; it++) {
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let c = 0; c < cols; c++) s += A[r * cols + c]! * v[c]!;
      Av[r] = s;
    }
    const w = new Float64Array(cols);
    for (let r = 0; r < rows; r++) {
      const a = Av[r]!;
      if (a !== 0) for (let c = 0; c < cols; c++) w[c]! += A[r * cols + c]! * a;
    }
    const nw = referenceNorm(w);
    const next = Math.sqrt(nw);
    if (nw === 0) return { norm: 0, vector: v, iterations: it + 1 };
    v = w.map((x) => x / nw);
    if (Math.abs(next - sigma) <= 1e-14 * next) {
      sigma = next;
      break;
    }
    sigma = next;
  }
  return { norm: sigma, vector: v, iterations: it + 1 };
}

/**
 * A lower bound on ‖J_{W,W}‖₂ from JVPs only: 30 power steps v ← (Jv)_W / ‖(Jv)_W‖ from a
 * random start, keeping the largest ‖(Jv)_W‖/‖v‖ seen (each ratio is attained, so the maximum
 * is a lower bound on the norm; it converges to the spectral radius, itself <= the norm).
 */
export function spectralLowerBoundJvp(
  J: JacobianOperator,
  W: Int32Array,
  random: () => number,
): { norm: number; vector: Float64Array; iterations: number } {
  const m = W.length;
  const pos = new Map<number, number>();
  W.forEach((j, i) => pos.set(j, i));
  let v = Float64Array.from({ length: m }, () => random() - 0.5);
  let best = 0;
  let bestVec = v;
  let it = 0;
  for (; it < 30; it++) {
    const nv = referenceNorm(v);
    if (nv === 0) break;
    const full = new Float64Array(J.dim);
    W.forEach((j, i) => (full[j] = v[i]! / nv));
    const out = J.apply(sparseFromDense(full));
    const w = new Float64Array(m);
    for (let k = 0; k < out.index.length; k++) {
      const r = pos.get(out.index[k]!);
      if (r !== undefined) w[r] = out.value[k]!;
    }
    const ratio = referenceNorm(w);
    if (ratio > best) {
      best = ratio;
      bestVec = v.map((x) => x / nv);
    }
    v = w;
  }
  return { norm: best, vector: bestVec, iterations: it };
}
