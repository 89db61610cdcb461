// The Gettysburg Address (examples/documents/gettysburg.txt, public domain) and model outputs for
// it, shared by the document-QA tests: the mock model's (documentQa.test.ts) and the loopback
// OpenAI-compatible server's (documentQaServer.test.ts, test/cli/answer.test.ts).
import { readFileSync } from 'node:fs';
import { MockLanguageModelV3 } from 'ai/test';

/** The Gettysburg Address (Bliss copy, 1863; public domain), shipped with the examples. */
export const GETTYSBURG_FILE = new URL('../../examples/documents/gettysburg.txt', import.meta.url);
export const GETTYSBURG = readFileSync(GETTYSBURG_FILE, 'utf8');
export const QUESTION = 'What war was the nation engaged in?';

/** One hand-written output: `first` is the first reply, `repair` the reply to the loop's repair message. */
export interface HandWrittenOutput {
  sentence: string;
  first: string;
  repair?: string;
}

/**
 * The outputs a model gives per sentence of the address, WRITTEN BY HAND for these tests in the
 * form a structured-output call returns — not recorded from a model (no model was called):
 * `first` is the first reply, and `repair` the reply to the loop's repair message when `first`
 * is invalid. Sentences not listed hold nothing on the question: the reply is an empty
 * extraction.
 */
export const OUTPUTS: readonly HandWrittenOutput[] = [
  {
    sentence: 'Now we are engaged in a great civil war',
    first: '{"claims": [{"text": "The nation is engaged in a great civil war."', // cut short: not JSON
    repair: JSON.stringify({
      claims: [
        {
          text: 'The nation is engaged in a great civil war.',
          source: 'Gettysburg Address',
          reliability: 0.9,
          question: 'q:main',
          answerText: 'A great civil war',
        },
      ],
    }),
  },
  {
    sentence: 'We are met on a great battle-field of that war.',
    // a claim id the state does not hold: toEvidenceItem refuses it, the repair drops it
    first: JSON.stringify({
      claims: [
        { text: 'They are met on a battle-field of that war.', source: 'Gettysburg Address', supports: ['c:nope'] },
      ],
    }),
    repair: JSON.stringify({
      claims: [
        {
          text: 'They are met on a battle-field of that war.',
          source: 'Gettysburg Address',
          reliability: 0.8,
          question: 'q:main',
          answerText: 'A great civil war',
        },
      ],
    }),
  },
  {
    sentence: 'Four score and seven years ago',
    first: JSON.stringify({
      claims: [{ text: 'The nation was brought forth four score and seven years ago.', source: 'Gettysburg Address' }],
    }),
  },
];

/** The reply to a conversation: the chunk is the first user message; a second one asks for a repair. */
export function replyFor(
  userMessages: readonly string[],
  outputs: readonly HandWrittenOutput[] = OUTPUTS,
): { text: string; listed: boolean } {
  const o = outputs.find((x) => userMessages[0]!.includes(x.sentence));
  if (!o) return { text: '{"claims": []}', listed: false };
  return { text: userMessages.length > 1 ? o.repair! : o.first, listed: true };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A prompt as the mock model receives it. */
export type Prompt = Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
/** The text of one prompt message. */
export const textOf = (m: Prompt[number]) =>
  typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('');

/** A model answering from {@link OUTPUTS}: the chunk is the first user message; a second one asks for a repair. */
export function addressModel(
  outputs: readonly HandWrittenOutput[] = OUTPUTS,
  finish: 'stop' | 'length' | 'content-filter' = 'stop',
) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const users = (prompt as Prompt).filter((m) => m.role === 'user').map(textOf);
      const { text, listed } = replyFor(users, outputs);
      const cut = finish !== 'stop' && users.length === 1 && listed;
      return {
        content: [{ type: 'text' as const, text }],
        finishReason: cut ? { unified: finish, raw: finish } : { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
}
