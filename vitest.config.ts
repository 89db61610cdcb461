import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The machine has 2 cores; forks isolate wasm memories between files.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // Uninitialised wasm arena blocks start as NaN in tests (src/wasm/arena.ts): a kernel that
    // reads memory it never wrote then fails instead of passing on leftover zeros.
    env: { ORDERGAP_POISON_ARENA: '1' },
    hookTimeout: 60_000,
  },
});
