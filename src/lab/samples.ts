/**
 * Recorded samples: JSONL with one object per item,
 * `{"question": str, "answer": str, "generated_answer": [str | null, ...]}` — the question, the
 * gold answer, and the sampled completions in sampling order. A `null` completion is a sample
 * that never arrived (a transport failure, as in Zhang et al., "Recursive Agentic Reasoning"): a rule that needs it leaves the item
 * unresolved, and paired scoring drops the item for every rule. Validation errors name the line
 * number and the field.
 */
import { createHash } from 'node:crypto';
import { ArgumentError } from '../util/errors.js';
import { readInputText } from '../util/resources.js';

/** One recorded item. */
export interface SampleItem {
  /** 1-based line number in the file (or index + 1 for in-memory data). */
  readonly line: number;
  readonly question: string;
  readonly answer: string;
  /** Completions in sampling order; null = transport failure. */
  readonly samples: readonly (string | null)[];
}

/** A parsed sample file. */
export interface SampleSet {
  /** Where it came from (a path, or a caller's label). */
  readonly source: string;
  /** sha256 of the exact text parsed (identifies the task set in run records). */
  readonly sha256: string;
  readonly items: readonly SampleItem[];
}

/** An error in a sample file, naming the line and the field. */
export class SampleFileError extends ArgumentError {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly field: string,
    value: unknown,
    problem: string,
  ) {
    super(`${source}:${line}: ${field}`, value, problem);
    this.name = 'SampleFileError';
  }
}

/**
 * Parses JSONL text (blank lines are skipped).
 * @throws {SampleFileError} bad JSON, a missing or mistyped field, an empty sample list, or a
 *   file without items — naming the line and the field.
 * @example
 * ```ts
 * parseSamples('{"question":"q","answer":"a","generated_answer":["the answer is a"]}\n', 'x.jsonl').items.length; // 1
 * ```
 */
export function parseSamples(text: string, source = 'samples'): SampleSet {
  if (typeof text !== 'string') throw new ArgumentError('text', text, 'must be a string');
  const items: SampleItem[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw new SampleFileError(source, line, 'line', raw, `is not valid JSON (${(e as Error).message})`);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw new SampleFileError(source, line, 'line', raw, 'must be a JSON object');
    const o = obj as Record<string, unknown>;
    if (typeof o.question !== 'string')
      throw new SampleFileError(source, line, 'question', o.question, 'must be a string');
    if (typeof o.answer !== 'string') throw new SampleFileError(source, line, 'answer', o.answer, 'must be a string');
    const g = o.generated_answer;
    if (!Array.isArray(g))
      throw new SampleFileError(source, line, 'generated_answer', g, 'must be an array of strings');
    if (g.length === 0) throw new SampleFileError(source, line, 'generated_answer', g, 'must hold at least one sample');
    g.forEach((s, j) => {
      if (s !== null && typeof s !== 'string')
        throw new SampleFileError(
          source,
          line,
          `generated_answer[${j}]`,
          s,
          'must be a string (or null for a failed sample)',
        );
    });
    items.push(
      Object.freeze({
        line,
        question: o.question,
        answer: o.answer,
        samples: Object.freeze([...(g as (string | null)[])]),
      }),
    );
  });
  if (items.length === 0) throw new SampleFileError(source, 1, 'file', text.slice(0, 40), 'holds no items');
  return Object.freeze({
    source,
    sha256: createHash('sha256').update(text).digest('hex'),
    items: Object.freeze(items),
  });
}

/**
 * Reads and parses a JSONL file.
 * @throws {ArgumentError} the file cannot be read; {@link SampleFileError} as {@link parseSamples}.
 */
export async function loadSamples(path: string): Promise<SampleSet> {
  // not a folder or a never-ending device, its size fits; a leading byte-order mark is dropped
  return parseSamples(await readInputText('samples', path), path);
}
