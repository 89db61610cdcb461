/**
 * Vote tallies for repeated sampling: counts per normalised answer, the plurality answer (ties
 * broken by which answer was seen first, so the result is a function of the sample order only),
 * and the two leading counts used by the Beta rule. Empty or unparseable samples (null) are
 * counted apart and never win (BRANCH in Zhang et al., "Recursive Agentic Reasoning" discards them from winning votes).
 */

/** Counts of answers in arrival order. */
export class VoteTally {
  readonly #counts = new Map<string, number>();
  #valid = 0;
  #missing = 0;

  /** Adds one sample's answer (null: empty or unparseable). */
  add(answer: string | null | undefined): void {
    if (answer === null || answer === undefined) {
      this.#missing++;
      return;
    }
    this.#counts.set(answer, (this.#counts.get(answer) ?? 0) + 1);
    this.#valid++;
  }

  /** Number of samples with an answer. */
  get valid(): number {
    return this.#valid;
  }

  /** Number of empty or unparseable samples. */
  get missing(): number {
    return this.#missing;
  }

  /** Count of `answer`. */
  count(answer: string): number {
    return this.#counts.get(answer) ?? 0;
  }

  /** Distinct answers in first-seen order with their counts. */
  entries(): Array<[string, number]> {
    return [...this.#counts];
  }

  /** The plurality answer (earliest-seen among ties), or null when no sample had an answer. */
  leader(): string | null {
    let best: string | null = null;
    let bestCount = 0;
    for (const [a, c] of this.#counts) {
      if (c > bestCount) {
        best = a;
        bestCount = c;
      }
    }
    return best;
  }

  /** The two largest counts [v1, v2] (v2 = 0 when fewer than two answers were seen). */
  topTwo(): [number, number] {
    let v1 = 0;
    let v2 = 0;
    for (const c of this.#counts.values()) {
      if (c > v1) {
        v2 = v1;
        v1 = c;
      } else if (c > v2) v2 = c;
    }
    return [v1, v2];
  }

  /** Forgets all votes. */
  clear(): void {
    this.#counts.clear();
    this.#valid = 0;
    this.#missing = 0;
  }
}

/**
 * The answer every entry of a window shares, or null when the window is empty, holds an empty or
 * unparseable sample (null), or holds two different answers: ESC's zero-entropy window test.
 * @example
 * ```ts
 * unanimousAnswer(['a', 'a', 'a']); // 'a'
 * unanimousAnswer(['a', null, 'a']); // null
 * ```
 */
export function unanimousAnswer(window: ReadonlyArray<string | null>): string | null {
  const first = window[0] ?? null;
  if (first === null) return null;
  for (const x of window) if (x !== first) return null;
  return first;
}
