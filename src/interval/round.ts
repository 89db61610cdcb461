/**
 * Outward rounding without rounding modes. JavaScript rounds every operation to nearest, so a
 * computed r = fl(x ∘ y) of a correctly rounded operation (+ − × ÷ √, IEEE 754) satisfies
 * pred(r) <= x ∘ y <= succ(r). `up`/`down` return a float >= succ(r) / <= pred(r):
 *
 *   up(r) = r + (|r|·φ + η),  down(r) = r − (|r|·φ + η),  φ = 2⁻⁵³(1 + 2⁻⁵²), η = 2⁻¹⁰⁷⁴
 *
 * (Rump, Zimmermann, Boldo, Melquiond, "Computing predecessor and successor in rounding to
 * nearest", BIT 49 (2009), Algorithm 2 with the constants of its Theorem 2.2: the result is
 * succ(r) or one float above it for every finite r, subnormals included). The edges:
 * up(−∞) = −MAX_VALUE and down(+∞) = MAX_VALUE (a result that overflowed to ∞ stands for a finite
 * number beyond MAX_VALUE); up(+∞) = +∞, down(−∞) = −∞; NaN stays NaN, and every consumer treats
 * a NaN end as "no enclosure" (test/interval/round.test.ts checks `up(x) >= nextUp(x)` on random
 * and edge floats).
 *
 * Results of library functions that are not correctly rounded (V8's Math.exp, log, log1p, tanh;
 * their error bounds are stated in ./arith.ts) are widened by `upUlps`/`downUlps`, which move
 * r by at least k·(2⁻⁵²·|r| + η): k ulps of r or more, for normal and subnormal r alike.
 */

/** φ = 2⁻⁵³(1 + 2⁻⁵²): the relative step of {@link up}. */
const PHI = 2 ** -53 * (1 + 2 ** -52);
/** η = 2⁻¹⁰⁷⁴, the smallest subnormal. */
export const ETA = 2 ** -1074;
const MAX = Number.MAX_VALUE;

/** A float >= succ(r) (r itself when r = +∞; −MAX_VALUE when r = −∞). */
export function up(r: number): number {
  if (r === -Infinity) return -MAX;
  return r + (Math.abs(r) * PHI + ETA);
}

/** A float <= pred(r) (r itself when r = −∞; MAX_VALUE when r = +∞). */
export function down(r: number): number {
  if (r === Infinity) return MAX;
  return r - (Math.abs(r) * PHI + ETA);
}

/**
 * A float >= r + k·(2⁻⁵²·|r| + η), so at least k ulps above r, subnormal r included (k a small
 * positive integer; the conventions of {@link up} at ±∞). The step d = up(|r|·k·2⁻⁵² + k·η) is at
 * least its exact value (the rounding of the product and of the sum is below the one ulp `up`
 * adds), and up(r + d) >= r + d. It lies at most (k + 3)·2⁻⁵²·|r| + (k + 5)·η above r.
 */
export function upUlps(r: number, k: number): number {
  if (r === -Infinity) return -MAX;
  return up(r + up(Math.abs(r) * (k * 2 ** -52) + k * ETA));
}

/** A float <= r − k·(2⁻⁵²·|r| + η) (see {@link upUlps}). */
export function downUlps(r: number, k: number): number {
  if (r === Infinity) return MAX;
  return down(r - up(Math.abs(r) * (k * 2 ** -52) + k * ETA));
}

const f64 = new Float64Array(1);
const i64 = new BigInt64Array(f64.buffer);

/** The next float above x (IEEE nextUp, by the bit pattern): the reference the tests hold `up` to. */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return ETA;
  f64[0] = x;
  i64[0] = i64[0]! + (x > 0 ? 1n : -1n);
  return f64[0]!;
}

/** The next float below x (IEEE nextDown). */
export function nextDown(x: number): number {
  return -nextUp(-x);
}
