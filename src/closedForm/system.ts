/**
 * The closed-form 2-D system of Sec. 9 (Eqs. 8–12), the built-in system `closed-form`.
 *
 *   θ = (c, u) ∈ [0,1]²
 *   P_e(c, u) = (c + α_e (1 − c), u)                          (8)
 *   Q(c, u)   = (c, ρ (1 − c) u)                              (9)
 *   Ω((c, u); e) = ρ α_e (1 − c) u                            (12)
 *
 * Defaults are the setting of Sec. 9.2: ρ = 0.9, θ0 = (0.20, 0.80), five items with
 * α = (0.05, 0.35, 0.40, 0.05, 0.05) presented in order e1..e5, ε = 0.025, w = 2, Tmax = 5.
 * Q fixes every (c, 0), so this system is not a contraction on the whole space (the paper says
 * so; the certification reports it). Q and P_e are also declared as tfjs maps on batches of states
 * (`linearization.consolidateTf`/`expandTf`), so autodiff Jacobians (float32) and the FD/autodiff
 * cross-check cover this system: DQ = [[1, 0], [−ρu, ρ(1 − c)]], DP_e = [[1 − α_e, 0], [0, 1]].
 */
import { uniformExcept } from '../system/distribution.js';
import { defineSystem } from '../system/define.js';
import { registerSystem } from '../system/registry.js';
import type { OperatorSystem, TfConsolidate, TfExpand } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteVector, openInterval } from '../util/validate.js';

/** Parameters of the closed-form system. */
export interface ClosedFormParams {
  /** Consolidation rate ρ ∈ (0, 1). */
  rho?: number;
  /** Relevance weights α_e ∈ (0, 1); item i is named `e{i+1}`. */
  alphas?: readonly number[];
  /** Start state (c, u) ∈ [0, 1]². */
  theta0?: readonly number[];
  /** P(e) overrides by id; the rest of the mass is shared equally (default: uniform). */
  probabilities?: Readonly<Record<string, number>>;
}

/** The setting of Sec. 9.2 (the paper's numbers). */
export const SEC92 = Object.freeze({
  rho: 0.9,
  alphas: Object.freeze([0.05, 0.35, 0.4, 0.05, 0.05]),
  theta0: Object.freeze([0.2, 0.8]),
  epsilon: 0.025,
  window: 2,
  maxSteps: 5,
  sequence: Object.freeze(['e1', 'e2', 'e3', 'e4', 'e5']),
  /** The pertinent items of Sec. 9.2 (the rest are tangential). */
  pertinent: Object.freeze(['e2', 'e3']),
});

/** Ω of Eq. (12) in closed form: ρ·α·(1 − c)·u. */
export function closedFormOrderGap(c: number, u: number, alpha: number, rho: number): number {
  return rho * alpha * (1 - c) * u;
}

/** Q of Eq. (9) on the rows (c, u) of X, tfjs ops only: (c, ρ(1 − c)u). */
function consolidateTf(rho: number): TfConsolidate {
  return (tf, X) =>
    tf.tidy(() => {
      const c = tf.slice(X, [0, 0], [-1, 1]);
      const u = tf.slice(X, [0, 1], [-1, 1]);
      return tf.concat([c, tf.mul(tf.mul(tf.sub(1, c), u), rho)], 1);
    });
}

/** P_e of Eq. (8) on the rows (c, u) of X, tfjs ops only: (c + α_e(1 − c), u). */
function expandTf(alphas: readonly number[]): TfExpand {
  return (tf, id, X) => {
    const a = closedFormAlpha(id, { alphas });
    return tf.tidy(() => {
      const c = tf.slice(X, [0, 0], [-1, 1]);
      const u = tf.slice(X, [0, 1], [-1, 1]);
      return tf.concat([tf.add(c, tf.mul(tf.sub(1, c), a)), u], 1);
    });
  };
}

/**
 * Builds the closed-form system. Ids are `e1..en`; by default P is uniform over them.
 * @throws {ArgumentError} ρ or an α outside (0, 1), θ0 outside [0, 1]², bad probabilities.
 * @example
 * ```ts
 * const sys = closedFormSystem();
 * sys.expand('e1', Float64Array.of(0.2, 0.8)); // Float64Array [0.24, 0.8]
 * sys.consolidate(Float64Array.of(0.24, 0.8)); // Float64Array [0.24, 0.5472]
 * ```
 */
export function closedFormSystem(params: ClosedFormParams = {}): OperatorSystem {
  if (typeof params !== 'object' || params === null) throw new ArgumentTypeError('params', params, 'must be an object');
  const rho = openInterval('rho', params.rho ?? SEC92.rho, 0, 1);
  const alphas = finiteVector('alphas', params.alphas ?? SEC92.alphas);
  if (alphas.length === 0) throw new ArgumentError('alphas', params.alphas, 'must list at least one relevance weight');
  alphas.forEach((a, i) => openInterval(`alphas[${i}]`, a, 0, 1));
  const theta0 = finiteVector('theta0', params.theta0 ?? SEC92.theta0, 2);
  theta0.forEach((x, i) => {
    if (x < 0 || x > 1) throw new ArgumentError(`theta0[${i}]`, x, 'must lie in [0, 1]');
  });
  const ids = Array.from(alphas, (_, i) => `e${i + 1}`);
  const alphaOf = new Map(ids.map((id, i) => [id, alphas[i]!]));
  const evidence = uniformExcept(ids, params.probabilities ?? {});
  return defineSystem({
    name: 'closed-form',
    dim: 2,
    theta0,
    evidence,
    expand(id, theta) {
      const a = alphaOf.get(id)!;
      const c = theta[0]!;
      return Float64Array.of(c + a * (1 - c), theta[1]!);
    },
    consolidate(theta) {
      const c = theta[0]!;
      return Float64Array.of(c, rho * (1 - c) * theta[1]!);
    },
    linearization: { consolidateTf: consolidateTf(rho), expandTf: expandTf(Array.from(alphas)) },
    subspaces: { all: [0, 1], confidence: [0], uncertainty: [1] },
    describeCoordinate: (i) => (i === 0 ? 'c' : i === 1 ? 'u' : `theta[${i}]`),
    // Sec. 9.2: the items presented in the order e1..e5, ε = 0.025, w = 2, Tmax = 5
    runDefaults: {
      epsilon: SEC92.epsilon,
      window: SEC92.window,
      maxSteps: SEC92.maxSteps,
      seed: 0,
      sequence: ids.length === SEC92.sequence.length ? SEC92.sequence : ids,
    },
  });
}

/** The relevance weight α of item `id` under `params` (for reports). */
export function closedFormAlpha(id: string, params: ClosedFormParams = {}): number {
  const alphas = params.alphas ?? SEC92.alphas;
  const i = Number(id.slice(1)) - 1;
  if (!/^e\d+$/.test(id) || !(i >= 0 && i < alphas.length))
    throw new ArgumentError('id', id, 'is not an evidence item of closed-form');
  return alphas[i]!;
}

registerSystem('closed-form', 'the 2-D illustration of Sec. 9 (Eqs. 8–12)', (p) =>
  closedFormSystem(p as ClosedFormParams),
);
