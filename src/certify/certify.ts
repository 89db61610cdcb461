/**
 * The certification of an operator system (Sec. 3.1, 5.3–5.4, Prop. 5.2, Remark 5.4):
 * fixed point of Q, contractivity (whole space and blocks), redundancy residuals, Σ_e / DF_e
 * on subspaces, non-degeneracy of the commutator Gramian with a global tolerance, and
 * per-question coverage. Returns one report object; `ordergap certify` prints it.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import { checkState } from '../system/define.js';
import { coordinateArray } from '../system/coordinates.js';
import type { EvidenceWeight, OperatorSystem } from '../system/types.js';
import { init } from '../wasm/module.js';
import { ArgumentError } from '../util/errors.js';
import { loadTf } from '../linearize/autodiff.js';
import { crossCheckJacobians, type CrossCheck } from '../linearize/crossCheck.js';
import { FD_RELATIVE_ACCURACY, type JacobianMethod, type JacobianOperator } from '../linearize/operator.js';
import { sparseNorm, type SparseVector } from '../linearize/sparse.js';
import { consolidateJacobian, footprintOf, type EngineChoice } from '../linearize/systemJacobians.js';
import { runRecursive } from '../ordergap/algorithm1.js';
import type { RunDefaults, StateBox, SubspaceSpec } from '../system/types.js';
import { basisOf, type NamedBasis } from './basis.js';
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
  coverage: Omit<QuestionCoverage, never>[];
  jacobian: {
    method: JacobianMethod;
    relativeAccuracy: number;
    backend: string | null;
    crossCheck: CrossCheck | null;
    evaluations: number;
    columns: number;
    /** ‖DQ‖ and max‖DP_e‖ estimates entering the global scale. */
    normDQ: number;
    normDP: number;
  };
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
  return { theta: r.finalState, label: `where Algorithm 1 stopped (step ${r.stoppedAt}, ${r.stopReason})` };
}

function resolveSpec(system: OperatorSystem, s: string | SubspaceSpec, kind: 'subspaces' | 'questions'): SubspaceSpec {
  if (typeof s !== 'string') return s;
  if (s === 'all') return { name: 'all', coordinates: Array.from({ length: system.dim }, (_, i) => i) };
  const sets = kind === 'questions' ? system.questions : system.subspaces;
  const coords = sets[s] ?? system.subspaces[s] ?? system.questions[s];
  if (!coords) {
    const known = ['all', ...Object.keys(system.subspaces), ...Object.keys(system.questions)];
    throw new ArgumentError(
      kind === 'questions' ? 'question' : 'subspace',
      s,
      `is not declared by ${system.name} (known: ${known.join(', ')})`,
    );
  }
  return { name: s, coordinates: coordinateArray(coords, kind === 'questions' ? 'question' : 'subspace') };
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
  // the contract's default is every coordinate when a system names no subspace
  const declaredSubspaces = Object.keys(system.subspaces);
  const defaultSubspaces = policy.subspaces ?? (declaredSubspaces.length ? declaredSubspaces : ['all']);
  const subspaceSpecs = (options.subspaces ?? defaultSubspaces).map((s) => resolveSpec(system, s, 'subspaces'));
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
    if (method === 'autodiff') engine = { method, tf: rt.tf };
    else engine = { method, tf: rt.tf };
  }

  // 1. fixed point
  let t0 = now();
  progress('fixed point', 0, 1);
  const declaredRho = caps.lipschitz?.['all']?.bound;
  const fixedPoint = findFixedPoint(system, {
    ...fixedPointOptions,
    ...(fixedPointOptions?.rho === undefined && declaredRho !== undefined && declaredRho < 1
      ? { rho: declaredRho }
      : {}),
  });
  timings['fixedPoint'] = now() - t0;
  if (!fixedPoint.converged)
    notes.push(
      `the fixed-point iteration did not converge in ${fixedPoint.iterations} iterations (residual ${fixedPoint.residual.toExponential(3)})`,
    );
  const theta = at ?? fixedPoint.theta;
  const stateKind = atLabel ?? (at ? 'given state' : 'fixed point');
  let questionSpecs: { spec: SubspaceSpec; source: 'question' | 'subspace' }[];
  const askedQuestions = options.questions;
  if (typeof askedQuestions === 'function')
    questionSpecs = askedQuestions(theta).map((q) => ({ spec: q, source: 'question' as const }));
  else if (askedQuestions)
    questionSpecs = askedQuestions.map((q) => ({
      spec: resolveSpec(system, q, 'questions'),
      source: 'question' as const,
    }));
  else if (policy.questionSpaces)
    questionSpecs = policy.questionSpaces(theta).map((q) => ({ spec: q, source: 'question' as const }));
  else if (Object.keys(system.questions).length > 0)
    questionSpecs = Object.keys(system.questions).map((q) => ({
      spec: resolveSpec(system, q, 'questions'),
      source: 'question',
    }));
  else {
    questionSpecs = Object.keys(system.subspaces)
      .filter((s) => s !== 'all')
      .map((s) => ({ spec: resolveSpec(system, s, 'subspaces'), source: 'subspace' as const }));
    if (questionSpecs.length)
      notes.push(`${system.name} declares no questions: coverage is reported for its named subspaces instead`);
  }

  // 2. linearisation and contraction
  t0 = now();
  const DQ = consolidateJacobian(system, theta, engine);
  const lin = new Linearization(system, theta, engine, DQ);
  // every Jacobian (wasm-resident ones included) is released on every path, errors too
  try {
    const contractionNames = options.contractionSubspaces ?? [
      'all',
      ...Object.keys(system.subspaces).filter(
        (n) => n !== 'all' && (caps.lipschitz?.[n] !== undefined || subspaceSpecs.some((s) => s.name === n)),
      ),
    ];
    const contractionBySubspace: ContractionResult[] = [];
    contractionNames.forEach((name, i) => {
      progress('contraction', i, contractionNames.length);
      const spec = resolveSpec(system, name, 'subspaces');
      if (!('coordinates' in spec)) return;
      contractionBySubspace.push(
        verifyContraction(system, theta, {
          coordinates: spec.coordinates,
          name,
          jacobian: DQ,
          seed: seed + i,
          radius,
          ...(options.lower !== undefined ? { lower: options.lower } : {}),
          ...(options.upper !== undefined ? { upper: options.upper } : {}),
          ...(boxes?.[name] ?? {}),
          ...(boxAt?.(name, theta, radius) ?? {}),
          ...(options.samples !== undefined ? { samples: options.samples } : {}),
        }),
      );
    });
    const whole = contractionBySubspace.find((c) => c.subspace === 'all') ?? contractionBySubspace[0]!;
    timings['contraction'] = now() - t0;

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

    // global scale: ‖DQ‖ and max_e ‖DP_e‖
    t0 = now();
    let normDQ = whole.localNorm;
    let normDP = 0;
    pool.forEach((it, i) => {
      normDP = Math.max(normDP, expandNormEstimate(system, lin.expand(it.id), it.id, seed + 100 + i));
    });
    timings['expandNorms'] = now() - t0;
    const source =
      method === 'fd' ? 'central differences: eps^(2/3)' : 'float32 autodiff: 1e-6 (unit roundoff 6e-8 × growth ~16)';
    const r = lin.relativeAccuracy;

    // 4. subspaces: DQ b for every basis first, so the global scale ‖DQ‖ is fixed before any decision
    let t1 = now();
    const bases = new Map<string, NamedBasis>();
    const images = new Map<string, SparseVector[]>();
    const decided = subspaceSpecs.filter((spec) => {
      if (spec.name === 'all' && system.dim > (options.maxWholeSpace ?? 2048)) {
        notes.push(`subspace 'all' (d = ${system.dim}) skipped: larger than maxWholeSpace`);
        return false;
      }
      return true;
    });
    const keyOf = (kind: string, name: string): string => `${kind}:${name}`;
    for (const [kind, spec] of [
      ...decided.map((s) => ['s', s] as const),
      ...questionSpecs.map((q) => ['q', q.spec] as const),
    ]) {
      const basis = basisOf(system.dim, spec);
      const q = consolidateImages(lin, basis.vectors);
      for (const v of q) normDQ = Math.max(normDQ, sparseNorm(v));
      bases.set(keyOf(kind, spec.name), basis);
      images.set(keyOf(kind, spec.name), q);
    }
    timings['columns'] = now() - t1;
    const columnsFor = (key: string, phase: string): { evidence: string; p: number; columns: SparseVector[] }[] => {
      const basis = bases.get(key)!;
      const q = images.get(key)!;
      return pool.map((it, i) => {
        progress(phase, i, pool.length);
        const kind = redundancy[i]!.linearization;
        return { evidence: it.id, p: it.p, columns: commutatorColumns(lin, it.id, basis.vectors, q, kind) };
      });
    };
    const tolFor = (rows: number, m: number) =>
      nondegeneracyTolerance(r, normDQ, Math.max(normDP, 1e-300), rows, m, source);
    const subspaces: SubspaceReport[] = [];
    timings['gramian'] = 0;
    for (const spec of decided) {
      t1 = now();
      const key = keyOf('s', spec.name);
      const basis = bases.get(key)!;
      const items = columnsFor(key, `Σ_e on ${spec.name}`);
      timings['columns'] += now() - t1;
      t1 = now();
      const dec: NonDegeneracyDecision = decideNonDegeneracy(
        system,
        basis.vectors,
        items.map((it) => ({ evidence: it.evidence, weight: it.p, columns: it.columns })),
        tolFor,
      );
      timings['gramian'] += now() - t1;
      // G_W by the Gramian kernel, from the same columns (linearisation hook, commutator.ts)
      t1 = now();
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
          .filter((c) => c.share > 0)
          .slice(0, 5)
          .map((c) => ({ evidence: c.evidence, p: c.weight, share: c.share })),
        gramian: {
          eigenvalues: gw.eigenvalues,
          resolution: gw.resolution,
          kernelThreshold: gw.kernelThreshold,
          kernelDim: gw.kernel.length,
          kernel: gw.kernel.slice(0, 8),
          matrix: gw.dim <= 64 ? gw.matrix : null,
        },
      });
    }

    // 5. coverage
    t0 = now();
    const coverage: QuestionCoverage[] = [];
    for (const { spec, source: src } of questionSpecs) {
      const key = keyOf('q', spec.name);
      const items = columnsFor(key, `coverage ${spec.name}`);
      const { decision: _d, ...cov } = questionCoverage(system, spec.name, src, bases.get(key)!.vectors, items, tolFor);
      coverage.push(cov);
    }
    timings['coverage'] = now() - t0;
    const allVanish = subspaces.length > 0 && subspaces.every((s) => s.lambdaMax <= s.tolerance);
    if (allVanish)
      notes.push(
        'every Σ_e vanishes (to tolerance) on every decided subspace at this state: the linearised order-gap is blind here; certify at another state (--at, or --at stop for where a run stopped)',
      );
    const ops = lin.operators();
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
      coverage,
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
  }
}
