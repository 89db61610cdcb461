/**
 * `ordergap certify`: verifies a system's consolidation map and certifies that its order-gap is
 * informative near the fixed point (Sec. 3.1, 5.3–5.4, Prop. 5.2, Remark 5.4) — for the
 * built-in systems (`closed-form`, `reference-graph` on the default scenario or
 * `--graph/--evidence` files) and for a user module (`--system FILE.mjs`). Prints a report, or
 * one JSON document with `--json`. Exit status 0 whatever the verdicts (they are in the output);
 * 2 for a bad flag or value.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { certify, type CertificationReport, type CertifyOptions } from '../certify/certify.js';
import { graphQuestionSpaces, withGraphLinearization } from '../certify/graphAdapter.js';
import { formatComponents } from '../certify/describe.js';
import { runRecursive } from '../ordergap/algorithm1.js';
import { getSystem, listSystems, loadSystemModule } from '../system/registry.js';
import type { OperatorSystem } from '../system/types.js';
import { SEC92 } from '../systems/closedForm.js';
import { referenceGraphSystem, type ReferenceGraphSystem } from '../graph/system.js';
import { defaultScenario, loadScenarioFiles } from '../graph/scenario.js';
import { fixed, renderTable } from '../report/table.js';
import { ArgumentError } from '../util/errors.js';
import { writeCertifyReport } from '../report/certifyHtml.js';
import { checkPlotDir } from '../plot/files.js';
import { writeCertifyPlots } from '../plot/certifyPlots.js';
import { parseIntAtLeast, parsePositive, parseSeed, printJson } from './options.js';

/** Options of `ordergap certify` (after parsing). */
export interface CertifyCommandOptions {
  system?: string;
  graph?: string;
  evidence?: string;
  subspace?: string[];
  question?: string[];
  jacobian?: 'fd' | 'autodiff';
  linearization?: 'auto' | 'sigma' | 'exact';
  at?: string;
  from?: string;
  probabilities?: Record<string, number>;
  epsilon?: number;
  window?: number;
  maxSteps?: number;
  seed?: number;
  samples?: number;
  radius?: number;
  json?: boolean;
  progress?: boolean;
  report?: string;
  plot?: string;
}

/** `--probabilities e2=0,e3=0` */
export function parseProbabilities(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const m = /^\s*([^=\s]+)\s*=\s*([^\s]+)\s*$/.exec(part);
    const p = m ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(p) || p < 0)
      throw new InvalidArgumentError(`'${part}' is not id=probability with a finite probability >= 0.`);
    out[m[1]!] = p;
  }
  return out;
}

function parseChoice<T extends string>(choices: readonly T[]): (v: string) => T {
  return (v: string) => {
    if (!(choices as readonly string[]).includes(v))
      throw new InvalidArgumentError(`'${v}' must be one of ${choices.join(', ')}.`);
    return v as T;
  };
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** The system named by the options, and the graph scenario when it is the reference graph. */
async function resolveSystem(
  opts: CertifyCommandOptions,
): Promise<{ system: OperatorSystem; graph: ReferenceGraphSystem | null; source: string }> {
  if ((opts.graph === undefined) !== (opts.evidence === undefined)) {
    const missing = opts.graph === undefined ? '--graph' : '--evidence';
    throw new ArgumentError(missing, undefined, 'is required when the other of --graph/--evidence is given');
  }
  const name = opts.system ?? (opts.graph ? 'reference-graph' : 'reference-graph');
  if (opts.graph !== undefined && name !== 'reference-graph')
    throw new ArgumentError('--graph', opts.graph, 'applies to the reference graph only (drop --system)');
  if (name === 'reference-graph') {
    const scenario = opts.graph ? await loadScenarioFiles(opts.graph, opts.evidence!) : defaultScenario();
    const graph = referenceGraphSystem(scenario);
    return {
      system: withGraphLinearization(graph),
      graph,
      source: opts.graph ? `${opts.graph} + ${opts.evidence}` : 'default scenario',
    };
  }
  const looksLikeFile = /\.(mjs|js|cjs)$/.test(name) || name.includes('/') || existsSync(name);
  if (looksLikeFile) return { system: await loadSystemModule(name), graph: null, source: name };
  if (!listSystems().some((s) => s.name === name))
    throw new ArgumentError(
      '--system',
      name,
      `is neither a file nor a built-in system (built-in: ${listSystems()
        .map((s) => s.name)
        .join(', ')})`,
    );
  const params = opts.probabilities ? { probabilities: opts.probabilities } : undefined;
  return { system: getSystem(name, params), graph: null, source: 'built-in' };
}

/** Runs Algorithm 1 with the system's defaults (Sec. 9.2 for closed-form) and returns θ_T. */
function stopState(system: OperatorSystem, graph: ReferenceGraphSystem | null, opts: CertifyCommandOptions) {
  const base =
    system.name === 'closed-form'
      ? { epsilon: SEC92.epsilon, window: SEC92.window, maxSteps: SEC92.maxSteps, seed: 0 }
      : graph
        ? graph.scenario.run
        : { epsilon: 0.025, window: 2, maxSteps: 100, seed: 0 };
  const run = runRecursive(system, {
    epsilon: opts.epsilon ?? base.epsilon,
    window: opts.window ?? base.window,
    maxSteps: opts.maxSteps ?? base.maxSteps,
    seed: opts.seed ?? base.seed,
    recordStates: false,
  });
  return { theta: run.finalState, step: run.stoppedAt, reason: run.stopReason };
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
 * Builds the certification report for the command's options (no printing).
 * @throws {ArgumentError} bad options, unknown system/subspace, unreadable files.
 */
export async function buildCertifyReport(
  opts: CertifyCommandOptions,
  onProgress?: CertifyOptions['onProgress'],
): Promise<CertificationReport & { source: string; stateNote: string | null }> {
  const { system, graph, source } = await resolveSystem(opts);
  const options: CertifyOptions = {
    jacobian: opts.jacobian ?? 'fd',
    linearization: opts.linearization ?? 'auto',
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
    ...(opts.radius !== undefined ? { radius: opts.radius } : {}),
    ...(onProgress ? { onProgress } : {}),
  };
  if (opts.subspace?.length) options.subspaces = opts.subspace;
  else if (graph) options.subspaces = ['confidence', 'footprint'];
  if (opts.question?.length) options.questions = opts.question;
  else if (graph) options.questions = (theta) => graphQuestionSpaces(graph, theta);
  if (graph) {
    // the reference operators' domain: confidences and edge weights in [0, 1] (attributes free)
    const bounded = new Set<number>([
      ...graph.subspaces['confidence']!,
      ...Object.entries(graph.subspaces)
        .filter(([n]) => n.startsWith('edges:'))
        .flatMap(([, c]) => c),
    ]);
    const r = opts.radius ?? 0.1;
    const box = (theta: Float64Array) => {
      const lower = Float64Array.from(theta, (x) => x - r * Math.max(1, Math.abs(x)));
      const upper = Float64Array.from(theta, (x) => x + r * Math.max(1, Math.abs(x)));
      for (const i of bounded) {
        lower[i] = Math.max(0, lower[i]!);
        upper[i] = Math.min(1, upper[i]!);
      }
      return { lower, upper };
    };
    options.contractionBoxes = { confidence: { lower: 0, upper: 1 } };
    options.contractionBoxAt = (name, theta) => (name === 'all' ? box(theta) : undefined);
  }
  let stateNote: string | null = null;
  const from = opts.from ?? (graph ? 'stop' : 'theta0');
  if (from !== 'stop' && from !== 'theta0') throw new ArgumentError('--from', from, "must be 'stop' or 'theta0'");
  if (opts.at === 'stop') {
    const s = stopState(system, graph, opts);
    options.at = s.theta;
    options.atLabel = `where Algorithm 1 stopped (step ${s.step}, ${s.reason})`;
    stateNote = options.atLabel;
  } else if (opts.at !== undefined) {
    options.at = parseState(system, opts.at);
  }
  if (from === 'stop' && opts.at === undefined) {
    const s = stopState(system, graph, opts);
    options.fixedPoint = { theta0: s.theta };
    stateNote = `fixed point of Q iterated from where Algorithm 1 stopped (step ${s.step}, ${s.reason})`;
  }
  const report = await certify(system, options);
  return { ...report, source, stateNote };
}

const cols = (...h: string[]) =>
  h.map((header, i) => ({ header, align: (i === 0 ? 'left' : 'right') as 'left' | 'right' }));

const g = (x: number): string =>
  x === 0 ? '0' : Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? fixed(x, 4) : x.toExponential(3);

/** The plain-text report. */
export function renderCertifyText(r: CertificationReport & { source: string; stateNote: string | null }): string {
  const out: string[] = [];
  out.push(`ordergap certify — ${r.system} (${r.source}), d = ${r.dim}`);
  out.push(
    `state: ${r.stateNote ?? r.state.kind}${r.state.theta ? ` = (${r.state.theta.map((x) => g(x)).join(', ')})` : ''}`,
  );
  out.push(
    `Jacobians: ${r.jacobian.method}${r.jacobian.backend ? ` (tfjs backend ${r.jacobian.backend})` : ''}, relative accuracy ${r.jacobian.relativeAccuracy.toExponential(2)}, ${r.jacobian.evaluations} operator evaluations`,
  );
  if (r.jacobian.crossCheck)
    out.push(
      `  FD vs autodiff on ${r.jacobian.crossCheck.columnsChecked} columns of DQ: ${r.jacobian.crossCheck.agree ? 'agree' : 'DISAGREE'} (worst ${g(r.jacobian.crossCheck.worstRatio)}× tolerance)`,
    );
  out.push('');
  const fp = r.fixedPoint;
  out.push(
    `Fixed point of Q: ${fp.converged ? 'converged' : 'NOT converged'} in ${fp.iterations} iterations, residual ‖Q(θ)−θ‖ = ${g(fp.residual)}` +
      (fp.aPosterioriBound !== null ? `, ‖θ−θ*‖ <= ${g(fp.aPosterioriBound)} (ρ = ${fp.rho})` : '') +
      (fp.observedRate !== null ? `, observed rate ${g(fp.observedRate)}` : ''),
  );
  out.push('');
  out.push('Contraction (Sec. 3.1 Assumption):');
  out.push(
    renderTable(
      cols('block', 'dim', 'verdict', 'empirical LB', '‖DQ‖₂ local', 'analytic UB', 'failing / weakest directions'),
      r.contractionBySubspace.map((c) => [
        c.subspace,
        String(c.dim),
        c.verdict,
        g(c.empiricalLowerBound),
        `${g(c.localNorm)}${c.localNormKind === 'lower-bound' ? ' (LB)' : ''}`,
        c.analyticBound === null ? '—' : g(c.analyticBound),
        c.verdict === 'certified' ? '' : formatComponents(c.failingDirections.slice(0, 3)),
      ]),
    ),
  );
  out.push('');
  const failing = r.redundancy.filter((x) => !x.holds);
  out.push(
    `Redundancy P_e(θ) = θ (Sec. 5.3): holds for ${r.redundancy.length - failing.length} of ${r.redundancy.length} items` +
      (failing.length
        ? `; fails (exact DF_e used) for: ${failing
            .map((x) => `${x.evidence} (${g(x.residual)})`)
            .slice(0, 8)
            .join(', ')}${failing.length > 8 ? ', …' : ''}`
        : ''),
  );
  out.push('');
  out.push('Non-degeneracy of the commutator Gramian on subspaces (Prop. 5.2):');
  out.push(
    renderTable(
      cols('subspace', 'dim', 'λ_min', 'λ_max', 'tolerance', 'verdict', 'kernel dim', 'a kernel direction'),
      r.subspaces.map((s) => [
        s.name,
        String(s.dim),
        g(s.lambdaMin),
        g(s.lambdaMax),
        g(s.tolerance),
        s.nonDegenerate ? 'non-degenerate' : 'DEGENERATE',
        String(s.kernelDim),
        s.kernel[0] ? formatComponents(s.kernel[0].slice(0, 2)) : '',
      ]),
    ),
  );
  if (r.subspaces[0]) out.push(`  tolerance: ${r.subspaces[0].toleranceDerivation}`);
  out.push('');
  out.push('Per-question coverage (Remark 5.4):');
  out.push(
    renderTable(
      cols('question', 'dim', 'covered', 'λ_min', 'ratio to pool', 'top items', 'blind items (p = 0)'),
      r.coverage.map((c) => [
        c.question,
        String(c.dim),
        c.covered ? 'yes' : 'NO',
        g(c.lambdaMin),
        c.coverageRatio === null ? '—' : g(c.coverageRatio),
        c.topContributors
          .slice(0, 3)
          .map((t) => t.evidence)
          .join(', '),
        c.blindItems.join(', '),
      ]),
    ),
  );
  for (const c of r.coverage) if (c.blindItems.length || !c.covered) out.push(`  ${c.question}: ${c.summary}`);
  if (r.notes.length) {
    out.push('');
    out.push('Notes:');
    for (const n of r.notes) out.push(`  - ${n}`);
  }
  return out.join('\n');
}

/** Registers `ordergap certify` on the program. */
export function registerCertifyCommand(program: Command): void {
  program
    .command('certify')
    .description(
      'verify Q (fixed point, contraction), redundancy, and non-degeneracy of the linearised order-gap on subspaces and per question (Prop. 5.2)',
    )
    .option('--system <name|FILE.mjs>', 'built-in system (reference-graph, closed-form) or an operator module file')
    .option('--graph <file>', 'graph JSON for the reference graph (with --evidence)')
    .option('--evidence <file>', 'evidence JSON for the reference graph (with --graph)')
    .option('--subspace <name>', 'subspace W to decide (repeatable; default: the system’s declared ones)', collect)
    .option('--question <name>', 'question W_q to check (repeatable; default: all declared)', collect)
    .option(
      '--jacobian <method>',
      'fd (central differences, f64) or autodiff (tfjs, float32)',
      parseChoice(['fd', 'autodiff'] as const),
    )
    .option(
      '--linearization <mode>',
      'auto (Eq. 4 where redundancy holds, exact DF_e elsewhere), sigma, or exact',
      parseChoice(['auto', 'sigma', 'exact'] as const),
    )
    .option('--at <state>', "linearise at 'stop' (where Algorithm 1 stops) or at comma-separated coordinates")
    .option('--from <start>', "start of the fixed-point iteration: 'theta0' or 'stop' (default: stop for the graph)")
    .option(
      '--probabilities <list>',
      'P(e) overrides for closed-form, e.g. e2=0,e3=0 (the Sec. 9.2 variant)',
      parseProbabilities,
    )
    .option('--epsilon <number>', 'ε of the run used by --at stop / --from stop', parsePositive)
    .option('--window <n>', 'w of that run', parseIntAtLeast(1))
    .option('--max-steps <n>', 'Tmax of that run', parseIntAtLeast(1))
    .option('--seed <n>', 'seed of the run and of the Lipschitz search', parseSeed)
    .option('--samples <n>', 'random pairs for the empirical Lipschitz bound', parseIntAtLeast(0))
    .option('--radius <number>', 'relative half-width of the box for the Lipschitz search', parsePositive)
    .option('--json', 'print one JSON document')
    .option('--report <file.html>', 'also write the report as a self-contained HTML page')
    .option('--plot <dir>', 'also write the margin plots (subspaces, coverage) to DIR as SVG and PNG')
    .option('--no-progress', 'no progress bar')
    .action(async (opts: CertifyCommandOptions) => {
      const showBar = !opts.json && opts.progress !== false && process.stderr.isTTY === true;
      let bar: SingleBar | undefined;
      let phase = '';
      const onProgress = showBar
        ? (p: string, done: number, total: number) => {
            if (p !== phase) {
              bar?.stop();
              phase = p;
              bar = new SingleBar(
                { format: `${p.padEnd(28).slice(0, 28)} [{bar}] {value}/{total}`, stream: process.stderr },
                undefined,
              );
              bar.start(total, done);
            } else bar?.update(done);
          }
        : undefined;
      if (opts.report !== undefined) {
        // check the destination before any work, so a bad path changes nothing
        const parent = dirname(resolve(opts.report));
        if (!existsSync(parent) || !statSync(parent).isDirectory())
          throw new ArgumentError('--report', opts.report, `its folder ${parent} does not exist`);
      }
      if (opts.plot !== undefined) checkPlotDir(opts.plot);
      try {
        const report = await buildCertifyReport(opts, onProgress);
        bar?.stop();
        if (opts.plot !== undefined) await writeCertifyPlots(opts.plot, report, process.stderr);
        if (opts.json)
          // the state vector is printed only for small systems (d <= 64), like `state.theta`
          printJson({
            ...report,
            fixedPoint: { ...report.fixedPoint, theta: report.dim <= 64 ? report.fixedPoint.theta : null },
          });
        else process.stdout.write(renderCertifyText(report) + '\n');
        if (opts.report !== undefined)
          await writeCertifyReport(
            opts.report,
            { ...report, stateNote: report.stateNote ?? undefined },
            process.stderr,
          );
      } finally {
        bar?.stop();
      }
    });
}
