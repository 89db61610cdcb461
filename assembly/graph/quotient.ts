// The central difference quotients of Q's node block: column j of DQ(x) (the Jacobian of the
// consolidation operator at x, a factor of Σ_e = DQ DP_e − DP_e DQ, Eq. 4, Sec. 5.3) from the
// two evaluations of Q at x ± h·e_j,
//
//   (Q(x + h e_j) − Q(x − h e_j))_i / ((x_j + h) − (x_j − h))   over the node coordinates i,
//
// the exact zeros dropped. Slot s of the node block sits at s·k1 (k1 − 1 attributes, then the
// confidence). Used by src/graph/linearisation/consolidateJacobian.ts, whose every column is bit
// for bit the quotient (fp_i − fm_i)/den of two full evaluations of the wasm Q formed in
// TypeScript (`fullQuotient` in test/graph/linearisation/consolidateJacobian.test.ts, which tests
// it for every kind of coordinate and for random states). No TypeScript function of src/ forms
// this quotient: the generic engine (src/linearize/finiteDifference.ts) multiplies by the
// reciprocal step instead. Nothing allocates.
import { ld, st, sti } from './memory';

let count: i32 = 0;

/**
 * Appends the quotient (a − b)/den at node index `at` to idx/val when a ≠ b; returns false when
 * it is not finite (nothing appended).
 */
// @ts-ignore: decorator
@inline function push(a: f64, b: f64, den: f64, at: i32, idx: usize, val: usize): bool {
  if (a == b) return true;
  const q = (a - b) / den;
  if (!isFinite(q)) return false;
  sti(idx, count, at);
  st(val, count, q);
  count++;
  return true;
}

/**
 * Confidences (cp − cm)/den from two n-arrays and, when withAttr, the attributes of the claim
 * slots (ap − am)/den from two arrays in node layout (claims·k1 values). Writes the non-zero
 * quotients in ascending node index to idx (i32) / val and returns their count, or −(i + 1) for
 * the first node index i whose quotient is not finite (then idx/val hold a partial list).
 */
export function graphNodeQuotient(
  n: i32,
  k1: i32,
  claims: i32,
  cp: usize,
  cm: usize,
  ap: usize,
  am: usize,
  withAttr: i32,
  den: f64,
  idx: usize,
  val: usize,
): i32 {
  count = 0;
  const k = k1 - 1;
  for (let t = 0; t < n; t++) {
    const o = t * k1;
    if (withAttr != 0 && t < claims)
      for (let u = 0; u < k; u++) if (!push(ld(ap, o + u), ld(am, o + u), den, o + u, idx, val)) return -(o + u + 1);
    if (!push(ld(cp, t), ld(cm, t), den, o + k, idx, val)) return -(o + k + 1);
  }
  return count;
}
