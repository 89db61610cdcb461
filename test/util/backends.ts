/**
 * The one list of backends the blas1, linalg and graph suites run over (STYLE.md, "Same suite
 * over both implementations"): each area's backends by name, rows `[name, backend]` for
 * `describe.each`, and {@link describeBackends}, which runs a block once per backend with the
 * wasm kernels loaded before its tests.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { referenceBlas1, wasmBlas1, type Blas1Backend } from '../../src/blas1/backend.js';
import { graphBackends, type GraphBackend } from '../../src/graph/operators/backend.js';
import { referenceLinalg, type LinalgBackend } from '../../src/linalg/backend.js';
import { stopThreads } from '../../src/linalg/threads.js';
import { startThreads } from '../../src/linalg/threadChoice.js';
import { wasmLinalg } from '../../src/linalg/wasmBackend.js';
import type { BackendName, Backends } from '../../src/wasm/backend.js';
import { init } from '../../src/wasm/module.js';

/** `describe.each` rows: the backend's name (for `{ backend: name }` and `%s`) and the backend itself. */
export type BackendRows<B> = readonly (readonly [BackendName, B])[];

/** The linalg kernels by name. */
export const LINALG: Backends<LinalgBackend> = { reference: referenceLinalg, wasm: wasmLinalg };

/** The BLAS-1 kernels by name. */
export const BLAS1: Backends<Blas1Backend> = { reference: referenceBlas1, wasm: wasmBlas1 };

/** The f64 forms of the reference graph's operators by name. */
export const GRAPH: Backends<GraphBackend> = graphBackends;

/** The linalg backends as `describe.each` rows: reference, then wasm. */
export const LINALG_BACKENDS: BackendRows<LinalgBackend> = [
  ['reference', referenceLinalg],
  ['wasm', wasmLinalg],
];

/** The BLAS-1 backends as `describe.each` rows: reference, then wasm. */
export const BLAS1_BACKENDS: BackendRows<Blas1Backend> = [
  ['reference', referenceBlas1],
  ['wasm', wasmBlas1],
];

/**
 * `describe.each(rows)(title, body)` with `await init()` before the block's tests, so the wasm
 * rows (and the default backend) have their kernels. `title` formats the name with `%s`.
 */
export function describeBackends<B>(
  rows: BackendRows<B>,
  title: string,
  body: (name: BackendName, backend: B) => void,
): void {
  describe.each(rows.map(([name, backend]) => [name, backend] as [BackendName, B]))(title, (name, backend) => {
    beforeAll(async () => {
      await init();
    });
    body(name, backend);
  });
}

/** Runs the enclosing block's tests with a worker pool of `threads` threads (started before, stopped after). */
export function usePool(threads: number): void {
  beforeAll(async () => {
    await init();
    await startThreads(threads);
  });
  afterAll(async () => {
    await stopThreads();
  });
}
