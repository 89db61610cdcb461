/**
 * The HTML page of a certification (`ordergap certify --report FILE.html`): verdicts first, then
 * the fixed point, contraction, redundancy, non-degeneracy on each subspace (Prop. 5.2) and
 * per-question coverage (Remark 5.4) as tables, with the margin plots inline, and the notes.
 * One self-contained file (see {@link renderHtmlReport}).
 */
import { existsSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { dirname } from 'node:path';
import type { CertificationReport } from '../certify/certify.js';
import { certifyPlots } from './certifyPlots.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { formatCell, renderHtmlReport, type HtmlBlock, type HtmlSection } from './html.js';

/**
 * What the page reads: a {@link CertificationReport} or the `--json` document of `ordergap
 * certify` (same fields, plain arrays; the CLI adds `source`).
 */
export type CertifyReportInput = Pick<
  CertificationReport,
  | 'system'
  | 'dim'
  | 'state'
  | 'contraction'
  | 'contractionBySubspace'
  | 'redundancy'
  | 'subspaces'
  | 'coverage'
  | 'jacobian'
  | 'notes'
> & {
  fixedPoint: Omit<CertificationReport['fixedPoint'], 'theta'>;
  source?: string;
  timings?: Record<string, number>;
};

const num = (x: number | null | undefined): string | number | null => (x === undefined ? null : x);
const names = (xs: readonly { name: string; value: number }[], k = 3): string =>
  xs.length === 0
    ? '—'
    : xs
        .slice(0, k)
        .map((c) => `${c.name} (${formatCell(c.value)})`)
        .join(', ');

/**
 * Builds the sections of the certification page (exported so other pages can reuse them).
 * Cost: two plot renderings.
 * @throws {ArgumentTypeError} `report` is not an object.
 */
export async function certifySections(report: CertifyReportInput): Promise<HtmlSection[]> {
  if (report === null || typeof report !== 'object')
    throw new ArgumentTypeError('report', report, 'must be a certification report');
  const plots = new Map((await certifyPlots(report)).map((p) => [p.name, p.svg]));
  const fp = report.fixedPoint;
  const contraction = report.contractionBySubspace.length > 0 ? report.contractionBySubspace : [report.contraction];

  const verdicts: HtmlBlock[] = [
    {
      kind: 'verdict',
      ok: fp.converged,
      text: fp.converged
        ? `fixed point of Q found in ${fp.iterations} iterations (residual ${formatCell(fp.residual)})`
        : `fixed-point iteration did not converge (${fp.iterations} iterations, residual ${formatCell(fp.residual)})`,
    },
    ...contraction.map(
      (c): HtmlBlock => ({
        kind: 'verdict',
        ok: c.contractive === true,
        text: `contraction on ${c.subspace} (dim ${c.dim}): ${c.verdict}`,
      }),
    ),
    ...report.subspaces.map(
      (s): HtmlBlock => ({
        kind: 'verdict',
        ok: s.nonDegenerate,
        text:
          `${s.name} (dim ${s.dim}): ${s.nonDegenerate ? 'non-degenerate' : `DEGENERATE, kernel dimension ${s.kernelDim}`}` +
          (s.sensitivity.decidedBy ? ` — SENSITIVE: ${s.sensitivity.decidedBy}` : ''),
      }),
    ),
    ...report.coverage.map(
      (q): HtmlBlock => ({
        kind: 'verdict',
        ok: q.covered,
        text:
          `${q.question} (W_q: ${q.basis}): ${q.summary}` +
          (q.sensitivity.decidedBy ? ` — SENSITIVE: ${q.sensitivity.decidedBy}` : ''),
      }),
    ),
  ];

  const sections: HtmlSection[] = [
    {
      heading: 'Verdicts',
      blocks: [
        {
          kind: 'text',
          text:
            `System ${report.system}${report.source ? ` (${report.source})` : ''}, d = ${report.dim}; ` +
            `linearised at: ${report.state.note ?? report.state.kind} (‖θ‖ = ${formatCell(report.state.norm)}). ` +
            `Jacobians: ${report.jacobian.method}, relative accuracy ${formatCell(report.jacobian.relativeAccuracy)}, ` +
            `${report.jacobian.evaluations} operator evaluations.`,
        },
        ...verdicts,
      ],
    },
    {
      heading: 'Fixed point of Q',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { header: 'converged' },
              { header: 'iterations', align: 'right' },
              { header: '‖Q(θ) − θ‖', align: 'right' },
              { header: 'last step', align: 'right' },
              { header: 'observed rate', align: 'right' },
              { header: 'a-posteriori bound', align: 'right' },
            ],
            rows: [
              [
                fp.converged ? 'yes' : 'no',
                fp.iterations,
                fp.residual,
                fp.lastStep,
                num(fp.observedRate),
                num(fp.aPosterioriBound),
              ],
            ],
          },
        },
      ],
    },
    {
      heading: 'Contraction (Sec. 3.1)',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { header: 'block' },
              { header: 'dim', align: 'right' },
              { header: 'verdict' },
              { header: 'empirical lower bound', align: 'right' },
              { header: '‖DQ‖₂ local', align: 'right' },
              { header: 'analytic upper bound', align: 'right' },
              { header: 'failing / weakest directions' },
            ],
            rows: contraction.map((c) => [
              c.subspace,
              c.dim,
              c.verdict,
              c.empiricalLowerBound,
              `${formatCell(c.localNorm)}${c.localNormKind === 'lower-bound' ? ' (LB)' : ''}`,
              num(c.analyticBound),
              names(c.failingDirections),
            ]),
          },
        },
      ],
    },
    {
      heading: 'Redundancy P_e(θ) = θ (Sec. 5.3)',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { header: 'evidence' },
              { header: 'P(e)', align: 'right' },
              { header: '‖P_e(θ) − θ‖', align: 'right' },
              { header: 'holds' },
              { header: 'linearisation' },
            ],
            rows: report.redundancy.map((r) => [
              r.evidence,
              r.p,
              r.residual,
              r.holds ? 'yes' : 'no',
              r.linearization === 'sigma' ? 'Σ_e (Eq. 4)' : 'exact DF_e',
            ]),
          },
        },
      ],
    },
  ];

  if (report.subspaces.length > 0) {
    sections.push({
      heading: 'Non-degeneracy of the commutator Gramian (Prop. 5.2)',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { header: 'subspace' },
              { header: 'dim', align: 'right' },
              { header: 'λ_min', align: 'right' },
              { header: 'λ_max', align: 'right' },
              { header: 'λ-tolerance', align: 'right' },
              { header: 'verdict' },
              { header: 'margin', align: 'right' },
              { header: 'kernel dim', align: 'right' },
              { header: 'a kernel direction' },
            ],
            rows: report.subspaces.map((s) => [
              s.name,
              s.dim,
              s.lambdaMin,
              s.lambdaMax,
              s.tolerance,
              s.verdict,
              s.margin,
              s.kernelDim,
              names(s.kernel[0] ?? [], 2),
            ]),
          },
        },
        ...report.subspaces
          .slice(0, 1)
          .map((s): HtmlBlock => ({ kind: 'text', text: `Tolerance: ${s.toleranceDerivation}` })),
        {
          kind: 'figure',
          svg: plots.get('certify-subspaces')!,
          caption:
            'λ_max and λ_min of G_W over the λ-tolerance, per subspace: λ_min right of the line means non-degenerate.',
        },
      ],
    });
  }
  if (report.coverage.length > 0) {
    sections.push({
      heading: 'Per-question coverage (Remark 5.4)',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { header: 'question' },
              { header: 'dim', align: 'right' },
              { header: 'covered' },
              { header: 'λ_min', align: 'right' },
              { header: 'λ_min (whole pool)', align: 'right' },
              { header: 'ratio', align: 'right' },
              { header: 'top items' },
              { header: 'blind items (p = 0)' },
            ],
            rows: report.coverage.map((q) => [
              q.question,
              q.dim,
              q.verdict === 'sensitive' ? 'sensitive' : q.covered ? 'yes' : 'NO',
              q.lambdaMin,
              q.lambdaMinPool,
              num(q.coverageRatio),
              q.topContributors
                .slice(0, 3)
                .map((c) => c.evidence)
                .join(', ') || '—',
              q.blindItems.join(', ') || '—',
            ]),
          },
        },
        {
          kind: 'figure',
          svg: plots.get('certify-coverage')!,
          caption:
            'λ_min of each question’s Gramian over its tolerance, under P and under the whole pool: under P right of the line means covered.',
        },
      ],
    });
  }
  if (report.notes.length > 0)
    sections.push({ heading: 'Notes', blocks: report.notes.map((n): HtmlBlock => ({ kind: 'text', text: n })) });
  if (report.timings && Object.keys(report.timings).length > 0) {
    sections.push({
      heading: 'Timings',
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [{ header: 'phase' }, { header: 'ms', align: 'right' }],
            rows: Object.entries(report.timings).map(([k, v]) => [k, Math.round(v)]),
          },
        },
      ],
    });
  }
  return sections;
}

/**
 * Renders a certification as one self-contained HTML page.
 * @throws {ArgumentTypeError} `report` is not an object; {ArgumentError} malformed fields.
 * Cost: two plot renderings plus linear work in the report's size.
 * @example
 * ```ts
 * const html = await renderCertifyReport(await certify(closedFormSystem()));
 * ```
 */
export async function renderCertifyReport(report: CertifyReportInput): Promise<string> {
  const sections = await certifySections(report);
  return renderHtmlReport({
    title: `Certification of ${report.system}`,
    subtitle: `d = ${report.dim}; ${report.state.note ?? report.state.kind}`,
    sections,
  });
}

/**
 * Renders the certification page and writes it to `file` (under a temporary name, then
 * renamed: never a half-written page), listing the path on `log` when given.
 * @throws {ArgumentTypeError | ArgumentError} `file` not a non-empty string, an existing folder,
 *   or in a folder that does not exist (named `argument`, default `--report`); nothing is
 *   written then.
 * Cost: as {@link renderCertifyReport}.
 * @example
 * ```ts
 * await writeCertifyReport('certify.html', report);
 * ```
 */
export async function writeCertifyReport(
  file: string,
  report: CertifyReportInput,
  log?: { write(s: string): unknown },
  argument = '--report',
): Promise<string> {
  if (typeof file !== 'string' || file.length === 0)
    throw new ArgumentTypeError(argument, file, 'must be the path of an HTML file');
  if (existsSync(file) && statSync(file).isDirectory()) throw new ArgumentError(argument, file, 'is a folder');
  const parent = dirname(file);
  if (!existsSync(parent) || !statSync(parent).isDirectory())
    throw new ArgumentError(argument, file, `its folder ${parent} does not exist`);
  const html = await renderCertifyReport(report);
  writeFileAtomicSync(file, html);
  log?.write(`wrote ${file}\n`);
  return file;
}
