/**
 * Self-contained HTML reports: one page of sections holding text, tables, verdicts and inline SVG
 * plots, with its CSS inline and a Content-Security-Policy that forbids every external load and
 * every script — the file can be mailed, archived or opened offline and looks the same.
 *
 * Any command can build one from plain data: `renderHtmlReport({ title, sections })`.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';

/** A table: column headers (with alignment) and rows of cells. */
export interface HtmlTable {
  caption?: string;
  columns: readonly { header: string; align?: 'left' | 'right' }[];
  /** Cells: strings as given, numbers through {@link formatCell}, null as "–". */
  rows: readonly (readonly (string | number | null)[])[];
}

/** One block of a section, drawn in order. */
export type HtmlBlock =
  | { kind: 'text'; text: string }
  | { kind: 'table'; table: HtmlTable }
  | { kind: 'figure'; svg: string; caption?: string }
  | {
      kind: 'verdict';
      /** true: PASS (green); false: FAIL (red), the check failed; null: UNVERIFIED (amber), neither shown nor refuted. */
      ok: boolean | null;
      text: string;
    };

/** A section: a heading and its blocks. */
export interface HtmlSection {
  heading: string;
  blocks: readonly HtmlBlock[];
}

/** A whole report. */
export interface HtmlReport {
  title: string;
  /** A line under the title (setting, date, …). */
  subtitle?: string;
  sections: readonly HtmlSection[];
}

/**
 * Escapes text for HTML element content and attribute values.
 * @example
 * ```ts
 * escapeHtml('a < b & "c"'); // 'a &lt; b &amp; &quot;c&quot;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Formats a number for a table cell: integers as they are, others with 6 significant digits
 * (exponent form outside [1e-4, 1e6)), NaN and infinities by name.
 * @example
 * ```ts
 * formatCell(0.0220657225582); // '0.0220657'
 * ```
 */
export function formatCell(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  const a = Math.abs(x);
  return a >= 1e-4 && a < 1e6 ? String(Number(x.toPrecision(6))) : x.toExponential(5);
}

/**
 * Checks an SVG string is a plain drawing that can be inlined: it must start with `<svg` (an XML
 * prolog is dropped) and hold no script, event handler or external reference.
 * @throws {ArgumentTypeError | ArgumentError} named `name`.
 */
export function inlineSvg(name: string, svg: unknown): string {
  if (typeof svg !== 'string') throw new ArgumentTypeError(name, svg, 'must be an SVG string');
  const body = svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
  if (!/^<svg\b/.test(body)) throw new ArgumentError(name, svg, 'must start with an <svg> element');
  if (/<script\b|<foreignObject\b/i.test(body))
    throw new ArgumentError(name, svg, 'must not contain scripts, event handlers or foreignObject');
  // attributes are read tag by tag, quoted values skipped whole: text such as "onset=late" in a
  // label or a title is not an attribute
  for (const tag of body.matchAll(/<[A-Za-z][^>]*>/g))
    for (const [, attr, value] of tag[0].matchAll(ATTRIBUTE)) {
      if (/^on/i.test(attr!))
        throw new ArgumentError(name, svg, 'must not contain scripts, event handlers or foreignObject');
      if (/^(?:xlink:)?href$/i.test(attr!) && !/^["']?#/.test(value!))
        throw new ArgumentError(name, svg, 'must not reference external resources (only #fragment links)');
    }
  return body;
}

/** One attribute of a tag (after a space, or a slash as HTML parsers read `<svg/onload=…>`): name and value, quoted whole or bare. */
const ATTRIBUTE = /[\s/]([^\s"'<>/=]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)/g;

function nonEmptyString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new ArgumentTypeError(name, value, 'must be a string');
  if (value.trim().length === 0) throw new ArgumentError(name, value, 'must not be empty');
  return value;
}

/**
 * Renders one table as an HTML `<table>` (usable on its own, e.g. in a notebook).
 * @throws {ArgumentError | ArgumentTypeError} no columns, a row of the wrong length, a cell
 *   that is not a string, number or null (named `name.rows[i][j]`).
 * Cost: O(cells).
 * @example
 * ```ts
 * renderHtmlTable({ columns: [{ header: 't' }], rows: [[1]] });
 * // '<table><thead><tr><th>t</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>'
 * ```
 */
export function renderHtmlTable(table: HtmlTable, name = 'table'): string {
  if (table === null || typeof table !== 'object') throw new ArgumentTypeError(name, table, 'must be an object');
  if (!Array.isArray(table.columns) || table.columns.length === 0)
    throw new ArgumentError(`${name}.columns`, table.columns, 'must be a non-empty array');
  if (!Array.isArray(table.rows)) throw new ArgumentTypeError(`${name}.rows`, table.rows, 'must be an array');
  const cols = table.columns.map((c, j) => ({
    header: nonEmptyString(`${name}.columns[${j}].header`, c?.header),
    right: c.align === 'right',
  }));
  const cls = (right: boolean) => (right ? ' class="num"' : '');
  const head = cols.map((c) => `<th${cls(c.right)}>${escapeHtml(c.header)}</th>`).join('');
  const body = table.rows
    .map((row, i) => {
      if (!Array.isArray(row) || row.length !== cols.length)
        throw new ArgumentError(`${name}.rows[${i}]`, row, `must be an array of ${cols.length} cells`);
      const cells = row.map((cell, j) => {
        let text: string;
        if (cell === null) text = '–';
        else if (typeof cell === 'number') text = formatCell(cell);
        else if (typeof cell === 'string') text = cell;
        else throw new ArgumentTypeError(`${name}.rows[${i}][${j}]`, cell, 'must be a string, a number or null');
        return `<td${cls(cols[j]!.right)}>${escapeHtml(text)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  const caption = table.caption === undefined ? '' : `<caption>${escapeHtml(table.caption)}</caption>`;
  return `<table>${caption}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function renderBlock(block: HtmlBlock, name: string): string {
  if (block === null || typeof block !== 'object') throw new ArgumentTypeError(name, block, 'must be a block object');
  switch (block.kind) {
    case 'text':
      return `<p>${escapeHtml(nonEmptyString(`${name}.text`, block.text))}</p>`;
    case 'table':
      return renderHtmlTable(block.table, `${name}.table`);
    case 'figure': {
      const svg = inlineSvg(`${name}.svg`, block.svg);
      const caption = block.caption === undefined ? '' : `<figcaption>${escapeHtml(block.caption)}</figcaption>`;
      return `<figure>${svg}${caption}</figure>`;
    }
    case 'verdict': {
      if (typeof block.ok !== 'boolean' && block.ok !== null)
        throw new ArgumentTypeError(`${name}.ok`, block.ok, 'must be a boolean or null');
      const [cls, mark] =
        block.ok === null ? ['unverified', 'UNVERIFIED'] : block.ok ? ['ok', 'PASS'] : ['bad', 'FAIL'];
      return (
        `<p class="verdict ${cls}"><span class="mark">${mark}</span> ` +
        `${escapeHtml(nonEmptyString(`${name}.text`, block.text))}</p>`
      );
    }
    default:
      throw new ArgumentError(
        `${name}.kind`,
        (block as { kind?: unknown }).kind,
        "must be 'text', 'table', 'figure' or 'verdict'",
      );
  }
}

const STYLE = `
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 2rem auto; max-width: 1100px;
  padding: 0 1.5rem; color: #1f2328; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
.subtitle { color: #57606a; margin-top: 0; }
h2 { font-size: 1.2rem; border-bottom: 1px solid #d0d7de; padding-bottom: 0.25rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
caption { text-align: left; color: #57606a; padding-bottom: 0.3rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f6f8fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #57606a; font-size: 0.9rem; }
.verdict { padding: 0.4rem 0.7rem; border-radius: 4px; }
.verdict.ok { background: #dafbe1; } .verdict.bad { background: #ffebe9; } .verdict.unverified { background: #fff8c5; }
.verdict .mark { font-weight: bold; }
.verdict.ok .mark { color: #1a7f37; } .verdict.bad .mark { color: #cf222e; } .verdict.unverified .mark { color: #9a6700; }
`;

/**
 * Renders a report as one self-contained HTML page (UTF-8, inline CSS, inline SVG, no scripts,
 * a Content-Security-Policy forbidding any external load).
 * @throws {ArgumentError | ArgumentTypeError} a missing title or heading, an empty section list,
 *   a malformed block (named by path, e.g. `sections[1].blocks[2].svg`), an SVG with scripts or
 *   external references.
 * Cost: linear in the size of the content.
 * @example
 * ```ts
 * const html = renderHtmlReport({ title: 'Certification', sections: [
 *   { heading: 'Verdict', blocks: [{ kind: 'verdict', ok: true, text: 'non-degenerate' }] }] });
 * html.startsWith('<!DOCTYPE html>'); // true
 * ```
 */
export function renderHtmlReport(report: HtmlReport): string {
  if (report === null || typeof report !== 'object') throw new ArgumentTypeError('report', report, 'must be an object');
  const title = nonEmptyString('report.title', report.title);
  if (!Array.isArray(report.sections) || report.sections.length === 0)
    throw new ArgumentError('report.sections', report.sections, 'must be a non-empty array');
  const sections = report.sections.map((s, i) => {
    const heading = nonEmptyString(`report.sections[${i}].heading`, s?.heading);
    if (!Array.isArray(s.blocks))
      throw new ArgumentTypeError(`report.sections[${i}].blocks`, s.blocks, 'must be an array');
    const blocks = (s.blocks as readonly HtmlBlock[])
      .map((b: HtmlBlock, k: number) => renderBlock(b, `report.sections[${i}].blocks[${k}]`))
      .join('\n');
    return `<section>\n<h2>${escapeHtml(heading)}</h2>\n${blocks}\n</section>`;
  });
  const subtitle =
    report.subtitle === undefined
      ? ''
      : `<p class="subtitle">${escapeHtml(nonEmptyString('report.subtitle', report.subtitle))}</p>\n`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    subtitle + sections.join('\n'),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
