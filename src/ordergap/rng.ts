/**
 * A small seeded random number generator (sfc32 seeded through splitmix32) so that a run with
 * the same seed is the identical run on every machine. Not for cryptography.
 */
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';

/** A stream of uniform numbers in [0, 1). */
export interface Rng {
  /** Next uniform double in [0, 1) with 32 random bits. */
  next(): number;
  /**
   * Writes the next out.length draws of {@link Rng.next} into `out`, in order, and returns it:
   * the same numbers without a call (and a boxed double) per draw.
   */
  fill(out: Float64Array): Float64Array;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * A seeded generator.
 * @param seed an integer in [0, 2^32)
 * @throws {ArgumentError} seed is not such an integer.
 */
export function createRng(seed: number): Rng {
  integerInRange('seed', seed, 0, 2 ** 32 - 1);
  const sm = splitmix32(seed);
  // the state lives in a typed array: uint32 values above 2³¹ kept in closure variables are
  // boxed numbers, and every draw would allocate four of them
  const st = Uint32Array.of(sm(), sm(), sm(), sm());
  const next32 = (): number => {
    const a = st[0]!;
    const b = st[1]!;
    const c = st[2]!;
    const d = st[3]!;
    const t = (((a + b) >>> 0) + d) >>> 0;
    st[3] = d + 1;
    st[0] = b ^ (b >>> 9);
    st[1] = c + (c << 3);
    st[2] = (((c << 21) | (c >>> 11)) >>> 0) + t;
    return t;
  };
  for (let i = 0; i < 12; i++) next32();
  return {
    next: () => next32() / 4294967296,
    fill: (out) => {
      for (let i = 0; i < out.length; i++) out[i] = next32() / 4294967296;
      return out;
    },
  };
}

/**
 * Index drawn from weights `p` with uniform u in [0, 1): the first i with cumulative weight
 * > u·Σp. Items with weight 0 are never drawn.
 */
export function sampleIndex(p: ArrayLike<number>, u: number): number {
  let total = 0;
  for (let i = 0; i < p.length; i++) total += p[i]!;
  if (!(total > 0)) throw new ArgumentError('p', p, 'must have positive total weight');
  const target = u * total;
  let cum = 0;
  let last = -1;
  for (let i = 0; i < p.length; i++) {
    if (p[i]! > 0) {
      cum += p[i]!;
      last = i;
      if (cum > target) return i;
    }
  }
  return last; // rounding: u·total can reach the rounded total
}

/**
 * n seeded standard normal values (Box–Muller on {@link createRng}); the same seed gives the same
 * values on every machine. For tests, benchmarks and synthetic data, not for statistics that need
 * tails beyond ~8.3 sd (u is clamped at 1e-300).
 * @throws {ArgumentError} seed not an integer in [0, 2^32).
 * @example
 * ```ts
 * seededNormals(1, 4); // Float64Array of 4 values, identical on every run
 * ```
 */
export function seededNormals(seed: number, n: number): Float64Array {
  const rng = createRng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(rng.next(), 1e-300);
    const v = rng.next();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}
