/**
 * Accuracy against cost: one point per stopping rule (or configuration), accuracy on the y axis
 * and the mean number of samples it drew on the x axis, each point labelled with its rule. The
 * upper-left is better: the same accuracy for fewer samples.
 */
import { ArgumentError } from '../util/errors.js';
import { finiteField, recordArray, stringField } from './data.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, type PlotFrameOptions } from './theme.js';

/** One rule's result. */
export interface AccuracyPoint {
  /** Name of the rule (label and colour). */
  rule: string;
  /** Mean samples (or steps) per question, ≥ 0. */
  meanSamples: number;
  /** Fraction correct, in [0, 1]. */
  accuracy: number;
}

/** Options of {@link accuracySpec}. */
export interface AccuracyPlotOptions extends PlotFrameOptions {
  /** x axis title; default 'mean samples per question'. */
  xTitle?: string;
}

/**
 * Builds the Vega-Lite specification of an accuracy-versus-samples scatter plot.
 * @throws {ArgumentError | ArgumentTypeError} empty or malformed points, accuracy outside [0, 1],
 *   negative mean samples.
 * Cost: O(number of points).
 * @example
 * ```ts
 * accuracySpec([{ rule: 'order-gap', meanSamples: 4.2, accuracy: 0.81 }], {});
 * ```
 */
export function accuracySpec(points: readonly AccuracyPoint[], options: AccuracyPlotOptions = {}): VegaLiteSpec {
  const rows = recordArray<AccuracyPoint>('points', points);
  const values = rows.map((p, i) => {
    const rule = stringField('points', i, p, 'rule');
    const meanSamples = finiteField('points', i, p, 'meanSamples');
    const accuracy = finiteField('points', i, p, 'accuracy');
    if (meanSamples < 0) throw new ArgumentError(`points[${i}].meanSamples`, meanSamples, 'must be >= 0');
    if (accuracy < 0 || accuracy > 1) throw new ArgumentError(`points[${i}].accuracy`, accuracy, 'must lie in [0, 1]');
    return { rule, meanSamples, accuracy };
  });
  const x = {
    field: 'meanSamples',
    type: 'quantitative',
    title: options.xTitle ?? 'mean samples per question',
    scale: { zero: true },
  };
  const y = {
    field: 'accuracy',
    type: 'quantitative',
    title: 'accuracy',
    scale: { zero: false, padding: 24 },
    axis: { format: '.1%' },
  };
  return frame(options, {
    data: { values },
    layer: [
      {
        mark: { type: 'point', filled: true, size: 90 },
        encoding: { x, y, color: { field: 'rule', type: 'nominal', title: null, legend: null } },
      },
      {
        mark: { type: 'text', align: 'left', dx: 7, dy: -7 },
        encoding: { x, y, text: { field: 'rule' }, color: { field: 'rule', type: 'nominal', legend: null } },
      },
    ],
  });
}

/** Renders an accuracy plot to SVG (arguments and errors as {@link accuracySpec}). */
export async function plotAccuracy(
  points: readonly AccuracyPoint[],
  options: AccuracyPlotOptions = {},
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(accuracySpec(points, options));
}
