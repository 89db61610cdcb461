/**
 * The shared solve primitive (Zhang et al., "Recursive Agentic Reasoning", Sec. 3, "Shared
 * solving primitive", and App. B): one call, its answer read by the answer extractor
 * (src/lab/extractors.ts; the same normaliser for every operator and the baseline), and a
 * finalize-retry: an output that exhausted its budget (finish reason `length`) with no
 * extractable answer is sent back once, with its truncated reasoning (the reasoning text when the
 * provider returns it, and the visible text), asking for the final answer now — so an empty
 * length-stop completion is not scored as a wrong answer by default. The baseline's single pass,
 * y = extract(M(x)) (Sec. 3), is `solve` with `finalize: false`.
 */
import type { LanguageModel, ModelMessage } from 'ai';
import { answerIsExtractor, type AnswerExtractor, type Extraction } from '../lab/extractors.js';
import { ArgumentTypeError } from '../util/errors.js';
import { addUsage, callModel, checkCallOptions, noUsage, type CallOptions, type TokenUsage } from './call.js';
import { ANSWER_INSTRUCTION, finalizePrompt, solvePrompt } from './prompts.js';

/** Options of {@link solve} (and of every operator, which solves with them). */
export interface SolveOptions extends CallOptions {
  /** Answer extractor and normaliser (default: the built-in "the answer is" extractor). */
  extractor?: AnswerExtractor;
  /** Instruction appended to the problem (default {@link ANSWER_INSTRUCTION}). */
  instruction?: string;
  /** Re-prompt once after a budget-exhausted output without an answer (default true). */
  finalize?: boolean;
}

/** The compute a run spent: counts every operator result carries. */
export interface CallCounts {
  /** Model calls that delivered an output (finalize-retries included; transport retries not). */
  calls: number;
  /** Transport failures retried. */
  retries: number;
  /** Outputs that exhausted their budget without an answer. */
  truncated: number;
  /** Finalize-retries that recovered an answer. */
  finalized: number;
  usage: TokenUsage;
}

/** What {@link solve} returns. */
export interface SolveResult {
  /** The normalised answer; null: no answer (empty, unparseable, or still truncated). */
  readonly answer: string | null;
  /** What the extractor made of the last output. */
  readonly kind: Extraction['kind'];
  /** The last output's text (the finalize-retry's when there was one). */
  readonly text: string;
  /** The first output exhausted its budget without an answer. */
  readonly truncated: boolean;
  /** The finalize-retry recovered an answer. */
  readonly finalized: boolean;
  readonly calls: number;
  readonly retries: number;
  readonly usage: TokenUsage;
}

/** Zero counts. */
export function noCounts(): CallCounts {
  return { calls: 0, retries: 0, truncated: 0, finalized: 0, usage: noUsage() };
}

/** Adds a solve's (or another run's) counts into `into`. */
export function addCounts(
  into: CallCounts,
  r: { calls: number; retries: number; truncated: number | boolean; finalized: number | boolean; usage: TokenUsage },
): void {
  into.calls += r.calls;
  into.retries += r.retries;
  into.truncated += Number(r.truncated);
  into.finalized += Number(r.finalized);
  addUsage(into.usage, r.usage);
}

/**
 * Validates the solve options.
 * @throws {ArgumentError} a bad call option, an extractor that is not one, a blank instruction.
 */
export function checkSolveOptions(o: SolveOptions): void {
  checkCallOptions(o);
  if (o.extractor !== undefined && typeof o.extractor?.extract !== 'function')
    throw new ArgumentTypeError('extractor', o.extractor, 'must be an answer extractor');
  if (o.instruction !== undefined && (typeof o.instruction !== 'string' || o.instruction.trim() === ''))
    throw new ArgumentTypeError('instruction', o.instruction, 'must be a non-empty string');
}

/**
 * Solves `problem` (the user prompt; the answer instruction is appended): see the module comment.
 * @throws {TransportFailure} a call did not deliver; {@link ArgumentError} bad options (no call made).
 * @example
 * ```ts
 * const r = await solve(model, 'What is 17 + 25?', { maxOutputTokens: 2048, extractor: numericExtractor });
 * r.answer; // '42', or null when no answer could be read even after the finalize-retry
 * ```
 */
export async function solve(model: LanguageModel, problem: string, o: SolveOptions = {}): Promise<SolveResult> {
  checkSolveOptions(o);
  if (typeof problem !== 'string' || problem.trim() === '')
    throw new ArgumentTypeError('problem', problem, 'must be a non-empty string');
  const extractor = o.extractor ?? answerIsExtractor;
  const instruction = o.instruction ?? ANSWER_INSTRUCTION;
  const messages: ModelMessage[] = [{ role: 'user', content: solvePrompt(problem, instruction) }];
  const first = await callModel(model, messages, o);
  const usage = noUsage();
  addUsage(usage, first.usage);
  const ex = extractor.extract(first.text);
  const truncated = first.finishReason === 'length' && ex.kind !== 'answer';
  const base = { truncated, finalized: false, calls: 1, retries: first.retries, usage };
  if (!truncated || o.finalize === false)
    return { ...base, answer: ex.kind === 'answer' ? ex.answer : null, kind: ex.kind, text: first.text };
  const cut = [first.reasoning, first.text].filter((s) => s.trim() !== '').join('\n\n');
  messages.push(
    { role: 'assistant', content: cut === '' ? '(no output)' : cut },
    { role: 'user', content: finalizePrompt(instruction) },
  );
  const second = await callModel(model, messages, o);
  addUsage(usage, second.usage);
  const ex2 = extractor.extract(second.text);
  const answer = ex2.kind === 'answer' ? ex2.answer : null;
  return {
    ...base,
    answer,
    kind: ex2.kind,
    text: second.text,
    finalized: answer !== null,
    calls: 2,
    retries: first.retries + second.retries,
  };
}

/**
 * The solves of one operator run over one model and options, with their counts summed: what
 * GROW, PRUNE and BRANCH build on. The options are checked when it is made (before any call).
 */
export class SolveRun {
  readonly counts: CallCounts = noCounts();

  /** @throws {ArgumentError} bad options. */
  constructor(
    readonly model: LanguageModel,
    readonly options: SolveOptions,
  ) {
    checkSolveOptions(options);
  }

  /** {@link solve} of `problem`, counted. */
  async solve(problem: string): Promise<SolveResult> {
    const s = await solve(this.model, problem, this.options);
    addCounts(this.counts, s);
    return s;
  }

  /** One plain call of `prompt` (no answer read), counted; its text. */
  async call(prompt: string): Promise<string> {
    const out = await callModel(this.model, [{ role: 'user', content: prompt }], this.options);
    addCounts(this.counts, { ...out, calls: 1, truncated: 0, finalized: 0 });
    return out.text;
  }
}
