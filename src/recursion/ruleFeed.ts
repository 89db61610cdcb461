/**
 * A registered lab stopping rule (src/stopping/registry.ts) fed the answers of a live run one at
 * a time: each answer becomes the step observation the replay lab gives it (the vote-state
 * system's Ω for the order-gap rule, the Laplace confidence, the answer; src/lab/observations.ts,
 * `VoteObserver`, over as many answer slots as the run has steps). Used by GROW's optional rule
 * and BRANCH's optional early stop.
 */
import type { Extraction } from '../lab/extractors.js';
import { VoteObserver } from '../lab/observations.js';
import { createRule, type RuleSpec } from '../stopping/registry.js';
import type { StopDecision, StoppingRule } from '../stopping/rule.js';

/** The vote-state system's consolidation strength λ, the replay lab's default. */
const LAMBDA = 0.5;

/** One rule over one live run. */
export class RuleFeed {
  readonly rule: StoppingRule;
  readonly #observer: VoteObserver;

  /**
   * @param spec a registered rule (validated now: a bad spec fails before any model call)
   * @param steps the most steps the run takes (the answer slots of the vote state)
   * @throws {ArgumentError} unknown rule or bad parameters.
   */
  constructor(spec: RuleSpec, steps: number) {
    this.rule = createRule(spec);
    this.#observer = new VoteObserver(steps, LAMBDA);
  }

  /** Observes one step's output: its answer, and the extractor's kind when it has none. */
  observe(answer: string | null, kind: Extraction['kind']): StopDecision {
    const ex: Extraction =
      answer !== null ? { kind: 'answer', answer } : kind === 'empty' ? { kind: 'empty' } : { kind: 'unparseable' };
    return this.rule.observe(this.#observer.observe(ex).obs);
  }
}
