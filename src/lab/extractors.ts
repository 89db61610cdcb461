/**
 * Answer extractors: turn a sampled completion into a normalised answer key, or say why there
 * is none. Two outcomes are kept apart from a wrong answer (Zhang et al., "Recursive Agentic Reasoning"): `empty` (the completion is
 * blank — nothing was emitted) and `unparseable` (text was emitted but no answer could be read).
 * The same extractor normalises the gold answer, so gold and samples are compared as keys.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';

/** What an extractor made of one completion. */
export type Extraction =
  | { readonly kind: 'answer'; readonly answer: string }
  | { readonly kind: 'empty' }
  | { readonly kind: 'unparseable' };

/** An extractor: a named pair of functions (completion → extraction, gold → key). */
export interface AnswerExtractor {
  readonly name: string;
  /** Reads the answer of a sampled completion. */
  extract(completion: string): Extraction;
  /** Normalises the gold answer to the same key space (null: the gold answer is unusable). */
  normalizeGold(gold: string): string | null;
}

/** "the answer is", ASCII letters matched in either case (no other character folds onto them without `u`). */
const MARKER = /the answer is/gi;

/** Lower-cases and removes every character that is not a letter a–z (built-in text normaliser). */
export function normalizeLetters(text: string): string {
  return text.toLowerCase().replace(/[^a-z]/g, '');
}

/** Text after the last "the answer is" (case-insensitive), or null when the marker is absent. */
export function afterLastMarker(text: string): string | null {
  // searched in the text itself: lower-casing can change the length before the marker (İ → i̇)
  let end = -1;
  for (const m of text.matchAll(MARKER)) end = m.index + m[0].length;
  return end < 0 ? null : text.slice(end);
}

/**
 * The built-in text extractor: the text after the last "the answer is", lower-cased, with every
 * non-letter removed. Blank completion → `empty`; no marker, or nothing left → `unparseable`.
 * @example
 * ```ts
 * answerIsExtractor.extract('So, the answer is: Paris.'); // { kind: 'answer', answer: 'paris' }
 * ```
 */
export const answerIsExtractor: AnswerExtractor = Object.freeze({
  name: 'answer-is',
  extract(completion: string): Extraction {
    if (completion.trim() === '') return { kind: 'empty' };
    const tail = afterLastMarker(completion);
    if (tail === null) return { kind: 'unparseable' };
    const key = normalizeLetters(tail);
    return key === '' ? { kind: 'unparseable' } : { kind: 'answer', answer: key };
  },
  normalizeGold(gold: string): string | null {
    const key = normalizeLetters(gold);
    return key === '' ? null : key;
  },
});

const NUMBER = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?/g;

/** Canonical key of a number written in text ("1,000.50" → "1000.5"), or null. */
export function canonicalNumber(text: string): string | null {
  const matches = text.match(NUMBER);
  if (!matches || matches.length === 0) return null;
  const x = Number(matches[matches.length - 1]!.replace(/,/g, ''));
  if (!Number.isFinite(x)) return null;
  return String(Object.is(x, -0) ? 0 : x);
}

/**
 * The numeric extractor: the last number after the last "the answer is" (or, without the marker,
 * the last number in the completion), written canonically so that "1,000", "1000.0" and
 * "1e3" agree.
 * @example
 * ```ts
 * numericExtractor.extract('... so the answer is $1,250.00.'); // { kind: 'answer', answer: '1250' }
 * ```
 */
export const numericExtractor: AnswerExtractor = Object.freeze({
  name: 'numeric',
  extract(completion: string): Extraction {
    if (completion.trim() === '') return { kind: 'empty' };
    const key = canonicalNumber(afterLastMarker(completion) ?? completion);
    return key === null ? { kind: 'unparseable' } : { kind: 'answer', answer: key };
  },
  normalizeGold(gold: string): string | null {
    return canonicalNumber(gold);
  },
});

/**
 * Wraps a user function `(completion) => answer | null` as an extractor: a non-empty string is
 * the answer key, null/'' is `unparseable` (a blank completion is `empty` before the function
 * is called). The gold answer goes through the same function unless `normalizeGold` is given.
 * @throws {ArgumentTypeError} fn is not a function; at use, fn returns something else than a
 *   string or null.
 * @example
 * ```ts
 * const ex = userExtractor('first-word', (s) => s.trim().split(/\s+/)[0]?.toLowerCase() ?? null);
 * ```
 */
export function userExtractor(
  name: string,
  fn: (completion: string) => string | null,
  normalizeGold?: (gold: string) => string | null,
): AnswerExtractor {
  if (typeof fn !== 'function')
    throw new ArgumentTypeError('extractor', fn, 'must be a function (completion) => string | null');
  const call = (what: string, f: (s: string) => string | null, s: string): string | null => {
    const r = f(s);
    if (r !== null && typeof r !== 'string')
      throw new ArgumentTypeError(`${name}(${what})`, r, 'an extractor must return a string or null');
    return r === '' ? null : r;
  };
  return Object.freeze({
    name,
    extract(completion: string): Extraction {
      if (completion.trim() === '') return { kind: 'empty' };
      const r = call('completion', fn, completion);
      return r === null ? { kind: 'unparseable' } : { kind: 'answer', answer: r };
    },
    normalizeGold(gold: string): string | null {
      return call('gold', normalizeGold ?? fn, gold);
    },
  });
}

/** The built-in extractors by name. */
export const BUILTIN_EXTRACTORS: Readonly<Record<string, AnswerExtractor>> = Object.freeze({
  'answer-is': answerIsExtractor,
  numeric: numericExtractor,
});

/**
 * A built-in extractor by name.
 * @throws {ArgumentError} unknown name (lists the known ones).
 */
export function getExtractor(name: string): AnswerExtractor {
  const ex = Object.hasOwn(BUILTIN_EXTRACTORS, name) ? BUILTIN_EXTRACTORS[name] : undefined;
  if (!ex)
    throw new ArgumentError(
      'extractor',
      name,
      `is not a built-in extractor (known: ${Object.keys(BUILTIN_EXTRACTORS).join(', ')})`,
    );
  return ex;
}
