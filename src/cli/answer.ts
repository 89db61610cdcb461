/**
 * `ordergap answer`: the document-QA loop (`answerQuestion`, docs/agents.md) over an
 * OpenAI-compatible server. Parses and checks the options and the document before any request,
 * loads the AI SDK and its provider only when the command runs (so the other commands start
 * without them), and prints the library's report: text, or `--json`.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { answerJson, renderAnswerText } from '../adapters/documentQa/answerText.js';
import { checkBaseURL, DEFAULT_BASE_URL, DEFAULT_MODEL_NAME } from '../adapters/documentQa/server.js';
import { ArgumentError } from '../util/errors.js';
import { readInputText } from '../util/resources.js';
import { checkInputPaths, parseIntAtLeast, printJson } from './options.js';
import { CommandStatus } from './status.js';

/** The environment variable holding the API key (optional: a local server needs none). */
export const API_KEY_VARIABLE = 'ORDERGAP_API_KEY';

/** The environment variables that give `--base-url` and `--model` when the flags are absent. */
export const BASE_URL_VARIABLE = 'ORDERGAP_BASE_URL';
export const MODEL_VARIABLE = 'ORDERGAP_MODEL';

/** Exit status of a bad invocation (as program.ts's EXIT_USAGE; not imported: program.ts imports this file). */
const EXIT_USAGE = 2;

interface AnswerCommandOptions {
  document: string;
  question: string;
  baseUrl: string;
  model: string;
  json?: boolean;
  chunk?: 'paragraph' | 'sentence';
  maxChunks?: number;
}

/** `--question`: a non-blank text. */
function parseQuestion(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('the question must not be empty.');
  return value;
}

/** `--chunk`: paragraph or sentence. */
function parseUnit(value: string): 'paragraph' | 'sentence' {
  if (value !== 'paragraph' && value !== 'sentence')
    throw new InvalidArgumentError(`'${value}' must be one of paragraph, sentence.`);
  return value;
}

/** The packages the command runs on, loaded when it runs; a missing one is a one-line error (exit 2). */
async function loadLibrary() {
  try {
    const [qa, provider] = await Promise.all([
      import('../adapters/documentQa/answerQuestion.js'),
      import('../adapters/documentQa/openaiCompatible.js'),
    ]);
    return { ...qa, ...provider };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(err?.message ?? '');
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || missing === null) throw e;
    process.stderr.write(
      `ordergap: error: answer needs the package ${missing[1]}, which is not installed (npm install ai@6 @ai-sdk/openai-compatible@2)\n`,
    );
    throw new CommandStatus(EXIT_USAGE);
  }
}

/** Registers `ordergap answer` on the program. */
export function registerAnswerCommand(program: Command): void {
  program
    .command('answer')
    .description(
      'answer a question from a document by the document-QA loop over an OpenAI-compatible server (docs/agents.md): chunks read in BM25 order, evidence extracted per chunk, stop on the order-gap with the coverage check',
    )
    .requiredOption('--document <file>', 'the document, a UTF-8 text file (paragraphs separated by blank lines)')
    .requiredOption('--question <text>', 'the question', parseQuestion)
    .addOption(
      new Option('--base-url <url>', "the API's base URL, up to its version")
        .env(BASE_URL_VARIABLE)
        .default(DEFAULT_BASE_URL),
    )
    .addOption(
      new Option('--model <name>', 'the model name sent to the server').env(MODEL_VARIABLE).default(DEFAULT_MODEL_NAME),
    )
    .option(
      '--chunk <unit>',
      'chunk unit: paragraph (one per chunk; default) or sentence (5 a chunk, overlap 1)',
      parseUnit,
    )
    .option('--max-chunks <n>', 'read at most N chunks (default: all)', parseIntAtLeast(1))
    .option('--json', 'print the report as one JSON document (without the final state, whose summary it holds)')
    .action(async (opts: AnswerCommandOptions, command: Command) => {
      // every input is checked before the AI SDK is loaded and any request made
      const fromEnv = (key: string, flag: string, variable: string) =>
        command.getOptionValueSource(key) === 'env' ? variable : flag;
      checkBaseURL(opts.baseUrl, fromEnv('baseUrl', '--base-url', BASE_URL_VARIABLE));
      if (opts.model.trim() === '')
        throw new ArgumentError(fromEnv('model', '--model', MODEL_VARIABLE), opts.model, 'must not be empty');
      checkInputPaths({ '--document': opts.document });
      const document = await readInputText('--document', opts.document);
      if (document.trim() === '')
        throw new ArgumentError('--document', opts.document, 'holds no text (it is empty or blank)');
      const lib = await loadLibrary();
      const apiKey = process.env[API_KEY_VARIABLE];
      const model = lib.openAICompatibleModel({
        baseURL: opts.baseUrl,
        model: opts.model,
        ...(apiKey ? { apiKey } : {}),
      });
      const report = await lib.answerQuestion({
        model,
        question: opts.question,
        document,
        ...(opts.chunk ? { chunking: { unit: opts.chunk } } : {}),
        ...(opts.maxChunks !== undefined ? { maxChunks: opts.maxChunks } : {}),
      });
      if (opts.json) printJson(answerJson(report));
      else process.stdout.write(renderAnswerText(report) + '\n');
    });
}
