/**
 * The consolidation fixed point θ* = Q(θ*) (Sec. 3.1) by plain iteration θ_{n+1} = Q(θ_n).
 *
 * Stops when the step ‖θ_n − θ_{n−1}‖ falls to `tolerance`·max(1, ‖θ_n‖) or after
 * `maxIterations`. Reports the residual ‖Q(θ_n) − θ_n‖ (one more application of Q), the
 * iteration count and, when a contraction modulus ρ < 1 is known, the a-posteriori bound of
 * Banach's theorem ‖θ_n − θ*‖ <= ρ/(1−ρ)·‖θ_n − θ_{n−1}‖. Without ρ it reports the observed
 * ratio of successive steps (an estimate, not a bound). Non-convergence is a result
 * (`converged: false`), not an exception; so is divergence (`diverged: true`: Q(θ_n) had a
 * non-finite entry or ‖θ_n‖ passed 1e150), with the norms of the iterates that show it.
 *
 * When the system's certification policy offers a consolidation engine at θ0 (`consolidateOn`) (Q copies
 * every coordinate off the engine's `varying` ones), the iteration runs on z = θ_varying with the
 * rest of θ held at θ0's: the same iterates bit for bit (the engine is bit for bit Q there, and
 * the distances over z equal those over θ: the other differences are exact zeros), at the
 * engine's cost per step instead of O(d) copies; ‖θ_n‖ is hypot(‖z_n‖, ‖θ0 off varying‖).
 */
import { referenceDistance, referenceNorm } from '../blas1/dnrm2.js';
import { checkState } from '../system/define.js';
import { rawOperators } from '../linearize/systemJacobians.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange, positiveNumber } from '../util/validate.js';

/** Options of {@link findFixedPoint}. */
export interface FixedPointOptions {
  /** Start θ0 (default: the system's theta0). */
  theta0?: ArrayLike<number>;
  /** Relative step tolerance (default 1e-13: ~450 eps, above the rounding floor of one Q). */
  tolerance?: number;
  /** Iteration budget (default 10000). */
  maxIterations?: number;
  /** A known contraction modulus ρ ∈ [0, 1) for the a-posteriori bound. */
  rho?: number;
}

/** Result of {@link findFixedPoint}. */
export interface FixedPointResult {
  theta: Float64Array;
  /** ‖Q(θ_n) − θ_n‖₂. */
  residual: number;
  iterations: number;
  converged: boolean;
  /** ‖θ_n − θ_{n−1}‖₂ of the last step. */
  lastStep: number;
  /** ρ/(1−ρ)·lastStep when ρ was given, else null. */
  aPosterioriBound: number | null;
  /** The ρ used for the bound, or null. */
  rho: number | null;
  /** ‖θ_n − θ_{n−1}‖ / ‖θ_{n−1} − θ_{n−2}‖ at the end (observed rate; null if < 2 steps or 0/0). */
  observedRate: number | null;
  /** The iteration ran away: Q(θ_n) non-finite or ‖θ_n‖ > 1e150 (θ is then the start θ0). */
  diverged: boolean;
  /** Norms ‖θ_n‖ of the last iterates (at most 8, oldest first): the evidence of divergence. */
  iterateNorms: number[];
}

/** Norm beyond which the iteration counts as diverged (far below overflow, far above any state). */
const DIVERGED_NORM = 1e150;

/**
 * Iterates Q from θ0 to its fixed point (see the module comment).
 * Cost: (iterations + 1) applications of Q.
 * @throws {ArgumentError} θ0 missing or malformed, tolerance not > 0, ρ outside [0, 1).
 * @example
 * ```ts
 * const fp = findFixedPoint(closedFormSystem()); // Q(c, u) = (c, 0.9(1 − c)u) from (0.2, 0.8)
 * fp.theta;     // ≈ [0.2, 0]   (u shrinks by 0.72 per step)
 * fp.converged; // true
 * ```
 */
export function findFixedPoint(system: OperatorSystem, options: FixedPointOptions = {}): FixedPointResult {
  const start = options.theta0 ?? system.theta0;
  if (start === undefined) throw new ArgumentError('theta0', start, `is required: ${system.name} declares no theta0`);
  let theta = checkState('theta0', system, start);
  const tol = positiveNumber('tolerance', options.tolerance ?? 1e-13);
  const maxIterations = integerInRange('maxIterations', options.maxIterations ?? 10000, 0);
  let rho: number | null = null;
  if (options.rho !== undefined) {
    const r = finiteNumber('rho', options.rho);
    if (!(r >= 0 && r < 1)) throw new ArgumentError('rho', r, 'must lie in [0, 1)');
    rho = r;
  }
  const raw = rawOperators(system);
  const startState = theta;
  // the system's engine for Q near θ0 (Q copies every coordinate off `varying`, so the iteration
  // runs on z = θ_varying and the rest of θ is θ0's); else Q on the whole state
  const engine = system.capabilities.certification?.consolidateOn?.(startState, []);
  try {
    const varying = engine?.varying;
    let restNorm = 0;
    let z: Float64Array;
    if (varying) {
      const inV = new Uint8Array(theta.length);
      for (let k = 0; k < varying.length; k++) inV[varying[k]!] = 1;
      const rest = new Float64Array(theta.length - varying.length);
      for (let i = 0, r = 0; i < theta.length; i++) if (!inV[i]) rest[r++] = theta[i]!;
      restNorm = referenceNorm(rest);
      z = Float64Array.from(varying, (j) => theta[j]!);
    } else z = theta;
    // ‖θ‖ from its varying part and the fixed rest
    const normOf = (x: Float64Array): number => (varying ? Math.hypot(referenceNorm(x), restNorm) : referenceNorm(x));
    const norms: number[] = [normOf(z)];
    const record = (x: Float64Array) => {
      norms.push(normOf(x));
      if (norms.length > 8) norms.shift();
    };
    // two buffers for the engine's iterates (a result never aliases its argument)
    const spare = varying ? [new Float64Array(varying.length), new Float64Array(varying.length)] : [];
    let flip = 0;
    // Q(θ) (its varying part) or null when it leaves the finite range (an expanding map)
    const apply = (x: Float64Array): Float64Array | null => {
      let y: Float64Array;
      try {
        if (engine) {
          y = spare[flip]!;
          flip ^= 1;
          engine.consolidate(x, y);
        } else y = raw.consolidate(x);
      } catch (e) {
        if (e instanceof ArgumentError && /must be finite/.test(e.message) && normOf(x) > 1) return null;
        throw e;
      }
      return normOf(y) > DIVERGED_NORM ? null : y;
    };
    let next = apply(z);
    if (next === null) return divergedResult(startState, 0, [...norms, Infinity]);
    let step = referenceDistance(next, z);
    let prevStep = NaN;
    let iterations = 0;
    let diverged = false;
    let converged = step <= tol * Math.max(1, normOf(z));
    while (!converged && iterations < maxIterations) {
      z = next;
      iterations++;
      record(z);
      const y = apply(z);
      if (y === null) {
        diverged = true;
        break;
      }
      next = y;
      prevStep = step;
      step = referenceDistance(next, z);
      converged = step <= tol * Math.max(1, normOf(z));
    }
    if (diverged) return divergedResult(startState, iterations, [...norms, Infinity]);
    if (varying) {
      const full = Float64Array.from(startState);
      for (let k = 0; k < varying.length; k++) full[varying[k]!] = z[k]!;
      theta = full;
    } else theta = z;
    // `step` is now ‖Q(θ_n) − θ_n‖ = the residual at θ_n; the last taken step is prevStep.
    const residual = step;
    const lastStep = iterations > 0 ? prevStep : 0;
    return {
      theta,
      residual,
      iterations,
      converged,
      lastStep,
      aPosterioriBound: rho === null ? null : (rho / (1 - rho)) * lastStep,
      rho,
      observedRate: iterations > 0 && lastStep > 0 ? residual / lastStep : null,
      diverged: false,
      iterateNorms: norms,
    };
  } finally {
    engine?.release();
  }
}

function divergedResult(start: Float64Array, iterations: number, norms: number[]): FixedPointResult {
  return {
    theta: start,
    residual: Infinity,
    iterations,
    converged: false,
    lastStep: Infinity,
    aPosterioriBound: null,
    rho: null,
    observedRate: null,
    diverged: true,
    iterateNorms: norms.slice(-8),
  };
}
