/**
 * The independent checker of proof certificates (`ordergap check-proof FILE`; the format is in
 * src/certify/certificate.ts). It shares no code with the prover (src/certify) beyond the
 * interval primitives (src/interval): it re-evaluates every enclosure the certificate claims from
 * the system's own forms and re-checks every inequality from the data.
 *
 * Per contraction block, with g(z) = Q(θ̂ with θ_W = z)_W and B the claimed box:
 * 1. the tree tiles B: each split halves its box at `at`, strictly inside, along `axis`;
 * 2. each leaf: the claimed Jacobian enclosure contains the re-evaluated one; the leaf's norm
 *    bound, recomputed from its claimed Jacobian enclosure, is <= the leaf's claimed bound <=
 *    upperBound < 1. Then ‖Dg‖₂ <= upperBound on B: g is a contraction of B;
 * 3. the ball: the claimed enclosure of g(ẑ), ẑ = θ̂_W, contains the re-evaluated one;
 *    ρ = ‖g(ẑ) − ẑ‖₂/(1 − upperBound), recomputed rounded up, is <= ballRadius, and the ball
 *    ‖z − ẑ‖₂ <= ballRadius lies in B. Then g maps the ball into itself: exactly one fixed point
 *    z* there and none other in B (Banach; the argument is in src/certify/contractionProof.ts);
 * 4. the ball cut to B, narrowed `narrowingSteps` times by X ← g(X) ∩ X (re-evaluated), lies in
 *    the claimed enclosure of z*.
 * Any failed check rejects the block, with the reason; a block is accepted only when all pass.
 *
 * Per non-degeneracy entry (claims about G_W = Σ_e p_e (DF_e B)ᵀ(DF_e B), F_e = Q∘P_e − P_e∘Q,
 * B the columns of W, over the box X*):
 * 1. the contraction block it names is in the certificate and accepted; X* equals θ̂ off that
 *    block's coordinates and contains the block's fixedPointEnclosure on them, so θ* ∈ X*;
 * 2. the items are the system's P(·|θ̂) (same ids, same p, every item with p > 0);
 * 3. per item, DF_e's columns along W over X* are re-enclosed from the system's tfjs forms: the
 *    composed forms Q∘P_e and P_e∘Q enclosed separately (forward-mode interval tangents) and
 *    subtracted with outward rounding, equal point enclosures giving exactly 0 (an interval
 *    difference of one composed form would not); G_W is accumulated in outward-rounded interval
 *    arithmetic (src/interval/gram.ts);
 * 4. 'lambdaMin' with bound μ: λ_min(G) > μ for every symmetric G in the enclosure
 *    (src/interval/matrixBounds.ts, `lambdaMinAbove`); 'exactKernel': the named coordinates of
 *    W have columns exactly [0, 0] for every item, so they are kernel directions of G_W on X*.
 * A system without tfjs forms of Q and P_e cannot be re-checked here (no chain rule through an
 * interval form): its entries are rejected.
 */
import { R, sub } from '../interval/arith.js';
import { addItem, gramMidRad, newGram } from '../interval/gram.js';
import { encloseForm, type JacobianEnclosure, type TfForm } from '../interval/intervalTf.js';
import { intervalNormUpper, lambdaMinAbove, midRad } from '../interval/matrixBounds.js';
import { down, up } from '../interval/round.js';
import type { FormEnclosure, OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';

/** The verdict on one block of a certificate. */
export interface BlockCheck {
  subspace: string;
  valid: boolean;
  upperBound: number;
  /** Leaves re-evaluated. */
  leaves: number;
  /** Why the block is rejected (empty when valid). */
  failures: string[];
}

/** The verdict on one non-degeneracy entry of a certificate. */
export interface NonDegeneracyCheck {
  subspace: string;
  valid: boolean;
  /** Why the entry is rejected (empty when valid). */
  failures: string[];
}

/** The checker's result; `valid` requires every block and every non-degeneracy entry. */
export interface ProofCheck {
  valid: boolean;
  system: string;
  blocks: BlockCheck[];
  nonDegeneracy: NonDegeneracyCheck[];
  /** Failures of the document itself (format, system, θ̂). */
  failures: string[];
}

type Box = { lo: number[]; hi: number[] };
type Enclose = (lo: Float64Array, hi: Float64Array, seeds: Int32Array | null) => FormEnclosure;

/** Q's enclosure from the system's interval form, else its tfjs form, evaluated in interval arithmetic. */
function systemEnclosure(system: OperatorSystem, coords: Int32Array): Enclose | null {
  const form = system.capabilities.intervalForm;
  if (form) return (lo, hi, seeds) => form.consolidate(lo, hi, seeds, seeds ? coords : null);
  const tf = system.capabilities.linearization?.consolidateTf;
  if (!tf) return null;
  return (lo, hi, seeds) => encloseForm(tf as never, lo, hi, seeds ? { seeds, rows: coords } : {});
}

const isNums = (v: unknown, n: number): v is number[] =>
  Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number');
/** An object {lo, hi} of n finite numbers each with lo_k <= hi_k (NaN and ±∞ ends fail: a box is bounded). */
const isBox = (v: unknown, n: number): v is Box =>
  typeof v === 'object' &&
  v !== null &&
  isNums((v as Box).lo, n) &&
  isNums((v as Box).hi, n) &&
  (v as Box).lo.every((l, k) => Number.isFinite(l) && Number.isFinite((v as Box).hi[k]) && l <= (v as Box).hi[k]!);

type Leaf = Box & { jacobian: Box; bound: number };
const isLeaf = (v: unknown, m: number): v is Leaf =>
  isBox(v, m) && isBox((v as Leaf).jacobian, m * m) && typeof (v as Leaf).bound === 'number';

/** a ⊇ b entrywise (NaN never contains and is never contained). */
function contains(
  a: { lo: ArrayLike<number>; hi: ArrayLike<number> },
  b: { lo: ArrayLike<number>; hi: ArrayLike<number> },
) {
  for (let k = 0; k < b.lo.length; k++) if (!(a.lo[k]! <= b.lo[k]! && a.hi[k]! >= b.hi[k]!)) return false;
  return true;
}

/** θ̂ with the block set to the box. */
function embedBox(theta: Float64Array, coords: Int32Array, box: Box) {
  const lo = Float64Array.from(theta);
  const hi = Float64Array.from(theta);
  coords.forEach((j, k) => {
    lo[j] = box.lo[k]!;
    hi[j] = box.hi[k]!;
  });
  return { lo, hi };
}

const restrict = (e: FormEnclosure, coords: Int32Array) => ({
  lo: Array.from(coords, (j) => e.lo[j]!),
  hi: Array.from(coords, (j) => e.hi[j]!),
});

/**
 * The deepest bisection tree checked: far beyond what a prover's enclosure budget makes (the
 * tree's leaves are its enclosures), and shallow enough for the recursion below.
 */
const MAX_TREE_DEPTH = 2000;

/** Checks the tree under `node` over `box`; returns the leaves checked. */
function checkTree(
  node: unknown,
  box: Box,
  B: Box,
  ctx: { enclose: Enclose; theta: Float64Array; coords: Int32Array; upperBound: number; failures: string[] },
  path: string,
  depth = 0,
): number {
  const m = ctx.coords.length;
  const n = node as Record<string, unknown>;
  if (typeof n !== 'object' || n === null) {
    ctx.failures.push(`${path}: not a tree node`);
    return 0;
  }
  if (depth > MAX_TREE_DEPTH) {
    ctx.failures.push(`${path.slice(0, 40)}…: the tree is deeper than ${MAX_TREE_DEPTH} splits`);
    return 0;
  }
  if ('leaf' in n) {
    const lb = n['leaf'];
    if (!isLeaf(lb, m)) {
      ctx.failures.push(`${path}: malformed leaf`);
      return 0;
    }
    if (!contains(lb, box) || !contains(box, lb)) ctx.failures.push(`${path}: the leaf's box is not the node's box`);
    const { lo, hi } = embedBox(ctx.theta, ctx.coords, box);
    const e = ctx.enclose(lo, hi, ctx.coords);
    if (!e.jacobian || !contains(lb.jacobian, e.jacobian))
      ctx.failures.push(`${path}: the claimed Jacobian enclosure does not contain the re-evaluated one`);
    const finite = lb.jacobian.lo.every(Number.isFinite) && lb.jacobian.hi.every(Number.isFinite);
    const { mid, rad } = midRad(Float64Array.from(lb.jacobian.lo), Float64Array.from(lb.jacobian.hi));
    const bound = finite ? intervalNormUpper(mid, rad, m, m) : Infinity;
    if (!(bound <= lb.bound))
      ctx.failures.push(`${path}: the norm bound recomputed, ${bound}, exceeds the claimed ${lb.bound}`);
    if (!(lb.bound <= ctx.upperBound))
      ctx.failures.push(`${path}: the leaf's bound ${lb.bound} exceeds upperBound ${ctx.upperBound}`);
    return 1;
  }
  const axis = n['axis'];
  const at = n['at'];
  const children = n['children'];
  if (
    typeof axis !== 'number' ||
    !Number.isInteger(axis) ||
    axis < 0 ||
    axis >= m ||
    typeof at !== 'number' ||
    !Array.isArray(children) ||
    children.length !== 2
  ) {
    ctx.failures.push(`${path}: malformed split`);
    return 0;
  }
  if (!(at > box.lo[axis]! && at < box.hi[axis]!)) {
    ctx.failures.push(`${path}: the split point ${at} is not inside the box along coordinate ${axis}`);
    return 0;
  }
  const left = { lo: box.lo, hi: box.hi.map((h, k) => (k === axis ? at : h)) };
  const right = { lo: box.lo.map((l, k) => (k === axis ? at : l)), hi: box.hi };
  return (
    checkTree(children[0], left, B, ctx, `${path}.0`, depth + 1) +
    checkTree(children[1], right, B, ctx, `${path}.1`, depth + 1)
  );
}

/** Step 3 of the module comment: the fixed point's enclosure. */
function checkEnclosure(
  block: Record<string, unknown>,
  B: Box,
  enclose: Enclose,
  theta: Float64Array,
  coords: Int32Array,
  L: number,
  failures: string[],
) {
  const m = coords.length;
  const z = Array.from(coords, (j) => theta[j]!);
  if (!contains(B, { lo: z, hi: z })) failures.push('θ̂ on the block is not inside the box B');
  const residual = block['residualImage'];
  const radius = block['ballRadius'];
  const steps = block['narrowingSteps'];
  const claimed = block['fixedPointEnclosure'];
  if (
    !isBox(residual, m) ||
    typeof radius !== 'number' ||
    typeof steps !== 'number' ||
    !Number.isInteger(steps) ||
    steps < 0 ||
    steps > 100 ||
    !isBox(claimed, m)
  ) {
    failures.push('malformed fixed-point enclosure data');
    return;
  }
  if (!contains(residual, restrict(enclose(Float64Array.from(theta), Float64Array.from(theta), null), coords)))
    failures.push('the claimed enclosure of g(θ̂) does not contain the re-evaluated one');
  let s = 0;
  for (let k = 0; k < m; k++) {
    const r = Math.max(up(residual.hi[k]! - z[k]!), up(z[k]! - residual.lo[k]!), 0);
    s = up(s + up(r * r));
  }
  const before = failures.length;
  const rho = up(up(Math.sqrt(s)) / down(1 - L));
  if (!(rho <= radius)) failures.push(`the ball radius recomputed, ${rho}, exceeds the claimed ${radius}`);
  for (let k = 0; k < m; k++)
    if (!(down(z[k]! - radius) >= B.lo[k]! && up(z[k]! + radius) <= B.hi[k]!)) {
      failures.push(`the ball of radius ${radius} around θ̂ leaves the box B along coordinate ${k}`);
      break;
    }
  // the narrowing starts from the ball, which must hold the fixed point: without it there is
  // nothing to narrow (and a box it empties would be no box)
  if (failures.length > before) return;
  let X: Box = {
    lo: z.map((v, k) => Math.max(down(v - radius), B.lo[k]!)),
    hi: z.map((v, k) => Math.min(up(v + radius), B.hi[k]!)),
  };
  for (let i = 0; i < steps; i++) {
    const { lo, hi } = embedBox(theta, coords, X);
    const img = restrict(enclose(lo, hi, null), coords);
    X = { lo: X.lo.map((v, k) => Math.max(v, img.lo[k]!)), hi: X.hi.map((v, k) => Math.min(v, img.hi[k]!)) };
    if (!X.lo.every((l, k) => l <= X.hi[k]!)) {
      failures.push(`narrowing step ${i + 1} empties the box: g maps the ball outside itself`);
      return;
    }
  }
  if (!contains(claimed, X)) failures.push('the claimed fixed-point enclosure does not contain the recomputed one');
}

/** A non-empty list of distinct indices in [0, d) as an Int32Array, else null. */
function coordinateList(v: unknown, d: number): Int32Array | null {
  if (!Array.isArray(v) || v.length === 0 || new Set(v).size !== v.length) return null;
  return v.every((j) => Number.isInteger(j) && j >= 0 && j < d) ? Int32Array.from(v as number[]) : null;
}

/** Checks one contraction block of a certificate. */
function checkBlock(raw: unknown, system: OperatorSystem, theta: Float64Array, index: number): BlockCheck {
  const block = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const subspace = typeof block['subspace'] === 'string' ? block['subspace'] : `#${index}`;
  const failures: string[] = [];
  const upperBound = typeof block['upperBound'] === 'number' ? block['upperBound'] : NaN;
  const result = (leaves: number): BlockCheck => ({
    subspace,
    valid: failures.length === 0,
    upperBound,
    leaves,
    failures,
  });
  const coords = coordinateList(block['coordinates'], system.dim);
  if (!coords) {
    failures.push(`coordinates must be distinct indices in [0, ${system.dim})`);
    return result(0);
  }
  const m = coords.length;
  if (block['norm'] !== '2') failures.push(`norm ${String(block['norm'])}: only the Euclidean norm '2' is checked`);
  if (!(upperBound < 1 && upperBound >= 0)) failures.push(`upperBound ${upperBound} is not in [0, 1)`);
  const B = block['box'];
  if (!isBox(B, m)) {
    failures.push('malformed box');
    return result(0);
  }
  const enclose = systemEnclosure(system, coords);
  if (!enclose) {
    failures.push(`${system.name} has neither an interval form nor a tfjs form of Q to re-evaluate`);
    return result(0);
  }
  const leaves = checkTree(block['tree'], B, B, { enclose, theta, coords, upperBound, failures }, 'tree');
  if (failures.length === 0) checkEnclosure(block, B, enclose, theta, coords, upperBound, failures);
  return result(leaves);
}

type Claim = { kind: 'lambdaMin'; bound: number } | { kind: 'exactKernel'; coordinates: number[] };
type Item = { id: string; p: number };
/** The contraction blocks as written and as checked, and θ̂. */
type Blocks = { raw: unknown[]; checked: BlockCheck[]; theta: Float64Array };

const isClaim = (v: unknown): v is Claim => {
  const c = v as Record<string, unknown> | null;
  if (typeof c !== 'object' || c === null) return false;
  // λ_min > μ proves non-degeneracy only for μ >= 0 (a negative μ holds for every Gramian)
  if (c['kind'] === 'lambdaMin')
    return typeof c['bound'] === 'number' && Number.isFinite(c['bound']) && c['bound'] >= 0;
  const coords = c['coordinates'];
  return (
    c['kind'] === 'exactKernel' &&
    Array.isArray(coords) &&
    coords.length > 0 &&
    coords.every((j) => Number.isInteger(j)) &&
    new Set(coords).size === coords.length
  );
};
const isItems = (v: unknown): v is Item[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((it: Item) => typeof it?.id === 'string' && typeof it.p === 'number' && it.p > 0 && it.p < Infinity) &&
  new Set(v.map((it: Item) => it.id)).size === v.length;

/**
 * Step 1 (module comment, non-degeneracy): the named block is accepted and X* holds θ̂ off its
 * coordinates and its fixed-point enclosure on them.
 */
function checkFixedPointBox(name: unknown, X: Box, blocks: Blocks, failures: string[]): void {
  const k = blocks.checked.findIndex((b) => b.subspace === name);
  if (typeof name !== 'string' || k < 0) {
    failures.push(`the contraction block '${String(name)}' is not in the certificate`);
    return;
  }
  if (!blocks.checked[k]!.valid) {
    failures.push(`the contraction block '${name}' is rejected: X* is not known to hold the fixed point`);
    return;
  }
  const block = blocks.raw[k] as { coordinates: number[]; fixedPointEnclosure: Box };
  const onBlock = new Set(block.coordinates);
  const off = blocks.theta.findIndex((v, j) => !onBlock.has(j) && !(X.lo[j] === v && X.hi[j] === v));
  if (off >= 0) failures.push(`X* is not θ̂ off the block '${name}' (coordinate ${off})`);
  const e = block.fixedPointEnclosure;
  const lo = block.coordinates.map((j) => X.lo[j]!);
  const hi = block.coordinates.map((j) => X.hi[j]!);
  if (!contains({ lo, hi }, e))
    failures.push(`X* does not contain the fixed-point enclosure of the contraction block '${name}'`);
}

/** Step 2: the items are P(·|θ̂)'s items with p > 0, with the same p. */
function checkItems(items: Item[], system: OperatorSystem, theta: Float64Array, failures: string[]): void {
  let pool: readonly Item[];
  try {
    pool = system.evidenceAt(theta).filter((e) => e.p > 0);
  } catch (e) {
    failures.push(`P(·|θ̂) could not be evaluated: ${(e as Error).message}`);
    return;
  }
  const given = new Map(items.map((it) => [it.id, it.p]));
  const differ = pool.find((e) => given.get(e.id) !== e.p);
  if (differ || pool.length !== items.length)
    failures.push(
      `the items are not P(·|θ̂) (${differ ? `${differ.id}: p = ${differ.p}, listed ${String(given.get(differ.id))}` : `${pool.length} items with p > 0, ${items.length} listed`})`,
    );
}

/** a − b entrywise with outward rounding; equal points give exactly 0, an exact 0 subtracted copies a. */
function commutatorColumns(a: JacobianEnclosure, b: JacobianEnclosure): JacobianEnclosure {
  const out = { lo: new Float64Array(a.lo.length), hi: new Float64Array(a.lo.length), rows: a.rows, cols: a.cols };
  a.lo.forEach((aLo, i) => {
    const [aHi, bLo, bHi] = [a.hi[i]!, b.lo[i]!, b.hi[i]!];
    const samePoint = aLo === aHi && bLo === bHi && aLo === bLo;
    if (samePoint) return;
    if (bLo === 0 && bHi === 0) [out.lo[i], out.hi[i]] = [aLo, aHi];
    else if (aLo === 0 && aHi === 0) [out.lo[i], out.hi[i]] = [-bHi, -bLo];
    else {
      sub(aLo, aHi, bLo, bHi);
      [out.lo[i], out.hi[i]] = [R.lo, R.hi];
    }
  });
  return out;
}

/** Steps 3–4: re-encloses G_W over X* from the tfjs forms and checks the claim. */
function checkClaim(
  system: OperatorSystem,
  X: Box,
  W: Int32Array,
  items: Item[],
  claim: Claim,
  failures: string[],
): void {
  const lin = system.capabilities.linearization;
  const Q = lin?.consolidateTf as TfForm | undefined;
  const P = lin?.expandTf as ((tf: unknown, id: string, X: unknown) => unknown) | undefined;
  if (!Q || !P) {
    failures.push(`${system.name} has no tfjs forms of Q and P_e to re-enclose DF_e from`);
    return;
  }
  const [lo, hi] = [Float64Array.from(X.lo), Float64Array.from(X.hi)];
  const tangents = (form: TfForm) => encloseForm(form, lo, hi, { seeds: W }).jacobian!;
  const g = newGram(W.length);
  for (const { id, p } of items) {
    const J = commutatorColumns(
      tangents((tf, x) => Q(tf, P(tf, id, x))),
      tangents((tf, x) => P(tf, id, Q(tf, x))),
    );
    if (![...J.lo, ...J.hi].every(Number.isFinite)) {
      failures.push(`the enclosure of DF_${id} over X* has a NaN or infinite entry`);
      return;
    }
    addItem(g, J, p);
  }
  if (claim.kind === 'lambdaMin') {
    const G = gramMidRad(g);
    if (!lambdaMinAbove(G.mid, G.rad, G.n, claim.bound))
      failures.push(`λ_min(G_W) > ${claim.bound} over X* is not shown by the re-enclosed Gramian`);
    return;
  }
  const notZero = claim.coordinates.filter((j) => {
    const k = W.indexOf(j);
    return k < 0 || g.zeroColumn[k] !== 1;
  });
  if (notZero.length > 0)
    failures.push(
      `the columns of DF_e on coordinate(s) ${notZero.join(', ')} are not exactly 0 over X* for every item (or not in W)`,
    );
}

/** Checks one non-degeneracy entry of a certificate (module comment). */
function checkVerdict(raw: unknown, system: OperatorSystem, blocks: Blocks, index: number): NonDegeneracyCheck {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const subspace = typeof entry['subspace'] === 'string' ? entry['subspace'] : `#${index}`;
  const failures: string[] = [];
  const result = () => ({ subspace, valid: failures.length === 0, failures });
  const W = coordinateList(entry['coordinates'], system.dim);
  const X = entry['enclosure'];
  const items = entry['items'];
  const claim = entry['claim'];
  if (!W) failures.push(`coordinates must be distinct indices in [0, ${system.dim})`);
  if (!isBox(X, system.dim) || ![...X.lo, ...X.hi].every(Number.isFinite))
    failures.push(`the enclosure X* must be a box of ${system.dim} finite lo <= hi`);
  if (!isItems(items)) failures.push('items must be a non-empty list of distinct ids with finite p > 0');
  if (!isClaim(claim))
    failures.push("the claim must be { kind: 'lambdaMin', bound } or { kind: 'exactKernel', coordinates }");
  if (failures.length > 0) return result();
  checkFixedPointBox(entry['block'], X as Box, blocks, failures);
  checkItems(items as Item[], system, blocks.theta, failures);
  if (failures.length === 0) checkClaim(system, X as Box, W!, items as Item[], claim as Claim, failures);
  return result();
}

/**
 * Checks a proof certificate against the system it names (module comment).
 * @throws {ArgumentError} the certificate is not an object.
 */
export function checkProof(certificate: unknown, system: OperatorSystem): ProofCheck {
  if (typeof certificate !== 'object' || certificate === null || Array.isArray(certificate))
    throw new ArgumentError('certificate', certificate, 'must be a JSON object (an ordergap-proof certificate)');
  const c = certificate as Record<string, unknown>;
  const failures: string[] = [];
  if (c['format'] !== 'ordergap-proof' || c['version'] !== 1)
    failures.push(`format ${String(c['format'])} version ${String(c['version'])}: expected ordergap-proof version 1`);
  const sys = c['system'] as { name?: unknown; dim?: unknown } | undefined;
  if (sys?.name !== system.name || sys?.dim !== system.dim)
    failures.push(
      `the certificate is for ${String(sys?.name)} (d = ${String(sys?.dim)}), not ${system.name} (d = ${system.dim})`,
    );
  if (!isNums(c['theta'], system.dim) || !(c['theta'] as number[]).every(Number.isFinite))
    failures.push(`theta must hold ${system.dim} finite numbers`);
  const blocks = Array.isArray(c['contraction']) ? c['contraction'] : null;
  if (!blocks || blocks.length === 0) failures.push('the certificate proves no contraction block');
  const verdicts = c['nonDegeneracy'] ?? [];
  if (!Array.isArray(verdicts)) failures.push('nonDegeneracy must be an array');
  if (failures.length > 0) return { valid: false, system: system.name, blocks: [], nonDegeneracy: [], failures };
  const theta = Float64Array.from(c['theta'] as number[]);
  const checked = blocks!.map((b, i) => checkBlock(b, system, theta, i));
  const nonDegeneracy = (verdicts as unknown[]).map((v, i) =>
    checkVerdict(v, system, { raw: blocks!, checked, theta }, i),
  );
  const valid = checked.every((b) => b.valid) && nonDegeneracy.every((v) => v.valid);
  return { valid, system: system.name, blocks: checked, nonDegeneracy, failures };
}
