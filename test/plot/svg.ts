/**
 * Test helper: reads what vega's SVG renderer wrote. Each mark item carries an `aria-label`
 * ("t: 4", "epsilon: 0.025; label: ε = 0.025") and a `transform="translate(x,y)"`; axis labels
 * are `<text>` items inside groups of class `role-axis-label`.
 */

/** One drawn item: its element, aria label, translation and text content. */
export interface SvgItem {
  tag: string;
  aria: string | null;
  x: number;
  y: number;
  text: string | null;
}

const unescape = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** All items (line, path, text) with a translate transform, in document order. */
export function svgItems(svg: string): SvgItem[] {
  const items: SvgItem[] = [];
  const re = /<(line|path|text|rect)\b([^>]*?)(?:\/>|>([^<]*)<\/\1>)/g;
  for (const m of svg.matchAll(re)) {
    const attrs = m[2]!;
    const t = /transform="translate\(([-\d.e]+),([-\d.e]+)\)"/.exec(attrs);
    if (!t) continue;
    const aria = /aria-label="([^"]*)"/.exec(attrs);
    items.push({
      tag: m[1]!,
      aria: aria ? unescape(aria[1]!) : null,
      x: Number(t[1]),
      y: Number(t[2]),
      text: m[3] === undefined ? null : unescape(m[3]),
    });
  }
  return items;
}

/** The SVG fragment of the first group whose class contains `cls` (balanced <g> … </g>). */
export function groupOf(svg: string, cls: string): string {
  const start = svg.indexOf(`class="${cls}`);
  if (start < 0) return '';
  const open = svg.lastIndexOf('<g', start);
  let depth = 0;
  const re = /<g\b|<\/g>/g;
  re.lastIndex = open;
  for (let m = re.exec(svg); m; m = re.exec(svg)) {
    depth += m[0] === '</g>' ? -1 : 1;
    if (depth === 0) return svg.slice(open, m.index + 4);
  }
  return svg.slice(open);
}

/** Text of every `<text>` element (decoded), in order. */
export function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]!));
}

/**
 * Axis ticks: for the axis whose aria-label starts with `X-axis` or `Y-axis`, each tick's label
 * text and the tick's position along the axis (x for the X axis, y for the Y axis). Positions
 * come from the tick lines, not the label text (whose baseline is shifted for legibility); ticks
 * and labels are drawn in the same order.
 */
export function axisLabels(svg: string, axis: 'X' | 'Y'): { text: string; pos: number }[] {
  const start = svg.indexOf(`aria-label="${axis}-axis`);
  if (start < 0) return [];
  const axisSvg = groupOf(svg.slice(svg.lastIndexOf('<g', start)), 'mark-group role-axis');
  const texts = svgItems(groupOf(axisSvg, 'mark-text role-axis-label')).filter((i) => i.tag === 'text');
  const ticks = svgItems(groupOf(axisSvg, 'mark-rule role-axis-tick')).filter((i) => i.tag === 'line');
  if (ticks.length !== texts.length) throw new Error(`${axis} axis: ${ticks.length} ticks but ${texts.length} labels`);
  return texts.map((t, k) => ({ text: t.text ?? '', pos: axis === 'X' ? ticks[k]!.x : ticks[k]!.y }));
}
