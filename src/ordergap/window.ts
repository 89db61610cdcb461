/**
 * The windowed order-gap, Eq. (3): Ω̂_{t,w} = (1/w) Σ_{τ=t−w+1..t} Ω(θ_τ; e_τ), defined once at
 * least w values have been seen. Recomputed from the last w values at every call (O(w)), so no
 * running sum can drift from the definition.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';

/**
 * Ω̂ over the last `window` entries of `values` (Eq. 3), or `null` while fewer than `window`
 * values exist.
 * @throws {ArgumentError} window is not an integer >= 1, or a value is negative or not finite.
 * @example
 * ```ts
 * windowedMean([0.0288, 0.1310, 0.0433, 0.0009], 2); // (0.0433 + 0.0009) / 2 = 0.0221
 * ```
 */
export function windowedMean(values: ArrayLike<number>, window: number): number | null {
  integerInRange('window', window, 1);
  for (let i = 0; i < values.length; i++) {
    const v = finiteNumber(`values[${i}]`, values[i]);
    if (v < 0) throw new ArgumentError(`values[${i}]`, v, 'an order-gap is a norm and cannot be negative');
  }
  return windowedMeanUnchecked(values, window);
}

/** {@link windowedMean} without validation. */
export function windowedMeanUnchecked(values: ArrayLike<number>, window: number): number | null {
  const n = values.length;
  if (n < window) return null;
  let sum = 0;
  for (let i = n - window; i < n; i++) sum += values[i]!;
  return sum / window;
}

/** The buffer B of Algorithm 1 with its stopping test. */
export class OrderGapWindow {
  readonly #values: number[] = [];
  /**
   * @param window w >= 1 (Eq. 3)
   * @param epsilon ε > 0: stop when Ω̂ <= ε
   * @throws {ArgumentError} w not an integer >= 1, ε not a finite number > 0.
   */
  constructor(
    readonly window: number,
    readonly epsilon: number,
  ) {
    integerInRange('window', window, 1);
    finiteNumber('epsilon', epsilon);
    if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  }

  /** Appends Ω_t and returns the new Ω̂ (null while |B| < w). */
  push(omega: number): number | null {
    if (!(omega >= 0) || !Number.isFinite(omega))
      throw new ArgumentError('omega', omega, 'must be a finite number >= 0');
    this.#values.push(omega);
    return this.mean();
  }

  /** Ω̂ over the last w values, or null while |B| < w. */
  mean(): number | null {
    return windowedMeanUnchecked(this.#values, this.window);
  }

  /** True iff |B| >= w and Ω̂ <= ε (the test of Algorithm 1). */
  shouldStop(): boolean {
    const m = this.mean();
    return m !== null && m <= this.epsilon;
  }

  /** All values pushed so far. */
  get values(): readonly number[] {
    return this.#values;
  }
}
