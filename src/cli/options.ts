/**
 * Parsers for CLI option values. Each throws commander's InvalidArgumentError, which the
 * program turns into a one-line message and exit status 2.
 */
import { InvalidArgumentError } from 'commander';
import { reportJson } from '../report/json.js';

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

/** A seed: an integer in [0, 2^32). */
export function parseSeed(value: string): number {
  const x = parseIntAtLeast(0)(value);
  if (x >= 2 ** 32) throw new InvalidArgumentError(`'${value}' must be < 2^32.`);
  return x;
}

/** Prints a report's `--json` document ({@link reportJson}). */
export function printJson(value: unknown): void {
  process.stdout.write(reportJson(value) + '\n');
}
