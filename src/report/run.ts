/**
 * The report of `ordergap run`: Algorithm 1 with the reference graph operators on the default
 * scenario (examples/scenario/) or on graph and evidence files — the trajectory, why and when
 * it stopped (against the budget), the pool check and the final state in words — and its text
 * rendering. The command prints exactly {@link runReport}'s result.
 */
import { runRecursive } from '../ordergap/algorithm1.js';
import { checkPoolAtStop, type PoolCheck } from '../ordergap/poolCheck.js';
import { describeState, type StateSummary } from '../graph/describe.js';
import { expansionResidual } from '../graph/expand.js';
import { defaultScenario, loadScenarioFiles, DEFAULT_SCENARIO_FILES, type Scenario } from '../graph/scenario.js';
import { referenceGraphSystem } from '../graph/system.js';
import { fixed, renderTable } from './table.js';
import { ArgumentError } from '../util/errors.js';
import { init } from '../wasm/module.js';
import type { CoveragePolicy } from '../coverageStop/run.js';
import { coverageComparison, renderCoverageText, type CoverageComparison } from './coverage.js';

/** Options of {@link runReport}; unset ones come from the scenario's `run` defaults. Files are paths. */
export interface RunReportOptions {
  graph?: string;
  evidence?: string;
  epsilon?: number;
  window?: number;
  maxSteps?: number;
  seed?: number;
  /** Consistency / openness threshold δ (default 0.5). */
  delta?: number;
  /** Also run the coverage-aware stop under this policy beside the paper's rule (./coverage.ts). */
  coverage?: CoveragePolicy;
}

/** One step of the printed trajectory. */
export interface RunRow {
  t: number;
  evidence: string;
  probability: number | null;
  omega: number;
  windowed: number | null;
  /** First time this item is drawn. */
  firstDraw: boolean;
  /** ‖P_e(θ_{t−1}) − θ_{t−1}‖: how much of e was not yet represented. */
  residual: number;
}

/** The `--json` document of `ordergap run`. */
export interface RunReport {
  scenario: {
    source: string;
    dim: number;
    k: number;
    nmax: number;
    nodes: number;
    evidenceItems: number;
    /** Analytic Lipschitz bound of Q's confidence update (< 1: contraction). */
    confidenceLipschitzBound: number;
  };
  setting: { epsilon: number; window: number; maxSteps: number; seed: number; delta: number };
  trajectory: RunRow[];
  stop: { step: number; budget: number; reason: string; windowed: number | null; explanation: string };
  neverDrawn: string[];
  poolCheck: PoolCheck;
  initialState: StateSummary;
  finalState: StateSummary;
  /** With `coverage`: the paper's stop and the coverage-aware stop side by side. */
  coverage?: CoverageComparison;
}

/**
 * Runs Algorithm 1 on a scenario and builds the report (no printing).
 * @throws {ArgumentError} bad options, unreadable or invalid files (errors name the file and the JSON path).
 */
export async function runReport(opts: RunReportOptions = {}): Promise<RunReport> {
  if ((opts.graph === undefined) !== (opts.evidence === undefined)) {
    const missing = opts.graph === undefined ? '--graph' : '--evidence';
    throw new ArgumentError(missing, undefined, 'is required when the other of --graph/--evidence is given');
  }
  const scenario: Scenario =
    opts.graph !== undefined ? await loadScenarioFiles(opts.graph, opts.evidence!) : defaultScenario();
  const source =
    opts.graph !== undefined
      ? `${opts.graph} + ${opts.evidence}`
      : `default (${DEFAULT_SCENARIO_FILES.graph.replace(/.*\/examples\//, 'examples/')}, evidence.json)`;
  await init(); // the graph's Q on the wasm kernels (referenceGraphSystem's default once initialised)
  const system = referenceGraphSystem(scenario);
  const setting = {
    epsilon: opts.epsilon ?? scenario.run.epsilon,
    window: opts.window ?? scenario.run.window,
    maxSteps: opts.maxSteps ?? scenario.run.maxSteps,
    seed: opts.seed ?? scenario.run.seed,
    delta: opts.delta ?? 0.5,
  };
  const run = runRecursive(system, { ...setting, recordStates: true });
  const seen = new Set<string>();
  let prev = scenario.theta0;
  const trajectory: RunRow[] = run.steps.map((s) => {
    const row: RunRow = {
      t: s.t,
      evidence: s.evidence,
      probability: s.probability,
      omega: s.omega,
      windowed: s.windowed,
      firstDraw: !seen.has(s.evidence),
      residual: expansionResidual(scenario.itemById.get(s.evidence)!, prev),
    };
    seen.add(s.evidence);
    prev = s.theta!;
    return row;
  });
  const last = trajectory.slice(-setting.window);
  let explanation: string;
  if (run.stopReason === 'order-gap') {
    const repeats = last.filter((r) => !r.firstDraw).length;
    explanation =
      `the last ${setting.window} order-gaps (${last.map((r) => `${r.evidence}: ${fixed(r.omega, 4)}`).join(', ')}) ` +
      `average ${fixed(run.finalWindowed, 4)} <= ε = ${setting.epsilon}; ${repeats} of these ${last.length} items had been drawn before ` +
      `and were already represented (largest unrepresented part ‖P_e(θ) − θ‖ = ${fixed(Math.max(...last.map((r) => r.residual)), 4)})`;
  } else {
    explanation = `the budget Tmax = ${setting.maxSteps} ran out with Ω̂ = ${fixed(run.finalWindowed, 4)} > ε = ${setting.epsilon}`;
  }
  const neverDrawn = scenario.items.map((i) => i.id).filter((id) => !seen.has(id));
  return {
    scenario: {
      source,
      dim: scenario.layout.dim,
      k: scenario.layout.k,
      nmax: scenario.layout.nmax,
      nodes: scenario.graph.nodes.length,
      evidenceItems: scenario.items.length,
      confidenceLipschitzBound: scenario.bound.modulus,
    },
    setting,
    trajectory,
    stop: {
      step: run.stoppedAt,
      budget: setting.maxSteps,
      reason: run.stopReason,
      windowed: run.finalWindowed,
      explanation,
    },
    neverDrawn,
    poolCheck: checkPoolAtStop(system, run.finalState, setting.epsilon),
    initialState: describeState(scenario, scenario.theta0, setting.delta),
    finalState: describeState(scenario, run.finalState, setting.delta),
    ...(opts.coverage !== undefined ? { coverage: await coverageComparison(system, setting, opts.coverage) } : {}),
  };
}

/** Renders the report as text. */
export function renderRunText(r: RunReport): string {
  const out: string[] = [];
  const s = r.scenario;
  out.push(`Scenario: ${s.source}`);
  out.push(
    `  ${s.nodes} nodes, ${s.evidenceItems} evidence items; d = ${s.dim} (k = ${s.k}, Nmax = ${s.nmax}); ` +
      `Q's confidence update has analytic Lipschitz bound ${fixed(s.confidenceLipschitzBound, 3)}` +
      (s.confidenceLipschitzBound < 1 ? ' (< 1: a contraction on the confidence block)' : ' (NOT < 1)'),
  );
  const q0 = r.initialState.questions.map((q) => q.text ?? q.question).join(' / ');
  out.push(`  Questions: ${q0}`);
  out.push(
    `Algorithm 1: ε = ${r.setting.epsilon}, w = ${r.setting.window}, Tmax = ${r.setting.maxSteps}, seed = ${r.setting.seed}`,
  );
  out.push('');
  out.push(
    renderTable(
      [
        { header: 't', align: 'right' },
        { header: 'evidence' },
        { header: 'P(e|θ)', align: 'right' },
        { header: 'new?' },
        { header: '‖P_e θ − θ‖', align: 'right' },
        { header: 'Ω_t', align: 'right' },
        { header: 'Ω̂_t', align: 'right' },
      ],
      r.trajectory.map((x) => [
        String(x.t),
        x.evidence,
        fixed(x.probability, 3),
        x.firstDraw ? 'new' : 'seen',
        fixed(x.residual, 4),
        fixed(x.omega, 4),
        fixed(x.windowed, 4),
      ]),
    ),
  );
  out.push('');
  const verb = r.stop.reason === 'order-gap' ? 'Algorithm 1 stops' : 'Algorithm 1 did not stop';
  out.push(`${verb} at step ${r.stop.step} of the budget ${r.stop.budget}: ${r.stop.explanation}.`);
  if (r.neverDrawn.length) out.push(`Never drawn: ${r.neverDrawn.join(', ')}.`);
  const blind = r.poolCheck.items.filter((i) => i.omega > r.setting.epsilon);
  out.push(
    blind.length
      ? `Pool check at the stop: ${blind.length} item(s) would still move the state by more than ε: ` +
          blind.map((i) => `${i.evidence} (Ω = ${fixed(i.omega, 3)}, P = ${fixed(i.p, 3)})`).join(', ') +
          (r.poolCheck.verdict === 'blind' ? ' — BLIND STOP.' : ' (all have P > 0: reachable, not blind).')
      : 'Pool check at the stop: every pool item has Ω <= ε.',
  );
  out.push('');
  const f = r.finalState;
  out.push(`Final state (δ = ${f.delta}):`);
  out.push('  Answers:');
  for (const a of f.answers)
    out.push(`    ${a.best ? '*' : ' '} ${a.question}: ${a.text ?? a.answer} — confidence ${fixed(a.confidence, 3)}`);
  out.push(
    f.openQuestions.length
      ? `  Open questions left: ${f.questions
          .filter((q) => q.open)
          .map((q) => `${q.question} (openness ${fixed(q.openness, 3)})`)
          .join(', ')}`
      : `  Open questions left: none (openness ${f.questions.map((q) => `${q.question} ${fixed(q.openness, 3)}`).join(', ')})`,
  );
  const left = f.contradictions.filter((c) => c.violating);
  const resolved = f.contradictions.filter((c) => !c.violating);
  out.push(
    `  Contradictions left: ${left.length === 0 ? 'none' : left.map((c) => `${c.source} vs ${c.target} (${fixed(c.sourceConfidence, 2)}, ${fixed(c.targetConfidence, 2)})`).join('; ')}` +
      (resolved.length
        ? `; resolved by downweighting: ${resolved.map((c) => `${c.weaker} (${fixed(Math.min(c.sourceConfidence, c.targetConfidence), 2)}) against ${c.weaker === c.source ? c.target : c.source} (${fixed(Math.max(c.sourceConfidence, c.targetConfidence), 2)})`).join('; ')}`
        : ''),
  );
  out.push(
    `  Merged claims: ${
      f.merged.length === 0
        ? 'none'
        : f.merged
            .map(
              (m) =>
                `${m.claims[0]} (${m.sources[0] ?? '?'}) ~ ${m.claims[1]} (${m.sources[1] ?? '?'}): distance ${fixed(m.originalDistance, 4)} -> ${fixed(m.distance, 4)}`,
            )
            .join('; ')
    }`,
  );
  if (r.coverage) out.push('', renderCoverageText(r.coverage));
  return out.join('\n');
}
