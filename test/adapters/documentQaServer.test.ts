// answerQuestion through the real provider client (@ai-sdk/openai-compatible, over HTTP) against
// the loopback OpenAI-compatible server of test/helpers/openaiServer.ts, answering with the
// hand-written Gettysburg outputs (gettysburgOutputs.ts; not recorded from a model).
import { afterEach, describe, expect, it } from 'vitest';
import { answerQuestion } from '../../src/adapters/documentQa/answerQuestion.js';
import { openAICompatibleModel } from '../../src/adapters/documentQa/openaiCompatible.js';
import { startOpenAIServer, userTexts, type OpenAIServer } from '../helpers/openaiServer.js';
import { GETTYSBURG, QUESTION, replyFor } from './gettysburgOutputs.js';

const sentences = { unit: 'sentence', size: 1, overlap: 0 } as const;

let server: OpenAIServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const gettysburgServer = () => startOpenAIServer((request) => ({ content: replyFor(userTexts(request)).text }));

describe('answerQuestion over @ai-sdk/openai-compatible and a loopback server', () => {
  it('stops on the order-gap with a converged coverage check and the answer the outputs give', async () => {
    server = await gettysburgServer();
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'test-model', apiKey: 'k-123' });
    const r = await answerQuestion({ model, question: QUESTION, document: GETTYSBURG, chunking: sentences });
    expect(r.answer?.text).toBe('A great civil war');
    expect(r.reason).toBe('order-gap');
    expect(r.stop?.verdict).toBe('converged');
    expect(r.extraction.repairs).toBe(2);
    // one HTTP request per model call, each a structured-output call with the evidence schema
    expect(server.requests).toHaveLength(r.extraction.calls);
    for (const q of server.requests) {
      expect(q.status).toBe(200);
      expect(q.authorization).toBe('Bearer k-123');
      expect(q.body!.model).toBe('test-model');
      expect(q.body!.response_format!.json_schema!.schema).toMatchObject({ type: 'object', required: ['claims'] });
    }
    // the first chunk read is the sentence about the civil war
    expect(userTexts(server.requests[0]!.body!)[0]).toMatch(/^Now we are engaged in a great civil war/);
  });

  it('a server error (HTTP 500) is retried by the AI SDK transport (maxRetries) and the loop goes on', async () => {
    server = await gettysburgServer();
    server.failNext(500);
    const model = openAICompatibleModel({ baseURL: server.baseURL });
    const r = await answerQuestion({ model, question: QUESTION, document: GETTYSBURG, chunking: sentences });
    expect(r.answer?.text).toBe('A great civil war');
    expect(server.requests.map((q) => q.status).slice(0, 2)).toEqual([500, 200]);
    // the failed request and its retry carry the same conversation
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
    expect(server.requests).toHaveLength(r.extraction.calls + 1);
  });

  it('with maxRetries 0 the server error reaches the caller', async () => {
    server = await gettysburgServer();
    server.failNext(500);
    const model = openAICompatibleModel({ baseURL: server.baseURL });
    await expect(
      answerQuestion({ model, question: QUESTION, document: GETTYSBURG, chunking: sentences, maxRetries: 0 }),
    ).rejects.toThrow(/server failed/);
    expect(server.requests).toHaveLength(1);
  });

  it('bad model options are refused, naming the option, before any request', () => {
    expect(() => openAICompatibleModel({ baseURL: 'ftp://127.0.0.1/v1' })).toThrow(/baseURL = "ftp:.*http: or https:/);
    expect(() => openAICompatibleModel({ baseURL: 'not a url' })).toThrow(/baseURL.*not an absolute URL/);
    expect(() => openAICompatibleModel({ baseURL: 'http://127.0.0.1/v1?x=1' })).toThrow(/baseURL.*no query/);
    expect(() => openAICompatibleModel({ model: ' ' })).toThrow(/model/);
  });
});
