/**
 * ESC's control scheme (Li et al., "Escape Sky-high Cost: Early-stopping Self-Consistency for
 * Multi-step Reasoning", ICLR 2024, arXiv 2401.10480: "one control scheme for ESC is further
 * derivated to dynamically choose the performance-cost balance for different tasks and models")
 * and a rule that applies it to each item (`esc-dynamic`). The formulas are the repository's:
 * Yiwei98/ESC, `control_scheme.py` and README "CONTROL SCHEME", commit
 * 799157a4d21e6d97e86fcd541f5c85d8e3daae0a; the paper's own section could not be read here.
 *
 * ## The scheme, as the repository computes it
 * From the answer shares p_1 >= p_2 >= ... seen in a first window of samples (the repository's
 * `probs{w}.json`), for a window w and a maximum of L samples (`cal_n(w, L, p)` and the loop
 * around it):
 * - a window of w independent samples is unanimous with probability q = Σ_t p_t^w, and ESC stops
 *   at the first unanimous window or after W = ⌊L/w⌋ windows, so the expected number of samples is
 *   E(w, L) = w·(Σ_{i=0}^{W−2} q(1 − q)^i (i + 1) + (1 − q)^{W−1}·W) — exactly E[w·min(G, W)] for
 *   G ~ Geometric(q);
 * - the proportion of performance affected is Σ_{t>=2} (1 − Φ((w − p_t w)/√(w p_t (1 − p_t)))):
 *   for every answer but the leading one, the normal approximation of P(Bin(w, p_t) >= w), i.e. of
 *   "a window is unanimous on a non-leading answer" (the exact value is p_t^w; at p_t = 0.4, w = 5
 *   the approximation gives 0.0031 against 0.0102).
 * The repository prints both, averaged over a task's items, for a chosen (w, L); the user picks the
 * balance (for GPT-3.5 on Last Letters at w = 5, L = 40: 1.920878e-04 and 8.687585036109475,
 * which test/stopping/escDynamic.test.ts reproduces from the released samples).
 *
 * ## The rule: the scheme per item
 * The paper applies the scheme to a task; a stopping rule sees one item at a time, so `esc-dynamic`
 * applies it to the item's own first window (the reading and the tolerance are this package's, not
 * the paper's):
 * 1. sample the first window of w0 answers (the repository's window, 5); stop if it is unanimous
 *    (that is ESC's first window);
 * 2. otherwise take the window's answer shares (empty or unparseable samples count in the
 *    denominator but are no answer: a window of them never stops ESC, so they add nothing to q or
 *    to the affected sum) and, for the R = L − w0 samples left, choose the smallest window w in
 *    [2, R] whose predicted affected proportion is <= the tolerance ε; when none is, w = R (sample
 *    to the budget);
 * 3. continue ESC with non-overlapping windows of w; stop at the first unanimous one, or after
 *    ⌊R/w⌋ windows (reason `'budget'`), as the repository's ESC stops after ⌊L/w⌋ windows.
 * The affected proportion falls as w grows and the expected cost E(w, R) grows with w through q, so
 * the smallest window within the tolerance is the cheap end of the balance. E is not minimised
 * over w: its ⌊R/w⌋ truncation rewards windows that end the run early without agreement (at
 * shares (0.6, 0.4) and R = 35, one window of 18 has E = 18 and stops at the budget after 23
 * samples, below E = 27.0 of w = 5, the smallest window within the default tolerance). The
 * cost model's risk does not depend on L either, so L is the budget (the repository's `max_up` =
 * 40), not chosen. Windows of 1 are not candidates: a single answer is always unanimous.
 *
 * ## The tolerance
 * ε has no published value (the repository leaves the balance to the user). Its default is the
 * published window's own risk by the scheme's model: the largest predicted affected proportion of
 * w0 = 5 over every first window of 5 samples that does not stop ESC, reached at (2, 2, 1):
 * (1 − Φ(√7.5)) + (1 − Φ(√20)) = 0.0030888. So no window is chosen that the model deems riskier
 * than ESC's published window on its least favourable first window, and clearer first windows get
 * smaller ones ((4, 1): w = 2). ε bounds the scheme's approximation, not the rule's errors: the
 * normal approximation is far below p^w at small windows (0.0023 against 0.04 at p = 0.2, w = 2),
 * so small chosen windows stop on a non-leading answer more often than the model predicts.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { unanimousAnswer, VoteTally } from './votes.js';

/** The largest budget accepted (the window search costs O(L) scheme evaluations once per item). */
export const ESC_MAX_BUDGET = 100_000;

/** What the control scheme predicts for one item, window and maximum. */
export interface EscControlPrediction {
  /** E(w, L): the expected number of samples ESC draws. */
  readonly expectedSamples: number;
  /** The predicted proportion of performance affected (normal approximation, see the module comment). */
  readonly affected: number;
}

/** The window the per-item scheme chooses; see {@link escDynamicWindow}. */
export interface EscWindowChoice extends EscControlPrediction {
  readonly window: number;
  /** False when no window met the tolerance (then the window is the whole remaining budget). */
  readonly feasible: boolean;
}

const SQRT_PI = Math.sqrt(Math.PI);
const TINY = 1e-300;
/** Veltkamp's splitting constant 2^27 + 1. */
const SPLIT = 134217729;

/**
 * 1 − Φ(z) for the standard normal Φ, as ½·Q(1/2, x) with x = z²/2 and Q the regularised upper
 * incomplete gamma function: its series for x < 3/2, its continued fraction (modified Lentz)
 * beyond, each run until a term changes the result by less than one ulp. z² is formed exactly as
 * a double-double (Dekker's product) and e^−x taken from the high part alone, so no rounding of x
 * is amplified by the exponential: the relative error is a few tens of ulps at every z (1e-13 is
 * the test's tolerance against scipy's `ndtr`). z < 0 gives 1 − ½·Q. Underflows to 0 beyond
 * z ≈ 38.6.
 * @throws {ArgumentError} z NaN or not a number (±∞ give 0 and 1).
 * @example
 * ```ts
 * normalUpperTail(1.959963984540054); // 0.025
 * ```
 */
export function normalUpperTail(z: number): number {
  if (typeof z !== 'number' || Number.isNaN(z)) throw new ArgumentError('z', z, 'must be a number');
  if (z === Infinity) return 0;
  if (z === -Infinity) return 1;
  const a = Math.abs(z);
  // z² = hi + lo exactly (Dekker), x = z²/2 = (hi + lo)/2
  const hi = a * a;
  const c = SPLIT * a;
  const ah = c - (c - a);
  const al = a - ah;
  const lo = ah * ah - hi + 2 * ah * al + al * al;
  const x = hi / 2;
  const q = x < 1.5 ? 1 - gammaSeriesHalf(x, lo / 2) : gammaFractionHalf(x, lo / 2);
  return z >= 0 ? q / 2 : 1 - q / 2;
}

/** x^(1/2)·e^−(x + xlo)/Γ(1/2), the common factor of the series and the fraction. */
function gammaPrefactor(x: number, xlo: number): number {
  return (Math.exp(-x) * Math.sqrt(x) * (1 - xlo + xlo / (2 * x))) / SQRT_PI;
}

/** P(1/2, x + xlo) by its series (x < 3/2). */
function gammaSeriesHalf(x: number, xlo: number): number {
  if (x === 0) return 0;
  let ap = 0.5;
  let del = 1 / ap;
  let sum = del;
  for (let n = 0; n < 200; n++) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (Math.abs(del) < Math.abs(sum) * Number.EPSILON) break;
  }
  return sum * gammaPrefactor(x, xlo);
}

/** Q(1/2, x + xlo) by its continued fraction (x >= 3/2), modified Lentz. */
function gammaFractionHalf(x: number, xlo: number): number {
  let b = x + 0.5;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 300; i++) {
    const an = -i * (i - 0.5);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < Number.EPSILON) break;
  }
  return gammaPrefactor(x, xlo) * h;
}

/**
 * The control scheme for one item (the module comment's E(w, L) and affected proportion), with the
 * repository's arithmetic in its order: q summed over `shares` as given, the geometric sum term by
 * term, the affected terms over every share but the first largest.
 * @param shares the answer shares of the first window, each in (0, 1], summing to at most 1
 * @param window w >= 1
 * @param maxSamples L in [w, {@link ESC_MAX_BUDGET}]
 * @throws {ArgumentError} bad shares, window or maxSamples.
 * @example
 * ```ts
 * escControlScheme([0.8, 0.2], 5, 40); // q = 0.8^5 + 0.2^5 = 0.32800: expected 14.61, affected 3.9e-6
 * ```
 */
export function escControlScheme(shares: readonly number[], window: number, maxSamples: number): EscControlPrediction {
  checkShares(shares);
  integerInRange('window', window, 1);
  integerInRange('maxSamples', maxSamples, window, ESC_MAX_BUDGET);
  return controlScheme(shares, window, maxSamples);
}

function checkShares(shares: readonly number[]): void {
  if (!Array.isArray(shares)) throw new ArgumentError('shares', shares, 'must be an array of numbers');
  let total = 0;
  for (let i = 0; i < shares.length; i++) {
    const t = finiteNumber(`shares[${i}]`, shares[i]);
    if (!(t > 0 && t <= 1)) throw new ArgumentError(`shares[${i}]`, t, 'must lie in (0, 1]');
    total += t;
  }
  // shares are counts / n accumulated in doubles: allow the rounding of that sum
  if (total > 1 + 4 * shares.length * Number.EPSILON) throw new ArgumentError('shares', total, 'must sum to at most 1');
}

function controlScheme(shares: readonly number[], window: number, maxSamples: number): EscControlPrediction {
  let q = 0;
  for (const t of shares) q += t ** window;
  const windows = Math.floor(maxSamples / window);
  let sum = 0;
  for (let i = 0; i < windows - 1; i++) sum += q * (1 - q) ** i * (1 + i);
  sum += (1 - q) ** (windows - 1) * windows;
  let top = 0;
  for (let i = 1; i < shares.length; i++) if (shares[i]! > shares[top]!) top = i;
  let affected = 0;
  for (let i = 0; i < shares.length; i++) {
    if (i === top) continue;
    const t = shares[i]!;
    affected += normalUpperTail((window - t * window) / Math.sqrt(t * window * (1 - t)));
  }
  return { expectedSamples: sum * window, affected };
}

/**
 * The window the per-item scheme chooses for `remaining` samples (module comment, step 2): the
 * smallest w in [2, remaining] whose predicted affected proportion is <= tolerance, with its
 * prediction; when none is, w = remaining with `feasible: false`. Cost O(remaining · shares).
 * @throws {ArgumentError} bad shares, remaining not an integer in [2, {@link ESC_MAX_BUDGET}],
 *   tolerance outside (0, 1).
 * @example
 * ```ts
 * escDynamicWindow([0.6, 0.4], 35, 0.05).window; // 2: 1 − Φ(√2·√(0.6/0.4)) = 0.042 <= 0.05
 * ```
 */
export function escDynamicWindow(shares: readonly number[], remaining: number, tolerance: number): EscWindowChoice {
  checkShares(shares);
  integerInRange('remaining', remaining, 2, ESC_MAX_BUDGET);
  checkTolerance(tolerance);
  return chooseWindow(shares, remaining, tolerance);
}

function checkTolerance(tolerance: unknown): number {
  const e = finiteNumber('tolerance', tolerance);
  if (!(e > 0 && e < 1)) throw new ArgumentError('tolerance', e, 'must lie in (0, 1)');
  return e;
}

function chooseWindow(shares: readonly number[], remaining: number, tolerance: number): EscWindowChoice {
  for (let w = 2; w <= remaining; w++) {
    const p = controlScheme(shares, w, remaining);
    if (p.affected <= tolerance) return { window: w, ...p, feasible: true };
  }
  return { window: remaining, ...controlScheme(shares, remaining, remaining), feasible: false };
}

/**
 * The published window's own risk by the scheme's model: the largest predicted affected proportion
 * of a window of w over every first window of w samples that does not stop ESC (every split of up
 * to w answered samples into answers, the rest empty, except w equal answers). At w = 5 the
 * largest is the first window (2, 2, 1): (1 − Φ(√7.5)) + (1 − Φ(√20)) = 0.0030888.
 */
function publishedWindowRisk(window: number): number {
  let worst = 0;
  const visit = (left: number, maxPart: number, parts: number[]): void => {
    if (parts.length > 0 && !(parts.length === 1 && parts[0] === window)) {
      const risk = controlScheme(
        parts.map((c) => c / window),
        window,
        window,
      ).affected;
      if (risk > worst) worst = risk;
    }
    for (let c = Math.min(left, maxPart); c >= 1; c--) visit(left - c, c, [...parts, c]);
  };
  visit(window, window, []);
  return worst;
}

/**
 * Defaults of {@link EscDynamicRule}: the repository's window 5 and `max_up` 40; the tolerance is
 * the published window's own risk, {@link publishedWindowRisk}(5) = 0.0030888 (module comment).
 */
export const ESC_DYNAMIC_DEFAULTS = Object.freeze({ window: 5, budget: 40, tolerance: publishedWindowRisk(5) });

/** Parameters of {@link EscDynamicRule}. */
export interface EscDynamicParams {
  /** w0 >= 2: the first window, whose shares the scheme reads (default 5). */
  window?: number;
  /** L in [w0, 100000]: the most samples drawn (default 40). */
  budget?: number;
  /**
   * ε in (0, 1): the largest predicted affected proportion a chosen window may have (default: the
   * published window's own risk, 0.0030888; module comment, "The tolerance").
   */
  tolerance?: number;
}

/**
 * Reads `obs.answer`. Cost: O(1) per observation, plus the window choice once per item
 * (at most L − w0 evaluations of the scheme).
 * @throws {ArgumentError} window not an integer >= 2, budget not an integer in [window, 100000],
 *   tolerance outside (0, 1), unknown parameter.
 * @example
 * ```ts
 * const r = new EscDynamicRule();
 * ['a', 'a', 'a', 'b', 'b', 'a', 'a', 'a', 'a', 'a'].map((answer, i) => r.observe({ t: i + 1, answer }).stop);
 * // the first window (3, 2) keeps w = 5; the window of five a's at t = 6 … 10 stops at t = 10
 * ```
 */
export class EscDynamicRule extends BaseRule {
  readonly name = 'esc-dynamic';
  readonly params: RuleParams;
  readonly #pilot: number;
  readonly #budget: number;
  readonly #tolerance: number;
  #current: Array<string | null> = [];
  /** The window chosen after the first one (null before) and the step of the budget stop. */
  #chosen: EscWindowChoice | null = null;
  #stopAt = 0;

  constructor(params: EscDynamicParams = {}) {
    checkKnownParams('esc-dynamic', params, ['window', 'budget', 'tolerance']);
    const pilot = integerInRange('window', params.window ?? ESC_DYNAMIC_DEFAULTS.window, 2, ESC_MAX_BUDGET);
    const budget = integerInRange('budget', params.budget ?? ESC_DYNAMIC_DEFAULTS.budget, pilot, ESC_MAX_BUDGET);
    super(budget);
    this.#pilot = pilot;
    this.#budget = budget;
    this.#tolerance = checkTolerance(params.tolerance ?? ESC_DYNAMIC_DEFAULTS.tolerance);
    this.params = Object.freeze({ window: pilot, budget, tolerance: this.#tolerance });
  }

  /** The window chosen for the current item after its first window (null before, or when it stopped there). */
  get chosen(): EscWindowChoice | null {
    return this.#chosen;
  }

  protected decide(obs: StepObservation): StopDecision {
    this.#current.push(obs.answer ?? null);
    if (this.#chosen === null) {
      if (obs.t < this.#pilot) return CONTINUE;
      const agreed = unanimousAnswer(this.#current);
      if (agreed !== null)
        return {
          stop: true,
          reason: 'criterion',
          detail: `first window of ${this.#pilot} identical answers ${JSON.stringify(agreed)}`,
        };
      this.#chosen = this.#choose();
      this.#current = [];
      this.#stopAt = this.#pilot + Math.floor((this.#budget - this.#pilot) / this.#chosen.window) * this.#chosen.window;
    } else if (this.#chosen.window >= 2 && this.#current.length === this.#chosen.window) {
      const agreed = unanimousAnswer(this.#current);
      this.#current = [];
      if (agreed !== null)
        return {
          stop: true,
          reason: 'criterion',
          detail: `window of ${this.#chosen.window} identical answers ${JSON.stringify(agreed)} (window chosen after the first)`,
        };
    }
    if (obs.t >= this.#stopAt) {
      const c = this.#chosen;
      return {
        stop: true,
        reason: 'budget',
        detail: `${obs.t} samples: no unanimous window of ${c.window} (predicted E = ${c.expectedSamples}, affected = ${c.affected})`,
      };
    }
    return CONTINUE;
  }

  /** The window for the rest of the item, from the first window's answer shares. */
  #choose(): EscWindowChoice {
    const remaining = this.#budget - this.#pilot;
    const tally = new VoteTally();
    for (const a of this.#current) tally.add(a);
    const shares = tally
      .entries()
      .map(([, c]) => c / this.#pilot)
      .sort((x, y) => y - x);
    // nothing to estimate from (every sample empty), or no room for a window of 2: keep w0 / the rest
    if (shares.length === 0 || remaining < 2) {
      const w = Math.max(1, Math.min(this.#pilot, remaining));
      return { window: w, ...controlScheme(shares, w, Math.max(w, remaining)), feasible: false };
    }
    return chooseWindow(shares, remaining, this.#tolerance);
  }

  protected clear(): void {
    this.#current = [];
    this.#chosen = null;
    this.#stopAt = 0;
  }
}
