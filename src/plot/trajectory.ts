/**
 * Trajectory plot: the order-gap Ω_t (Eq. 2) and its windowed mean Ω̂_{t,w} (Eq. 3) against the
 * step t, the threshold ε as a horizontal line labelled in the right margin (off the data), and
 * the step where Algorithm 1 stopped as a vertical marker. Takes plain records, so any command that records a run can draw it.
 */
import { ArgumentError } from '../util/errors.js';
import { integerInRange, positiveNumber } from '../util/validate.js';
import { maxOf } from '../util/arrays.js';
import { finiteField, formatNumber, optionalFiniteField, recordArray } from './data.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, horizontalThreshold, STOP_COLOR, type PlotFrameOptions } from './theme.js';

/** One step of a run. */
export interface TrajectoryPoint {
  /** Step index t (integer ≥ 1). */
  t: number;
  /** Ω_t (Eq. 2), finite and ≥ 0. */
  omega: number;
  /** Ω̂_{t,w} (Eq. 3); null or absent before the window is full. */
  windowed?: number | null;
}

/** Options of {@link trajectorySpec}. */
export interface TrajectoryPlotOptions extends PlotFrameOptions {
  /** Stopping threshold ε (> 0), drawn as a horizontal line. */
  epsilon: number;
  /** Step where the run stopped on the order-gap; null or absent draws no marker. */
  stopStep?: number | null;
  /** Window length w, used in the legend label Ω̂_{t,w}. */
  window?: number;
  /** Log-scaled y axis (Ω spanning several decades); default false. */
  logScale?: boolean;
}

/** Legend label of the per-step series. */
export const OMEGA_LABEL = 'Ω_t (order-gap)';
/** Legend label of the windowed series for window w. */
export const windowedLabel = (w?: number): string =>
  w === undefined ? 'Ω̂_t (windowed mean)' : `Ω̂_t,${w} (window mean)`;

/**
 * Builds the Vega-Lite specification of a trajectory plot.
 * @throws {ArgumentError | ArgumentTypeError} empty or malformed `points` (names the index and
 *   field), Ω < 0, ε ≤ 0, a stop step that is not one of the points' steps, or a log scale with
 *   a value ≤ 0.
 * Cost: O(number of points).
 * @example
 * ```ts
 * const spec = trajectorySpec([{ t: 1, omega: 0.03 }, { t: 2, omega: 0.02, windowed: 0.025 }],
 *   { epsilon: 0.025, stopStep: 2 });
 * const { svg } = await renderVegaLiteToSvg(spec);
 * ```
 */
export function trajectorySpec(points: readonly TrajectoryPoint[], options: TrajectoryPlotOptions): VegaLiteSpec {
  const rows = recordArray<TrajectoryPoint>('points', points);
  const epsilon = positiveNumber('options.epsilon', options?.epsilon);
  const window = options.window === undefined ? undefined : integerInRange('options.window', options.window, 1);
  const logScale = options.logScale === true;
  const wLabel = windowedLabel(window);
  const values: { t: number; series: string; value: number }[] = [];
  const steps = new Set<number>();
  rows.forEach((p, i) => {
    const t = integerInRange(`points[${i}].t`, p.t, 0);
    const omega = finiteField('points', i, p, 'omega');
    if (omega < 0) throw new ArgumentError(`points[${i}].omega`, omega, 'must be >= 0 (an order-gap is a norm)');
    const windowed = optionalFiniteField('points', i, p, 'windowed');
    if (windowed !== null && windowed < 0)
      throw new ArgumentError(`points[${i}].windowed`, windowed, 'must be >= 0 (a mean of norms)');
    if (logScale && (omega === 0 || windowed === 0))
      throw new ArgumentError(`points[${i}]`, p, 'a log-scaled plot needs values > 0');
    steps.add(t);
    values.push({ t, series: OMEGA_LABEL, value: omega });
    if (windowed !== null) values.push({ t, series: wLabel, value: windowed });
  });
  const stop = options.stopStep ?? null;
  if (stop !== null && !steps.has(integerInRange('options.stopStep', stop, 0)))
    throw new ArgumentError('options.stopStep', stop, 'must be the step of one of the points');

  // linear: the axis runs from 0, so its ticks are i·m·10^e, which '~g' writes with their few
  // significant digits in any decade (vega's default fixed decimals stop at 20: ticks around
  // 1e-22 all read 0.00000000000000000000)
  const y = {
    field: 'value',
    type: 'quantitative',
    title: 'order-gap',
    scale: logScale ? { type: 'log' } : { zero: true },
    ...(logScale ? {} : { axis: { format: '~g' } }),
  };
  const layer: Record<string, unknown>[] = [
    {
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'step t', axis: { tickMinStep: 1, format: 'd' } },
        y,
        color: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: { domain: [OMEGA_LABEL, wLabel], range: ['#4c78a8', '#f58518'] },
          legend: { orient: 'top', labelLimit: 0, symbolStrokeWidth: 2 },
        },
        strokeDash: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: {
            domain: [OMEGA_LABEL, wLabel],
            range: [
              [1, 0],
              [6, 3],
            ],
          },
          legend: { orient: 'top', labelLimit: 0, symbolStrokeWidth: 2 },
        },
      },
    },
    horizontalThreshold('epsilon', epsilon, `ε = ${formatNumber(epsilon)}`),
  ];
  if (stop !== null) {
    // The label goes right of the marker, or left of it when the marker is the last step.
    const atEnd = stop === maxOf(steps);
    layer.push({
      data: { values: [{ t: stop, label: `stop at t = ${stop}` }] },
      layer: [
        {
          mark: { type: 'rule', color: STOP_COLOR, strokeWidth: 2 },
          encoding: { x: { field: 't', type: 'quantitative' } },
        },
        {
          mark: {
            type: 'text',
            color: STOP_COLOR,
            align: atEnd ? 'right' : 'left',
            baseline: 'top',
            dx: atEnd ? -4 : 4,
            y: 2,
          },
          encoding: { x: { field: 't', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    });
  }
  return frame(options, { layer });
}

/**
 * Renders a trajectory plot to SVG (see {@link trajectorySpec} for the arguments and errors).
 * Cost: O(number of points) plus vega's fixed start-up.
 */
export async function plotTrajectory(
  points: readonly TrajectoryPoint[],
  options: TrajectoryPlotOptions,
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(trajectorySpec(points, options));
}
