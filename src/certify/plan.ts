/**
 * The plan phase of `certify` (./certify.ts): the options resolved against the system's
 * certification policy — the Jacobian engine and the linearisation mode, the state to linearise
 * at (a given state, where Algorithm 1 stops, or the fixed point of Q from θ0 or from that stop),
 * the subspaces W to decide and the blocks to check for contraction, and (once the state is
 * known) the questions W_q. Every bad option is refused here, before any work.
 */
import { checkState } from '../system/define.js';
import { resolveRunParams, type RunOverrides } from '../system/runParams.js';
import type { OperatorSystem, StateBox, Subspace } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { booleanValue, integerInRange } from '../util/validate.js';
import { loadTf } from '../linearize/autodiff.js';
import type { JacobianMethod } from '../linearize/operator.js';
import { footprintOf, type EngineChoice } from '../linearize/systemJacobians.js';
import { runRecursive } from '../ordergap/algorithm1.js';
import type { LinearizationMode } from './commutator.js';
import type { FixedPointOptions } from './fixedPoint.js';
import {
  declaredQuestionNames,
  declaredSubspaceNames,
  policySpacesAt,
  resolveQuestion,
  resolveSubspace,
  subspaceSize,
  type QuestionSpace,
} from './subspace.js';
import type { CertifyOptions } from './types.js';

/** How the contraction check runs: its blocks and the boxes they are searched on. */
export interface ContractionPlan {
  /** The blocks W, by name or given (docs/certify.md step 2). */
  readonly blocks: readonly (string | Subspace)[];
  /** Relative half-width of the local box θ ± radius·max(1, |θ|). */
  readonly radius: number;
  /** Declared boxes per block (the option, else the policy's). */
  readonly boxes: Readonly<Record<string, StateBox>> | undefined;
  /** The system's box per block at θ (the option, else the policy's). */
  readonly boxAt: ((name: string, theta: Float64Array, radius: number) => StateBox | undefined) | undefined;
  readonly lower: number | undefined;
  readonly upper: number | undefined;
  readonly samples: number | undefined;
  /** Prove contraction by enclosure where the system has an interval or tfjs form (default true). */
  readonly proofs: boolean;
  /** Enclosures per block at most (the proof's budget), or undefined for its default. */
  readonly proofBudget: number | undefined;
  /** Largest d·|W| proved, or undefined for the defaults. */
  readonly proofMaxEntries: number | undefined;
}

/** What the plan phase decides: everything later phases need from the options. */
export interface CertifyPlan {
  readonly method: JacobianMethod;
  readonly mode: LinearizationMode;
  readonly seed: number;
  /** The given state (`at`), or undefined to linearise at the fixed point of Q. */
  readonly at: Float64Array | undefined;
  /** What the state is called in the report, when the options or a run say so. */
  readonly atLabel: string | undefined;
  /** How the state was reached when a run of Algorithm 1 was involved, else null. */
  readonly stateNote: string | null;
  /** Options of the fixed-point iteration (its start where Algorithm 1 stops for `from: 'stop'`). */
  readonly fixedPoint: FixedPointOptions | undefined;
  readonly subspaces: readonly Subspace[];
  /** How {@link subspaces} were chosen, in words. */
  readonly subspaceChoice: string;
  readonly maxWholeSpace: number;
  readonly contraction: ContractionPlan;
  readonly engine: EngineChoice;
  /** The tfjs backend when tfjs was loaded, else null. */
  readonly backend: string | null;
  /** DQ columns of the FD/autodiff cross-check (0: none). */
  readonly crossCheckColumns: number;
  readonly notes: readonly string[];
}

/**
 * Runs Algorithm 1 with the run parameters `run` gives, else the system's `runDefaults`, else
 * the package's DEFAULT_RUN (src/system/runParams.ts), and returns where it stops.
 */
function stopState(system: OperatorSystem, run: RunOverrides | undefined) {
  const r = runRecursive(system, { ...resolveRunParams(system.capabilities.runDefaults, run), recordStates: false });
  return { theta: r.finalState, label: `where Algorithm 1 stopped (step ${r.stop.step}, ${r.stop.reason})` };
}

function checkModes(options: CertifyOptions): { method: JacobianMethod; mode: LinearizationMode } {
  const method: JacobianMethod = options.jacobian ?? 'fd';
  if (method !== 'fd' && method !== 'autodiff')
    throw new ArgumentError('jacobian', method, "must be 'fd' or 'autodiff'");
  const mode: LinearizationMode = options.linearization ?? 'auto';
  if (!['auto', 'sigma', 'exact'].includes(mode))
    throw new ArgumentError('linearization', mode, "must be 'auto', 'sigma' or 'exact'");
  return { method, mode };
}

/** The state to linearise at: given, where Algorithm 1 stops, or the fixed point (from θ0 or from that stop). */
function statePlan(system: OperatorSystem, options: CertifyOptions) {
  const from = options.from ?? system.capabilities.certification?.start ?? 'theta0';
  if (from !== 'theta0' && from !== 'stop') throw new ArgumentError('from', from, "must be 'theta0' or 'stop'");
  let stateNote: string | null = null;
  let at: Float64Array | undefined;
  let atLabel = options.atLabel;
  if (options.at === 'stop') {
    const s = stopState(system, options.run);
    at = s.theta;
    atLabel ??= s.label;
    stateNote = s.label;
  } else if (options.at !== undefined) at = checkState('at', system, options.at);
  let fixedPoint = options.fixedPoint;
  if (at === undefined && from === 'stop' && options.fixedPoint?.theta0 === undefined) {
    const s = stopState(system, options.run);
    fixedPoint = { ...options.fixedPoint, theta0: s.theta };
    stateNote = `fixed point of Q iterated from ${s.label}`;
  }
  return { at, atLabel, stateNote, fixedPoint };
}

/**
 * What to decide: asked, the policy's, the declared subspaces, else the contract's default
 * (every coordinate when d allows, the union of the evidence footprints otherwise).
 */
function chooseSubspaces(system: OperatorSystem, asked: CertifyOptions['subspaces'], maxWholeSpace: number) {
  const policy = system.capabilities.certification?.subspaces;
  const declared = declaredSubspaceNames(system);
  const resolve = (names: readonly (string | Subspace)[]) => names.map((s) => resolveSubspace(system, s));
  if (asked) return { subspaces: resolve(asked), choice: 'as asked', isDefault: false };
  if (policy)
    return { subspaces: resolve(policy), choice: `the certification policy of ${system.name}`, isDefault: false };
  if (declared.length)
    return { subspaces: resolve(declared), choice: `every subspace ${system.name} declares`, isDefault: false };
  if (system.dim <= maxWholeSpace)
    return {
      subspaces: resolve(['all']),
      choice: `${system.name} declares no subspaces: all d = ${system.dim} coordinates (the contract's default)`,
      isDefault: true,
    };
  const union = new Set<number>();
  for (const it of system.evidenceAt(system.theta0 ?? new Float64Array(system.dim))) {
    const fp = footprintOf(system, it.id);
    if (!fp) {
      union.clear();
      break;
    }
    for (const j of fp) union.add(j);
  }
  if (union.size === 0)
    throw new ArgumentError(
      'subspaces',
      undefined,
      `must be given: ${system.name} declares no subspaces, d = ${system.dim} > maxWholeSpace = ${maxWholeSpace} and its items declare no footprints`,
    );
  return {
    subspaces: [{ name: 'footprints', coordinates: [...union].sort((a, b) => a - b) }],
    choice: `${system.name} declares no subspaces and d = ${system.dim} > maxWholeSpace = ${maxWholeSpace}: the union of the evidence footprints (${union.size} coordinates)`,
    isDefault: true,
  };
}

/** The contraction blocks (default: 'all', the declared blocks with a bound or asked) and their boxes. */
function contractionPlan(
  system: OperatorSystem,
  options: CertifyOptions,
  decided: readonly Subspace[],
): ContractionPlan {
  const policy = system.capabilities.certification;
  const lipschitz = system.capabilities.lipschitz;
  const blocks = options.contractionSubspaces ?? [
    'all',
    ...declaredSubspaceNames(system).filter(
      (n) => n !== 'all' && (lipschitz?.[n] !== undefined || decided.some((s) => s.name === n)),
    ),
  ];
  return {
    blocks,
    radius: options.radius ?? 0.1,
    boxes: options.contractionBoxes ?? policy?.boxes,
    boxAt: options.contractionBoxAt ?? policy?.boxAt,
    lower: options.lower,
    upper: options.upper,
    samples: options.samples,
    proofs: options.proofs === undefined ? true : booleanValue('proofs', options.proofs),
    proofBudget:
      options.proofBudget === undefined ? undefined : integerInRange('proofBudget', options.proofBudget, 1, 100000),
    proofMaxEntries:
      options.proofMaxEntries === undefined
        ? undefined
        : integerInRange('proofMaxEntries', options.proofMaxEntries, 1, Number.MAX_SAFE_INTEGER),
  };
}

/** The Jacobian engine, loading tfjs for autodiff or for the FD/autodiff cross-check. */
async function jacobianEngine(system: OperatorSystem, method: JacobianMethod, crossCheckColumns: number) {
  const consolidateTf = system.capabilities.linearization?.consolidateTf;
  if (method !== 'autodiff' && !(consolidateTf && crossCheckColumns > 0))
    return { engine: { method } as EngineChoice, backend: null };
  if (method === 'autodiff' && !consolidateTf)
    throw new ArgumentError(
      'jacobian',
      'autodiff',
      `${system.name} provides no consolidateTf (tfjs form of Q); use fd`,
    );
  const rt = await loadTf();
  return { engine: { method, tf: rt.tf } as EngineChoice, backend: rt.backend as string | null };
}

/**
 * Resolves the options against the system (module comment). Runs Algorithm 1 when the state is
 * where it stops (`at: 'stop'`, or `from: 'stop'` for the fixed-point start); loads tfjs when
 * autodiff or the cross-check needs it.
 * @throws {ArgumentError} a bad mode, state, start, subspace, or autodiff without tfjs forms.
 */
export async function planCertification(system: OperatorSystem, options: CertifyOptions): Promise<CertifyPlan> {
  const { method, mode } = checkModes(options);
  const state = statePlan(system, options);
  const maxWholeSpace = options.maxWholeSpace ?? 2048;
  const chosen = chooseSubspaces(system, options.subspaces, maxWholeSpace);
  const contraction = contractionPlan(system, options, chosen.subspaces);
  const crossCheckColumns = Math.min(options.crossCheckColumns ?? (system.dim <= 20000 ? 16 : 0), system.dim);
  const { engine, backend } = await jacobianEngine(system, method, crossCheckColumns);
  return {
    method,
    mode,
    seed: options.seed ?? 0,
    ...state,
    subspaces: chosen.subspaces,
    subspaceChoice: chosen.choice,
    maxWholeSpace,
    contraction,
    engine,
    backend,
    crossCheckColumns,
    notes: chosen.isDefault ? [chosen.choice] : [],
  };
}

/**
 * The questions W_q at the linearisation state θ: asked (names, subspaces, or a function of θ),
 * the policy's question spaces, the declared questions, else the declared subspaces as stand-ins
 * (noted). A question no direction spans at θ is left out, with a note.
 * @throws {ArgumentError} an unknown question name (naming the known ones) or an empty one asked.
 */
export function questionsAt(
  system: OperatorSystem,
  asked: CertifyOptions['questions'],
  theta: Float64Array,
): { questions: QuestionSpace[]; notes: string[] } {
  const notes: string[] = [];
  const policySpaces = policySpacesAt(system, theta);
  const given = (spec: Subspace, basis: 'given' | 'item directions'): QuestionSpace => ({
    spec,
    source: 'question',
    basis,
  });
  let questions: QuestionSpace[];
  if (typeof asked === 'function') questions = asked(theta).map((q) => given(q, 'given'));
  else if (asked) questions = asked.map((q) => resolveQuestion(system, q, policySpaces));
  else if (system.capabilities.certification?.questionSpaces)
    questions = [...policySpaces().values()].map((q) => given(q, 'item directions'));
  else if (declaredQuestionNames(system).length > 0)
    questions = declaredQuestionNames(system).map((q) => resolveQuestion(system, q, policySpaces));
  else {
    questions = declaredSubspaceNames(system)
      .filter((s) => s !== 'all')
      .map((s) => ({ spec: resolveSubspace(system, s), source: 'subspace' as const, basis: 'subspace' as const }));
    if (questions.length)
      notes.push(`${system.name} declares no questions: coverage is reported for its named subspaces instead`);
  }
  const empty = questions.filter((q) => subspaceSize(q.spec) === 0);
  if (empty.length) {
    notes.push(
      `no direction spans W_q for ${empty.map((q) => q.spec.name).join(', ')} at this state (no item writes the question): coverage not decided`,
    );
    questions = questions.filter((q) => !empty.includes(q));
  }
  return { questions, notes };
}
