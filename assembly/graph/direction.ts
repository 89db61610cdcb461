// One directional difference of Q along a dense direction v, its passes over the d coordinates:
// the step's scales, x ± s·v written into the state, x put back, the step actually taken and
// the quotient's edge part (src/graph/linearisation/consolidateJacobian.ts, `applyDense`, for
// the whole-space power steps of the certification's global scale, Sec. 5.3). Each is the loop
// of the TypeScript function it stands for, in the same order with the same operations (no
// fused multiply-add), so the values are bit for bit those of
// src/linearize/finiteDifference.ts `directionalStepGathered` and `takenStepGathered` on (x, v)
// (tested through `applyDense` against two full evaluations of the wasm Q). An entry with
// v_j = 0 (either sign) is not in v's support: not moved, not read for the step. Nothing
// allocates.
import { ld, st } from './memory';

/**
 * The scales of the step along v: out[0] = max |v_j|, out[1] = max(1, |x_j|) over v's support
 * (`directionalStepGathered`; the caller forms eps^(1/3)·out[1]/out[0]).
 */
export function graphDirectionScales(x: usize, v: usize, n: i32, out: usize): void {
  let vmax: f64 = 0;
  let xmax: f64 = 1;
  for (let j = 0; j < n; j++) {
    const a = ld(v, j);
    if (a == 0) continue;
    vmax = Math.max(vmax, Math.abs(a));
    xmax = Math.max(xmax, Math.abs(ld(x, j)));
  }
  st(out, 0, vmax);
  st(out, 1, xmax);
}

/** theta_j = x_j + s·v_j on v's support; theta elsewhere untouched. */
export function graphDirectionShift(theta: usize, x: usize, v: usize, n: i32, s: f64): void {
  for (let j = 0; j < n; j++) {
    const a = ld(v, j);
    if (a != 0) st(theta, j, ld(x, j) + s * a);
  }
}

/** theta_j = x_j on v's support (the state put back after the two points). */
export function graphDirectionRestore(theta: usize, x: usize, v: usize, n: i32): void {
  for (let j = 0; j < n; j++) if (ld(v, j) != 0) st(theta, j, ld(x, j));
}

/**
 * The step actually taken between x + t·v and x − t·v as rounded (`takenStepGathered` on the
 * dense v: ⟨Δ, v⟩/⟨v, v⟩ scaled by max |v_j|; v's zeros add exact zeros). 0 when v = 0.
 */
export function graphDirectionTakenStep(x: usize, v: usize, n: i32, t: f64): f64 {
  let vmax: f64 = 0;
  for (let j = 0; j < n; j++) vmax = Math.max(vmax, Math.abs(ld(v, j)));
  if (vmax == 0) return 0;
  let num: f64 = 0;
  let den: f64 = 0;
  for (let j = 0; j < n; j++) {
    const xj = ld(x, j);
    const vj = ld(v, j);
    const delta = xj + t * vj - (xj + -t * vj);
    const u = vj / vmax;
    num += delta * u;
    den += u * u;
  }
  return num / den / vmax;
}

/** v_j = 0 where v_j = −0 (Q copies v's edge entries into J v, and a −0 is not an entry). */
export function graphDirectionPositiveZeros(v: usize, n: i32): void {
  for (let j = 0; j < n; j++) if (ld(v, j) == 0) st(v, j, 0);
}
