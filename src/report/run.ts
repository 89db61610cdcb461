/**
 * The report of `ordergap run`: Algorithm 1 with the reference graph operators on the default
 * scenario (examples/scenario/) or on graph and evidence files — the trajectory, why and when
 * it stopped (against the budget), the pool check and the final state in words — and its text
 * rendering. The command prints exactly {@link runReport}'s result.
 */
import { runRecursive } from '../ordergap/algorithm1.js';
import { checkPoolAtStop, type PoolCheck } from '../ordergap/poolCheck.js';
import { describeState, type StateSummary } from '../graph/state/describe.js';
import {
  defaultScenario,
  loadScenarioFiles,
  DEFAULT_SCENARIO_FILES,
  type Scenario,
} from '../graph/scenarios/scenario.js';
import { referenceGraphSystem, syntheticGraphSystem } from '../graph/system.js';
import { structuredResidual, type StructuredGraphState } from '../graph/state/state.js';
import type { CompiledItem } from '../graph/operators/expand.js';
import { confidenceLipschitzBound, DEFAULT_PARAMS } from '../graph/operators/params.js';
import type { OperatorSystem, StateCapability } from '../system/types.js';
import { integerInRange } from '../util/validate.js';
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
  /** Run a synthetic scenario with this Nmax instead (./graph/synthetic.ts). */
  synthetic?: number;
  /** Edges per node of the synthetic scenario (default 10). */
  edgesPerNode?: number;
  /** Consolidation scheduling threshold (Sec. 7.3): Q only when the accumulated Ω exceeds it. */
  schedule?: number;
  /** Called after every step with t and the budget (for a progress display). */
  onStep?: (t: number, maxSteps: number) => void;
  /**
   * Called after every step with θ_t's non-zero coordinates [index, value] in ascending order,
   * when given (O(non-zeros) per step: opt-in, for recording full states).
   */
  onState?: (t: number, entries: Array<[number, number]>) => void;
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
  /** The step with the smallest Ω̂ of the run (its state is `RecursiveRun.best`), or null while t < w. */
  best: { step: number; windowed: number } | null;
  /** How the state was held and how often Q ran. */
  state: {
    representation: 'dense' | 'structured';
    /** Bytes the final state holds (typed arrays). */
    bytes: number;
    /** Stored edge weights of the final state (structured runs). */
    storedEdges: number | null;
    /** Applications of Q to the state. */
    consolidations: number;
    /** The scheduling threshold, or null (consolidate every step). */
    schedule: number | null;
  };
  neverDrawn: string[];
  poolCheck: PoolCheck;
  /** The states in words (null for a synthetic scenario: its nodes have no names or texts). */
  initialState: StateSummary | null;
  finalState: StateSummary | null;
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
  if (opts.synthetic !== undefined && opts.graph !== undefined)
    throw new ArgumentError('--synthetic', opts.synthetic, 'cannot be combined with --graph/--evidence');
  if (opts.coverage !== undefined && opts.synthetic !== undefined)
    throw new ArgumentError(
      '--coverage',
      opts.coverage,
      'needs a named scenario (the coverage check certifies on it), not --synthetic',
    );
  if (opts.edgesPerNode !== undefined && opts.synthetic === undefined)
    throw new ArgumentError('--edges-per-node', opts.edgesPerNode, 'needs --synthetic');
  if (opts.synthetic !== undefined) integerInRange('--synthetic', opts.synthetic, 20, 2 ** 20);
  if (opts.edgesPerNode !== undefined) integerInRange('--edges-per-node', opts.edgesPerNode, 4, 1000);
  const scenario: Scenario | null =
    opts.synthetic !== undefined
      ? null
      : opts.graph !== undefined
        ? await loadScenarioFiles(opts.graph, opts.evidence!)
        : defaultScenario();
  const source =
    opts.synthetic !== undefined
      ? `synthetic (Nmax = ${opts.synthetic}, ~${opts.edgesPerNode ?? 10} edges per node, src/graph/synthetic.ts)`
      : opts.graph !== undefined
        ? `${opts.graph} + ${opts.evidence}`
        : `default (${DEFAULT_SCENARIO_FILES.graph.replace(/.*\/examples\//, 'examples/')}, evidence.json)`;
  await init(); // the graph's Q on the wasm kernels (referenceGraphSystem's default once initialised)
  const synthetic =
    opts.synthetic !== undefined
      ? syntheticGraphSystem(opts.synthetic, { edgesPerNode: opts.edgesPerNode ?? 10 })
      : null;
  const system: OperatorSystem = synthetic ?? referenceGraphSystem(scenario!);
  const defaults = scenario ? scenario.run : system.capabilities.runDefaults!;
  const setting = {
    epsilon: opts.epsilon ?? defaults.epsilon,
    window: opts.window ?? defaults.window,
    maxSteps: opts.maxSteps ?? defaults.maxSteps,
    seed: opts.seed ?? defaults.seed,
    delta: opts.delta ?? 0.5,
  };
  const shape = scenario ? scenario.shape : synthetic!.synthetic.shape;
  const items = new Map<string, CompiledItem>(
    scenario ? scenario.items.map((i) => [i.id, i]) : synthetic!.synthetic.items.map((i) => [i.id, i]),
  );
  const st = system.capabilities.state!;
  // ‖P_e(θ_t) − θ_t‖ of every pool item at the latest state: the next step's residual
  const residuals = (state: StructuredGraphState) =>
    new Map([...items].map(([id, it]) => [id, structuredResidual(shape, state, it)]));
  let residualAt = residuals(st.initial() as StructuredGraphState);
  const residualOf: number[] = [];
  const run = runRecursive(system, {
    ...setting,
    recordStates: false,
    ...(opts.schedule !== undefined ? { schedule: opts.schedule } : {}),
    observe: (step, _head, state) => {
      residualOf.push(residualAt.get(step.evidence)!);
      residualAt = residuals(state as StructuredGraphState);
      if (opts.onState) opts.onState(step.t, st.entries(state));
      opts.onStep?.(step.t, setting.maxSteps);
    },
  });
  const final = run.state as StructuredGraphState;
  const seen = new Set<string>();
  const trajectory: RunRow[] = run.steps.map((s, i) => {
    const row: RunRow = {
      t: s.t,
      evidence: s.evidence,
      probability: s.probability,
      omega: s.omega,
      windowed: s.windowed,
      firstDraw: !seen.has(s.evidence),
      residual: residualOf[i]!,
    };
    seen.add(s.evidence);
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
  const neverDrawn = [...items.keys()].filter((id) => !seen.has(id));
  // the pool check on the structured state when θ does not fit densely (Ω exactly, as the dense check)
  const poolCheck: PoolCheck = scenario
    ? checkPoolAtStop(system, run.finalState, setting.epsilon)
    : structuredPoolCheck(st, final, setting.epsilon);
  return {
    scenario: {
      source,
      dim: shape.dim,
      k: shape.k,
      nmax: shape.nmax,
      nodes: scenario ? scenario.graph.nodes.length : shape.nmax - 1,
      evidenceItems: items.size,
      confidenceLipschitzBound: scenario
        ? scenario.bound.modulus
        : confidenceLipschitzBound(DEFAULT_PARAMS, shape.maxAnswersPerQuestion).modulus,
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
    best: run.best === null ? null : { step: run.best.step, windowed: run.best.windowed },
    state: {
      representation: run.representation,
      bytes: st.bytes(final),
      storedEdges: final.storedEdges,
      consolidations: run.consolidations,
      schedule: opts.schedule ?? null,
    },
    neverDrawn,
    poolCheck,
    initialState: scenario ? describeState(scenario, scenario.theta0, setting.delta) : null,
    finalState: scenario ? describeState(scenario, run.finalState, setting.delta) : null,
    ...(opts.coverage !== undefined
      ? { coverage: await coverageComparison(referenceGraphSystem(scenario!), setting, opts.coverage) }
      : {}),
  };
}

/** The pool check (./ordergap/poolCheck.ts) evaluated with the structured state's exact Ω. */
function structuredPoolCheck(st: StateCapability, state: unknown, epsilon: number): PoolCheck {
  const items = st.evidenceAt(state).map(({ id, p }) => {
    const omega = st.orderGap(state, id);
    return { evidence: id, p, omega, blind: p === 0 && omega > epsilon };
  });
  const blindItems = items.filter((i) => i.blind).map((i) => i.evidence);
  return { epsilon, items, blindItems, verdict: blindItems.length ? 'blind' : 'not-blind' };
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
  if (r.initialState) out.push(`  Questions: ${r.initialState.questions.map((q) => q.text ?? q.question).join(' / ')}`);
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
  if (r.best !== null && r.best.step !== r.stop.step)
    out.push(`Smallest Ω̂ of the run: ${fixed(r.best.windowed, 4)} at step ${r.best.step}.`);
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
  const rs = r.state;
  out.push(
    `State: ${rs.representation}, ${(rs.bytes / 2 ** 20).toFixed(2)} MiB` +
      (rs.storedEdges !== null ? ` (${rs.storedEdges} stored edges)` : '') +
      `; Q applied ${rs.consolidations} time(s) in ${r.stop.step} step(s)` +
      (rs.schedule !== null ? ` (scheduled: Q when the accumulated Ω exceeds ${rs.schedule})` : ''),
  );
  const f = r.finalState;
  if (f === null) return out.join('\n');
  out.push('');
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
                `${m.claims[0]} (${m.sources[0] ?? '?'}) ~ ${m.claims[1]} (${m.sources[1] ?? '?'}): distance ${m.originalDistance === null ? '?' : fixed(m.originalDistance, 4)} -> ${fixed(m.distance, 4)}`,
            )
            .join('; ')
    }`,
  );
  if (r.coverage) out.push('', renderCoverageText(r.coverage));
  return out.join('\n');
}
