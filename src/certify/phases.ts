/**
 * The phases of `certify` between its plan (./plan.ts) and its decisions (./decision.ts), each a
 * function of typed inputs returning a small result (./certify.ts runs them in order):
 * - fixed point: θ* = Q(θ*) by iteration (Sec. 3.1), and the state to linearise at;
 * - contraction: the Contractivity assumption (Sec. 3.1) on the whole space and on blocks, with
 *   the whole-space ‖DQ‖ every tolerance is scaled by, and the uniqueness statement (Banach);
 * - cross-check: FD against autodiff on a few DQ columns;
 * - redundancy: P_e(θ) = θ per pool item (Sec. 5.3), which picks Σ_e of Eq. (4) or the exact DF_e;
 * - linearisation: the global scale γ = ‖DQ‖·max_e‖DP_e‖ of Prop. 5.2's tolerance, and the
 *   shifted linearisation that measures how the verdicts move with the fixed point's error.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import { crossCheckJacobians, type CrossCheck } from '../linearize/crossCheck.js';
import type { JacobianOperator } from '../linearize/operator.js';
import { consolidateJacobian, footprintOf, type EngineChoice } from '../linearize/systemJacobians.js';
import { createRng } from '../ordergap/rng.js';
import { coordinateAt, coordinateCount } from '../system/coordinates.js';
import type { EvidenceWeight, OperatorSystem, StateBox } from '../system/types.js';
import { Linearization, measureRedundancy, type LinearizationMode, type RedundancyItem } from './commutator.js';
import { verifyContraction, type ContractionOptions, type ContractionResult } from './contraction.js';
import { consolidateEncloser } from './enclosure.js';
import { findFixedPoint, type FixedPointResult } from './fixedPoint.js';
import type { ContractionPlan, CertifyPlan } from './plan.js';
import type { FixedPointError } from './sensitivity.js';
import { blockNorm, indexRange, type PowerIteration } from './spectralNorm.js';
import { basisOf, declaredBlock, isCoordinateBlock, resolveSubspace } from './subspace.js';
import type { ProgressFn, UniquenessStatement } from './types.js';

/** The fixed-point phase's result: the iteration, and the state the later phases linearise at. */
export interface FixedPointPhase {
  readonly fixedPoint: FixedPointResult;
  /** The iteration's ρ is the system's declared Lipschitz bound on 'all' (dropped if refuted). */
  readonly rhoFromDeclaration: boolean;
  /** Where the iteration started, in words. */
  readonly startLabel: string;
  /** The linearisation state: the given one, else the last iterate of Q. */
  readonly theta: Float64Array;
  /** What the state is, for the report. */
  readonly stateKind: string;
  readonly stateNote: string | null;
  readonly notes: string[];
}

/**
 * Iterates Q to its fixed point from the plan's start (with the declared ρ of 'all' for
 * Banach's a-posteriori bound) and names the state to linearise at. Divergence and
 * non-convergence are results, noted. Cost: the iterations' applications of Q.
 */
export function fixedPointPhase(system: OperatorSystem, plan: CertifyPlan): FixedPointPhase {
  const declaredRho = system.capabilities.lipschitz?.['all']?.bound;
  const rhoFromDeclaration = plan.fixedPoint?.rho === undefined && declaredRho !== undefined && declaredRho < 1;
  const fixedPoint = findFixedPoint(system, {
    ...plan.fixedPoint,
    ...(rhoFromDeclaration ? { rho: declaredRho } : {}),
  });
  const notes: string[] = [];
  let stateNote = plan.stateNote;
  const startLabel =
    plan.fixedPoint?.theta0 !== undefined
      ? (stateNote?.replace(/^fixed point of Q iterated from /, '') ?? 'the given θ0')
      : 'θ0';
  if (fixedPoint.diverged)
    notes.push(
      `the fixed-point iteration from ${startLabel} diverged (‖θ_n‖ = ${fixedPoint.iterateNorms.map((x) => x.toPrecision(3)).join(', ')}): Q is not a contraction there and has no fixed point this iteration reaches; the linearisation is at ${startLabel}`,
    );
  else if (!fixedPoint.converged)
    notes.push(
      `the fixed-point iteration did not converge in ${fixedPoint.iterations} iterations (residual ${fixedPoint.residual.toExponential(3)}): the state is its last iterate, not a fixed point`,
    );
  const at = plan.at;
  const stateKind =
    plan.atLabel ??
    (at
      ? 'given state'
      : fixedPoint.diverged
        ? `${startLabel} (NOT a fixed point: the iteration diverged)`
        : fixedPoint.converged
          ? 'fixed point'
          : `last iterate of Q (NOT a fixed point: residual ${fixedPoint.residual.toExponential(3)})`);
  if (!at && stateNote && !fixedPoint.converged) stateNote = `${stateKind}; iterated from ${startLabel}`;
  return { fixedPoint, rhoFromDeclaration, startLabel, theta: at ?? fixedPoint.theta, stateKind, stateNote, notes };
}

/** ‖DQ‖₂ on the whole space, exact or a lower bound. */
export type WholeSpaceNorm = PowerIteration & { kind: 'exact' | 'lower-bound' };

/**
 * ‖DQ‖₂ on the whole space: exact (power iteration on DQ's non-zeros) for d <= 1024, else the
 * JVP power-iteration lower bound; seeded by `seed` alone, so the global scale is the same
 * whatever the subspaces and questions asked.
 */
export function wholeSpaceNorm(DQ: JacobianOperator, d: number, seed: number): WholeSpaceNorm {
  const rng = createRng((seed + 4242) >>> 0);
  return blockNorm(DQ, indexRange(d), 1024, rng);
}

/** Box options of one contraction block. */
type BlockBox = Pick<ContractionOptions, 'lower' | 'upper' | 'boxSource'>;

/**
 * The box a coordinate block is searched on: given bounds, else the block's declared box, else
 * the system's box at θ; on the whole space the declared blocks' boxes replace the local box on
 * their coordinates (the search covers the declared domain there).
 */
function coordinateBlockBox(
  system: OperatorSystem,
  plan: ContractionPlan,
  name: string,
  theta: Float64Array,
): BlockBox {
  const { boxes, radius } = plan;
  const declared = boxes?.[name];
  if (declared) return { ...declared, boxSource: `the declared box of '${name}'` };
  const local = plan.boxAt?.(name, theta, radius);
  const localText = local
    ? `θ ± ${radius}·max(1, |θ_j|) clipped to ${system.name}'s domain`
    : `θ ± ${radius}·max(1, |θ_j|)`;
  const blocks = name === 'all' ? Object.keys(boxes ?? {}).filter((b) => declaredBlock(system, b)) : [];
  if (blocks.length === 0) return local ? { ...local, boxSource: localText } : {};
  // θ ± radius·max(1, |θ_i|) where the system gives no local box (plain loops: d entries)
  const expand = (v: StateBox['lower'] | undefined, sign: number): Float64Array => {
    const out = new Float64Array(system.dim);
    if (v === undefined)
      for (let i = 0; i < out.length; i++) out[i] = theta[i]! + sign * (radius * Math.max(1, Math.abs(theta[i]!)));
    else if (typeof v === 'number') out.fill(v);
    else for (let i = 0; i < out.length; i++) out[i] = v[i]!;
    return out;
  };
  const lower = expand(local?.lower, -1);
  const upper = expand(local?.upper, 1);
  for (const b of blocks) {
    const box = boxes![b]!;
    const coords = declaredBlock(system, b)!.coordinates;
    for (let k = 0, n = coordinateCount(coords); k < n; k++) {
      const j = coordinateAt(coords, k);
      lower[j] = typeof box.lower === 'number' ? box.lower : box.lower[k]!;
      upper[j] = typeof box.upper === 'number' ? box.upper : box.upper[k]!;
    }
  }
  return {
    lower,
    upper,
    boxSource: `the declared box${blocks.length > 1 ? 'es' : ''} of ${blocks.map((b) => `'${b}'`).join(', ')} on ${blocks.length > 1 ? 'their' : 'its'} coordinates, elsewhere ${localText}`,
  };
}

/** The contraction phase's result. */
export interface ContractionPhase {
  /** ‖DQ‖₂ on the whole space (the global scale's ‖DQ‖, shared with the block 'all'). */
  readonly globalNorm: WholeSpaceNorm;
  readonly bySubspace: ContractionResult[];
  /** The whole-space result ('all', else the first block, else "not checked"). */
  readonly whole: ContractionResult;
  /** The fixed point, without a declared ρ that the search refuted. */
  readonly fixedPoint: FixedPointResult;
  readonly uniqueness: UniquenessStatement;
  readonly notes: string[];
}

/**
 * Checks every contraction block of the plan at θ (`verifyContraction`: coordinate blocks, and
 * spans of vectors as the map on W) with seeds that depend on the block's name only, drops a
 * refuted declared ρ from the fixed point's bound, and states uniqueness.
 * Cost: per block ~200 Q + dim W columns of DQ; d columns for the whole-space norm (d <= 1024).
 */
export function contractionPhase(
  system: OperatorSystem,
  plan: CertifyPlan,
  state: FixedPointPhase,
  DQ: JacobianOperator,
  progress: ProgressFn,
): ContractionPhase {
  const { theta } = state;
  const c = plan.contraction;
  // the global scale ‖DQ‖ on the whole space, whatever the subspaces asked: every decision's
  // tolerance uses it, so a question's row does not depend on what else was decided
  const globalNorm = wholeSpaceNorm(DQ, system.dim, plan.seed);
  const given = c.lower !== undefined || c.upper !== undefined;
  const enclose = c.proofs ? consolidateEncloser(system) : null;
  const bySubspace = c.blocks.map((block, i) => {
    progress('contraction', i, c.blocks.length);
    const spec = resolveSubspace(system, block);
    const name = spec.name;
    const coordinate = isCoordinateBlock(spec);
    return verifyContraction(system, theta, {
      ...(coordinate ? { coordinates: spec.coordinates } : { basis: basisOf(system.dim, spec).vectors }),
      name,
      jacobian: DQ,
      enclose,
      ...(c.proofBudget !== undefined ? { proof: { budget: c.proofBudget } } : {}),
      ...(c.proofMaxEntries !== undefined ? { proofMaxEntries: c.proofMaxEntries } : {}),
      seed: (plan.seed + nameSalt(name)) >>> 0,
      radius: c.radius,
      ...(name === 'all' ? { localNorm: globalNorm } : {}),
      ...(given
        ? { ...(c.lower !== undefined ? { lower: c.lower } : {}), ...(c.upper !== undefined ? { upper: c.upper } : {}) }
        : coordinate
          ? coordinateBlockBox(system, c, name, theta)
          : {}),
      ...(c.samples !== undefined ? { samples: c.samples } : {}),
      ...(name === 'all' && state.fixedPoint.diverged ? { divergingIterates: state.fixedPoint.iterateNorms } : {}),
    });
  });
  const whole = bySubspace.find((r) => r.subspace === 'all') ?? bySubspace[0] ?? noContraction(system);
  const notes: string[] = [];
  let fixedPoint = state.fixedPoint;
  if (whole.analyticBoundRefuted && state.rhoFromDeclaration && fixedPoint.rho !== null) {
    notes.push(
      `the declared Lipschitz bound ${fixedPoint.rho} of Q on 'all' is refuted by the contraction search (ratio ${whole.empiricalLowerBound.toPrecision(6)}): it is not used for ‖θ−θ*‖`,
    );
    fixedPoint = { ...fixedPoint, rho: null, aPosterioriBound: null };
  }
  for (const r of bySubspace)
    if (r.analyticBoundRefuted)
      notes.push(
        `contraction on '${r.subspace}': the declared analytic bound ${r.analyticBound} is REFUTED (a pair with ratio ${r.empiricalLowerBound.toPrecision(6)}); the verdict does not use it`,
      );
  const uniqueness = uniquenessOf(plan.at !== undefined, whole, fixedPoint, state.startLabel);
  return { globalNorm, bySubspace, whole, fixedPoint, uniqueness, notes };
}

/** A stable small integer from a name (seeds per question independent of the question order). */
export function nameSalt(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 1000003;
  return h;
}

/** The largest half-width of a box. */
function boxHalfWidth(box: { lo: number[]; hi: number[] }): number {
  let w = 0;
  for (let k = 0; k < box.lo.length; k++) w = Math.max(w, (box.hi[k]! - box.lo[k]!) / 2);
  return w;
}

/** The whole-space contraction result when no block was checked. */
function noContraction(system: OperatorSystem): ContractionResult {
  return {
    subspace: 'all',
    dim: system.dim,
    verdict: 'undecided',
    contractive: null,
    upperBound: null,
    lowerBound: 0,
    box: null,
    fixedPointEnclosure: null,
    proofStatement: 'no block checked',
    proof: null,
    empiricalLowerBound: 0,
    localNorm: NaN,
    localNormKind: 'lower-bound',
    analyticBound: null,
    analyticBoundRefuted: false,
    worstPair: null,
    failingDirections: [],
    evaluations: 0,
    budget: { samples: 0, probes: 0, starts: 0, ascentSteps: 0, evaluations: 0 },
    searchBox: 'none',
    divergingIterates: null,
    notes: ['no contraction block was checked'],
  };
}

function uniquenessOf(
  givenState: boolean,
  whole: ContractionResult,
  fp: FixedPointResult,
  startLabel: string,
): UniquenessStatement {
  if (givenState)
    return { established: false, statement: 'not applicable: linearised at a given state, not at a fixed point' };
  if (whole.subspace === 'all' && whole.verdict === 'proved')
    return {
      established: true,
      statement: `established on the proved box of 'all' (max half-width ${boxHalfWidth(whole.box!).toExponential(2)} around θ̂): Q maps it into itself with ‖DQ‖₂ <= ${whole.upperBound!.toPrecision(6)} < 1 there (outward-rounded enclosures), so Q has exactly one fixed point in it (Banach), enclosed to width ${whole.proof!.enclosureWidth!.toExponential(2)}`,
    };
  if (fp.diverged)
    return { established: false, statement: `no fixed point reached: the iteration from ${startLabel} diverged` };
  return {
    established: false,
    statement: `not established (no certified contraction on the whole space): linearised at the fixed point reached from ${startLabel} after ${fp.iterations} iterations${fp.converged ? '' : ' (not converged)'}; other fixed points may exist`,
  };
}

/**
 * FD against autodiff on `columns` evenly spaced DQ columns, when the plan loaded tfjs and the
 * system has a tfjs form of Q; null otherwise. A disagreement is noted (a kink in Q near θ?).
 */
export function crossCheckPhase(
  system: OperatorSystem,
  plan: CertifyPlan,
  theta: Float64Array,
  DQ: JacobianOperator,
): { crossCheck: CrossCheck | null; notes: string[] } {
  const k = plan.crossCheckColumns;
  if (!(plan.engine.tf && system.capabilities.linearization?.consolidateTf && k > 0))
    return { crossCheck: null, notes: [] };
  const cols = Array.from({ length: k }, (_, i) => Math.floor((i * system.dim) / k));
  const fd = plan.method === 'fd';
  const other = fd
    ? consolidateJacobian(system, theta, { method: 'autodiff', tf: plan.engine.tf })
    : consolidateJacobian(system, theta, { method: 'fd' });
  let crossCheck: CrossCheck;
  try {
    crossCheck = crossCheckJacobians(fd ? DQ : other, fd ? other : DQ, cols);
  } finally {
    other.release?.();
  }
  const notes = crossCheck.agree
    ? []
    : [
        `FD and autodiff Jacobians of Q disagree on ${crossCheck.disagreements.length} of ${k} columns (worst ${crossCheck.worstRatio.toPrecision(3)}× the tolerance): a kink in Q near the state?`,
      ];
  return { crossCheck, notes };
}

/** The redundancy phase's result: P(·|θ) and each item's residual and linearisation. */
export interface RedundancyPhase {
  readonly pool: readonly EvidenceWeight[];
  readonly redundancy: RedundancyItem[];
  readonly notes: string[];
}

/**
 * Redundancy ‖P_e(θ) − θ‖ per pool item (Sec. 5.3) and the linearisation each item uses under
 * `mode`; items where it fails are noted. Cost: one P_e per item.
 */
export function redundancyPhase(system: OperatorSystem, lin: Linearization, mode: LinearizationMode): RedundancyPhase {
  const pool = system.evidenceAt(lin.theta);
  const redundancy = measureRedundancy(lin, pool, mode);
  const failing = redundancy.filter((r) => !r.holds);
  const names = failing
    .slice(0, 6)
    .map((r) => r.evidence)
    .join(', ');
  const notes = failing.length
    ? [
        `redundancy P_e(θ) = θ fails for ${failing.length} of ${pool.length} items (${names}${failing.length > 6 ? ', …' : ''}): ${mode === 'sigma' ? 'Σ_e of Eq. (4) forced anyway' : 'the exact DF_e is used for them'}`,
      ]
    : [];
  return { pool, redundancy, notes };
}

/**
 * Estimate of ‖DP_e‖₂: exact on a declared footprint (DP_e = blockdiag(D_e, I), so at least 1
 * when the footprint is not the whole space) or for d <= 1024, else the JVP lower bound.
 */
function expandNormEstimate(system: OperatorSystem, J: JacobianOperator, e: string, seed: number): number {
  const fp = footprintOf(system, e);
  const d = system.dim;
  const rng = createRng(seed);
  if (!fp && d > 1024) return blockNorm(J, indexRange(d), 0, rng).norm;
  const coords = fp ?? indexRange(d);
  if (coords.length === 0) return 1;
  const n = blockNorm(J, coords, coords.length, rng).norm;
  return fp && coords.length < d ? Math.max(1, n) : n;
}

/** The global scale of the non-degeneracy tolerances (Prop. 5.2) and what its accuracy is. */
export interface JacobianScale {
  /** ‖DQ‖₂ on the whole space. */
  readonly normDQ: number;
  /** max_e ‖DP_e‖₂ over the pool. */
  readonly normDP: number;
  /** r: the Jacobians' relative accuracy. */
  readonly relativeAccuracy: number;
  /** Where r comes from, in words. */
  readonly source: string;
  /** What would make the Jacobians more accurate (for a sensitive verdict). */
  readonly remedy: string;
}

/**
 * γ = ‖DQ‖·max_e‖DP_e‖ (the linearisation's global scale): ‖DQ‖ from the contraction phase,
 * ‖DP_e‖ per pool item with a seed per item. Cost: per item its footprint's columns of DP_e.
 */
export function globalScale(
  system: OperatorSystem,
  lin: Linearization,
  pool: readonly EvidenceWeight[],
  normDQ: number,
  plan: Pick<CertifyPlan, 'method' | 'seed'>,
): JacobianScale {
  const seed = plan.seed;
  let normDP = 0;
  pool.forEach((it, i) => {
    normDP = Math.max(normDP, expandNormEstimate(system, lin.expand(it.id), it.id, seed + 100 + i));
  });
  const fd = plan.method === 'fd';
  return {
    normDQ,
    normDP,
    relativeAccuracy: lin.relativeAccuracy,
    source: fd ? 'central differences: eps^(2/3)' : 'float32 autodiff: 1e-6 (unit roundoff 6e-8 × growth ~16)',
    remedy: fd
      ? 'Jacobians more accurate than central differences (a system DQ engine or tfjs forms in f64)'
      : 'the f64 central differences (--jacobian fd) instead of float32 autodiff',
  };
}

/**
 * J's engine at x from J at θ where it offers `near` (the same operator bit for bit, built from
 * where x differs from θ: for the shifted state of Q's residual, the node block only), else
 * undefined (the caller builds one at x).
 */
function nearJacobian(J: JacobianOperator, theta: Float64Array, x: Float64Array): JacobianOperator | undefined {
  if (!J.near) return undefined;
  const moved: number[] = [];
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], theta[i])) moved.push(i);
  const index = Int32Array.from(moved);
  return J.near(
    index,
    Float64Array.from(index, (i) => x[i]!),
  );
}

/**
 * The fixed point's error for the verdicts' sensitivity (./sensitivity.ts): δ = ‖θ_n − θ*‖ (the
 * a-posteriori bound, else residual/(1 − q) with the observed rate q) and the linearisation at
 * θ_n − h·u, u the direction of the residual Q(θ_n) − θ_n, h = 1e-5·max(1, ‖θ_n‖_∞). None at a
 * given state, after divergence or without iterations; δ unknown is noted.
 * Cost: one linearisation (DQ at the shifted state, its columns on demand).
 */
export function fixedPointBand(
  system: OperatorSystem,
  lin: Linearization,
  engine: EngineChoice,
  fixedPoint: FixedPointResult,
  givenState: boolean,
): { fpError: FixedPointError | null; notes: string[] } {
  if (givenState || fixedPoint.diverged || fixedPoint.iterations === 0) return { fpError: null, notes: [] };
  const q = fixedPoint.observedRate;
  const bound = fixedPoint.aPosterioriBound;
  const distance = bound ?? (q !== null && q < 1 ? fixedPoint.residual / (1 - q) : null);
  if (distance === null)
    return {
      fpError: null,
      notes: [
        `‖θ−θ*‖ unknown (no contraction modulus, observed rate ${q === null ? 'undefined' : q.toPrecision(3)}): verdicts carry no fixed-point band`,
      ],
    };
  if (!(distance > 0)) return { fpError: null, notes: [] };
  const theta = lin.theta;
  const q0 = lin.consolidated;
  const n = theta.length;
  // plain indexed loops: Float64Array.from with a map function walks an iterator per entry,
  // which costs a second per few million entries at the graph's dimensions
  const dir = new Float64Array(n);
  for (let i = 0; i < n; i++) dir[i] = q0[i]! - theta[i]!;
  const dn = referenceNorm(dir);
  if (!(dn > 0)) return { fpError: null, notes: [] };
  let tmax = 1;
  for (let i = 0; i < n; i++) tmax = Math.max(tmax, Math.abs(theta[i]!));
  const h = 1e-5 * tmax;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = theta[i]! - (h * dir[i]!) / dn;
  const shifted = new Linearization(system, x, engine, nearJacobian(lin.DQ, theta, x));
  const distanceKind = bound !== null ? 'a-posteriori bound' : 'estimate from the observed rate';
  return { fpError: { distance, distanceKind, shifted, step: h }, notes: [] };
}
