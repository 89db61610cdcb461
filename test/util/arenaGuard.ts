/**
 * Loads the wasm kernels before a test file and asserts after every test that the arena is back
 * at its starting size (every kernel call frees its temporaries — STYLE.md, "One owner of wasm
 * memory"). Uninitialised arena blocks are NaN in every test run (vitest.config.ts).
 */
import { afterEach, beforeAll, expect } from 'vitest';
import { init, wasm } from '../../src/wasm/module.js';

/** Registers the beforeAll/afterEach hooks in the calling test file. */
export function useArenaGuard(): void {
  let arenaStart = 0;
  beforeAll(async () => {
    await init();
    arenaStart = wasm().arena.bytesInUse;
  });
  afterEach(() => {
    expect(wasm().arena.bytesInUse).toBe(arenaStart);
  });
}
