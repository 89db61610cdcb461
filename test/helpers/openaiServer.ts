// A loopback OpenAI-compatible chat-completions server for tests: node:http on 127.0.0.1, port 0
// (the system picks a free one), bounded (request bodies of at most MAX_BODY_BYTES, a request
// timeout, every connection closed by close()). It speaks what the AI SDK's
// @ai-sdk/openai-compatible provider sends for a structured-output call: POST
// /v1/chat/completions with { model, messages, response_format: { type: 'json_schema',
// json_schema: { schema, strict, name } } }, answered by { id, object, created, model, choices:
// [{ index, message: { role, content }, finish_reason }], usage }. A request without a JSON schema
// in response_format is refused (400), so a test sees the provider send the schema.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Largest request body accepted (413 above it). */
export const MAX_BODY_BYTES = 1 << 20;

/** A chat-completions request as the server received it. */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  response_format?: { type: string; json_schema?: { schema?: unknown; name?: string; strict?: boolean } };
  [key: string]: unknown;
}

/** What the server saw of one request. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  status: number;
  body: ChatRequest | null;
}

/** The reply to a request: the message content and why it ended ('stop' unless given). */
export type Reply = (request: ChatRequest) => { content: string; finishReason?: 'stop' | 'length' };

/** A running server: its base URL (…/v1), what it saw, and close(). */
export interface OpenAIServer {
  readonly baseURL: string;
  readonly requests: SeenRequest[];
  /** The next `count` chat requests are answered with HTTP `status` (a server error) instead. */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

/** The text of each user message of a request, in order. */
export function userTexts(request: ChatRequest): string[] {
  return request.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('')));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const error = (message: string, type = 'invalid_request_error') => ({ error: { message, type, code: null } });

/** Reads the body, at most MAX_BODY_BYTES (null above: the caller answers 413). */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Starts a server answering chat requests with `reply`; close it when the test ends. */
export async function startOpenAIServer(reply: Reply): Promise<OpenAIServer> {
  const requests: SeenRequest[] = [];
  let failures: number[] = [];
  let created = 0;
  const server = createServer(async (req, res) => {
    const seen: SeenRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      status: 0,
      body: null,
    };
    requests.push(seen);
    const answer = (status: number, body: unknown) => {
      seen.status = status;
      send(res, status, body);
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return answer(404, error('not found'));
    const text = await readBody(req);
    if (text === null) {
      answer(413, error(`request body over ${MAX_BODY_BYTES} bytes`));
      req.destroy();
      return;
    }
    let body: ChatRequest;
    try {
      body = JSON.parse(text) as ChatRequest;
    } catch {
      return answer(400, error('the body is not JSON'));
    }
    seen.body = body;
    if (failures.length > 0) return answer(failures.shift()!, error('the server failed', 'server_error'));
    if (
      !Array.isArray(body.messages) ||
      body.response_format?.type !== 'json_schema' ||
      !body.response_format.json_schema?.schema
    )
      return answer(400, error('expected messages and response_format { type: json_schema, json_schema: { schema } }'));
    const { content, finishReason = 'stop' } = reply(body);
    answer(200, {
      id: `chatcmpl-${++created}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: {
        prompt_tokens: text.length,
        completion_tokens: content.length,
        total_tokens: text.length + content.length,
      },
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(status, count = 1) {
      failures = [...failures, ...Array<number>(count).fill(status)];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
