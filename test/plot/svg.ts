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

/** An axis-aligned box in SVG pixels. */
export interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * The box that holds the `<text>` whose content is `text`, from its anchor point, anchor and
 * font size, bounded from above: vega writes the translation at the alphabetic baseline (its
 * own baseline offset already applied), DejaVu Sans rises at most 0.928 em above the baseline
 * and falls 0.236 em below it (the font's ascender and descender), and no glyph is wider than
 * 1 em, so n characters fit in n em.
 */
export function textBox(svg: string, text: string): Box {
  const m = [...svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)].find((t) => unescape(t[2]!) === text);
  if (!m) throw new Error(`no <text> reads ${JSON.stringify(text)}`);
  const attrs = m[1]!;
  const at = /transform="translate\(([-\d.e]+),([-\d.e]+)\)"/.exec(attrs);
  const size = Number(/font-size="([\d.]+)px"/.exec(attrs)?.[1]);
  if (!at || !Number.isFinite(size)) throw new Error(`<text> ${text} has no position or font size`);
  const x = Number(at[1]);
  const y = Number(at[2]);
  const width = [...text].length * size;
  const anchor = /text-anchor="(\w+)"/.exec(attrs)?.[1] ?? 'start';
  const left = anchor === 'end' ? x - width : anchor === 'middle' ? x - width / 2 : x;
  return { left, right: left + width, top: y - 0.928 * size, bottom: y + 0.236 * size };
}

/**
 * The plotted series of a vega line chart with points: each point symbol (aria label starting
 * with `prefix`) as its position and radius (from its circle path `M r,0 A r,r …`), and the
 * segments joining consecutive points of one series (the part of the aria label after `series: `).
 */
export function seriesGeometry(
  svg: string,
  prefix = 'step t:',
): { points: { x: number; y: number; r: number }[]; segments: [number, number, number, number][] } {
  const re = /<path\b([^>]*?)\/>/g;
  const bySeries = new Map<string, { x: number; y: number; r: number }[]>();
  for (const m of svg.matchAll(re)) {
    const attrs = m[1]!;
    const aria = /aria-label="([^"]*)"/.exec(attrs)?.[1];
    const at = /transform="translate\(([-\d.e]+),([-\d.e]+)\)"/.exec(attrs);
    const r = Number(/\bd="M([-\d.e]+),0A/.exec(attrs)?.[1]);
    if (aria === undefined || !unescape(aria).startsWith(prefix) || !at || !Number.isFinite(r)) continue;
    const series = /series: (.*)$/.exec(unescape(aria))?.[1] ?? '';
    const list = bySeries.get(series) ?? [];
    list.push({ x: Number(at[1]), y: Number(at[2]), r });
    bySeries.set(series, list);
  }
  const points = [...bySeries.values()].flat();
  const segments: [number, number, number, number][] = [];
  for (const list of bySeries.values()) {
    const sorted = [...list].sort((a, b) => a.x - b.x);
    for (let k = 1; k < sorted.length; k++)
      segments.push([sorted[k - 1]!.x, sorted[k - 1]!.y, sorted[k]!.x, sorted[k]!.y]);
  }
  return { points, segments };
}

/** Whether the segment (x0, y0)–(x1, y1) meets the box (Liang–Barsky clipping). */
export function segmentMeetsBox([x0, y0, x1, y1]: [number, number, number, number], b: Box): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = x1 - x0;
  const dy = y1 - y0;
  const clips: [number, number][] = [
    [-dx, x0 - b.left],
    [dx, b.right - x0],
    [-dy, y0 - b.top],
    [dy, b.bottom - y0],
  ];
  for (const [p, q] of clips) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

/** What of the series the box covers: the points whose disks meet it and the segments that cross it. */
export function seriesUnder(svg: string, box: Box, prefix?: string): { points: number; segments: number } {
  const { points, segments } = seriesGeometry(svg, prefix);
  const hit = points.filter(
    (p) => p.x + p.r >= box.left && p.x - p.r <= box.right && p.y + p.r >= box.top && p.y - p.r <= box.bottom,
  );
  return { points: hit.length, segments: segments.filter((s) => segmentMeetsBox(s, box)).length };
}
