/**
 * Spectrum plot: eigenvalues (for instance of a commutator Gramian) on a log scale, sorted, with
 * the rank/definiteness tolerance as a horizontal line, so it is visible how far the smallest
 * eigenvalue sits above or below it. Eigenvalues ≤ 0 (which a log axis cannot show) are drawn
 * at a floor below every positive value and the tolerance, with their own marker.
 */
import { ArgumentError } from '../util/errors.js';
import { positiveNumber } from '../util/validate.js';
import { minOf } from '../util/arrays.js';
import { finiteField, formatNumber, recordArray } from './data.js';
import { renderVegaLiteToSvg, type RenderedSvg, type VegaLiteSpec } from './render.js';
import { frame, horizontalThreshold, type PlotFrameOptions } from './theme.js';

/** One eigenvalue; `group` separates several spectra (one per question, say). */
export interface SpectrumPoint {
  value: number;
  group?: string;
}

/** Options of {@link spectrumSpec}. */
export interface SpectrumPlotOptions extends PlotFrameOptions {
  /** Tolerance (> 0) a value must exceed to count as nonzero; drawn as a line. */
  tolerance: number;
  /** Axis title of the values; default 'eigenvalue λ'. */
  valueTitle?: string;
}

/** Category labels of the points (legend). */
export const SPECTRUM_CLASSES = ['above tolerance', 'at or below tolerance', '≤ 0 (drawn at floor)'] as const;

/**
 * Where values ≤ 0 are drawn: a decade below the smallest of the positive values and the
 * tolerance, so the floor is visibly under everything else on the log axis.
 */
export function spectrumFloor(values: readonly number[], tolerance: number): number {
  const positive = values.filter((v) => v > 0);
  return minOf(positive, tolerance) / 10;
}

/**
 * Builds the Vega-Lite specification of a spectrum plot. Within each group the values are
 * sorted in decreasing order and plotted against their rank 1, 2, ….
 * @throws {ArgumentError | ArgumentTypeError} empty or malformed `values`, tolerance ≤ 0.
 * Cost: O(n log n) for the sort.
 * @example
 * ```ts
 * spectrumSpec([{ value: 2 }, { value: 1e-3 }, { value: 0 }], { tolerance: 1e-8 });
 * ```
 */
export function spectrumSpec(values: readonly SpectrumPoint[], options: SpectrumPlotOptions): VegaLiteSpec {
  const rows = recordArray<SpectrumPoint>('values', values);
  const tolerance = positiveNumber('options.tolerance', options?.tolerance);
  const parsed = rows.map((r, i) => {
    const value = finiteField('values', i, r, 'value');
    const g = r.group;
    if (g !== undefined && typeof g !== 'string') throw new ArgumentError(`values[${i}].group`, g, 'must be a string');
    return { value, group: g ?? 'λ' };
  });
  const floor = spectrumFloor(
    parsed.map((p) => p.value),
    tolerance,
  );
  const groups = [...new Set(parsed.map((p) => p.group))];
  const data = groups.flatMap((group) =>
    parsed
      .filter((p) => p.group === group)
      .sort((a, b) => b.value - a.value)
      .map((p, k) => ({
        rank: k + 1,
        group,
        value: p.value,
        shown: p.value > 0 ? p.value : floor,
        class: p.value > tolerance ? SPECTRUM_CLASSES[0] : p.value > 0 ? SPECTRUM_CLASSES[1] : SPECTRUM_CLASSES[2],
      })),
  );
  const multi = groups.length > 1;
  const x = {
    field: 'rank',
    type: 'quantitative',
    title: 'rank (largest first)',
    axis: { tickMinStep: 1, format: 'd' },
  };
  const y = {
    field: 'shown',
    type: 'quantitative',
    title: options.valueTitle ?? 'eigenvalue λ',
    scale: { type: 'log' },
  };
  const layer: Record<string, unknown>[] = [
    {
      data: { values: data },
      layer: [
        ...(multi
          ? [{ mark: { type: 'line', opacity: 0.4 }, encoding: { x, y, detail: { field: 'group', type: 'nominal' } } }]
          : []),
        {
          mark: { type: 'point', filled: true, size: 60 },
          encoding: {
            x,
            y,
            color: {
              field: 'class',
              type: 'nominal',
              title: null,
              scale: { domain: [...SPECTRUM_CLASSES], range: ['#4c78a8', '#e45756', '#7f7f7f'] },
              legend: { orient: 'top', labelLimit: 0 },
            },
            shape: multi
              ? { field: 'group', type: 'nominal', title: null, legend: { orient: 'top', labelLimit: 0 } }
              : { value: 'circle' },
          },
        },
      ],
    },
    horizontalThreshold('tolerance', tolerance, `tolerance = ${formatNumber(tolerance)}`),
  ];
  return frame(options, { layer });
}

/** Renders a spectrum plot to SVG (arguments and errors as {@link spectrumSpec}). */
export async function plotSpectrum(
  values: readonly SpectrumPoint[],
  options: SpectrumPlotOptions,
): Promise<RenderedSvg> {
  return renderVegaLiteToSvg(spectrumSpec(values, options));
}
