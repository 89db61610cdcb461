import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSyntheticSamples } from '../../scripts/generate-samples.js';
import {
  answerIsExtractor,
  canonicalNumber,
  getExtractor,
  numericExtractor,
  userExtractor,
} from '../../src/lab/extractors.js';
import { SampleFileError, loadSamples, parseSamples } from '../../src/lab/samples.js';

describe('extractors', () => {
  it('answer-is: text after the LAST marker, lower-cased, non-letters removed', () => {
    expect(answerIsExtractor.extract('So the answer is: Paris.')).toEqual({ kind: 'answer', answer: 'paris' });
    expect(answerIsExtractor.extract('The answer is Lyon? No — THE ANSWER IS New York!')).toEqual({
      kind: 'answer',
      answer: 'newyork',
    });
    expect(answerIsExtractor.extract('   \n')).toEqual({ kind: 'empty' });
    expect(answerIsExtractor.extract('no marker here')).toEqual({ kind: 'unparseable' });
    expect(answerIsExtractor.extract('the answer is 42.')).toEqual({ kind: 'unparseable' });
    // text before the marker whose lower case is longer (İ → i̇) does not shift where the answer starts
    expect(answerIsExtractor.extract('İİİ the answer is Paris')).toEqual({ kind: 'answer', answer: 'paris' });
    expect(answerIsExtractor.normalizeGold('Paris')).toBe('paris');
    expect(answerIsExtractor.normalizeGold('123')).toBeNull();
  });
  it('numeric: canonical numbers, the last one after the marker', () => {
    expect(canonicalNumber('1,000.50')).toBe('1000.5');
    expect(canonicalNumber('1e3')).toBe('1000');
    expect(canonicalNumber('-0')).toBe('0');
    expect(numericExtractor.extract('2 + 3 = 5, so the answer is $1,250.00.')).toEqual({
      kind: 'answer',
      answer: '1250',
    });
    expect(numericExtractor.extract('we get 7 then 8')).toEqual({ kind: 'answer', answer: '8' });
    expect(numericExtractor.extract('no digits')).toEqual({ kind: 'unparseable' });
    expect(numericExtractor.normalizeGold('1250')).toBe('1250');
  });
  it('user function, with type checks', () => {
    const ex = userExtractor('first', (s) => s.trim().split(/\s+/)[0]!.toLowerCase());
    expect(ex.extract('Hello world')).toEqual({ kind: 'answer', answer: 'hello' });
    expect(ex.extract('')).toEqual({ kind: 'empty' });
    const bad = userExtractor('bad', () => 3 as unknown as string);
    expect(() => bad.extract('x')).toThrow(/^bad\(completion\) = 3: an extractor must return a string or null/);
    expect(() => userExtractor('x', 5 as never)).toThrow(/^extractor = 5/);
    expect(() => getExtractor('regex')).toThrow(
      /^extractor = "regex": is not a built-in extractor \(known: answer-is, numeric\)/,
    );
  });
});

describe('sample files', () => {
  it('parses items with null samples as transport failures', () => {
    const s = parseSamples(
      '{"question":"q1","answer":"a","generated_answer":["the answer is a", null]}\n\n{"question":"q2","answer":"b","generated_answer":[""]}\n',
      'mem',
    );
    expect(s.items.map((i) => [i.line, i.samples.length])).toEqual([
      [1, 2],
      [3, 1],
    ]);
    expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
  it.each([
    ['{"question":"q","answer":"a"', /^f:1: line = .*: is not valid JSON/],
    ['[1]', /^f:1: line = .*: must be a JSON object/],
    ['{"answer":"a","generated_answer":["x"]}', /^f:1: question = undefined: must be a string/],
    ['{"question":"q","answer":3,"generated_answer":["x"]}', /^f:1: answer = 3: must be a string/],
    ['{"question":"q","answer":"a","generated_answer":"x"}', /^f:1: generated_answer = "x": must be an array/],
    [
      '{"question":"q","answer":"a","generated_answer":[]}',
      /^f:1: generated_answer = .*: must hold at least one sample/,
    ],
    [
      '{"question":"q","answer":"a","generated_answer":["x"]}\n{"question":"q","answer":"a","generated_answer":["x", 7]}',
      /^f:2: generated_answer\[1\] = 7: must be a string/,
    ],
    ['\n\n', /^f:1: file = .*: holds no items/],
  ])('names the line and the field: %s', (text, msg) => {
    expect(() => parseSamples(text, 'f')).toThrow(SampleFileError);
    expect(() => parseSamples(text, 'f')).toThrow(msg);
  });
  it('a missing file is an argument error naming the path', async () => {
    await expect(loadSamples('/nonexistent/x.jsonl')).rejects.toThrow(
      /^samples = "\/nonexistent\/x.jsonl": cannot be read \(ENOENT\)/,
    );
  });
  it('the committed example file is exactly the generator output (seeded)', async () => {
    const committed = await readFile(new URL('../../examples/samples/synthetic.jsonl', import.meta.url), 'utf8');
    expect(committed).toBe(generateSyntheticSamples());
    const s = parseSamples(committed, 'synthetic');
    expect(s.items.length).toBe(60);
    expect(s.items.filter((i) => i.samples.includes(null)).length).toBe(2);
  });
});
