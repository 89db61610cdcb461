/** Plain-text tables for the CLI (right-aligned numbers, left-aligned text). */
import { maxOf } from '../util/arrays.js';

/** A column: header and alignment. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/**
 * Renders rows of cells under headers, columns separated by two spaces.
 * @example
 * ```ts
 * renderTable([{ header: 't' }, { header: 'x', align: 'right' }], [['1', '0.5']]);
 * // 't    x\n1  0.5'   (each column padded to its widest cell)
 * ```
 */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, j) =>
    maxOf(
      rows.map((r) => (r[j] ?? '').length),
      c.header.length,
    ),
  );
  const fmt = (cells: readonly string[]): string =>
    cells
      .map((cell, j) => (columns[j]?.align === 'right' ? cell.padStart(widths[j]!) : cell.padEnd(widths[j]!)))
      .join('  ')
      .trimEnd();
  return [fmt(columns.map((c) => c.header)), ...rows.map(fmt)].join('\n');
}

/** Fixed-point with `digits` decimals; '-' for null. */
export function fixed(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? '-' : x.toFixed(digits);
}
