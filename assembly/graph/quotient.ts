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
  let nnz = 0;
  const k = k1 - 1;
  for (let t = 0; t < n; t++) {
    const o = t * k1;
    if (withAttr != 0 && t < claims) {
      for (let u = 0; u < k; u++) {
        const a = ld(ap, o + u);
        const b = ld(am, o + u);
        if (a != b) {
          const q = (a - b) / den;
          if (!isFinite(q)) return -(o + u + 1);
          sti(idx, nnz, o + u);
          st(val, nnz, q);
          nnz++;
        }
      }
    }
    const a = ld(cp, t);
    const b = ld(cm, t);
    if (a != b) {
      const q = (a - b) / den;
      if (!isFinite(q)) return -(o + k + 1);
      sti(idx, nnz, o + k);
      st(val, nnz, q);
      nnz++;
    }
  }
  return nnz;
}
