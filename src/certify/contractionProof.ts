/**
 * Proof of the Contractivity assumption (Sec. 3.1) on a block W by outward-rounded interval
 * enclosures (Rump, Acta Numerica 2010, Sec. 13; ../../docs/certify.md, "Proofs"), for the map
 * g(z) = Q(θ̂ with θ_W = z)_W with every coordinate outside W held at θ̂ (for W = every
 * coordinate, g = Q).
 *
 * On a box B of W's coordinates, with an enclosure J(B) of Dg over B (from an {@link Encloser}:
 * the system's tfjs form evaluated in interval arithmetic with forward-mode tangents, or its own
 * interval form) and an enclosure of g(ẑ) at ẑ = θ̂_W ∈ B:
 * - L := sup_{J ∈ J(B)} ‖J‖₂ (rigorous: ‖mid‖₂ + ‖rad‖₂ of J(B) in midpoint–radius form, each
 *   rounded up, src/interval/matrixBounds.ts). L < 1 makes g Lipschitz with modulus L on the
 *   convex B in the Euclidean norm (mean-value theorem; for maps with kinks the enclosure contains
 *   Clarke's generalised Jacobian and the same holds), so g has at most one fixed point in B;
 * - with δ >= ‖g(ẑ) − ẑ‖₂ (rounded up from the enclosure of g(ẑ)) and ρ = δ/(1 − L), the ball
 *   K = {z : ‖z − ẑ‖₂ <= ρ} is mapped into itself when K ⊆ B: ‖g(z) − ẑ‖ <= ‖g(z) − g(ẑ)‖ +
 *   ‖g(ẑ) − ẑ‖ <= Lρ + δ = ρ. So g(K) ⊆ K with K closed and convex: exactly one fixed point z*,
 *   in K, and none other in B (Banach; Rump, Acta Numerica 2010, Sec. 13). K cut to B and
 *   narrowed by z* ∈ g(X) ∩ X is the reported enclosure of z*. (The test g(B) ⊆ B on the box
 *   itself is not asked: for a map that contracts in the Euclidean norm but rotates, such as
 *   0.6·U with U orthogonal, no axis-aligned box is invariant, while K is);
 * - a box on which L >= 1 is bisected along its widest coordinate and L is the largest over the
 *   leaves, within a budget of enclosures;
 * - boxes are tried from the largest asked (the given box, then θ̂_W ± radius·max(1, |θ̂_j|)
 *   down by factors of ten to `minRadius`): the first box proved is reported with its L.
 * Every box, Jacobian enclosure, norm bound and split is kept in the result's
 * `certificate`, which the independent checker (src/proofCheck) re-checks.
 */
import { down, up } from '../interval/round.js';
import { intervalNormUpper, midRad } from '../interval/matrixBounds.js';
import { maxOf } from '../util/arrays.js';
import type { FormEnclosure } from '../system/types.js';

/** An enclosure of a map over a box and of its Jacobian columns along seed coordinates (the system's {@link FormEnclosure}). */
export type BoxEnclosure = FormEnclosure;

/**
 * Encloses a map over the box [lo, hi] (length d) and, when `seeds` is given, its Jacobian
 * columns along those coordinates, on the output rows `rows` (default every output).
 */
export type Encloser = (
  lo: Float64Array,
  hi: Float64Array,
  seeds: Int32Array | null,
  rows?: Int32Array | null,
) => BoxEnclosure;

/** One box tested: its ends in W's coordinates, its Jacobian enclosure and norm bound. */
export interface ProofLeaf {
  lo: number[];
  hi: number[];
  jacobian: { lo: number[]; hi: number[] };
  /** Rigorous upper bound on ‖J‖₂ over the Jacobian enclosure. */
  bound: number;
}

/** A node of the bisection tree: a leaf, or a split of its box at `at` along coordinate `axis`. */
export type ProofNode =
  | { leaf: ProofLeaf }
  | { axis: number; at: number; lo: number[]; hi: number[]; children: [ProofNode, ProofNode] };

/** What a proof of one block writes to the certificate. */
export interface ContractionCertificate {
  /** W's coordinates (indices of θ). */
  coordinates: number[];
  /** The box B proved on (W's coordinates). */
  box: { lo: number[]; hi: number[] };
  /** The bisection tree of B. */
  tree: ProofNode;
  /** The claimed bound: every leaf's bound <= upperBound < 1. */
  upperBound: number;
  /** Enclosure of g(ẑ) at ẑ = θ̂_W. */
  residualImage: { lo: number[]; hi: number[] };
  /** ρ: a rigorous upper bound on ‖g(ẑ) − ẑ‖₂ / (1 − upperBound); the ball ‖z − ẑ‖₂ <= ρ lies in the box. */
  ballRadius: number;
  /** Steps of X ← g(X) ∩ X applied to the ball cut to B. */
  narrowingSteps: number;
  fixedPointEnclosure: { lo: number[]; hi: number[] };
}

/** One box tried, in words and numbers (what `undecided` says was tried). */
export interface ProofAttempt {
  /** The box's relative radius, or null for a given box. */
  radius: number | null;
  /** Enclosures evaluated on it (leaves and split nodes). */
  evaluations: number;
  /** Why it failed, or 'proved'. */
  outcome: string;
  /** The largest leaf bound seen (Infinity when an image had no enclosure). */
  bound: number;
}

/** Result of {@link proveContraction}. */
export interface ContractionProof {
  verdict: 'proved' | 'undecided';
  /** L on the proved box (null when undecided). */
  upperBound: number | null;
  box: { lo: number[]; hi: number[] } | null;
  fixedPointEnclosure: { lo: number[]; hi: number[] } | null;
  /** Width max_j (hi_j − lo_j) of the fixed-point enclosure, or null. */
  enclosureWidth: number | null;
  attempts: ProofAttempt[];
  evaluations: number;
  certificate: ContractionCertificate | null;
}

/** Options of {@link proveContraction}. */
export interface ContractionProofOptions {
  /** A given box of W's coordinates (tried first). */
  box?: { lower: ArrayLike<number>; upper: ArrayLike<number> };
  /** Largest relative radius tried when no box is given (default 0.1). */
  radius?: number;
  /** Smallest relative radius tried (default 1e-9). */
  minRadius?: number;
  /** Enclosures (with Jacobian) per box at most, bisection included (default 8). */
  budgetPerBox?: number;
  /** Enclosures in all at most (default 40). */
  budget?: number;
  /** Narrowing steps X ← g(X) ∩ X on the fixed-point enclosure (default 2). */
  narrowingSteps?: number;
}

/** θ̂ with the block replaced by the box [lo, hi]: the encloser's input. */
function embed(theta: Float64Array, coords: Int32Array, lo: ArrayLike<number>, hi: ArrayLike<number>) {
  const L = Float64Array.from(theta);
  const H = Float64Array.from(theta);
  for (let k = 0; k < coords.length; k++) {
    L[coords[k]!] = lo[k]!;
    H[coords[k]!] = hi[k]!;
  }
  return { L, H };
}

/** The block's outputs of an enclosure. */
function blockOf(e: { lo: Float64Array; hi: Float64Array }, coords: Int32Array) {
  return {
    lo: Array.from(coords, (j) => e.lo[j]!),
    hi: Array.from(coords, (j) => e.hi[j]!),
  };
}

/** Rigorous sup ‖J‖₂ over a Jacobian enclosure (Infinity when it has a non-finite end). */
export function enclosureNormBound(lo: ArrayLike<number>, hi: ArrayLike<number>, m: number): number {
  for (let k = 0; k < lo.length; k++) if (!(Number.isFinite(lo[k]!) && Number.isFinite(hi[k]!))) return Infinity;
  const { mid, rad } = midRad(Float64Array.from(lo), Float64Array.from(hi));
  return intervalNormUpper(mid, rad, m, m);
}

/** Tests one box (no bisection): its leaf, and whether its bound is below 1. */
function testBox(enclose: Encloser, theta: Float64Array, coords: Int32Array, lo: number[], hi: number[]) {
  const { L, H } = embed(theta, coords, lo, hi);
  const jac = enclose(L, H, coords, coords).jacobian!;
  const bound = enclosureNormBound(jac.lo, jac.hi, coords.length);
  const leaf: ProofLeaf = { lo, hi, jacobian: { lo: Array.from(jac.lo), hi: Array.from(jac.hi) }, bound };
  return { leaf, pass: bound < 1 };
}

/** Bisection over B within `budget` enclosures: every leaf's bound < 1, or null with what failed. */
function proveOnBox(
  enclose: Encloser,
  theta: Float64Array,
  coords: Int32Array,
  B: { lo: number[]; hi: number[] },
  budget: number,
): { tree: ProofNode | null; evaluations: number; outcome: string; bound: number } {
  let evaluations = 0;
  let worst = 0;
  let outcome = 'proved';
  const visit = (lo: number[], hi: number[]): ProofNode | null => {
    if (evaluations >= budget) {
      outcome = `budget of ${budget} enclosures spent`;
      return null;
    }
    evaluations++;
    const t = testBox(enclose, theta, coords, lo, hi);
    worst = Math.max(worst, t.leaf.bound);
    if (t.pass) return { leaf: t.leaf };
    if (evaluations + 2 > budget) {
      outcome = `‖Dg‖₂ bound ${t.leaf.bound.toPrecision(6)} >= 1 on a box`;
      return null;
    }
    // split along the widest coordinate
    let axis = 0;
    for (let k = 1; k < lo.length; k++) if (hi[k]! - lo[k]! > hi[axis]! - lo[axis]!) axis = k;
    const at = lo[axis]! + (hi[axis]! - lo[axis]!) / 2;
    if (!(at > lo[axis]! && at < hi[axis]!)) {
      outcome = 'a box can no longer be split';
      return null;
    }
    const hiL = hi.slice();
    hiL[axis] = at;
    const loR = lo.slice();
    loR[axis] = at;
    const left = visit(lo, hiL);
    if (!left) return null;
    const right = visit(loR, hi);
    if (!right) return null;
    return { axis, at, lo, hi, children: [left, right] };
  };
  const tree = visit(B.lo, B.hi);
  return { tree, evaluations, outcome: tree ? 'proved' : outcome, bound: worst };
}

/** The largest leaf bound of a tree. */
function treeBound(node: ProofNode): number {
  return 'leaf' in node ? node.leaf.bound : Math.max(treeBound(node.children[0]), treeBound(node.children[1]));
}

/** true when the Euclidean ball of radius ρ around z lies in B (ends rounded outward). */
export function ballInBox(z: readonly number[], rho: number, B: { lo: number[]; hi: number[] }): boolean {
  for (let k = 0; k < z.length; k++) if (!(down(z[k]! - rho) >= B.lo[k]! && up(z[k]! + rho) <= B.hi[k]!)) return false;
  return Number.isFinite(rho);
}

/**
 * The ball of the module comment: an enclosure of g(ẑ), ρ = ‖g(ẑ) − ẑ‖₂/(1 − L) rounded up, and
 * whether the ball lies in B.
 */
export function contractionBall(
  enclose: Encloser,
  theta: Float64Array,
  coords: Int32Array,
  B: { lo: number[]; hi: number[] },
  L: number,
) {
  const z = Array.from(coords, (j) => theta[j]!);
  const residualImage = blockOf(enclose(Float64Array.from(theta), Float64Array.from(theta), null), coords);
  // ‖g(ẑ) − ẑ‖₂ rounded up: each |component| bounded by the farther end of the enclosure
  let s = 0;
  for (let k = 0; k < z.length; k++) {
    const r = Math.max(up(residualImage.hi[k]! - z[k]!), up(z[k]! - residualImage.lo[k]!), 0);
    s = up(s + up(r * r));
  }
  const ballRadius = up(up(Math.sqrt(s)) / down(1 - L));
  return { z, residualImage, ballRadius, inside: ballInBox(z, ballRadius, B) };
}

/** The ball cut to B, then `steps` narrowings X ← g(X) ∩ X (z* = g(z*) ∈ g(X) whenever z* ∈ X). */
export function narrowEnclosure(
  enclose: Encloser,
  theta: Float64Array,
  coords: Int32Array,
  B: { lo: number[]; hi: number[] },
  z: readonly number[],
  ballRadius: number,
  steps: number,
) {
  let lo = z.map((v, k) => Math.max(down(v - ballRadius), B.lo[k]!));
  let hi = z.map((v, k) => Math.min(up(v + ballRadius), B.hi[k]!));
  for (let i = 0; i < steps; i++) {
    const { L: Lb, H } = embed(theta, coords, lo, hi);
    const img = blockOf(enclose(Lb, H, null), coords);
    lo = lo.map((v, k) => Math.max(v, img.lo[k]!));
    hi = hi.map((v, k) => Math.min(v, img.hi[k]!));
  }
  return { lo, hi };
}

/**
 * The boxes to try: the given one (a declared domain box, say), then θ̂_W ± r·max(1, |θ̂_j|) for
 * r = radius, radius/10, … down to minRadius (a given box may fail where a smaller one holds:
 * the image of a domain box is enclosed only up to rounding, and may poke out of it).
 */
function candidateBoxes(theta: Float64Array, coords: Int32Array, o: ContractionProofOptions) {
  const out: { radius: number | null; lo: number[]; hi: number[] }[] = [];
  if (o.box) out.push({ radius: null, lo: Array.from(o.box.lower), hi: Array.from(o.box.upper) });
  const min = o.minRadius ?? 1e-9;
  for (let r = o.radius ?? 0.1; r >= min * (1 - 1e-9); r /= 10) {
    const lo: number[] = [];
    const hi: number[] = [];
    for (let k = 0; k < coords.length; k++) {
      const v = theta[coords[k]!]!;
      const w = r * Math.max(1, Math.abs(v));
      lo.push(down(v - w));
      hi.push(up(v + w));
    }
    out.push({ radius: r, lo, hi });
  }
  return out;
}

/**
 * Proves that g (the block map of Q at θ̂ on W = `coordinates`) is a contraction of a box
 * around θ̂_W, with the bound, the box and an enclosure of its unique fixed point there; or
 * says what was tried. Cost: per enclosure one interval evaluation of the form with |W| seeds.
 */
export function proveContraction(
  enclose: Encloser,
  theta: Float64Array,
  coordinates: Int32Array,
  options: ContractionProofOptions = {},
): ContractionProof {
  const attempts: ProofAttempt[] = [];
  let evaluations = 0;
  const total = options.budget ?? 40;
  for (const c of candidateBoxes(theta, coordinates, options)) {
    if (evaluations >= total) break;
    const B = { lo: c.lo, hi: c.hi };
    const budget = Math.min(options.budgetPerBox ?? 8, total - evaluations);
    const r = proveOnBox(enclose, theta, coordinates, B, budget);
    evaluations += r.evaluations;
    attempts.push({ radius: c.radius, evaluations: r.evaluations, outcome: r.outcome, bound: r.bound });
    if (!r.tree) continue;
    const upperBound = treeBound(r.tree);
    const ball = contractionBall(enclose, theta, coordinates, B, upperBound);
    evaluations += 1;
    if (!ball.inside) {
      attempts[attempts.length - 1]!.outcome =
        `‖Dg‖₂ <= ${upperBound.toPrecision(6)} on the box, but the ball of radius ${ball.ballRadius.toPrecision(3)} it gives around θ̂ does not fit in it`;
      continue;
    }
    const steps = options.narrowingSteps ?? 2;
    const enclosure = narrowEnclosure(enclose, theta, coordinates, B, ball.z, ball.ballRadius, steps);
    evaluations += steps;
    const width = maxOf(enclosure.hi.map((h, k) => h - enclosure.lo[k]!));
    return {
      verdict: 'proved',
      upperBound,
      box: B,
      fixedPointEnclosure: enclosure,
      enclosureWidth: width,
      attempts,
      evaluations,
      certificate: {
        coordinates: Array.from(coordinates),
        box: B,
        tree: r.tree,
        upperBound,
        residualImage: ball.residualImage,
        ballRadius: ball.ballRadius,
        narrowingSteps: steps,
        fixedPointEnclosure: enclosure,
      },
    };
  }
  return {
    verdict: 'undecided',
    upperBound: null,
    box: null,
    fixedPointEnclosure: null,
    enclosureWidth: null,
    attempts,
    evaluations,
    certificate: null,
  };
}
