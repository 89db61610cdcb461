/**
 * Jacobians of a system's operators, DQ(x) and DP_e(x), from either engine. A system's declared
 * `linearization` capability (src/system/types.ts: footprint, its own DQ engine, tfjs forms)
 * makes them cheaper or possible; without it the generic central differences run on Q and P_e.
 */
import type { OperatorSystem } from '../system/types.js';
import { unguardedSpec } from '../system/define.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { firstNonFinite } from '../util/validate.js';
import { TfJacobian, type Tf, type TfBatchMap } from './autodiff.js';
import { FdJacobian } from './finiteDifference.js';
import type { JacobianMethod, JacobianOperator } from './operator.js';

/** The footprint of P_e as declared (validated by the contract), or undefined. */
export function footprintOf(system: OperatorSystem, evidenceId: string): Int32Array | undefined {
  const f = system.capabilities.linearization?.footprint?.(evidenceId);
  return f === undefined ? undefined : Int32Array.from(f);
}

/** Which engine to use, and the tfjs runtime when it is autodiff. */
export interface EngineChoice {
  method: JacobianMethod;
  tf?: Tf;
}

/**
 * DQ(x) as a JacobianOperator.
 * @throws {ArgumentError} autodiff asked but the system has no consolidateTf (or tf missing).
 */
export function consolidateJacobian(system: OperatorSystem, x: Float64Array, engine: EngineChoice): JacobianOperator {
  if (engine.method === 'fd') {
    const own = system.capabilities.linearization?.consolidateJacobian?.(x);
    if (own) return own;
    const raw = rawOperators(system, { copy: false }); // FdJacobian copies if f reuses its buffer
    return new FdJacobian((t) => raw.consolidate(t), x);
  }
  const fq = system.capabilities.linearization?.consolidateTf;
  if (!fq || !engine.tf)
    throw new ArgumentError(
      'jacobian',
      'autodiff',
      `${system.name} provides no consolidateTf (tfjs form of Q); use fd`,
    );
  const map: TfBatchMap = (tf, X) => fq(tf, X);
  return new TfJacobian(engine.tf, map, x, system.dim);
}

/**
 * DP_e(x) as a JacobianOperator: the system's own engine when it declares one
 * (`linearization.expandJacobian`), else central differences of P_e; with a declared footprint,
 * columns off it are e_j for free.
 * @throws {ArgumentError} autodiff asked but the system has no expandTf.
 */
export function expandJacobian(
  system: OperatorSystem,
  evidenceId: string,
  x: Float64Array,
  engine: EngineChoice,
): JacobianOperator {
  if (engine.method === 'fd') {
    const own = system.capabilities.linearization?.expandJacobian?.(evidenceId, x);
    if (own) return own;
    const footprint = footprintOf(system, evidenceId);
    const raw = rawOperators(system, { copy: false });
    return new FdJacobian((t) => raw.expand(evidenceId, t), x, footprint ? { readSet: footprint } : {});
  }
  const fe = system.capabilities.linearization?.expandTf;
  if (!fe || !engine.tf)
    throw new ArgumentError('jacobian', 'autodiff', `${system.name} provides no expandTf (tfjs form of P_e); use fd`);
  return new TfJacobian(engine.tf, (tf, X) => fe(tf, evidenceId, X), x, system.dim);
}

/** Q and P_e called without the validating wrapper's copy, with a fast output check instead. */
export interface RawOperators {
  consolidate(theta: Float64Array): Float64Array;
  expand(evidenceId: string, theta: Float64Array): Float64Array;
}

/**
 * The system's Q and P_e as its spec defines them, with a block copy (unless `copy: false`) and
 * a single-pass check of the output (length d, finite; the error names the operator like the validating wrapper does). The
 * Jacobian engines call the operators thousands of times on large states, where the wrapper's
 * element-by-element copy costs more than the operator itself. With `inputOwned: true` the
 * caller hands θ over (a scratch it does not read again): the operators run on it without the
 * hygienic copy ({@link unguardedSpec}), and may write into it or return it.
 * @throws {ArgumentError} (from the returned functions) an output of the wrong length or with
 *   a non-finite entry.
 */
export function rawOperators(
  system: OperatorSystem,
  options: { copy?: boolean; inputOwned?: boolean } = {},
): RawOperators {
  const copy = options.copy ?? true;
  const spec = options.inputOwned ? unguardedSpec(system.spec) : system.spec;
  const d = system.dim;
  const check = (what: string, out: unknown): Float64Array => {
    // a fresh copy (a fast block copy for a Float64Array): an operator may reuse its output buffer
    const y =
      out instanceof Float64Array
        ? copy
          ? new Float64Array(out)
          : out
        : Array.isArray(out)
          ? Float64Array.from(out as number[])
          : null;
    if (y === null) throw new ArgumentTypeError(what, out, 'must return a Float64Array or an array of numbers');
    if (y.length !== d) throw new ArgumentError(what, y, `must have length ${d}, got ${y.length}`);
    const bad = firstNonFinite(y);
    if (bad >= 0) throw new ArgumentError(`${what}[${bad}]`, y[bad], 'must be finite (NaN and ±Infinity are rejected)');
    return y;
  };
  return {
    consolidate: (theta) => check(`${system.name}: consolidate(theta)`, spec.consolidate(theta)),
    expand: (id, theta) => check(`${system.name}: expand(${JSON.stringify(id)}, theta)`, spec.expand(id, theta)),
  };
}
