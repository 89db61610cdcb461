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
import { analyticBoundText, proofText } from './certify.js';
import { certifyPlots } from './certifyPlots.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { formatCell, renderHtmlReport, type HtmlBlock, type HtmlSection, type HtmlTable } from './html.js';
import { threadsText } from './threads.js';
import type { ThreadDecision } from '../linalg/threadChoice.js';

/**
 * What the page reads: a {@link CertificationReport} or the `--json` document of `ordergap
 * certify` (same fields, plain arrays; the CLI adds `source`).
 */
export type CertifyReportInput = Pick<
  CertificationReport,
  'system' | 'dim' | 'state' | 'contraction' | 'redundancy' | 'subspaces' | 'coverage' | 'jacobian' | 'notes'
> & {
  fixedPoint: Omit<CertificationReport['fixedPoint'], 'theta'>;
  source?: string;
  timings?: Record<string, number>;
  /** Node's version and the kernel build the timings ran on. */
  environment?: { node: string; kernels: string; threads?: ThreadDecision };
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
 * Column headers from one line, separated by ' | '; a header ending in '#' is a right-aligned
 * (numeric) column, the '#' dropped.
 */
function columns(headers: string): HtmlTable['columns'] {
  return headers
    .split(' | ')
    .map((h) => (h.endsWith('#') ? { header: h.slice(0, -1), align: 'right' as const } : { header: h }));
}

/** A section of one table (and further blocks after it). */
function tableSection(
  heading: string,
  cols: HtmlTable['columns'],
  rows: HtmlTable['rows'],
  ...more: HtmlBlock[]
): HtmlSection {
  return { heading, blocks: [{ kind: 'table', table: { columns: cols, rows } }, ...more] };
}

/** The contraction results shown: every block checked. */
const contractionRows = (report: CertifyReportInput) => report.contraction;

/**
 * A block's contraction verdict: PASS proved (with its bound, box and enclosure), FAIL refuted,
 * UNVERIFIED when undecided; a declared bound the search refuted is its own FAIL, with the ratio
 * that refutes it.
 */
function contractionVerdicts(c: ReturnType<typeof contractionRows>[number]): HtmlBlock[] {
  const why =
    c.contractive === true
      ? ` — ${proofText(c, formatCell)}`
      : c.contractive === false
        ? ''
        : c.evaluations === 0
          ? ' — no contraction search ran'
          : ` — the search found no pair with ratio ≥ 1 (largest ${formatCell(c.empiricalLowerBound)}), and no ` +
            `proof by enclosure succeeded${c.proof ? ` (${c.proof.evaluations} enclosures)` : ' (none attempted)'}`;
  const out: HtmlBlock[] = [
    { kind: 'verdict', ok: c.contractive, text: `contraction on ${c.subspace} (dim ${c.dim}): ${c.verdict}${why}` },
  ];
  if (c.analyticBoundRefuted && c.analyticBound !== null)
    out.push({
      kind: 'verdict',
      ok: false,
      text:
        `declared Lipschitz bound of Q on ${c.subspace}: ${formatCell(c.analyticBound)} is REFUTED — a pair of ` +
        `states has ratio ‖Q(x) − Q(y)‖/‖x − y‖ = ${formatCell(c.empiricalLowerBound)} > ${formatCell(c.analyticBound)}; ` +
        'the verdict does not use it',
    });
  return out;
}

/** What was certified and how, then one verdict per check (PASS, FAIL or UNVERIFIED). */
function verdictsSection(report: CertifyReportInput): HtmlSection {
  const fp = report.fixedPoint;
  const verdict = (ok: boolean, text: string): HtmlBlock => ({ kind: 'verdict', ok, text });
  const sensitive = (s: { sensitivity: { decidedBy: string | null } }) =>
    s.sensitivity.decidedBy ? ` — SENSITIVE: ${s.sensitivity.decidedBy}` : '';
  return {
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
      verdict(
        fp.converged,
        fp.converged
          ? `fixed point of Q found in ${fp.iterations} iterations (residual ${formatCell(fp.residual)})`
          : `fixed-point iteration did not converge (${fp.iterations} iterations, residual ${formatCell(fp.residual)})`,
      ),
      ...contractionRows(report).flatMap(contractionVerdicts),
      ...report.subspaces.map((s) =>
        verdict(
          s.nonDegenerate,
          `${s.name} (dim ${s.dim}): ${s.nonDegenerate ? 'non-degenerate' : `DEGENERATE, kernel dimension ${s.kernelDim}`}` +
            sensitive(s) +
            (s.proof === 'proved' ? ' — proved at θ*' : ''),
        ),
      ),
      ...report.coverage.map((q) => verdict(q.covered, `${q.question} (W_q: ${q.basis}): ${q.summary}` + sensitive(q))),
    ],
  };
}

/** The fixed-point iteration (Sec. 3.1). */
function fixedPointSection(report: CertifyReportInput): HtmlSection {
  const fp = report.fixedPoint;
  return tableSection(
    'Fixed point of Q',
    columns('converged | iterations# | ‖Q(θ) − θ‖# | last step# | observed rate# | a-posteriori bound#'),
    [
      [
        fp.converged ? 'yes' : 'no',
        fp.iterations,
        fp.residual,
        fp.lastStep,
        num(fp.observedRate),
        num(fp.aPosterioriBound),
      ],
    ],
  );
}

/** The contraction check per block (Sec. 3.1). */
function contractionSection(report: CertifyReportInput): HtmlSection {
  return tableSection(
    'Contraction (Sec. 3.1)',
    columns(
      'block | dim# | verdict | proved upper bound# | lower bound# | ‖DQ‖₂ local# | declared bound# | failing / weakest directions',
    ),
    contractionRows(report).map((c) => [
      c.subspace,
      c.dim,
      c.verdict,
      c.upperBound,
      c.lowerBound,
      `${formatCell(c.localNorm)}${c.localNormKind === 'lower-bound' ? ' (LB)' : ''}`,
      c.analyticBound === null ? null : c.analyticBoundRefuted ? analyticBoundText(c, formatCell) : c.analyticBound,
      names(c.failingDirections),
    ]),
  );
}

/** Redundancy per pool item and the linearisation it selects (Sec. 5.3). */
function redundancySection(report: CertifyReportInput): HtmlSection {
  return tableSection(
    'Redundancy P_e(θ) = θ (Sec. 5.3)',
    columns('evidence | P(e)# | ‖P_e(θ) − θ‖# | holds | linearisation'),
    report.redundancy.map((r) => [
      r.evidence,
      r.p,
      r.residual,
      r.holds ? 'yes' : 'no',
      r.linearization === 'sigma' ? 'Σ_e (Eq. 4)' : 'exact DF_e',
    ]),
  );
}

/**
 * A section of the decisions (subspaces, questions): their table, text blocks, then the plot of
 * their margins over the tolerance with its caption.
 */
function marginSection<T>(
  heading: string,
  header: string,
  rows: readonly T[],
  cells: (row: T) => HtmlTable['rows'][number],
  figure: { svg: string; caption: string },
  text: readonly string[] = [],
): HtmlSection {
  const texts = text.map((t): HtmlBlock => ({ kind: 'text', text: t }));
  return tableSection(heading, columns(header), rows.map(cells), ...texts, { kind: 'figure', ...figure });
}

type SubspaceRow = CertifyReportInput['subspaces'][number];
type CoverageRow = CertifyReportInput['coverage'][number];

/** Non-degeneracy per subspace (Prop. 5.2), the tolerance's derivation and the margin plot. */
function subspacesSection(report: CertifyReportInput, svg: string): HtmlSection {
  const cells = (s: SubspaceRow) => [
    s.name,
    s.dim,
    s.lambdaMin,
    s.lambdaMax,
    s.tolerance,
    s.verdict,
    s.proof,
    s.margin,
    s.kernelDim,
    names(s.kernel[0] ?? [], 2),
  ];
  return marginSection(
    'Non-degeneracy of the commutator Gramian (Prop. 5.2)',
    'subspace | dim# | λ_min# | λ_max# | λ-tolerance# | verdict | at θ* | margin# | kernel dim# | a kernel direction',
    report.subspaces,
    cells,
    {
      svg,
      caption:
        'λ_max and λ_min of G_W over the λ-tolerance, per subspace: λ_min right of the line means non-degenerate.',
    },
    // each subspace has its own tolerance (its rows and dimension enter it): one line each
    report.subspaces.map((s) => `Tolerance of ${s.name}: ${s.toleranceDerivation}`),
  );
}

/** Per-question coverage (Remark 5.4) and its margin plot. */
function coverageSection(report: CertifyReportInput, svg: string): HtmlSection {
  const top = (q: CoverageRow) =>
    q.topContributors
      .slice(0, 3)
      .map((c) => c.evidence)
      .join(', ') || '—';
  const covered = (q: CoverageRow) => (q.verdict === 'sensitive' ? 'sensitive' : q.covered ? 'yes' : 'NO');
  return marginSection(
    'Per-question coverage (Remark 5.4)',
    'question | dim# | covered | λ_min# | λ_min (whole pool)# | ratio# | top items | blind items (p = 0)',
    report.coverage,
    (q) => [
      q.question,
      q.dim,
      covered(q),
      q.lambdaMin,
      q.lambdaMinPool,
      num(q.coverageRatio),
      top(q),
      q.blindItems.join(', ') || '—',
    ],
    {
      svg,
      caption:
        'λ_min of each question’s Gramian over its tolerance, under P and under the whole pool: under P right of the line means covered.',
    },
  );
}

/** Milliseconds per phase, titled with the runtime they ran on when it is known. */
function timingsSection(timings: Record<string, number>, environment?: CertifyReportInput['environment']): HtmlSection {
  return tableSection(
    environment
      ? `Timings (Node ${environment.node}, ${environment.kernels} kernels${environment.threads ? `, ${threadsText(environment.threads)}` : ''})`
      : 'Timings',
    columns('phase | ms#'),
    Object.entries(timings).map(([k, v]) => [k, Math.round(v)]),
  );
}

/**
 * Builds the sections of the certification page (exported so other pages can reuse them):
 * verdicts, fixed point, contraction, redundancy, then non-degeneracy and coverage when there
 * are subspaces or questions, the notes and the timings when there are any.
 * Cost: two plot renderings.
 * @throws {ArgumentTypeError} `report` is not an object.
 */
export async function certifySections(report: CertifyReportInput): Promise<HtmlSection[]> {
  if (report === null || typeof report !== 'object')
    throw new ArgumentTypeError('report', report, 'must be a certification report');
  const plots = new Map((await certifyPlots(report)).map((p) => [p.name, p.svg]));
  const sections = [
    verdictsSection(report),
    fixedPointSection(report),
    contractionSection(report),
    redundancySection(report),
  ];
  if (report.subspaces.length > 0) sections.push(subspacesSection(report, plots.get('certify-subspaces')!));
  if (report.coverage.length > 0) sections.push(coverageSection(report, plots.get('certify-coverage')!));
  if (report.notes.length > 0)
    sections.push({ heading: 'Notes', blocks: report.notes.map((n): HtmlBlock => ({ kind: 'text', text: n })) });
  if (report.timings && Object.keys(report.timings).length > 0)
    sections.push(timingsSection(report.timings, report.environment));
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
