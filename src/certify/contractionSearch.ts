/**
 * The empirical search of the contraction check (./contraction.ts): the map g on the block W and
 * the ratio ‖g(x) − g(y)‖/‖x − y‖ of a pair with its rounding slack, and the three searches for a
 * large ratio in the box — random pairs, coordinate probes at the base, and SPSA ascent from the
 * best pairs (two evaluations of the ratio per step, whatever the dimension). The best pair is a
 * lower bound on Lip(g), and a counterexample when its ratio is >= 1 − slack.
 */
import { referenceDistance, referenceNorm } from '../blas1/dnrm2.js';
import { rawOperators } from '../linearize/systemJacobians.js';
import type { Rng } from '../ordergap/rng.js';
import type { OperatorSystem, SparseVector } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';

/** How a pair was found. */
export type PairSource = 'random' | 'coordinate' | 'ascent' | 'local direction';

/** A ratio and its rounding slack; ratio −1 when Q rejected a point (outside its domain). */
export interface PairRatio {
  ratio: number;
  slack: number;
}

/**
 * The block W of the check: the coordinates of θ it varies and, when W is a span of vectors,
 * their orthonormal basis. z ∈ R^m are the coordinates in W: θ_W for a coordinate block, Bᵀx for
 * a basis B, and the points of the pair are θ with θ_W = z, or θ − BBᵀθ + Bz.
 */
export interface ContractionBlock {
  /** dim W. */
  readonly m: number;
  /** The coordinates of θ that vary: W itself, or the union of the basis vectors' supports (ascending). */
  readonly support: Int32Array;
  /** The orthonormal basis of W, or null for the coordinate block `support`. */
  readonly basis: readonly SparseVector[] | null;
  /** The base state's coordinates z in W. */
  readonly center: Float64Array;
}

/** The box of the search in the block's coordinates z. */
export interface SearchBox {
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/**
 * Rounding slack of a ratio ‖g(x) − g(y)‖/‖x − y‖ computed in f64: each norm carries ~eps
 * relative error and the difference g(x) − g(y) an absolute error <= eps·(‖g(x)‖ + ‖g(y)‖),
 * so slack = 4·eps·(‖g(x)‖ + ‖g(y)‖)/‖x − y‖ + 4·eps.
 */
export function ratioSlack(gx: number, gy: number, dxy: number): number {
  return (4 * Number.EPSILON * (gx + gy)) / dxy + 4 * Number.EPSILON;
}

/** g on the block and the ratio of a pair, counting evaluations of Q and the pairs Q rejected. */
export interface BlockMap {
  /** The ratio of the pair (x, y) of block coordinates. */
  ratio(x: Float64Array, y: Float64Array): PairRatio;
  /** Evaluations of Q so far. */
  readonly evaluations: number;
  /** Pairs skipped because Q returned non-finite values there. */
  readonly outsideDomain: number;
  /** Frees the system's consolidation engine, if one was used. */
  release(): void;
}

/**
 * h(u) = Q(base with θ_W = u)_W on the coordinates W (ascending when an engine is used): through
 * the system's consolidation engine when it offers one (bit for bit Q, at its cost), else Q on a
 * reused work vector.
 */
function coordinateMap(system: OperatorSystem, base: Float64Array, W: Int32Array, count: () => void) {
  const m = W.length;
  const engine = system.capabilities.certification?.consolidateOn?.(base, W);
  if (engine) {
    const varying = engine.varying;
    const wpos = new Int32Array(m);
    let identity = varying.length === m;
    for (let i = 0, p = 0; i < m; i++) {
      // W and varying are both ascending, W ⊂ varying
      while (varying[p]! < W[i]!) p++;
      if (varying[p] !== W[i]) {
        engine.release();
        throw new ArgumentError('consolidateOn', W[i], 'the engine does not vary this block coordinate');
      }
      wpos[i] = p;
      identity &&= p === i;
    }
    if (identity) {
      // W is every varying coordinate in order (the whole space): z is the engine's input itself
      const g = (z: Float64Array, out: Float64Array): void => {
        count();
        engine.consolidate(z, out);
      };
      return { g, release: () => engine.release() };
    }
    const zv = new Float64Array(varying.length); // plain loops: varying may hold millions
    for (let i = 0; i < varying.length; i++) zv[i] = base[varying[i]!]!;
    const qv = new Float64Array(varying.length);
    const g = (z: Float64Array, out: Float64Array): void => {
      count();
      for (let i = 0; i < m; i++) zv[wpos[i]!] = z[i]!;
      engine.consolidate(zv, qv);
      for (let i = 0; i < m; i++) out[i] = qv[wpos[i]!]!;
    };
    return { g, release: () => engine.release() };
  }
  const work = Float64Array.from(base);
  const raw = rawOperators(system);
  const whole = m === system.dim;
  const g = (z: Float64Array, out: Float64Array): void => {
    count();
    if (whole) return out.set(raw.consolidate(z)); // W = every coordinate in order: g = Q, no gather
    for (let i = 0; i < m; i++) work[W[i]!] = z[i]!;
    const q = raw.consolidate(work);
    for (let i = 0; i < m; i++) out[i] = q[W[i]!]!;
  };
  return { g, release: () => undefined };
}

/**
 * The map g of the block and the ratio of a pair (module comment). For a coordinate block the
 * ratio is ‖g(x) − g(y)‖/‖x − y‖ with {@link ratioSlack}. For a basis B of W the points are
 * x̂ = θ_⊥ + Bz (θ_⊥ = θ − BBᵀθ), the ratio is ‖Bᵀ(Q(x̂) − Q(ŷ))‖/‖x̂ − ŷ‖ = ‖P_W(Q(x̂) − Q(ŷ))‖/‖x̂ − ŷ‖
 * over the points actually evaluated, and the slack adds to {@link ratioSlack} (taken on the
 * unprojected ‖Q(x̂)_S‖, ‖Q(ŷ)_S‖) the rounding of the projection, √m·n·eps·(‖Q(x̂)_S‖ + ‖Q(ŷ)_S‖)/‖x̂ − ŷ‖,
 * n the longest support of a basis vector (each entry of Bᵀv is a dot product of n terms,
 * |error| <= n·eps·‖v‖ for a unit vector).
 * @throws {ArgumentError} the system's engine does not vary a coordinate of the block.
 */
export function blockMap(system: OperatorSystem, base: Float64Array, block: ContractionBlock): BlockMap {
  const state = { evaluations: 0, outsideDomain: 0 };
  const S = block.support;
  const h = coordinateMap(system, base, S, () => state.evaluations++);
  const guarded = (f: () => PairRatio): PairRatio => {
    try {
      return f();
    } catch {
      // Q rejected a sampled point (a non-finite output: outside its domain); skip the pair
      state.outsideDomain++;
      return { ratio: -1, slack: 0 };
    }
  };
  const ratio = block.basis ? spanRatio(base, block, h.g) : coordinateRatio(block.m, h.g);
  return {
    ratio: (x, y) => guarded(() => ratio(x, y)),
    get evaluations() {
      return state.evaluations;
    },
    get outsideDomain() {
      return state.outsideDomain;
    },
    release: h.release,
  };
}

type BlockFn = (z: Float64Array, out: Float64Array) => void;

function coordinateRatio(m: number, g: BlockFn): (x: Float64Array, y: Float64Array) => PairRatio {
  const gx = new Float64Array(m);
  const gy = new Float64Array(m);
  return (x, y) => {
    g(x, gx);
    g(y, gy);
    const dxy = referenceDistance(x, y);
    if (dxy === 0) return { ratio: 0, slack: 0 };
    return { ratio: referenceDistance(gx, gy) / dxy, slack: ratioSlack(referenceNorm(gx), referenceNorm(gy), dxy) };
  };
}

/** The ratio of a pair in the span of an orthonormal basis (see {@link blockMap}). */
function spanRatio(
  base: Float64Array,
  block: ContractionBlock,
  h: BlockFn,
): (x: Float64Array, y: Float64Array) => PairRatio {
  const { m, support: S } = block;
  const basis = block.basis!;
  const at = new Map<number, number>();
  S.forEach((j, i) => at.set(j, i));
  const pos = basis.map((b) => Int32Array.from(b.index, (j) => at.get(j)!));
  let n = 0;
  for (const b of basis) n = Math.max(n, b.index.length);
  // θ_⊥ on S: θ_S minus its projection onto W
  const perp = Float64Array.from(S, (j) => base[j]!);
  basis.forEach((b, k) => {
    const c = block.center[k]!;
    for (let t = 0; t < b.index.length; t++) perp[pos[k]![t]!]! -= c * b.value[t]!;
  });
  const lift = (z: Float64Array, u: Float64Array): Float64Array => {
    u.set(perp);
    basis.forEach((b, k) => {
      for (let t = 0; t < b.index.length; t++) u[pos[k]![t]!]! += b.value[t]! * z[k]!;
    });
    return u;
  };
  const project = (v: Float64Array, out: Float64Array): Float64Array => {
    basis.forEach((b, k) => {
      let s = 0;
      for (let t = 0; t < b.index.length; t++) s += b.value[t]! * v[pos[k]![t]!]!;
      out[k] = s;
    });
    return out;
  };
  const ux = new Float64Array(S.length);
  const uy = new Float64Array(S.length);
  const hx = new Float64Array(S.length);
  const hy = new Float64Array(S.length);
  const gx = new Float64Array(m);
  const gy = new Float64Array(m);
  return (x, y) => {
    h(lift(x, ux), hx);
    h(lift(y, uy), hy);
    const dxy = referenceDistance(ux, uy);
    if (dxy === 0) return { ratio: 0, slack: 0 };
    const nx = referenceNorm(hx);
    const ny = referenceNorm(hy);
    const projection = (Math.sqrt(m) * n * Number.EPSILON * (nx + ny)) / dxy;
    return {
      ratio: referenceDistance(project(hx, gx), project(hy, gy)) / dxy,
      slack: ratioSlack(nx, ny, dxy) + projection,
    };
  };
}

/** The best pair found so far, copied into its own buffers. */
export interface BestPair {
  ratio: number;
  slack: number;
  source: PairSource;
  x: Float64Array;
  y: Float64Array;
}

/**
 * The running state of the search: the best pair, and the best `starts` pairs of the sampling
 * phase as ascent starts (copies, ratio descending; among equal ratios the earlier pair first).
 */
export class PairSearch {
  /** The map g whose pairs are evaluated. */
  readonly map: BlockMap;
  /** How many pairs of the sampling phase are kept as ascent starts. */
  readonly starts: number;
  /** End the search at the first counterexample. */
  readonly stopEarly: boolean;
  /** The pair with the largest ratio so far (x, y in this search's own buffers), or null. */
  best: BestPair | null = null;
  /** The ascent starts so far (copies), ratio descending. */
  readonly pool: { ratio: number; x: Float64Array; y: Float64Array }[] = [];
  readonly #bestX: Float64Array;
  readonly #bestY: Float64Array;

  /** A search over pairs of m block coordinates. */
  constructor(map: BlockMap, m: number, starts: number, stopEarly: boolean) {
    this.map = map;
    this.starts = starts;
    this.stopEarly = stopEarly;
    this.#bestX = new Float64Array(m);
    this.#bestY = new Float64Array(m);
  }

  /** Evaluates the pair (the points are scratch: what is kept is copied) and returns its ratio. */
  consider(x: Float64Array, y: Float64Array, source: PairSource): number {
    const r = this.map.ratio(x, y);
    const pool = this.pool;
    if (source !== 'ascent' && r.ratio >= 0 && (pool.length < this.starts || r.ratio > pool[pool.length - 1]!.ratio)) {
      // a stable insertion: among equal ratios the earlier pair ranks first (as a stable sort)
      let at = pool.length;
      while (at > 0 && pool[at - 1]!.ratio < r.ratio) at--;
      pool.splice(at, 0, { ratio: r.ratio, x: Float64Array.from(x), y: Float64Array.from(y) });
      if (pool.length > this.starts) pool.length = this.starts;
    }
    if (r.ratio >= 0 && (this.best === null || r.ratio > this.best.ratio)) {
      this.#bestX.set(x);
      this.#bestY.set(y);
      this.best = { ratio: r.ratio, slack: r.slack, source, x: this.#bestX, y: this.#bestY };
    }
    return r.ratio;
  }

  /** A counterexample found (ratio >= 1 up to rounding): with stopEarly the search ends there. */
  decided(): boolean {
    const b = this.best;
    return this.stopEarly && b !== null && b.ratio >= 1 - b.slack;
  }
}

/** `samples` pairs drawn uniformly from the box. */
export function randomPairs(search: PairSearch, rng: Rng, box: SearchBox, samples: number): void {
  const m = box.lower.length;
  const sx = new Float64Array(m);
  const sy = new Float64Array(m);
  for (let s = 0; s < samples && !search.decided(); s++) {
    fillUniform(rng, sx, box.lower, box.upper);
    fillUniform(rng, sy, box.lower, box.upper);
    search.consider(sx, sy, 'random');
  }
}

/**
 * `probes` pairs at the base (clipped into the box) and a step of 1e-3 of the box's width along
 * one block coordinate, the coordinates chosen evenly.
 */
export function coordinateProbes(search: PairSearch, box: SearchBox, center: Float64Array, probes: number): void {
  const { lower, upper } = box;
  const m = center.length;
  const probeCenter = new Float64Array(m); // a plain loop: on the whole space m = d
  for (let i = 0; i < m; i++) probeCenter[i] = Math.min(upper[i]!, Math.max(lower[i]!, center[i]!));
  const sy = new Float64Array(m);
  for (let p = 0; p < probes && !search.decided(); p++) {
    const i = Math.floor((p * m) / probes);
    const width = upper[i]! - lower[i]!;
    const delta = width > 0 ? 1e-3 * width : 1e-3 * Math.max(1, Math.abs(center[i]!));
    sy.set(probeCenter);
    sy[i] = probeCenter[i]! + delta <= upper[i]! || width === 0 ? probeCenter[i]! + delta : probeCenter[i]! - delta;
    search.consider(probeCenter, sy, 'coordinate');
  }
}

/**
 * A pair along the direction v (unit, block coordinates) where ‖Dg‖ is largest at the base: the
 * center ± δ·v with δ = 1e-2 of the box's smallest half-width along v's support (clipped into the
 * box), whose ratio is ‖Dg v‖ up to O(δ): the pair a local norm >= 1 predicts.
 */
export function directionProbe(search: PairSearch, box: SearchBox, center: Float64Array, v: Float64Array): void {
  const { lower, upper } = box;
  let half = Infinity;
  for (let i = 0; i < center.length; i++)
    if (v[i] !== 0) half = Math.min(half, (upper[i]! - lower[i]!) / 2 || Math.max(1, Math.abs(center[i]!)));
  if (!Number.isFinite(half) || search.decided()) return;
  const delta = 1e-2 * half;
  // plain loops (a map callback over the whole space boxes every value it returns)
  const x = new Float64Array(center.length);
  const y = new Float64Array(center.length);
  for (let i = 0; i < center.length; i++) {
    x[i] = Math.min(upper[i]!, Math.max(lower[i]!, center[i]! + delta * v[i]!));
    y[i] = Math.min(upper[i]!, Math.max(lower[i]!, center[i]! - delta * v[i]!));
  }
  search.consider(x, y, 'local direction');
}

/**
 * SPSA ascent on the ratio R(x, y) from the best `starts` pairs of the sampling phase, sharing
 * `ascentSteps` between them: per step both points move by ±c on random signs (c = 5% of their
 * distance), and the better of the step and its mirror is kept when it raises R.
 */
export function spsaAscent(search: PairSearch, rng: Rng, box: SearchBox, ascentSteps: number): void {
  const { lower, upper } = box;
  const m = lower.length;
  const seeds = search.decided() ? [] : search.pool.slice(0, search.starts);
  const pairOf = () => ({ x: new Float64Array(m), y: new Float64Array(m) });
  // the current pair, the trial step and its mirror (swapped, never copied), and the signs
  let [cur, plus, minus] = [pairOf(), pairOf(), pairOf()];
  const signs = pairOf();
  let stepsLeft = ascentSteps;
  seeds.forEach((s0, si) => {
    if (search.decided()) return;
    const steps = Math.floor(stepsLeft / (seeds.length - si));
    stepsLeft -= steps;
    cur.x.set(s0.x);
    cur.y.set(s0.y);
    let current = search.map.ratio(cur.x, cur.y).ratio;
    for (let k = 0; k < steps && !search.decided(); k++) {
      const c = 0.05 * referenceDistance(cur.x, cur.y) + 1e-12;
      // the signs and the clipped trial points, fused
      perturbBySigns(rng, cur.x, c, lower, upper, signs.x, plus.x);
      perturbBySigns(rng, cur.y, c, lower, upper, signs.y, plus.y);
      const rp = search.consider(plus.x, plus.y, 'ascent');
      if (rp > current) {
        [cur, plus] = [plus, cur];
        current = rp;
      } else {
        for (let i = 0; i < m; i++) minus.x[i] = Math.min(upper[i]!, Math.max(lower[i]!, cur.x[i]! - c * signs.x[i]!));
        for (let i = 0; i < m; i++) minus.y[i] = Math.min(upper[i]!, Math.max(lower[i]!, cur.y[i]! - c * signs.y[i]!));
        const rm = search.consider(minus.x, minus.y, 'ascent');
        if (rm > current) {
          [cur, minus] = [minus, cur];
          current = rm;
        }
      }
    }
  });
}

/**
 * The 32-bit stream of sfc32 (the generator of src/ordergap/rng.ts) seeded by four draws of
 * `rng`, with its state in locals: a state-sized vector of draws costs no allocation per draw.
 * Returns a function writing the next `count` words of the stream into `out` (uint32 values).
 */
function wordsFrom(rng: Rng): (out: Uint32Array, count: number) => void {
  let a = Math.floor(rng.next() * 4294967296) | 0;
  let b = Math.floor(rng.next() * 4294967296) | 0;
  let c = Math.floor(rng.next() * 4294967296) | 0;
  let d = Math.floor(rng.next() * 4294967296) | 0;
  return (out, count) => {
    let A = a;
    let B = b;
    let C = c;
    let D = d;
    for (let i = 0; i < count; i++) {
      const t = (((A + B) | 0) + D) | 0;
      D = (D + 1) | 0;
      A = B ^ (B >>> 9);
      B = (C + (C << 3)) | 0;
      C = (C << 21) | (C >>> 11);
      C = (C + t) | 0;
      out[i] = t;
    }
    a = A;
    b = B;
    c = C;
    d = D;
  };
}

const WORDS = new Uint32Array(4096);

/** z_i = lower_i + (upper_i − lower_i)·u_i, u_i uniform in [0, 1) with 32 random bits each. */
function fillUniform(rng: Rng, z: Float64Array, lower: Float64Array, upper: Float64Array): void {
  const words = wordsFrom(rng);
  for (let start = 0; start < z.length; start += WORDS.length) {
    const n = Math.min(WORDS.length, z.length - start);
    words(WORDS, n);
    for (let k = 0; k < n; k++) {
      const i = start + k;
      z[i] = lower[i]! + (upper[i]! - lower[i]!) * (WORDS[k]! / 4294967296);
    }
  }
}

/** Random signs s_i = ±1 (one bit each) and the trial point clip(x + c·s) into the box. */
function perturbBySigns(
  rng: Rng,
  x: Float64Array,
  c: number,
  lower: Float64Array,
  upper: Float64Array,
  signs: Float64Array,
  trial: Float64Array,
): void {
  const words = wordsFrom(rng);
  const m = x.length;
  for (let start = 0; start < m; start += 32 * WORDS.length) {
    const n = Math.min(32 * WORDS.length, m - start);
    words(WORDS, Math.ceil(n / 32));
    for (let k = 0; k < n; k++) {
      const i = start + k;
      const si = (WORDS[k >>> 5]! >>> (k & 31)) & 1 ? 1 : -1;
      signs[i] = si;
      trial[i] = Math.min(upper[i]!, Math.max(lower[i]!, x[i]! + c * si));
    }
  }
}
