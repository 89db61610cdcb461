/**
 * The coverage check of a candidate stop (Remark 5.4, Sec. 7.3 "stopping ... when the coverage
 * check holds"): when Ω̂ has fallen below ε at θ_T, is the small order-gap convergence, or is the
 * loop blind? Two tests, both at θ_T:
 *
 * - per-question coverage exactly as `certify` computes it (src/certify: Prop. 5.2 on W_q under
 *   P(·|θ_T), with certify's derived tolerance) — a question whose commutator Gramian is
 *   degenerate under P is uncovered: evidence that could still move it is not being drawn;
 * - the pool check (src/ordergap/poolCheck): every pool item whose Ω(θ_T; e) exceeds ε would
 *   still move the state by more than the threshold the stop was taken at, reachable or not.
 *
 * The verdict is 'converged' when every question is covered, no open question is unaddressed and
 * no pool item has Ω > ε, else 'blind' with the uncovered questions and the items that would
 * still move the state. A question no pool item addresses has an empty W_q where certify decides
 * nothing: it is listed as unaddressed (and said in the detail); when the state in words still
 * calls it open (openness > ½) the stop is blind to it — no evidence the loop can draw moves it,
 * so a small order-gap says nothing about it (Sec. 7.3: what is genuinely missing). A closed
 * unaddressed question, or one a system without a state in words declares, does not decide the
 * verdict. "Blind" is
 * this check's word for a stop; the pool check's own verdict is narrower ('unreachable' when an
 * item of probability zero would still move the state, else 'reachable') and never calls a stop
 * blind or converged.
 */
import { certify, type CertifyOptions } from '../certify/certify.js';
import type { QuestionCoverage } from '../certify/coverage.js';
import { checkPoolAtStop, type PoolCheck } from '../ordergap/poolCheck.js';
import { checkState } from '../system/define.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';

/** A pool item that would still move the state by more than ε. */
export interface MovingItem {
  readonly evidence: string;
  /** Ω(θ_T; e) (Eq. 2). */
  readonly omega: number;
  /** P(e | θ_T). */
  readonly p: number;
}

/** A question the coverage check finds uncovered at θ_T. */
export interface UncoveredQuestion {
  readonly question: string;
  /** certify's one-line reading (kernel dimension, blind items). */
  readonly summary: string;
  /** λ_min(G_Wq) under P(·|θ_T) (Prop. 5.2 on W_q). */
  readonly lambdaMin: number;
  /** certify's derived λ-tolerance: q is covered iff λ_min exceeds it (with full rank). */
  readonly tolerance: number;
  /** λ_min / tolerance: how far the test failed (below 1; null when the tolerance is 0). */
  readonly margin: number | null;
  /** Directions of W_q that the supported items leave unseen (of `dim`). */
  readonly kernelDim: number;
  /** dim W_q. */
  readonly dim: number;
  /** Whether the whole pool, every item equally likely, would cover q (false: no pool item can). */
  readonly coverableByPool: boolean;
  /**
   * Items that address q: those whose footprint meets q's coordinates when the system declares
   * footprints and question coordinates, else certify's blind items of q (p = 0 items that would
   * move it).
   */
  readonly addressedBy: readonly string[];
}

/** The result of {@link checkCoverageAtStop}. */
export interface CoverageCheck {
  readonly verdict: 'converged' | 'blind';
  readonly epsilon: number;
  readonly uncoveredQuestions: readonly UncoveredQuestion[];
  /**
   * Questions of the system that no pool item addresses at θ_T (W_q is empty: certify decides
   * nothing there), in the system's order: those it declares (`questions`) missing from the
   * coverage, and those its states name (`describe.summary`) that it does not declare. One the
   * state in words calls open (openness > ½) makes the verdict blind; the others are listed only.
   */
  readonly unaddressedQuestions: readonly string[];
  /** Those of {@link unaddressedQuestions} the state in words calls open: the stop is blind to them. */
  readonly openUnaddressedQuestions: readonly string[];
  /** Pool items with Ω(θ_T; e) > ε, largest Ω first. */
  readonly movingItems: readonly MovingItem[];
  /** certify's per-question coverage at θ_T. */
  readonly coverage: readonly QuestionCoverage[];
  readonly poolCheck: PoolCheck;
  /** One line: why the verdict. */
  readonly detail: string;
}

/** Options of {@link checkCoverageAtStop}. */
export interface CoverageCheckOptions {
  /**
   * Options passed to `certify` (its defaults otherwise). The check always sets `at` (θ_T),
   * iterates Q to no fixed point (`fixedPoint.maxIterations: 0`: certify linearises at θ_T and
   * reads the fixed point only for its report), decides no subspace (`subspaces: []`), skips the FD/autodiff cross-check and checks
   * contraction on the whole space only: none of these enters the coverage decision except the
   * whole-space ‖DQ‖, which certify's tolerance uses and which is kept.
   */
  certify?: Omit<CertifyOptions, 'at' | 'subspaces'>;
}

/** The items whose footprint meets question q's coordinates, or certify's blind items of q. */
function itemsAddressing(system: OperatorSystem, cov: QuestionCoverage, pool: readonly string[]): string[] {
  const coords = system.questions[cov.question];
  const footprint = system.capabilities.linearization?.footprint;
  if (!coords || !footprint) return [...cov.blindItems];
  const q = new Set(coords);
  return pool.filter((id) => footprint(id).some((i) => q.has(i)));
}

/**
 * The questions no pool item addresses: declared or named by the state in words (the names do
 * not depend on δ; ½ is passed; θ in the system's state form), not among the decided ones. With `asked` questions given to
 * certify, only those of them that it left undecided.
 */
function unaddressed(
  system: OperatorSystem,
  th: Float64Array,
  asked: NonNullable<CoverageCheckOptions['certify']>['questions'],
  decided: readonly QuestionCoverage[],
): { names: string[]; open: string[] } {
  const known = new Set(decided.map((c) => c.question));
  const summary = system.capabilities.describe?.summary;
  const st = system.capabilities.state;
  const questions = summary?.(st ? st.fromDense(th) : th, 0.5).questions ?? [];
  let names: string[];
  if (typeof asked === 'function') names = [];
  else if (asked) names = asked.map((q) => (typeof q === 'string' ? q : q.name));
  else names = [...Object.keys(system.questions), ...questions.map((q) => q.question)];
  const left = [...new Set(names)].filter((q) => !known.has(q));
  const open = new Set(questions.filter((q) => q.open).map((q) => q.question));
  return { names: left, open: left.filter((q) => open.has(q)) };
}

/**
 * Checks a candidate stop at θ (see the module comment).
 * Cost: one `certify` at θ restricted to coverage (DQ on each W_q, Σ_e columns per pool item, a
 * streaming QR per question; about 1 s at the default scenario's d = 2158) + 2·|pool| Q for the
 * pool check.
 * @throws {ArgumentError} θ malformed, ε not finite and > 0.
 * @example
 * ```ts
 * const c = await checkCoverageAtStop(referenceGraphSystem(), run.finalState, 0.01);
 * c.verdict;     // 'blind' at the default scenario's step-56 stop
 * c.movingItems; // [{ evidence: 'e16', omega: 0.214, p: 0.052 }, ...]
 * ```
 */
export async function checkCoverageAtStop(
  system: OperatorSystem,
  theta: ArrayLike<number>,
  epsilon: number,
  options: CoverageCheckOptions = {},
): Promise<CoverageCheck> {
  const th = checkState('theta', system, theta);
  finiteNumber('epsilon', epsilon);
  if (!(epsilon > 0)) throw new ArgumentError('epsilon', epsilon, 'must be > 0');
  const poolCheck = checkPoolAtStop(system, th, epsilon);
  const report = await certify(system, {
    crossCheckColumns: 0,
    contractionSubspaces: ['all'],
    ...options.certify,
    // linearised at the given θ_T, certify reads the fixed point only for its report's
    // fixed-point fields, never for coverage: one application of Q instead of the iteration
    fixedPoint: { ...options.certify?.fixedPoint, maxIterations: 0 },
    at: th,
    atLabel: 'candidate stop',
    subspaces: [],
  });
  const poolIds = poolCheck.items.map((i) => i.evidence);
  const uncoveredQuestions = report.coverage
    .filter((c) => !c.covered)
    .map(
      (c): UncoveredQuestion => ({
        question: c.question,
        summary: c.summary,
        lambdaMin: c.lambdaMin,
        tolerance: c.tolerance,
        margin: c.tolerance > 0 ? c.lambdaMin / c.tolerance : null,
        kernelDim: c.kernelDim,
        dim: c.dim,
        coverableByPool: c.coverableByPool,
        addressedBy: itemsAddressing(system, c, poolIds),
      }),
    );
  const { names: unaddressedQuestions, open: openUnaddressed } = unaddressed(
    system,
    th,
    options.certify?.questions,
    report.coverage,
  );
  const movingItems = poolCheck.items
    .filter((i) => i.omega > epsilon)
    .sort((a, b) => b.omega - a.omega)
    .map((i) => ({ evidence: i.evidence, omega: i.omega, p: i.p }));
  const verdict =
    uncoveredQuestions.length === 0 && movingItems.length === 0 && openUnaddressed.length === 0 ? 'converged' : 'blind';
  const parts: string[] = [];
  if (uncoveredQuestions.length)
    parts.push(
      `${uncoveredQuestions.length} question(s) uncovered: ${uncoveredQuestions.map((q) => q.question).join(', ')}`,
    );
  if (movingItems.length)
    parts.push(
      `${movingItems.length} item(s) would still move the state by more than ε = ${epsilon}: ` +
        movingItems
          .slice(0, 6)
          .map((m) => `${m.evidence} (Ω = ${m.omega.toPrecision(3)} = ${(m.omega / epsilon).toFixed(1)}·ε)`)
          .join(', ') +
        (movingItems.length > 6 ? ` and ${movingItems.length - 6} more` : ''),
    );
  if (verdict === 'converged')
    parts.push(`every question covered (${report.coverage.length}) and every pool item has Ω <= ε = ${epsilon}`);
  if (openUnaddressed.length)
    parts.push(`blind to the open question(s) ${openUnaddressed.join(', ')}: no pool item addresses them`);
  const closedUnaddressed = unaddressedQuestions.filter((q) => !openUnaddressed.includes(q));
  if (closedUnaddressed.length)
    parts.push(
      `coverage not decided for ${closedUnaddressed.join(', ')}: no pool item addresses ${closedUnaddressed.length === 1 ? 'it' : 'them'}`,
    );
  const detail = parts.join('; ');
  return {
    verdict,
    epsilon,
    uncoveredQuestions,
    unaddressedQuestions,
    openUnaddressedQuestions: openUnaddressed,
    movingItems,
    coverage: report.coverage,
    poolCheck,
    detail,
  };
}
