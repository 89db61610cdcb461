/**
 * An anytime-valid stopping rule for votes: stop when betting e-processes reject "the leading
 * answer is not the majority" at level δ.
 *
 * ## The guarantee
 * In one sentence: with probability at least 1 − δ the rule never stops on an answer other than
 * the majority vote of its budget's N samples (without a budget: the most likely answer), however
 * long it runs and wherever it is cut off.
 *
 * In full. With a budget of N samples (`budget`): if the N samples are exchangeable — independent draws
 * from a fixed answer distribution, or N recorded samples replayed in random order — then with
 * probability at least 1 − δ the rule never stops on its test with an answer other than the
 * majority vote of all N samples. Without a budget: if the samples are independent draws from a
 * fixed distribution, then with probability at least 1 − δ it never stops on its test with an
 * answer other than the most likely one, however long it runs. (With a tie for the majority the
 * bound is δ per tied answer; a stop by a cap carries no guarantee. A budget above the samples
 * actually available keeps the guarantee for the vote of those samples: the remaining pool only
 * shrinks the set of pools the bound below ranges over.)
 *
 * ## The e-processes
 * For every answer b (each one seen, plus one process shared by all answers not seen yet) the
 * rule keeps a wealth E_b, starting at 1, that bets against H0(b): "b is a majority answer"
 * (without a budget p_b >= p_c for every c; with a budget X_b >= X_c for the counts X of the N
 * samples). Before sample n + 1 it takes the strongest competitor c of b (most votes apart from
 * b; earliest seen among ties) with x votes for c and y for b so far, the lead d = x − y, and
 * R = N − n samples still to come (R = ∞ without a budget). When d >= 0 it names a share
 * q ∈ [p0, 1] for c and multiplies E_b by q/p0 if the sample is c, by (1 − q)/(1 − p0) if it is
 * b, and by 1 otherwise (other answers, empty samples), where p0 = ⌊(R − d)/2⌋/(2⌊(R − d)/2⌋ + d)
 * (p0 = 0 when that is 0/0; p0 = 1/2 without a budget). When d < 0 it does not bet.
 * - Independent samples, H0(b): E[factor] − 1 = (q − 1/2)·2·(p_c − p_b) <= 0.
 * - A random order of N samples, H0(b): with r_c, r_b the remaining c and b samples,
 *   r_b >= r_c + d and r_b + r_c <= R, so r_c <= ⌊(R − d)/2⌋; E[factor] − 1 =
 *   (q − p0)·(r_c/p0 − r_b/(1 − p0))/R, which is linear and increasing in r_c along its worst
 *   case r_b = r_c + d and vanishes at r_c = ⌊(R − d)/2⌋ (that is how p0 is defined), so it is
 *   <= 0. p0 is the least favourable share of c among the remaining b and c samples; it is 1/2
 *   at the start of a long budget and falls as the pool runs out, so the bets grow.
 *   When p0 = 0 the factor on c is ∞, but under H0(b) c can no longer occur (r_c = 0).
 * - With a budget, H0(b) becomes impossible once some answer leads b by more than the samples
 *   left; the rule then sets E_b = ∞ (an event of probability 0 under H0(b)).
 * Each factor has conditional mean <= 1 under H0(b) for every predictable q ∈ [p0, 1], so E_b is a
 * non-negative supermartingale under H0(b) (for a budget: conditionally on the multiset of the
 * N samples, then unconditionally), and so is any convex mixture of such wealths. Ville's
 * inequality gives P(sup_n E_b >= 1/δ) <= δ. The rule stops with the leader a only when
 * E_b >= 1/δ for every b ≠ a, the unseen answers included; a stop on a wrong answer therefore
 * needs the e-process of the true majority a* to reach 1/δ, which happens with probability at
 * most δ. No union over answers is needed: only H0(a*) has to be true.
 *
 * ## The bets
 * E_b = w·A_b + (1 − w)·B_b, a mixture of two bettors:
 * - B (Beta): q = E[q | q > 1/2] for q ~ Beta(x + 1, y + 1), a uniform prior on the competitor's
 *   share restricted to the alternative; q = (1 + λ)/2 with λ = {@link anytimeBet}(x, y). Without
 *   a budget and while the competitor stays the same, B_b is the Bayes factor
 *   M(x, y) = 2^(x+y+1) ∫_{1/2}^1 q^x (1 − q)^y dq of that prior against q = 1/2.
 * - A (all in): q = 1, so A_b = 0 as soon as b is seen. It lives only in the unseen answers'
 *   process, where it multiplies by 1/p0 on every vote for the leader (2 without a budget).
 * The first sample cannot be bet on (there is no competitor yet), so after n unanimous answers
 * A = Π_{k=1}^{n−1} 1/p0(d = k, R = N − k) (2^(n−1) without a budget) and, without a budget,
 * B = M(n, 0)/M(1, 0) = 2·(2^(n+1) − 1)/(3·(n + 1)). The weight w is derived from δ and N
 * ({@link anytimeMixture}): the unanimous stop n* is the smallest n at which some w <= cap
 * reaches w·A + (1 − w)·B >= 1/δ, and w is the smallest multiple of 1/64 that does (or the cap).
 * The default cap 1/2 (`maxWeight`) is the stated worst-case loss: on a stream where a second answer appears, the rule's evidence is
 * (1 − w)·B >= B/2, at most one doubling short of the Beta bettor alone. At δ = 0.05 without a
 * budget: A = 32, B = 12.1 at n = 6, so w = 26/64 and n* = 6 (the Beta bettor alone needs 7:
 * B = 21.25 >= 20); with N = 40: A = 49.5, B = 18.7 at n = 6, so w = 3/64 and n* = 6 (n = 5
 * would need w ≈ 0.9: A = 21.2, B = 9.3). Six is also the floor for any bet without a budget:
 * five all-in bets give 2^5 = 32 >= 20, four give 16.
 *
 * Wealth is kept as logarithms (log1p of each factor), so nothing overflows. The guarantee holds
 * for any predictable q ∈ [p0, 1]: the bets affect only how soon the rule stops, not its validity.
 *
 * Cost per observation: O(K) bets for K answers seen, each an O(x + y) Beta tail (cached for
 * counts below 128); the weight is derived once per (δ, N) in O(n*·n*).
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { leaderProbability } from './betaTail.js';
import { logAddExp } from './logSpace.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';

/** Parameters of {@link AnytimeVoteRule}. */
export interface AnytimeVoteParams {
  /** δ ∈ (0, 1): the bound on the probability of ever stopping on a non-majority answer (default 0.05). */
  delta?: number;
  /**
   * N >= 1: the budget whose majority vote the guarantee is about; the rule also stops at N
   * (reason `'budget'`). Default off: the guarantee is about the most likely answer.
   */
  budget?: number;
  /**
   * The largest weight w of the all-in bettor, in [0, 1) (default {@link ANYTIME_MAX_WEIGHT} = 1/2):
   * how much of the evidence may be committed to unanimous streams. After a second answer appears
   * the evidence is (1 − w)·B, so a cap c costs at most a factor 1/(1 − c) on contested streams; a
   * higher cap can only make unanimous streams stop earlier (down to the floor the budget allows).
   * The guarantee holds for every cap.
   */
  maxWeight?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/** Default δ of {@link AnytimeVoteRule}. */
export const ANYTIME_DEFAULT_DELTA = 0.05;

/** The default cap on the all-in bettor's mixture weight: the stated worst-case loss (a factor 2). */
export const ANYTIME_MAX_WEIGHT = 0.5;

/** The grid of the mixture weight (multiples of 1/64, so a threshold is crossed by a margin). */
const WEIGHT_STEP = 1 / 64;

const CACHE_SIDE = 128;
const betCache = new Float64Array(CACHE_SIDE * CACHE_SIDE).fill(NaN);

/**
 * The Beta bettor's bet λ(x, y) = 2·E[q | q > 1/2] − 1 for q ~ Beta(x + 1, y + 1), or 0 when
 * x < y (see the module comment); its share is q = (1 + λ)/2. In [0, 1).
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

/**
 * The least favourable share p0 of the competitor among the remaining competitor and own
 * samples under H0(b) (module comment): ⌊(R − d)/2⌋/(2⌊(R − d)/2⌋ + d) for a lead d >= 0 of the
 * competitor and R samples left, 0 when that is 0/0, and 1/2 when `remaining` is null (no budget:
 * independent draws). A bet with share q ∈ [p0, 1] pays q/p0 on the competitor and
 * (1 − q)/(1 − p0) on the own answer.
 * @param lead d = x − y, an integer >= 0
 * @param remaining R >= 0 samples still to come, or null (no budget)
 * @throws {ArgumentError} lead not an integer >= 0, remaining not an integer >= 0 or below lead.
 * @example
 * ```ts
 * nullShare(1, 39); // 19/39: after one vote of 40, at worst 19 of the other 39 are the leader's
 * ```
 */
export function nullShare(lead: number, remaining: number | null): number {
  integerInRange('lead', lead, 0);
  if (remaining === null) return 0.5;
  integerInRange('remaining', remaining, lead);
  const rc = Math.floor((remaining - lead) / 2);
  return rc === 0 ? 0 : rc / (2 * rc + lead);
}

/** The unanimous stop and the mixture weight derived for (δ, N); see {@link anytimeMixture}. */
export interface AnytimeMixture {
  /** w: the weight of the all-in bettor, a multiple of 1/64 in [0, cap] or the cap itself (cap: 1/2 by default). */
  readonly weight: number;
  /** n*: the samples after which unanimous answers stop the rule (null: not before the budget). */
  readonly unanimousStop: number | null;
}

const mixtureCache = new Map<string, AnytimeMixture>();

/** log(w·e^a + (1 − w)·e^b). */
function logMix(w: number, a: number, b: number): number {
  return logAddExp(w === 0 ? -Infinity : Math.log(w) + a, Math.log1p(-w) + b);
}

/**
 * Derives the all-in bettor's weight w and the unanimous stop n* for δ and a budget N (null: none):
 * n* is the smallest n at which w·A_n + (1 − w)·B_n >= 1/δ for some w <= maxWeight (A_n, B_n:
 * the two bettors' wealths after n unanimous answers, computed with the rule's own bets), and w is
 * the smallest multiple of 1/64 that reaches it (0 when B_n alone does). Memoised per (δ, N, cap).
 * @param maxWeight the cap on w, in [0, 1) (default {@link ANYTIME_MAX_WEIGHT} = 1/2)
 * @throws {ArgumentError} δ outside (0, 1), N not an integer >= 1, maxWeight outside [0, 1).
 * @example
 * ```ts
 * anytimeMixture(0.05, null); // { weight: 26/64, unanimousStop: 6 }: 0.406·32 + 0.594·12.1 >= 20
 * ```
 */
export function anytimeMixture(
  delta: number,
  budget: number | null,
  maxWeight: number = ANYTIME_MAX_WEIGHT,
): AnytimeMixture {
  finiteNumber('delta', delta);
  if (!(delta > 0 && delta < 1)) throw new ArgumentError('delta', delta, 'must lie in (0, 1)');
  if (budget !== null) integerInRange('budget', budget, 1);
  finiteNumber('maxWeight', maxWeight);
  if (!(maxWeight >= 0 && maxWeight < 1)) throw new ArgumentError('maxWeight', maxWeight, 'must lie in [0, 1)');
  const key = `${delta}/${budget}/${maxWeight}`;
  const hit = mixtureCache.get(key);
  if (hit) return hit;
  const logThreshold = -Math.log(delta);
  let logA = 0;
  let logB = 0;
  let result: AnytimeMixture = { weight: 0, unanimousStop: null };
  for (let n = 2; budget === null || n <= budget; n++) {
    // the bet on sample n, after n − 1 unanimous answers (the first is not bet on)
    const x = n - 1;
    const remaining = budget === null ? null : budget - x;
    logA -= Math.log(nullShare(x, remaining));
    logB += betLog(x, 0, remaining, true);
    if (budget !== null && n > budget - n) logA = logB = Infinity; // no answer can catch up
    if (logB >= logThreshold) {
      result = { weight: 0, unanimousStop: n };
      break;
    }
    if (maxWeight > 0 && logMix(maxWeight, logA, logB) >= logThreshold) {
      // the weight that reaches 1/δ exactly, (1/δ − B)/(A − B), in logs; then up to the grid
      const exact = (Math.exp(logThreshold - logA) * -Math.expm1(logB - logThreshold)) / -Math.expm1(logB - logA);
      let w = Math.min(Math.ceil(exact / WEIGHT_STEP) * WEIGHT_STEP, maxWeight);
      while (logMix(w, logA, logB) < logThreshold) w = Math.min(w + WEIGHT_STEP, maxWeight);
      result = { weight: w, unanimousStop: n };
      break;
    }
  }
  mixtureCache.set(key, result);
  return result;
}

interface Entry {
  count: number;
  /** log B_b (the all-in bettor's wealth is 0 once b is seen). */
  logBeta: number;
}

/**
 * Reads `obs.answer`. Stops (reason `'criterion'`) when every answer other than the leader has
 * e-value >= 1/δ; the decision's `statistic` is the smallest such e-value.
 * @throws {ArgumentError} δ outside (0, 1), budget not an integer >= 1, unknown parameter.
 * @example
 * ```ts
 * const r = new AnytimeVoteRule({ delta: 0.05 });
 * ['a', 'a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 5: after 6 unanimous answers the unseen answers' e-value is (26/64)·32 + (38/64)·12.1 = 20.2 >= 20
 * ```
 */
export class AnytimeVoteRule extends BaseRule {
  readonly name = 'anytime';
  readonly params: RuleParams;
  readonly #logThreshold: number;
  readonly #delta: number;
  readonly #budget: number | null;
  readonly #logWeight: number;
  readonly #logRest: number;
  /** The mixture weight and unanimous stop derived for this (δ, budget). */
  readonly mixture: AnytimeMixture;
  /** Answers in first-seen order with their count and log Beta-bettor wealth. */
  #answers = new Map<string, Entry>();
  /** Log wealths of the two bettors shared by every answer not seen yet. */
  #unseenAllIn = 0;
  #unseenBeta = 0;

  constructor(params: AnytimeVoteParams = {}) {
    checkKnownParams('anytime', params, ['delta', 'budget', 'maxWeight', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    const budget = params.budget === undefined ? null : integerInRange('budget', params.budget, 1);
    const delta = finiteNumber('delta', params.delta ?? ANYTIME_DEFAULT_DELTA);
    if (!(delta > 0 && delta < 1)) throw new ArgumentError('delta', delta, 'must lie in (0, 1)');
    super(budget === null ? maxSteps : Math.min(maxSteps ?? budget, budget));
    this.#delta = delta;
    this.#budget = budget;
    this.#logThreshold = -Math.log(delta);
    const maxWeight = finiteNumber('maxWeight', params.maxWeight ?? ANYTIME_MAX_WEIGHT);
    this.mixture = anytimeMixture(delta, budget, maxWeight);
    this.#logWeight = this.mixture.weight === 0 ? -Infinity : Math.log(this.mixture.weight);
    this.#logRest = Math.log1p(-this.mixture.weight);
    this.params = Object.freeze({
      delta,
      ...(budget === null ? {} : { budget }),
      maxWeight,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
  }

  /** The current e-value of each answer seen (first-seen order) and of the unseen answers. */
  get eValues(): { answers: Array<[string, number]>; unseen: number } {
    return {
      answers: [...this.#answers].map(([a, e]) => [a, Math.exp(this.#logRest + e.logBeta)]),
      unseen: Math.exp(this.#logUnseen()),
    };
  }

  #logUnseen(): number {
    const allIn = this.#logWeight === -Infinity ? -Infinity : this.#logWeight + this.#unseenAllIn;
    return logAddExp(allIn, this.#logRest + this.#unseenBeta);
  }

  protected decide(obs: StepObservation): StopDecision {
    const s = obs.answer ?? null;
    // samples still to come, this one included (null: no budget)
    const remaining = this.#budget === null ? null : this.#budget - (obs.t - 1);
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
    if (s !== null && (remaining === null || remaining > 0)) {
      // every tracked answer b bets on its strongest competitor c, using counts before the sample
      for (const [b, e] of this.#answers) {
        const c = b === first ? second : first;
        if (c === null || (s !== c && s !== b)) continue;
        const x = this.#answers.get(c)!.count;
        // no bet while c is behind; none needed once H0(b) is impossible (E_b = ∞ already)
        if (x < e.count || (remaining !== null && x - e.count > remaining)) continue;
        e.logBeta += betLog(x, e.count, remaining, s === c);
      }
      const fresh = !this.#answers.has(s);
      const canBet = first !== null && (remaining === null || c1 <= remaining);
      if (canBet && (fresh || s === first)) {
        // the unseen answers bet on the leader; a new answer's wealth is theirs after losing the bet
        const beta = betLog(c1, 0, remaining, s === first);
        if (fresh)
          this.#answers.set(s, { count: 0, logBeta: this.#unseenBeta + beta }); // all-in part: 0
        else {
          this.#unseenBeta += beta;
          this.#unseenAllIn -= Math.log(nullShare(c1, remaining));
        }
      } else if (fresh) this.#answers.set(s, { count: 0, logBeta: this.#unseenBeta });
      this.#answers.get(s)!.count++;
    }
    // the leader after the sample
    let leader: string | null = null;
    let best = 0;
    for (const [a, e] of this.#answers) {
      if (e.count > best) {
        leader = a;
        best = e.count;
      }
    }
    if (leader === null) return { ...CONTINUE, statistic: null };
    if (this.#budget !== null) {
      // H0(b) is impossible once the leader is ahead of b by more than the samples left
      const left = this.#budget - obs.t;
      for (const [a, e] of this.#answers) if (a !== leader && best - e.count > left) e.logBeta = Infinity;
      if (best > left) this.#unseenAllIn = this.#unseenBeta = Infinity;
    }
    let weakest = this.#logUnseen();
    for (const [a, e] of this.#answers) {
      if (a !== leader && this.#logRest + e.logBeta < weakest) weakest = this.#logRest + e.logBeta;
    }
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
    this.#unseenAllIn = 0;
    this.#unseenBeta = 0;
  }
}

/**
 * log of the Beta bettor's factor for counts x (competitor) >= y (own) and R samples left (null:
 * no budget): log(q/p0) when the sample is the competitor's, log((1 − q)/(1 − p0)) when it is
 * the own answer's, with q = (1 + λ)/2. Written with log1p(±λ) so that without a budget
 * (p0 = 1/2) the factors are log1p(±λ) exactly.
 */
function betLog(x: number, y: number, remaining: number | null, competitorWon: boolean): number {
  const lambda = anytimeBet(x, y);
  const p0 = nullShare(x - y, remaining);
  return competitorWon ? Math.log1p(lambda) - Math.log(2 * p0) : Math.log1p(-lambda) - Math.log1p(1 - 2 * p0);
}
