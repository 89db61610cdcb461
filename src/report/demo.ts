/**
 * The report of `ordergap demo`: the closed-form illustration of Sec. 9.2 — the trajectory table, where
 * Algorithm 1 stops, the fixed-budget run and the difference, and the coverage-failure variant
 * (pertinent items e2, e3 with probability 0) with the pool diagnostic that exposes it.
 */
import { runRecursive } from '../ordergap/algorithm1.js';
import type { RunResult } from '../ordergap/run.js';
import { checkPoolAtStop, type PoolCheck } from '../ordergap/poolCheck.js';
import { referenceDistance } from '../blas1/dnrm2.js';
import { SEC92, closedFormAlpha, closedFormOrderGap, closedFormSystem } from '../closedForm/system.js';
import { checkRunParams, resolveRunParams } from '../system/runParams.js';
import { fixed, renderTable } from './table.js';

/** Options of the demo (defaults: Sec. 9.2). */
export interface DemoReportOptions {
  epsilon?: number;
  window?: number;
  maxSteps?: number;
  seed?: number;
}

/** One row of the trajectory table. */
export interface DemoRow {
  t: number;
  evidence: string;
  alpha: number;
  /** Ω_t computed from the operators (Eq. 2). */
  omega: number;
  /** Ω_t from the closed form (Eq. 12) at θ_{t−1}, for comparison. */
  omegaClosedForm: number;
  windowed: number | null;
  c: number;
  u: number;
}

/** Everything `ordergap demo` prints (the --json document). */
export interface DemoReport {
  setting: {
    rho: number;
    alphas: number[];
    theta0: number[];
    epsilon: number;
    window: number;
    maxSteps: number;
    seed: number;
  };
  trajectory: DemoRow[];
  orderGapStop: { step: number; reason: string; windowed: number | null; c: number; u: number };
  budgetRun: { step: number; reason: string; c: number; u: number };
  difference: { c: number; u: number; norm: number };
  coverageFailure: {
    probabilities: Record<string, number>;
    trajectory: DemoRow[];
    stop: { step: number; reason: string; windowed: number | null; c: number; u: number };
    poolCheck: PoolCheck;
    /** The pool check found no unreachable item that would still move the state (not a claim of convergence). */
    allReachable: boolean;
    message: string;
  };
}

function rows(run: RunResult): DemoRow[] {
  let prev = run.theta0;
  return run.steps.map((s) => {
    const alpha = closedFormAlpha(s.evidence);
    const row: DemoRow = {
      t: s.t,
      evidence: s.evidence,
      alpha,
      omega: s.omega,
      omegaClosedForm: closedFormOrderGap(prev[0]!, prev[1]!, alpha, SEC92.rho),
      windowed: s.statistic,
      c: s.theta![0]!,
      u: s.theta![1]!,
    };
    prev = s.theta!;
    return row;
  });
}

/** Ω̂ after the last step of a run of Algorithm 1 (null when it took fewer than w steps). */
function lastStatistic(run: RunResult): number | null {
  return run.steps.at(-1)?.statistic ?? null;
}

/**
 * Computes the demo report.
 * @throws {ArgumentError} bad ε, w, Tmax or seed.
 */
export function demoReport(options: DemoReportOptions = {}): DemoReport {
  const system = closedFormSystem();
  // the closed form's run defaults are Sec. 9.2's: the items in order, ε = 0.025, w = 2, Tmax = 5
  const { sequence, ...run } = resolveRunParams(system.capabilities.runDefaults, {
    epsilon: options.epsilon,
    window: options.window,
    maxSteps: options.maxSteps,
  });
  const { epsilon, window, maxSteps } = run;
  // the seed is the coverage-failure variant's: it samples P(·|θ)
  const seed = checkRunParams({ seed: options.seed ?? run.seed }).seed!;
  const stopRun = runRecursive(system, { ...run, sequence: sequence!, rule: 'order-gap' });
  const budgetRun = runRecursive(system, { ...run, sequence: sequence!, rule: 'budget' });
  const probabilities = { e2: 0, e3: 0 };
  const blindSystem = closedFormSystem({ probabilities });
  const blindRun = runRecursive(blindSystem, { ...run, seed, rule: 'order-gap' });
  const poolCheck = checkPoolAtStop(blindSystem, blindRun.finalState, epsilon);
  const allReachable = poolCheck.verdict === 'reachable';
  const st = stopRun.finalState;
  const bt = budgetRun.finalState;
  const unreachableNames = poolCheck.unreachableItems.join(', ');
  return {
    setting: { rho: SEC92.rho, alphas: [...SEC92.alphas], theta0: [...SEC92.theta0], epsilon, window, maxSteps, seed },
    trajectory: rows(budgetRun),
    orderGapStop: {
      step: stopRun.stop.step,
      reason: stopRun.stop.reason,
      windowed: lastStatistic(stopRun),
      c: st[0]!,
      u: st[1]!,
    },
    budgetRun: { step: budgetRun.stop.step, reason: budgetRun.stop.reason, c: bt[0]!, u: bt[1]! },
    difference: { c: bt[0]! - st[0]!, u: bt[1]! - st[1]!, norm: referenceDistance(bt, st) },
    coverageFailure: {
      probabilities: Object.fromEntries(blindSystem.evidenceAt(blindRun.theta0).map((e) => [e.id, e.p])),
      trajectory: rows(blindRun),
      stop: {
        step: blindRun.stop.step,
        reason: blindRun.stop.reason,
        windowed: lastStatistic(blindRun),
        c: blindRun.finalState[0]!,
        u: blindRun.finalState[1]!,
      },
      poolCheck,
      allReachable,
      message: allReachable
        ? 'no unreachable item would still move the state (the pool check; not a claim of convergence)'
        : `NOT CONVERGENCE: the order-gap is small only because ${unreachableNames} (probability 0) were never sampled; ` +
          `at the stopping state they would still move the state by more than ε`,
    },
  };
}

function trajectoryTable(rs: readonly DemoRow[], window: number, stopAt?: number): string {
  return renderTable(
    [
      { header: 't', align: 'right' },
      { header: 'e' },
      { header: 'α', align: 'right' },
      { header: 'Ω_t', align: 'right' },
      { header: `Ω̂_t,${window}`, align: 'right' },
      { header: 'c_t', align: 'right' },
      { header: 'u_t', align: 'right' },
      { header: '' },
    ],
    rs.map((r) => [
      String(r.t),
      r.evidence,
      fixed(r.alpha, 2),
      fixed(r.omega, 4),
      fixed(r.windowed, 4),
      fixed(r.c, 3),
      fixed(r.u, 3),
      r.t === stopAt ? '<- Algorithm 1 stops' : '',
    ]),
  );
}

/** Renders the report as the text `ordergap demo` prints. */
export function renderDemoText(r: DemoReport): string {
  const s = r.setting;
  const cf = r.coverageFailure;
  const lines = [
    `Closed-form illustration (Sec. 9.2): ρ = ${s.rho}, θ0 = (${s.theta0.map((x) => x.toFixed(2)).join(', ')}), ` +
      `α = (${s.alphas.join(', ')}), ε = ${s.epsilon}, w = ${s.window}, Tmax = ${s.maxSteps}`,
    '',
    trajectoryTable(r.trajectory, s.window, r.orderGapStop.reason === 'order-gap' ? r.orderGapStop.step : undefined),
    '',
    r.orderGapStop.reason === 'order-gap'
      ? `Algorithm 1 stops at step ${r.orderGapStop.step}: Ω̂ = ${fixed(r.orderGapStop.windowed, 4)} <= ε = ${s.epsilon}; ` +
        `state (c, u) = (${fixed(r.orderGapStop.c)}, ${fixed(r.orderGapStop.u)})`
      : `Algorithm 1 did not stop on the order-gap (reason: ${r.orderGapStop.reason}) after ${r.orderGapStop.step} steps`,
    `Fixed budget Tmax = ${s.maxSteps}: ${r.budgetRun.step} steps` +
      (r.budgetRun.reason === 'evidence-exhausted' ? ` (the evidence sequence ran out first)` : '') +
      `, state (c, u) = (${fixed(r.budgetRun.c)}, ${fixed(r.budgetRun.u)})`,
    `Difference (budget − order-gap stop): Δc = ${r.difference.c >= 0 ? '+' : ''}${fixed(r.difference.c)}, ` +
      `Δu = ${r.difference.u >= 0 ? '+' : ''}${fixed(r.difference.u)}, ‖Δθ‖ = ${fixed(r.difference.norm, 4)}` +
      (r.difference.norm > 0 ? ` (${r.budgetRun.step - r.orderGapStop.step} extra step(s) for this change)` : ''),
    '',
    `Coverage-failure variant: the pertinent items e2, e3 get probability 0 ` +
      `(P = ${Object.entries(cf.probabilities)
        .map(([k, v]) => `${k}: ${v.toFixed(3)}`)
        .join(', ')}; sampled with seed ${s.seed})`,
    '',
    trajectoryTable(cf.trajectory, s.window, cf.stop.reason === 'order-gap' ? cf.stop.step : undefined),
    '',
    cf.stop.reason === 'order-gap'
      ? `Algorithm 1 stops at step ${cf.stop.step}: Ω̂ = ${fixed(cf.stop.windowed, 4)}; state (c, u) = (${fixed(cf.stop.c)}, ${fixed(cf.stop.u)})`
      : `Algorithm 1 ran to its budget (${cf.stop.step} steps); state (c, u) = (${fixed(cf.stop.c)}, ${fixed(cf.stop.u)})`,
    'Pool check at that state (Ω(θ_T; e) for every item, sampled or not):',
    renderTable(
      [{ header: 'e' }, { header: 'P(e)', align: 'right' }, { header: 'Ω(θ_T; e)', align: 'right' }, { header: '' }],
      cf.poolCheck.items.map((i) => [
        i.evidence,
        fixed(i.p, 3),
        fixed(i.omega, 4),
        i.unreachable ? `> ε, never sampled` : '',
      ]),
    ),
    cf.message,
  ];
  return lines.join('\n');
}
