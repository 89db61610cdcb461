/**
 * Exact conversion of doubles to decimal.js values, the bridge every high-precision oracle of the
 * tests crosses. `new Decimal(x)` for a number x is NOT exact: decimal.js reads the number's
 * shortest round-trip string (`new Decimal(0.1)` is 0.1, while the double 0.1 is
 * 0.1000000000000000055511151231257827021181583404541015625). A double is m·2^p with an integer
 * m < 2⁵³; for p < 0 that is m·5^(−p)·10^p, an integer of at most 767 digits times a power of ten,
 * which a decimal string carries exactly (decimal.js never rounds on construction).
 */
import { Decimal } from 'decimal.js';

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The exact value of the double x as a Decimal of constructor `Ctor` (NaN and ±∞ map to themselves). */
export function exactDecimal(x: number, Ctor: typeof Decimal = Decimal): Decimal {
  if (!Number.isFinite(x)) return new Ctor(x);
  if (x === 0) return new Ctor(0);
  f64[0] = Math.abs(x);
  const bits = u64[0]!;
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const m = biased === 0 ? fraction : fraction | (1n << 52n);
  const p = (biased === 0 ? 1 : biased) - 1075;
  const digits = p >= 0 ? (m << BigInt(p)).toString() : `${(m * 5n ** BigInt(-p)).toString()}e${p}`;
  const d = new Ctor(digits);
  return x < 0 ? d.neg() : d;
}
