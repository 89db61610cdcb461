/**
 * The pictures of a certification report (`ordergap certify --plot DIR` and its HTML report):
 * the commutator Gramian's extreme eigenvalues on each decided subspace, and λ_min of each
 * question's Gramian (under P and under the whole pool), all divided by the tolerance they were
 * decided against, on a log axis with the line at 1 — right of it means non-degenerate /
 * covered (Prop. 5.2, Remark 5.4). The report holds λ_min and λ_max only, not whole spectra.
 */
import type { CertificationReport } from '../certify/certify.js';
import type { NamedPlot } from '../plot/files.js';
import { plotWriter, type PlotWriter } from './plotWriter.js';
import { plotMargins, type MarginPoint } from '../plot/margin.js';

/**
 * The certification fields the plots read (the `--json` document has the same shape, with plain
 * arrays for vectors).
 */
export type CertifyPlotInput = Pick<CertificationReport, 'system' | 'dim' | 'subspaces' | 'coverage'>;

/** File stems of the certification plots. */
export const CERTIFY_PLOT_NAMES = ['certify-subspaces', 'certify-coverage'] as const;

/**
 * Rows of the subspace plot: λ_max and λ_min of G_W per subspace W, over that subspace's
 * λ-tolerance. A ratio above 1 is a nonzero eigenvalue; λ_min ≤ 0 shows at the plot's floor.
 */
export function subspaceMarginPoints(report: CertifyPlotInput): MarginPoint[] {
  return report.subspaces.flatMap((s) => [
    { row: `${s.name} (dim ${s.dim})`, series: 'λ_max', value: s.lambdaMax / s.tolerance },
    { row: `${s.name} (dim ${s.dim})`, series: 'λ_min', value: s.lambdaMin / s.tolerance },
  ]);
}

/** Rows of the coverage plot: λ_min of G_{W_q} under P and under the whole pool, over its tolerance. */
export function coverageMarginPoints(report: CertifyPlotInput): MarginPoint[] {
  return report.coverage.flatMap((q) => [
    { row: `${q.question} (dim ${q.dim})`, series: 'λ_min under P', value: q.lambdaMin / q.tolerance },
    { row: `${q.question} (dim ${q.dim})`, series: 'λ_min, whole pool', value: q.lambdaMinPool / q.tolerance },
  ]);
}

/**
 * Renders the certification plots that have data (a report without subspaces or questions gets
 * no plot for them).
 * Cost: one vega rendering per plot.
 * @example
 * ```ts
 * (await certifyPlots(await certify(system))).map((p) => p.name); // ['certify-subspaces', 'certify-coverage']
 * ```
 */
export async function certifyPlots(report: CertifyPlotInput): Promise<NamedPlot[]> {
  const plots: NamedPlot[] = [];
  if (report.subspaces.length > 0) {
    const p = await plotMargins(subspaceMarginPoints(report), {
      threshold: 1,
      thresholdLabel: 'λ = tolerance',
      valueTitle: 'eigenvalue of the commutator Gramian G_W / its λ-tolerance',
      title: `Non-degeneracy on each subspace (${report.system})`,
      subtitle: 'λ_min right of the line: non-degenerate on W (Prop. 5.2)',
    });
    plots.push({ name: CERTIFY_PLOT_NAMES[0], svg: p.svg });
  }
  if (report.coverage.length > 0) {
    const p = await plotMargins(coverageMarginPoints(report), {
      threshold: 1,
      thresholdLabel: 'λ = tolerance',
      valueTitle: 'λ_min of G_Wq / its λ-tolerance',
      title: `Per-question coverage (${report.system})`,
      subtitle: 'λ_min under P right of the line: the question is covered (Remark 5.4)',
    });
    plots.push({ name: CERTIFY_PLOT_NAMES[1], svg: p.svg });
  }
  return plots;
}

/**
 * Renders the certification plots and writes them to `dir` as SVG and PNG, listing the paths
 * on `log`.
 * @throws {ArgumentError | ArgumentTypeError} bad folder (named `argument`, default `--plot`);
 *   nothing is written then.
 */
export const writeCertifyPlots: PlotWriter<CertifyPlotInput> = plotWriter(certifyPlots);
