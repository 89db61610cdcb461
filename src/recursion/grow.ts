/**
 * GROW (Zhang et al., "Recursive Agentic Reasoning", Sec. 3 and App. B): deepens one reasoning
 * path. Round 1 is a direct solve; each later round re-solves the problem with the previous
 * round's output in context; the run halts when two consecutive rounds' normalised answers match
 * (an empty answer matches nothing), or after R rounds (default 3, Sec. 3). Optionally a
 * registered lab rule, fed each round's answer, stops it as well (`rule`; e.g. the order-gap).
 * The answer is the last round's.
 */
import type { LanguageModel } from 'ai';
import type { RuleSpec } from '../stopping/registry.js';
import { integerInRange } from '../util/validate.js';
import { growPrompt } from './prompts.js';
import { RuleFeed } from './ruleFeed.js';
import { SolveRun, type CallCounts, type SolveOptions, type SolveResult } from './solve.js';

/** The paper's round cap (Sec. 3). */
export const GROW_ROUNDS = 3;

/** Options of {@link grow}. */
export interface GrowOptions extends SolveOptions {
  /** R >= 1: most rounds (default 3). */
  rounds?: number;
  /** A registered lab rule that may stop the run earlier (off by default). */
  rule?: RuleSpec;
}

/** What {@link grow} returns. */
export interface GrowResult extends CallCounts {
  readonly answer: string | null;
  /** Every round's solve, in order. */
  readonly rounds: readonly SolveResult[];
  /** `stable`: two consecutive answers matched; `rule`: the lab rule stopped; `rounds`: R ran. */
  readonly stopReason: 'stable' | 'rule' | 'rounds';
}

/**
 * Runs GROW on `problem` (see the module comment).
 * @throws {TransportFailure} a call did not deliver; {@link ArgumentError} bad options (no call made).
 */
export async function grow(model: LanguageModel, problem: string, o: GrowOptions = {}): Promise<GrowResult> {
  const run = new SolveRun(model, o);
  const R = integerInRange('rounds', o.rounds ?? GROW_ROUNDS, 1);
  const feed = o.rule === undefined ? null : new RuleFeed(o.rule, R);
  const rounds: SolveResult[] = [];
  let stopReason: GrowResult['stopReason'] = 'rounds';
  for (let r = 1; r <= R; r++) {
    const prev = rounds.at(-1);
    const s = await run.solve(prev === undefined ? problem : growPrompt(problem, prev.text));
    rounds.push(s);
    if (prev !== undefined && s.answer !== null && s.answer === prev.answer) {
      stopReason = 'stable';
      break;
    }
    if (feed !== null && feed.observe(s.answer, s.kind).stop && r < R) {
      stopReason = 'rule';
      break;
    }
  }
  return { ...run.counts, answer: rounds.at(-1)!.answer, rounds, stopReason };
}
