/**
 * The JSON encoding of every report (what `--json` prints): Float64Arrays become arrays,
 * numbers are unrounded, two-space indentation. JSON has no Infinity or NaN, and
 * `JSON.stringify` would silently write them as null — indistinguishable from a field that is
 * null because it has no value (a windowed mean before the window is full). So non-finite
 * numbers are written as the strings `"Infinity"`, `"-Infinity"` and `"NaN"` (the spelling
 * `Number()` reads back), and null always means "no value". docs/cli.md documents this.
 */

/** The `--json` spelling of a number: itself when finite, else `"Infinity"`, `"-Infinity"` or `"NaN"`. */
export function jsonNumber(x: number): number | string {
  return Number.isFinite(x) ? x : String(x);
}

/**
 * Encodes a report as the `--json` document (see the module comment for non-finite numbers).
 * @example
 * ```ts
 * reportJson({ theta: Float64Array.of(0.5) }); // '{\n  "theta": [\n    0.5\n  ]\n}'
 * reportJson({ bound: Infinity }); // '{\n  "bound": "Infinity"\n}'
 * ```
 */
export function reportJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (v instanceof Float64Array) return Array.from(v, jsonNumber);
      if (typeof v === 'number') return jsonNumber(v);
      return v;
    },
    2,
  );
}
