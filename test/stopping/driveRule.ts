import type { StoppingRule } from '../../src/stopping/rule.js';

/** Feeds answers (t = 1, 2, ...) until the rule stops: the step and reason of that stop, or null. */
export function driveAnswers(
  rule: StoppingRule,
  answers: ReadonlyArray<string | null>,
): { t: number; reason: string } | null {
  for (let i = 0; i < answers.length; i++) {
    const d = rule.observe({ t: i + 1, answer: answers[i] });
    if (d.stop) return { t: i + 1, reason: d.reason };
  }
  return null;
}
