/**
 * The pictures of `ordergap demo --plot DIR`: the Sec. 9.2 trajectory (Ω_t and Ω̂_t,w against
 * t, ε, the stop of Algorithm 1) and the same for the coverage-failure variant.
 */
import type { DemoReport } from './demo.js';
import type { NamedPlot } from '../plot/files.js';
import { plotWriter, type PlotWriter } from './plotWriter.js';
import { plotTrajectory } from '../plot/trajectory.js';

/** File stems of the demo's plots. */
export const DEMO_PLOT_NAMES = ['demo-trajectory', 'demo-coverage-failure'] as const;

/**
 * Renders the demo's two trajectory plots to SVG.
 * @throws {ArgumentError} a malformed report (see {@link plotTrajectory}).
 * Cost: two vega renderings (tens of milliseconds each after the first).
 * @example
 * ```ts
 * const plots = await demoPlots(demoReport());
 * plots.map((p) => p.name); // ['demo-trajectory', 'demo-coverage-failure']
 * ```
 */
export async function demoPlots(report: DemoReport): Promise<NamedPlot[]> {
  const s = report.setting;
  const main = report.orderGapStop;
  const cf = report.coverageFailure;
  const unreachable = cf.poolCheck.unreachableItems;
  const trajectory = await plotTrajectory(report.trajectory, {
    epsilon: s.epsilon,
    window: s.window,
    stopStep: main.reason === 'order-gap' ? main.step : null,
    title: 'Closed-form system (Sec. 9.2): order-gap against the step',
    subtitle:
      `ρ = ${s.rho}, α = (${s.alphas.join(', ')}), ε = ${s.epsilon}, w = ${s.window}, Tmax = ${s.maxSteps}; ` +
      (main.reason === 'order-gap' ? `Algorithm 1 stops at step ${main.step}` : `no order-gap stop (${main.reason})`),
  });
  const coverage = await plotTrajectory(cf.trajectory, {
    epsilon: s.epsilon,
    window: s.window,
    stopStep: cf.stop.reason === 'order-gap' ? cf.stop.step : null,
    title: 'Coverage failure: pertinent items never sampled',
    subtitle: cf.allReachable
      ? 'the pool check finds no unreachable item that would move the state'
      : `NOT convergence: ${unreachable.join(', ')} (probability 0) would still move the state by more than ε`,
  });
  return [
    { name: DEMO_PLOT_NAMES[0], svg: trajectory.svg },
    { name: DEMO_PLOT_NAMES[1], svg: coverage.svg },
  ];
}

/**
 * Renders the demo's plots and writes them to `dir` as SVG and PNG (see {@link plotWriter}).
 * @throws {ArgumentError | ArgumentTypeError} bad folder; nothing is written then.
 */
export const writeDemoPlots: PlotWriter<DemoReport> = plotWriter(demoPlots);
