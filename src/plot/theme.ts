/**
 * Shared look of every plot: size, font (the one the PNG renderer loads), colours for the
 * reference lines. Kept in one place so the CLI's files, the notebooks and the HTML report match.
 */
import type { VegaLiteSpec } from './render.js';
import { PLOT_FONT_FAMILY } from './render.js';

/** Default plot area size in SVG pixels (the axes and legend add to it). */
export const PLOT_WIDTH = 520;
/** Default plot area height in SVG pixels. */
export const PLOT_HEIGHT = 280;

/** Colour of threshold lines (ε, tolerance). */
export const THRESHOLD_COLOR = '#b22222';
/** Colour of the stop marker. */
export const STOP_COLOR = '#2e7d32';

/** Size and title options every plot function accepts. */
export interface PlotFrameOptions {
  title?: string;
  /** A second, smaller title line. */
  subtitle?: string;
  width?: number;
  height?: number;
}

/**
 * Wraps layers into a top-level specification with the shared configuration.
 * @example
 * ```ts
 * frame({ title: 'x' }, { layer: [] }).config.font; // 'DejaVu Sans'
 * ```
 */
export function frame(options: PlotFrameOptions, body: Record<string, unknown>): VegaLiteSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(options.title === undefined && options.subtitle === undefined
      ? {}
      : {
          title: {
            text: options.title ?? '',
            ...(options.subtitle === undefined ? {} : { subtitle: options.subtitle }),
          },
        }),
    width: options.width ?? PLOT_WIDTH,
    height: options.height ?? PLOT_HEIGHT,
    background: 'white',
    config: { font: PLOT_FONT_FAMILY, view: { stroke: null } },
    ...body,
  } as unknown as VegaLiteSpec;
}

/**
 * A horizontal threshold (ε, a tolerance) as a layer: a dashed line at y = `value` across the
 * plot, and its label right of the plot area, level with the line's end. Outside the data's x
 * range, the label never covers a data mark, whatever the data's shape. The datum carries
 * `value` under `field`, so the line's aria label reads `field: value`.
 * @example
 * ```ts
 * horizontalThreshold('epsilon', 0.025, 'ε = 0.025'); // one layer of a line and its label
 * ```
 */
export function horizontalThreshold(field: string, value: number, label: string): Record<string, unknown> {
  const y = { field, type: 'quantitative' };
  return {
    data: { values: [{ [field]: value, label }] },
    layer: [
      { mark: { type: 'rule', color: THRESHOLD_COLOR, strokeDash: [4, 4] }, encoding: { y } },
      {
        mark: { type: 'text', color: THRESHOLD_COLOR, align: 'left', baseline: 'middle', dx: 4, x: 'width' },
        encoding: { y, text: { field: 'label' } },
      },
    ],
  };
}
