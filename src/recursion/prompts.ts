/**
 * The prompts of the recursion operators (Zhang et al., "Recursive Agentic Reasoning", Sec. 3
 * and App. B). One template each, so every operator and the baseline ask in the same words and
 * the answer is read by the same extractor. The answer instruction asks for the form the built-in
 * "the answer is" extractor reads; pass another `instruction` with another extractor.
 */

/** The default answer instruction, appended to every solve prompt. */
export const ANSWER_INSTRUCTION = 'Think step by step, then end with "The answer is X", where X is your final answer.';

/** A solve prompt: the problem and the answer instruction. */
export function solvePrompt(problem: string, instruction: string): string {
  return `${problem}\n\n${instruction}`;
}

/** The finalize-retry's request after a budget-exhausted output (Sec. 3, shared solving primitive). */
export function finalizePrompt(instruction: string): string {
  return `Your reasoning was cut off at the token budget before you gave an answer. Do not continue the reasoning: from what you have so far, give your final answer now. ${instruction}`;
}

/** GROW's round r >= 2: the problem with the previous attempt in context (Sec. 3, GROW). */
export function growPrompt(problem: string, previous: string): string {
  return `${problem}\n\nA previous attempt at this problem:\n<attempt>\n${previous}\n</attempt>\nCheck the attempt and solve the problem again.`;
}

/** PRUNE's decomposition request (Sec. 3, PRUNE). */
export function decomposePrompt(problem: string, maxSubQuestions: number): string {
  return `${problem}\n\nDo not solve the problem yet. Break it into at most ${maxSubQuestions} ordered sub-questions whose answers lead to the answer. Write one per line as "1. ...", "2. ...". If it needs no breaking down, write one line.`;
}

/** The numbered lines of a decomposition ("1. ..." or "1) ..."), in order. */
export function parseSubQuestions(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*\d+\s*[.)]\s*(\S.*)$/.exec(line);
    if (m) out.push(m[1]!.trim());
  }
  return out;
}

/** What PRUNE has solved so far: "Sub-question i: q / Answer: a" lines. */
function solvedSoFar(solved: ReadonlyArray<{ question: string; answer: string | null }>): string {
  return solved.map((s, i) => `Sub-question ${i + 1}: ${s.question}\nAnswer: ${s.answer ?? '(no answer)'}`).join('\n');
}

/** PRUNE's sub-question k, with the earlier sub-questions' answers in context. */
export function subQuestionPrompt(
  problem: string,
  solved: ReadonlyArray<{ question: string; answer: string | null }>,
  question: string,
): string {
  const before = solved.length ? `\n\nSolved so far:\n${solvedSoFar(solved)}` : '';
  return `Overall problem: ${problem}${before}\n\nNow answer only this sub-question: ${question}`;
}

/** PRUNE's composition: the problem with every sub-answer in context. */
export function composePrompt(
  problem: string,
  solved: ReadonlyArray<{ question: string; answer: string | null }>,
): string {
  return `${problem}\n\nSub-questions answered so far:\n${solvedSoFar(solved)}\n\nUse them to answer the problem.`;
}
