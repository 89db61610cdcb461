/**
 * The coverage-aware stop (Remark 5.4, Sec. 7.3), once: a stopping rule proposes a stop, the
 * coverage check ({@link checkCoverageAtStop}) decides whether that candidate stop is converged
 * or blind, and a policy acts on a blind one:
 *
 * - `stop` — the paper's rule: stop at the rule's first stop whatever the check says (the report
 *   still says whether that stop was converged or blind);
 * - `continue` — refuse a blind stop and keep going until a stop is converged or the budget runs
 *   out;
 * - `redirect` — as `continue`, and say what extraction should favour (Sec. 7.3's adaptive
 *   extraction): the questions failing the check ({@link TargetQuestion}: uncovered, with the
 *   failed test's margin, or addressed by no pool item) and, by `steer`, the items to favour —
 *   `coverage` (default, Sec. 7.3: "evidence that addresses OpenQuestion nodes failing the
 *   coverage check") the pool items addressing those questions, `order-gap` the items that would
 *   still move the state by more than ε and those addressing the uncovered questions
 *   (./steer.ts). The coverage-aware run then draws from (1 − λ)·P(·|θ) + λ·U(T).
 *   Under `coverage` a check that is blind only by the pool check, or whose failing questions no
 *   pool item addresses, names no items: the detail says so and the run continues under P(·|θ).
 *
 * After a refused stop the rule starts afresh: the next candidate needs a new window of steps.
 * {@link CoverageStopper} is used by the coverage-aware run of Algorithm 1 (./run.ts) and by
 * agent loops that feed it one step at a time:
 *
 * ```ts
 * const stopper = new CoverageStopper(null, new OrderGapRule({ epsilon: 0.01, window: 4 }), { policy: 'continue', maxSteps: 100 });
 * for await (const item of retrieve()) {
 *   const report = await stopper.observe({ omega: state.step(item) }, () => graph.agentCheckSite(state));
 *   if (report.stop) break; // report.verdict: 'converged' | 'blind' (null: no check ran, e.g. the budget)
 * }
 * ```
 *
 * An agent that chooses its own retrieval cannot be handed items it has not seen; with policy
 * `redirect` the report of a refused stop names the questions to extract for
 * ({@link StopReport.targetQuestions}), and the stopper keeps them until the next candidate stop:
 *
 * ```ts
 * const stopper = new CoverageStopper(null, rule, { policy: 'redirect', maxSteps: 100 });
 * for (;;) {
 *   // [] until a blind candidate stop; then e.g. [{ question: 'q:birthplace', failure: 'unaddressed', addressedBy: [], ... }]
 *   const focus = stopper.targetQuestions.map((q) => q.question);
 *   const item = await retrieveFor(focus); // yours: retrieval aimed at those questions (any when empty)
 *   const report = await stopper.observe({ omega: state.step(item) }, () => graph.agentCheckSite(state));
 *   if (report.stop) break;
 * }
 * ```
 *
 * A loop that resumes later saves the stopper with its state: {@link CoverageStopper.snapshot}
 * is what the stopper has observed and decided, as plain JSON (its steps, the rule's
 * observations, the latest report, the checks, the target questions), and
 * {@link CoverageStopper.restore} puts it into a stopper built as that one was, which then
 * reports every later step exactly as the original would have. The rule must have `snapshot()`
 * and `restore()` (the order-gap rule has); the agent state is saved by `AgentState.toJSON()`.
 */
import { resolveRunParams } from '../system/runParams.js';
import type { OperatorSystem } from '../system/types.js';
import type { RuleSnapshot, StepObservation, StoppingRule } from '../stopping/rule.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { jsonCopy } from '../util/json.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { checkCoverageAtStop, type CoverageCheck, type CoverageCheckOptions } from './check.js';
import {
  REDIRECT_STEERS,
  steerTargets,
  steerText,
  targetQuestions,
  type RedirectSteer,
  type TargetQuestion,
} from './steer.js';

import { COVERAGE_POLICIES, type CoveragePolicy } from './policies.js';
export { COVERAGE_POLICIES, type CoveragePolicy } from './policies.js';

/** Where a candidate stop is checked: the system the check certifies on, and the state θ_T on it. */
export interface CheckSite {
  readonly system: OperatorSystem;
  readonly theta: ArrayLike<number>;
}

/** Options of {@link CoverageStopper}. */
export interface CoverageStopperOptions extends CoverageCheckOptions {
  /** What a blind candidate stop does; `false`: the rule alone, no check. Default 'stop'. */
  policy?: CoveragePolicy | false;
  /**
   * What `redirect` weights toward (module comment): 'coverage' (default, Sec. 7.3) the items
   * addressing the questions failing the check, 'order-gap' the items with Ω > ε and those
   * addressing uncovered questions. Checked whatever the policy.
   */
  steer?: RedirectSteer;
  /** Step budget over all observations: stop with reason 'budget' at this step (default: none). */
  maxSteps?: number;
  /**
   * ε of the pool check (an item with Ω(θ_T; e) > ε would still move the state); default the
   * rule's `epsilon` parameter, else the system's run defaults, else the package's.
   */
  epsilon?: number;
}

/** The stop report: what the stopper decided after an observation (or a candidate stop), and why. */
export interface StopReport {
  /** Stop the loop now. */
  readonly stop: boolean;
  /**
   * Steps so far: the observations the stopper has seen (the rule's t; in an agent loop one per
   * evidence item applied), not a framework's own step count (an AI SDK step may carry no
   * evidence item, or several).
   */
  readonly step: number;
  /** 'continue', the rule's stop reason when it is accepted ('order-gap', 'criterion'), or 'budget'. */
  readonly reason: 'continue' | 'order-gap' | 'criterion' | 'budget';
  /** The coverage check's verdict at this step; null when no check ran here. */
  readonly verdict: 'converged' | 'blind' | null;
  /** The rule's statistic after this step (Ω̂ for the order-gap rule), null when it has none yet. */
  readonly statistic: number | null;
  /** One line: what happened. */
  readonly detail: string;
  /** The check, when one ran at this step. */
  readonly check: CoverageCheck | null;
  /** What the policy did with the candidate stop at this step; null when there was none. */
  readonly action: 'stop' | 'continue' | 'redirect' | null;
  /** With policy 'redirect' after a blind check: the pool items to favour under the stopper's `steer` (else empty). */
  readonly redirect: readonly string[];
  /**
   * With policy 'redirect' after a blind check: the questions failing it, what failed and the
   * pool items addressing each (else empty) — what a loop that controls its own retrieval
   * extracts for next, whatever the steer.
   */
  readonly targetQuestions: readonly TargetQuestion[];
}

/** Version tag of {@link StopperSnapshot}. */
const STOPPER_FORMAT = 'ordergap-stopper/1';

/**
 * What a {@link CoverageStopper} has observed and decided ({@link CoverageStopper.snapshot}):
 * plain JSON, restored into a stopper of the same configuration by
 * {@link CoverageStopper.restore}.
 */
export interface StopperSnapshot {
  readonly format: typeof STOPPER_FORMAT;
  /** The configuration it was taken under; {@link CoverageStopper.restore} requires the same. */
  readonly config: {
    readonly rule: string;
    readonly policy: CoveragePolicy | false;
    readonly steer: RedirectSteer;
    readonly maxSteps: number | null;
    readonly epsilon: number;
  };
  /** Observations so far ({@link CoverageStopper.steps}). */
  readonly step: number;
  /** Observations since the rule's last reset. */
  readonly window: number;
  readonly rule: RuleSnapshot;
  /** The latest report ({@link CoverageStopper.report}). */
  readonly report: StopReport | null;
  /** Every coverage check so far ({@link CoverageStopper.checks}). */
  readonly checks: readonly CoverageCheck[];
  /** The questions kept since the latest candidate stop ({@link CoverageStopper.targetQuestions}). */
  readonly targetQuestions: readonly TargetQuestion[];
}

/** How a rule's candidate stop reads in a detail line. */
function candidateText(rule: StoppingRule): string {
  return rule.name === 'order-gap' ? 'Ω̂ <= ε' : `${rule.label} stops`;
}

/** The rule's stop, checked for coverage and acted on by the policy (module comment). */
export class CoverageStopper {
  readonly rule: StoppingRule;
  readonly policy: CoveragePolicy | false;
  /** What `redirect` weights toward. */
  readonly steer: RedirectSteer;
  readonly maxSteps: number | null;
  /** ε of the pool check. */
  readonly epsilon: number;
  readonly #system: OperatorSystem | null;
  readonly #checkOptions: CoverageCheckOptions;
  #step = 0;
  /** Observations since the rule's last reset (the rule counts from 1 after each). */
  #window = 0;
  #last: StopReport | null = null;
  #checks: CoverageCheck[] = [];
  #targetQuestions: readonly TargetQuestion[] = [];
  /** The site last checked and its check (a site given again is not checked again). */
  #checked: { site: CheckSite; check: CoverageCheck } | null = null;

  /**
   * `system`: where {@link candidate} checks a candidate stop (null: only {@link observe}, which
   * names its site, can be used).
   * @throws {ArgumentError} bad policy, steer, maxSteps or epsilon; a rule that is not a StoppingRule.
   */
  constructor(system: OperatorSystem | null, rule: StoppingRule, options: CoverageStopperOptions = {}) {
    if (typeof rule?.observe !== 'function' || typeof rule.reset !== 'function')
      throw new ArgumentTypeError('rule', rule, 'must be a StoppingRule');
    if (typeof options !== 'object' || options === null)
      throw new ArgumentTypeError('options', options, 'must be an object');
    const policy = options.policy ?? 'stop';
    if (policy !== false && !COVERAGE_POLICIES.includes(policy))
      throw new ArgumentError('policy', policy, "must be 'stop', 'continue', 'redirect' or false");
    const steer = options.steer ?? 'coverage';
    if (!REDIRECT_STEERS.includes(steer)) throw new ArgumentError('steer', steer, "must be 'coverage' or 'order-gap'");
    this.rule = rule;
    this.policy = policy;
    this.steer = steer;
    this.maxSteps = options.maxSteps === undefined ? null : integerInRange('maxSteps', options.maxSteps, 1);
    const ruleEpsilon = rule.params['epsilon'];
    const epsilon =
      options.epsilon ??
      (typeof ruleEpsilon === 'number' ? ruleEpsilon : resolveRunParams(system?.capabilities.runDefaults).epsilon);
    this.epsilon = finiteNumber('epsilon', epsilon);
    if (!(this.epsilon > 0)) throw new ArgumentError('epsilon', this.epsilon, 'must be > 0');
    this.#system = system;
    this.#checkOptions = options.certify ? { certify: options.certify } : {};
  }

  /** The latest report (null before the first observation). */
  get report(): StopReport | null {
    return this.#last;
  }
  /** Every coverage check run so far, in order. */
  get checks(): readonly CoverageCheck[] {
    return this.#checks;
  }
  /**
   * The questions the latest candidate stop's redirect named ({@link StopReport.targetQuestions}),
   * kept until the next candidate stop: what a loop extracts for meanwhile (reports between
   * candidate stops carry none). Empty before any, after an accepted stop and for other policies.
   */
  get targetQuestions(): readonly TargetQuestion[] {
    return this.#targetQuestions;
  }
  /** Steps so far (observations; see {@link StopReport.step}). */
  get steps(): number {
    return this.#step;
  }

  #report(r: Omit<StopReport, 'step' | 'statistic'>, statistic: number | null): StopReport {
    return (this.#last = Object.freeze({ ...r, step: this.#step, statistic }));
  }

  /**
   * Observes one step (`obs` as a rule sees it, without `t`: the stopper numbers the steps) and
   * decides. When the rule stops, the candidate is checked at `site` — a site, or a function
   * giving one, called only then. A site that is the very object checked last (a loop whose state
   * has not changed since gives it again) gets that check again without re-running it. The check is never skipped silently: unless the policy is
   * `false` (the rule alone), a missing site is an error — at once when `site` is absent, at the
   * candidate stop when the function gives none (the observation is then counted already).
   * @throws {ArgumentError} what the rule throws for a bad observation (e.g. Ω not finite); no
   *   site while the policy checks coverage.
   */
  async observe(
    obs: Omit<StepObservation, 't'>,
    site?: CheckSite | (() => CheckSite | null) | null,
  ): Promise<StopReport> {
    const needSite = (value: unknown, when: string) =>
      new ArgumentError(
        'site',
        value,
        `${when}: the coverage check of a candidate stop needs a CheckSite or a function giving one ` +
          '(an agent loop: () => graph.agentCheckSite(state)); to stop on the rule alone, give the stopper policy: false',
      );
    if (this.policy !== false && (site === undefined || site === null)) throw needSite(site, 'is missing');
    // counted only once the rule has taken it: a refused observation changes nothing
    const d = this.rule.observe({ ...obs, t: this.#window + 1 });
    this.#window++;
    this.#step++;
    const statistic = d.statistic ?? null;
    const budget = this.maxSteps !== null && this.#step >= this.maxSteps;
    const none = { verdict: null, check: null, action: null, redirect: [], targetQuestions: [] } as const;
    if (!d.stop || d.reason === 'continue')
      return budget
        ? this.#report(
            { stop: true, reason: 'budget', detail: `maxSteps = ${this.maxSteps} reached`, ...none },
            statistic,
          )
        : this.#report({ stop: false, reason: 'continue', detail: d.detail, ...none }, statistic);
    if (d.reason === 'budget' || d.reason === 'empty-output' || this.policy === false)
      return this.#report(
        {
          stop: true,
          reason: d.reason === 'empty-output' ? 'criterion' : d.reason,
          detail: `${d.detail}${d.reason === 'empty-output' && this.policy !== false ? '; an empty output ends the loop: coverage not checked' : ''}`,
          ...none,
        },
        statistic,
      );
    const at = typeof site === 'function' ? site() : site;
    if (!at) throw needSite(at, `gave none for the candidate stop at step ${this.#step}`);
    return this.#decide(d.reason, at, budget, statistic);
  }

  /**
   * A candidate stop found by a loop that ran {@link rule} itself (the rule stopped with
   * `reason` at step `step`): checks it on the stopper's system at θ_T = `theta` and applies the
   * policy; `budget` says the loop has no steps left.
   */
  async candidate(
    step: number,
    reason: 'order-gap' | 'criterion',
    theta: ArrayLike<number>,
    statistic: number | null,
    budget = false,
  ): Promise<StopReport> {
    if (this.#system === null)
      throw new ArgumentError('system', null, 'is needed to check a candidate stop without a site');
    this.#step = step;
    return this.#decide(reason, { system: this.#system, theta }, budget, statistic);
  }

  /** The check at the site and the policy's decision (the one place the policy is written). */
  async #decide(
    reason: 'order-gap' | 'criterion',
    site: CheckSite,
    budget: boolean,
    statistic: number | null,
  ): Promise<StopReport> {
    // the check is a function of the site (certify is seeded): the same site object, which a loop
    // gives again while its state has not changed, gets the same check without running it again
    const check =
      this.#checked?.site === site
        ? this.#checked.check
        : await checkCoverageAtStop(site.system, site.theta, this.epsilon, this.#checkOptions);
    this.#checked = { site, check };
    this.#checks.push(check);
    this.#targetQuestions = [];
    const T = this.#step;
    const phrase = `${candidateText(this.rule)} at step ${T}`;
    if (check.verdict === 'converged' || this.policy === 'stop')
      return this.#report(
        {
          stop: true,
          reason,
          verdict: check.verdict,
          detail:
            check.verdict === 'converged'
              ? `${phrase} and the coverage check holds: ${check.detail}`
              : `${phrase}; stopped by the paper's rule although BLIND: ${check.detail}`,
          check,
          action: 'stop',
          redirect: [],
          targetQuestions: [],
        },
        statistic,
      );
    // refused: the rule starts afresh, so the next stop needs a new window
    this.rule.reset();
    this.#window = 0;
    const action = this.policy as 'continue' | 'redirect';
    const redirect = action === 'redirect' ? steerTargets(check, this.steer) : [];
    const questions = action === 'redirect' ? targetQuestions(check) : [];
    this.#targetQuestions = questions;
    const steering = action === 'redirect' ? `; ${steerText(check, this.steer, redirect)}` : '';
    return this.#report(
      {
        stop: budget,
        reason: budget ? 'budget' : 'continue',
        verdict: 'blind',
        detail: budget
          ? `maxSteps = ${this.maxSteps} reached; the last candidate stop was blind: ${check.detail}`
          : `${phrase} but BLIND, ${action === 'redirect' ? 'redirecting' : 'continuing'}: ${check.detail}${steering}`,
        check,
        action,
        redirect,
        targetQuestions: questions,
      },
      statistic,
    );
  }

  /** This stopper's configuration, as a snapshot records it. */
  #config(): StopperSnapshot['config'] {
    const { policy, steer, maxSteps, epsilon } = this;
    return { rule: this.rule.label, policy, steer, maxSteps, epsilon };
  }

  /** The rule, when it can be saved and restored. */
  #savableRule(): Required<Pick<StoppingRule, 'snapshot' | 'restore'>> {
    const { snapshot, restore } = this.rule;
    if (typeof snapshot !== 'function' || typeof restore !== 'function')
      throw new ArgumentTypeError(
        'rule',
        this.rule.label,
        'has no snapshot() and restore(): its state cannot be saved',
      );
    return { snapshot: () => snapshot.call(this.rule), restore: (s) => restore.call(this.rule, s) };
  }

  /**
   * What the stopper has observed and decided, as plain JSON ({@link StopperSnapshot}): its
   * steps, the rule's observations, the latest report, the checks and the target questions. The
   * configuration (system, rule, policy, options) is not state: a restore needs a stopper built
   * as this one was.
   * @throws {ArgumentTypeError} the rule has no `snapshot()` (the order-gap rule has).
   */
  snapshot(): StopperSnapshot {
    return {
      format: STOPPER_FORMAT,
      config: this.#config(),
      step: this.#step,
      window: this.#window,
      rule: this.#savableRule().snapshot(),
      ...jsonCopy({ report: this.#last, checks: this.#checks, targetQuestions: this.#targetQuestions }),
    };
  }

  /**
   * Makes this stopper's state that of `snapshot` (from {@link snapshot}, also after a JSON round
   * trip): it then reports every later observation exactly as the snapshotted stopper would have.
   * The rule's label, the policy, steer, maxSteps and ε must be this stopper's; the system and
   * the certify options are not compared.
   * @throws {ArgumentError} not a snapshot, another configuration, steps that do not fit (the
   *   stopper is unchanged); {@link ArgumentTypeError} the rule has no `restore()`.
   */
  restore(snapshot: StopperSnapshot): void {
    const s = snapshot as Partial<StopperSnapshot> | null;
    if (typeof s !== 'object' || s === null || s.format !== STOPPER_FORMAT)
      throw new ArgumentError('snapshot.format', s?.format, `must be "${STOPPER_FORMAT}"`);
    const mine = this.#config();
    for (const key of Object.keys(mine) as Array<keyof StopperSnapshot['config']>)
      if (s.config?.[key] !== mine[key])
        throw new ArgumentError(
          `snapshot.config.${key}`,
          s.config?.[key],
          `must be this stopper's ${JSON.stringify(mine[key])}`,
        );
    const step = integerInRange('snapshot.step', s.step, 0);
    const window = integerInRange('snapshot.window', s.window, 0, step);
    // the stopper numbers the rule's steps: the rule has seen exactly the window
    if (s.rule?.t !== window)
      throw new ArgumentError('snapshot.rule.t', s.rule?.t, `must be snapshot.window = ${window}`);
    for (const key of ['checks', 'targetQuestions'] as const)
      if (!Array.isArray(s[key])) throw new ArgumentError(`snapshot.${key}`, s[key], 'must be an array');
    if (typeof s.report !== 'object') throw new ArgumentError('snapshot.report', s.report, 'must be a report or null');
    const copy = jsonCopy({ report: s.report, checks: s.checks!, targetQuestions: s.targetQuestions! });
    this.#savableRule().restore(s.rule!);
    this.#step = step;
    this.#window = window;
    this.#last = copy.report && Object.freeze(copy.report);
    this.#checks = [...copy.checks];
    this.#targetQuestions = copy.targetQuestions;
    this.#checked = null;
  }

  /** Forgets every observation (a new loop). */
  reset(): void {
    this.rule.reset();
    this.#step = 0;
    this.#window = 0;
    this.#last = null;
    this.#checks = [];
    this.#targetQuestions = [];
    this.#checked = null;
  }
}
