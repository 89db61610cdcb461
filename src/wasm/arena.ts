/**
 * The memory arena: the only code that hands out regions of the WebAssembly memory.
 *
 * Kernels in assembly/ see byte offsets ("pointers"); TypeScript sees typed blocks, each a
 * 16-byte-aligned run of values of one type: {@link F64Block} (f64 data) and {@link I32Block}
 * (i32 index tables and counters). Growth of the memory replaces its `buffer`, so a block's `view`
 * re-takes its typed array whenever the buffer changed; never keep a raw view across a call that
 * may allocate, and never build one over the whole memory. Temporaries are freed in `finally` via
 * {@link Arena.scope}; a block held longer is freed by {@link Arena.free} or, with
 * `using b = arena.alloc(n)`, at the end of the enclosing block on every path (blocks are
 * Disposable; `Symbol.dispose` is built into Node since 18.18 and 20.4, below the package's
 * `engines`, so nothing is polyfilled — test/wasm/arena.test.ts checks it is there).
 *
 * Allocation is first-fit over a free list kept sorted by address, with coalescing on free, so
 * {@link Arena.bytesInUse} returns to its starting value once every block is freed (tests assert
 * this after every kernel call).
 */
import { ArgumentError } from '../util/errors.js';

/** Bytes in one WebAssembly page. */
export const WASM_PAGE_BYTES = 65536;
/** wasm32 addresses are 32-bit: a memory holds at most 65536 pages = 4 GiB. */
export const WASM32_MAX_BYTES = 65536 * WASM_PAGE_BYTES;
/** Alignment of every block (bytes): f64x2 loads and stores want 16. */
const ALIGN = 16;

const alignUp = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;

function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  return `${n} B`;
}

/** A typed array over wasm memory that an {@link ArenaBlock} hands out. */
export type BlockView = Float64Array | Int32Array;

/**
 * What {@link F64Block} and {@link I32Block} share: a 16-byte-aligned run of values of one type
 * in wasm memory, its view re-taken whenever the memory grew, returned to the arena by
 * {@link Arena.free}, by `[Symbol.dispose]()` (so `using b = arena.alloc(n)` frees it at the end
 * of the enclosing block, on every path) or by the {@link Arena.scope} that allocated it.
 */
export abstract class ArenaBlock<V extends BlockView = BlockView> {
  #view: V | undefined;
  #freed = false;
  constructor(
    private readonly arena: Arena,
    /** Byte offset of the first value (16-byte aligned). */
    readonly ptr: number,
    /** Number of values. */
    readonly length: number,
    /** Bytes reserved (aligned). */
    readonly bytes: number,
  ) {}

  /** The class name used in error messages. */
  protected abstract get kind(): string;

  /** Creates the typed view over `buf` (called again after growth replaced the buffer). */
  protected abstract viewOf(buf: ArrayBuffer | SharedArrayBuffer): V;

  /** A typed array over the block, re-taken if the memory grew since the last call. */
  get view(): V {
    if (this.#freed) throw new Error(`${this.kind} used after free`);
    const buf = this.arena.buffer;
    if (this.#view === undefined || this.#view.buffer !== buf) this.#view = this.viewOf(buf);
    return this.#view;
  }

  /** True once the block was returned to the arena. */
  get freed(): boolean {
    return this.#freed;
  }

  /**
   * The byte offset of value `index` (0 <= index <= length; `length` is one past the end), for a
   * kernel that takes a pointer into the block: no byte offsets computed by hand.
   * @throws {ArgumentError} index not an integer in [0, length].
   */
  ptrAt(index: number): number {
    if (!(Number.isInteger(index) && index >= 0 && index <= this.length))
      throw new ArgumentError('index', index, `must be an integer in [0, ${this.length}]`);
    return this.ptr + index * this.BYTES_PER_ELEMENT;
  }

  /** Bytes per value (8 for f64, 4 for i32). */
  protected abstract get BYTES_PER_ELEMENT(): number;

  /** Copies `src` into the block (lengths must match). */
  set(src: ArrayLike<number>): this {
    if (src.length !== this.length) throw new ArgumentError('src', src, `must have length ${this.length}`);
    this.view.set(src);
    return this;
  }

  /**
   * Returns the block to its arena unless that already happened (by {@link Arena.free} or a
   * scope): the `using` declaration's hook, safe after an explicit free.
   */
  [Symbol.dispose](): void {
    if (!this.#freed) this.arena.free(this);
  }

  /** @internal */
  markFreed(): void {
    if (this.#freed) throw new Error(`${this.kind} freed twice`);
    this.#freed = true;
    this.#view = undefined;
  }
}

/** A run of f64 values in wasm memory. `ptr` is a byte offset; `length` counts f64 values. */
export class F64Block extends ArenaBlock<Float64Array> {
  protected get kind(): string {
    return 'F64Block';
  }

  protected get BYTES_PER_ELEMENT(): number {
    return 8;
  }

  protected viewOf(buf: ArrayBuffer | SharedArrayBuffer): Float64Array {
    return new Float64Array(buf, this.ptr, this.length);
  }

  /** A copy of the block's values in ordinary JS memory. */
  toFloat64Array(): Float64Array {
    return Float64Array.from(this.view);
  }
}

/**
 * A run of i32 values in wasm memory (index tables, counters the kernels read atomically): the
 * same contract as {@link F64Block} — 16-byte aligned, view re-taken after growth, freed once —
 * so an i32 table never travels through an f64 block or a hand-made view of the whole memory.
 * `ptr` is a byte offset; `length` counts i32 values.
 */
export class I32Block extends ArenaBlock<Int32Array> {
  protected get kind(): string {
    return 'I32Block';
  }

  protected get BYTES_PER_ELEMENT(): number {
    return 4;
  }

  protected viewOf(buf: ArrayBuffer | SharedArrayBuffer): Int32Array {
    return new Int32Array(buf, this.ptr, this.length);
  }

  /** A copy of the block's values in ordinary JS memory. */
  toInt32Array(): Int32Array {
    return Int32Array.from(this.view);
  }
}

/**
 * What an uninitialised {@link I32Block} holds under {@link Arena.poisonUninitialized}
 * (0x78000000): used as a count it is huge, and used as an index scaled by 1, 4, 8 or 16 bytes it
 * lands at or above 1.875 GiB (wasm32 arithmetic wraps ×4, ×8 and ×16 to 3.5, 3 and 2 GiB), beyond
 * any memory the tests grow to, so a kernel that reads an entry nobody wrote traps with
 * "memory access out of bounds" instead of reading a plausible slot. (i32 has no NaN; the
 * smallest i32, −2³¹, would be a bad choice: ×8 wraps to 0, the first slot.)
 */
export const I32_POISON = 0x78000000;

/** A set of temporaries freed together (see {@link Arena.scope}). */
export interface ArenaScope {
  /** Allocates `length` f64 values (contents unspecified unless `fill` is given). */
  alloc(length: number, fill?: number): F64Block;
  /** Allocates a block holding a copy of `src`. */
  from(src: ArrayLike<number>): F64Block;
  /** Allocates `length` i32 values (contents unspecified unless `fill` is given). */
  allocI32(length: number, fill?: number): I32Block;
  /** Allocates an i32 block holding a copy of `src` (integers; see {@link Arena.fromI32}). */
  fromI32(src: ArrayLike<number>): I32Block;
}

/** First-fit allocator over a WebAssembly.Memory, starting at `base`. */
export class Arena {
  #buffer: ArrayBuffer | SharedArrayBuffer;
  /** Free segments [start, size], sorted by start, never adjacent. */
  #free: Array<[number, number]> = [];
  /** First byte above every allocated or free segment. */
  #top: number;
  #inUse = 0;
  #peak = 0;

  constructor(
    /** The memory this arena owns. */
    readonly memory: WebAssembly.Memory,
    /** First byte the arena may hand out (above the module's static data). */
    readonly base: number,
  ) {
    this.#top = alignUp(base);
    this.#buffer = memory.buffer;
  }

  /**
   * Test aid: when true, blocks allocated without `fill` start as NaN instead of whatever the
   * memory held (zeros after growth, old values after reuse), so a kernel that reads memory it
   * never wrote shows NaN in its result instead of passing by luck. `init()` sets it from the
   * environment variable ORDERGAP_POISON_ARENA=1, which the test configuration sets
   * (vitest.config.ts); it costs one fill per allocation.
   */
  poisonUninitialized = false;

  /** The current buffer of the memory (changes after growth). */
  get buffer(): ArrayBuffer | SharedArrayBuffer {
    const b = this.memory.buffer;
    if (b !== this.#buffer) this.#buffer = b;
    return this.#buffer;
  }

  /** Bytes currently allocated (aligned sizes). */
  get bytesInUse(): number {
    return this.#inUse;
  }

  /** Largest {@link bytesInUse} seen since construction or the last {@link resetPeak}. */
  get peakBytes(): number {
    return this.#peak;
  }

  /** Resets {@link peakBytes} to the current use. */
  resetPeak(): void {
    this.#peak = this.#inUse;
  }

  /** Current size of the memory in bytes. */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * Allocates `length` f64 values. Refuses, before touching memory, any request that would push
   * the arena past what wasm32 can address (4 GiB).
   * @throws {ArgumentError} `length` not a non-negative integer, or beyond wasm32's 4 GiB.
   */
  alloc(length: number, fill?: number): F64Block {
    const [ptr, bytes] = this.#reserve(length, 8, 'f64');
    const block = new F64Block(this, ptr, length, bytes);
    if (fill !== undefined) block.view.fill(fill);
    else if (this.poisonUninitialized) block.view.fill(NaN);
    return block;
  }

  /**
   * Allocates `length` i32 values, under the same rules as {@link alloc} (alignment, the 4 GiB
   * refusal); under {@link poisonUninitialized} a block without `fill` starts as
   * {@link I32_POISON}.
   * @throws {ArgumentError} `length` not a non-negative integer, or beyond wasm32's 4 GiB.
   */
  allocI32(length: number, fill?: number): I32Block {
    const [ptr, bytes] = this.#reserve(length, 4, 'i32');
    const block = new I32Block(this, ptr, length, bytes);
    if (fill !== undefined) block.view.fill(fill);
    else if (this.poisonUninitialized) block.view.fill(I32_POISON);
    return block;
  }

  /**
   * The byte offset of `view` when it is a window onto this arena's memory (the view of an
   * F64Block or I32Block, or a subarray of one), else undefined: kernels then read it in place
   * instead of copying it in.
   * Call it before allocating anything: growth replaces the buffer, and a view taken before that
   * no longer matches (it stays valid, since the memory is shared, but is then treated as foreign
   * and copied, which is correct and only slower).
   * @param name argument name for the error message
   * @throws {ArgumentError} the view reaches into memory the arena has not handed out (a freed
   *   block, or a hand-made window): temporaries may be placed there during the very call.
   */
  offsetOf(name: string, view: BlockView): number | undefined {
    if (view.buffer !== this.buffer) return undefined;
    const start = view.byteOffset;
    const end = start + view.byteLength;
    const outside = start < alignUp(this.base) || end > this.#top;
    if (view.length > 0 && (outside || this.#free.some(([s, n]) => s < end && start < s + n))) {
      throw new ArgumentError(
        name,
        view,
        `is a view onto bytes [${start}, ${end}) of wasm memory, which are not allocated (a freed block?); ` +
          'pass a live F64Block or I32Block, or its view',
      );
    }
    return start;
  }

  /** Allocates a block holding a copy of `src`. */
  from(src: ArrayLike<number>): F64Block {
    return this.#filled(this.alloc(src.length), src);
  }

  /**
   * Allocates an i32 block holding a copy of `src`; values convert as `Int32Array.from` converts
   * them (pass integers in i32 range).
   */
  fromI32(src: ArrayLike<number>): I32Block {
    return this.#filled(this.allocI32(src.length), src);
  }

  /** Returns a block to the arena. Freeing twice is an error. */
  free(block: ArenaBlock): void {
    block.markFreed();
    this.#inUse -= block.bytes;
    let start = block.ptr;
    let size = block.bytes;
    // Insert sorted, coalescing with neighbours.
    let i = 0;
    while (i < this.#free.length && this.#free[i]![0] < start) i++;
    const prev = this.#free[i - 1];
    const next = this.#free[i];
    if (next !== undefined && start + size === next[0]) {
      size += next[1];
      this.#free.splice(i, 1);
    }
    if (prev !== undefined && prev[0] + prev[1] === start) {
      prev[1] += size;
      start = prev[0];
      size = prev[1];
    } else {
      this.#free.splice(i, 0, [start, size]);
    }
    // Give the top segment back to the bump region.
    const last = this.#free[this.#free.length - 1];
    if (last !== undefined && last[0] + last[1] === this.#top) {
      this.#top = last[0];
      this.#free.pop();
    }
  }

  /**
   * Runs `fn` with a scope whose allocations are all freed when `fn` returns or throws.
   * Blocks that must outlive the scope should be allocated with {@link alloc} instead.
   */
  scope<T>(fn: (s: ArenaScope) => T): T {
    const blocks: ArenaBlock[] = [];
    const keep = <B extends ArenaBlock>(b: B): B => {
      blocks.push(b);
      return b;
    };
    const s: ArenaScope = {
      alloc: (length, fill) => keep(this.alloc(length, fill)),
      from: (src) => keep(this.from(src)),
      allocI32: (length, fill) => keep(this.allocI32(length, fill)),
      fromI32: (src) => keep(this.fromI32(src)),
    };
    try {
      return fn(s);
    } finally {
      for (let i = blocks.length - 1; i >= 0; i--) {
        if (!blocks[i]!.freed) this.free(blocks[i]!);
      }
    }
  }

  /**
   * Reserves room for `length` values of `size` bytes: first fit in the free list, else above the
   * top (growing the memory). Returns [byte offset, aligned bytes].
   */
  #reserve(length: number, size: number, type: string): [number, number] {
    if (!Number.isInteger(length) || length < 0) {
      throw new ArgumentError('length', length, `must be a non-negative integer count of ${type} values`);
    }
    const bytes = alignUp(Math.max(length, 1) * size);
    let ptr = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const seg = this.#free[i]!;
      if (seg[1] >= bytes) {
        ptr = seg[0];
        if (seg[1] === bytes) this.#free.splice(i, 1);
        else {
          seg[0] += bytes;
          seg[1] -= bytes;
        }
        break;
      }
    }
    if (ptr < 0) {
      // Reuse a free segment that ends at the top, then extend.
      let start = this.#top;
      const last = this.#free[this.#free.length - 1];
      if (last !== undefined && last[0] + last[1] === this.#top) start = last[0];
      const end = start + bytes;
      if (end > WASM32_MAX_BYTES) {
        throw new ArgumentError(
          'length',
          length,
          `needs ${formatBytes(bytes)} of wasm memory but wasm32 can address at most 4 GiB ` +
            `(${formatBytes(this.#inUse)} in use); split the problem or use fewer/lower-dimensional blocks`,
        );
      }
      this.#ensure(end, length);
      if (start !== this.#top) this.#free.pop();
      ptr = start;
      this.#top = end;
    }
    this.#inUse += bytes;
    if (this.#inUse > this.#peak) this.#peak = this.#inUse;
    return [ptr, bytes];
  }

  /** Copies `src` into the new block `b`, freeing `b` if the copy throws. */
  #filled<B extends ArenaBlock>(b: B, src: ArrayLike<number>): B {
    try {
      b.view.set(src);
    } catch (e) {
      this.free(b);
      throw e;
    }
    return b;
  }

  #ensure(endByte: number, length: number): void {
    const have = this.memory.buffer.byteLength;
    if (endByte <= have) return;
    const pages = Math.ceil((endByte - have) / WASM_PAGE_BYTES);
    try {
      this.memory.grow(pages);
    } catch (e) {
      throw new ArgumentError(
        'length',
        length,
        `wasm memory could not grow by ${pages} pages to ${formatBytes(endByte)}: ${(e as Error).message}`,
      );
    }
  }
}
