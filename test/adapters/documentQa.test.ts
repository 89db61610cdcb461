import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerQuestion, type AnswerEvent } from '../../src/adapters/documentQa/answerQuestion.js';
import { chunkDocument, ChunkRanking } from '../../src/adapters/documentQa/chunk.js';
import { addressModel, GETTYSBURG, OUTPUTS, QUESTION, textOf, type Prompt } from './gettysburgOutputs.js';

describe('chunkDocument and the BM25 reading order', () => {
  it('paragraph windows are the blank-line separated paragraphs; sentence windows overlap as asked', () => {
    const paragraphs = chunkDocument(GETTYSBURG);
    expect(paragraphs).toHaveLength(3);
    expect(paragraphs[1]!.text.startsWith('Now we are engaged')).toBe(true);
    for (const c of paragraphs) expect(GETTYSBURG.slice(c.start, c.end)).toBe(c.text);
    const s = chunkDocument('One. Two. Three. Four.', { unit: 'sentence', size: 2, overlap: 1 });
    expect(s.map((c) => c.text)).toEqual(['One. Two.', 'Two. Three.', 'Three. Four.']);
    expect(chunkDocument('One. Two. Three.', { unit: 'sentence', size: 2, overlap: 0 }).map((c) => c.text)).toEqual([
      'One. Two.',
      'Three.',
    ]);
  });

  it('paragraphs: the runs of non-blank lines, a blank line holding only whitespace (fast-check against a pattern)', () => {
    // the oracle: a paragraph starts at a non-space and runs on until a line feed followed by a
    // line of whitespace only (JS \\s, the set trim removes); its end is trimmed
    const oracle = (t: string): string[] =>
      [...t.matchAll(/\S(?:[^\n]|\n(?![^\S\n]*(?:\n|$)))*/g)].map((m) => m[0].trimEnd());
    const char = fc.constantFrom('a', 'b', ' ', '\t', '\r', '\n', '\u00a0', '\f', '\u2028', '.');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 40 }).map((cs) => cs.join('')),
        (t) => {
          const want = oracle(t);
          if (want.length === 0) {
            expect(() => chunkDocument(t)).toThrow(/document/);
            return;
          }
          const got = chunkDocument(t);
          expect(got.map((c) => c.text)).toEqual(want);
          for (const c of got) expect(t.slice(c.start, c.end)).toBe(c.text);
        },
      ),
      { numRuns: 2000 },
    );
    // a line of non-breaking spaces separates paragraphs, as a line of spaces does
    expect(chunkDocument('One\n\u00a0\nTwo').map((c) => c.text)).toEqual(['One', 'Two']);
  });

  it('a paragraph of 12 million characters is one chunk (no recursion on its length)', () => {
    const line = 'word '.repeat(2_400_000);
    const c = chunkDocument(`${line}\n${line}`);
    expect(c).toHaveLength(1);
    expect(c[0]!.end).toBe(2 * line.length);
  });

  it('bad chunking is refused with the argument named', () => {
    expect(() => chunkDocument('  \n\n ')).toThrow(/document.*no text/);
    expect(() => chunkDocument('a', { size: 0 })).toThrow(/chunking\.size/);
    expect(() => chunkDocument('a', { size: 2, overlap: 2 })).toThrow(/chunking\.overlap.*< chunking\.size = 2/);
    expect(() => chunkDocument('a', { unit: 'word' as never })).toThrow(/chunking\.unit/);
  });

  it('the best unread chunk for the query first, then the ones it does not match in document order', () => {
    const r = new ChunkRanking(chunkDocument(GETTYSBURG, { unit: 'sentence', size: 1, overlap: 0 }));
    // only sentence 1 holds "engaged", "war" and "nation" together
    expect(r.next(QUESTION)!.index).toBe(1);
    const order = [1];
    for (let c = r.next(QUESTION); c !== null; c = r.next(QUESTION)) order.push(c.index);
    expect([...order].sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(r.unread).toBe(0);
  });
});

describe('answerQuestion: the document-QA loop over an AI SDK model (MockLanguageModelV3)', () => {
  const sentences = { unit: 'sentence', size: 1, overlap: 0 } as const;

  it('reads in BM25 order, repairs invalid outputs, and stops on the order-gap with a converged coverage check', async () => {
    const model = addressModel();
    const events: AnswerEvent[] = [];
    const r = await answerQuestion({
      model,
      question: QUESTION,
      document: GETTYSBURG,
      chunking: sentences,
      onEvent: (e) => events.push(e),
    });
    expect(r.answer?.text).toBe('A great civil war');
    expect(r.reason).toBe('order-gap');
    expect(r.stop?.verdict).toBe('converged');
    expect(r.read[0]).toBe(1);
    // one call per chunk read, plus one repair for each of the two invalid first replies
    expect(r.extraction.calls).toBe(r.read.length + 2);
    expect(r.extraction.repairs).toBe(2);
    expect(r.extraction.invalid).toBe(0);
    const extracted = OUTPUTS.filter((o) =>
      r.read.some((i) => chunkDocument(GETTYSBURG, sentences)[i]!.text.includes(o.sentence)),
    );
    expect(r.extraction.evidence).toBe(extracted.length);
    expect(r.extraction.empty).toBe(r.read.length - extracted.length);
    expect(model.doGenerateCalls).toHaveLength(r.extraction.calls);
    // the events: a chunk and an output event per chunk read, a step per observation
    expect(events.filter((e) => e.type === 'chunk')).toHaveLength(r.read.length);
    expect(events.filter((e) => e.type === 'output')).toHaveLength(r.read.length);
    const steps = events.filter((e) => e.type === 'step');
    expect(steps.map((e) => e.omega)).toEqual(r.omegas);
    expect(steps.at(-1)!.report.stop).toBe(true);
    expect(r.steps).toBe(r.omegas.length);
  });

  it('with your retriever instead of a document: it gets the query and the count read, and the loop stops as with the document', async () => {
    const sentences5 = chunkDocument(GETTYSBURG, sentences);
    const ranking = new ChunkRanking(sentences5);
    const calls: Array<[string, number]> = [];
    const retrieve = (query: string, read: number) => {
      calls.push([query, read]);
      return ranking.next(query)?.text ?? null;
    };
    const viaRetriever = await answerQuestion({ model: addressModel(), question: QUESTION, retrieve, maxChunks: 10 });
    const viaDocument = await answerQuestion({
      model: addressModel(),
      question: QUESTION,
      document: GETTYSBURG,
      chunking: sentences,
    });
    expect(calls[0]).toEqual([QUESTION, 0]);
    expect(calls.map((c) => c[1])).toEqual(calls.map((_, i) => i));
    expect(viaRetriever.omegas).toEqual(viaDocument.omegas);
    expect(viaRetriever.reason).toBe(viaDocument.reason);
    expect(viaRetriever.answer).toEqual(viaDocument.answer);
    expect(viaRetriever.chunks).toBe(viaRetriever.read.length);
    await expect(answerQuestion({ model: addressModel(), question: QUESTION, retrieve: () => '  ' })).rejects.toThrow(
      /retrieve.*chunk 0.*non-empty string or null/,
    );
    await expect(
      answerQuestion({ model: addressModel(), question: QUESTION, retrieve, document: GETTYSBURG }),
    ).rejects.toThrow(/exactly one of document, chunks and retrieve/);
  });

  it('a document with nothing on the question: no evidence, no answer, the chunks run out', async () => {
    const r = await answerQuestion({ model: addressModel([]), question: QUESTION, document: GETTYSBURG });
    expect(r.reason).toBe('exhausted');
    expect(r.answer).toBeNull();
    expect(r.steps).toBe(0);
    expect(r.extraction).toMatchObject({ evidence: 0, empty: 3, invalid: 0, calls: 3 });
  });

  it('an output cut off at the token budget is asked to finalize and counted as truncated', async () => {
    const outputs = [{ ...OUTPUTS[2]!, repair: OUTPUTS[2]!.first, first: '{"claims": [{"text": "The nation was' }];
    const model = addressModel(outputs, 'length');
    const r = await answerQuestion({
      model,
      question: QUESTION,
      document: GETTYSBURG,
      chunking: sentences,
      maxChunks: 10,
    });
    expect(r.extraction.truncated).toBe(1);
    expect(r.extraction.evidence).toBe(1);
    const repair = (
      model.doGenerateCalls.find((c) => (c.prompt as Prompt).filter((m) => m.role === 'user').length > 1)!
        .prompt as Prompt
    ).at(-1)!;
    expect(textOf(repair)).toMatch(/cut off at the token budget/);
  });

  it.each([
    ['length', 1, /cut off at the token budget/],
    ['content-filter', 0, /invalid: the output was empty \(finish reason 'content-filter'\)/],
  ] as const)('an empty output that ends with %s is repaired, not thrown', async (finish, truncated, message) => {
    // the AI SDK parses no output from an empty text that did not finish with `stop`
    const outputs = [{ ...OUTPUTS[2]!, repair: OUTPUTS[2]!.first, first: '' }];
    const model = addressModel(outputs, finish);
    const r = await answerQuestion({ model, question: QUESTION, document: GETTYSBURG, chunking: sentences });
    expect(r.extraction).toMatchObject({ truncated, evidence: 1, repairs: 1, invalid: 0 });
    const repair = (
      model.doGenerateCalls.find((c) => (c.prompt as Prompt).filter((m) => m.role === 'user').length > 1)!
        .prompt as Prompt
    ).at(-1)!;
    expect(textOf(repair)).toMatch(message);
  });

  it('bad options are refused, naming the argument, before any model call', async () => {
    const model = addressModel();
    await expect(answerQuestion({ model, question: ' ', document: 'x' })).rejects.toThrow(/question/);
    await expect(answerQuestion({ model, question: QUESTION })).rejects.toThrow(/document.*exactly one/);
    await expect(answerQuestion({ model, question: QUESTION, chunks: [] })).rejects.toThrow(/chunks/);
    await expect(answerQuestion({ model, question: QUESTION, document: 'x', maxChunks: 0 })).rejects.toThrow(
      /maxChunks/,
    );
    await expect(answerQuestion({ model, question: QUESTION, document: 'x', passes: 0 })).rejects.toThrow(/passes/);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});
