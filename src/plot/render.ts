/**
 * Rendering without a browser: a Vega-Lite specification is compiled to Vega, run in vega's
 * headless `View` (renderer `'none'`) and serialised with `view.toSVG()`; an SVG string becomes a
 * PNG with resvg, using the DejaVu Sans font file loaded explicitly (no system font lookup, so the
 * picture is the same on every machine that has the file).
 *
 * vega, vega-lite and resvg are loaded on first use, so commands that never plot do not pay for
 * them at start-up.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TopLevelSpec } from 'vega-lite';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { positiveNumber } from '../util/validate.js';

/** A Vega-Lite specification (re-exported type from vega-lite). */
export type VegaLiteSpec = TopLevelSpec;

/** Font family every plot uses; the PNG renderer loads exactly this family's file. */
export const PLOT_FONT_FAMILY = 'DejaVu Sans';

/**
 * Where the DejaVu Sans file is looked for, in order: `$ORDERGAP_FONT_FILE` if set, then the
 * path of Debian's `fonts-dejavu-core` package, then common paths of other distributions.
 */
export const DEJAVU_SANS_CANDIDATES: readonly string[] = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/TTF/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf',
];

/**
 * Finds the DejaVu Sans TTF file.
 * @throws {Error} when no candidate exists (the message says how to install it).
 * Cost: one `existsSync` per candidate.
 * @example
 * ```ts
 * findPlotFont(); // '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf' on Debian
 * ```
 */
export function findPlotFont(): string {
  const env = process.env.ORDERGAP_FONT_FILE;
  const candidates = env ? [env, ...DEJAVU_SANS_CANDIDATES] : DEJAVU_SANS_CANDIDATES;
  for (const file of candidates) if (existsSync(file)) return file;
  throw new Error(
    `DejaVu Sans not found (looked in ${candidates.join(', ')}); install Debian's fonts-dejavu-core ` +
      `or set ORDERGAP_FONT_FILE to a DejaVuSans.ttf file`,
  );
}

/** Compiled SVG of a plot plus its pixel size (the SVG's width/height attributes). */
export interface RenderedSvg {
  svg: string;
  width: number;
  height: number;
  /** Warnings vega or vega-lite raised while rendering (returned, never printed). */
  warnings: string[];
}

function sizeOfSvg(svg: string): { width: number; height: number } {
  const head = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const width = Number(/\bwidth="([\d.]+)"/.exec(head)?.[1]);
  const height = Number(/\bheight="([\d.]+)"/.exec(head)?.[1]);
  return { width, height };
}

/**
 * `text` with every character XML 1.0 does not allow — C0 controls but tab, LF and CR, U+FFFE,
 * U+FFFF and unpaired surrogates — replaced by U+FFFD. vega writes a label or title as given, so a
 * control character in a name (a subspace, a file path) would make the SVG unparseable.
 */
function xmlText(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
}

/**
 * Compiles a Vega-Lite specification and renders it to an SVG string, headless.
 * The specification must carry its data inline (`data.values`): nothing is fetched.
 * @throws {ArgumentTypeError} `spec` is not an object; {ArgumentError} when vega-lite rejects it
 *   (the message is vega-lite's).
 * Cost: one dataflow evaluation, linear in the number of data rows.
 * @example
 * ```ts
 * const { svg } = await renderVegaLiteToSvg({ data: { values: [{ x: 1, y: 2 }] }, mark: 'point',
 *   encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } } });
 * svg.startsWith('<svg'); // true
 * ```
 */
export async function renderVegaLiteToSvg(spec: VegaLiteSpec): Promise<RenderedSvg> {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new ArgumentTypeError('spec', spec, 'must be a Vega-Lite specification object');
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  // Messages are collected, not printed: warnings are returned, errors thrown.
  const warnings: string[] = [];
  const errors: string[] = [];
  const logger = vega.logger(vega.Warn, undefined, (method, _level, args) => {
    (method === 'error' ? errors : warnings).push(args.map(String).join(' '));
  });
  let compiled;
  try {
    compiled = vegaLite.compile(spec, { logger }).spec;
  } catch (e) {
    throw new ArgumentError('spec', spec, `vega-lite rejected it: ${(e as Error).message}`);
  }
  // A loader that refuses every request (and remembers it): plots carry their data inline.
  const requested: string[] = [];
  const loader = vega.loader();
  loader.load = (uri: string) => {
    requested.push(uri);
    return Promise.reject(new Error(`plots do not load data (asked for ${uri})`));
  };
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader, logger });
  try {
    const svg = xmlText(await view.toSVG());
    if (requested.length > 0)
      throw new ArgumentError(
        'spec',
        spec,
        `asks to load ${requested.join(', ')}: plots do not load data (use data.values)`,
      );
    if (errors.length > 0) throw new Error(`vega failed to render the plot: ${errors.join('; ')}`);
    return { svg, ...sizeOfSvg(svg), warnings };
  } finally {
    view.finalize();
  }
}

/** A PNG image and its size in pixels. */
export interface PngImage {
  png: Buffer;
  width: number;
  height: number;
  /** Raw RGBA pixels (row-major, 4 bytes per pixel) of the same image, for inspection. */
  pixels: Buffer;
}

/** Options of {@link svgToPng}. */
export interface PngOptions {
  /** Zoom factor (device pixels per SVG pixel); default 2. */
  scale?: number;
  /** A TTF file to use instead of {@link findPlotFont}. */
  fontFile?: string;
}

interface ResvgModule {
  Resvg: new (
    svg: string,
    options: Record<string, unknown>,
  ) => { render(): { width: number; height: number; pixels: Buffer; asPng(): Buffer } };
}

/**
 * Rasterises an SVG string to PNG with resvg. Text is drawn with DejaVu Sans only (the generic
 * `sans-serif` family maps to it; system fonts are not scanned).
 * @throws {ArgumentTypeError} `svg` not a string; {ArgumentError} `svg` not an `<svg>` document,
 *   bad `options.scale`, or a font file that does not exist; {Error} no DejaVu font found.
 * Cost: proportional to the pixel count (width·height·scale²).
 * @example
 * ```ts
 * const { width } = svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"/>', { scale: 2 });
 * width; // 20
 * ```
 */
export function svgToPng(svg: string, options: PngOptions = {}): PngImage {
  if (typeof svg !== 'string') throw new ArgumentTypeError('svg', svg, 'must be an SVG string');
  if (!/^\s*(<\?xml[^>]*>\s*)?<svg\b/.test(svg))
    throw new ArgumentError('svg', svg, 'must start with an <svg> element');
  const scale = options.scale === undefined ? 2 : positiveNumber('options.scale', options.scale);
  const fontFile = options.fontFile ?? findPlotFont();
  if (!existsSync(fontFile)) throw new ArgumentError('options.fontFile', fontFile, 'no such file');
  const { Resvg } = createRequire(import.meta.url)('@resvg/resvg-js') as ResvgModule;
  let image;
  try {
    image = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: scale },
      font: {
        fontFiles: [fontFile],
        loadSystemFonts: false,
        defaultFontFamily: PLOT_FONT_FAMILY,
        sansSerifFamily: PLOT_FONT_FAMILY,
      },
    }).render();
  } catch (e) {
    throw new ArgumentError('svg', svg, `resvg could not render it: ${(e as Error).message}`);
  }
  return { png: image.asPng(), width: image.width, height: image.height, pixels: image.pixels };
}
