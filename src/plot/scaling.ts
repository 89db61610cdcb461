/**
 * Scaling plot: a cost (seconds, say) against a size (Nmax) on log-log axes, one series per
 * measured quantity, each with its fitted power law y = C·n^k drawn as a line and its exponent k
 * in the legend. Reads the plain rows a benchmark's JSON holds.
 */
import { ArgumentError } from '../util/errors.js';
import { maxOf, minOf } from '../util/arrays.js';
import { finiteField, recordArray, stringField } from './data.js';
import { fitPowerLaw, type PowerLawFit } from './powerLaw.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, type PlotFrameOptions } from './theme.js';

/** One measurement: size `n`, cost `y`, and the series it belongs to. */
export interface ScalingPoint {
  n: number;
  y: number;
  series: string;
}

/** Options of {@link scalingSpec}. */
export interface ScalingPlotOptions extends PlotFrameOptions {
  /** x axis title; default 'size n'. */
  xTitle?: string;
  /** y axis title; default 'time (s)'. */
  yTitle?: string;
}

/** The power-law fit of one series. */
export interface SeriesFit extends PowerLawFit {
  series: string;
  /** Legend label: the series name with its exponent. */
  label: string;
}

/**
 * Fits a power law to each series (see {@link fitPowerLaw}).
 * @throws {ArgumentError | ArgumentTypeError} malformed points; a series with fewer than two
 *   distinct sizes or a value ≤ 0.
 * Cost: O(number of points).
 * @example
 * ```ts
 * fitScaling([{ n: 10, y: 1, series: 'a' }, { n: 20, y: 4, series: 'a' }])[0].exponent; // 2
 * ```
 */
export function fitScaling(points: readonly ScalingPoint[]): SeriesFit[] {
  const rows = recordArray<ScalingPoint>('points', points);
  const bySeries = new Map<string, { x: number; y: number }[]>();
  rows.forEach((p, i) => {
    const n = finiteField('points', i, p, 'n');
    const y = finiteField('points', i, p, 'y');
    const s = stringField('points', i, p, 'series');
    if (!(n > 0)) throw new ArgumentError(`points[${i}].n`, n, 'must be > 0 on a log axis');
    if (!(y > 0)) throw new ArgumentError(`points[${i}].y`, y, 'must be > 0 on a log axis');
    (bySeries.get(s) ?? bySeries.set(s, []).get(s)!).push({ x: n, y });
  });
  return [...bySeries].map(([series, pts]) => {
    let fit: PowerLawFit;
    try {
      fit = fitPowerLaw(pts);
    } catch (e) {
      throw new ArgumentError(`points (series ${JSON.stringify(series)})`, pts, (e as Error).message);
    }
    return { ...fit, series, label: `${series} (k = ${fit.exponent.toFixed(2)})` };
  });
}

/**
 * Builds the Vega-Lite specification of a log-log scaling plot with fitted lines.
 * @throws as {@link fitScaling}.
 * @example
 * ```ts
 * scalingSpec([{ n: 10, y: 0.1, series: 'order-gap' }, { n: 40, y: 1.6, series: 'order-gap' }], {});
 * ```
 */
export function scalingSpec(points: readonly ScalingPoint[], options: ScalingPlotOptions = {}): VegaLiteSpec {
  const fits = fitScaling(points);
  const labelOf = new Map(fits.map((f) => [f.series, f.label]));
  const measured = points.map((p) => ({ n: p.n, y: p.y, label: labelOf.get(p.series)! }));
  const fitted = fits.flatMap((f) => {
    const ns = points.filter((p) => p.series === f.series).map((p) => p.n);
    return [minOf(ns), maxOf(ns)].map((n) => ({ n, y: f.coefficient * n ** f.exponent, label: f.label }));
  });
  // the data's own extent (not widened to whole decades), with a few pixels of padding
  const scale = { type: 'log', nice: false, padding: 12 };
  const x = { field: 'n', type: 'quantitative', title: options.xTitle ?? 'size n', scale };
  const y = { field: 'y', type: 'quantitative', title: options.yTitle ?? 'time (s)', scale };
  const color = {
    field: 'label',
    type: 'nominal',
    title: null,
    scale: { domain: fits.map((f) => f.label) },
    // one series per line on the right: long labels never widen the plot sideways
    legend: { orient: fits.length <= 2 ? 'top' : 'right', labelLimit: 0 },
  };
  return frame(options, {
    layer: [
      { data: { values: fitted }, mark: { type: 'line', strokeDash: [5, 3] }, encoding: { x, y, color } },
      { data: { values: measured }, mark: { type: 'point', filled: true, size: 50 }, encoding: { x, y, color } },
    ],
  });
}

/** Renders a scaling plot to SVG (arguments and errors as {@link scalingSpec}). */
export async function plotScaling(
  points: readonly ScalingPoint[],
  options: ScalingPlotOptions = {},
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(scalingSpec(points, options));
}
