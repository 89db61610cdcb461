/**
 * What `ordergap answer` prints: {@link renderAnswerText} (the answer, its confidence, why the
 * document-QA loop ended, the chunks read, the extraction counts) and {@link answerJson} (the
 * report of `answerQuestion` without its `AgentState`, whose words `summary` already holds).
 */
import type { AnswerReport } from './answerQuestion.js';

/** The report as `--json` prints it: every field of {@link AnswerReport} but `state`. */
export type AnswerJson = Omit<AnswerReport, 'state'>;

/** {@link AnswerReport} without `state` (the final AgentState; its summary in words stays). */
export function answerJson(report: AnswerReport): AnswerJson {
  const { state: _state, ...rest } = report;
  return rest;
}

/** Why the loop ended, in words. */
function reasonText(r: AnswerReport): string {
  const verdict = r.stop?.verdict ? `, coverage check ${r.stop.verdict}` : '';
  switch (r.reason) {
    case 'order-gap':
      return `the order-gap fell below ε (Eq. 3)${verdict}`;
    case 'criterion':
      return `the rule's criterion${verdict}`;
    case 'budget':
      return `the step budget${verdict}`;
    case 'exhausted':
      return r.steps === 0
        ? 'the chunks ran out with no evidence extracted'
        : 'the chunks and the reprocessing passes ran out before a stop';
    default:
      return String(r.reason);
  }
}

/**
 * The text `ordergap answer` prints: one line each for the answer (or "none found") with its
 * confidence, why the loop ended, the chunks read, the observations and the extraction counts.
 * Confidences to 3 decimals.
 * @example
 * ```ts
 * renderAnswerText(report).split('\n')[0]; // 'Answer: A great civil war (confidence 0.812)'
 * ```
 */
export function renderAnswerText(r: AnswerReport): string {
  const x = r.extraction;
  const answer = r.answer
    ? `Answer: ${r.answer.text ?? r.answer.id} (confidence ${r.answer.confidence.toFixed(3)})`
    : 'Answer: none found';
  return [
    answer,
    `Question: ${r.question}`,
    `Stopped: ${r.reason} — ${reasonText(r)}`,
    `Chunks read: ${r.read.length} of ${r.chunks} (in order: ${r.read.join(', ')})`,
    `Observations: ${r.steps}`,
    `Extraction: ${x.calls} model calls; ${x.evidence} evidence, ${x.empty} empty, ${x.invalid} invalid; ${x.repairs} repairs, ${x.truncated} truncated`,
  ].join('\n');
}
