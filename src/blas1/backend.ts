/**
 * The BLAS-1 set behind one interface, in two implementations that the same test suite runs
 * over: `reference` (pure TypeScript) and `wasm` (assembly/blas1 over the arena). Both are
 * unchecked: lengths are assumed to match; use the validating functions in ./api.ts.
 */
import type { BackendName } from '../wasm/backend.js';
import { wasm } from '../wasm/module.js';
import { referenceAxpy } from './daxpy.js';
import { referenceCopy } from './dcopy.js';
import { referenceDistance, referenceNorm } from './dnrm2.js';

/** The BLAS-1 routines the order-gap needs. */
export interface Blas1Backend {
  readonly name: BackendName;
  /** ||x||_2 (overflow-safe). */
  norm(x: Float64Array): number;
  /** ||x - y||_2 (overflow-safe). */
  distance(x: Float64Array, y: Float64Array): number;
  /** y <- a x + y, in place. */
  axpy(a: number, x: Float64Array, y: Float64Array): void;
  /** y <- x, in place. */
  copy(x: Float64Array, y: Float64Array): void;
}

/** Pure-TypeScript reference implementation. */
export const referenceBlas1: Blas1Backend = {
  name: 'reference',
  norm: referenceNorm,
  distance: referenceDistance,
  axpy: referenceAxpy,
  copy: referenceCopy,
};

/** WebAssembly implementation: copies operands into the arena, runs the kernel, copies back. */
export const wasmBlas1: Blas1Backend = {
  name: 'wasm',
  norm(x) {
    const { arena, exports } = wasm();
    return arena.scope((s) => exports.dnrm2(x.length, s.from(x).ptr, 1));
  },
  distance(x, y) {
    const { arena, exports } = wasm();
    return arena.scope((s) => exports.ddist(x.length, s.from(x).ptr, s.from(y).ptr));
  },
  axpy(a, x, y) {
    const { arena, exports } = wasm();
    arena.scope((s) => {
      const by = s.from(y);
      exports.daxpy(y.length, a, s.from(x).ptr, 1, by.ptr, 1);
      y.set(by.view);
    });
  },
  copy(x, y) {
    const { arena, exports } = wasm();
    arena.scope((s) => {
      const by = s.alloc(y.length);
      exports.dcopy(y.length, s.from(x).ptr, 1, by.ptr, 1);
      y.set(by.view);
    });
  },
};
