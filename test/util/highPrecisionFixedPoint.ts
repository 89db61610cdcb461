/**
 * A high-precision reference for the fixed point of a tanh layer, x = tanh(W x + b) (x ∈ R^n,
 * W row-major n × n, the weights given as doubles and read exactly), for tests that hold an f64
 * computation to the true fixed point.
 *
 * Method: Newton on F(x) = x − tanh(W x + b), DF = I − diag(1 − tanh²(W x + b))·W, from the f64
 * fixed-point iteration's result; each step solves DF·δ = F by Gaussian elimination with partial
 * pivoting, all in decimal.js at `digits` + 10 significant digits (tanh by decimal.js, which keeps
 * its relative accuracy near 0 by a series). Steps stop once max|δ| <= 10^−digits·max(1, max|x|);
 * Newton converges quadratically, so the last step leaves an error of order max|δ|², and the
 * result is within 10^−digits (relative, or absolute below 1) of the fixed point next to the
 * start: the only one when ‖W‖₂ < 1 (x ↦ tanh(Wx + b) then contracts).
 */
import { Decimal } from 'decimal.js';
import { exactDecimal } from './exactDecimal.js';

/** Options of {@link tanhFixedPoint}. */
export interface TanhFixedPointOptions {
  /** Significant digits of the result (default 50). */
  digits?: number;
  /** Newton steps allowed (default 20). */
  maxSteps?: number;
}

/**
 * The f64 fixed-point iteration x ← f(x) from x0, until the largest change of a coordinate is 0
 * or stops shrinking below 1e-12 (the rounding floor of f), at most 100000 steps.
 */
export function f64FixedPoint(f: (x: Float64Array) => Float64Array, x0: ArrayLike<number>): Float64Array {
  let x: Float64Array = Float64Array.from(x0);
  let last = Infinity;
  for (let k = 0; k < 100000; k++) {
    const y = f(x);
    let change = 0;
    for (let i = 0; i < x.length; i++) change = Math.max(change, Math.abs(y[i]! - x[i]!));
    x = y;
    if (change === 0 || (change >= last && change < 1e-12)) break;
    last = change;
  }
  return x;
}

/** x ↦ tanh(W x + b) in f64. */
function tanhLayer(W: ArrayLike<number>, b: ArrayLike<number>, n: number): (x: Float64Array) => Float64Array {
  return (x) => {
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = b[i]!;
      for (let j = 0; j < n; j++) s += W[i * n + j]! * x[j]!;
      y[i] = Math.tanh(s);
    }
    return y;
  };
}

/**
 * The fixed point of x = tanh(W x + b) to `digits` significant digits (module comment).
 * @throws {Error} Newton did not converge within `maxSteps`.
 */
export function tanhFixedPoint(
  W: ArrayLike<number>,
  b: ArrayLike<number>,
  n: number,
  options: TanhFixedPointOptions = {},
): Decimal[] {
  const digits = options.digits ?? 50;
  const D = Decimal.clone({ precision: digits + 10 });
  const w = Array.from({ length: n * n }, (_, k) => exactDecimal(W[k]!, D));
  const bias = Array.from({ length: n }, (_, i) => exactDecimal(b[i]!, D));
  let x = Array.from(f64FixedPoint(tanhLayer(W, b, n), new Float64Array(n)), (v) => exactDecimal(v, D));
  const tol = new D(10).pow(-digits);
  for (let step = 0; step < (options.maxSteps ?? 20); step++) {
    const t = Array.from({ length: n }, (_, i) => {
      let s = bias[i]!;
      for (let j = 0; j < n; j++) s = s.add(w[i * n + j]!.mul(x[j]!));
      return s.tanh();
    });
    // DF = I − diag(1 − t²)·W, F = x − t
    const A = Array.from({ length: n }, (_, i) => {
      const slope = new D(1).sub(t[i]!.mul(t[i]!));
      return Array.from({ length: n }, (_, j) => (i === j ? new D(1) : new D(0)).sub(slope.mul(w[i * n + j]!)));
    });
    const F = x.map((xi, i) => xi.sub(t[i]!));
    const delta = solve(A, F, D);
    x = x.map((xi, i) => xi.sub(delta[i]!));
    const size = Decimal.max(...delta.map((d) => d.abs()));
    const scale = Decimal.max(1, ...x.map((v) => v.abs()));
    if (size.lte(tol.mul(scale))) return x.map((v) => v.toSignificantDigits(digits));
  }
  throw new Error(`tanhFixedPoint: Newton did not converge in ${options.maxSteps ?? 20} steps`);
}

/** A·δ = F by Gaussian elimination with partial pivoting (A is overwritten). */
function solve(A: Decimal[][], F: Decimal[], D: typeof Decimal): Decimal[] {
  const n = F.length;
  const f = F.slice();
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (A[i]![k]!.abs().gt(A[p]![k]!.abs())) p = i;
    [A[k], A[p]] = [A[p]!, A[k]!];
    [f[k], f[p]] = [f[p]!, f[k]!];
    const pivot = A[k]![k]!;
    for (let i = k + 1; i < n; i++) {
      const m = A[i]![k]!.div(pivot);
      if (m.isZero()) continue;
      for (let j = k; j < n; j++) A[i]![j] = A[i]![j]!.sub(m.mul(A[k]![j]!));
      f[i] = f[i]!.sub(m.mul(f[k]!));
    }
  }
  const x = new Array<Decimal>(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = f[i]!;
    for (let j = i + 1; j < n; j++) s = s.sub(A[i]![j]!.mul(x[j]!));
    x[i] = s.div(A[i]![i]!);
  }
  return x.map((v) => new D(v));
}
