/**
 * PRUNE (Zhang et al., "Recursive Agentic Reasoning", Sec. 3 and App. B): decomposes and
 * recomposes. One call asks the model for ordered sub-questions (numbered lines); each is solved
 * in order with the earlier sub-questions and their answers in context; a last solve composes the
 * answer of the problem from them. A decomposition of fewer than two sub-questions falls back to
 * a direct solve (Sec. 3). The paper states no cap on the sub-questions; `maxSubQuestions`
 * (default 5, chosen here) bounds the calls, and lines beyond it are dropped.
 */
import type { LanguageModel } from 'ai';
import { integerInRange } from '../util/validate.js';
import { composePrompt, decomposePrompt, parseSubQuestions, subQuestionPrompt } from './prompts.js';
import { SolveRun, type CallCounts, type SolveOptions, type SolveResult } from './solve.js';

/** Sub-question cap (not stated in the paper). */
export const PRUNE_MAX_SUBQUESTIONS = 5;

/** Options of {@link prune}. */
export interface PruneOptions extends SolveOptions {
  /** Most sub-questions kept from the decomposition (default 5). */
  maxSubQuestions?: number;
}

/** What {@link prune} returns. */
export interface PruneResult extends CallCounts {
  readonly answer: string | null;
  /** The sub-questions kept, in order (one or none: the fallback ran). */
  readonly subQuestions: readonly string[];
  /** Each sub-question's solve, in order. */
  readonly subAnswers: readonly SolveResult[];
  /** The composing solve, or the direct solve of the fallback. */
  readonly final: SolveResult;
  /** The decomposition had fewer than two sub-questions: a direct solve answered. */
  readonly fallback: boolean;
}

/**
 * Runs PRUNE on `problem` (see the module comment).
 * @throws {TransportFailure} a call did not deliver; {@link ArgumentError} bad options (no call made).
 */
export async function prune(model: LanguageModel, problem: string, o: PruneOptions = {}): Promise<PruneResult> {
  const run = new SolveRun(model, o);
  const cap = integerInRange('maxSubQuestions', o.maxSubQuestions ?? PRUNE_MAX_SUBQUESTIONS, 2);
  const subQuestions = parseSubQuestions(await run.call(decomposePrompt(problem, cap))).slice(0, cap);
  if (subQuestions.length < 2) {
    const final = await run.solve(problem);
    return { ...run.counts, answer: final.answer, subQuestions, subAnswers: [], final, fallback: true };
  }
  const solved: Array<{ question: string; answer: string | null }> = [];
  const subAnswers: SolveResult[] = [];
  for (const q of subQuestions) {
    const s = await run.solve(subQuestionPrompt(problem, solved, q));
    subAnswers.push(s);
    solved.push({ question: q, answer: s.answer });
  }
  const final = await run.solve(composePrompt(problem, solved));
  return { ...run.counts, answer: final.answer, subQuestions, subAnswers, final, fallback: false };
}
