/**
 * The document side of the document-QA loop (Sec. 7.1): a chunker that cuts a text into windows
 * of paragraphs or sentences with overlap, and the retrieval order over the chunks by BM25
 * (MiniSearch's BM25+ ranking, a maintained full-text index), re-queried as the questions the
 * loop is after change (Sec. 7.3).
 */
import MiniSearch from 'minisearch';
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';
import { integerInRange } from '../../util/validate.js';

/** One window of a document: its text and where it lies ([start, end) in UTF-16 code units). */
export interface Chunk {
  /** Position in the document's chunk order, from 0. */
  readonly index: number;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Options of {@link chunkDocument}. */
export interface ChunkOptions {
  /** What a window counts: paragraphs (separated by blank lines; default) or sentences (Intl.Segmenter). */
  unit?: 'paragraph' | 'sentence';
  /** Units per window, >= 1 (default 1 paragraph, or 5 sentences). */
  size?: number;
  /** Units two consecutive windows share, in [0, size) (default 0 for paragraphs, 1 for sentences). */
  overlap?: number;
}

/**
 * [start, end) of each paragraph, trimmed: a maximal run of non-blank lines, a line being the
 * text between two line feeds and a blank line one that holds only whitespace (what
 * `String.prototype.trim` removes: spaces, tabs, CR, NBSP, form feeds, U+2028, …). One pass over
 * the lines, O(length) time and constant stack whatever a paragraph's length.
 */
function paragraphs(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = -1; // the open paragraph's first non-blank character, or −1
  let end = -1; // one past its last non-blank character so far
  for (let at = 0; at <= text.length; ) {
    const lf = text.indexOf('\n', at);
    const lineEnd = lf < 0 ? text.length : lf;
    const line = text.slice(at, lineEnd);
    const body = line.trimStart();
    if (body.length === 0) {
      if (start >= 0) out.push([start, end]);
      start = -1;
    } else {
      if (start < 0) start = at + line.length - body.length;
      end = at + line.trimEnd().length;
    }
    at = lineEnd + 1;
  }
  if (start >= 0) out.push([start, end]);
  return out;
}

/** [start, end) of each non-blank sentence, trimmed (Intl.Segmenter, locale 'en'). */
function sentences(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const s of new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)) {
    const lead = s.segment.length - s.segment.trimStart().length;
    const body = s.segment.trim();
    if (body.length > 0) out.push([s.index + lead, s.index + lead + body.length]);
  }
  return out;
}

/**
 * Cuts `text` into windows of `size` consecutive units (paragraphs or sentences) that advance
 * by size − overlap units; the last window ends at the last unit. A window's text is the
 * document's span from its first unit's start to its last unit's end (whitespace between units
 * kept). O(length of text).
 * @throws {ArgumentError} `text` not a string or blank; size < 1; overlap outside [0, size); an
 *   unknown unit.
 * @example
 * ```ts
 * chunkDocument('One. Two. Three.', { unit: 'sentence', size: 2, overlap: 1 }).map((c) => c.text);
 * // ['One. Two.', 'Two. Three.']
 * ```
 */
export function chunkDocument(text: string, options: ChunkOptions = {}): Chunk[] {
  if (typeof text !== 'string') throw new ArgumentTypeError('document', text, 'must be a string');
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('chunking', options, 'must be an object');
  const unit = options.unit ?? 'paragraph';
  if (unit !== 'paragraph' && unit !== 'sentence')
    throw new ArgumentError('chunking.unit', unit, "must be 'paragraph' or 'sentence'");
  const size = integerInRange('chunking.size', options.size ?? (unit === 'paragraph' ? 1 : 5), 1);
  const overlap = integerInRange('chunking.overlap', options.overlap ?? (unit === 'paragraph' ? 0 : 1), 0);
  if (overlap >= size) throw new ArgumentError('chunking.overlap', overlap, `must be < chunking.size = ${size}`);
  const units = unit === 'paragraph' ? paragraphs(text) : sentences(text);
  if (units.length === 0) throw new ArgumentError('document', text, 'holds no text (it is empty or blank)');
  const out: Chunk[] = [];
  for (let first = 0; ; first += size - overlap) {
    const last = Math.min(first + size, units.length) - 1;
    const [start, end] = [units[first]![0], units[last]![1]];
    out.push(Object.freeze({ index: out.length, text: text.slice(start, end), start, end }));
    if (last === units.length - 1) break;
  }
  return out;
}

/**
 * The retrieval order over a document's chunks: {@link next} returns the unread chunk that ranks
 * highest by BM25 for a query (MiniSearch's BM25+ over word terms, k = 1.2, b = 0.7, δ = 0.5,
 * prefix and fuzzy matching off), ties and chunks the query does not match taken in document
 * order. MiniSearch departs from the textbook BM25+ twice: a chunk's length is its number of
 * distinct terms, and its score is multiplied by the number of query terms it matches.
 * Index build O(total text); a query O(matching postings).
 */
export class ChunkRanking {
  readonly #chunks: readonly Chunk[];
  readonly #index: MiniSearch<{ id: number; text: string }>;
  readonly #read = new Set<number>();

  constructor(chunks: readonly Chunk[]) {
    this.#chunks = chunks;
    this.#index = new MiniSearch({ fields: ['text'], storeFields: [] });
    this.#index.addAll(chunks.map((c) => ({ id: c.index, text: c.text })));
  }

  /** Chunks not yet returned by {@link next}. */
  get unread(): number {
    return this.#chunks.length - this.#read.size;
  }

  /** Makes exactly the chunks `read` (indices) the ones read, as after {@link next} returned them. */
  reset(read: Iterable<number>): void {
    this.#read.clear();
    for (const i of read) this.#read.add(i);
  }

  /** The best unread chunk for `query` (null when every chunk has been read); marks it read. */
  next(query: string): Chunk | null {
    if (this.unread === 0) return null;
    let best: Chunk | null = null;
    let bestScore = 0;
    for (const r of this.#index.search(query, { prefix: false, fuzzy: false })) {
      const id = r.id as number;
      if (this.#read.has(id)) continue;
      if (r.score > bestScore || (r.score === bestScore && best !== null && id < best.index)) {
        best = this.#chunks[id]!;
        bestScore = r.score;
      }
    }
    best ??= this.#chunks.find((c) => !this.#read.has(c.index))!;
    this.#read.add(best.index);
    return best;
  }
}
