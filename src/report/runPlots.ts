/**
 * The picture of `ordergap run --plot DIR`: Ω_t and Ω̂_t,w of Algorithm 1 on a graph scenario
 * against the step, with ε and the stop (log scale when every order-gap is positive: on the
 * reference graph they span several decades).
 */
import type { RunReport } from './run.js';
import type { NamedPlot } from '../plot/files.js';
import { plotWriter, type PlotWriter } from './plotWriter.js';
import { plotTrajectory } from '../plot/trajectory.js';

/** File stems of the run's plots. */
export const RUN_PLOT_NAMES = ['run-trajectory'] as const;

/**
 * Renders the run's trajectory plot to SVG.
 * @throws {ArgumentError} a malformed report (see {@link plotTrajectory}).
 * Cost: one vega rendering, linear in the number of steps.
 * @example
 * ```ts
 * (await runPlots(await runReport()))[0].name; // 'run-trajectory'
 * ```
 */
export async function runPlots(report: RunReport): Promise<NamedPlot[]> {
  const s = report.setting;
  const positive = report.trajectory.every((r) => r.omega > 0 && (r.windowed === null || r.windowed > 0));
  const stopped = report.stop.reason === 'order-gap';
  const plot = await plotTrajectory(report.trajectory, {
    epsilon: s.epsilon,
    window: s.window,
    stopStep: stopped ? report.stop.step : null,
    logScale: positive,
    title: `Algorithm 1 on ${report.scenario.source}: order-gap against the step`,
    subtitle:
      `d = ${report.scenario.dim}, ${report.scenario.evidenceItems} evidence items, ε = ${s.epsilon}, w = ${s.window}, ` +
      `seed ${s.seed}; ` +
      (stopped ? `stops at step ${report.stop.step} of ${report.stop.budget}` : `no stop (${report.stop.reason})`),
  });
  return [{ name: RUN_PLOT_NAMES[0], svg: plot.svg }];
}

/**
 * Renders the run's plots and writes them to `dir` as SVG and PNG, listing the paths on `log`.
 * @throws {ArgumentError | ArgumentTypeError} bad folder (named `argument`, default `--plot`);
 *   nothing is written then.
 */
export const writeRunPlots: PlotWriter<RunReport> = plotWriter(runPlots);
