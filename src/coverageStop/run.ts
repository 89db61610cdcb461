/**
 * Algorithm 1 with the coverage-aware stop: the package's loop (`runRecursive`, Eq. 1–3) runs
 * until Ω̂ falls below ε; the candidate stop is then checked ({@link checkCoverageAtStop}) and a
 * policy decides:
 *
 * - `stop` — the paper's rule: stop at the first Ω̂ <= ε whatever the check says (the report
 *   still says whether that stop was converged or blind);
 * - `continue` — refuse a blind stop and keep going until a stop is converged or the budget
 *   Tmax runs out;
 * - `redirect` — as `continue`, and after each blind check draw from the mixture
 *   (1 − λ)·P(·|θ) + λ·U(T), where T holds the items the check names (those that would still
 *   move the state by more than ε and those addressing the uncovered questions) and U(T) is
 *   uniform on T: Sec. 7.3's adaptive extraction, weighted toward the evidence the coverage check
 *   says is missing rather than by question openness.
 *
 * After a refused stop the window restarts: the next stop needs w fresh steps with Ω̂ <= ε. The
 * loop runs as segments of `runRecursive`, one per candidate stop; segment j samples with seed
 * (seed ⊕ j·0x9E3779B9) mod 2^32, so a run is a function of its seed.
 */
import { runRecursive, type RecursiveRun, type StepRecord } from '../ordergap/algorithm1.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';
import { checkCoverageAtStop, type CoverageCheck, type CoverageCheckOptions } from './check.js';

/** What happens when a candidate stop is blind. */
export type CoveragePolicy = 'stop' | 'continue' | 'redirect';

/** The policies, in the order reports list them. */
export const COVERAGE_POLICIES: readonly CoveragePolicy[] = Object.freeze(['stop', 'continue', 'redirect']);

/** Options of {@link runCoverageAware}. */
export interface CoverageRunOptions extends CoverageCheckOptions {
  /** ε > 0 (Eq. 3). */
  epsilon: number;
  /** w >= 1 (Eq. 3). */
  window: number;
  /** Tmax >= 1: the step budget over all segments. */
  maxSteps: number;
  /** Seed of the sampler (integer in [0, 2^32)); default 0. */
  seed?: number;
  /** Start state (default the system's θ0). */
  theta0?: ArrayLike<number>;
  /** What a blind candidate stop does (default 'stop', the paper's rule). */
  policy?: CoveragePolicy;
  /** λ in (0, 1]: the share of the sampling mass `redirect` moves onto the named items (default 0.5). */
  redirectShare?: number;
  /** Keep θ_t of every step (default true, as `runRecursive`). */
  recordStates?: boolean;
}

/** One candidate stop and what the policy made of it. */
export interface CandidateStop {
  /** The step T at which Ω̂ fell below ε. */
  readonly step: number;
  readonly check: CoverageCheck;
  /** 'stop' (accepted), 'continue' (refused), 'redirect' (refused, weights moved onto `targets`). */
  readonly action: 'stop' | 'continue' | 'redirect';
  /** The items `redirect` weights toward (empty for the other actions). */
  readonly targets: readonly string[];
}

/** How a coverage-aware run ended. */
export interface CoverageStop {
  /** T: the steps taken. */
  readonly step: number;
  /**
   * 'converged': Ω̂ <= ε and the check holds; 'blind': Ω̂ <= ε accepted although the check
   * failed (policy `stop`); 'budget': Tmax ran out (after refused stops, or Ω̂ never fell).
   */
  readonly kind: 'converged' | 'blind' | 'budget';
  readonly policy: CoveragePolicy;
  /** One line: what happened. */
  readonly detail: string;
}

/** The result of {@link runCoverageAware}. */
export interface CoverageAwareRun {
  /** The whole trajectory (t counts over all segments; `windowed` restarts after a refused stop). */
  readonly run: RecursiveRun;
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

/** Items a blind check names: those moving the state by more than ε, then those addressing uncovered questions. */
export function redirectTargets(check: CoverageCheck): string[] {
  const out = new Set(check.movingItems.map((m) => m.evidence));
  for (const q of check.uncoveredQuestions) for (const id of q.addressedBy) out.add(id);
  return [...out];
}

/**
 * Runs Algorithm 1 with the coverage-aware stop (see the module comment).
 * Cost: the steps of Algorithm 1 + one {@link checkCoverageAtStop} per candidate stop.
 * @throws {ArgumentError} bad ε, w, Tmax, seed, policy or share (nothing runs).
 * @example
 * ```ts
 * const sys = referenceGraphSystem();
 * const r = await runCoverageAware(sys, { epsilon: 0.01, window: 4, maxSteps: 120, seed: 7, policy: 'continue' });
 * r.candidates[0].check.verdict; // 'blind' (the paper's rule would stop there, step 62)
 * r.stop;                        // the converged stop later, or the budget
 * ```
 */
export async function runCoverageAware(system: OperatorSystem, options: CoverageRunOptions): Promise<CoverageAwareRun> {
  if (typeof options !== 'object' || options === null) throw new ArgumentError('options', options, 'must be an object');
  const epsilon = finiteNumber('epsilon', options.epsilon);
  if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  const window = integerInRange('window', options.window, 1);
  const maxSteps = integerInRange('maxSteps', options.maxSteps, 1);
  const seed = integerInRange('seed', options.seed ?? 0, 0, 2 ** 32 - 1);
  const policy = options.policy ?? 'stop';
  if (!COVERAGE_POLICIES.includes(policy))
    throw new ArgumentError('policy', policy, "must be 'stop', 'continue' or 'redirect'");
  const share = finiteNumber('redirectShare', options.redirectShare ?? 0.5);
  if (!(share > 0 && share <= 1)) throw new ArgumentError('redirectShare', share, 'must lie in (0, 1]');
  const recordStates = options.recordStates ?? true;
  const checkOptions: CoverageCheckOptions = options.certify ? { certify: options.certify } : {};

  const steps: StepRecord[] = [];
  const candidates: CandidateStop[] = [];
  let theta: ArrayLike<number> | undefined = options.theta0;
  let targets: ReadonlySet<string> = new Set();
  let first: RecursiveRun | null = null;
  let last: RecursiveRun | null = null;
  let consolidations = 0;
  let best: RecursiveRun['best'] = null;
  let stop: CoverageStop | null = null;
  for (let segment = 0; steps.length < maxSteps && stop === null; segment++) {
    const redirect = targets.size > 0;
    const r = runRecursive(system, {
      epsilon,
      window,
      maxSteps: maxSteps - steps.length,
      seed: (seed ^ Math.imul(segment, 0x9e3779b9)) >>> 0,
      recordStates,
      ...(theta !== undefined ? { theta0: theta } : {}),
      ...(redirect
        ? { sampleWeights: (dist: readonly EvidenceWeight[]) => redirectWeights(dist, targets, share) }
        : {}),
    });
    first ??= r;
    last = r;
    consolidations += r.consolidations;
    const offset = steps.length;
    if (r.best !== null && (best === null || r.best.windowed < best.windowed)) {
      const b = r.best;
      best = Object.defineProperty({ step: b.step + offset, windowed: b.windowed }, 'theta', {
        enumerable: true,
        get: () => b.theta,
      }) as NonNullable<RecursiveRun['best']>;
    }
    for (const s of r.steps) steps.push({ ...s, t: s.t + offset });
    theta = r.finalState;
    if (r.stopReason !== 'order-gap') break;
    const check = await checkCoverageAtStop(system, r.finalState, epsilon, checkOptions);
    const T = steps.length;
    if (check.verdict === 'converged' || policy === 'stop') {
      candidates.push({ step: T, check, action: 'stop', targets: [] });
      stop = {
        step: T,
        kind: check.verdict,
        policy,
        detail:
          check.verdict === 'converged'
            ? `Ω̂ <= ε at step ${T} and the coverage check holds: ${check.detail}`
            : `Ω̂ <= ε at step ${T}; stopped by the paper's rule although BLIND: ${check.detail}`,
      };
    } else {
      const named = policy === 'redirect' ? redirectTargets(check) : [];
      candidates.push({ step: T, check, action: policy, targets: named });
      if (policy === 'redirect') targets = new Set(named);
    }
  }
  const T = steps.length;
  stop ??= {
    step: T,
    kind: 'budget',
    policy,
    detail:
      candidates.length === 0
        ? `Tmax = ${maxSteps} reached with Ω̂ > ε throughout`
        : `Tmax = ${maxSteps} reached after ${candidates.length} refused blind stop(s) (last at step ${candidates[candidates.length - 1]!.step})`,
  };
  const windowedLast = steps.length ? steps[steps.length - 1]!.windowed : null;
  const run: RecursiveRun = {
    system: first!.system,
    dim: first!.dim,
    representation: first!.representation,
    consolidations,
    best,
    options: { epsilon, window, maxSteps, seed, rule: 'order-gap', sequence: null, schedule: null },
    theta0: first!.theta0,
    steps,
    stoppedAt: T,
    stopReason: stop.kind === 'budget' ? 'budget' : 'order-gap',
    finalState: last!.finalState,
    finalWindowed: windowedLast,
  };
  return { run, candidates, stop, evidenceUsed: new Set(steps.map((s) => s.evidence)).size };
}
