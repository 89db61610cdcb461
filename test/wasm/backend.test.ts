/** The one backend selector (src/wasm/backend.ts) and the areas that choose through it. */
import { describe, expect, it } from 'vitest';
import { norm } from '../../src/blas1/api.js';
import { gram } from '../../src/linalg/api.js';
import { StreamingQR } from '../../src/linalg/streamingQR.js';
import { selectBackend } from '../../src/wasm/backend.js';
import { isInitialized } from '../../src/wasm/module.js';
import { useArenaGuard } from '../util/arenaGuard.js';

useArenaGuard();

const pair = { reference: 'the reference', wasm: 'the wasm kernels' };

describe('selectBackend', () => {
  it('returns the named implementation, and wasm by default once init() has completed', () => {
    expect(selectBackend(pair, 'reference')).toBe('the reference');
    expect(selectBackend(pair, 'wasm')).toBe('the wasm kernels');
    expect(isInitialized()).toBe(true);
    expect(selectBackend(pair, undefined)).toBe('the wasm kernels');
  });

  it('an unknown name is one error naming options.backend and its value, the same in every area', () => {
    const message = /^options\.backend = "gpu": must be 'wasm' or 'reference'$/;
    expect(() => selectBackend(pair, 'gpu')).toThrow(message);
    expect(() => norm([1], { backend: 'gpu' as never })).toThrow(message);
    expect(() => gram([1], 1, 1, { backend: 'gpu' as never })).toThrow(message);
    expect(() => new StreamingQR(2, { backend: 'gpu' as never })).toThrow(message);
    expect(() => selectBackend(pair, 3)).toThrow(/^options\.backend = 3: must be/);
  });
});
