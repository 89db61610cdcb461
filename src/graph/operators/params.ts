/**
 * Parameters of the reference consolidation operator Q (./consolidate.ts) and the analytic
 * bound on its Lipschitz modulus on the confidence block.
 *
 * Derivation of the bound (docs/graph.md has the long form). Q's confidence update is
 *   c' = (1 − λ) c + λ · h(c),   h = g for claims and questions, h_A = T(g_A) for each question's answers,
 * with g the belief targets (sigmoids for claims and questions, one softmax-with-"none" per
 * question for its answers) and T the mass-preserving sharpening of each question's answer
 * targets. With the structure (edges) held fixed, on the unit cube c ∈ [0, 1]^Nmax (convex and
 * mapped into itself by Q):
 *   ‖D_c c'‖₂ <= (1 − λ) + λ · L_h,   L_h = sqrt(C² + A² + Qb²)
 * one term per row block of D_c h (claims, answers, questions; for a matrix split into row blocks
 * ‖M‖² <= Σ ‖M_blk‖²):
 *     C  = (b_s + b_x (1 + 1/(2 τ_x)) + b_r) / 4   claims: σ' <= 1/4, gate <= 1;
 *          ‖Ŝ‖, ‖X̂‖, ‖R̂‖ <= 1 by the normalisations (row and column sums < 1, Schur test);
 *          the contradiction term c_j σ((c_j − c_i)/τ_x) has off-diagonal derivative at most
 *          X̂_ij (1 + 1/(4τ_x)) and diagonal at most Σ_j X̂_ij/(4τ_x) < 1/(4τ_x).
 *     A  = J_T (b_s + b_r)                         answers: D h_A = D T · J · D_c z_A, block
 *          diagonal over questions, with ‖D_c z_A‖ <= b_s + b_r and J = diag(g) − g gᵀ the
 *          softmax-with-none Jacobian (a principal block of a full softmax Jacobian, ‖J‖ <= 1/2).
 *          T(g) = (1 − η) g + η G s(g/τ_a), G = Σ g <= 1, so
 *          D T = (1 − η) I + η (s 1ᵀ + (G/τ_a)(diag s − s sᵀ)), and 1ᵀ J = (1 − G) gᵀ gives
 *          ‖s 1ᵀ J‖ = (1 − G) ‖s‖ ‖g‖ <= (1 − G) G <= 1/4 (‖s‖ <= 1, ‖g‖ <= Σ g = G), while
 *          ‖diag s − s sᵀ‖ <= 1/2. Hence
 *          ‖D T · J‖ <= J_T = (1 − η)/2 + η (1/4 + 1/(4 τ_a))   (n_A >= 2),
 *          and (1 − η)/2 + η/4 for a single answer (diag s − s sᵀ = 0 there).
 *          J_T does not grow with the number of competing answers.
 *     Qb = b_res · sqrt(n_A) / 4                    questions: σ' <= 1/4, m_q <= 1; the
 *          answer-mass term is an indicator matrix with disjoint rows of at most n_A ones.
 *          (Structure terms of the logits — the question's promotion term b_pro S_qq, S_qq =
 *          Supports[q → q] its resolution support, and an answer's reliability-weighted
 *          support — are edge weights, held fixed: they shift a logit but have no derivative
 *          in c, so they add nothing, whatever b_pro.)
 * The absorbing merge (h_a > 0, ./consolidate.ts) follows the update: it scales an absorbed claim's
 * confidence by 1 − m ∈ [0, 1] with m independent of c and leaves every other confidence alone,
 * so it multiplies D_c c' by a diagonal of norm <= 1 and the bound holds with it on.
 * With the defaults the bound is < 1 while n_A <= 15: the open world's growing answer groups
 * keep Q a contraction on the confidence block.
 * n_A is the largest number of answer slots competing for one question (a layout constant).
 */
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';
import { finiteNumber, integerInRange, positiveNumber } from '../../util/validate.js';

/** Parameters of the reference operators (all have defaults; see {@link DEFAULT_PARAMS}). */
export interface GraphOperatorParams {
  /** λ ∈ (0, 1]: belief relaxation rate. */
  lambda: number;
  /** Belief biases b_type. */
  biasClaim: number;
  biasAnswer: number;
  biasQuestion: number;
  /** b_d: weight of a claim's direct support S_ii in its logit. */
  direct: number;
  /** b_in: weight of an answer's reliability-weighted structural support k̃/(1 + k̃) (structure
   * only, so it does not enter the Lipschitz bound). */
  answerSupport: number;
  /** b_s >= 0: weight of normalised support from other claims. */
  support: number;
  /** b_x >= 0: weight of contradiction downweighting. */
  contradict: number;
  /** τ_x > 0: smoothness of "the lower-confidence endpoint" in the contradiction term. */
  tauContradict: number;
  /** b_r >= 0: penalty of requiring an open question. */
  require: number;
  /** b_res >= 0: how much answer mass closes a question. */
  resolve: number;
  /**
   * b_pro >= 0: how much a question's resolution support S_qq (its Supports self-edge, written
   * by the items that support one of its answers) closes it: g_q = m_q σ(b_Q − b_res Σ_{A(q)} c_a
   * − b_pro S_qq). Default 2 = b_Q: a question fully promoted (S_qq = 1) has lost its prior
   * openness bias — its openness is at most m_q σ(0) <= 1/2 before any answer mass, and falls
   * further with the answer mass. S_qq is structure, so b_pro does not enter the Lipschitz bound
   * of the confidence block ({@link confidenceLipschitzBound}).
   */
  promotion: number;
  /**
   * τ_promote ∈ (0, 1]: a question is promoted (the paper's PartialAnswer, Sec. 3.1) iff its
   * resolution support S_qq >= τ_promote. Read by the state in words (../state/describe.ts),
   * not by Q or P_e. Default 0.5: one application of an item whose strength times Supports
   * weight is at least 1/2 promotes (P_e moves S_qq from 0 to a_e·w).
   */
  promotionThreshold: number;
  /** ω > 0: presence gates 1 − exp(−(incident structure)/ω) of answers and questions. */
  presenceScale: number;
  /** μ ∈ [0, 1): merge rate of near-duplicate claims. */
  mergeRate: number;
  /** h > 0: merge radius (attribute distance beyond which claims never interact). */
  mergeRadius: number;
  /**
   * h_a ∈ [0, h]: absorb radius of the absorbing merge (./consolidate.ts, `absorptionWeight`):
   * a claim within h_a/2 of a lower-numbered claim (both of reliability >= 2⁻⁶) is absorbed into
   * it by Q — its edges carried over, its slot released — and partly absorbed between h_a/2 and
   * h_a. Default 0: off (Q never writes an edge). It touches the confidence block only by scaling
   * the absorbed claim's confidence by 1 − m ∈ [0, 1], so the bound of
   * {@link confidenceLipschitzBound} holds with it on.
   */
  absorbRadius: number;
  /** How many leading attribute coordinates are the text embedding (merged); the rest (e.g. the
   * source code) are left alone. Default: k − 1, set per layout when undefined. */
  mergeDims?: number;
  /** η ∈ [0, 1]: sharpening toward the best answer. */
  sharpen: number;
  /** τ_a > 0: softmax temperature of sharpening. */
  tauAnswer: number;
}

/** Defaults; the bound is < 1 for up to 15 competing answers per question (see the module comment). */
export const DEFAULT_PARAMS: Readonly<GraphOperatorParams> = Object.freeze({
  lambda: 0.5,
  biasClaim: -0.5,
  biasAnswer: -1,
  biasQuestion: 2,
  direct: 3,
  answerSupport: 5,
  support: 0.3,
  contradict: 0.4,
  tauContradict: 0.5,
  require: 0.4,
  resolve: 0.8,
  promotion: 2,
  promotionThreshold: 0.5,
  presenceScale: 0.1,
  mergeRate: 0.5,
  mergeRadius: 0.3,
  absorbRadius: 0,
  sharpen: 0.15,
  tauAnswer: 0.15,
});

/**
 * Fills defaults and validates. @throws {ArgumentError} a parameter out of its range (named).
 */
export function resolveParams(params: Partial<GraphOperatorParams> = {}): GraphOperatorParams {
  if (typeof params !== 'object' || params === null) throw new ArgumentTypeError('params', params, 'must be an object');
  for (const key of Object.keys(params)) {
    if (!(key in DEFAULT_PARAMS) && key !== 'mergeDims')
      throw new ArgumentError(
        `params.${key}`,
        (params as Record<string, unknown>)[key],
        'is not a parameter of the reference operators',
      );
  }
  const p = { ...DEFAULT_PARAMS, ...params } as GraphOperatorParams;
  const lam = finiteNumber('params.lambda', p.lambda);
  if (!(lam > 0 && lam <= 1)) throw new ArgumentError('params.lambda', lam, 'must lie in (0, 1]');
  for (const key of ['biasClaim', 'biasAnswer', 'biasQuestion', 'direct', 'answerSupport'] as const)
    finiteNumber(`params.${key}`, p[key]);
  for (const key of ['support', 'contradict', 'require', 'resolve', 'promotion'] as const) {
    if (!(finiteNumber(`params.${key}`, p[key]) >= 0)) throw new ArgumentError(`params.${key}`, p[key], 'must be >= 0');
  }
  for (const key of ['tauContradict', 'presenceScale', 'mergeRadius', 'tauAnswer'] as const)
    positiveNumber(`params.${key}`, p[key]);
  const mu = finiteNumber('params.mergeRate', p.mergeRate);
  if (!(mu >= 0 && mu < 1)) throw new ArgumentError('params.mergeRate', mu, 'must lie in [0, 1)');
  const ha = finiteNumber('params.absorbRadius', p.absorbRadius);
  if (!(ha >= 0 && ha <= p.mergeRadius))
    throw new ArgumentError('params.absorbRadius', ha, `must lie in [0, mergeRadius = ${p.mergeRadius}]`);
  const eta = finiteNumber('params.sharpen', p.sharpen);
  if (!(eta >= 0 && eta <= 1)) throw new ArgumentError('params.sharpen', eta, 'must lie in [0, 1]');
  const tau = finiteNumber('params.promotionThreshold', p.promotionThreshold);
  if (!(tau > 0 && tau <= 1)) throw new ArgumentError('params.promotionThreshold', tau, 'must lie in (0, 1]');
  if (p.mergeDims !== undefined) integerInRange('params.mergeDims', p.mergeDims, 0);
  return p;
}

/** The pieces of the bound, for reports. */
export interface LipschitzBound {
  /** The bound on ‖D_c c'‖₂: (1 − λ) + λ L_h. */
  modulus: number;
  /** L_h: bound on ‖D_c h‖₂, h the belief targets after sharpening. */
  beliefTargets: number;
  /** J_T: bound on ‖D T · J‖₂, the sharpened softmax-with-none of one question's answers. */
  sharpening: number;
  /** Row-block terms C, A, Qb. */
  claimRows: number;
  answerRows: number;
  questionRows: number;
}

/**
 * The analytic Lipschitz bound of Q's confidence update on the unit cube (see the module
 * comment for the derivation), for a layout where at most `maxAnswersPerQuestion` answer
 * slots compete for one question. Cost O(1).
 * @throws {ArgumentError} bad parameters or a negative count.
 * @example
 * ```ts
 * confidenceLipschitzBound(DEFAULT_PARAMS, 2).modulus; // ≈ 0.843 < 1: a contraction
 * ```
 */
export function confidenceLipschitzBound(
  params: Partial<GraphOperatorParams>,
  maxAnswersPerQuestion: number,
): LipschitzBound {
  const p = resolveParams(params);
  const nA = integerInRange('maxAnswersPerQuestion', maxAnswersPerQuestion, 0);
  const claimRows = (p.support + p.contradict * (1 + 1 / (2 * p.tauContradict)) + p.require) / 4;
  const sharpening = (1 - p.sharpen) / 2 + p.sharpen * (1 / 4 + (nA <= 1 ? 0 : 1 / (4 * p.tauAnswer)));
  const answerRows = sharpening * (p.support + p.require);
  const questionRows = (p.resolve * Math.sqrt(nA)) / 4;
  const beliefTargets = Math.sqrt(claimRows ** 2 + answerRows ** 2 + questionRows ** 2);
  const modulus = 1 - p.lambda + p.lambda * beliefTargets;
  return { modulus, beliefTargets, sharpening, claimRows, answerRows, questionRows };
}
