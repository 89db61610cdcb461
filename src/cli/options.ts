/**
 * Parsers for CLI option values. Each throws commander's InvalidArgumentError, which the
 * program turns into a one-line message and exit status 2.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { reportJson } from '../report/json.js';
import { threadsText } from '../report/threads.js';
import { checkThreadRequest, type ThreadDecision, type ThreadRequest } from '../linalg/threadChoice.js';
import { checkDestinations } from '../util/destinations.js';
import { ArgumentError } from '../util/errors.js';

/** A finite number. */
export function parseFinite(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`'${value}' is not a finite number.`);
  return x;
}

/** A finite number > 0. */
export function parsePositive(value: string): number {
  const x = parseFinite(value);
  if (!(x > 0)) throw new InvalidArgumentError(`'${value}' must be > 0.`);
  return x;
}

/** An integer >= min. */
export function parseIntAtLeast(min: number): (value: string) => number {
  return (value: string) => {
    const x = Number(value);
    if (!/^[+-]?\d+$/.test(value.trim()) || !Number.isSafeInteger(x))
      throw new InvalidArgumentError(`'${value}' is not an integer.`);
    if (x < min) throw new InvalidArgumentError(`'${value}' must be >= ${min}.`);
    return x;
  };
}

/** `--threads`: 'auto' or an integer in [1, 64] (the library's check, `checkThreadRequest`). */
export function parseThreads(value: string): ThreadRequest {
  const v = value.trim();
  const x = /^[+-]?\d+$/.test(v) ? Number(v) : v;
  try {
    return checkThreadRequest('--threads', x);
  } catch {
    throw new InvalidArgumentError(`'${value}' must be 'auto' or an integer in [1, 64].`);
  }
}

/** Adds `--threads <auto|n>` (the worker pool the command's work runs on) to a command. */
export function threadsOption(command: Command): Command {
  return command.option(
    '--threads <auto|n>',
    'worker threads: a count, or auto (two if a short probe finds a second thread faster, else one); default 1',
    parseThreads,
  );
}

/** Writes the thread decision of a report that has one to stderr (`threads: …`). */
export function printThreads(decision: ThreadDecision | undefined): void {
  if (decision !== undefined) process.stderr.write(`threads: ${threadsText(decision)}\n`);
}

/** A seed: an integer in [0, 2^32). */
export function parseSeed(value: string): number {
  const x = parseIntAtLeast(0)(value);
  if (x >= 2 ** 32) throw new InvalidArgumentError(`'${value}' must be < 2^32.`);
  return x;
}

/** `--probabilities e2=0,e3=0` */
export function parseProbabilities(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const m = /^\s*([^=\s]+)\s*=\s*([^\s]+)\s*$/.exec(part);
    const p = m ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(p) || p < 0)
      throw new InvalidArgumentError(`'${part}' is not id=probability with a finite probability >= 0.`);
    if (Object.hasOwn(out, m[1]!))
      throw new InvalidArgumentError(`${m[1]} is given twice (${m[1]}=${out[m[1]!]} before).`);
    out[m[1]!] = p;
  }
  return out;
}

/** Prints a report's `--json` document ({@link reportJson}). */
export function printJson(value: unknown): void {
  process.stdout.write(reportJson(value) + '\n');
}

/** The output flags a command may have (each optional). */
export interface CommandDestinations {
  /** `--plot`: a folder, or (where the command accepts it) one `.svg` file. */
  plot?: string | undefined;
  /** `--report`: an HTML file. */
  report?: string | undefined;
  /** `--record`: a JSON file. */
  record?: string | undefined;
  /** Further file destinations by flag (e.g. `--record-states`). */
  files?: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks a command's output destinations before any work (src/util/destinations.ts): `--plot`
 * is a folder unless it ends in `.svg` and `svgFile` allows one file; `--report` and
 * `--record` are files.
 * @throws {ArgumentError} the first bad destination, naming its flag (exit status 2).
 */
export function checkCommandDestinations(d: CommandDestinations, options: { svgFile?: boolean } = {}): void {
  const plotIsFile = options.svgFile === true && d.plot !== undefined && /\.svg$/i.test(d.plot);
  checkDestinations([
    { flag: '--plot', path: d.plot, kind: plotIsFile ? 'file' : 'folder' },
    { flag: '--report', path: d.report, kind: 'file' },
    { flag: '--record', path: d.record, kind: 'file' },
    ...Object.entries(d.files ?? {}).map(([flag, path]) => ({ flag, path, kind: 'file' as const })),
  ]);
}

/**
 * Checks that the input-file flags that were given name a path: an empty or blank value is an
 * error (it must not fall back to a default input silently).
 * @throws {ArgumentError} naming the flag (exit status 2).
 */
export function checkInputPaths(inputs: Readonly<Record<string, string | undefined>>): void {
  for (const [flag, path] of Object.entries(inputs))
    if (path !== undefined && path.trim() === '') throw new ArgumentError(flag, path, 'must be a file path');
}

/**
 * The options that name a system, the same for every command that runs one (src/report/systems.ts
 * resolves them): `--system`, `--graph`/`--evidence` and `--probabilities`.
 */
export function systemOptions(command: Command): Command {
  return command
    .option('--system <name|FILE.mjs>', 'built-in system (reference-graph, closed-form) or an operator module file')
    .option('--graph <file>', 'graph JSON file of the reference graph (with --evidence)')
    .option('--evidence <file>', 'evidence pool JSON file of the reference graph (with --graph)')
    .option(
      '--probabilities <list>',
      'P(e) overrides for closed-form, e.g. e2=0,e3=0 (the Sec. 9.2 variant)',
      parseProbabilities,
    );
}

/**
 * Algorithm 1's parameters as options (src/system/runParams.ts): `--epsilon`, `--window`,
 * `--max-steps`, `--seed`, each with the command's words for what it sets.
 */
export function runParamOptions(
  command: Command,
  words: { epsilon: string; window: string; maxSteps: string; seed: string },
): Command {
  return command
    .option('--epsilon <number>', words.epsilon, parsePositive)
    .option('--window <n>', words.window, parseIntAtLeast(1))
    .option('--max-steps <n>', words.maxSteps, parseIntAtLeast(1))
    .option('--seed <n>', words.seed, parseSeed);
}
