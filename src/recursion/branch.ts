/**
 * BRANCH (Zhang et al., "Recursive Agentic Reasoning", Sec. 3 and App. B): N independent solves
 * (default N = 5) at temperature 0.7 unless the caller sets one (App. B), their normalised answers
 * voted: the answer is the plurality key, empty samples (no answer) discarded from winning votes,
 * ties broken by the answer seen first (`VoteTally`, src/stopping/votes.ts). Its control signal,
 * the agreement ratio, is the winner's votes over the samples drawn. The paper runs a fixed N
 * without early stopping and names majority-decision halting as the missing cost reduction
 * (Sec. 5); `rule` adds it: any registered lab rule, fed one answer at a time, may stop the
 * sampling before N.
 */
import type { LanguageModel } from 'ai';
import type { RuleSpec } from '../stopping/registry.js';
import { VoteTally } from '../stopping/votes.js';
import { integerInRange } from '../util/validate.js';
import { RuleFeed } from './ruleFeed.js';
import { SolveRun, type CallCounts, type SolveOptions, type SolveResult } from './solve.js';

/** The paper's sample count (Sec. 3) and temperature (App. B). */
export const BRANCH_DEFAULTS = Object.freeze({ samples: 5, temperature: 0.7 });

/** Options of {@link branch}. */
export interface BranchOptions extends SolveOptions {
  /** N >= 1: most samples (default 5). */
  samples?: number;
  /** A registered lab rule that may stop the sampling before N (off by default, as in the paper). */
  rule?: RuleSpec;
}

/** What {@link branch} returns. */
export interface BranchResult extends CallCounts {
  /** The plurality answer; null when no sample had one. */
  readonly answer: string | null;
  /** Each sample's solve, in order. */
  readonly samples: readonly SolveResult[];
  /** Distinct answers with their votes, in first-seen order. */
  readonly votes: ReadonlyArray<readonly [string, number]>;
  /** Winner's votes / samples drawn (0 when no sample had an answer). */
  readonly agreement: number;
  /** `rule`: the lab rule stopped before N; `samples`: N were drawn. */
  readonly stopReason: 'rule' | 'samples';
  /** The rule's account of its stop ('' without one). */
  readonly detail: string;
}

/**
 * Runs BRANCH on `problem` (see the module comment).
 * @throws {TransportFailure} a call did not deliver; {@link ArgumentError} bad options (no call made).
 */
export async function branch(model: LanguageModel, problem: string, o: BranchOptions = {}): Promise<BranchResult> {
  const run = new SolveRun(model, { ...o, temperature: o.temperature ?? BRANCH_DEFAULTS.temperature });
  const N = integerInRange('samples', o.samples ?? BRANCH_DEFAULTS.samples, 1);
  const feed = o.rule === undefined ? null : new RuleFeed(o.rule, N);
  const tally = new VoteTally();
  const samples: SolveResult[] = [];
  let stopReason: BranchResult['stopReason'] = 'samples';
  let detail = '';
  for (let i = 1; i <= N; i++) {
    const s = await run.solve(problem);
    samples.push(s);
    tally.add(s.answer);
    const d = feed?.observe(s.answer, s.kind);
    if (d?.stop && i < N) {
      stopReason = 'rule';
      detail = d.detail;
      break;
    }
  }
  const answer = tally.leader();
  const agreement = answer === null ? 0 : tally.count(answer) / samples.length;
  return { ...run.counts, answer, samples, votes: tally.entries(), agreement, stopReason, detail };
}
