import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findPlotFont, renderVegaLiteToSvg, svgToPng, type VegaLiteSpec } from '../../src/plot/render.js';
import { decodePng, inkStats } from './png.js';

const pointSpec = (values: object[]): VegaLiteSpec =>
  ({
    width: 200,
    height: 100,
    data: { values },
    mark: 'point',
    encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
  }) as VegaLiteSpec;

const textSvg = (s: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="white"/>` +
  `<text x="5" y="30" font-family="DejaVu Sans" font-size="24">${s}</text></svg>`;

describe('renderVegaLiteToSvg', () => {
  it('renders one symbol per data row, with the size the spec asks for plus axes', async () => {
    const values = [
      { x: 1, y: 2 },
      { x: 2, y: 5 },
      { x: 3, y: 4 },
    ];
    const r = await renderVegaLiteToSvg(pointSpec(values));
    expect(r.svg.startsWith('<svg')).toBe(true);
    expect(r.warnings).toEqual([]);
    // one <path> per point, each labelled with its data by vega's aria support
    const points = [...r.svg.matchAll(/aria-label="x: (\d); y: (\d)"/g)];
    expect(points.map((m) => `${m[1]},${m[2]}`).sort()).toEqual(['1,2', '2,5', '3,4']);
    // the plot area is 200 x 100; axes and padding only add to it
    expect(r.width).toBeGreaterThan(200);
    expect(r.height).toBeGreaterThan(100);
    // the SVG is well-formed: resvg's strict XML parser accepts it
    expect(() => svgToPng(r.svg, { scale: 1 })).not.toThrow();
  });

  it('a control character or an unpaired surrogate in a title or label becomes U+FFFD: the SVG stays XML', async () => {
    const spec = { ...pointSpec([{ x: 1, y: 2 }]), title: 'struct\u0001ure \ud800 \uffff' } as VegaLiteSpec;
    const r = await renderVegaLiteToSvg(spec);
    expect(r.svg).toContain('struct\ufffdure \ufffd \ufffd');
    // eslint-disable-next-line no-control-regex
    expect(r.svg).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(() => svgToPng(r.svg, { scale: 1 })).not.toThrow();
  });

  it('rejects a non-object and a spec vega-lite cannot compile, naming `spec`', async () => {
    await expect(renderVegaLiteToSvg(null as unknown as VegaLiteSpec)).rejects.toThrow(/^spec = null: /);
    await expect(renderVegaLiteToSvg({ mark: 'nosuchmark' } as unknown as VegaLiteSpec)).rejects.toThrow(
      /^spec = an object: vega-lite rejected it/,
    );
  });

  it('never fetches: a spec with a data URL fails instead of touching the network', async () => {
    const spec = { data: { url: 'http://example.invalid/data.json' }, mark: 'point' } as VegaLiteSpec;
    await expect(renderVegaLiteToSvg(spec)).rejects.toThrow(/do not load data/);
  });
});

describe('svgToPng', () => {
  it('scales the SVG size by `scale`, and its PNG decodes to the same pixels resvg returned', () => {
    const svg = textSvg('Ω̂ ε');
    for (const scale of [1, 2, 3]) {
      const img = svgToPng(svg, { scale });
      expect([img.width, img.height]).toEqual([120 * scale, 40 * scale]);
      const decoded = decodePng(img.png);
      expect([decoded.width, decoded.height]).toEqual([img.width, img.height]);
      // resvg's raw pixels are premultiplied RGBA; the background is opaque, so equal bytes.
      expect(Buffer.from(decoded.rgba).equals(img.pixels)).toBe(true);
    }
  });

  it('draws text with the DejaVu file it loads, and none without a usable font', () => {
    const font = findPlotFont();
    expect(font).toMatch(/DejaVuSans\.ttf$/);
    const withFont = inkStats(svgToPng(textSvg('Ωε order-gap'), { scale: 1 }).pixels);
    expect(withFont.inkFraction).toBeGreaterThan(0.05);
    // Negative control: a file that is not a font → resvg has no glyphs, the text disappears.
    const notAFont = fileURLToPath(new URL('../../package.json', import.meta.url));
    const without = inkStats(svgToPng(textSvg('Ωε order-gap'), { scale: 1, fontFile: notAFont }).pixels);
    expect(without.inkFraction).toBe(0);
  });

  it('rejects bad input with the argument named', () => {
    expect(() => svgToPng(42 as unknown as string)).toThrow(/^svg = 42: must be an SVG string/);
    expect(() => svgToPng('<html></html>')).toThrow(/^svg = "<html><\/html>": must start with an <svg> element/);
    expect(() => svgToPng(textSvg('x'), { scale: 0 })).toThrow(/^options\.scale = 0: must be > 0/);
    expect(() => svgToPng(textSvg('x'), { fontFile: '/no/such/font.ttf' })).toThrow(/^options\.fontFile = /);
    expect(() => svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g></svg>')).toThrow(
      /resvg could not render it/,
    );
  });

  it('the font file found is a TrueType file (starts with the sfnt version 0x00010000)', () => {
    const head = readFileSync(findPlotFont()).subarray(0, 4);
    expect([...head]).toEqual([0, 1, 0, 0]);
  });
});
