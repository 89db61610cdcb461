// `ordergap answer` through the built CLI (dist/cli/main.js, spawned: the loopback server runs in
// this process, so the child is awaited without blocking it) against the loopback
// OpenAI-compatible server (test/helpers/openaiServer.ts) answering with the hand-written
// Gettysburg outputs (not recorded from a model).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { GETTYSBURG_FILE, OUTPUTS, QUESTION, replyFor } from '../adapters/gettysburgOutputs.js';
import { startOpenAIServer, userTexts, type OpenAIServer } from '../helpers/openaiServer.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(root, 'dist/cli/main.js');
const DOCUMENT = fileURLToPath(GETTYSBURG_FILE);
const work = mkdtempSync(join(tmpdir(), 'ordergap-answer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with `args` (and `env` over a copy of this process's, without ORDERGAP_*), killed after 60 s. */
function ordergap(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ORDERGAP_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, 'answer', ...args], {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let server: OpenAIServer;
afterEach(async () => server?.close());
const start = async () => {
  server = await startOpenAIServer((request) => ({ content: replyFor(userTexts(request)).text }));
  return server;
};

describe('ordergap answer against a loopback OpenAI-compatible server', () => {
  it('prints the answer, its confidence, why it stopped, the chunks read and the extraction counts; exit 0', async () => {
    const { baseURL } = await start();
    const r = await ordergap(['--document', DOCUMENT, '--question', QUESTION, '--chunk', 'sentence'], {
      ORDERGAP_BASE_URL: baseURL,
      ORDERGAP_API_KEY: 'k-1',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Answer: A great civil war \(confidence 0\.\d{3}\)$/);
    expect(r.stdout).toMatch(/^Stopped: order-gap — .*coverage check converged$/m);
    expect(r.stdout).toMatch(/^Chunks read: \d+ of \d+ \(in order: /m);
    const calls = Number(/^Extraction: (\d+) model calls;/m.exec(r.stdout)![1]);
    expect(server.requests).toHaveLength(calls);
    expect(server.requests.every((q) => q.authorization === 'Bearer k-1' && q.status === 200)).toBe(true);
  });

  it('--json prints the report without the AgentState; --base-url and --model reach the server', async () => {
    const { baseURL } = await start();
    const r = await ordergap([
      '--document',
      DOCUMENT,
      '--question',
      QUESTION,
      '--base-url',
      baseURL,
      '--model',
      'served-model',
      '--max-chunks',
      '2',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(report).not.toHaveProperty('state');
    expect(report).toMatchObject({ question: QUESTION, chunks: 3 });
    expect((report['read'] as number[]).length).toBeLessThanOrEqual(2);
    expect(report['summary']).toHaveProperty('answers');
    expect(server.requests.every((q) => q.body?.model === 'served-model' && q.authorization === undefined)).toBe(true);
    // paragraph chunks (the default): the paragraph holding the civil-war sentence is read first
    expect(userTexts(server.requests[0]!.body!)[0]).toContain(OUTPUTS[0]!.sentence);
  });

  it('bad options: one line naming the option, exit 2, nothing on stdout, no request reaches the server', async () => {
    const { baseURL } = await start();
    const blank = join(work, 'blank.txt');
    writeFileSync(blank, ' \n\n \n');
    const ok = ['--base-url', baseURL];
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [
        ['--document', join(work, 'missing.txt'), '--question', QUESTION, ...ok],
        {},
        /--document = ".*missing\.txt": cannot be read \(ENOENT\)/,
      ],
      [['--document', work, '--question', QUESTION, ...ok], {}, /--document = .*: is a folder/],
      [['--document', blank, '--question', QUESTION, ...ok], {}, /--document = .*blank\.txt": holds no text/],
      [['--document', '', '--question', QUESTION, ...ok], {}, /--document = "": must be a file path/],
      [
        ['--document', DOCUMENT, '--question', '  ', ...ok],
        {},
        /option '--question <text>' argument ' {2}' is invalid/,
      ],
      [['--question', QUESTION, ...ok], {}, /required option '--document <file>' not specified/],
      [['--document', DOCUMENT, ...ok], {}, /required option '--question <text>' not specified/],
      [
        ['--document', DOCUMENT, '--question', QUESTION, '--max-chunks', '0', ...ok],
        {},
        /'--max-chunks <n>' argument '0' is invalid/,
      ],
      [
        ['--document', DOCUMENT, '--question', QUESTION, '--max-chunks', '1.5', ...ok],
        {},
        /'--max-chunks <n>'.*not an integer/,
      ],
      [
        ['--document', DOCUMENT, '--question', QUESTION, '--chunk', 'word', ...ok],
        {},
        /'--chunk <unit>' argument 'word'/,
      ],
      [
        ['--document', DOCUMENT, '--question', QUESTION, '--base-url', 'localhost:8080'],
        {},
        /--base-url = "localhost:8080": must be an http: or https: URL/,
      ],
      [
        // the password is not echoed
        ['--document', DOCUMENT, '--question', QUESTION, '--base-url', 'http://u:secret@127.0.0.1:1/v1'],
        {},
        /^(?!.*secret).*--base-url = "http:\/\/127\.0\.0\.1:1\/v1 with credentials": must not hold a user name or password/,
      ],
      [
        ['--document', DOCUMENT, '--question', QUESTION, '--base-url', 'nope'],
        {},
        /--base-url = "nope": is not an absolute URL/,
      ],
      [
        ['--document', DOCUMENT, '--question', QUESTION],
        { ORDERGAP_BASE_URL: 'ftp://127.0.0.1/v1' },
        /ORDERGAP_BASE_URL = "ftp:.*http: or https:/,
      ],
      [['--document', DOCUMENT, '--question', QUESTION, '--model', ' ', ...ok], {}, /--model = " ": must not be empty/],
      // a line break in the value is written \n, so the line is not cut before the reason
      [
        ['--document', DOCUMENT, '--question', '\n', ...ok],
        {},
        /argument '\\n' is invalid\. the question must not be empty\./,
      ],
    ];
    for (const [args, env, message] of cases) {
      const r = await ordergap(args, env);
      const what = `${args.join(' ')} ${JSON.stringify(env)}`;
      expect(r.code, what).toBe(2);
      expect(r.stdout, what).toBe('');
      expect(r.stderr.trimEnd().split('\n'), what).toHaveLength(1);
      expect(r.stderr, what).toMatch(message);
    }
    expect(server.requests).toEqual([]);
  });

  it('a missing AI SDK package is one line naming it and how to install it, exit 2, no request', async () => {
    const { baseURL } = await start();
    // a resolve hook that finds no package `ai`, as in an install without it
    const hook = join(work, 'no-ai.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';
       register('data:text/javascript,' + encodeURIComponent(\`
         export async function resolve(specifier, context, next) {
           if (specifier === 'ai') throw Object.assign(new Error("Cannot find package 'ai' imported from " + context.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });
           return next(specifier, context);
         }\`));`,
    );
    const r = await ordergap(['--document', DOCUMENT, '--question', QUESTION, '--base-url', baseURL], {}, [
      '--import',
      hook,
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'ordergap: error: answer needs the package ai, which is not installed (npm install ai@6 @ai-sdk/openai-compatible@2)\n',
    );
    expect(server.requests).toEqual([]);
  });
});
