/**
 * Argument errors. Every validation failure in the package throws one of these: the message
 * starts with the argument's name and shows the offending value, and the fields `argument` and
 * `value` carry the same information for programs.
 */

/**
 * The longest string {@link describeValue} shows whole as the value of a named argument: Linux's
 * PATH_MAX, so every path the operating system accepts (a file argument in a deep checkout
 * included) appears in full.
 */
export const MAX_SHOWN_STRING = 4096;

/**
 * The characters of a value found inside an input (a line of a samples file, a field of a graph
 * document) that an error message shows: enough to recognise the line or field, short enough
 * that the message stays one readable line whatever the input holds.
 */
export const MAX_SHOWN_EXCERPT = 80;

/** How {@link describeValue} shows a string. */
export interface DescribeOptions {
  /**
   * The value was found inside an input: show at most {@link MAX_SHOWN_EXCERPT} characters and
   * "…" (default false: whole up to {@link MAX_SHOWN_STRING}).
   */
  excerpt?: boolean;
}

/**
 * Whether an argument names a position inside an input rather than an argument itself: a JSON
 * path (`graph.nodes[3].label`), an element (`p[3]`) or a line of a file (`x.jsonl:3: line`).
 * Flags, parameters and file arguments (`--graph`, `samples`, `epsilon`), whose values include
 * every path, have plain names.
 */
function namesPositionInInput(argument: string): boolean {
  return /[.[:]/.test(argument);
}

/**
 * Short, safe rendering of a value for an error message (never throws, never huge). Strings are
 * JSON-quoted: with `excerpt`, their first {@link MAX_SHOWN_EXCERPT} characters and "…" when
 * longer; otherwise whole up to {@link MAX_SHOWN_STRING} characters, and a longer one keeps its
 * first and last 2000 characters around "…".
 */
export function describeValue(value: unknown, options: DescribeOptions = {}): string {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    return Object.is(value, -0) ? '-0' : String(value);
  }
  if (typeof value === 'string') {
    if (options.excerpt === true)
      return JSON.stringify(value.length > MAX_SHOWN_EXCERPT ? `${value.slice(0, MAX_SHOWN_EXCERPT)}…` : value);
    return JSON.stringify(
      value.length > MAX_SHOWN_STRING ? `${value.slice(0, 2000)}…${value.slice(value.length - 2000)}` : value,
    );
  }
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'function') return 'a function';
  if (ArrayBuffer.isView(value)) {
    const name = value.constructor.name;
    const len = (value as unknown as { length?: number }).length;
    return `${name}(${len ?? value.byteLength})`;
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof (value as { then?: unknown }).then === 'function') return 'a Promise';
  return 'an object';
}

/**
 * The message of an argument error: `argument = value: problem`. A value found inside an input
 * (its argument names a position in it) is shown as an excerpt, any other whole
 * ({@link describeValue}).
 */
function argumentMessage(argument: string, value: unknown, problem: string): string {
  return `${argument} = ${describeValue(value, { excerpt: namesPositionInInput(argument) })}: ${problem}`;
}

/** A value is out of range or malformed (NaN, wrong length, bad probability, …). */
export class ArgumentError extends RangeError {
  /** Name of the offending argument, with a path into it where useful (`p[3]`). */
  readonly argument: string;
  /** The offending value. */
  readonly value: unknown;
  constructor(argument: string, value: unknown, problem: string) {
    super(argumentMessage(argument, value, problem));
    this.name = 'ArgumentError';
    this.argument = argument;
    this.value = value;
  }
}

/** A value has the wrong type (a string where a number is needed, a missing function, …). */
export class ArgumentTypeError extends TypeError {
  /** Name of the offending argument. */
  readonly argument: string;
  /** The offending value. */
  readonly value: unknown;
  constructor(argument: string, value: unknown, problem: string) {
    super(argumentMessage(argument, value, problem));
    this.name = 'ArgumentTypeError';
    this.argument = argument;
    this.value = value;
  }
}

/** True for both argument error classes. */
export function isArgumentError(e: unknown): e is ArgumentError | ArgumentTypeError {
  return e instanceof ArgumentError || e instanceof ArgumentTypeError;
}
