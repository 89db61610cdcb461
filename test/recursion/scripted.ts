/**
 * A model whose replies are written by hand in the tests: no model is called here. The mock
 * reads the prompt it is given and answers from a script, so a test states exactly what each
 * kind of call returns.
 */
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** One reply: text (finish `stop`), a cut-off output (finish `length`), or a thrown transport error. */
export type Reply =
  | string
  | { readonly text: string; readonly finish: 'length' }
  | { readonly fail: 'retryable' | 'fatal' };

type Prompt = Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
const textOf = (m: Prompt[number]): string =>
  typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('');

/** What a call saw: the user/assistant texts in order and the temperature. */
export interface SeenCall {
  readonly texts: string[];
  readonly temperature: number | undefined;
}

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};

/** A transport error like a provider's 503 (retryable) or 400 (not). */
export function apiError(retryable: boolean): APICallError {
  return new APICallError({
    message: retryable ? 'service unavailable' : 'bad request',
    url: 'https://example.invalid/v1',
    requestBodyValues: {},
    statusCode: retryable ? 503 : 400,
    isRetryable: retryable,
  });
}

/** A mock model answering each call with `respond(call)`. */
export function scriptedModel(respond: (call: SeenCall) => Reply): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt, temperature }) => {
      const texts = (prompt as Prompt).filter((m) => m.role !== 'system').map(textOf);
      const r = respond({ texts, temperature });
      if (typeof r === 'object' && 'fail' in r) throw apiError(r.fail === 'retryable');
      const text = typeof r === 'string' ? r : r.text;
      const finish = typeof r === 'string' ? 'stop' : 'length';
      return {
        content: text === '' ? [] : [{ type: 'text' as const, text }],
        finishReason: { unified: finish, raw: finish },
        usage,
        warnings: [],
      };
    },
  });
}

/** A model replying from a fixed queue, in call order. */
export function queueModel(replies: readonly Reply[]): MockLanguageModelV3 {
  let i = 0;
  return scriptedModel(() => {
    if (i >= replies.length) throw new Error('the script has no more replies');
    return replies[i++]!;
  });
}
