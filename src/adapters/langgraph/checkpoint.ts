/**
 * Live objects kept as a cache of a checkpoint in a LangGraph graph state: a node's objects (an
 * AgentState, a stopper, a loop) equal the plain-JSON checkpoint of the graph state it last saw
 * or wrote, and are restored from the graph state's checkpoint only when it is another one — a
 * thread resumed by a new graph instance, another thread, an earlier checkpoint (time travel).
 */
import { Annotation } from '@langchain/langgraph';

/** A graph-state field whose last written value wins, null until one is written. */
export const lastValue = <T>() => Annotation<T | null>({ reducer: (_old, next) => next, default: () => null });

/** The live objects' snapshot and restore, and the cache of the checkpoint they equal. */
export class CheckpointCache<C> {
  readonly #snapshot: () => C;
  readonly #restore: (checkpoint: C) => void;
  /** The checkpoint of the objects' state when the cache was first synced: that of a thread without one. */
  #start: C | null = null;
  /** The checkpoint the objects equal, with its JSON once computed (null: unknown, after a run that threw). */
  #held: { checkpoint: C; json?: string } | null = null;

  /**
   * @param snapshot The objects' state as plain JSON.
   * @param restore Makes the objects' state that of a checkpoint (unchanged when it throws).
   */
  constructor(snapshot: () => C, restore: (checkpoint: C) => void) {
    this.#snapshot = snapshot;
    this.#restore = restore;
  }

  /**
   * Makes the objects those of `checkpoint` (the state they had at the first sync when null),
   * unless they already are: the very object they were last synced to or saved as is taken
   * without a look; another one is compared by its JSON and restored when it differs.
   * @throws as `restore` (the cache still holds what it held).
   */
  sync(checkpoint: C | null): void {
    if (this.#start === null) this.#held = { checkpoint: (this.#start = this.#snapshot()) };
    const want = checkpoint ?? this.#start;
    if (want === this.#held?.checkpoint) return;
    const json = JSON.stringify(want);
    const held = this.#held;
    if (held === null || json !== (held.json ??= JSON.stringify(held.checkpoint))) this.#restore(want);
    this.#held = { checkpoint: want, json };
  }

  /** The objects' checkpoint now, which they are then known to equal. */
  save(): C {
    this.#held = { checkpoint: this.#snapshot() };
    return this.#held.checkpoint;
  }

  /** Forgets what the objects equal (a run changed them and threw): the next sync restores. */
  forget(): void {
    this.#held = null;
  }
}
