import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress.js';
import { cli } from './inProcess.js';

/** A terminal that keeps what is written to it. */
class FakeTerminal extends Writable {
  readonly isTTY = true;
  readonly columns = 200;
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

/** Terminal escape sequences: ESC [ … letter (cursor, line wrap), ESC 7 and ESC 8 (save, restore). */
const ESCAPE = new RegExp(String.fromCharCode(27) + '(\\[[0-9;?]*[A-Za-z]|[78])', 'g');

/** The bar's frames as drawn (cli-progress starts each at column 1), escape sequences removed. */
function frames(text: string): string[] {
  return text
    .split('\x1b[1G')
    .map((f) => f.replace(ESCAPE, '').replace(/\r/g, ''))
    .map((f) => f.trim())
    .filter((f) => f.includes('['));
}

describe('ProgressBar', () => {
  it('ends full: at total/total, or at done/done for work that ended before its budget', () => {
    const t = new FakeTerminal();
    const bar = new ProgressBar('phase [{bar}] {value}/{total}', t);
    bar.update(0, 3);
    bar.update(2, 3);
    bar.finish();
    expect(frames(t.text).at(-1)).toMatch(/\[=+\] 3\/3$/);

    const u = new FakeTerminal();
    const run = new ProgressBar('run [{bar}] {value}/{total} {what}', u);
    run.update(12, 100, { what: 'steps' });
    run.finish(17, { what: 'done' });
    expect(frames(u.text).at(-1)).toMatch(/\[=+\] 17\/17 done$/);
  });

  it('stop() leaves a failed bar where it was; a bar never started writes nothing', () => {
    const t = new FakeTerminal();
    const bar = new ProgressBar('[{bar}] {value}/{total}', t);
    bar.update(1, 4);
    bar.stop();
    expect(frames(t.text).at(-1)).toMatch(/ 1\/4$/);
    const quiet = new FakeTerminal();
    new ProgressBar('[{bar}] {value}/{total}', quiet).finish();
    expect(quiet.text).toBe('');
  });
});

describe('the commands end their bars full on a terminal', () => {
  const wasTty = process.stderr.isTTY;
  afterEach(() => {
    process.stderr.isTTY = wasTty;
  });

  it('certify: every phase ends at n/n (it ended at n − 1: 0/1, 2/3)', async () => {
    process.stderr.isTTY = true;
    const r = await cli('certify', '--system', 'closed-form');
    expect(r.code, r.stderr).toBe(0);
    const phases = new Map<string, string>();
    for (const f of frames(r.stderr)) phases.set(f.split('[')[0]!.trim(), f);
    expect(phases.size).toBeGreaterThan(3);
    for (const [phase, last] of phases) {
      const [, done, total] = /(\d+)\/(\d+)$/.exec(last)!;
      expect(done, `${phase}: ${last}`).toBe(total);
    }
  }, 120_000);

  it('run: the bar ends full at the steps the run took, past the time it took to build the state', async () => {
    process.stderr.isTTY = true;
    const r = await cli('run', '--synthetic', '4096');
    expect(r.code, r.stderr).toBe(0);
    const stop = Number(/Algorithm 1 stops at step (\d+)/.exec(r.stdout)![1]);
    const shown = frames(r.stderr);
    expect(shown.some((f) => f.includes('building the graph and its state'))).toBe(true);
    expect(shown.at(-1)).toMatch(new RegExp(`^Algorithm 1 \\[=+\\] ${stop}/${stop} steps, \\d+s$`));
  }, 120_000);
});
