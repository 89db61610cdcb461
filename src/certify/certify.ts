/**
 * The certification of an operator system (Sec. 3.1, 5.3–5.4, Prop. 5.2, Remark 5.4):
 * fixed point of Q, contractivity (whole space and blocks), redundancy residuals, Σ_e / DF_e
 * on subspaces, non-degeneracy of the commutator Gramian with a global tolerance, and
 * per-question coverage. Returns one report object; `ordergap certify` prints it.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import { checkState } from '../system/define.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { init } from '../wasm/module.js';
import { ArgumentError } from '../util/errors.js';
import { loadTf } from '../linearize/autodiff.js';
import { crossCheckJacobians, type CrossCheck } from '../linearize/crossCheck.js';
import { FD_RELATIVE_ACCURACY, type JacobianMethod, type JacobianOperator } from '../linearize/operator.js';
import { consolidateJacobian, footprintOf, type EngineChoice } from '../linearize/systemJacobians.js';
import { runRecursive } from '../ordergap/algorithm1.js';
import type { RunDefaults, StateBox, SubspaceSpec } from '../system/types.js';
import { basisOf } from './basis.js';
import {
  Linearization,
  commutatorColumns,
  commutatorGramian,
  consolidateImages,
  measureRedundancy,
  type LinearizationMode,
  type RedundancyItem,
} from './commutator.js';
import { spectralLowerBoundJvp, spectralNormDense, verifyContraction, type ContractionResult } from './contraction.js';
import { questionCoverage, type QuestionCoverage } from './coverage.js';
import { findFixedPoint, type FixedPointOptions, type FixedPointResult } from './fixedPoint.js';
import { decideNonDegeneracy, nondegeneracyTolerance, type NonDegeneracyDecision } from './nondegeneracy.js';
import { createRng } from '../ordergap/rng.js';
import type { NamedComponent } from './describe.js';
import { declaredIndexSet, declaredNames, indexCount, indexList } from './indexSets.js';
import { coordinateAt } from '../system/coordinates.js';
import { stackRateOfChange, verdictSensitivity, type FixedPointError, type VerdictSensitivity } from './sensitivity.js';

/** Progress callback: phase name, items done, items in the phase. */
export type ProgressFn = (phase: string, done: number, total: number) => void;

/**
 * Algorithm 1's parameters when no system default applies (a system declares its own with
 * `runDefaults`): the Sec. 9.2 setting ε = 0.025, w = 2, with a budget of 100 steps.
 */
export const FALLBACK_RUN_DEFAULTS: RunDefaults = Object.freeze({ epsilon: 0.025, window: 2, maxSteps: 100, seed: 0 });

/** Options of {@link certify}. Every default comes from the system's certification policy when it declares one. */
export interface CertifyOptions {
  /**
   * Linearise at this state instead of the fixed point of Q; 'stop' for where Algorithm 1 stops
   * (run with the system's `runDefaults`, overridden by `run`).
   */
  at?: ArrayLike<number> | 'stop';
  /**
   * Where the fixed-point iteration starts when `fixedPoint.theta0` is not given: θ0, or where
   * Algorithm 1 stops. Default: the system's `certification.start`, else 'theta0'.
   */
  from?: 'theta0' | 'stop';
  /** Algorithm 1's parameters for `at: 'stop'` / `from: 'stop'` (default the system's `runDefaults`). */
  run?: Partial<RunDefaults>;
  /** What the state is, for the report (default 'fixed point' or 'given state'). */
  atLabel?: string;
  /** Fixed-point iteration options (start, tolerance, budget, ρ). */
  fixedPoint?: FixedPointOptions;
  /** Subspaces W to decide (names of system.subspaces, or explicit specs). Default: all declared. */
  subspaces?: readonly (string | SubspaceSpec)[];
  /** Questions (W_q); default the system's questions, or its subspaces as stand-ins. */
  questions?: readonly (string | SubspaceSpec)[] | ((theta: Float64Array) => readonly SubspaceSpec[]);
  /** Per contraction block, its box around the linearisation state (default the system's `certification.boxAt`). */
  contractionBoxAt?: (name: string, theta: Float64Array, radius: number) => StateBox | undefined;
  /** Per contraction block, its box (default the system's `certification.boxes`). */
  contractionBoxes?: Readonly<Record<string, StateBox>>;
  /** 'fd' (default) or 'autodiff' (needs the system's tfjs forms). */
  jacobian?: JacobianMethod;
  /** Eq. (4) where redundancy holds and DF_e elsewhere ('auto', default), or force one. */
  linearization?: LinearizationMode;
  /** Blocks for the contraction check (names); default 'all', the blocks with a declared bound, and the requested subspaces. */
  contractionSubspaces?: readonly string[];
  /** Box half-width for the empirical Lipschitz search (relative, default 0.1). */
  radius?: number;
  lower?: number;
  upper?: number;
  /** Random pairs for the empirical Lipschitz bound (default 64). */
  samples?: number;
  seed?: number;
  /**
   * Cross-check FD against autodiff on this many DQ columns when the system has tfjs forms
   * (default 16 when d <= 20000, else 0: tfjs forms of large systems are costly to differentiate).
   */
  crossCheckColumns?: number;
  /** Whole-space subspace 'all' is decided only when d <= this (default 2048). */
  maxWholeSpace?: number;
  onProgress?: ProgressFn;
}

/** One decided subspace. */
export interface SubspaceReport {
  name: string;
  dim: number;
  lambdaMin: number;
  lambdaMax: number;
  tolerance: number;
  toleranceDerivation: string;
  nonDegenerate: boolean;
  margin: number;
  kernelDim: number;
  /** The whole spectrum of G_W: squared singular values of the stack [√p_e Σ_e B], descending. */
  eigenvalues: number[];
  kernel: NamedComponent[][];
  topContributors: { evidence: string; p: number; share: number }[];
  /** 'non-degenerate', 'DEGENERATE', or 'sensitive' (the margin lies inside the error band). */
  verdict: 'non-degenerate' | 'DEGENERATE' | 'sensitive';
  /** How the verdict depends on the fixed point's error and the Jacobians' (./sensitivity.ts). */
  sensitivity: VerdictSensitivity;
  /** G_W itself, its eigenvalues and the kernel of its small eigenvalues ({@link SubspaceGramian}). */
  gramian: SubspaceGramian;
}

/**
 * The commutator Gramian of a decided subspace (`commutatorGramian`, accumulated with linalg's
 * Gramian kernel from the same columns as the decision). The decision itself is taken on the
 * stack by the streaming QR: G_W's eigenvalues are accurate only to `resolution` = m·eps·λ_max.
 */
export interface SubspaceGramian {
  /** Eigenvalues of G_W, descending. */
  eigenvalues: Float64Array;
  resolution: number;
  kernelThreshold: number;
  kernelDim: number;
  /** Kernel basis (eigenvalues <= kernelThreshold), first 8 vectors, in named coordinates. */
  kernel: NamedComponent[][];
  /** G_W (m×m row-major) when m <= 64, else null (any size: `certification.commutatorGramian`). */
  matrix: Float64Array | null;
}

/** Where the fixed point stands: unique (certified contraction) or which one was linearised. */
export interface UniquenessStatement {
  /** true when a certified contraction on the whole space makes θ* unique in its box. */
  established: boolean;
  statement: string;
}

/** The certification report (the `--json` document). */
export interface CertificationReport {
  system: string;
  dim: number;
  /**
   * Where the linearisation happened: `kind` ('fixed point', 'given state', or where Algorithm 1
   * stopped), `note` how the state was reached when a run was involved, θ itself for d <= 64.
   */
  state: { kind: string; note: string | null; theta: number[] | null; norm: number };
  fixedPoint: FixedPointResult & { theta: Float64Array };
  contraction: ContractionResult;
  contractionBySubspace: ContractionResult[];
  redundancy: RedundancyItem[];
  subspaces: SubspaceReport[];
  /** How the decided subspaces were chosen (asked, the system's policy, its declared ones, or a default). */
  subspaceChoice: string;
  /** Per question: its coverage, what W_q is made of, and the verdict with its sensitivity. */
  coverage: (QuestionCoverage & {
    basis: QuestionBasisKind;
    verdict: 'covered' | 'NOT covered' | 'sensitive';
    sensitivity: VerdictSensitivity;
  })[];
  uniqueness: UniquenessStatement;
  jacobian: {
    method: JacobianMethod;
    relativeAccuracy: number;
    backend: string | null;
    crossCheck: CrossCheck | null;
    evaluations: number;
    columns: number;
    /** ‖DQ‖ (whole space, independent of the subspaces asked) and max‖DP_e‖ estimates entering the global scale. */
    normDQ: number;
    normDP: number;
  };
  /** Milliseconds per phase (the only field that differs between two identical runs). */
  timings: Record<string, number>;
  notes: string[];
}

function now(): number {
  return performance.now();
}

/** Runs Algorithm 1 with the system's defaults (overridden by `run`) and returns where it stops. */
function stopState(system: OperatorSystem, run: Partial<RunDefaults> | undefined) {
  const base = system.capabilities.runDefaults ?? FALLBACK_RUN_DEFAULTS;
  const r = runRecursive(system, { ...base, ...run, recordStates: false });
  return { theta: r.finalState, label: `where Algorithm 1 stopped (step ${r.stop.step}, ${r.stop.reason})` };
}

/** Suffix naming a question's declared coordinates when its default W_q is another basis. */
export const COORDINATES_SUFFIX = '/coordinates';

function known(system: OperatorSystem, extra: readonly string[] = []): string {
  return ['all', ...declaredNames(system, 'subspaces'), ...declaredNames(system, 'questions'), ...extra].join(', ');
}

function nonEmpty(spec: SubspaceSpec, what: string): SubspaceSpec {
  const n = 'coordinates' in spec ? spec.coordinates.length : spec.vectors.length;
  if (n === 0) throw new ArgumentError(what, spec.name, 'is an empty (0-dimensional) subspace: nothing to decide');
  return spec;
}

/** A subspace W by name ('all', a declared subspace, or a declared question's coordinates), or a given spec. */
function resolveSubspace(system: OperatorSystem, s: string | SubspaceSpec): SubspaceSpec {
  if (typeof s !== 'string') return nonEmpty(s, 'subspace');
  if (s === 'all') return { name: 'all', coordinates: Array.from({ length: system.dim }, (_, i) => i) };
  const coords = declaredIndexSet(system, 'subspaces', s) ?? declaredIndexSet(system, 'questions', s);
  if (!coords) throw new ArgumentError('subspace', s, `is not declared by ${system.name} (known: ${known(system)})`);
  return nonEmpty({ name: s, coordinates: indexList(coords) }, 'subspace');
}

/** What W_q is made of, named in the report. */
export type QuestionBasisKind = 'item directions' | 'declared coordinates' | 'subspace' | 'given';

interface QuestionSpace {
  spec: SubspaceSpec;
  source: 'question' | 'subspace';
  basis: QuestionBasisKind;
}

/**
 * W_q by name, one definition per name: the system's question spaces (policy.questionSpaces,
 * e.g. the graph's item directions) when it declares them, else the declared coordinates; the
 * declared coordinates of a question whose default is another basis are `<q>/coordinates`.
 */
function resolveQuestion(
  system: OperatorSystem,
  q: string | SubspaceSpec,
  policySpaces: () => ReadonlyMap<string, SubspaceSpec>,
): QuestionSpace {
  if (typeof q !== 'string') return { spec: nonEmpty(q, 'question'), source: 'question', basis: 'given' };
  const fromPolicy = policySpaces().get(q);
  if (fromPolicy) return { spec: fromPolicy, source: 'question', basis: 'item directions' };
  const base = q.endsWith(COORDINATES_SUFFIX) ? q.slice(0, -COORDINATES_SUFFIX.length) : null;
  const coords =
    declaredIndexSet(system, 'questions', q) ??
    (base !== null && policySpaces().has(base) ? declaredIndexSet(system, 'questions', base) : undefined);
  if (coords)
    return {
      spec: nonEmpty({ name: q, coordinates: indexList(coords) }, 'question'),
      source: 'question',
      basis: 'declared coordinates',
    };
  const sub = declaredIndexSet(system, 'subspaces', q);
  if (sub || q === 'all') return { spec: resolveSubspace(system, q), source: 'subspace', basis: 'subspace' };
  const alternatives = [...policySpaces().keys()].map((n) => n + COORDINATES_SUFFIX);
  throw new ArgumentError('question', q, `is not declared by ${system.name} (known: ${known(system, alternatives)})`);
}

/** Estimate of ‖DP_e‖₂: exact on a declared footprint (DP_e = blockdiag(D_e, I)) or for small d. */
function expandNormEstimate(system: OperatorSystem, J: JacobianOperator, e: string, seed: number): number {
  const fp = footprintOf(system, e);
  const coords = fp ?? (system.dim <= 1024 ? Int32Array.from({ length: system.dim }, (_, i) => i) : null);
  const rng = createRng(seed);
  if (coords) {
    const m = coords.length;
    if (m === 0) return 1;
    const pos = new Map<number, number>();
    coords.forEach((j, i) => pos.set(j, i));
    const A = new Float64Array(m * m);
    J.prefetch(Array.from(coords));
    for (let c = 0; c < m; c++) {
      const col = J.column(coords[c]!);
      for (let k = 0; k < col.index.length; k++) {
        const r = pos.get(col.index[k]!);
        if (r !== undefined) A[r * m + c] = col.value[k]!;
      }
    }
    const n = spectralNormDense(A, m, m, rng.next).norm;
    return fp && m < system.dim ? Math.max(1, n) : n;
  }
  return spectralLowerBoundJvp(
    J,
    Int32Array.from({ length: system.dim }, (_, i) => i),
    rng.next,
  ).norm;
}

/**
 * Certifies a system (see the module comment). Exit status of the CLI is 0 whatever the
 * verdicts: they are in the report.
 * Cost: fixed point (iterations × Q) + contraction (~200 Q + |W| columns per block) + per
 * subspace of dimension m: m columns of DQ, and per pool item O(m) sparse JVP applications,
 * then a streaming QR of 2·rows·m² flops.
 * @throws {ArgumentError} malformed state, unknown subspace or question, autodiff requested for
 *   a system without tfjs forms.
 * @example
 * ```ts
 * const r = await certify(closedFormSystem());
 * r.contraction.verdict;         // 'not contractive' (Q fixes every (c, 0))
 * r.subspaces.find((s) => s.name === 'confidence')!.nonDegenerate; // false: all Σ_e vanish at (c, 0)
 * ```
 */
export async function certify(system: OperatorSystem, options: CertifyOptions = {}): Promise<CertificationReport> {
  await init();
  const progress = options.onProgress ?? (() => undefined);
  const method: JacobianMethod = options.jacobian ?? 'fd';
  if (method !== 'fd' && method !== 'autodiff')
    throw new ArgumentError('jacobian', method, "must be 'fd' or 'autodiff'");
  const mode: LinearizationMode = options.linearization ?? 'auto';
  if (!['auto', 'sigma', 'exact'].includes(mode))
    throw new ArgumentError('linearization', mode, "must be 'auto', 'sigma' or 'exact'");
  const caps = system.capabilities;
  const policy = caps.certification ?? {};
  const lin0 = caps.linearization ?? {};
  const seed = options.seed ?? 0;
  const notes: string[] = [];
  const timings: Record<string, number> = {};
  const from = options.from ?? policy.start ?? 'theta0';
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
  let fixedPointOptions = options.fixedPoint;
  if (at === undefined && from === 'stop' && options.fixedPoint?.theta0 === undefined) {
    const s = stopState(system, options.run);
    fixedPointOptions = { ...options.fixedPoint, theta0: s.theta };
    stateNote = `fixed point of Q iterated from ${s.label}`;
  }
  // what to decide: asked, the policy's, the declared subspaces, else the contract's default
  // (every coordinate when d allows, the union of the evidence footprints otherwise)
  const maxWholeSpace = options.maxWholeSpace ?? 2048;
  const declaredSubspaces = declaredNames(system, 'subspaces');
  let subspaceChoice: string;
  let subspaceSpecs: SubspaceSpec[];
  if (options.subspaces) {
    subspaceChoice = 'as asked';
    subspaceSpecs = options.subspaces.map((s) => resolveSubspace(system, s));
  } else if (policy.subspaces) {
    subspaceChoice = `the certification policy of ${system.name}`;
    subspaceSpecs = policy.subspaces.map((s) => resolveSubspace(system, s));
  } else if (declaredSubspaces.length) {
    subspaceChoice = `every subspace ${system.name} declares`;
    subspaceSpecs = declaredSubspaces.map((s) => resolveSubspace(system, s));
  } else if (system.dim <= maxWholeSpace) {
    subspaceChoice = `${system.name} declares no subspaces: all d = ${system.dim} coordinates (the contract's default)`;
    subspaceSpecs = [resolveSubspace(system, 'all')];
  } else {
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
    subspaceChoice = `${system.name} declares no subspaces and d = ${system.dim} > maxWholeSpace = ${maxWholeSpace}: the union of the evidence footprints (${union.size} coordinates)`;
    subspaceSpecs = [{ name: 'footprints', coordinates: [...union].sort((a, b) => a - b) }];
  }
  if (!options.subspaces && !policy.subspaces && !declaredSubspaces.length) notes.push(subspaceChoice);
  const radius = options.radius ?? 0.1;
  const boxes = options.contractionBoxes ?? policy.boxes;
  const boxAt = options.contractionBoxAt ?? policy.boxAt;
  let engine: EngineChoice = { method };
  let backend: string | null = null;
  const crossCheckColumns = Math.min(options.crossCheckColumns ?? (system.dim <= 20000 ? 16 : 0), system.dim);
  if (method === 'autodiff' || (lin0.consolidateTf && crossCheckColumns > 0)) {
    if (method === 'autodiff' && !lin0.consolidateTf)
      throw new ArgumentError(
        'jacobian',
        'autodiff',
        `${system.name} provides no consolidateTf (tfjs form of Q); use fd`,
      );
    const rt = await loadTf();
    backend = rt.backend;
    engine = { method, tf: rt.tf };
  }

  // 1. fixed point
  let t0 = now();
  progress('fixed point', 0, 1);
  const declaredRho = caps.lipschitz?.['all']?.bound;
  const rhoFromDeclaration = fixedPointOptions?.rho === undefined && declaredRho !== undefined && declaredRho < 1;
  let fixedPoint = findFixedPoint(system, {
    ...fixedPointOptions,
    ...(rhoFromDeclaration ? { rho: declaredRho } : {}),
  });
  timings['fixedPoint'] = now() - t0;
  const startLabel =
    fixedPointOptions?.theta0 !== undefined
      ? (stateNote?.replace(/^fixed point of Q iterated from /, '') ?? 'the given θ0')
      : 'θ0';
  if (fixedPoint.diverged)
    notes.push(
      `the fixed-point iteration from ${startLabel} diverged (‖θ_n‖ = ${fixedPoint.iterateNorms.map((x) => x.toPrecision(3)).join(', ')}): Q is not a contraction there and has no fixed point this iteration reaches; the linearisation is at ${startLabel}`,
    );
  else if (!fixedPoint.converged)
    notes.push(
      `the fixed-point iteration did not converge in ${fixedPoint.iterations} iterations (residual ${fixedPoint.residual.toExponential(3)}): the state is its last iterate, not a fixed point`,
    );
  const theta = at ?? fixedPoint.theta;
  const stateKind =
    atLabel ??
    (at
      ? 'given state'
      : fixedPoint.diverged
        ? `${startLabel} (NOT a fixed point: the iteration diverged)`
        : fixedPoint.converged
          ? 'fixed point'
          : `last iterate of Q (NOT a fixed point: residual ${fixedPoint.residual.toExponential(3)})`);
  if (!at && stateNote && !fixedPoint.converged) stateNote = `${stateKind}; iterated from ${startLabel}`;
  let policyCache: Map<string, SubspaceSpec> | undefined;
  const policySpaces = (): ReadonlyMap<string, SubspaceSpec> =>
    (policyCache ??= new Map((policy.questionSpaces?.(theta) ?? []).map((q) => [q.name, q])));
  let questionSpaces: QuestionSpace[];
  const askedQuestions = options.questions;
  if (typeof askedQuestions === 'function')
    questionSpaces = askedQuestions(theta).map((q) => ({
      spec: q,
      source: 'question' as const,
      basis: 'given' as const,
    }));
  else if (askedQuestions) questionSpaces = askedQuestions.map((q) => resolveQuestion(system, q, policySpaces));
  else if (policy.questionSpaces)
    questionSpaces = [...policySpaces().values()].map((q) => ({
      spec: q,
      source: 'question' as const,
      basis: 'item directions' as const,
    }));
  else if (declaredNames(system, 'questions').length > 0)
    questionSpaces = declaredNames(system, 'questions').map((q) => resolveQuestion(system, q, policySpaces));
  else {
    questionSpaces = declaredSubspaces
      .filter((s) => s !== 'all')
      .map((s) => ({ spec: resolveSubspace(system, s), source: 'subspace' as const, basis: 'subspace' as const }));
    if (questionSpaces.length)
      notes.push(`${system.name} declares no questions: coverage is reported for its named subspaces instead`);
  }
  const emptyQuestions = questionSpaces.filter(
    (q) => ('coordinates' in q.spec ? q.spec.coordinates.length : q.spec.vectors.length) === 0,
  );
  if (emptyQuestions.length) {
    notes.push(
      `no direction spans W_q for ${emptyQuestions.map((q) => q.spec.name).join(', ')} at this state (no item writes the question): coverage not decided`,
    );
    questionSpaces = questionSpaces.filter((q) => !emptyQuestions.includes(q));
  }

  // 2. linearisation and contraction
  t0 = now();
  const DQ = consolidateJacobian(system, theta, engine);
  const lin = new Linearization(system, theta, engine, DQ);
  let shifted: Linearization | undefined;
  // every Jacobian (wasm-resident ones included) is released on every path, errors too
  try {
    const contractionNames = options.contractionSubspaces ?? [
      'all',
      ...declaredSubspaces.filter(
        (n) => n !== 'all' && (caps.lipschitz?.[n] !== undefined || subspaceSpecs.some((s) => s.name === n)),
      ),
    ];
    // the global scale ‖DQ‖ on the whole space, whatever the subspaces asked: every decision's
    // tolerance uses it, so a question's row does not depend on what else was decided
    const globalNorm = wholeSpaceNorm(DQ, system.dim, seed);
    const contractionBySubspace: ContractionResult[] = [];
    // the box each block is searched on: given bounds, else the block's declared box, else the
    // system's box at θ; on the whole space the declared blocks' boxes replace the local box on
    // their coordinates (the search covers the declared domain there)
    const contractionBox = (
      name: string,
    ): { lower?: StateBox['lower']; upper?: StateBox['upper']; boxSource?: string } => {
      if (options.lower !== undefined || options.upper !== undefined)
        return {
          ...(options.lower !== undefined ? { lower: options.lower } : {}),
          ...(options.upper !== undefined ? { upper: options.upper } : {}),
        };
      const declared = boxes?.[name];
      if (declared) return { ...declared, boxSource: `the declared box of '${name}'` };
      const local = boxAt?.(name, theta, radius);
      const localText = local
        ? `θ ± ${radius}·max(1, |θ_j|) clipped to ${system.name}'s domain`
        : `θ ± ${radius}·max(1, |θ_j|)`;
      const blocks =
        name === 'all' ? Object.keys(boxes ?? {}).filter((b) => declaredIndexSet(system, 'subspaces', b)) : [];
      if (blocks.length === 0) return local ? { ...local, boxSource: localText } : {};
      // θ ± radius·max(1, |θ_i|) where the system gives no local box (plain loops: d entries)
      const expand = (v: StateBox['lower'] | undefined, sign: number): Float64Array => {
        const out = new Float64Array(system.dim);
        if (v === undefined)
          for (let i = 0; i < out.length; i++) out[i] = theta[i]! + sign * (radius * Math.max(1, Math.abs(theta[i]!)));
        else if (typeof v === 'number') out.fill(v);
        else for (let i = 0; i < out.length; i++) out[i] = v[i]!;
        return out;
      };
      const lower = expand(local?.lower, -1);
      const upper = expand(local?.upper, 1);
      for (const b of blocks) {
        const box = boxes![b]!;
        const coords = declaredIndexSet(system, 'subspaces', b)!;
        for (let k = 0, n = indexCount(coords); k < n; k++) {
          const j = coordinateAt(coords, k);
          lower[j] = typeof box.lower === 'number' ? box.lower : box.lower[k]!;
          upper[j] = typeof box.upper === 'number' ? box.upper : box.upper[k]!;
        }
      }
      return {
        lower,
        upper,
        boxSource: `the declared box${blocks.length > 1 ? 'es' : ''} of ${blocks.map((b) => `'${b}'`).join(', ')} on ${blocks.length > 1 ? 'their' : 'its'} coordinates, elsewhere ${localText}`,
      };
    };
    contractionNames.forEach((name, i) => {
      progress('contraction', i, contractionNames.length);
      const spec = resolveSubspace(system, name);
      if (!('coordinates' in spec)) return;
      contractionBySubspace.push(
        verifyContraction(system, theta, {
          coordinates: spec.coordinates,
          name,
          jacobian: DQ,
          seed: (seed + nameSalt(name)) >>> 0,
          radius,
          ...(name === 'all' ? { localNorm: globalNorm } : {}),
          ...contractionBox(name),
          ...(options.samples !== undefined ? { samples: options.samples } : {}),
          ...(name === 'all' && fixedPoint.diverged ? { divergingIterates: fixedPoint.iterateNorms } : {}),
        }),
      );
    });
    const whole =
      contractionBySubspace.find((c) => c.subspace === 'all') ?? contractionBySubspace[0] ?? noContraction(system);
    timings['contraction'] = now() - t0;
    if (whole.analyticBoundRefuted && rhoFromDeclaration && fixedPoint.rho !== null) {
      notes.push(
        `the declared Lipschitz bound ${fixedPoint.rho} of Q on 'all' is refuted by the contraction search (ratio ${whole.empiricalLowerBound.toPrecision(6)}): it is not used for ‖θ−θ*‖`,
      );
      fixedPoint = { ...fixedPoint, rho: null, aPosterioriBound: null };
    }
    for (const c of contractionBySubspace)
      if (c.analyticBoundRefuted)
        notes.push(
          `contraction on '${c.subspace}': the declared analytic bound ${c.analyticBound} is REFUTED (a pair with ratio ${c.empiricalLowerBound.toPrecision(6)}); the verdict does not use it`,
        );
    const uniqueness = uniquenessOf(at !== undefined, whole, fixedPoint, startLabel);

    // cross-check FD against autodiff on a few DQ columns
    let crossCheck: CrossCheck | null = null;
    t0 = now();
    if (engine.tf && lin0.consolidateTf && crossCheckColumns > 0) {
      const k = crossCheckColumns;
      const cols = Array.from({ length: k }, (_, i) => Math.floor((i * system.dim) / k));
      const other =
        method === 'fd'
          ? consolidateJacobian(system, theta, { method: 'autodiff', tf: engine.tf })
          : consolidateJacobian(system, theta, { method: 'fd' });
      try {
        crossCheck = crossCheckJacobians(method === 'fd' ? DQ : other, method === 'fd' ? other : DQ, cols);
      } finally {
        other.release?.();
      }
      if (!crossCheck.agree)
        notes.push(
          `FD and autodiff Jacobians of Q disagree on ${crossCheck.disagreements.length} of ${k} columns (worst ${crossCheck.worstRatio.toPrecision(3)}× the tolerance): a kink in Q near the state?`,
        );
    }

    timings['crossCheck'] = now() - t0;

    // 3. redundancy and the evidence distribution
    t0 = now();
    const pool: readonly EvidenceWeight[] = system.evidenceAt(theta);
    const redundancy = measureRedundancy(lin, pool, mode);
    const failing = redundancy.filter((r) => !r.holds);
    if (failing.length)
      notes.push(
        `redundancy P_e(θ) = θ fails for ${failing.length} of ${pool.length} items (${failing
          .slice(0, 6)
          .map((r) => r.evidence)
          .join(
            ', ',
          )}${failing.length > 6 ? ', …' : ''}): ${mode === 'sigma' ? 'Σ_e of Eq. (4) forced anyway' : 'the exact DF_e is used for them'}`,
      );
    timings['redundancy'] = now() - t0;

    // global scale: ‖DQ‖ (whole space) and max_e ‖DP_e‖
    t0 = now();
    const normDQ = globalNorm.norm;
    let normDP = 0;
    pool.forEach((it, i) => {
      normDP = Math.max(normDP, expandNormEstimate(system, lin.expand(it.id), it.id, seed + 100 + i));
    });
    timings['expandNorms'] = now() - t0;
    const source =
      method === 'fd' ? 'central differences: eps^(2/3)' : 'float32 autodiff: 1e-6 (unit roundoff 6e-8 × growth ~16)';
    const r = lin.relativeAccuracy;
    const jacobianRemedy =
      method === 'fd'
        ? 'Jacobians more accurate than central differences (a system DQ engine or tfjs forms in f64)'
        : 'the f64 central differences (--jacobian fd) instead of float32 autodiff';

    // the fixed point's error: distance to θ* and the shifted linearisation for the secant
    t0 = now();
    let fpError: FixedPointError | null = null;
    let fpNote: string | null = null;
    if (at === undefined && !fixedPoint.diverged && fixedPoint.iterations > 0) {
      const q = fixedPoint.observedRate;
      const bound = fixedPoint.aPosterioriBound;
      const distance = bound ?? (q !== null && q < 1 ? fixedPoint.residual / (1 - q) : null);
      if (distance === null)
        fpNote = `‖θ−θ*‖ unknown (no contraction modulus, observed rate ${q === null ? 'undefined' : q.toPrecision(3)}): verdicts carry no fixed-point band`;
      else if (distance > 0) {
        const Qt = lin.consolidated;
        const dir = Float64Array.from(Qt, (x, i) => x - theta[i]!);
        const dn = referenceNorm(dir);
        let tmax = 1;
        for (const x of theta) tmax = Math.max(tmax, Math.abs(x));
        const h = 1e-5 * tmax;
        if (dn > 0) {
          const x = Float64Array.from(theta, (t, i) => t - (h * dir[i]!) / dn);
          shifted = new Linearization(system, x, engine);
          fpError = {
            distance,
            distanceKind: bound !== null ? 'a-posteriori bound' : 'estimate from the observed rate',
            shifted,
            step: h,
          };
        }
      }
    }
    if (fpNote) notes.push(fpNote);
    timings['sensitivity'] = now() - t0;

    // 4. subspaces and questions: each decided from its own basis B, its own DQ B and its own
    // Σ_e B columns; only DQ's cached columns and the global scale are shared
    const t1 = now();
    const decided = subspaceSpecs.filter((spec) => {
      if (spec.name === 'all' && system.dim > maxWholeSpace) {
        notes.push(`subspace 'all' (d = ${system.dim}) skipped: larger than maxWholeSpace`);
        return false;
      }
      return true;
    });
    timings['columns'] = now() - t1;
    const tolFor = (rows: number, m: number) =>
      nondegeneracyTolerance(r, normDQ, Math.max(normDP, 1e-300), rows, m, source);
    const jacobianBand = r * normDQ * Math.max(normDP, 1e-300);
    timings['gramian'] = 0;
    const decide = (spec: SubspaceSpec, phase: string, salt: number) => {
      let t = now();
      const basis = basisOf(system.dim, spec);
      if (basis.vectors.length === 0)
        throw new ArgumentError(phase, spec.name, 'spans an empty (0-dimensional) subspace: nothing to decide');
      const images = consolidateImages(lin, basis.vectors);
      const items = pool.map((it, i) => {
        progress(phase, i, pool.length);
        const kind = redundancy[i]!.linearization;
        return { evidence: it.id, p: it.p, kind, columns: commutatorColumns(lin, it.id, basis.vectors, images, kind) };
      });
      timings['columns']! += now() - t;
      t = now();
      let rate: number | null = null;
      if (fpError)
        rate = stackRateOfChange(
          lin,
          fpError,
          basis.vectors,
          items.map((it) => ({ evidence: it.evidence, weight: it.p })),
          (seed + 7919 * salt) >>> 0,
        );
      timings['sensitivity']! += now() - t;
      const sensitivityOf = (dec: NonDegeneracyDecision) =>
        verdictSensitivity(
          dec.criticalSigma,
          dec.sigmaTolerance,
          dec.nonDegenerate,
          fpError && rate !== null ? { distance: fpError.distance, rate } : null,
          jacobianBand,
          jacobianRemedy,
        );
      return { basis, items, sensitivityOf };
    };
    const subspaces: SubspaceReport[] = [];
    decided.forEach((spec) => {
      const { basis, items, sensitivityOf } = decide(spec, `Σ_e on ${spec.name}`, nameSalt(spec.name));
      const t = now();
      const dec: NonDegeneracyDecision = decideNonDegeneracy(
        system,
        basis.vectors,
        items.map((it) => ({ evidence: it.evidence, weight: it.p, columns: it.columns })),
        tolFor,
      );
      timings['gramian']! += now() - t;
      const sensitivity = sensitivityOf(dec);
      // G_W by the Gramian kernel, from the same columns (linearisation hook, commutator.ts)
      const t1 = now();
      const gw = commutatorGramian(
        system,
        basis.vectors,
        items.map((it) => ({ evidence: it.evidence, weight: it.p, columns: it.columns })),
        dec.tolerance,
      );
      timings['gramianMatrix'] = (timings['gramianMatrix'] ?? 0) + now() - t1;
      subspaces.push({
        name: spec.name,
        dim: dec.dim,
        lambdaMin: dec.lambdaMin,
        lambdaMax: dec.lambdaMax,
        tolerance: dec.tolerance,
        toleranceDerivation: dec.derivation.text,
        nonDegenerate: dec.nonDegenerate,
        margin: dec.margin,
        kernelDim: dec.kernelDim,
        eigenvalues: dec.singularValues.map((sv) => sv * sv).sort((a, b) => b - a),
        kernel: dec.kernel.slice(0, 8),
        topContributors: dec.contributions
          .filter((c) => c.share > 0 && c.weight * c.norm * c.norm > dec.tolerance)
          .slice(0, 5)
          .map((c) => ({ evidence: c.evidence, p: c.weight, share: c.share })),
        verdict: sensitivity.sensitive ? 'sensitive' : dec.nonDegenerate ? 'non-degenerate' : 'DEGENERATE',
        sensitivity,
        gramian: {
          eigenvalues: gw.eigenvalues,
          resolution: gw.resolution,
          kernelThreshold: gw.kernelThreshold,
          kernelDim: gw.kernel.length,
          kernel: gw.kernel.slice(0, 8),
          matrix: gw.dim <= 64 ? gw.matrix : null,
        },
      });
    });

    // 5. coverage
    t0 = now();
    const columnsBefore = timings['columns']!;
    const sensitivityBefore = timings['sensitivity']!;
    const coverage: CertificationReport['coverage'] = [];
    questionSpaces.forEach(({ spec, source: src, basis: basisKind }) => {
      // seeds depend on the name only, so a row does not depend on what else was asked
      const { basis, items, sensitivityOf } = decide(spec, `coverage ${spec.name}`, 1 + nameSalt(`q ${spec.name}`));
      const { decision, ...cov } = questionCoverage(system, spec.name, src, basis.vectors, items, tolFor);
      const sensitivity = sensitivityOf(decision);
      coverage.push({
        ...cov,
        basis: basisKind,
        verdict: sensitivity.sensitive ? 'sensitive' : cov.covered ? 'covered' : 'NOT covered',
        sensitivity,
      });
    });
    // the questions' Σ_e columns and sensitivity probes are counted in those phases, not twice
    timings['coverage'] =
      now() - t0 - (timings['columns']! - columnsBefore) - (timings['sensitivity']! - sensitivityBefore);
    const sensitive = [
      ...subspaces.filter((s) => s.verdict === 'sensitive'),
      ...coverage.filter((c) => c.verdict === 'sensitive'),
    ];
    if (sensitive.length)
      notes.push(
        `${sensitive.length} verdict(s) are sensitive (the margin lies inside the band of the fixed point's and the Jacobians' error): ${sensitive
          .map((x) => ('name' in x ? x.name : x.question))
          .join(', ')}`,
      );
    const allVanish = subspaces.length > 0 && subspaces.every((s) => s.lambdaMax <= s.tolerance);
    if (allVanish)
      notes.push(
        'every Σ_e vanishes (to tolerance) on every decided subspace at this state: the linearised order-gap is blind here; certify at another state (--at, or --at stop for where a run stopped)',
      );
    const ops = [...lin.operators(), ...(shifted?.operators() ?? [])];
    return {
      system: system.name,
      dim: system.dim,
      state: {
        kind: stateKind,
        note: stateNote,
        theta: system.dim <= 64 ? Array.from(theta) : null,
        norm: referenceNorm(theta),
      },
      fixedPoint,
      contraction: whole,
      contractionBySubspace,
      redundancy,
      subspaces,
      subspaceChoice,
      coverage,
      uniqueness,
      jacobian: {
        method,
        relativeAccuracy: method === 'fd' ? FD_RELATIVE_ACCURACY : r,
        backend,
        crossCheck,
        evaluations: ops.reduce((s, o) => s + o.stats.evaluations, 0),
        columns: ops.reduce((s, o) => s + o.stats.columns, 0),
        normDQ,
        normDP,
      },
      timings,
      notes,
    };
  } finally {
    lin.release();
    shifted?.release();
  }
}

/** A stable small integer from a name (seeds per question independent of the question order). */
function nameSalt(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 1000003;
  return h;
}

/**
 * ‖DQ‖₂ on the whole space: exact (power iteration on the dense Jacobian) for d <= 1024, else
 * the JVP power-iteration lower bound; seeded by `seed` alone, so the global scale is the same
 * whatever the subspaces and questions asked.
 */
function wholeSpaceNorm(
  DQ: JacobianOperator,
  d: number,
  seed: number,
): { norm: number; vector: Float64Array; kind: 'exact' | 'lower-bound'; iterations: number } {
  const rng = createRng((seed + 4242) >>> 0);
  const all = Int32Array.from({ length: d }, (_, i) => i);
  if (d <= 1024) {
    const A = new Float64Array(d * d);
    DQ.prefetch(Array.from(all));
    for (let c = 0; c < d; c++) {
      const col = DQ.column(c);
      for (let k = 0; k < col.index.length; k++) A[col.index[k]! * d + c] = col.value[k]!;
    }
    return { ...spectralNormDense(A, d, d, rng.next), kind: 'exact' };
  }
  return { ...spectralLowerBoundJvp(DQ, all, rng.next), kind: 'lower-bound' };
}

/** The whole-space contraction result when no block was checked. */
function noContraction(system: OperatorSystem): ContractionResult {
  return {
    subspace: 'all',
    dim: system.dim,
    verdict: 'unverified',
    contractive: null,
    empiricalLowerBound: 0,
    localNorm: NaN,
    localNormKind: 'lower-bound',
    analyticBound: null,
    analyticBoundRefuted: false,
    worstPair: null,
    failingDirections: [],
    evaluations: 0,
    budget: { samples: 0, probes: 0, starts: 0, ascentSteps: 0, evaluations: 0 },
    box: 'none',
    divergingIterates: null,
    notes: ['no contraction block was checked'],
  };
}

function uniquenessOf(
  givenState: boolean,
  whole: ContractionResult,
  fp: FixedPointResult,
  startLabel: string,
): UniquenessStatement {
  if (givenState)
    return { established: false, statement: 'not applicable: linearised at a given state, not at a fixed point' };
  if (whole.subspace === 'all' && whole.verdict === 'certified')
    return {
      established: true,
      statement: `established on the box of 'all' (${whole.box}): Q is a certified contraction there (bound ${whole.analyticBound}), so its fixed point there is unique (Banach)`,
    };
  if (fp.diverged)
    return { established: false, statement: `no fixed point reached: the iteration from ${startLabel} diverged` };
  return {
    established: false,
    statement: `not established (no certified contraction on the whole space): linearised at the fixed point reached from ${startLabel} after ${fp.iterations} iterations${fp.converged ? '' : ' (not converged)'}; other fixed points may exist`,
  };
}
