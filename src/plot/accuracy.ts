/**
 * Accuracy against cost: one point per stopping rule (or configuration), accuracy on the y axis
 * and the mean number of samples it drew on the x axis, each point labelled with its rule. The
 * upper-left is better: the same accuracy for fewer samples. The accuracy axis spans at least
 * the 95% interval of one accuracy ({@link accuracyMinSpan}), so differences the data cannot
 * tell apart stay close on the page, and its percentages carry as many decimals as its tick
 * step needs (src/plot/axis.ts).
 */
import { ArgumentError } from '../util/errors.js';
import { accuracyMinSpan, linearAxis } from './axis.js';
import { integerInRange } from '../util/validate.js';
import { maxOf, minOf } from '../util/arrays.js';
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
  /**
   * How points are named: 'text' next to each point, 'legend' (colour and shape keyed on the
   * right, for many or long names), or 'auto' (default): text for up to
   * {@link ACCURACY_TEXT_LABEL_LIMIT} points, else a legend.
   */
  labels?: 'auto' | 'text' | 'legend';
  /**
   * How many independent items each accuracy is measured on (an integer ≥ 1): sets the smallest
   * span of the accuracy axis ({@link accuracyMinSpan}); default: one percentage point.
   */
  items?: number;
}

/** Up to this many points, 'auto' labels write the rule next to each point. */
export const ACCURACY_TEXT_LABEL_LIMIT = 5;

/**
 * Builds the Vega-Lite specification of an accuracy-versus-samples scatter plot.
 * @throws {ArgumentError | ArgumentTypeError} empty or malformed points, accuracy outside [0, 1],
 *   negative mean samples, `options.items` not an integer ≥ 1.
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
  const accuracies = values.map((v) => v.accuracy);
  const minSpan = accuracyMinSpan(
    options.items === undefined ? undefined : integerInRange('options.items', options.items, 1),
  );
  const axis = linearAxis(minOf(accuracies), maxOf(accuracies), { minSpan, bounds: [0, 1] });
  const y = {
    field: 'accuracy',
    type: 'quantitative',
    title: 'accuracy',
    scale: { domain: axis.domain, nice: false, zero: false },
    // percentages: two decimals fewer than the fraction's
    axis: { values: axis.ticks, format: `.${Math.max(0, axis.decimals - 2)}%` },
  };
  const mode = options.labels ?? 'auto';
  if (mode !== 'auto' && mode !== 'text' && mode !== 'legend')
    throw new ArgumentError('options.labels', mode, "must be 'auto', 'text' or 'legend'");
  const asText = mode === 'text' || (mode === 'auto' && values.length <= ACCURACY_TEXT_LABEL_LIMIT);
  const domain = values.map((v) => v.rule);
  if (asText) {
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
  const legend = { orient: 'right', labelLimit: 0, title: null };
  return frame(options, {
    data: { values },
    mark: { type: 'point', filled: true, size: 90, opacity: 0.85 },
    encoding: {
      x,
      y,
      color: { field: 'rule', type: 'nominal', scale: { domain }, legend },
      shape: { field: 'rule', type: 'nominal', scale: { domain }, legend },
    },
  });
}

/** Renders an accuracy plot to SVG (arguments and errors as {@link accuracySpec}). */
export async function plotAccuracy(
  points: readonly AccuracyPoint[],
  options: AccuracyPlotOptions = {},
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(accuracySpec(points, options));
}
