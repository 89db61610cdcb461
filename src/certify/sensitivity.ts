/**
 * Sensitivity of a rank verdict (Prop. 5.2) to what it was computed from: the state's distance
 * to the fixed point θ*, and the Jacobians' own error.
 *
 * The decision compares the critical singular value σ_c of the stack S = [√p_e Σ_e B]_e (σ_min
 * when every direction is kept, the largest dropped one otherwise) with the σ-tolerance T.
 *
 * Fixed point. The certification linearises at the last iterate θ_n, not at θ*. By Weyl's
 * inequality |σ_i(S(θ*)) − σ_i(S(θ_n))| <= ‖S(θ*) − S(θ_n)‖₂ <= ‖S(θ*) − S(θ_n)‖_F, and to first
 * order S(θ*) − S(θ_n) = δ·∂_u S with δ = ‖θ_n − θ*‖ and u the unit direction from θ_n to θ*,
 * which for a linearly converging iteration is the direction of the residual Q(θ_n) − θ_n.
 *   - δ: the a-posteriori bound ρ/(1−ρ)·‖θ_n − θ_{n−1}‖ when a contraction modulus ρ is known
 *     (and not refuted), else the estimate residual/(1 − q) with the observed rate q < 1.
 *   - ‖∂_u S‖_F: measured, as the secant (S(θ_n − h u) − S(θ_n)) z / h on a random unit vector z
 *     of W (one by default: each costs a linearisation of every item at the shifted state), times √m (E‖M z‖² = ‖M‖_F²/m for z uniform on W's unit sphere), with h = 1e-5·max(1,
 *     ‖θ_n‖_∞): large enough that the FD noise r·γ of the two evaluations, divided by h, is
 *     ~1e-6·γ (negligible once multiplied by δ), small enough for the secant to be local. The
 *     secant is taken on Σ_e of Eq. (4) for every item, also for items decided with the exact
 *     DF_e: the two differ by terms of the order of the redundancy residual ‖P_e θ − θ‖, whose
 *     own rate of change is left out, and Σ_e needs DQ at one shifted state only (DF_e would need
 *     DQ at every P_e of it).
 *   The band is b_fp = δ·√m·max_z ‖ΔS z‖/h — an estimate (the rate is measured, not bounded).
 *
 * Jacobians. Each Σ_e column carries the Jacobians' first-order error r·γ (r: relative accuracy,
 * γ = ‖DQ‖·max‖DP_e‖; the tolerance T already holds the worst case 4·r·γ of that error), so
 * b_J = r·γ is how far σ_c can move if the Jacobians were exact.
 *
 * A verdict is 'sensitive' when |σ_c − T| <= b_fp + b_J: within the band the true verdict at θ*
 * with exact Jacobians could be the other one. `decidedBy` names the remedy of the larger part.
 */
import { sparseCombine, type SparseVector } from '../linearize/sparse.js';
import { createRng } from '../ordergap/rng.js';
import { commutatorColumns, consolidateImages, type Linearization } from './commutator.js';

/** What the fixed-point band is computed from (null when the state is not an iterate of Q). */
export interface FixedPointError {
  /** ‖θ_n − θ*‖ (bound or estimate). */
  distance: number;
  /** How `distance` was obtained. */
  distanceKind: 'a-posteriori bound' | 'estimate from the observed rate';
  /** The linearisation at the shifted state θ_n − h·u. */
  shifted: Linearization;
  /** The secant step h. */
  step: number;
}

/** The sensitivity of one verdict. */
export interface VerdictSensitivity {
  /** σ_c: σ_min when non-degenerate, the largest dropped σ otherwise (0 when none). */
  criticalSigma: number;
  /** The σ-tolerance T. */
  sigmaTolerance: number;
  /** b_fp in σ units (null when the state is not an iterate of Q or δ is unknown). */
  fixedPointBand: number | null;
  /** ‖θ − θ*‖ used for b_fp. */
  distanceToFixedPoint: number | null;
  /** √m·max‖ΔS z‖/h: the measured rate of change of S along the error direction. */
  rateOfChange: number | null;
  /** b_J = r·γ in σ units. */
  jacobianBand: number;
  /** |σ_c − T| <= b_fp + b_J. */
  sensitive: boolean;
  /** What would decide a sensitive verdict; null when robust. */
  decidedBy: string | null;
}

/** One item of the stack: its id and its weight p_e. */
export interface SensitivityItem {
  evidence: string;
  weight: number;
}

/**
 * Measures √m·max_z ‖(S(θ_n − h u) − S(θ_n)) z‖ / h over `probes` random unit vectors z of W
 * (module comment). Cost per probe: one DQ application at the shifted state and, per item with
 * p > 0, the Σ_e column of z there.
 */
export function stackRateOfChange(
  at: Linearization,
  fp: FixedPointError,
  basis: readonly SparseVector[],
  items: readonly SensitivityItem[],
  seed: number,
  probes = 1,
): number {
  const m = basis.length;
  if (m === 0) return 0;
  const rng = createRng(seed);
  let worst = 0;
  for (let k = 0; k < probes; k++) {
    // z = B c with c uniform on the unit sphere of R^m (Box–Muller normals, normalised)
    const c = Float64Array.from({ length: m }, () => {
      const u1 = Math.max(rng.next(), 1e-300);
      return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
    });
    let n = 0;
    for (const x of c) n += x * x;
    n = Math.sqrt(n);
    let z: SparseVector = { dim: at.system.dim, index: new Int32Array(0), value: new Float64Array(0) };
    basis.forEach((b, j) => (z = sparseCombine(1, z, c[j]! / n, b)));
    // the rate is measured on Σ_e of Eq. (4) at both states for every item (module comment)
    const qz = consolidateImages(fp.shifted, [z]);
    const qz0 = consolidateImages(at, [z]);
    let sum2 = 0;
    for (const it of items) {
      if (!(it.weight > 0)) continue;
      const moved = commutatorColumns(fp.shifted, it.evidence, [z], qz, 'sigma')[0]!;
      const here = commutatorColumns(at, it.evidence, [z], qz0, 'sigma')[0]!;
      const col = sparseCombine(1, moved, -1, here);
      let s2 = 0;
      for (const v of col.value) s2 += v * v;
      sum2 += it.weight * s2;
    }
    worst = Math.max(worst, Math.sqrt(sum2));
  }
  return (Math.sqrt(m) * worst) / fp.step;
}

/**
 * The sensitivity of a decision (module comment) from its critical σ, its tolerance, the
 * measured rate (null without a fixed-point error) and the Jacobians' accuracy.
 */
export function verdictSensitivity(
  criticalSigma: number,
  sigmaTolerance: number,
  nonDegenerate: boolean,
  fp: { distance: number; rate: number } | null,
  jacobianBand: number,
  jacobianRemedy: string,
): VerdictSensitivity {
  const fixedPointBand = fp ? fp.distance * fp.rate : null;
  const band = (fixedPointBand ?? 0) + jacobianBand;
  // no error band (a constant map's Σ_e = 0: σ = tolerance = 0 exactly) leaves nothing to flip it
  const sensitive = band > 0 && Math.abs(criticalSigma - sigmaTolerance) <= band;
  let decidedBy: string | null = null;
  if (sensitive) {
    const side = nonDegenerate ? 'σ_min' : 'the largest dropped σ';
    decidedBy =
      fixedPointBand !== null && fixedPointBand >= jacobianBand
        ? `iterate the fixed point further: ${side} = ${criticalSigma.toExponential(3)} is within ${fixedPointBand!.toExponential(3)} (‖θ−θ*‖ ≤ ${fp!.distance.toExponential(2)} × rate ${fp!.rate.toExponential(2)}) of the tolerance ${sigmaTolerance.toExponential(3)}; iterating until ‖θ−θ*‖ < ${(Math.abs(criticalSigma - sigmaTolerance) / Math.max(fp!.rate, 1e-300)).toExponential(1)} (a tighter fixed-point tolerance) would decide it`
        : `${jacobianRemedy}: ${side} = ${criticalSigma.toExponential(3)} is within the Jacobians' error ${jacobianBand.toExponential(3)} of the tolerance ${sigmaTolerance.toExponential(3)}`;
  }
  return {
    criticalSigma,
    sigmaTolerance,
    fixedPointBand,
    distanceToFixedPoint: fp ? fp.distance : null,
    rateOfChange: fp ? fp.rate : null,
    jacobianBand,
    sensitive,
    decidedBy,
  };
}
