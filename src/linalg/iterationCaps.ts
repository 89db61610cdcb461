/**
 * Iteration caps of the iterative methods behind eigh and the singular values, for both backends.
 * The defaults are LAPACK's: 30 iterations per secular equation (dlaed4, the merges of divide and
 * conquer), 100·n dqds passes per segment of n values (dlasq2), 30·n QL iterations for n
 * eigenvalues (dsterf, dsteqr). These methods converge on every input seen, so the fallbacks that
 * follow a failure (QL for divide and conquer, Golub–Kahan QL for dqds, Jacobi for both QL runs)
 * are reached no other way: lowering a cap makes the method give up early, so a test can check
 * that the fallback runs and still gives the documented accuracy. Not for use in production.
 */
import { ArgumentError } from '../util/errors.js';
import { isInitialized, wasm } from '../wasm/module.js';

/** The three caps. */
export interface IterationCaps {
  /** Iterations of one secular equation (dlaed4's MAXIT). */
  secular: number;
  /** dqds passes per value of a segment (dlasq2's NBIG / n). */
  dqdsPerValue: number;
  /** QL iterations per eigenvalue (dsterf's and dsteqr's MAXIT). */
  qlPerValue: number;
}

/** LAPACK's caps. */
export const DEFAULT_ITERATION_CAPS: Readonly<IterationCaps> = Object.freeze({
  secular: 30,
  dqdsPerValue: 100,
  qlPerValue: 30,
});

/**
 * The caps the TypeScript backend reads — `qlPerValue` in its QL (./syev.ts tql2); its other
 * iterative method, Jacobi, has its own sweep cap (./gesvj.ts) — the wasm kernels hold theirs
 * (assembly/linalg/caps.ts).
 */
export const iterationCaps: Readonly<IterationCaps> = { ...DEFAULT_ITERATION_CAPS };

/**
 * Sets the caps of both backends: each given cap replaces its default, each one left out is the
 * default again (so `setIterationCaps()` restores all three). The wasm kernels are set if `init()`
 * has completed; a later `init()` starts them at the defaults.
 * @throws {ArgumentError} a cap that is not an integer in [0, 1000]; nothing is changed then.
 */
export function setIterationCaps(caps: Partial<IterationCaps> = {}): void {
  const next = { ...DEFAULT_ITERATION_CAPS, ...caps };
  for (const key of Object.keys(DEFAULT_ITERATION_CAPS) as (keyof IterationCaps)[]) {
    const v = next[key];
    if (!Number.isInteger(v) || v < 0 || v > 1000)
      throw new ArgumentError(`caps.${key}`, v, 'must be an integer in [0, 1000]');
  }
  Object.assign(iterationCaps, next);
  if (isInitialized()) wasm().exports.setIterationCaps(next.secular, next.dqdsPerValue, next.qlPerValue);
}
