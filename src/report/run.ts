/**
 * The report of `ordergap run`: Algorithm 1 (or any registered stopping rule) on a system — the
 * reference graph on the default scenario (examples/scenario/) or on graph and evidence files, a
 * synthetic graph, a built-in system, or an operator module — with the trajectory, why and when
 * it stopped (against the budget), the pool check and, where the system can say it, the states
 * in words; and its text rendering. The command prints exactly {@link runReport}'s result.
 *
 * Everything system-specific comes from the system's capabilities: its run defaults
 * (`runDefaults`), its structured state and the residual ‖P_e(θ) − θ‖ of an item (`state`), its
 * facts and its states in words (`describe`).
 */
import { runRecursive } from '../ordergap/algorithm1.js';
import { checkPoolAtStop, poolCheckOf, type PoolCheck } from '../ordergap/poolCheck.js';
import { run, type RunResult } from '../ordergap/run.js';
import type { CoveragePolicy } from '../coverageStop/stopper.js';
import { REDIRECT_STEERS, type RedirectSteer } from '../coverageStop/steer.js';
import { createRule, parseRuleSpec, ruleReads } from '../stopping/registry.js';
import type { StoppingRule } from '../stopping/rule.js';
import { windowedMeanUnchecked } from '../stopping/window.js';
import { resolveRunParams, type RunParams } from '../system/runParams.js';
import type { OperatorSystem, StateSummary } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { openInterval } from '../util/validate.js';
import { maxOf } from '../util/arrays.js';
import { init } from '../wasm/module.js';
import { checkThreadRequest, withThreads, type ThreadDecision, type ThreadRequest } from '../linalg/threadChoice.js';
import { coverageComparison, type CoverageComparison } from './coverage.js';
import { openQuestionsAtStop, type OpenQuestionsWarning } from './openQuestions.js';
import { checkRunSize, RunProgressMeter, type RunProgress } from './runCost.js';
import { resolveSystem, type SystemRequest } from './systems.js';
import { fixed } from './table.js';

/** Options of {@link runReport}; unset run parameters come from the system's `runDefaults`. Files are paths. */
export interface RunReportOptions extends SystemRequest {
  /**
   * A registered stopping rule `NAME[:k=v,...]` instead of Algorithm 1's own test (the order-gap
   * rule); its ε and w default to the run's.
   */
  rule?: string;
  epsilon?: number;
  window?: number;
  maxSteps?: number;
  seed?: number;
  /** Consistency / openness threshold δ of the states in words (default 0.5). */
  delta?: number;
  /** Also run the coverage-aware stop under this policy beside the paper's rule (./coverage.ts). */
  coverage?: CoveragePolicy;
  /** With `coverage: 'redirect'`: what it weights toward, 'coverage' (default) or 'order-gap' (src/coverageStop/steer.ts). */
  steer?: RedirectSteer;
  /** Consolidation scheduling threshold (Sec. 7.3): Q only when the accumulated Ω exceeds it. */
  schedule?: number;
  /** Called after every step with t and the budget (for a progress display). */
  onStep?: (t: number, maxSteps: number) => void;
  /**
   * Called as the run gets on: building a synthetic graph's states, after the steps, at the end;
   * with the share of work done and the time left estimated (./runCost.ts).
   */
  onProgress?: (progress: RunProgress) => void;
  /**
   * false: run a synthetic scenario whatever its estimated time and memory; default true, which
   * refuses one whose estimate exceeds the limits of `runSizeLimits` ({@link checkRunSize}).
   */
  sizeLimit?: boolean;
  /**
   * Called after every step with θ_t's non-zero coordinates [index, value] in ascending order,
   * when given (O(non-zeros) per step: opt-in, for recording full states; needs a structured
   * state, or a dense θ).
   */
  onState?: (t: number, entries: Array<[number, number]>) => void;
  /**
   * Worker threads for the run (and its coverage check's Gramians): a count, or 'auto' (measured;
   * see `startThreads`); the pool is started before and the previous one put back after.
   */
  threads?: ThreadRequest;
}

/** One step of the printed trajectory. */
export interface RunRow {
  t: number;
  evidence: string;
  probability: number | null;
  omega: number;
  /** Ω̂_{t,w} (Eq. 3) with the run's w, whichever rule decides. */
  windowed: number | null;
  /** First time this item is drawn. */
  firstDraw: boolean;
  /** ‖P_e(θ_{t−1}) − θ_{t−1}‖: how much of e was not yet represented (null: the state cannot say). */
  residual: number | null;
}

/** The run's setting: Algorithm 1's parameters, δ, and the rule or sequence when they replace the defaults. */
export type RunSetting = Omit<RunParams, 'sequence'> & {
  delta: number;
  /** The rule's label, when `rule` replaces Algorithm 1's test. */
  rule?: string;
  /** The presentation order of the evidence, when the system's run defaults fix one. */
  sequence?: readonly string[];
};

/** The `--json` document of `ordergap run`. */
export interface RunReport {
  /** Where the system came from, its dimension, and the system's facts (`describe.facts`; at least `evidenceItems`). */
  scenario: { source: string; dim: number; evidenceItems: number } & Record<string, number | string>;
  setting: RunSetting;
  trajectory: RunRow[];
  stop: { step: number; budget: number; reason: string; windowed: number | null; explanation: string };
  /** The step with the smallest Ω̂ of the run (its state is `RunResult.best`), or null while t < w. */
  best: { step: number; windowed: number } | null;
  /** How the state was held and how often Q ran, with the system's counts of it (`describe.stateFacts`). */
  state: {
    representation: 'dense' | 'structured';
    /** Bytes the final state holds (typed arrays). */
    bytes: number;
    /** Applications of Q to the state. */
    consolidations: number;
    /** The scheduling threshold, or null (consolidate every step). */
    schedule: number | null;
  } & Record<string, number | string | null>;
  neverDrawn: string[];
  poolCheck: PoolCheck;
  /** The states in words (null when the system declares no `describe.summary`). */
  initialState: StateSummary | null;
  finalState: StateSummary | null;
  /** Present when the stop leaves questions open, as far as the system can say (./openQuestions.ts). */
  openAtStop?: OpenQuestionsWarning;
  /** With `coverage`: the paper's stop and the coverage-aware stop side by side. */
  coverage?: CoverageComparison;
  /** With `threads`: the threads the run ran on and, for 'auto', the probe that chose them. */
  threads?: ThreadDecision;
}

/**
 * The rule of the run: the given spec with ε and w defaulting to the run's, or null for
 * Algorithm 1's. A rule that reads answers, confidences or scores needs the system's
 * `describe.answer`.
 */
function ruleOf(spec: string | undefined, params: RunParams, system: OperatorSystem): StoppingRule | null {
  if (spec === undefined) return null;
  const parsed = parseRuleSpec(spec);
  const needs = ruleReads(parsed.name).filter((f) => f !== 'omega');
  if (needs.length && !system.capabilities.describe?.answer)
    throw new ArgumentError(
      '--rule',
      spec,
      `reads the ${needs.join(' and ')} of every state, which ${system.name} does not say (it declares no describe.answer)`,
    );
  const p =
    parsed.name === 'order-gap' ? { epsilon: params.epsilon, window: params.window, ...parsed.params } : parsed.params;
  return createRule({ name: parsed.name, params: p });
}

/** Runs the system: Algorithm 1, or the loop under `rule`; residuals recorded where the state can give them. */
function trajectoryRun(
  system: OperatorSystem,
  setting: RunParams,
  rule: StoppingRule | null,
  opts: RunReportOptions,
  meter: RunProgressMeter | null,
) {
  const st = system.capabilities.state;
  const recordResiduals = st === undefined || st.residual !== undefined;
  const omegas: number[] = [];
  const common = {
    maxSteps: setting.maxSteps,
    seed: setting.seed,
    ...(setting.sequence !== undefined ? { sequence: setting.sequence } : {}),
    recordStates: false,
    recordResiduals,
    ...(opts.schedule !== undefined ? { schedule: opts.schedule } : {}),
    observe: (step: { t: number; omega: number }, head: Float64Array, state?: unknown) => {
      omegas.push(step.omega);
      if (opts.onState) opts.onState(step.t, st ? st.entries(state) : denseEntries(head));
      opts.onStep?.(step.t, setting.maxSteps);
      meter?.step(step.t, setting.maxSteps);
    },
  };
  if (rule === null) return runRecursive(system, { ...common, epsilon: setting.epsilon, window: setting.window });
  // answer-based rules read the system's leading answer; the best state is the one with the
  // smallest Ω̂, whatever the rule's statistic means
  const answer = system.capabilities.describe?.answer;
  const readers = answer
    ? {
        answerOf: (h: Float64Array) => answer(h).answer,
        confidenceOf: (h: Float64Array) => answer(h).confidence,
        scoreOf: (h: Float64Array) => answer(h).confidence,
      }
    : {};
  // the step's Ω is not in `omegas` yet when the loop scores it (observe comes after)
  const bestScore = (step: { omega: number }) => {
    omegas.push(step.omega);
    const score = windowedMeanUnchecked(omegas, setting.window);
    omegas.pop();
    return score;
  };
  return run(system, rule, { ...common, ...readers, bestScore });
}

/** The non-zero coordinates of a dense θ, ascending. */
function denseEntries(theta: Float64Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  theta.forEach((x, i) => {
    if (x !== 0) out.push([i, x]);
  });
  return out;
}

/** The rows of the trajectory: Ω̂ with the run's window, first draws, residuals. */
function rowsOf(r: RunResult, window: number): RunRow[] {
  const seen = new Set<string>();
  const omegas: number[] = [];
  return r.steps.map((s) => {
    omegas.push(s.omega);
    const row: RunRow = {
      t: s.t,
      evidence: s.evidence,
      probability: s.probability,
      omega: s.omega,
      windowed: windowedMeanUnchecked(omegas, window),
      firstDraw: !seen.has(s.evidence),
      residual: s.residual ?? null,
    };
    seen.add(s.evidence);
    return row;
  });
}

/** Why the run stopped, in words. */
function explanationOf(r: RunResult, trajectory: RunRow[], setting: RunSetting): string {
  const windowed = trajectory.at(-1)?.windowed ?? null;
  if (r.stop.reason === 'order-gap') {
    const last = trajectory.slice(-setting.window);
    const repeats = last.filter((x) => !x.firstDraw).length;
    const residuals = last.map((x) => x.residual).filter((x): x is number => x !== null);
    return (
      `the last ${setting.window} order-gaps (${last.map((x) => `${x.evidence}: ${fixed(x.omega, 4)}`).join(', ')}) ` +
      `average ${fixed(windowed, 4)} <= ε = ${setting.epsilon}; ${repeats} of these ${last.length} items had been drawn before` +
      // what the items would still change is stated, not judged: a small Ω does not make it 0
      (residuals.length
        ? `; the most one of them would still move θ, ‖P_e(θ) − θ‖, is ${fixed(maxOf(residuals), 4)}`
        : '')
    );
  }
  if (r.stop.reason === 'criterion') return `${setting.rule} stopped: ${r.stop.detail}`;
  if (r.stop.reason === 'budget' && setting.rule !== undefined && r.stop.step < setting.maxSteps)
    return `${setting.rule} reached its own step cap (${r.stop.detail}) before Tmax = ${setting.maxSteps}`;
  if (r.stop.reason === 'evidence-exhausted') return `the evidence ran out: ${r.stop.detail}`;
  if (setting.rule !== undefined)
    return `the budget Tmax = ${setting.maxSteps} ran out before ${setting.rule} stopped (Ω̂ = ${fixed(windowed, 4)})`;
  if (windowed === null)
    return `the budget Tmax = ${setting.maxSteps} ran out before the window of w = ${setting.window} order-gaps was full (no Ω̂ yet)`;
  return `the budget Tmax = ${setting.maxSteps} ran out with Ω̂ = ${fixed(windowed, 4)} > ε = ${setting.epsilon}`;
}

/** The system's facts for the report's header: `describe.facts`, with the pool size when it has none. */
function factsOf(system: OperatorSystem, pool: number): Record<string, number | string> {
  const facts = system.capabilities.describe?.facts() ?? {};
  return 'evidenceItems' in facts ? { ...facts } : { ...facts, evidenceItems: pool };
}

/** The pool check at the final state: on the structured state where there is one (exact Ω), else on θ_T. */
function poolCheckAtEnd(system: OperatorSystem, r: RunResult, epsilon: number): PoolCheck {
  const st = system.capabilities.state;
  if (!st || r.state === undefined) return checkPoolAtStop(system, r.finalState, epsilon);
  return poolCheckOf(st.evidenceAt(r.state), (id) => st.orderGap(r.state, id), epsilon);
}

/**
 * Runs Algorithm 1 (or `rule`) on the requested system and builds the report (no printing).
 * @throws {ArgumentError} bad options, unreadable or invalid files (errors name the file and the
 *   JSON path), a synthetic size whose estimated time or memory exceeds the limits
 *   ({@link checkRunSize}; not with `sizeLimit: false`).
 */
export async function runReport(opts: RunReportOptions = {}): Promise<RunReport> {
  if (opts.threads !== undefined) checkThreadRequest('threads', opts.threads);
  const { value, decision } = await withThreads(opts.threads, () => buildRunReport(opts));
  return decision ? { ...value, threads: decision } : value;
}

/** {@link runReport} on whatever pool runs. */
async function buildRunReport(opts: RunReportOptions): Promise<RunReport> {
  const delta = openInterval('--delta', opts.delta ?? 0.5, 0, 1);
  if (opts.coverage !== undefined && opts.synthetic !== undefined)
    throw new ArgumentError(
      '--coverage',
      opts.coverage,
      'needs a named scenario (the coverage check certifies on it), not --synthetic',
    );
  // the coverage-aware loop consolidates every step: beside a scheduled run its "paper's rule"
  // row would be another run's state
  if (opts.coverage !== undefined && opts.schedule !== undefined)
    throw new ArgumentError(
      '--coverage',
      opts.coverage,
      'runs the loop with Q at every step, so it cannot sit beside --schedule (give one of the two)',
    );
  if (opts.steer !== undefined && !REDIRECT_STEERS.includes(opts.steer))
    throw new ArgumentError('--steer', opts.steer, `must be one of ${REDIRECT_STEERS.join(', ')}`);
  if (opts.steer !== undefined && opts.coverage !== 'redirect')
    throw new ArgumentError('--steer', opts.steer, 'steers --coverage redirect: give --coverage redirect with it');
  const cost = checkRunSize(opts);
  await init(); // the graph's Q on the wasm kernels (referenceGraphSystem's default once initialised)
  const meter = opts.onProgress ? new RunProgressMeter(cost, opts.onProgress) : null;
  const { system, source } = await resolveSystem(opts, meter ? (done, total) => meter.build(done, total) : undefined);
  const base = resolveRunParams(system.capabilities.runDefaults, {
    epsilon: opts.epsilon,
    window: opts.window,
    maxSteps: opts.maxSteps,
    seed: opts.seed,
  });
  const rule = ruleOf(opts.rule, base, system);
  // an order-gap rule's own ε and w are the run's: Ω̂, the stop's explanation and the pool check use them
  const params =
    rule?.name === 'order-gap'
      ? { ...base, epsilon: Number(rule.params['epsilon']), window: Number(rule.params['window']) }
      : base;
  const { sequence, ...numbers } = params;
  const setting: RunSetting = {
    ...numbers,
    delta,
    ...(rule !== null ? { rule: rule.label } : {}),
    ...(sequence !== undefined ? { sequence } : {}),
  };
  const st = system.capabilities.state;
  const initial: unknown = st ? st.initial() : system.theta0;
  const r = trajectoryRun(system, params, rule, opts, meter);
  const trajectory = rowsOf(r, params.window);
  const final: unknown = r.state ?? r.finalState;
  const pool = (st ? st.evidenceAt(initial) : system.evidenceAt(system.theta0!)).map((e) => e.id);
  const seen = new Set(trajectory.map((x) => x.evidence));
  const describe = system.capabilities.describe;
  const finalState = describe?.summary ? describe.summary(final, delta) : null;
  const openAtStop = openQuestionsAtStop(system, finalState, () =>
    st && r.state !== undefined ? st.head(r.state) : r.finalState,
  );
  const report: RunReport = {
    scenario: { source, dim: system.dim, ...factsOf(system, pool.length) } as RunReport['scenario'],
    setting,
    trajectory,
    stop: {
      step: r.stop.step,
      budget: params.maxSteps,
      reason: r.stop.reason,
      windowed: trajectory.at(-1)?.windowed ?? null,
      explanation: explanationOf(r, trajectory, setting),
    },
    best: r.best === null ? null : { step: r.best.step, windowed: r.best.score },
    state: {
      representation: r.representation,
      bytes: st ? st.bytes(final) : 8 * system.dim,
      ...(describe?.stateFacts?.(final) ?? {}),
      consolidations: r.consolidations,
      schedule: opts.schedule ?? null,
    },
    neverDrawn: pool.filter((id) => !seen.has(id)),
    poolCheck: poolCheckAtEnd(system, r, params.epsilon),
    initialState: describe?.summary ? describe.summary(initial, delta) : null,
    finalState,
    ...(openAtStop ? { openAtStop } : {}),
    ...(opts.coverage !== undefined
      ? {
          coverage: await coverageComparison(
            system,
            { ...params, delta, ...(opts.steer !== undefined ? { steer: opts.steer } : {}) },
            opts.coverage,
            rule,
          ),
        }
      : {}),
  };
  meter?.end(r.stop.step);
  return report;
}
