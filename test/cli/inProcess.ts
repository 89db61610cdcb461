// Runs the CLI in this process (runCli, as main.ts does) and captures what it writes to stdout
// and stderr, with the wall time and the growth of the resident set during the call.
import { runCli } from '../../src/cli/program.js';

/** What one invocation printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  rssGrowth: number;
}

let busy = false;

/** `ordergap ...args` in process; calls are serialised (stdout/stderr are process-wide). */
export async function cli(...args: string[]): Promise<CliResult> {
  if (busy) throw new Error('cli(): one invocation at a time');
  busy = true;
  const out: string[] = [];
  const err: string[] = [];
  const wOut = process.stdout.write.bind(process.stdout);
  const wErr = process.stderr.write.bind(process.stderr);
  const capture =
    (sink: string[]) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    };
  process.stdout.write = capture(out) as typeof process.stdout.write;
  process.stderr.write = capture(err) as typeof process.stderr.write;
  const rss0 = process.memoryUsage.rss();
  const t0 = performance.now();
  let code: number;
  try {
    code = await runCli(['node', 'ordergap', ...args]);
  } finally {
    process.stdout.write = wOut;
    process.stderr.write = wErr;
    busy = false;
  }
  return {
    code,
    stdout: out.join(''),
    stderr: err.join(''),
    ms: performance.now() - t0,
    rssGrowth: process.memoryUsage.rss() - rss0,
  };
}
