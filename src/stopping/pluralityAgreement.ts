/**
 * Plurality agreement (BRANCH with early stopping, Zhang et al., "Recursive Agentic Reasoning"), with two criteria that can be used
 * alone or together:
 * - agreement ratio: after at least `minSamples` answered samples, stop when the plurality
 *   answer holds a share >= `ratio` of the answered samples (BRANCH's control signal);
 * - window (Early-Stopping Self-Consistency, Li et al. 2024): samples are taken in consecutive,
 *   non-overlapping windows of w; stop at the end of a window whose w answers are identical
 *   (and non-empty).
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { BaseRule, CONTINUE, checkKnownParams, optionalMaxSteps } from './rule.js';
import type { RuleParams, StepObservation, StopDecision } from './rule.js';
import { unanimousAnswer, VoteTally } from './votes.js';

/** Default ESC window of {@link PluralityAgreementRule} when neither ratio nor window is given (ESC's published w = 5). */
export const PLURALITY_DEFAULT_WINDOW = 5;

/** Parameters of {@link PluralityAgreementRule}: `ratio`, `window`, or both; neither means `window: 5`. */
export interface PluralityAgreementParams {
  /** Agreement ratio in (0, 1]. */
  ratio?: number;
  /** Minimum answered samples before the ratio test applies (default 1). */
  minSamples?: number;
  /** ESC window w >= 1. */
  window?: number;
  /** Optional step cap (BRANCH: 5). */
  maxSteps?: number;
}

/**
 * Reads `obs.answer`. Cost O(number of distinct answers) per observation.
 * @throws {ArgumentError} ratio outside (0, 1], minSamples or
 *   window not integers >= 1.
 * @example
 * ```ts
 * const esc = new PluralityAgreementRule({ window: 2 });
 * ['a', 'b', 'c', 'c'].map((answer, i) => esc.observe({ t: i + 1, answer }).stop);
 * // [false, false, false, true]: window [a, b] disagrees, window [c, c] agrees
 * ```
 */
export class PluralityAgreementRule extends BaseRule {
  readonly name = 'plurality';
  readonly params: RuleParams;
  readonly #ratio: number | undefined;
  readonly #minSamples: number;
  readonly #window: number | undefined;
  readonly #tally = new VoteTally();
  #windowAnswers: Array<string | null> = [];
  constructor(params: PluralityAgreementParams = {}) {
    checkKnownParams('plurality', params, ['ratio', 'minSamples', 'window', 'maxSteps']);
    const maxSteps = optionalMaxSteps(params.maxSteps);
    super(maxSteps);
    let ratio: number | undefined;
    if (params.ratio !== undefined) {
      ratio = finiteNumber('ratio', params.ratio);
      if (!(ratio > 0 && ratio <= 1)) throw new ArgumentError('ratio', ratio, 'must lie in (0, 1]');
    }
    const minSamples = integerInRange('minSamples', params.minSamples ?? 1, 1);
    const window =
      params.window === undefined
        ? ratio === undefined
          ? PLURALITY_DEFAULT_WINDOW
          : undefined
        : integerInRange('window', params.window, 1);
    this.#ratio = ratio;
    this.#minSamples = minSamples;
    this.#window = window;
    const p: Record<string, number> = {};
    if (ratio !== undefined) Object.assign(p, { ratio, minSamples });
    if (window !== undefined) p.window = window;
    if (maxSteps !== undefined) p.maxSteps = maxSteps;
    this.params = Object.freeze(p);
  }
  protected decide(obs: StepObservation): StopDecision {
    const a = obs.answer ?? null;
    this.#tally.add(a);
    if (this.#window !== undefined) {
      this.#windowAnswers.push(a);
      if (this.#windowAnswers.length === this.#window) {
        const first = unanimousAnswer(this.#windowAnswers);
        this.#windowAnswers = [];
        if (first !== null) {
          return {
            stop: true,
            reason: 'criterion',
            detail: `window of ${this.#window} identical answers ${JSON.stringify(first)}`,
          };
        }
      }
    }
    if (this.#ratio !== undefined && this.#tally.valid >= this.#minSamples) {
      const [v1] = this.#tally.topTwo();
      const share = v1 / this.#tally.valid;
      if (share >= this.#ratio) {
        return { stop: true, reason: 'criterion', detail: `agreement ${v1}/${this.#tally.valid} >= ${this.#ratio}` };
      }
    }
    return CONTINUE;
  }
  protected clear(): void {
    this.#tally.clear();
    this.#windowAnswers = [];
  }
}
