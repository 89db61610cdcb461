/**
 * Parsers for CLI option values. Each throws commander's InvalidArgumentError, which the
 * program turns into a one-line message and exit status 2.
 */
import { InvalidArgumentError } from 'commander';

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

/** Prints a JSON document (Float64Arrays as arrays, numbers unrounded). */
export function printJson(value: unknown): void {
  process.stdout.write(
    JSON.stringify(value, (_k, v: unknown) => (v instanceof Float64Array ? Array.from(v) : v), 2) + '\n',
  );
}
