/**
 * An exact sequential test on the budget's pool of N samples: stop when the leading answer's
 * count reaches a threshold c_n fixed in advance for each n, with the thresholds chosen so that,
 * for every possible pool, the probability of ever stopping on an answer that is not a majority
 * of the N samples is at most δ.
 *
 * ## The guarantee
 * In one sentence: if the N samples are exchangeable (independent draws, or N recorded samples
 * replayed in random order), then with probability at least 1 − δ the rule never stops on an
 * answer other than a majority vote of those N samples, wherever it is cut off.
 *
 * ## Why it holds
 * Fix the multiset π of the N samples (answers and empty samples); the order is a uniformly
 * random permutation. An answer a that is not a majority of π has a count X_a < M, the largest
 * count, so X_a <= min(M − 1, N − M). The rule stops with a only if, at the stop, a's count x_n
 * is at least c_n, so the event "stops with a" lies in E_a = {x_n >= c_n for some n <= N}. Its
 * probability h(X_a) depends on X_a only (a's count after n samples follows the hypergeometric
 * chain P(next is a | x of n) = (X_a − x)/(N − n)) and is computed exactly by dynamic
 * programming. Hence P(stop on a non-majority answer) <= Σ_{a non-majority} h(X_a), and the
 * thresholds keep the largest of these sums over all pools at most δ: over every largest count M
 * and every set of non-majority counts X_a <= min(M − 1, N − M) adding up to at most N − M,
 * computed exactly (so the pool 20/19/1 of N = 40 is charged h(19) + h(1), where a bound through
 * (N − M)·max h(X)/X would charge 20/19·h(19)). Stopping earlier, or being cut off, only removes
 * stops, so the bound holds wherever the run ends. Since c_n > n/2 the leader at a stop is
 * unique. What the bound leaves out: a path on which a reaches its threshold after the rule has
 * stopped on another answer is still charged to a.
 *
 * ## The thresholds
 * c_n is the smallest count in (n/2, n] for which the bound of the thresholds c_1..c_n (paths
 * stopped at an earlier n no longer counted) stays within the spending δ·(n/N)^ρ; when none
 * does, the rule does not stop at n (c_n = n + 1). ρ (`spending`) only decides how the error
 * budget is spread over the samples: ρ = 0 spends greedily (the earliest stops on unanimous
 * answers: 4 at N = 40, δ = 0.05, since P(the first 4 are a | X_a = 19) = 0.042 <= 0.05), larger
 * ρ keeps more for contested items. Every ρ >= 0 keeps the guarantee.
 *
 * Where it differs from the anytime rule (./anytimeVote.ts): that rule's e-processes cannot bet
 * on the first sample (its answer is not known before it arrives) and bound each later step
 * against its own worst pool, so five unanimous answers are worth at most Π 1/p0 = 21.2 of
 * evidence at N = 40, 106% of 1/δ (= 20); here the whole path is charged against the worst pool once —
 * P(5 unanimous | X_a = 19) = 0.018, 35% of δ. It needs a budget; the anytime rule also covers
 * unbounded sampling (the most likely answer).
 *
 * Cost: the thresholds once per (δ, N, ρ), O(N³·log N) (memoised; ~50 ms at N = 200, ~3 s at 1000); O(1) per
 * sample after that.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** Default δ of {@link PoolVoteRule}. */
export const POOL_DEFAULT_DELTA = 0.05;
/** Default budget N of {@link PoolVoteRule} (ESC's and the comparison's 40). */
export const POOL_DEFAULT_BUDGET = 40;
/**
 * Default spending exponent ρ of {@link PoolVoteRule}: the one of {0, 1/4, 1/2, 1} with the fewest
 * mean samples on the synthetic set the order-gap default is chosen on (bench/stopping.ts records
 * the comparison, `poolSpending`); never chosen on recorded model samples.
 */
export const POOL_DEFAULT_SPENDING = 0.25;
/** The largest budget the thresholds are computed for (O(N³·log N) once: ~3 s at N = 1000). */
export const POOL_MAX_BUDGET = 1000;

/** Parameters of {@link PoolVoteRule}. */
export interface PoolVoteParams {
  /** δ ∈ (0, 1): the bound on P(ever stopping on a non-majority answer of the N samples) (default 0.05). */
  delta?: number;
  /** N >= 1: the pool whose majority the guarantee is about; the rule also stops at N (default 40). */
  budget?: number;
  /** ρ >= 0: the error budget spent by sample n is δ·(n/N)^ρ (default 1/4). */
  spending?: number;
  /** Optional step cap. */
  maxSteps?: number;
}

/** The thresholds of {@link poolThresholds}. */
export interface PoolThresholds {
  /** c_n for n = 1..N at index n (index 0 unused): stop when the leader has >= c_n of n votes; n + 1: never at n. */
  readonly thresholds: Int32Array;
  /** The bound on P(a stop on a non-majority answer) of the thresholds up to n, at index n. */
  readonly bound: Float64Array;
}

const cache = new Map<string, PoolThresholds>();

/**
 * The exact worst case of the union bound Σ_{a non-majority} h(X_a) over pools (module comment),
 * for hit probabilities h[X], X = 0..⌊(N − 1)/2⌋: the largest Σ h(X_a) over non-majority counts
 * X_a <= K = min(M − 1, N − M) adding up to at most N − M, maximised over the largest count M.
 * When h is convex (and it is non-decreasing, h(0) = 0), the counts (K, …, K, (N − M) mod K)
 * majorise every other choice, so they are the worst (Karamata): O(N). Otherwise an unbounded
 * knapsack, best[r] over counts <= K built up in K: O(N²).
 */
function poolBound(h: Float64Array, N: number): number {
  const Xmax = h.length - 1;
  const capOf = (M: number) => Math.min(M - 1, N - M, Xmax);
  let convex = true;
  for (let X = 1; X < Xmax && convex; X++) convex = h[X + 1]! - h[X]! >= h[X]! - h[X - 1]!;
  let worst = 0;
  if (convex) {
    for (let M = 2; M < N; M++) {
      const K = capOf(M);
      if (K >= 1) worst = Math.max(worst, Math.floor((N - M) / K) * h[K]! + h[(N - M) % K]!);
    }
    return worst;
  }
  const best = new Float64Array(N + 1); // counts <= K so far, adding up to <= r
  for (let K = 1; K <= Xmax; K++) {
    for (let r = K; r <= N; r++) best[r] = Math.max(best[r]!, best[r - K]! + h[K]!);
    for (let M = 2; M < N; M++) if (capOf(M) === K) worst = Math.max(worst, best[N - M]!);
  }
  return worst;
}

/**
 * The thresholds c_n of the exact pool test for δ, budget N and spending exponent ρ (module
 * comment), with the bound each prefix of them achieves. Memoised per (δ, N, ρ).
 * @throws {ArgumentError} δ outside (0, 1), N not an integer in [1, 1000], ρ negative or not finite.
 * @example
 * ```ts
 * poolThresholds(0.05, 40, 0).thresholds[4]; // 4: four unanimous answers of 40 stop (P = 0.042 <= δ)
 * ```
 */
export function poolThresholds(delta: number, budget: number, spending: number): PoolThresholds {
  finiteNumber('delta', delta);
  if (!(delta > 0 && delta < 1)) throw new ArgumentError('delta', delta, 'must lie in (0, 1)');
  const N = integerInRange('budget', budget, 1, POOL_MAX_BUDGET);
  const rho = finiteNumber('spending', spending);
  if (!(rho >= 0)) throw new ArgumentError('spending', spending, 'must be >= 0');
  const key = `${delta}/${N}/${rho}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const Xmax = Math.floor((N - 1) / 2); // the largest count of a non-majority answer
  // live[X][x]: probability that a (pool count X) has x of the first n samples and has not hit
  let live: Float64Array[] = Array.from({ length: Xmax + 1 }, () => {
    const v = new Float64Array(N + 2);
    v[0] = 1;
    return v;
  });
  const h = new Float64Array(Xmax + 1);
  const thresholds = new Int32Array(N + 1);
  const bound = new Float64Array(N + 1);
  const tail = new Float64Array(Xmax + 1);
  for (let n = 1; n <= N; n++) {
    const left = N - n + 1; // samples not yet drawn before sample n
    live = live.map((v, X) => {
      const w = new Float64Array(N + 2);
      for (let x = 0; x < n && x <= X; x++) {
        const px = v[x]!;
        if (px === 0) continue;
        w[x + 1]! += (px * (X - x)) / left;
        w[x]! += (px * (left - (X - x))) / left;
      }
      return w;
    });
    const allowed = delta * Math.pow(n / N, rho);
    const boundWith = (c: number) => {
      for (let X = 0; X <= Xmax; X++) {
        let s = 0;
        for (let x = c; x <= Math.min(n, X); x++) s += live[X]![x]!;
        tail[X] = h[X]! + s;
      }
      return poolBound(tail, N);
    };
    // the bound falls as c grows (fewer paths stop): the smallest admissible c by bisection
    let lo = Math.floor(n / 2) + 1;
    let hi = n + 1; // c = n + 1 stops nothing, so it is always admissible
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (boundWith(mid) <= allowed) hi = mid;
      else lo = mid + 1;
    }
    thresholds[n] = lo;
    for (let X = 0; X <= Xmax; X++)
      for (let x = lo; x <= Math.min(n, X); x++) {
        h[X]! += live[X]![x]!;
        live[X]![x] = 0;
      }
    bound[n] = poolBound(h, N);
  }
  const result = { thresholds, bound };
  cache.set(key, result);
  return result;
}

/**
 * Reads `obs.answer`. Stops (reason `'criterion'`) when the leading answer has at least c_n of the
 * n samples seen ({@link poolThresholds}), and at the budget (reason `'budget'`); the decision's
 * `statistic` is the leader's count.
 * @throws {ArgumentError} δ outside (0, 1), budget not an integer in [1, 1000], spending < 0,
 *   unknown parameter.
 * @example
 * ```ts
 * const r = new PoolVoteRule({ budget: 40 });
 * ['a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 4: the fifth unanimous answer stops at the default spending (c_5 = 5)
 * ```
 */
export class PoolVoteRule extends BaseRule {
  readonly name = 'pool';
  readonly params: RuleParams;
  /** The thresholds and bounds this rule stops by. */
  readonly design: PoolThresholds;
  readonly #tally = new VoteTally();

  constructor(params: PoolVoteParams = {}) {
    checkKnownParams('pool', params, ['delta', 'budget', 'spending', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    const budget = integerInRange('budget', params.budget ?? POOL_DEFAULT_BUDGET, 1, POOL_MAX_BUDGET);
    const delta = params.delta ?? POOL_DEFAULT_DELTA;
    const spending = params.spending ?? POOL_DEFAULT_SPENDING;
    const design = poolThresholds(delta, budget, spending);
    super(Math.min(maxSteps ?? budget, budget));
    this.design = design;
    this.params = Object.freeze({
      delta,
      budget,
      spending,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
  }

  protected decide(obs: StepObservation): StopDecision {
    this.#tally.add(obs.answer ?? null);
    const [leaderVotes] = this.#tally.topTwo();
    const c = this.design.thresholds[obs.t];
    if (c !== undefined && leaderVotes >= c) {
      return {
        stop: true,
        reason: 'criterion',
        statistic: leaderVotes,
        detail: `leader has ${leaderVotes} of ${obs.t} >= c_${obs.t} = ${c} (P(non-majority stop) <= ${this.design.bound[this.design.bound.length - 1]!.toPrecision(3)})`,
      };
    }
    return { ...CONTINUE, statistic: leaderVotes };
  }

  protected clear(): void {
    this.#tally.clear();
  }
}
