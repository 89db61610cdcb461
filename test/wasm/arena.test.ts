import { beforeAll, describe, expect, it } from 'vitest';
import { init, wasm } from '../../src/wasm/module.js';
import { WASM32_MAX_BYTES } from '../../src/wasm/arena.js';
import { ArgumentError } from '../../src/util/errors.js';

beforeAll(async () => {
  await init();
});

describe('wasm module and arena', () => {
  it('init is idempotent and returns the same runtime', async () => {
    const a = await init();
    const b = await init();
    expect(a).toBe(b);
    expect(a.arena.base % 16).toBe(0);
  });

  it('alloc/free returns the arena to its starting size and reuses space', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    const a = arena.alloc(10, 1);
    const b = arena.alloc(3, 2);
    const c = arena.alloc(100, 3);
    expect(a.ptr % 16).toBe(0);
    expect(b.ptr % 16).toBe(0);
    expect(Array.from(b.view)).toEqual([2, 2, 2]);
    arena.free(b);
    const d = arena.alloc(2); // fits in b's hole
    expect(d.ptr).toBe(b.ptr);
    arena.free(a);
    arena.free(c);
    arena.free(d);
    expect(arena.bytesInUse).toBe(start);
  });

  it('under test, a block allocated without fill starts as NaN (reused memory included); fill still fills', () => {
    const { arena } = wasm();
    expect(arena.poisonUninitialized).toBe(true); // ORDERGAP_POISON_ARENA=1 from vitest.config.ts
    arena.scope((s) => s.alloc(64, 7)); // leave 7s behind in memory the next block reuses
    arena.scope((s) => {
      expect(Array.from(s.alloc(64).view).every(Number.isNaN)).toBe(true);
      expect(Array.from(s.alloc(5, 0).view)).toEqual([0, 0, 0, 0, 0]);
      expect(Array.from(s.from([1, 2]).view)).toEqual([1, 2]);
    });
  });

  it('double free and use after free are errors', () => {
    const { arena } = wasm();
    const a = arena.alloc(4);
    arena.free(a);
    expect(() => arena.free(a)).toThrow(/freed twice/);
    expect(() => a.view).toThrow(/after free/);
  });

  it('views are re-taken after memory growth', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    const a = arena.alloc(8, 7);
    const before = a.view;
    const bytesBefore = arena.memoryBytes;
    // Force growth by more than the current memory.
    const big = arena.alloc(Math.ceil(bytesBefore / 8) + 1024);
    expect(arena.memoryBytes).toBeGreaterThan(bytesBefore);
    const after = a.view;
    expect(after.buffer.byteLength).toBe(arena.memoryBytes);
    expect(before.buffer.byteLength).toBeLessThan(after.buffer.byteLength);
    expect(Array.from(after)).toEqual(new Array(8).fill(7));
    arena.free(big);
    arena.free(a);
    expect(arena.bytesInUse).toBe(start);
  });

  it('refuses a request wasm32 cannot hold before trying, changing nothing', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    const mem = arena.memoryBytes;
    const n = WASM32_MAX_BYTES / 8; // 4 GiB of doubles: more than the space above the base
    expect(() => arena.alloc(n)).toThrow(ArgumentError);
    expect(() => arena.alloc(n)).toThrow(/length = 536870912: .*4 GiB/);
    expect(arena.bytesInUse).toBe(start);
    expect(arena.memoryBytes).toBe(mem);
  });

  it('rejects a negative or fractional length', () => {
    const { arena } = wasm();
    expect(() => arena.alloc(-1)).toThrow(/length = -1/);
    expect(() => arena.alloc(1.5)).toThrow(/length = 1.5/);
  });

  it('scope frees its blocks even when the body throws', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    expect(() =>
      arena.scope((s) => {
        s.alloc(100);
        s.from([1, 2, 3]);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(arena.bytesInUse).toBe(start);
  });

  it('offsetOf: a live block, or a subarray of it, is found in place; other arrays are foreign; freed memory is an error', () => {
    const { arena } = wasm();
    const a = arena.alloc(10, 1);
    const b = arena.alloc(6, 2);
    try {
      expect(arena.offsetOf('A', a.view)).toBe(a.ptr);
      expect(arena.offsetOf('A', b.view.subarray(2, 5))).toBe(b.ptr + 16);
      expect(arena.offsetOf('A', new Float64Array(6))).toBeUndefined();
      // a hand-made window spanning both blocks touches only allocated memory
      const span = new Float64Array(arena.buffer, a.ptr, (b.ptr - a.ptr) / 8 + 6);
      expect(arena.offsetOf('A', span)).toBe(a.ptr);
      const stale = a.view;
      arena.free(a);
      expect(() => arena.offsetOf('X', stale)).toThrow(ArgumentError);
      expect(() => arena.offsetOf('X', stale)).toThrow(/^X = .*not allocated/);
      expect(() => arena.offsetOf('X', span)).toThrow(/not allocated/); // half of it is free now
      // beyond the top of the arena, and below its base (the module's static data)
      const top = new Float64Array(arena.buffer, b.ptr + b.bytes, 2);
      expect(() => arena.offsetOf('X', top)).toThrow(/not allocated/);
      expect(() => arena.offsetOf('X', new Float64Array(arena.buffer, 0, 2))).toThrow(/not allocated/);
    } finally {
      if (!a.freed) arena.free(a);
      arena.free(b);
    }
  });
});
