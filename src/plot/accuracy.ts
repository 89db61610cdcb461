/**
 * Accuracy against cost: one point per stopping rule (or configuration), accuracy on the y axis
 * and the mean number of samples it drew on the x axis, each point labelled with its rule. The
 * upper-left is better: the same accuracy for fewer samples. The accuracy axis spans at least
 * the 95% interval of one accuracy ({@link accuracyMinSpan}), so differences the data cannot
 * tell apart stay close on the page, and its percentages carry as many decimals as its tick
 * step needs (src/plot/axis.ts). Points marked `front` are joined by a dashed line labelled
 * "Pareto front".
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { accuracyMinSpan, linearAxis } from './axis.js';
import { integerInRange } from '../util/validate.js';
import { maxOf, minOf } from '../util/arrays.js';
import { finiteField, recordArray, stringField } from './data.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, PLOT_HEIGHT, type PlotFrameOptions } from './theme.js';

/** One rule's result. */
export interface AccuracyPoint {
  /** Name of the rule (label and colour). */
  rule: string;
  /** Mean samples (or steps) per question, ≥ 0. */
  meanSamples: number;
  /** Fraction correct, in [0, 1]. */
  accuracy: number;
  /**
   * On the Pareto front (no other point has at least this accuracy for at most these samples, one
   * of the two strictly): the points so marked are joined, in order of mean samples, by a dashed
   * line labelled {@link ACCURACY_FRONT_LABEL}. The plot draws what it is told; it does not compute
   * the front.
   */
  front?: boolean;
}

/** The label of the line through the Pareto front's points. */
export const ACCURACY_FRONT_LABEL = 'Pareto front';
/** Colour of the Pareto front's line and label. */
const FRONT_COLOR = '#555555';

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
    if (p.front !== undefined && typeof p.front !== 'boolean')
      throw new ArgumentTypeError(`points[${i}].front`, p.front, 'must be a boolean');
    return { rule, meanSamples, accuracy, front: p.front === true };
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
  // px per unit of accuracy: where the front's label fits (frontLayers)
  const pxPerAccuracy = (options.height ?? PLOT_HEIGHT) / (axis.domain[1] - axis.domain[0]);
  const front = frontLayers(values, x, y, (axis.domain[1] - maxOf(accuracies)) * pxPerAccuracy);
  if (asText) {
    return frame(options, {
      data: { values },
      layer: [
        ...front,
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
  const marks = {
    mark: { type: 'point', filled: true, size: 90, opacity: 0.85 },
    encoding: {
      x,
      y,
      color: { field: 'rule', type: 'nominal', scale: { domain }, legend },
      shape: { field: 'rule', type: 'nominal', scale: { domain }, legend },
    },
  };
  return frame(options, front.length ? { data: { values }, layer: [...front, marks] } : { data: { values }, ...marks });
}

/**
 * The Pareto front's layers (none when no point is marked): a dashed line through the marked
 * points in order of mean samples (then accuracy), drawn under the points, and its label, which
 * ends at the front's right-most point, just above it. No point lies there: a point left of a
 * front point and above it would dominate it. Only when fewer than {@link FRONT_LABEL_ROOM} px
 * separate the top point from the top of the plot (`headroom`) does the label go just below its
 * point instead.
 */
function frontLayers(
  values: ReadonlyArray<{ rule: string; meanSamples: number; accuracy: number; front: boolean }>,
  x: Record<string, unknown>,
  y: Record<string, unknown>,
  headroom: number,
): Record<string, unknown>[] {
  const onFront = values
    .filter((v) => v.front)
    .sort((a, b) => a.meanSamples - b.meanSamples || a.accuracy - b.accuracy)
    .map((v, order) => ({ meanSamples: v.meanSamples, accuracy: v.accuracy, order, front: ACCURACY_FRONT_LABEL }));
  if (onFront.length === 0) return [];
  const above = headroom >= FRONT_LABEL_ROOM;
  return [
    {
      data: { values: onFront },
      mark: { type: 'line', color: FRONT_COLOR, strokeDash: [6, 3], strokeWidth: 1.5 },
      encoding: { x, y, order: { field: 'order', type: 'quantitative' }, description: { field: 'front' } },
    },
    {
      data: { values: onFront.slice(-1) },
      mark: {
        type: 'text',
        color: FRONT_COLOR,
        fontStyle: 'italic',
        align: 'right',
        ...(above ? { baseline: 'bottom', dy: -7 } : { baseline: 'top', dy: 9 }),
      },
      encoding: { x, y, text: { field: 'front' } },
    },
  ];
}

/** Vertical room (px) the front's label needs above its point: the 11-px text and the 7-px gap. */
const FRONT_LABEL_ROOM = 18;

/** Renders an accuracy plot to SVG (arguments and errors as {@link accuracySpec}). */
export async function plotAccuracy(
  points: readonly AccuracyPoint[],
  options: AccuracyPlotOptions = {},
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(accuracySpec(points, options));
}
