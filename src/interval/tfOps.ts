/**
 * Elementwise ops of the interval tfjs namespace on {@link IntervalTensor}s: unary maps, binary
 * arithmetic with numpy broadcasting, comparisons and `where`. Values are enclosed by the
 * outward-rounded scalar ops of ./arith.ts (every rounded operation goes through them); tangents
 * by forward-mode rules evaluated in interval arithmetic over the box:
 *
 * - chain rule f'(x)·dx with f' enclosed over the argument's interval: exp' = exp, log' = 1/x,
 *   sqrt' = 1/(2√x), tanh' = 1 − tanh², σ' = σ(1 − σ) (its exact range over [σ_lo, σ_hi], the
 *   concave s(1 − s) peaking at 1/4), softplus' = σ, square' = 2x;
 * - product and quotient rules d(ab) = da·b + a·db, d(a/b) = (da − (a/b)·db)/b;
 * - the kinks of relu, abs, clipByValue, maximum and minimum: where the argument's interval
 *   contains the kink, the tangent is the hull of the one-sided derivatives. That encloses
 *   Clarke's generalised Jacobian of the Lipschitz map, which is what a Lipschitz bound over the
 *   box needs (the mean-value inequality holds with it); it is not a derivative in the classical
 *   sense there;
 * - comparisons and `where`: a comparison decided over the box (the same outcome at every point)
 *   is locally constant, tangent 0. One undecided over the box may switch inside it, and a switch
 *   can be a jump, which no Lipschitz bound covers: its tangent is [−∞, ∞] on every seed its
 *   operands depend on there, so anything computed from it (arithmetic on the 0/1 outcome, or a
 *   `where` it selects for) has no finite tangent bound and no contraction is proved through it.
 *   `where` with an undecided condition that does not depend on the seeds (an uncertain parameter)
 *   is one of its branches for every point of the box, so the hull of the branches' values and
 *   tangents encloses it; with a condition that does, the value is the hull and the tangent
 *   [−∞, ∞] (a continuous switch, relu written with `where`, is not told from a jump: write it with
 *   relu, maximum, minimum or clipByValue, whose kinks are enclosed as above).
 *
 * Accuracy: each value end moves outward by the few ulps ./arith.ts states per operation; tangent
 * ends by the same per rounded operation of the rule. Exact operations stay exact: neg, relu, abs,
 * maximum, minimum, selections, and tangent terms with coefficient ±1 (add, sub, neg copy tangents
 * without rounding).
 *
 * NaN: a NaN end means "no enclosure" and propagates elementwise (the products and quotients
 * check their operands, since ./arith.ts maps 0·x and x/[.. 0 ..] to numbers whatever x is);
 * a comparison with a NaN operand gives a NaN condition, and `where` on it a NaN element.
 */
import {
  R,
  abs,
  add,
  clamp,
  div,
  exp,
  log,
  max,
  min,
  mul,
  neg,
  relu,
  scale,
  sigmoid,
  softplus,
  sqrt,
  square,
  sub,
  tanh,
} from './arith.js';
import {
  IntervalTensor,
  at,
  broadcastShape,
  operandIndex,
  sameShape,
  seedCount,
  sizeOf,
  zeroTangent,
  type OperandIndex,
  type Tangent,
} from './tensor.js';
import { ArgumentError } from '../util/errors.js';

/** The unary elementwise ops. */
export type UnaryOp = 'neg' | 'square' | 'exp' | 'log' | 'sqrt' | 'tanh' | 'sigmoid' | 'softplus' | 'relu' | 'abs';

/** The binary elementwise ops. */
export type BinaryOp = 'add' | 'sub' | 'mul' | 'div' | 'maximum' | 'minimum';

/** The comparisons (a condition tensor for `where`). */
export type CompareOp = 'greater' | 'greaterEqual' | 'less' | 'lessEqual' | 'equal' | 'notEqual';

/** Sets the register R to [lo, hi]. */
function setR(lo: number, hi: number): void {
  R.lo = lo;
  R.hi = hi;
}

/** a·b into R, NaN when an end of either operand is NaN (arith's 0·x = 0 would hide it). */
function mulChecked(alo: number, ahi: number, blo: number, bhi: number): void {
  if (!(alo <= ahi && blo <= bhi)) setR(NaN, NaN);
  else mul(alo, ahi, blo, bhi);
}

/** a/b into R, NaN when an end of either operand is NaN. */
function divChecked(alo: number, ahi: number, blo: number, bhi: number): void {
  if (!(alo <= ahi && blo <= bhi)) setR(NaN, NaN);
  else div(alo, ahi, blo, bhi);
}

/** The element arrays the maps and slopes below read. */
type F64 = Float64Array;

/**
 * Writes into R the image of element i ([lo[i], hi[i]]) under an elementwise map. Elements come
 * as arrays and an index, not as numbers: the element loops call maps through a variable, which
 * V8 does not inline, and a call that is not inlined boxes every double argument on the heap
 * (arrays and small integers pass as they are).
 */
export type IntervalMap = (lo: F64, hi: F64, i: number) => void;

/**
 * Writes into R an enclosure of a map's derivative over element i of its argument ([xl[i], xh[i]])
 * whose image is [vl[i], vh[i]] (arrays and an index, as {@link IntervalMap}).
 */
export type IntervalSlope = (xl: F64, xh: F64, vl: F64, vh: F64, i: number) => void;

const UNARY_VALUE: Readonly<Record<UnaryOp, IntervalMap>> = {
  neg: (l, h, i) => neg(l[i]!, h[i]!),
  square: (l, h, i) => square(l[i]!, h[i]!),
  exp: (l, h, i) => exp(l[i]!, h[i]!),
  log: (l, h, i) => log(l[i]!, h[i]!),
  sqrt: (l, h, i) => sqrt(l[i]!, h[i]!),
  tanh: (l, h, i) => tanh(l[i]!, h[i]!),
  sigmoid: (l, h, i) => sigmoid(l[i]!, h[i]!),
  softplus: (l, h, i) => softplus(l[i]!, h[i]!),
  relu: (l, h, i) => relu(l[i]!, h[i]!),
  abs: (l, h, i) => abs(l[i]!, h[i]!),
};

/** Range of s(1 − s) over s ∈ [slo, shi] ⊆ [0, 1] (concave, maximum 1/4 at s = 1/2) into R. */
function logisticSlope(slo: number, shi: number): void {
  sub(1, 1, slo, slo);
  mul(slo, slo, R.lo, R.hi);
  const l1 = R.lo;
  const h1 = R.hi;
  sub(1, 1, shi, shi);
  mul(shi, shi, R.lo, R.hi);
  setR(Math.min(l1, R.lo), slo <= 0.5 && shi >= 0.5 ? 0.25 : Math.max(h1, R.hi));
}

/**
 * f'(x) over element i of the argument ([xl[i], xh[i]]) whose image is [vl[i], vh[i]], into R
 * (arrays and an index: see {@link IntervalMap}).
 */
function unarySlope(op: UnaryOp, xl: F64, xh: F64, vl: F64, vh: F64, i: number): void {
  const xlo = xl[i]!;
  const xhi = xh[i]!;
  const vlo = vl[i]!;
  const vhi = vh[i]!;
  switch (op) {
    case 'neg':
      return setR(-1, -1);
    case 'square':
      return scale(xlo, xhi, 2);
    case 'exp':
      return setR(vlo, vhi);
    case 'log':
      return divChecked(1, 1, xlo, xhi);
    case 'sqrt':
      scale(vlo, vhi, 2);
      return divChecked(1, 1, R.lo, R.hi);
    case 'tanh':
      square(vlo, vhi);
      return sub(1, 1, R.lo, R.hi);
    case 'sigmoid':
      return logisticSlope(vlo, vhi);
    case 'softplus':
      return sigmoid(xlo, xhi);
    case 'relu':
      return xlo > 0 ? setR(1, 1) : xhi < 0 ? setR(0, 0) : setR(0, 1);
    case 'abs':
      return xlo > 0 ? setR(1, 1) : xhi < 0 ? setR(-1, -1) : setR(-1, 1);
  }
}

/**
 * Writes c·d (the source tangent's m seeds at `os`, times the interval c) into dst at `oo`, which
 * holds exact zeros, or adds it to what is there (`accumulate`). c = ±1 copies exactly; c = 0 and
 * zero seeds write nothing (tangents of broadcast tensors are mostly exact zeros: skipping them
 * keeps the cost proportional to the nonzeros).
 */
function putTerm(
  dst: Tangent,
  oo: number,
  src: Tangent,
  os: number,
  clo: number,
  chi: number,
  accumulate: boolean,
): void {
  const m = dst.m;
  const { dlo: ol, dhi: oh } = dst;
  const { dlo: sl, dhi: sh } = src;
  if (clo === 0 && chi === 0) return;
  if (!accumulate && clo === 1 && chi === 1) {
    // a copy loop, not set(subarray(..)): two views per call would be garbage at every element
    for (let s = 0; s < m; s++) {
      ol[oo + s] = sl[os + s]!;
      oh[oo + s] = sh[os + s]!;
    }
    return;
  }
  // exact cases: c = ±1, d = ±1, and the kink hulls [0, 1]·d = hull(0, d), [−1, 1]·d = hull(−d, d)
  const negate = clo === -1 && chi === -1;
  const hull0 = clo === 0 && chi === 1;
  const hullNeg = clo === -1 && chi === 1;
  for (let s = 0; s < m; s++) {
    let tl = sl[os + s]!;
    let th = sh[os + s]!;
    if (tl === 0 && th === 0) continue;
    if (negate) {
      const t = tl;
      tl = -th;
      th = -t;
    } else if (hull0) {
      tl = Math.min(tl, 0);
      th = Math.max(th, 0);
    } else if (hullNeg) {
      const a = Math.max(th, -tl);
      tl = -a;
      th = a;
    } else if (tl === th && (tl === 1 || tl === -1)) {
      // a unit tangent (a seed, or a slice of one): c·(±1) is exact
      tl = th === 1 ? clo : -chi;
      th = th === 1 ? chi : -clo;
    } else if (!(clo === 1 && chi === 1)) {
      mul(clo, chi, tl, th);
      tl = R.lo;
      th = R.hi;
      if (tl === 0 && th === 0) continue;
    }
    const el = ol[oo + s]!;
    const eh = oh[oo + s]!;
    if (accumulate && !(el === 0 && eh === 0)) {
      add(el, eh, tl, th); // adding to an exact 0 stays exact
      tl = R.lo;
      th = R.hi;
    }
    ol[oo + s] = tl;
    oh[oo + s] = th;
  }
}

/** The hull of the tangents of A at `oa` and B at `ob` (an absent one is 0) into dst at `oo`. */
function hullTerm(dst: Tangent, oo: number, A: Tangent | null, oa: number, B: Tangent | null, ob: number): void {
  const m = dst.m;
  for (let s = 0; s < m; s++) {
    const al = A === null ? 0 : A.dlo[oa + s]!;
    const ah = A === null ? 0 : A.dhi[oa + s]!;
    const bl = B === null ? 0 : B.dlo[ob + s]!;
    const bh = B === null ? 0 : B.dhi[ob + s]!;
    dst.dlo[oo + s] = Math.min(al, bl);
    dst.dhi[oo + s] = Math.max(ah, bh);
  }
}

/** Offset of element j's seeds in g, or −1 when g stores no tangent for j. */
function seedOffset(g: Tangent | null, j: number): number {
  if (g === null) return -1;
  const r = j - g.d0;
  return r >= 0 && r < g.dn ? r * g.m : -1;
}

/**
 * An elementwise map of x: values by `value`, and for a non-constant x the tangent f'(x)·dx with
 * f'(x) enclosed by `slope` over each element's interval (its image given too).
 */
export function elementwise(x: IntervalTensor, value: IntervalMap, slope: IntervalSlope): IntervalTensor {
  const n = x.size;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const { lo: xl, hi: xh } = x;
  for (let i = 0; i < n; i++) {
    value(xl, xh, i);
    lo[i] = R.lo;
    hi[i] = R.hi;
  }
  const g = x.tangent;
  if (g === null) return new IntervalTensor(x.shape, lo, hi);
  const out = zeroTangent(g.m, g.d0, g.dn);
  for (let r = 0; r < g.dn; r++) {
    const i = g.d0 + r;
    slope(xl, xh, lo, hi, i);
    putTerm(out, r * g.m, g, r * g.m, R.lo, R.hi, false);
  }
  return new IntervalTensor(x.shape, lo, hi, out);
}

/** A unary elementwise op: values and, for a non-constant x, f'(x)·dx. */
export function unary(op: UnaryOp, x: IntervalTensor): IntervalTensor {
  return elementwise(x, UNARY_VALUE[op], (xl, xh, vl, vh, i) => unarySlope(op, xl, xh, vl, vh, i));
}

/** clipByValue(x, cmin, cmax) for point bounds: exact values; slope 1 inside, 0 outside, [0, 1] at a bound. */
export function clipByValue(x: IntervalTensor, cmin: number, cmax: number): IntervalTensor {
  if (!(typeof cmin === 'number' && typeof cmax === 'number' && cmin <= cmax))
    throw new ArgumentError(
      'tf.clipByValue(clipValueMin, clipValueMax)',
      [cmin, cmax],
      'must be numbers with min <= max',
    );
  return elementwise(
    x,
    (l, h, i) => clamp(l[i]!, h[i]!, cmin, cmax),
    (xl, xh, _vl, _vh, i) => {
      const xlo = xl[i]!;
      const xhi = xh[i]!;
      if (xhi < cmin || xlo > cmax) setR(0, 0);
      else if (xlo > cmin && xhi < cmax) setR(1, 1);
      else setR(0, 1);
    },
  );
}

/** A binary op on element j of a (al, ah) and element k of b (bl, bh), into R. */
type BinaryAt = (al: F64, ah: F64, j: number, bl: F64, bh: F64, k: number) => void;

/**
 * The binary ops on array elements. The element loop calls them through a variable, which V8
 * does not inline: a call that is not inlined boxes every double argument on the heap, while
 * arrays and small integers pass as they are. Inside each, the scalar op is a direct call that
 * V8 inlines.
 */
const BINARY_AT: Readonly<Record<BinaryOp, BinaryAt>> = {
  add: (al, ah, j, bl, bh, k) => add(al[j]!, ah[j]!, bl[k]!, bh[k]!),
  sub: (al, ah, j, bl, bh, k) => sub(al[j]!, ah[j]!, bl[k]!, bh[k]!),
  mul: (al, ah, j, bl, bh, k) => mulChecked(al[j]!, ah[j]!, bl[k]!, bh[k]!),
  div: (al, ah, j, bl, bh, k) => divChecked(al[j]!, ah[j]!, bl[k]!, bh[k]!),
  maximum: (al, ah, j, bl, bh, k) => max(al[j]!, ah[j]!, bl[k]!, bh[k]!),
  minimum: (al, ah, j, bl, bh, k) => min(al[j]!, ah[j]!, bl[k]!, bh[k]!),
};

/** Which operand a maximum/minimum selects over the box: 1 = a, 2 = b, 0 = either (a kink inside). */
function selected(op: 'maximum' | 'minimum', alo: number, ahi: number, blo: number, bhi: number): number {
  if (op === 'maximum') return alo > bhi ? 1 : blo > ahi ? 2 : 0;
  return ahi < blo ? 1 : bhi < alo ? 2 : 0;
}

/** The output elements that store a tangent: the union of the operands' ranges when both are read in order. */
function tangentRange(n: number, operands: [IntervalTensor, OperandIndex][]): [number, number] {
  let first = n;
  let end = 0;
  for (const [t, ix] of operands) {
    const g = t.tangent;
    if (g === null) continue;
    if (!(ix.map === null && ix.stride === 1)) return [0, n];
    first = Math.min(first, g.d0);
    end = Math.max(end, g.d0 + g.dn);
  }
  return [first, end];
}

/** The tangent of a binary op over the output elements [first, end). */
function binaryTangent(
  op: BinaryOp,
  a: IntervalTensor,
  ia: OperandIndex,
  b: IntervalTensor,
  ib: OperandIndex,
  val: { lo: Float64Array; hi: Float64Array },
  range: [number, number],
): Tangent {
  const m = seedCount(a, b);
  const [first, end] = range;
  const out = zeroTangent(m, first, end - first);
  const ga = a.tangent;
  const gb = b.tangent;
  for (let i = first; i < end; i++) {
    const j = at(ia, i);
    const k = at(ib, i);
    const oa = seedOffset(ga, j);
    const ob = seedOffset(gb, k);
    if (oa < 0 && ob < 0) continue;
    const oo = (i - first) * m;
    if (op === 'maximum' || op === 'minimum') {
      const sel = selected(op, a.lo[j]!, a.hi[j]!, b.lo[k]!, b.hi[k]!);
      if (sel === 0) hullTerm(out, oo, oa < 0 ? null : ga, oa, ob < 0 ? null : gb, ob);
      else if (sel === 1 && oa >= 0) putTerm(out, oo, ga!, oa, 1, 1, false);
      else if (sel === 2 && ob >= 0) putTerm(out, oo, gb!, ob, 1, 1, false);
      continue;
    }
    // the coefficients of da and db
    let calo = 1;
    let cahi = 1;
    let cblo = op === 'sub' ? -1 : 1;
    let cbhi = cblo;
    if (op === 'mul') {
      calo = b.lo[k]!;
      cahi = b.hi[k]!;
      cblo = a.lo[j]!;
      cbhi = a.hi[j]!;
    } else if (op === 'div') {
      // d(a/b) = da·(1/b) − db·(q/b), q ⊇ a/b the value
      divChecked(1, 1, b.lo[k]!, b.hi[k]!);
      calo = R.lo;
      cahi = R.hi;
      divChecked(val.lo[i]!, val.hi[i]!, b.lo[k]!, b.hi[k]!);
      cblo = -R.hi;
      cbhi = -R.lo;
    }
    if (oa >= 0) putTerm(out, oo, ga!, oa, calo, cahi, false);
    if (ob >= 0) putTerm(out, oo, gb!, ob, cblo, cbhi, oa >= 0);
  }
  return out;
}

/** A binary elementwise op with numpy broadcasting (same-shape and scalar operands read directly). */
export function binary(op: BinaryOp, a: IntervalTensor, b: IntervalTensor): IntervalTensor {
  const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShape(op, a.shape, b.shape);
  const ia = operandIndex(shape, a.shape);
  const ib = operandIndex(shape, b.shape);
  const size = sizeOf(shape);
  const lo = new Float64Array(size);
  const hi = new Float64Array(size);
  const { lo: al, hi: ah } = a;
  const { lo: bl, hi: bh } = b;
  const ma = ia.map;
  const mb = ib.map;
  const sa = ia.stride;
  const sb = ib.stride;
  const value = BINARY_AT[op];
  for (let i = 0; i < size; i++) {
    const j = ma === null ? i * sa : ma[i]!;
    const k = mb === null ? i * sb : mb[i]!;
    value(al, ah, j, bl, bh, k);
    lo[i] = R.lo;
    hi[i] = R.hi;
  }
  if (a.tangent === null && b.tangent === null) return new IntervalTensor(shape, lo, hi);
  const range = tangentRange(size, [
    [a, ia],
    [b, ib],
  ]);
  return new IntervalTensor(shape, lo, hi, binaryTangent(op, a, ia, b, ib, { lo, hi }, range));
}

/** Whether an interval condition holds over the box: 1 true, 0 false, 0.5 undecided, NaN unknown. */
function truth(clo: number, chi: number): number {
  if (!(clo <= chi)) return NaN;
  if (clo > 0 || chi < 0) return 1;
  return clo === 0 && chi === 0 ? 0 : 0.5;
}

function compareValue(op: CompareOp, alo: number, ahi: number, blo: number, bhi: number): number {
  if (!(alo <= ahi && blo <= bhi)) return NaN;
  switch (op) {
    case 'greater':
      return alo > bhi ? 1 : ahi <= blo ? 0 : 0.5;
    case 'greaterEqual':
      return alo >= bhi ? 1 : ahi < blo ? 0 : 0.5;
    case 'less':
      return ahi < blo ? 1 : alo >= bhi ? 0 : 0.5;
    case 'lessEqual':
      return ahi <= blo ? 1 : alo > bhi ? 0 : 0.5;
    case 'equal':
    case 'notEqual': {
      const eq = alo === ahi && blo === bhi && alo === blo ? 1 : ahi < blo || bhi < alo ? 0 : 0.5;
      return op === 'equal' || eq === 0.5 ? eq : 1 - eq;
    }
  }
}

/**
 * Sets [−∞, ∞] on every seed s of row `oo` of `dst` where one of the rows (of A at oa, of B at ob;
 * null or a negative offset: none) has a non-zero tangent: the derivative of a switch that may
 * jump there. Seeds neither depends on keep what the row holds.
 */
function unboundedWhereDependent(
  dst: Tangent,
  oo: number,
  A: Tangent | null,
  oa: number,
  B: Tangent | null,
  ob: number,
): void {
  for (let s = 0; s < dst.m; s++) {
    const onA = A !== null && oa >= 0 && (A.dlo[oa + s] !== 0 || A.dhi[oa + s] !== 0);
    const onB = B !== null && ob >= 0 && (B.dlo[ob + s] !== 0 || B.dhi[ob + s] !== 0);
    if (!onA && !onB) continue;
    dst.dlo[oo + s] = -Infinity;
    dst.dhi[oo + s] = Infinity;
  }
}

/**
 * A comparison over the box as a `bool` condition tensor: [1, 1] where it holds for every point,
 * [0, 0] where for none, [0, 1] where undecided, NaN where an operand has no enclosure. Its
 * tangent (when an operand has one) is 0 where decided and [−∞, ∞] where undecided, on the seeds
 * the operands depend on there (module comment).
 */
export function compare(op: CompareOp, a: IntervalTensor, b: IntervalTensor): IntervalTensor {
  const shape = broadcastShape(op, a.shape, b.shape);
  const ia = operandIndex(shape, a.shape);
  const ib = operandIndex(shape, b.shape);
  const n = sizeOf(shape);
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const m = seedCount(a, b);
  const out = m > 0 ? zeroTangent(m, 0, n) : null;
  for (let i = 0; i < n; i++) {
    const j = at(ia, i);
    const k = at(ib, i);
    const t = compareValue(op, a.lo[j]!, a.hi[j]!, b.lo[k]!, b.hi[k]!);
    lo[i] = t === 0.5 ? 0 : t;
    hi[i] = t === 0.5 ? 1 : t;
    if (out !== null && t === 0.5)
      unboundedWhereDependent(out, i * m, a.tangent, seedOffset(a.tangent, j), b.tangent, seedOffset(b.tangent, k));
  }
  return new IntervalTensor(shape, lo, hi, out, 'bool');
}

/**
 * where(cond, a, b) with broadcasting: a where the condition holds over the box, b where it fails,
 * the hull of both (values and tangents) where undecided — the tangent [−∞, ∞] on the seeds the
 * condition depends on there — and NaN where the condition is NaN. A condition that is not a
 * comparison counts as true where its interval excludes 0.
 */
export function where(cond: IntervalTensor, a: IntervalTensor, b: IntervalTensor): IntervalTensor {
  const shape = broadcastShape('where', cond.shape, a.shape, b.shape);
  const ic = operandIndex(shape, cond.shape);
  const ia = operandIndex(shape, a.shape);
  const ib = operandIndex(shape, b.shape);
  const n = sizeOf(shape);
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const m = seedCount(cond, a, b);
  const ga = a.tangent;
  const gb = b.tangent;
  const gc = cond.tangent;
  const out = m > 0 ? zeroTangent(m, 0, n) : null;
  for (let i = 0; i < n; i++) {
    const c = at(ic, i);
    const j = at(ia, i);
    const k = at(ib, i);
    const t = truth(cond.lo[c]!, cond.hi[c]!);
    if (t === 1) setR(a.lo[j]!, a.hi[j]!);
    else if (t === 0) setR(b.lo[k]!, b.hi[k]!);
    else if (t === 0.5) setR(Math.min(a.lo[j]!, b.lo[k]!), Math.max(a.hi[j]!, b.hi[k]!));
    else setR(NaN, NaN);
    lo[i] = R.lo;
    hi[i] = R.hi;
    if (out === null) continue;
    const oa = t === 0 ? -1 : seedOffset(ga, j);
    const ob = t === 1 ? -1 : seedOffset(gb, k);
    if (t === 0.5) {
      hullTerm(out, i * m, oa < 0 ? null : ga, oa, ob < 0 ? null : gb, ob);
      // a switch inside the box that depends on the seeds: a possible jump (module comment)
      unboundedWhereDependent(out, i * m, gc, seedOffset(gc, c), null, -1);
    } else if (oa >= 0) putTerm(out, i * m, ga!, oa, 1, 1, false);
    else if (ob >= 0) putTerm(out, i * m, gb!, ob, 1, 1, false);
  }
  return new IntervalTensor(shape, lo, hi, out);
}
