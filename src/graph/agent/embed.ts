/**
 * Attribute vectors ℓ ∈ R^k for claims from their text (Def. 2.1's attributes): a pluggable
 * {@link Embedder}, with a deterministic built-in default that needs no model,
 * {@link hashingEmbedder} — feature hashing of the text. It is a BASELINE: two claims are near
 * only when they share words (after lower-casing and stripping punctuation), paraphrases are
 * not recognised; a sentence-embedding model projected to k − 1 dimensions is the upgrade.
 *
 * Layout of the default vector (as the shipped scenarios use ℓ): coordinates 0 .. k−2 hold the
 * text features, the last one a code of the source in [0, 1) (so a claim's source enters the
 * attribute distance but is excluded from the merge dimensions, mergeDims = k − 1).
 */
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';
import { integerInRange } from '../../util/validate.js';

/** Maps a claim's text and source to k attribute values (finite). */
export type Embedder = (claim: { text: string; source: string }, k: number) => ArrayLike<number>;

/** FNV-1a, 32 bit, over the UTF-16 code units of s, seeded. */
function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The words of a text: lower case, letters and digits (any script), apostrophes dropped. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * The default embedder: feature hashing (the "hashing trick") of the text's words and word
 * bigrams into m = k − 1 signed buckets (bucket and sign from two FNV-1a hashes), the count
 * vector v normalised to unit length and mapped to [0, 1] as (1 + v_i)/2; coordinate k − 1 is
 * fnv1a(source)/2^32. Identical texts and sources give identical vectors; texts with no word
 * in common get feature vectors that agree only where hash buckets collide. k = 1: only the
 * source code.
 * @throws {ArgumentError} k not an integer >= 1.
 * @example
 * ```ts
 * hashingEmbedder({ text: 'Mira Vance wrote it', source: 'encyclopedia' }, 4); // 4 values in [0, 1]
 * ```
 */
export const hashingEmbedder: Embedder = (claim, k) => {
  integerInRange('k', k, 1);
  const m = k - 1;
  const out = new Float64Array(k);
  if (m > 0) {
    const v = new Float64Array(m);
    const w = words(claim.text);
    const feats = [...w, ...w.slice(1).map((x, i) => `${w[i]!} ${x}`)];
    for (const f of feats) {
      const b = fnv1a(f) % m;
      v[b]! += fnv1a(f, 0x9747b28c) & 1 ? 1 : -1;
    }
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n);
    for (let i = 0; i < m; i++) out[i] = n > 0 ? (1 + v[i]! / n) / 2 : 0.5;
  }
  out[k - 1] = fnv1a(claim.source) / 4294967296;
  return out;
};

/**
 * Runs an embedder and checks its output: k finite numbers.
 * @throws {ArgumentError} the embedder returned the wrong length or a non-finite value.
 */
export function embedClaim(embedder: Embedder, claim: { text: string; source: string }, k: number): number[] {
  if (typeof embedder !== 'function') throw new ArgumentTypeError('embedder', embedder, 'must be a function');
  const v = embedder(claim, k);
  if (v == null || v.length !== k) throw new ArgumentError('embedder()', v, `must return k = ${k} values`);
  const out = Array.from(v);
  out.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new ArgumentError(`embedder()[${i}]`, x, 'must be finite');
  });
  return out;
}
