/**
 * MMC, the Martingale Majority Certificate (Cordero-Encinar and Duncan, "Certified
 * Self-Consistency: Statistical Guarantees and Test-Time Training for Reliable Reasoning in LLMs",
 * arXiv 2510.17472, Sec. 3), as the authors' code computes it: repository
 * paulaoak/certified_self_consistency, `mmc_synthetic/plurality_stopping_rule_beta.py`
 * (`PluralityEAndDecider`) at commit c5b87827c03c4051ea4b64d6f73da20696934eb1. Only the paper's
 * abstract and contents (Sec. 3, "Martingale Majority Certificate: a practical stopping rule")
 * could be read here, not its text; the construction and every default below are the code's:
 * the constructor defaults of `PluralityEAndDecider` (M = 3, δ = 0.05, N_max = 32, a 41-point grid,
 * Beta(1/2, 1/2), two updates each, leader match). The repository's experiment notebook
 * (`MMC_synthetic_data.ipynb`) runs it with M = 2, δ = 0.1, N_max = 64, one update each, no leader
 * match and 101 grid points.
 *
 * ## The construction
 * Before each vote the rule takes, from the counts so far, the contender set C (the `contenders`
 * = M most-voted answers; ties by the answer's text, ascending, as the code sorts), its leader i
 * and runner-up j. Two Bernoulli e-processes test "the leader's share is at most 1/2" on two
 * subsequences:
 * - pair: a vote for i counts 1, a vote for j counts 0, anything else is skipped (needs j);
 * - other: a vote for i counts 1, a vote outside C counts 0, a vote for another contender is skipped.
 * Each process keeps its totals s (ones) and f (zeros) — summed over whatever pair was selected at
 * each vote — and its e-value is the mixture E = 2^(s+f) Σ_k w_k q_k^s (1 − q_k)^f over the grid
 * q_k = 0.5001 + 0.4998·k/40 (k = 0..40) with weights ∝ q^(−1/2)(1 − q)^(−1/2) (a Beta(1/2, 1/2)
 * prior truncated to (1/2, 1), normalised on the grid). The rule stops on i when both e-values are
 * >= 1/δ, each process has at least `minPairUpdates` / `minOtherUpdates` updates and (with
 * `leaderMatch`) i is still the leader after the vote; it gives up at `maxSteps` = 32 (the code's
 * `N_max`, an abstention: reason `'budget'`). `leaderMatch` is kept as the code has it, but with
 * minimum updates of at most 2 (the defaults) it never changes a decision: both processes grow
 * only on votes for the pre-vote leader i, after which i leads alone, and every other vote lowers
 * an e-value or leaves it (one lowering vote after a single update leaves E = 0.30 < 1), so the
 * first crossing is a vote for i (test/stopping/mmc.test.ts checks every short sequence).
 *
 * For one fixed pair (i, j) and a fixed C, each factor 2·q^y(1 − q)^(1−y) has mean <= 1 when the
 * leader's share of the subsequence is <= 1/2, so E is a test martingale and Ville's inequality
 * gives P(E ever >= 1/δ) <= δ. The code sums s and f across votes at which the selected pair or C
 * differ; a factor taken while i was the true mode then has mean > 1 under the null that the
 * certified answer is not the mode, so the bound is not proved for the rule as a whole (the near
 * ties of test/stopping/mmc.test.ts measure how far it holds).
 *
 * Departures, each forced by the lab's interface:
 * - no answer set is known in advance. The code takes one (`labels`, which its notebook passes) and
 *   fills the contender set with answers not voted yet; without it a unanimous stream has no
 *   runner-up, the pair process never moves and every unanimous item would run to N_max. The rule
 *   fills the slot after the seen answers with "an answer not seen yet", and a vote for a new
 *   answer takes that slot: a 0 for the pair process when it is the runner-up, skipped by the other
 *   process when it is a contender, a 0 for the other process when it is outside;
 * - an empty or unparseable sample (null) is no vote (the code has no such sample);
 * - the leader checked after the vote is the lab's plurality (earliest seen among ties, the answer
 *   the replay reports), where the code breaks ties by the first character.
 *
 * Numerics: log E = (s + f)·log 2 + logΣexp_k(log w_k + s·log q_k + f·log1p(−q_k)), so nothing
 * overflows for any counts (test: 10^6 updates).
 */
import { ArgumentError } from '../util/errors.js';
import { booleanValue, finiteNumber, integerInRange } from '../util/validate.js';
import { logSumExp } from './logSpace.js';
import { BaseRule, CONTINUE, checkKnownParams } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** Defaults of {@link MmcRule}: the constructor defaults of `PluralityEAndDecider`. */
export const MMC_DEFAULTS = Object.freeze({
  delta: 0.05,
  contenders: 3,
  minPairUpdates: 2,
  minOtherUpdates: 2,
  leaderMatch: true,
  maxSteps: 32,
});

/** The mixture grid of `make_trunc_beta_grid` with the code's defaults (K = 41, Beta(1/2, 1/2)). */
export const MMC_GRID = Object.freeze({ size: 41, low: 0.5001, high: 0.9999, priorA: 0.5, priorB: 0.5 });

const LOG2 = Math.log(2);
/** The contender slot of an answer not seen before the vote. */
const UNSEEN = Symbol('unseen answer');
const grid = buildGrid();

function buildGrid(): { logW: Float64Array; logQ: Float64Array; log1mQ: Float64Array } {
  const { size, low, high, priorA, priorB } = MMC_GRID;
  const qs: number[] = [];
  const raw: number[] = [];
  for (let k = 0; k < size; k++) {
    const q = low + ((high - low) * k) / (size - 1);
    qs.push(q);
    raw.push(q ** (priorA - 1) * (1 - q) ** (priorB - 1));
  }
  let z = 0;
  for (const r of raw) z += r;
  return {
    logW: Float64Array.from(raw, (r) => Math.log(r / z)),
    logQ: Float64Array.from(qs, (q) => Math.log(q)),
    log1mQ: Float64Array.from(qs, (q) => Math.log1p(-q)),
  };
}

/**
 * log of the MMC mixture e-value after s ones and f zeros (module comment):
 * (s + f)·log 2 + log Σ_k w_k q_k^s (1 − q_k)^f. 0 for s = f = 0.
 * @throws {ArgumentError} s or f not an integer >= 0.
 * @example
 * ```ts
 * Math.exp(mmcLogEValue(1, 0)); // 2·Σ w_k q_k = 1.78: the truncated Beta(1/2, 1/2) grid has mean share 0.89
 * ```
 */
export function mmcLogEValue(s: number, f: number): number {
  integerInRange('s', s, 0);
  integerInRange('f', f, 0);
  return logEValue(s, f);
}

function logEValue(s: number, f: number): number {
  const terms = new Array<number>(grid.logW.length);
  for (let k = 0; k < terms.length; k++) terms[k] = grid.logW[k]! + s * grid.logQ[k]! + f * grid.log1mQ[k]!;
  return (s + f) * LOG2 + logSumExp(terms);
}

/** Parameters of {@link MmcRule}. */
export interface MmcParams {
  /** δ in (0, 1): both e-values must reach 1/δ (default 0.05). */
  delta?: number;
  /** M >= 2: the contender set's size; votes outside it count against the leader (default 3). */
  contenders?: number;
  /** Updates of the pair process before it may stop the rule (default 2). */
  minPairUpdates?: number;
  /** Updates of the other process before it may stop the rule (default 2). */
  minOtherUpdates?: number;
  /** Stop only when the certified leader is still the leader after the vote (default true). */
  leaderMatch?: boolean;
  /** N_max: abstain (reason `'budget'`) at this step (default 32). */
  maxSteps?: number;
}

/** One Bernoulli subsequence: its totals. */
interface Process {
  s: number;
  f: number;
}

/**
 * Reads `obs.answer`. The decision's `statistic` is the smaller of the two e-values. Cost per
 * observation: O(K log K) for the contender set over K answers seen, plus 41 terms per updated process.
 * @throws {ArgumentError} δ outside (0, 1), contenders not an integer >= 2, the update minima not
 *   integers >= 0, maxSteps not an integer >= 1, leaderMatch not a boolean, unknown parameter.
 * @example
 * ```ts
 * const r = new MmcRule();
 * ['a', 'a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 5: the first vote has no leader to bet on; after five more both e-values are 22.2 >= 1/δ = 20
 * ```
 */
export class MmcRule extends BaseRule {
  readonly name = 'mmc';
  readonly params: RuleParams;
  readonly #logThreshold: number;
  readonly #contenders: number;
  readonly #minPair: number;
  readonly #minOther: number;
  readonly #leaderMatch: boolean;
  readonly #tally = new VoteTally();
  #pair: Process = { s: 0, f: 0 };
  #other: Process = { s: 0, f: 0 };

  constructor(params: MmcParams = {}) {
    checkKnownParams('mmc', params, [
      'delta',
      'contenders',
      'minPairUpdates',
      'minOtherUpdates',
      'leaderMatch',
      'maxSteps',
    ]);
    const maxSteps = integerInRange('maxSteps', params.maxSteps ?? MMC_DEFAULTS.maxSteps, 1);
    super(maxSteps);
    const delta = finiteNumber('delta', params.delta ?? MMC_DEFAULTS.delta);
    if (!(delta > 0 && delta < 1)) throw new ArgumentError('delta', delta, 'must lie in (0, 1)');
    this.#logThreshold = -Math.log(delta);
    this.#contenders = integerInRange('contenders', params.contenders ?? MMC_DEFAULTS.contenders, 2);
    this.#minPair = integerInRange('minPairUpdates', params.minPairUpdates ?? MMC_DEFAULTS.minPairUpdates, 0);
    this.#minOther = integerInRange('minOtherUpdates', params.minOtherUpdates ?? MMC_DEFAULTS.minOtherUpdates, 0);
    const leaderMatch = booleanValue('leaderMatch', params.leaderMatch ?? MMC_DEFAULTS.leaderMatch);
    this.#leaderMatch = leaderMatch;
    this.params = Object.freeze({
      delta,
      contenders: this.#contenders,
      minPairUpdates: this.#minPair,
      minOtherUpdates: this.#minOther,
      leaderMatch,
      maxSteps,
    });
  }

  /** The two processes' log e-values and update counts (for tests and reports). */
  get processes(): { pair: { logE: number; updates: number }; other: { logE: number; updates: number } } {
    const view = (p: Process) => ({ logE: logEValue(p.s, p.f), updates: p.s + p.f });
    return { pair: view(this.#pair), other: view(this.#other) };
  }

  protected decide(obs: StepObservation): StopDecision {
    const vote = obs.answer ?? null;
    if (vote === null) return { ...CONTINUE, statistic: this.#statistic() };
    // the predictable selection, from the counts before this vote; an answer not seen yet fills
    // the slot after the seen ones (module comment)
    const ranked: Array<string | typeof UNSEEN> = this.#tally
      .entries()
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, this.#contenders)
      .map(([a]) => a);
    if (ranked.length < this.#contenders) ranked.push(UNSEEN);
    const slot = this.#tally.count(vote) === 0 ? UNSEEN : vote;
    this.#tally.add(vote);
    const leader = ranked[0] === UNSEEN ? undefined : ranked[0];
    if (leader !== undefined) {
      const runnerUp = ranked[1];
      if (slot === leader) {
        if (runnerUp !== undefined) this.#pair.s++;
        this.#other.s++;
      } else {
        if (slot === runnerUp) this.#pair.f++;
        if (!ranked.includes(slot)) this.#other.f++;
      }
    }
    const logPair = logEValue(this.#pair.s, this.#pair.f);
    const logOther = logEValue(this.#other.s, this.#other.f);
    const statistic = Math.exp(Math.min(logPair, logOther));
    const crossed =
      logPair >= this.#logThreshold &&
      this.#pair.s + this.#pair.f >= this.#minPair &&
      logOther >= this.#logThreshold &&
      this.#other.s + this.#other.f >= this.#minOther;
    if (crossed && leader !== undefined && (!this.#leaderMatch || this.#tally.leader() === leader)) {
      return {
        stop: true,
        reason: 'criterion',
        statistic,
        detail: `pair and other e-values ${Math.exp(logPair)}, ${Math.exp(logOther)} >= 1/δ = ${Math.exp(this.#logThreshold)} for ${JSON.stringify(leader)}`,
      };
    }
    return { ...CONTINUE, statistic };
  }

  #statistic(): number {
    return Math.exp(Math.min(logEValue(this.#pair.s, this.#pair.f), logEValue(this.#other.s, this.#other.f)));
  }

  protected clear(): void {
    this.#tally.clear();
    this.#pair = { s: 0, f: 0 };
    this.#other = { s: 0, f: 0 };
  }
}
