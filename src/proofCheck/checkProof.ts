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
 */
import { encloseForm } from '../interval/intervalTf.js';
import { intervalNormUpper, midRad } from '../interval/matrixBounds.js';
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

/** The checker's result. */
export interface ProofCheck {
  valid: boolean;
  system: string;
  blocks: BlockCheck[];
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
/** An object {lo, hi} of n numbers each with lo_k <= hi_k (NaN ends fail). */
const isBox = (v: unknown, n: number): v is Box =>
  typeof v === 'object' &&
  v !== null &&
  isNums((v as Box).lo, n) &&
  isNums((v as Box).hi, n) &&
  (v as Box).lo.every((l, k) => l <= (v as Box).hi[k]!);

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

/** Checks the tree under `node` over `box`; returns the leaves checked. */
function checkTree(
  node: unknown,
  box: Box,
  B: Box,
  ctx: { enclose: Enclose; theta: Float64Array; coords: Int32Array; upperBound: number; failures: string[] },
  path: string,
): number {
  const m = ctx.coords.length;
  const n = node as Record<string, unknown>;
  if (typeof n !== 'object' || n === null) {
    ctx.failures.push(`${path}: not a tree node`);
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
  return checkTree(children[0], left, B, ctx, `${path}.0`) + checkTree(children[1], right, B, ctx, `${path}.1`);
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
  const rho = up(up(Math.sqrt(s)) / down(1 - L));
  if (!(rho <= radius)) failures.push(`the ball radius recomputed, ${rho}, exceeds the claimed ${radius}`);
  for (let k = 0; k < m; k++)
    if (!(down(z[k]! - radius) >= B.lo[k]! && up(z[k]! + radius) <= B.hi[k]!)) {
      failures.push(`the ball of radius ${radius} around θ̂ leaves the box B along coordinate ${k}`);
      break;
    }
  let X: Box = {
    lo: z.map((v, k) => Math.max(down(v - radius), B.lo[k]!)),
    hi: z.map((v, k) => Math.min(up(v + radius), B.hi[k]!)),
  };
  for (let i = 0; i < steps; i++) {
    const { lo, hi } = embedBox(theta, coords, X);
    const img = restrict(enclose(lo, hi, null), coords);
    X = { lo: X.lo.map((v, k) => Math.max(v, img.lo[k]!)), hi: X.hi.map((v, k) => Math.min(v, img.hi[k]!)) };
  }
  if (!contains(claimed, X)) failures.push('the claimed fixed-point enclosure does not contain the recomputed one');
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
  const coordsRaw = block['coordinates'];
  const d = system.dim;
  if (
    !Array.isArray(coordsRaw) ||
    coordsRaw.length === 0 ||
    !coordsRaw.every((j) => Number.isInteger(j) && j >= 0 && j < d) ||
    new Set(coordsRaw).size !== coordsRaw.length
  ) {
    failures.push(`coordinates must be distinct indices in [0, ${d})`);
    return result(0);
  }
  const coords = Int32Array.from(coordsRaw as number[]);
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
  if (failures.length > 0) return { valid: false, system: system.name, blocks: [], failures };
  const theta = Float64Array.from(c['theta'] as number[]);
  const checked = blocks!.map((b, i) => checkBlock(b, system, theta, i));
  return { valid: checked.every((b) => b.valid), system: system.name, blocks: checked, failures };
}
