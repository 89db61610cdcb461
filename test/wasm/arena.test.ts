import { beforeAll, describe, expect, it } from 'vitest';
import { init, wasm } from '../../src/wasm/module.js';
import { F64Block, I32Block, I32_POISON, WASM32_MAX_BYTES } from '../../src/wasm/arena.js';
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

describe('I32Block: the i32 counterpart of F64Block', () => {
  it('alloc/free: 16-byte aligned, 4 bytes a value, shares the free list with f64 blocks', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    const a = arena.allocI32(5, 3);
    const f = arena.alloc(2, 1);
    const b = arena.fromI32([1, -2, 2 ** 31 - 1]);
    expect(a).toBeInstanceOf(I32Block);
    expect(a.ptr % 16).toBe(0);
    expect(b.ptr % 16).toBe(0);
    expect(a.bytes).toBe(32); // 5·4 = 20, aligned up
    expect(Array.from(a.view)).toEqual([3, 3, 3, 3, 3]);
    expect(Array.from(b.toInt32Array())).toEqual([1, -2, 2 ** 31 - 1]);
    expect(() => b.set([1, 2])).toThrow(/src = .*length 3/);
    arena.free(a);
    const c = arena.alloc(4); // an f64 block fits in the i32 block's hole
    expect(c.ptr).toBe(a.ptr);
    arena.free(c);
    arena.free(f);
    arena.free(b);
    expect(arena.bytesInUse).toBe(start);
    expect(() => arena.free(b)).toThrow(/I32Block freed twice/);
    expect(() => b.view).toThrow(/I32Block used after free/);
    expect(() => arena.allocI32(-1)).toThrow(/length = -1: .*i32 values/);
  });

  it('the view is re-taken after memory growth, and works with Atomics (shared memory)', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    const a = arena.allocI32(4, 9);
    const before = a.view;
    const big = arena.alloc(Math.ceil(arena.memoryBytes / 8) + 1024);
    try {
      expect(a.view).not.toBe(before);
      expect(a.view.buffer.byteLength).toBe(arena.memoryBytes);
      expect(Array.from(a.view)).toEqual([9, 9, 9, 9]);
      expect(Atomics.add(a.view, 1, 1)).toBe(9);
      expect(Atomics.load(a.view, 1)).toBe(10);
    } finally {
      arena.free(big);
      arena.free(a);
    }
    expect(arena.bytesInUse).toBe(start);
  });

  it('under test, an i32 block allocated without fill starts as I32_POISON; scope frees i32 blocks too', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    arena.scope((s) => s.allocI32(64, 7)); // leave 7s behind
    arena.scope((s) => {
      expect(Array.from(s.allocI32(64).view).every((v) => v === I32_POISON)).toBe(true);
      expect(Array.from(s.allocI32(3, 0).view)).toEqual([0, 0, 0]);
      expect(Array.from(s.fromI32([4, 5]).view)).toEqual([4, 5]);
    });
    expect(arena.bytesInUse).toBe(start);
    // wasm32 wraps offsets mod 2^32: the poison scaled by 1, 4, 8, 16 stays far above any memory
    for (const scale of [1, 4, 8, 16]) expect((I32_POISON * scale) % 2 ** 32).toBeGreaterThanOrEqual(2 ** 30 * 1.875);
  });

  it('offsetOf finds an i32 block (or a subarray of it) in place and refuses a freed one', () => {
    const { arena } = wasm();
    const a = arena.allocI32(8, 0);
    try {
      expect(arena.offsetOf('T', a.view)).toBe(a.ptr);
      expect(arena.offsetOf('T', a.view.subarray(3))).toBe(a.ptr + 12);
      expect(arena.offsetOf('T', new Int32Array(8))).toBeUndefined();
    } finally {
      arena.free(a);
    }
    expect(() => arena.offsetOf('T', new Int32Array(arena.buffer, a.ptr, 8))).toThrow(/^T = .*not allocated/);
  });
});

describe('Symbol.dispose', () => {
  it('exists at runtime (Node >= 18.18 / 20.4: no polyfill needed)', () => {
    expect(typeof Symbol.dispose).toBe('symbol');
  });

  it('`using` frees a block at the end of its block, also when the body throws; disposing after free is a no-op', () => {
    const { arena } = wasm();
    const start = arena.bytesInUse;
    let f: F64Block | undefined;
    let i: I32Block | undefined;
    {
      using a = arena.alloc(10, 1);
      using b = arena.allocI32(10, 1);
      f = a;
      i = b;
      expect(arena.bytesInUse).toBeGreaterThan(start);
    }
    expect(f.freed && i.freed).toBe(true);
    expect(arena.bytesInUse).toBe(start);
    expect(() => {
      using a = arena.alloc(10);
      f = a;
      throw new Error('boom');
    }).toThrow('boom');
    expect(f.freed).toBe(true);
    expect(arena.bytesInUse).toBe(start);
    {
      using a = arena.alloc(3);
      arena.free(a); // explicit free inside: the end of the block does not free twice
    }
    expect(arena.bytesInUse).toBe(start);
  });
});
