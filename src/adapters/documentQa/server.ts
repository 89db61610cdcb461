/**
 * Where an OpenAI-compatible server is (`openAICompatibleModel`'s options): the defaults and
 * the check of a base URL. Apart from the provider, so `ordergap answer` checks its options
 * before it loads the AI SDK.
 */
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';

/** The base URL used when none is given: a local server (llama.cpp's `llama-server` default port). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1';

/** The model name sent when none is given (a local server serving one model ignores it). */
export const DEFAULT_MODEL_NAME = 'default';

/**
 * Checks a base URL: an absolute `http:` or `https:` URL without query, fragment or credentials
 * (the provider appends `/chat/completions` to it, and fetch refuses a URL with credentials).
 * @throws {ArgumentError} named `argument`, with the value.
 */
export function checkBaseURL(value: unknown, argument = 'baseURL'): string {
  if (typeof value !== 'string') throw new ArgumentTypeError(argument, value, 'must be a URL string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ArgumentError(argument, value, 'is not an absolute URL (e.g. http://127.0.0.1:8080/v1)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ArgumentError(argument, value, 'must be an http: or https: URL');
  if (url.search !== '' || url.hash !== '')
    throw new ArgumentError(argument, value, 'must have no query or fragment (the request path is appended to it)');
  // fetch refuses a request URL with credentials; the message shows the URL without them
  if (url.username !== '' || url.password !== '') {
    [url.username, url.password] = ['', ''];
    throw new ArgumentError(
      argument,
      `${url.href} with credentials`,
      'must not hold a user name or password (pass an API key instead)',
    );
  }
  return value;
}
