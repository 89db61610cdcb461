/**
 * The commands' progress bars on stderr (cli-progress), shown only on a terminal and never with
 * `--json` (the callers decide). A bar that ends because its work is done ends full: at
 * total/total, or at done/done for work that ended before its budget (a run that stops at step 17
 * of 100 took 17 steps, all of its work).
 */
import { SingleBar } from 'cli-progress';

/** One progress bar; started by the first {@link ProgressBar.update}. */
export class ProgressBar {
  readonly #format: string;
  readonly #stream: NodeJS.WritableStream;
  #bar: SingleBar | null = null;
  #total = 0;

  /** `format` is cli-progress's (`{bar}`, `{value}`, `{total}`, `{duration_formatted}`, payload names). */
  constructor(format: string, stream: NodeJS.WritableStream = process.stderr) {
    this.#format = format;
    this.#stream = stream;
  }

  /** Whether the bar is showing. */
  get started(): boolean {
    return this.#bar !== null;
  }

  /** Shows `done` of `total` (and the payload's fields). */
  update(done: number, total: number, payload: Record<string, string> = {}): void {
    if (this.#bar === null) {
      this.#bar = new SingleBar({ format: this.#format, stream: this.#stream }, undefined);
      this.#bar.start(total, done, payload);
    } else {
      if (total !== this.#total) this.#bar.setTotal(total);
      this.#bar.update(done, payload);
    }
    this.#total = total;
  }

  /**
   * The work is done: the bar shows total/total, or done/done when `done` is given, and stops.
   * Nothing happens when the bar never started.
   */
  finish(done?: number, payload: Record<string, string> = {}): void {
    if (this.#bar === null) return;
    const total = done ?? this.#total;
    this.#bar.setTotal(total);
    this.#bar.update(total, payload);
    this.stop();
  }

  /** Stops the bar where it is (the work failed or was cut short). */
  stop(): void {
    this.#bar?.stop();
    this.#bar = null;
  }
}
