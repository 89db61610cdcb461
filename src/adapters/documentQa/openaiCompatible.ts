/**
 * An AI SDK language model over an OpenAI-compatible chat-completions server (llama.cpp's
 * `llama-server`, vLLM, Ollama, LM Studio, or a hosted API): the provider
 * `@ai-sdk/openai-compatible`, with structured outputs on, so the evidence schema is sent as
 * `response_format: { type: 'json_schema', json_schema: { schema, strict, name } }` and the server
 * can constrain the output to it. What `ordergap answer` runs `answerQuestion` with.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';
import { checkBaseURL, DEFAULT_BASE_URL, DEFAULT_MODEL_NAME } from './server.js';

/** Options of {@link openAICompatibleModel}. */
export interface OpenAICompatibleModelOptions {
  /** The API's base URL, up to and including its version (`…/v1`); default {@link DEFAULT_BASE_URL}. */
  baseURL?: string;
  /** The model name the server is asked for (default {@link DEFAULT_MODEL_NAME}). */
  model?: string;
  /** Sent as `Authorization: Bearer KEY` when given (a local server needs none). */
  apiKey?: string;
}

/**
 * The chat model `model` of the OpenAI-compatible API at `baseURL`, with structured outputs
 * (module comment). Makes no request: the first comes with the first model call.
 * @throws {ArgumentError} a bad `baseURL` ({@link checkBaseURL}), a blank `model`, an `apiKey` that is not a string.
 * @example
 * ```ts
 * const model = openAICompatibleModel({ baseURL: 'http://127.0.0.1:8080/v1' });
 * await answerQuestion({ model, question, document });
 * ```
 */
export function openAICompatibleModel(options: OpenAICompatibleModelOptions = {}): LanguageModel {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  const baseURL = checkBaseURL(options.baseURL ?? DEFAULT_BASE_URL);
  const model = options.model ?? DEFAULT_MODEL_NAME;
  if (typeof model !== 'string' || model.trim() === '')
    throw new ArgumentError('model', model, 'must be a non-empty string');
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string')
    throw new ArgumentTypeError('apiKey', '(hidden)', 'must be a string');
  const provider = createOpenAICompatible({
    name: 'ordergap',
    baseURL,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    supportsStructuredOutputs: true,
    includeUsage: true,
  });
  return provider.chatModel(model);
}
