/**
 * The report of `ordergap certify` from a request in the command's terms (a built-in system
 * name or an operator module file, graph and evidence files, subspace and question names, a
 * state as text), and its text rendering. The command prints exactly {@link certifyReport}'s
 * result; {@link certify} is the same computation on a system object.
 */
import { certify, type CertificationReport, type CertifyOptions } from '../certify/certify.js';
import type { ContractionResult } from '../certify/contraction.js';
import { proofCertificate, type ProofCertificate } from '../certify/certificate.js';
import { formatComponents } from '../certify/describe.js';
import type { OperatorSystem } from '../system/types.js';
import { resolveSystem } from './systems.js';
import { fixed, renderTable } from './table.js';
import { ArgumentError } from '../util/errors.js';
import { pushAll } from '../util/arrays.js';
import { init, type KernelBuild } from '../wasm/module.js';
import {
  checkThreadRequest,
  threadDecision,
  withThreads,
  type ThreadDecision,
  type ThreadRequest,
} from '../linalg/threadChoice.js';

/** A certification request in the command's terms (every field optional). */
export interface CertifyRequest {
  /** 'reference-graph' (default), 'closed-form', or an operator module file (.mjs). */
  system?: string;
  graph?: string;
  evidence?: string;
  subspace?: string[];
  question?: string[];
  jacobian?: 'fd' | 'autodiff';
  linearization?: 'auto' | 'sigma' | 'exact';
  /** 'stop' or comma-separated coordinates. */
  at?: string;
  from?: 'theta0' | 'stop';
  probabilities?: Record<string, number>;
  epsilon?: number;
  window?: number;
  maxSteps?: number;
  seed?: number;
  samples?: number;
  radius?: number;
  /** Keep the per-phase timings in the report (default true; false makes two runs byte-identical). */
  timings?: boolean;
  /** Prove contraction by enclosure where the system has an interval or tfjs form (default true). */
  proofs?: boolean;
  /** Enclosures per contraction block at most. */
  proofBudget?: number;
  /** Largest d·|W| proved (contraction blocks and subspaces). */
  proofMaxEntries?: number;
  /**
   * Worker threads for the certification (its Gramians): a count, or 'auto' (measured; see
   * `startThreads`); the pool is started before and the previous one put back after. Default:
   * whatever pool runs (none unless the caller started one).
   */
  threads?: ThreadRequest;
}

/**
 * The certification report with where the system came from; the fixed point's θ is kept only
 * for small systems (d <= 64, like `state.theta`), so the document stays readable at large d.
 */
export type CertifyReport = Omit<CertificationReport, 'fixedPoint' | 'timings'> & {
  fixedPoint: Omit<CertificationReport['fixedPoint'], 'theta'> & { theta: Float64Array | null };
  source: string;
  /** Milliseconds per phase; absent with `timings: false` (`--no-timings`). */
  timings?: Record<string, number>;
  /** What the timings ran on: Node's version and the kernel build; absent with the timings. */
  environment?: RunEnvironment;
};

/** The runtime a report's timings were measured on. */
export interface RunEnvironment {
  /** `process.version`. */
  node: string;
  /** The build of the wasm kernels that ran (`init`'s `kernels`). */
  kernels: KernelBuild;
  /** The threads the work ran on and, for 'auto', the probe that chose them. */
  threads: ThreadDecision;
}

/** The request's system (src/report/systems.ts, as `ordergap run` resolves it) and where it came from. */
async function resolveCertified(opts: CertifyRequest): Promise<{ system: OperatorSystem; source: string }> {
  const r = await resolveSystem({
    ...(opts.system !== undefined ? { system: opts.system } : {}),
    ...(opts.graph !== undefined ? { graph: opts.graph } : {}),
    ...(opts.evidence !== undefined ? { evidence: opts.evidence } : {}),
    ...(opts.probabilities !== undefined ? { probabilities: opts.probabilities } : {}),
  });
  return { system: r.system, source: r.origin === 'default' ? 'default scenario' : r.source };
}

function parseState(system: OperatorSystem, value: string): Float64Array {
  const parts = value.split(',').map((s) => Number(s.trim()));
  if (parts.length !== system.dim || parts.some((x) => !Number.isFinite(x)))
    throw new ArgumentError(
      '--at',
      value,
      `must be 'stop' or ${system.dim} comma-separated finite numbers (the state of ${system.name})`,
    );
  return Float64Array.from(parts);
}

/**
 * Resolves the request's system, certifies it with the system's own policy for everything the
 * request leaves open, and returns the report (no printing).
 * @throws {ArgumentError} bad options, unknown system/subspace, unreadable files.
 */
export async function certifyReport(
  request: CertifyRequest = {},
  onProgress?: CertifyOptions['onProgress'],
): Promise<CertifyReport> {
  const opts = request;
  if (opts.threads !== undefined) checkThreadRequest('threads', opts.threads);
  const { kernels } = await init(); // before the system is built, so the graph's Q runs on the wasm kernels
  const { system, source } = await resolveCertified(opts);
  const options: CertifyOptions = {
    jacobian: opts.jacobian ?? 'fd',
    linearization: opts.linearization ?? 'auto',
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
    ...(opts.radius !== undefined ? { radius: opts.radius } : {}),
    ...(opts.from !== undefined ? { from: opts.from } : {}),
    ...(opts.proofs !== undefined ? { proofs: opts.proofs } : {}),
    ...(opts.proofBudget !== undefined ? { proofBudget: opts.proofBudget } : {}),
    ...(opts.proofMaxEntries !== undefined ? { proofMaxEntries: opts.proofMaxEntries } : {}),
    ...(onProgress ? { onProgress } : {}),
  };
  const run = {
    ...(opts.epsilon !== undefined ? { epsilon: opts.epsilon } : {}),
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
  };
  if (Object.keys(run).length) options.run = run;
  if (opts.subspace?.length) options.subspaces = opts.subspace;
  if (opts.question?.length) options.questions = opts.question;
  if (opts.at === 'stop') options.at = 'stop';
  else if (opts.at !== undefined) options.at = parseState(system, opts.at);
  const { value: full, decision } = await withThreads(opts.threads, () => certify(system, options));
  const { timings, ...report } = full;
  const threads = decision ?? threadDecision();
  const out: CertifyReport = {
    ...report,
    fixedPoint: { ...report.fixedPoint, theta: report.dim <= 64 ? report.fixedPoint.theta : null },
    source,
    ...(opts.timings === false ? {} : { timings, environment: { node: process.version, kernels, threads } }),
  };
  certificates.set(out, proofCertificate(system, full));
  return out;
}

/** The proof certificate of each report {@link certifyReport} returned (not part of its JSON). */
const certificates = new WeakMap<CertifyReport, ProofCertificate | null>();

/**
 * The proof certificate of a report from {@link certifyReport}: every proved contraction block's
 * boxes, enclosures and bounds (src/certify/certificate.ts), or null when none was proved.
 */
export function certificateOf(report: CertifyReport): ProofCertificate | null {
  return certificates.get(report) ?? null;
}

const cols = (...h: string[]) =>
  h.map((header, i) => ({ header, align: (i === 0 ? 'left' : 'right') as 'left' | 'right' }));

const g = (x: number): string =>
  x === 0 ? '0' : Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? fixed(x, 4) : x.toExponential(3);

/**
 * A contraction block's declared analytic bound as the reports show it: '—' when none is
 * declared, the bound, or — when the search found a pair whose ratio exceeds it — the bound
 * marked REFUTED with that ratio, the evidence against it.
 * @example
 * ```ts
 * analyticBoundText({ analyticBound: 0.2, analyticBoundRefuted: true, empiricalLowerBound: 0.9 }, String);
 * // '0.2 REFUTED by ratio 0.9'
 * ```
 */
export function analyticBoundText(
  c: Pick<ContractionResult, 'analyticBound' | 'analyticBoundRefuted' | 'empiricalLowerBound'>,
  format: (x: number) => string,
): string {
  if (c.analyticBound === null) return '—';
  return c.analyticBoundRefuted
    ? `${format(c.analyticBound)} REFUTED by ratio ${format(c.empiricalLowerBound)}`
    : format(c.analyticBound);
}

/** What was certified, where, and with which Jacobians. */
function headerLines(r: CertifyReport): string[] {
  const out = [
    `ordergap certify — ${r.system} (${r.source}), d = ${r.dim}`,
    `state: ${r.state.note ?? r.state.kind}${r.state.theta ? ` = (${r.state.theta.map((x) => g(x)).join(', ')})` : ''}`,
    `Jacobians: ${r.jacobian.method}${r.jacobian.backend ? ` (tfjs backend ${r.jacobian.backend})` : ''}, relative accuracy ${r.jacobian.relativeAccuracy.toExponential(2)}, ${r.jacobian.evaluations} operator evaluations`,
  ];
  if (r.jacobian.crossCheck)
    out.push(
      `  FD vs autodiff on ${r.jacobian.crossCheck.columnsChecked} columns of DQ: ${r.jacobian.crossCheck.agree ? 'agree' : 'DISAGREE'} (worst ${g(r.jacobian.crossCheck.worstRatio)}× tolerance)`,
    );
  return out;
}

/** The fixed-point iteration and the uniqueness statement. */
function fixedPointLines(r: CertifyReport): string[] {
  const fp = r.fixedPoint;
  return [
    fp.diverged
      ? `Fixed point of Q: the iteration DIVERGED after ${fp.iterations} iterations (‖θ_n‖ = ${fp.iterateNorms.map((x) => g(x)).join(', ')}): Q expands`
      : `Fixed point of Q: ${fp.converged ? 'converged' : 'NOT converged'} in ${fp.iterations} iterations, residual ‖Q(θ)−θ‖ = ${g(fp.residual)}` +
        (fp.aPosterioriBound !== null ? `, ‖θ−θ*‖ <= ${g(fp.aPosterioriBound)} (ρ = ${fp.rho})` : '') +
        (fp.observedRate !== null ? `, observed rate ${g(fp.observedRate)}` : ''),
    `Uniqueness of the fixed point: ${r.uniqueness.statement}`,
  ];
}

/** A proved box and enclosure in words: half-widths around θ̂ and the enclosure's width. */
export function proofText(c: ContractionResult, format: (x: number) => string): string {
  if (c.verdict !== 'proved' || !c.box || !c.fixedPointEnclosure) return '';
  let half = 0;
  for (let k = 0; k < c.box.lo.length; k++) half = Math.max(half, (c.box.hi[k]! - c.box.lo[k]!) / 2);
  let width = 0;
  const e = c.fixedPointEnclosure;
  for (let k = 0; k < e.lo.length; k++) width = Math.max(width, e.hi[k]! - e.lo[k]!);
  return `‖Dg‖₂ <= ${format(c.upperBound!)} on a box of half-width <= ${format(half)}; fixed point enclosed to width ${format(width)}`;
}

/** The contraction table and each block's search and proof. */
function contractionLines(r: CertifyReport): string[] {
  const out = [
    'Contraction (Sec. 3.1 Assumption):',
    renderTable(
      cols(
        'block',
        'dim',
        'verdict',
        'upper bound',
        'lower bound',
        '‖DQ‖₂ local',
        'declared',
        'failing / weakest directions',
      ),
      r.contraction.map((c) => [
        c.subspace,
        String(c.dim),
        c.verdict,
        c.upperBound === null ? '—' : g(c.upperBound),
        g(c.lowerBound),
        `${g(c.localNorm)}${c.localNormKind === 'lower-bound' ? ' (LB)' : ''}`,
        analyticBoundText(c, g),
        c.verdict === 'proved' ? '' : formatComponents(c.failingDirections.slice(0, 3)),
      ]),
    ),
  ];
  for (const c of r.contraction) {
    out.push(
      `  ${c.subspace}: searched ${c.searchBox}; budget ${c.budget.samples} random pairs, ${c.budget.probes} coordinate probes, ${c.budget.starts} ascent start(s) × ${c.budget.ascentSteps} steps in all, ${c.budget.evaluations} evaluations of Q`,
    );
    if (c.verdict === 'proved') out.push(`  ${c.subspace}: PROVED for ${c.proofStatement}: ${proofText(c, g)}`);
    else if (c.proof)
      out.push(
        `  ${c.subspace}: proof undecided after ${c.proof.evaluations} enclosures: ${c.proof.attempts.map((a) => `${a.radius === null ? 'given box' : `radius ${g(a.radius)}`}: ${a.outcome}`).join('; ')}`,
      );
    if (c.analyticBoundRefuted)
      out.push(
        `  ${c.subspace}: the declared Lipschitz bound ${c.analyticBound} is REFUTED by a pair with ratio ${g(c.empiricalLowerBound)}; it is not used`,
      );
  }
  return out;
}

/** Redundancy: how many items it holds for, and which linearisation the others use. */
function redundancyLine(r: CertifyReport): string {
  const failing = r.redundancy.filter((x) => !x.holds);
  const used = failing.every((x) => x.linearization === 'sigma')
    ? 'Σ_e of Eq. (4) forced by --linearization sigma'
    : failing.every((x) => x.linearization === 'exact')
      ? 'exact DF_e used'
      : 'per item: Σ_e or DF_e';
  const listed = failing
    .map((x) => `${x.evidence} (${g(x.residual)})`)
    .slice(0, 8)
    .join(', ');
  return (
    `Redundancy P_e(θ) = θ (Sec. 5.3): holds for ${r.redundancy.length - failing.length} of ${r.redundancy.length} items` +
    (failing.length ? `; fails (${used}) for: ${listed}${failing.length > 8 ? ', …' : ''}` : '')
  );
}

/** Non-degeneracy per subspace (Prop. 5.2) with each tolerance and sensitivity. */
function subspaceLines(r: CertifyReport): string[] {
  const out = [
    `Non-degeneracy of the commutator Gramian on subspaces (Prop. 5.2), ${r.subspaceChoice}:`,
    renderTable(
      cols('subspace', 'dim', 'λ_min', 'λ_max', 'tolerance', 'verdict', 'at θ*', 'kernel dim', 'a kernel direction'),
      r.subspaces.map((s) => [
        s.name,
        String(s.dim),
        g(s.lambdaMin),
        g(s.lambdaMax),
        g(s.tolerance),
        s.verdict === 'sensitive' ? `sensitive (${s.nonDegenerate ? 'non-degenerate' : 'degenerate'} here)` : s.verdict,
        s.proof,
        String(s.kernelDim),
        s.kernel[0] ? formatComponents(s.kernel[0].slice(0, 2)) : '',
      ]),
    ),
  ];
  for (const s of r.subspaces) {
    out.push(`  ${s.name} tolerance: ${s.toleranceDerivation}`);
    out.push(`  ${s.name} at θ*: ${s.proof.toUpperCase()}: ${s.proofDetail.statement}`);
    if (s.sensitivity.decidedBy) out.push(`  ${s.name} is sensitive: ${s.sensitivity.decidedBy}`);
  }
  return out;
}

/** Per-question coverage (Remark 5.4) with the summaries of the uncovered ones. */
function coverageLines(r: CertifyReport): string[] {
  const out = [
    'Per-question coverage (Remark 5.4):',
    renderTable(
      cols('question', 'W_q', 'dim', 'covered', 'λ_min', 'ratio to pool', 'top items', 'blind items (p = 0)'),
      r.coverage.map((c) => [
        c.question,
        c.basis,
        String(c.dim),
        c.verdict === 'sensitive' ? `sensitive (${c.covered ? 'yes' : 'no'} here)` : c.covered ? 'yes' : 'NO',
        g(c.lambdaMin),
        c.coverageRatio === null ? '—' : g(c.coverageRatio),
        c.topContributors
          .slice(0, 3)
          .map((t) => t.evidence)
          .join(', '),
        c.blindItems.join(', '),
      ]),
    ),
  ];
  for (const c of r.coverage) {
    if (c.blindItems.length || !c.covered) out.push(`  ${c.question}: ${c.summary}`);
    if (c.sensitivity.decidedBy) out.push(`  ${c.question} is sensitive: ${c.sensitivity.decidedBy}`);
  }
  return out;
}

/** The plain-text report: header, fixed point, contraction, redundancy, subspaces, coverage, notes. */
export function renderCertifyText(r: CertifyReport): string {
  const out = [
    ...headerLines(r),
    '',
    ...fixedPointLines(r),
    '',
    ...contractionLines(r),
    '',
    redundancyLine(r),
    '',
    ...subspaceLines(r),
    '',
    ...coverageLines(r),
  ];
  if (r.notes.length) pushAll(out, ['', 'Notes:', ...r.notes.map((n) => `  - ${n}`)]);
  return out.join('\n');
}
