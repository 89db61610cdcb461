/**
 * An anytime-valid stopping rule for votes: stop when a betting e-process rejects "the leading
 * answer is not the majority" at level δ.
 *
 * ## The guarantee
 * If the samples are independent draws from a fixed answer distribution, or are drawn in random
 * order from a fixed pool (a replay of N recorded samples, whose majority is the full-budget
 * vote), then with probability at least 1 − δ the rule never stops on its test with an answer
 * other than the most likely one (the pool's majority) — however long it runs, and whichever
 * budget cuts it off. (With a tie for the majority the bound is δ per tied answer.)
 *
 * ## The e-processes
 * For every answer b (each one seen, plus one process shared by all answers not seen yet) the
 * rule keeps a wealth E_b, starting at 1, that bets against H0(b): "b is a majority answer"
 * (p_b >= p_c for every c). Before each sample it picks the strongest competitor c of b (the
 * answer with the most votes other than b; earliest seen among ties) and a bet λ ∈ [0, 1) computed
 * from the counts so far (x = votes for c, y = votes for b); the sample then multiplies E_b by
 * 1 + λ if it is c, by 1 − λ if it is b, and by 1 otherwise (other answers, empty samples).
 * - Independent samples: E[factor] = 1 + λ·(p_c − p_b) <= 1 under H0(b), for any λ >= 0.
 * - Random order from a pool with counts X: E[factor] = 1 + λ·((X_c − x) − (X_b − y))/(N − n),
 *   which is <= 1 under H0(b) (X_b >= X_c) as long as λ > 0 only when x >= y — so λ = 0 when the
 *   competitor is behind.
 * Either way E_b is a non-negative supermartingale under H0(b), and Ville's inequality gives
 * P(sup_n E_b >= 1/δ) <= δ. The rule stops with the leader a only when E_b >= 1/δ for every
 * b ≠ a, the unseen answers included; a stop on a wrong answer therefore needs the e-process of
 * the true majority a* to reach 1/δ, which happens with probability at most δ. No union over
 * answers is needed: only H0(a*) is true.
 *
 * ## The bet
 * λ = 2·E[q | q > 1/2] − 1 with q ~ Beta(x + 1, y + 1) (a uniform prior on the competitor's
 * share q = p_c/(p_c + p_b), restricted to the alternative q > 1/2). While the competitor stays
 * the same, the product of the factors is then exactly the Bayes factor of that prior against
 * q = 1/2, M(x, y) = 2^(x+y+1) ∫_{1/2}^1 q^x (1 − q)^y dq. The unseen answers' process has no
 * competitor before the first vote, so after x unanimous answers its wealth is
 * M(x, 0)/M(1, 0) = 2·(2^(x+1) − 1)/(3·(x + 1)): 12.1 at x = 6, 21.25 at x = 7, so at δ = 0.05 the
 * rule stops after 7 unanimous answers (ESC's window of 5 needs 5, the Beta rule at 0.95 needs 4;
 * neither bounds the probability of stopping on a wrong answer). With
 * T(x, y) = P(Beta(x + 1, y + 1) > 1/2) ({@link leaderProbability}),
 * E[q | q > 1/2] = (x + 1)/(x + y + 2) · T(x + 1, y)/T(x, y). The guarantee holds for any
 * predictable λ in [0, 1]; the accuracy of λ affects only how soon the rule stops, not its
 * validity. Wealth is kept as a logarithm (log1p of each factor), so nothing overflows.
 *
 * Cost per observation: O(K) bets for K answers seen, each an O(x + y) Beta tail (cached for
 * counts below 128).
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import { leaderProbability } from './betaTail.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Parameters of {@link AnytimeVoteRule}. */
export interface AnytimeVoteParams {
  /** δ ∈ (0, 1): the bound on the probability of ever stopping on a non-majority answer (default 0.05). */
  delta?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/** Default δ of {@link AnytimeVoteRule}. */
export const ANYTIME_DEFAULT_DELTA = 0.05;

const CACHE_SIDE = 128;
const betCache = new Float64Array(CACHE_SIDE * CACHE_SIDE).fill(NaN);

/**
 * The bet λ(x, y) = 2·E[q | q > 1/2] − 1 for q ~ Beta(x + 1, y + 1), or 0 when x < y (see the
 * module comment). In [0, 1).
 * @example
 * ```ts
 * anytimeBet(0, 0); // 0.5: the uniform prior on (1/2, 1] has mean 3/4
 * ```
 */
export function anytimeBet(x: number, y: number): number {
  if (x < y) return 0;
  const cached = x < CACHE_SIDE && y < CACHE_SIDE;
  if (cached) {
    const v = betCache[x * CACHE_SIDE + y]!;
    if (!Number.isNaN(v)) return v;
  }
  const ratio = leaderProbability(x + 1, y).above / leaderProbability(x, y).above;
  const lambda = Math.min(Math.max((2 * (x + 1) * ratio) / (x + y + 2) - 1, 0), 1 - Number.EPSILON);
  if (cached) betCache[x * CACHE_SIDE + y] = lambda;
  return lambda;
}

interface Entry {
  count: number;
  logWealth: number;
}

/**
 * Reads `obs.answer`. Stops (reason `'criterion'`) when every answer other than the leader has
 * e-value >= 1/δ; the decision's `statistic` is the smallest such e-value.
 * @throws {ArgumentError} δ outside (0, 1), unknown parameter.
 * @example
 * ```ts
 * const r = new AnytimeVoteRule({ delta: 0.05 });
 * ['a', 'a', 'a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 6: after 7 unanimous answers the unseen answers' e-value is 2·(2^8 − 1)/(3·8) = 21.25 >= 20
 * ```
 */
export class AnytimeVoteRule extends BaseRule {
  readonly name = 'anytime';
  readonly params: RuleParams;
  readonly #logThreshold: number;
  readonly #delta: number;
  /** Answers in first-seen order with their count and log e-value. */
  #answers = new Map<string, Entry>();
  /** Log e-value shared by every answer not seen yet. */
  #unseen = 0;

  constructor(params: AnytimeVoteParams = {}) {
    checkKnownParams('anytime', params, ['delta', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    const delta = finiteNumber('delta', params.delta ?? ANYTIME_DEFAULT_DELTA);
    if (!(delta > 0 && delta < 1)) throw new ArgumentError('delta', delta, 'must lie in (0, 1)');
    this.#delta = delta;
    this.#logThreshold = -Math.log(delta);
    this.params = Object.freeze({ delta, ...(maxSteps === undefined ? {} : { maxSteps }) });
  }

  /** The current e-value of each answer seen (first-seen order) and of the unseen answers. */
  get eValues(): { answers: Array<[string, number]>; unseen: number } {
    return {
      answers: [...this.#answers].map(([a, e]) => [a, Math.exp(e.logWealth)]),
      unseen: Math.exp(this.#unseen),
    };
  }

  protected decide(obs: StepObservation): StopDecision {
    const s = obs.answer ?? null;
    // the two leading answers before this sample (earliest seen among ties)
    let first: string | null = null;
    let second: string | null = null;
    let c1 = 0;
    let c2 = 0;
    for (const [a, e] of this.#answers) {
      if (e.count > c1) {
        second = first;
        c2 = c1;
        first = a;
        c1 = e.count;
      } else if (e.count > c2) {
        second = a;
        c2 = e.count;
      }
    }
    if (s !== null) {
      // every tracked answer b bets on its strongest competitor c, using counts before the sample
      for (const [b, e] of this.#answers) {
        const c = b === first ? second : first;
        if (c === null) continue;
        const lambda = anytimeBet(this.#answers.get(c)!.count, e.count);
        if (lambda === 0) continue;
        if (s === c) e.logWealth += Math.log1p(lambda);
        else if (s === b) e.logWealth += Math.log1p(-lambda);
      }
      const lambdaUnseen = first === null ? 0 : anytimeBet(c1, 0);
      const fresh = !this.#answers.has(s);
      if (fresh) {
        // the new answer's wealth is the unseen process's, which loses its bet on this sample
        this.#answers.set(s, { count: 0, logWealth: this.#unseen + Math.log1p(-lambdaUnseen) });
      } else if (s === first) this.#unseen += Math.log1p(lambdaUnseen);
      this.#answers.get(s)!.count++;
    }
    // the leader after the sample and the weakest evidence against the others
    let leader: string | null = null;
    let best = 0;
    for (const [a, e] of this.#answers) {
      if (e.count > best) {
        leader = a;
        best = e.count;
      }
    }
    if (leader === null) return { ...CONTINUE, statistic: null };
    let weakest = this.#unseen;
    for (const [a, e] of this.#answers) if (a !== leader && e.logWealth < weakest) weakest = e.logWealth;
    const statistic = Math.exp(weakest);
    if (weakest >= this.#logThreshold) {
      return {
        stop: true,
        reason: 'criterion',
        statistic,
        detail: `every other answer has e-value >= ${statistic} >= 1/δ = ${1 / this.#delta} against ${JSON.stringify(leader)}`,
      };
    }
    return { ...CONTINUE, statistic };
  }

  protected clear(): void {
    this.#answers = new Map();
    this.#unseen = 0;
  }
}
