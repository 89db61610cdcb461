/**
 * The one shape of the commands' plot writers (`--plot DIR` of run, demo and certify): render a
 * report's plots, then write them as SVG and PNG (src/plot/files.ts).
 */
import { writeNamedPlots, type NamedPlot, type WrittenPlot } from '../plot/files.js';

/**
 * Renders a report's plots and writes them to `dir` as SVG and PNG, listing the paths on `log`
 * (the CLI passes stderr). Errors about the folder name `argument` (default `--plot`).
 * @throws {ArgumentError | ArgumentTypeError} bad folder; nothing is written then.
 */
export type PlotWriter<R> = (
  dir: string,
  report: R,
  log?: { write(s: string): unknown },
  argument?: string,
) => Promise<WrittenPlot[]>;

/**
 * The {@link PlotWriter} of a renderer: `render(report)`, then {@link writeNamedPlots}.
 * @example
 * ```ts
 * const writeMyPlots = plotWriter(async (r: MyReport) => [{ name: 'my-plot', svg: await draw(r) }]);
 * await writeMyPlots('out', report); // out/my-plot.svg, out/my-plot.png
 * ```
 */
export function plotWriter<R>(render: (report: R) => Promise<NamedPlot[]>): PlotWriter<R> {
  return async (dir, report, log, argument = '--plot') => writeNamedPlots(dir, await render(report), log, argument);
}
