/**
 * The warning of `ordergap run` when its stop leaves questions open: a stop of Algorithm 1 says
 * the recent evidence no longer changes the state, not that every question is answered. What is
 * open comes from what the system declares of its states: `describe.summary` (a question with
 * openness > δ is open) or, without it, `describe.answer` (no leading answer: the question it
 * answers is open). A system that declares neither cannot say, and gets no warning.
 */
import type { OperatorSystem, StateSummary } from '../system/types.js';
import { fixed } from './table.js';

/** Questions a run's final state leaves open, and the warning line. */
export interface OpenQuestionsWarning {
  /** The open questions, in the system's order. */
  questions: string[];
  /** How many questions the source knows of (the summary's questions; 1 for `describe.answer`). */
  declared: number;
  /** 'summary': openness > δ (`describe.summary`); 'answer': no leading answer (`describe.answer`). */
  source: 'summary' | 'answer';
  /** One line naming them. */
  warning: string;
}

/**
 * The open questions of the final state, or null when none is open or the system cannot say.
 * `summary` is the final state in words (null without `describe.summary`); `head` gives its dense
 * head, read only when the warning needs `describe.answer` (on a structured state the dense θ
 * may be far too large to build: 3·Nmax² edge coordinates).
 */
export function openQuestionsAtStop(
  system: OperatorSystem,
  summary: StateSummary | null,
  head: () => Float64Array,
): OpenQuestionsWarning | null {
  if (summary) {
    const open = summary.questions.filter((q) => q.open);
    if (!open.length) return null;
    return {
      questions: open.map((q) => q.question),
      declared: summary.questions.length,
      source: 'summary',
      warning:
        `the stop leaves ${open.length} of the ${summary.questions.length} questions open (openness > δ = ${summary.delta}): ` +
        open.map((q) => `${q.question} (${fixed(q.openness, 3)})`).join(', '),
    };
  }
  const answer = system.capabilities.describe?.answer;
  if (!answer || answer(head()).answer !== null) return null;
  const question = Object.keys(system.questions)[0] ?? 'the leading question';
  return {
    questions: [question],
    declared: 1,
    source: 'answer',
    warning: `the stop leaves ${question} open: ${system.name} gives no leading answer at the final state`,
  };
}
