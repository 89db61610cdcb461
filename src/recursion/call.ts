/**
 * One model call with transport retries (Zhang et al., "Recursive Agentic Reasoning", Sec. 4,
 * "Failure handling": up to seven retries with exponential backoff, after which the item is a
 * transport failure — excluded from paired scoring, not scored as a wrong answer). The AI SDK's
 * own retries are turned off (`maxRetries: 0`) so that every attempt is counted here: a retryable
 * `APICallError` (`isRetryable`) is retried after `retryDelayMs · 2^k` ms (k = 0, 1, ...); a
 * non-retryable one, or the last retryable one, ends the call with a {@link TransportFailure};
 * any other error (not a transport error) is thrown as it is.
 */
import { APICallError, generateText, type LanguageModel, type ModelMessage } from 'ai';
import { ArgumentTypeError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';

/** The paper's retry count (Sec. 4). */
export const TRANSPORT_RETRIES = 7;
/** First backoff delay in ms (the AI SDK's own default). */
export const RETRY_DELAY_MS = 2000;

/** Options of one call (shared by every operator). */
export interface CallOptions {
  /** Output token budget of each call (unset: the provider's default). */
  maxOutputTokens?: number;
  /** Sampling temperature (unset: the provider's default). */
  temperature?: number;
  /** System prompt. */
  system?: string;
  /** Transport retries per call (default 7, Sec. 4). */
  maxRetries?: number;
  /** First backoff delay in ms, doubled at each retry (default 2000). */
  retryDelayMs?: number;
  abortSignal?: AbortSignal;
}

/** Token usage summed over calls (a provider's missing count is taken as 0). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** What one call returned. */
export interface CallOutput {
  /** The visible text. */
  readonly text: string;
  /** The reasoning text, when the provider returns it ('' otherwise). */
  readonly reasoning: string;
  /** The AI SDK's finish reason (`'length'`: the output budget ran out). */
  readonly finishReason: string;
  readonly usage: TokenUsage;
  /** Transport failures retried before this output arrived. */
  readonly retries: number;
}

/** A call whose transport failed for good (a non-retryable error, or the retries ran out). */
export class TransportFailure extends Error {
  constructor(
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`model call failed after ${attempts} attempt(s): ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TransportFailure';
  }
}

/** A zero usage. */
export function noUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Adds `b` into `a`. */
export function addUsage(a: TokenUsage, b: TokenUsage): void {
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.totalTokens += b.totalTokens;
}

/**
 * Validates the call options (errors name the option and its value).
 * @throws {ArgumentError} a negative or non-integer count.
 */
export function checkCallOptions(o: CallOptions): void {
  if (typeof o !== 'object' || o === null) throw new ArgumentTypeError('options', o, 'must be an object');
  if (o.maxOutputTokens !== undefined) integerInRange('maxOutputTokens', o.maxOutputTokens, 1);
  if (o.maxRetries !== undefined) integerInRange('maxRetries', o.maxRetries, 0);
  if (o.retryDelayMs !== undefined) integerInRange('retryDelayMs', o.retryDelayMs, 0);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One `generateText` call over `messages`, retried on retryable transport errors (see the module
 * comment).
 * @throws {TransportFailure} the call did not deliver.
 */
export async function callModel(
  model: LanguageModel,
  messages: ModelMessage[],
  o: CallOptions = {},
): Promise<CallOutput> {
  const maxRetries = o.maxRetries ?? TRANSPORT_RETRIES;
  const delay = o.retryDelayMs ?? RETRY_DELAY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await generateText({
        model,
        messages,
        maxRetries: 0,
        ...(o.system === undefined ? {} : { system: o.system }),
        ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
        ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
        ...(o.abortSignal ? { abortSignal: o.abortSignal } : {}),
      });
      return {
        text: out.text,
        reasoning: out.reasoningText ?? '',
        finishReason: out.finishReason,
        usage: {
          inputTokens: out.usage.inputTokens ?? 0,
          outputTokens: out.usage.outputTokens ?? 0,
          totalTokens: out.usage.totalTokens ?? 0,
        },
        retries: attempt,
      };
    } catch (e) {
      if (!APICallError.isInstance(e)) throw e;
      if (!e.isRetryable || attempt >= maxRetries) throw new TransportFailure(attempt + 1, e);
      if (delay > 0) await sleep(delay * 2 ** attempt);
    }
  }
}
