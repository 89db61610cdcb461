/**
 * Jacobians of a system's operators, DQ(x) and DP_e(x), from either engine, plus the optional
 * fields a system may add to the operator contract to make linearisation cheaper or exact:
 *
 * ```
 * footprint(evidenceId) -> number[]   coordinates P_e reads and writes: P_e(θ)_i = θ_i off the
 *                                     footprint, and its values on it depend on it only
 * consolidateTf(tf, X) -> Tensor2D    Q on a batch of states (rows), tfjs ops only
 * expandTf(tf, evidenceId, X)         P_e likewise
 * lipschitz: { [subspace]: number }   analytic upper bounds on Q's Lipschitz constant
 * ```
 * They live on the spec (OperatorSystem.spec) so user modules can declare them too.
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { TfJacobian, type Tf, type TfBatchMap } from './autodiff.js';
import { FdJacobian } from './finiteDifference.js';
import type { JacobianMethod, JacobianOperator } from './operator.js';

/** The optional linearisation fields of a system spec (see the module comment). */
export interface LinearizationExtensions {
  footprint?: (evidenceId: string) => readonly number[];
  consolidateTf?: (tf: Tf, X: TfCore.Tensor2D) => TfCore.Tensor2D;
  expandTf?: (tf: Tf, evidenceId: string, X: TfCore.Tensor2D) => TfCore.Tensor2D;
  lipschitz?: Readonly<Record<string, number>>;
  /** A system-specific FD Jacobian of Q at x (e.g. one that keeps x in wasm memory), or undefined. */
  consolidateJacobianFd?: (x: Float64Array) => JacobianOperator | undefined;
}

/**
 * Reads and checks the optional fields from `system.spec`.
 * @throws {ArgumentTypeError} a field is present with the wrong type.
 */
export function linearizationExtensions(system: OperatorSystem): LinearizationExtensions {
  const spec = system.spec as unknown as Record<string, unknown>;
  const out: LinearizationExtensions = {};
  for (const key of ['footprint', 'consolidateTf', 'expandTf', 'consolidateJacobianFd'] as const) {
    const v = spec[key];
    if (v === undefined) continue;
    if (typeof v !== 'function') throw new ArgumentTypeError(`system.${key}`, v, 'must be a function');
    (out as Record<string, unknown>)[key] = v;
  }
  const lip = spec['lipschitz'];
  if (lip !== undefined) {
    if (typeof lip !== 'object' || lip === null)
      throw new ArgumentTypeError('system.lipschitz', lip, 'must be an object');
    for (const [k, v] of Object.entries(lip)) {
      if (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v))
        throw new ArgumentError(`system.lipschitz.${k}`, v, 'must be a finite number >= 0');
    }
    out.lipschitz = lip as Record<string, number>;
  }
  return out;
}

/** The footprint of P_e, validated (indices in range, no duplicates), or undefined. */
export function footprintOf(system: OperatorSystem, evidenceId: string): Int32Array | undefined {
  const ext = linearizationExtensions(system);
  if (!ext.footprint) return undefined;
  const f = ext.footprint(evidenceId);
  if (!Array.isArray(f))
    throw new ArgumentTypeError(`system.footprint(${JSON.stringify(evidenceId)})`, f, 'must return an array');
  const seen = new Set<number>();
  f.forEach((j, k) => {
    if (!(Number.isInteger(j) && j >= 0 && j < system.dim) || seen.has(j))
      throw new ArgumentError(
        `system.footprint(${JSON.stringify(evidenceId)})[${k}]`,
        j,
        `must be a distinct index in [0, ${system.dim})`,
      );
    seen.add(j);
  });
  return Int32Array.from(f);
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
    const own = linearizationExtensions(system).consolidateJacobianFd?.(x);
    if (own) return own;
    const raw = rawOperators(system, { copy: false }); // FdJacobian copies if f reuses its buffer
    return new FdJacobian((t) => raw.consolidate(t), x);
  }
  const ext = linearizationExtensions(system);
  if (!ext.consolidateTf || !engine.tf)
    throw new ArgumentError(
      'jacobian',
      'autodiff',
      `${system.name} provides no consolidateTf (tfjs form of Q); use fd`,
    );
  const fq = ext.consolidateTf;
  const map: TfBatchMap = (tf, X) => fq(tf, X);
  return new TfJacobian(engine.tf, map, x, system.dim);
}

/**
 * DP_e(x) as a JacobianOperator; with a declared footprint, columns off it are e_j for free.
 * @throws {ArgumentError} autodiff asked but the system has no expandTf.
 */
export function expandJacobian(
  system: OperatorSystem,
  evidenceId: string,
  x: Float64Array,
  engine: EngineChoice,
): JacobianOperator {
  const footprint = footprintOf(system, evidenceId);
  if (engine.method === 'fd') {
    const raw = rawOperators(system, { copy: false });
    return new FdJacobian((t) => raw.expand(evidenceId, t), x, footprint ? { readSet: footprint } : {});
  }
  const ext = linearizationExtensions(system);
  if (!ext.expandTf || !engine.tf)
    throw new ArgumentError('jacobian', 'autodiff', `${system.name} provides no expandTf (tfjs form of P_e); use fd`);
  const fe = ext.expandTf;
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
 * element-by-element copy costs more than the operator itself.
 * @throws {ArgumentError} (from the returned functions) an output of the wrong length or with
 *   a non-finite entry.
 */
export function rawOperators(system: OperatorSystem, options: { copy?: boolean } = {}): RawOperators {
  const copy = options.copy ?? true;
  const spec = system.spec;
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
    let s = 0;
    for (let i = 0; i < d; i++) s += y[i]! * 0;
    if (s !== 0) {
      for (let i = 0; i < d; i++)
        if (!Number.isFinite(y[i]))
          throw new ArgumentError(`${what}[${i}]`, y[i], 'must be finite (NaN and ±Infinity are rejected)');
    }
    return y;
  };
  return {
    consolidate: (theta) => check(`${system.name}: consolidate(theta)`, spec.consolidate(theta)),
    expand: (id, theta) => check(`${system.name}: expand(${JSON.stringify(id)}, theta)`, spec.expand(id, theta)),
  };
}
