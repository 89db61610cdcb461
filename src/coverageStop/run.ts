/**
 * Algorithm 1 with the coverage-aware stop: the package's loop (`run`, Eq. 1–3) runs under a
 * stopping rule (default Algorithm 1's order-gap test) until the rule stops; the candidate stop
 * is then checked and the policy of a {@link CoverageStopper} decides (./stopper.ts: `stop`,
 * `continue`, `redirect`). With `redirect`, after each blind check the loop draws from the
 * mixture (1 − λ)·P(·|θ) + λ·U(T), where T holds the items the stopper's steer names and U(T) is
 * uniform on T: Sec. 7.3's adaptive extraction. With steer `coverage` (default) T holds the pool
 * items addressing the questions failing the check — the evidence the coverage check says is
 * missing; with `order-gap` the items with Ω(θ_T; e) > ε and those addressing uncovered
 * questions (./steer.ts). An empty T (a check blind by the pool check alone under `coverage`)
 * leaves P(·|θ) as it is.
 *
 * After a refused stop the window restarts: the next stop needs w fresh steps with Ω̂ <= ε. The
 * loop runs as segments, one per candidate stop; segment j samples with seed
 * (seed ⊕ j·0x9E3779B9) mod 2^32, so a run is a function of its seed.
 */
import { run, type BestState, type RunResult, type RunStep } from '../ordergap/run.js';
import { runParamsOf } from '../system/runParams.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { OrderGapRule } from '../stopping/orderGapRule.js';
import type { StoppingRule } from '../stopping/rule.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';
import type { CoverageCheck, CoverageCheckOptions } from './check.js';
import { COVERAGE_POLICIES, CoverageStopper, type CoveragePolicy } from './stopper.js';
import type { RedirectSteer, TargetQuestion } from './steer.js';

/** Options of {@link runCoverageAware}. */
export interface CoverageRunOptions extends CoverageCheckOptions {
  /** ε > 0 (Eq. 3) of Algorithm 1's rule, and of the pool check. */
  epsilon: number;
  /** w >= 1 (Eq. 3). */
  window: number;
  /** Tmax >= 1: the step budget over all segments. */
  maxSteps: number;
  /** Seed of the sampler (integer in [0, 2^32)); default 0. */
  seed?: number;
  /** Start state (default the system's θ0). */
  theta0?: ArrayLike<number>;
  /** The rule whose stops are the candidates (default Algorithm 1's: the order-gap rule with ε and w). */
  rule?: StoppingRule;
  /** What a blind candidate stop does (default 'stop', the paper's rule). */
  policy?: CoveragePolicy;
  /** What `redirect` weights toward: 'coverage' (default, Sec. 7.3) or 'order-gap' (./steer.ts). */
  steer?: RedirectSteer;
  /** λ in (0, 1]: the share of the sampling mass `redirect` moves onto the named items (default 0.5). */
  redirectShare?: number;
  /** Keep θ_t of every step (default true, as `runRecursive`). */
  recordStates?: boolean;
}

/** One candidate stop and what the policy made of it. */
export interface CandidateStop {
  /** The step T at which the rule stopped. */
  readonly step: number;
  readonly check: CoverageCheck;
  /** 'stop' (accepted), 'continue' (refused), 'redirect' (refused, weights moved onto `targets`). */
  readonly action: 'stop' | 'continue' | 'redirect';
  /** The items `redirect` weights toward (empty for the other actions). */
  readonly targets: readonly string[];
  /** With `redirect`: the questions failing the check and the items addressing each (else empty). */
  readonly targetQuestions: readonly TargetQuestion[];
}

/** How a coverage-aware run ended. */
export interface CoverageStop {
  /** T: the steps taken. */
  readonly step: number;
  /**
   * 'converged': the rule stopped and the check holds; 'blind': the stop accepted although the
   * check failed (policy `stop`); 'budget': Tmax ran out (after refused stops, or no stop at all).
   */
  readonly kind: 'converged' | 'blind' | 'budget';
  readonly policy: CoveragePolicy;
  /** One line: what happened. */
  readonly detail: string;
}

/** The result of {@link runCoverageAware}. */
export interface CoverageAwareRun {
  /** The whole trajectory (t counts over all segments; the rule's statistic restarts after a refused stop). */
  readonly run: RunResult;
  readonly candidates: readonly CandidateStop[];
  readonly stop: CoverageStop;
  /** Distinct evidence items drawn. */
  readonly evidenceUsed: number;
}

/** The redirect mixture (1 − λ)·p + λ·U(targets) over the distribution's items. */
export function redirectWeights(
  dist: readonly EvidenceWeight[],
  targets: ReadonlySet<string>,
  share: number,
): number[] {
  const inT = dist.filter((e) => targets.has(e.id)).length;
  if (inT === 0) return dist.map((e) => e.p);
  return dist.map((e) => (1 - share) * e.p + (targets.has(e.id) ? share / inT : 0));
}

/** The options, checked before anything runs. */
function checkOptions(options: CoverageRunOptions) {
  const p = runParamsOf(options);
  const policy = options.policy ?? 'stop';
  if (!COVERAGE_POLICIES.includes(policy))
    throw new ArgumentError('policy', policy, "must be 'stop', 'continue' or 'redirect'");
  const share = finiteNumber('redirectShare', options.redirectShare ?? 0.5);
  if (!(share > 0 && share <= 1)) throw new ArgumentError('redirectShare', share, 'must lie in (0, 1]');
  const rule = options.rule ?? new OrderGapRule({ epsilon: p.epsilon!, window: p.window! });
  return { epsilon: p.epsilon!, maxSteps: p.maxSteps!, seed: p.seed!, policy, share, rule };
}

/** The trajectory of all segments as one run. */
interface Trajectory {
  steps: RunStep[];
  first: RunResult | null;
  last: RunResult | null;
  consolidations: number;
  best: BestState | null;
}

/** Appends a segment: its steps renumbered after the earlier ones, its best state if better. */
function append(tr: Trajectory, r: RunResult): void {
  tr.first ??= r;
  tr.last = r;
  tr.consolidations += r.consolidations;
  const offset = tr.steps.length;
  if (r.best !== null && (tr.best === null || r.best.score < tr.best.score)) {
    const b = r.best;
    tr.best = Object.defineProperty({ step: b.step + offset, score: b.score }, 'theta', {
      enumerable: true,
      get: () => b.theta,
    }) as BestState;
  }
  for (const s of r.steps) tr.steps.push({ ...s, t: s.t + offset });
}

/**
 * Runs Algorithm 1 with the coverage-aware stop (see the module comment).
 * Cost: the steps of Algorithm 1 + one coverage check per candidate stop.
 * @throws {ArgumentError} bad ε, w, Tmax, seed, policy, steer or share (nothing runs).
 * @example
 * ```ts
 * const sys = referenceGraphSystem();
 * const r = await runCoverageAware(sys, { epsilon: 0.01, window: 4, maxSteps: 120, seed: 7, policy: 'continue' });
 * r.candidates[0].check.verdict; // 'blind' (the paper's rule would stop there, step 56)
 * r.stop;                        // the converged stop later, or the budget
 * ```
 */
export async function runCoverageAware(system: OperatorSystem, options: CoverageRunOptions): Promise<CoverageAwareRun> {
  const o = checkOptions(options);
  const stopper = new CoverageStopper(system, o.rule, {
    policy: o.policy,
    epsilon: o.epsilon,
    ...(options.steer !== undefined ? { steer: options.steer } : {}),
    ...(options.certify ? { certify: options.certify } : {}),
  });
  const tr: Trajectory = { steps: [], first: null, last: null, consolidations: 0, best: null };
  const candidates: CandidateStop[] = [];
  let theta: ArrayLike<number> | undefined = options.theta0;
  let targets: ReadonlySet<string> = new Set();
  let stop: CoverageStop | null = null;
  let accepted: 'order-gap' | 'criterion' = 'order-gap';
  for (let segment = 0; tr.steps.length < o.maxSteps && stop === null; segment++) {
    const r = run(system, o.rule, {
      maxSteps: o.maxSteps - tr.steps.length,
      seed: (o.seed ^ Math.imul(segment, 0x9e3779b9)) >>> 0,
      recordStates: options.recordStates ?? true,
      ...(theta !== undefined ? { theta0: theta } : {}),
      ...(targets.size > 0
        ? { sampleWeights: (dist: readonly EvidenceWeight[]) => redirectWeights(dist, targets, o.share) }
        : {}),
    });
    append(tr, r);
    theta = r.finalState;
    if (r.stop.reason !== 'order-gap' && r.stop.reason !== 'criterion') break;
    const T = tr.steps.length;
    const report = await stopper.candidate(T, r.stop.reason, r.finalState, r.steps.at(-1)?.statistic ?? null);
    candidates.push({
      step: T,
      check: report.check!,
      action: report.action!,
      targets: report.redirect,
      targetQuestions: report.targetQuestions,
    });
    if (report.stop) {
      stop = { step: T, kind: report.verdict!, policy: o.policy, detail: report.detail };
      accepted = r.stop.reason;
    } else if (report.action === 'redirect') targets = new Set(report.redirect);
  }
  const T = tr.steps.length;
  stop ??= {
    step: T,
    kind: 'budget',
    policy: o.policy,
    detail:
      candidates.length === 0
        ? `Tmax = ${o.maxSteps} reached with Ω̂ > ε throughout`
        : `Tmax = ${o.maxSteps} reached after ${candidates.length} refused blind stop(s) (last at step ${candidates[candidates.length - 1]!.step})`,
  };
  return {
    run: combined(tr, o, stop, accepted),
    candidates,
    stop,
    evidenceUsed: new Set(tr.steps.map((s) => s.evidence)).size,
  };
}

/** The segments as one {@link RunResult}. */
function combined(
  tr: Trajectory,
  o: ReturnType<typeof checkOptions>,
  stop: CoverageStop,
  accepted: 'order-gap' | 'criterion',
): RunResult {
  const first = tr.first!;
  const last = tr.last!;
  return {
    system: first.system,
    dim: first.dim,
    rule: first.rule,
    seed: o.seed,
    sequence: null,
    maxSteps: o.maxSteps,
    theta0: first.theta0,
    steps: tr.steps,
    stop: {
      reason: stop.kind === 'budget' ? 'budget' : accepted,
      detail: stop.detail,
      step: stop.step,
    },
    finalState: last.finalState,
    representation: first.representation,
    ...(last.state !== undefined ? { state: last.state } : {}),
    consolidations: tr.consolidations,
    schedule: null,
    best: tr.best,
  };
}
