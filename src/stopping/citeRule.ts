/**
 * CITE, certification by intersection-union testing with e-processes (Ota, Iwase, Ichihara,
 * Komiyama and Imaizumi, "CITE: Anytime-Valid Statistical Inference in LLM Self-Consistency",
 * arXiv 2605.05873v1), reconstructed from the paper's abstract: the paper's body and code could not
 * be read here. What the abstract states, and this rule keeps: the certificate is that a
 * prespecified target answer is the unique mode of the answer distribution; false certification
 * is controlled at level δ under any data-driven stopping; no answer set is known in advance; the
 * stopping time's rate does not depend on the number of answers. Everything below that the
 * abstract does not state is this package's construction: the pairwise tests, their bets, the
 * shared process of the unseen answers, and how the target is chosen.
 *
 * ## The test for one target a
 * "a is not the unique mode" is the union over answers b ≠ a of H_b: p_b >= p_a. An
 * intersection-union test rejects the union when it rejects every H_b, each at level α: no
 * multiplicity correction, since a false certificate needs the one true H_b* (b* a mode) rejected.
 * H_b is tested on the subsequence of samples that are a or b, where a has share
 * θ = p_a/(p_a + p_b) <= 1/2 under H_b: before each sample the test names a share
 * q = (1 + λ)/2 >= 1/2 for a and multiplies E_b by 1 + λ if the sample is a, by 1 − λ if it is b, by
 * 1 otherwise; E[factor] = 1 + λ(2θ − 1) <= 1 under H_b, so E_b is a test supermartingale and
 * Ville's inequality gives P(E_b ever >= 1/α) <= α. The bet is the anytime rule's Beta bettor
 * (`anytimeBet`): λ = 2·E[q | q > 1/2] − 1 for q ~ Beta(n_a + 1, n_b + 1), from the counts of all
 * samples so far (predictable), and 0 while n_a < n_b. Every answer b not seen since the test began
 * has the same factors (1 + λ(n_a, 0) on a, nothing else), so one process stands for all of them
 * and a new answer's process starts from it times 1 − λ(n_a, 0): the test covers every answer,
 * however many there are, with no union bound. The target is certified when every E_b — the unseen
 * answers' included — is >= 1/α.
 *
 * ## The target
 * A test needs its target fixed before the samples it uses. With `retarget: false` the target is
 * the first answered sample and the test uses every later sample: the literal reading of
 * "prespecified", at level α = δ. With `retarget: true` (default) a new test starts whenever the
 * plurality leader (earliest seen among ties) is not the current target, with that leader as
 * target and the samples after it; test j runs at level α_j = δ·6/(π² j²), so
 * Σ_j α_j = δ bounds the probability that any test certifies falsely. The bets of every test use
 * all counts so far (predictable), so a new test bets at full strength from its first sample.
 * A certificate stops the rule only while its target is the leader, so the answer the replay
 * reports is the certified one.
 *
 * The guarantee is about independent draws from a fixed distribution: P(the rule ever stops on an
 * answer that is not the unique mode) <= δ. On a replay of a fixed pool of samples (drawn without
 * replacement) it is not proved. The paper's confidence-weighted extension is not implemented.
 *
 * Numerics: wealths are sums of log1p(±λ) (λ < 1), so nothing overflows or underflows.
 */
import { ArgumentError } from '../util/errors.js';
import { booleanValue, finiteNumber } from '../util/validate.js';
import { anytimeBet } from './anytimeVote.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { VoteTally } from './votes.js';

/** Defaults of {@link CiteRule} (δ: the lab's common level; the paper's own could not be read). */
export const CITE_DEFAULTS = Object.freeze({ delta: 0.05, retarget: true });

/**
 * The level α_j of the j-th test: δ with `retarget` false (one test), else δ·6/(π² j²) (Σ_j = δ).
 * @throws {ArgumentError} δ outside (0, 1), j not an integer >= 1 (or above 1 with retarget false).
 * @example
 * ```ts
 * citeLevel(0.05, 1, true); // 0.0304: 1/α_1 = 32.9
 * ```
 */
export function citeLevel(delta: number, test: number, retarget: boolean): number {
  checkDelta(delta);
  if (!Number.isInteger(test) || test < 1 || (!retarget && test > 1))
    throw new ArgumentError('test', test, retarget ? 'must be an integer >= 1' : 'must be 1 without retarget');
  return retarget ? (delta * 6) / (Math.PI * Math.PI * test * test) : delta;
}

function checkDelta(delta: unknown): number {
  const d = finiteNumber('delta', delta);
  if (!(d > 0 && d < 1)) throw new ArgumentError('delta', d, 'must lie in (0, 1)');
  return d;
}

/** Parameters of {@link CiteRule}. */
export interface CiteParams {
  /** δ in (0, 1): the bound on P(ever certifying an answer that is not the unique mode) (default 0.05). */
  delta?: number;
  /** Start a new test when the leader changes (default true); false: one test, on the first answer. */
  retarget?: boolean;
  /** Optional step cap. */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`. The decision's `statistic` is the current test's smallest e-value. Cost per
 * observation: O(K) for K answers seen (one bet each, an O(counts) Beta tail, cached below 128).
 * @throws {ArgumentError} δ outside (0, 1), retarget not a boolean, maxSteps not an integer >= 1,
 *   unknown parameter.
 * @example
 * ```ts
 * const r = new CiteRule({ retarget: false });
 * Array(8).fill('a').map((answer, i) => r.observe({ t: i + 1, answer }).stop).indexOf(true);
 * // 6: after 7 unanimous answers the unseen answers' e-value is 2·(2^8 − 1)/(3·8) = 21.25 >= 20
 * ```
 */
export class CiteRule extends BaseRule {
  readonly name = 'cite';
  readonly params: RuleParams;
  readonly #tally = new VoteTally();
  readonly #delta: number;
  readonly #retarget: boolean;
  #target: string | null = null;
  #test = 0;
  #logThreshold = Infinity;
  /** Log wealth of each answer's test against the target (answers seen, other than the target). */
  #wealth = new Map<string, number>();
  /** Log wealth shared by every answer not seen since the test began. */
  #unseen = 0;

  constructor(params: CiteParams = {}) {
    checkKnownParams('cite', params, ['delta', 'retarget', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    this.#delta = checkDelta(params.delta ?? CITE_DEFAULTS.delta);
    const retarget = booleanValue('retarget', params.retarget ?? CITE_DEFAULTS.retarget);
    this.#retarget = retarget;
    this.params = Object.freeze({
      delta: this.#delta,
      retarget,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
  }

  /** The current test: its target, number, level and the e-values of every answer and of the unseen ones. */
  get state(): {
    target: string | null;
    test: number;
    level: number;
    eValues: Array<[string, number]>;
    unseen: number;
  } {
    return {
      target: this.#target,
      test: this.#test,
      level: Math.exp(-this.#logThreshold),
      eValues: [...this.#wealth].map(([b, w]) => [b, Math.exp(w)]),
      unseen: Math.exp(this.#unseen),
    };
  }

  protected decide(obs: StepObservation): StopDecision {
    const x = obs.answer ?? null;
    if (x === null || this.#target === null) {
      if (x !== null) {
        this.#tally.add(x);
        this.#start(x);
      }
      return { ...CONTINUE, statistic: this.#target === null ? null : Math.exp(this.#weakest()) };
    }
    this.#bet(this.#target, x);
    this.#tally.add(x);
    const weakest = this.#weakest();
    const leader = this.#tally.leader();
    if (weakest >= this.#logThreshold && leader === this.#target) {
      return {
        stop: true,
        reason: 'criterion',
        statistic: Math.exp(weakest),
        detail: `every other answer has e-value >= ${Math.exp(weakest)} >= 1/α = ${Math.exp(this.#logThreshold)} against ${JSON.stringify(leader)} (test ${this.#test})`,
      };
    }
    if (this.#retarget && leader !== null && leader !== this.#target) this.#start(leader);
    return { ...CONTINUE, statistic: Math.exp(this.#weakest()) };
  }

  /** Multiplies every pairwise wealth by its factor for sample x (counts before x). */
  #bet(target: string, x: string): void {
    const na = this.#tally.count(target);
    if (x === target) {
      for (const [b, w] of this.#wealth) this.#wealth.set(b, w + Math.log1p(anytimeBet(na, this.#tally.count(b))));
      this.#unseen += Math.log1p(anytimeBet(na, 0));
    } else {
      // an answer not seen since the test began takes the unseen answers' wealth, then loses its bet
      const before = this.#wealth.get(x) ?? this.#unseen;
      this.#wealth.set(x, before + Math.log1p(-anytimeBet(na, this.#tally.count(x))));
    }
  }

  /** The smallest log e-value of the current test (the unseen answers' included). */
  #weakest(): number {
    let m = this.#unseen;
    for (const w of this.#wealth.values()) if (w < m) m = w;
    return m;
  }

  /** Starts test j + 1 on `target` with the samples after this one. */
  #start(target: string): void {
    this.#test++;
    this.#target = target;
    this.#logThreshold = -Math.log(citeLevel(this.#delta, this.#test, this.#retarget));
    this.#wealth = new Map();
    for (const [b] of this.#tally.entries()) if (b !== target) this.#wealth.set(b, 0);
    this.#unseen = 0;
  }

  protected clear(): void {
    this.#tally.clear();
    this.#target = null;
    this.#test = 0;
    this.#logThreshold = Infinity;
    this.#wealth = new Map();
    this.#unseen = 0;
  }
}
