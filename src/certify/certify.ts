/**
 * The certification of an operator system (Sec. 3.1, 5.3–5.4, Prop. 5.2, Remark 5.4), as a
 * sequence of named phases, each a function with its own inputs and result:
 * 1. plan (./plan.ts): the options against the system's policy — Jacobian engine (FD or
 *    autodiff), linearisation mode, the state to linearise at (given, where Algorithm 1 stops,
 *    or the fixed point of Q), the subspaces W to decide and the contraction blocks;
 * 2. fixed point (./phases.ts): θ* = Q(θ*) by iteration (Sec. 3.1), with Banach's a-posteriori
 *    bound when ρ is known; the questions W_q are resolved at the state it gives (./plan.ts);
 * 3. contraction (./phases.ts, ./contraction.ts): the Contractivity assumption (Sec. 3.1) on the
 *    whole space and on blocks — an empirical lower bound on Lip(Q), the local norm ‖DQ‖₂ (on
 *    the whole space also the ‖DQ‖ of the global scale), a declared analytic upper bound — and
 *    whether θ* is unique; then FD against autodiff on a few DQ columns;
 * 4. redundancy (./phases.ts): P_e(θ) = θ per pool item (Sec. 5.3), which selects Σ_e of Eq. (4)
 *    or the exact DF_e(θ) per item;
 * 5. linearisation (./phases.ts): the global scale γ = ‖DQ‖·max_e‖DP_e‖ of every tolerance, and
 *    the linearisation at θ_n − h·u that measures the fixed-point error band (./sensitivity.ts);
 * 6. decision (./decision.ts): Σ_e B and the commutator Gramian G_W (Eqs. 4–5) on each subspace,
 *    non-degeneracy by the kernel intersection (Prop. 5.2, Eq. 7) with the global tolerance,
 *    per-question coverage (Remark 5.4), each verdict's sensitivity, and the notes;
 * 7. proofs of the subspace verdicts at θ* (./nondegeneracyPhase.ts) over the enclosure of the
 *    fixed point a contraction proof gave.
 * Returns one report object; `ordergap certify` prints it.
 */
import { referenceNorm } from '../blas1/dnrm2.js';
import type { OperatorSystem } from '../system/types.js';
import { init } from '../wasm/module.js';
import { FD_RELATIVE_ACCURACY } from '../linearize/operator.js';
import { consolidateJacobian } from '../linearize/systemJacobians.js';
import { Linearization } from './commutator.js';
import { DecisionTimings, decideQuestions, decideSubspaces, verdictNotes } from './decision.js';
import { planCertification, questionsAt, type CertifyPlan } from './plan.js';
import {
  contractionPhase,
  crossCheckPhase,
  fixedPointBand,
  fixedPointPhase,
  globalScale,
  redundancyPhase,
  type ContractionPhase,
  type FixedPointPhase,
  type JacobianScale,
  type RedundancyPhase,
} from './phases.js';
import type { CertificationReport, CertifyOptions, CoverageRow, SubspaceReport } from './types.js';
import { proveSubspaces } from './nondegeneracyPhase.js';
import type { CrossCheck } from '../linearize/crossCheck.js';
import { withTangentPool } from '../interval/tensor.js';
import type { JacobianOperator } from '../linearize/operator.js';

export { COORDINATES_SUFFIX, type QuestionBasisKind } from './subspace.js';
export type {
  CertificationReport,
  CertifyOptions,
  CoverageRow,
  ProgressFn,
  SubspaceGramian,
  SubspaceReport,
  UniquenessStatement,
} from './types.js';

/** Runs `f`, adds its milliseconds to `timings[key]`, returns its result. */
function timed<T>(timings: Record<string, number>, key: string, f: () => T): T {
  const t0 = performance.now();
  try {
    return f();
  } finally {
    timings[key] = (timings[key] ?? 0) + (performance.now() - t0);
  }
}

/** What the report is assembled from: every phase's result. */
interface PhaseResults {
  fp: FixedPointPhase;
  contraction: ContractionPhase;
  cross: { crossCheck: CrossCheck | null };
  red: RedundancyPhase;
  scale: JacobianScale;
  subspaces: SubspaceReport[];
  coverage: CoverageRow[];
  /** Every Jacobian operator used (for the evaluation and column counts). */
  operators: readonly JacobianOperator[];
  timings: Record<string, number>;
  notes: string[];
}

/** The report from the plan and the phases' results. */
function reportOf(system: OperatorSystem, plan: CertifyPlan, r: PhaseResults): CertificationReport {
  const theta = r.fp.theta;
  return {
    system: system.name,
    dim: system.dim,
    state: {
      kind: r.fp.stateKind,
      note: r.fp.stateNote,
      theta: system.dim <= 64 ? Array.from(theta) : null,
      norm: referenceNorm(theta),
    },
    fixedPoint: r.contraction.fixedPoint,
    contraction: r.contraction.bySubspace,
    redundancy: r.red.redundancy,
    subspaces: r.subspaces,
    subspaceChoice: plan.subspaceChoice,
    coverage: r.coverage,
    uniqueness: r.contraction.uniqueness,
    jacobian: {
      method: plan.method,
      relativeAccuracy: plan.method === 'fd' ? FD_RELATIVE_ACCURACY : r.scale.relativeAccuracy,
      backend: plan.backend,
      crossCheck: r.cross.crossCheck,
      evaluations: r.operators.reduce((s, o) => s + o.stats.evaluations, 0),
      columns: r.operators.reduce((s, o) => s + o.stats.columns, 0),
      normDQ: r.scale.normDQ,
      normDP: r.scale.normDP,
    },
    timings: r.timings,
    notes: r.notes,
  };
}

/**
 * Certifies a system: the phases of the module comment, in order. Exit status of the CLI is 0
 * whatever the verdicts: they are in the report.
 * Cost: fixed point (iterations × Q) + contraction (~200 Q + |W| columns per block) + per
 * subspace of dimension m: m columns of DQ, and per pool item O(m) sparse JVP applications,
 * then a streaming QR of 2·rows·m² flops.
 * @throws {ArgumentError} malformed state, unknown subspace or question, autodiff requested for
 *   a system without tfjs forms.
 * @example
 * ```ts
 * const r = await certify(closedFormSystem());
 * r.contraction[0].verdict;      // 'refuted' (Q fixes every (c, 0))
 * r.subspaces.find((s) => s.name === 'confidence')!.nonDegenerate; // false: all Σ_e vanish at (c, 0)
 * ```
 */
export async function certify(system: OperatorSystem, options: CertifyOptions = {}): Promise<CertificationReport> {
  await init();
  const progress = options.onProgress ?? (() => undefined);
  const timings: Record<string, number> = {};
  const plan = await planCertification(system, options);
  progress('fixed point', 0, 1);
  const fp = timed(timings, 'fixedPoint', () => fixedPointPhase(system, plan));
  const { theta } = fp;
  const asked = questionsAt(system, options.questions, theta);
  const t0 = performance.now();
  const DQ = consolidateJacobian(system, theta, plan.engine);
  const lin = new Linearization(system, theta, plan.engine, DQ);
  let shifted: Linearization | undefined;
  // every Jacobian (wasm-resident ones included) is released on every path, errors too
  try {
    // the contraction and non-degeneracy proofs enclose Q and P_e over many boxes: their
    // tangent arrays are pooled (the pool is dropped when each phase returns)
    const contraction = withTangentPool(() => contractionPhase(system, plan, fp, DQ, progress));
    timings['contraction'] = performance.now() - t0;
    const cross = timed(timings, 'crossCheck', () => crossCheckPhase(system, plan, theta, DQ));
    const red = timed(timings, 'redundancy', () => redundancyPhase(system, lin, plan.mode));
    const scale = timed(timings, 'expandNorms', () =>
      globalScale(system, lin, red.pool, contraction.globalNorm.norm, plan),
    );
    const band = timed(timings, 'sensitivity', () =>
      fixedPointBand(system, lin, plan.engine, contraction.fixedPoint, plan.at !== undefined),
    );
    shifted = band.fpError?.shifted;
    const inputs = {
      system,
      lin,
      pool: red.pool,
      redundancy: red.redundancy,
      scale,
      fpError: band.fpError,
      seed: plan.seed,
      progress,
    };
    const clock = new DecisionTimings();
    const decided = decideSubspaces(inputs, plan.subspaces, plan.maxWholeSpace, clock);
    progress('non-degeneracy proofs', 0, 1);
    const subspaces = timed(timings, 'nonDegeneracyProof', () =>
      withTangentPool(() =>
        proveSubspaces(system, plan.subspaces, decided.subspaces, contraction.bySubspace, theta, red.pool, {
          ...(plan.contraction.proofMaxEntries !== undefined ? { maxEntries: plan.contraction.proofMaxEntries } : {}),
          enabled: plan.contraction.proofs,
        }),
      ),
    );
    const coverage = decideQuestions(inputs, asked.questions, clock);
    for (const [k, v] of Object.entries(clock.ms)) timings[k] = (timings[k] ?? 0) + v;
    return reportOf(system, plan, {
      fp,
      contraction,
      cross,
      red,
      scale,
      subspaces,
      coverage,
      operators: [...lin.operators(), ...(shifted?.operators() ?? [])],
      timings,
      notes: [
        ...plan.notes,
        ...fp.notes,
        ...asked.notes,
        ...contraction.notes,
        ...cross.notes,
        ...red.notes,
        ...band.notes,
        ...decided.notes,
        ...verdictNotes(decided.subspaces, coverage),
      ],
    });
  } finally {
    lin.release();
    shifted?.release();
  }
}
