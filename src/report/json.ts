/**
 * The JSON encoding of every report (what `--json` prints): Float64Arrays become arrays,
 * numbers are unrounded, two-space indentation. JSON has no Infinity or NaN: `JSON.stringify`
 * writes them as null, so a null where a number is expected means a non-finite value.
 */

/**
 * Encodes a report as the `--json` document.
 * @example
 * ```ts
 * reportJson({ theta: Float64Array.of(0.5) }); // '{\n  "theta": [\n    0.5\n  ]\n}'
 * ```
 */
export function reportJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v instanceof Float64Array ? Array.from(v) : v), 2);
}
