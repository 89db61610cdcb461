/**
 * Margin plot: one row per decided object (a subspace, a question), its values divided by the
 * threshold they were decided against, on a log axis with a line at 1 — right of the line passes,
 * left of it fails. Values ≤ 0 (which a log axis cannot show) are drawn at a floor a decade left
 * of everything else, with their own marker.
 */
import { ArgumentError } from '../util/errors.js';
import { positiveNumber } from '../util/validate.js';
import { minOf } from '../util/arrays.js';
import { finiteField, formatNumber, recordArray, stringField } from './data.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, THRESHOLD_COLOR, type PlotFrameOptions } from './theme.js';

/** One value of one row. */
export interface MarginPoint {
  /** The row (subspace, question, …). */
  row: string;
  /** What the value is (λ_min, λ_max, …): colour and shape. */
  series: string;
  value: number;
}

/** Options of {@link marginSpec}. */
export interface MarginPlotOptions extends PlotFrameOptions {
  /** The threshold (> 0) the values are compared with; drawn as a line. */
  threshold: number;
  /** Axis title of the values. */
  valueTitle?: string;
  /** Label of the threshold line; default `threshold = …`. */
  thresholdLabel?: string;
}

/** Series label of values ≤ 0. */
export const NONPOSITIVE_LABEL = '≤ 0 (drawn at floor)';

/**
 * Builds the Vega-Lite specification of a margin plot.
 * @throws {ArgumentError | ArgumentTypeError} empty or malformed points, threshold ≤ 0.
 * Cost: O(number of points).
 * @example
 * ```ts
 * marginSpec([{ row: 'q:author', series: 'λ_min', value: 3e-4 }], { threshold: 1e-18 });
 * ```
 */
export function marginSpec(points: readonly MarginPoint[], options: MarginPlotOptions): VegaLiteSpec {
  const rows = recordArray<MarginPoint>('points', points);
  const threshold = positiveNumber('options.threshold', options?.threshold);
  const parsed = rows.map((p, i) => ({
    row: stringField('points', i, p, 'row'),
    series: stringField('points', i, p, 'series'),
    value: finiteField('points', i, p, 'value'),
  }));
  const positive = parsed.filter((p) => p.value > 0).map((p) => p.value);
  const floor = minOf(positive, threshold) / 10;
  const values = parsed.map((p) => ({
    ...p,
    shown: p.value > 0 ? p.value : floor,
    kind: p.value > 0 ? p.series : NONPOSITIVE_LABEL,
    verdict: p.value > threshold ? 'above' : 'at or below',
  }));
  const kinds = [...new Set(values.map((v) => v.kind))];
  if (kinds.length > 10) throw new ArgumentError('points', points, 'at most 10 series can be told apart');
  const rowOrder = [...new Set(parsed.map((p) => p.row))];
  const x = {
    field: 'shown',
    type: 'quantitative',
    title: options.valueTitle ?? 'value',
    scale: { type: 'log' },
    axis: { format: '.0e' },
  };
  const y = { field: 'row', type: 'nominal', title: null, sort: rowOrder, axis: { labelLimit: 0 } };
  const legend = { orient: 'top', labelLimit: 0, title: null };
  return frame(
    { ...options, height: options.height ?? Math.max(60, 40 * rowOrder.length) },
    {
      layer: [
        {
          data: { values },
          mark: { type: 'point', filled: true, size: 90 },
          encoding: {
            x,
            y,
            color: { field: 'kind', type: 'nominal', scale: { domain: kinds }, legend },
            shape: { field: 'kind', type: 'nominal', scale: { domain: kinds }, legend },
            // the exact values travel with each point (SVG aria-label; a tooltip where interactive)
            tooltip: [
              { field: 'row', type: 'nominal' },
              { field: 'series', type: 'nominal' },
              { field: 'value', type: 'quantitative', title: 'exact value', format: '.4~e' },
              { field: 'verdict', type: 'nominal' },
            ],
          },
        },
        {
          data: { values: [{ threshold, label: options.thresholdLabel ?? `threshold = ${formatNumber(threshold)}` }] },
          layer: [
            {
              mark: { type: 'rule', color: THRESHOLD_COLOR, strokeDash: [4, 4] },
              encoding: { x: { field: 'threshold', type: 'quantitative' } },
            },
            {
              mark: { type: 'text', color: THRESHOLD_COLOR, align: 'left', baseline: 'top', dx: 4, y: 2 },
              encoding: { x: { field: 'threshold', type: 'quantitative' }, text: { field: 'label' } },
            },
          ],
        },
      ],
    },
  );
}

/** Renders a margin plot to SVG (arguments and errors as {@link marginSpec}). */
export async function plotMargins(points: readonly MarginPoint[], options: MarginPlotOptions): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(marginSpec(points, options));
}
