import { defineConfig } from 'vitest/config';

/**
 * The suites that take minutes rather than seconds, run by `npm run test:slow` (and by .ci/run
 * after `npm test`), not by `npm test`: the published package installed into a fresh consumer
 * and type-checked, the order-gap default re-derived on 1000 synthetic items, a run report at
 * Nmax = 65536, and the fuzz properties on their long budget (test/fuzz/budget.ts; `npm test` runs them on the short one).
 */
const SLOW = ['test/package/**/*.test.ts', 'test/lab/calibrate.test.ts', 'test/report/largeRun.test.ts'];

/** The kernel build the suites load by default (src/wasm/module.ts, `init({ kernels })`). */
const KERNELS = process.env.ORDERGAP_KERNELS ?? 'plain';

export default defineConfig({
  test: {
    // The machine has 2 cores; forks isolate wasm memories between files.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // Uninitialised wasm arena blocks start as NaN in tests (src/wasm/arena.ts): a kernel that
    // reads memory it never wrote then fails instead of passing on leftover zeros.
    // The suites run the plain kernels, whose bits the bit-identity tests pin down, unless
    // ORDERGAP_KERNELS says otherwise; test/linalg/fma.test.ts runs the FMA build itself.
    env: { ORDERGAP_POISON_ARENA: '1', ORDERGAP_KERNELS: KERNELS },
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      {
        extends: true,
        test: {
          name: 'slow',
          include: [...SLOW, 'test/fuzz/**/*.test.ts'],
          env: { ORDERGAP_POISON_ARENA: '1', ORDERGAP_KERNELS: KERNELS, FUZZ_BUDGET: 'long' },
        },
      },
    ],
  },
});
