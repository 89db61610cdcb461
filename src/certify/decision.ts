/**
 * The decision phase of `certify` (./certify.ts): non-degeneracy of the commutator Gramian on
 * each subspace W (Prop. 5.2, Eq. 7) and per-question coverage on each W_q (Remark 5.4), each
 * with the sensitivity of its verdict, and the notes on the verdicts as a whole. Every subspace
 * and question is decided from its own basis B, its own DQ B and its own Σ_e B columns (Eq. 4, or
 * DF_e where redundancy fails); only DQ's cached columns and the global scale are shared, and
 * probe seeds depend on the name only, so a row does not depend on what else was asked.
 */
import type { EvidenceWeight, OperatorSystem, Subspace } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import {
  commutatorColumns,
  commutatorGramian,
  consolidateImages,
  type Linearization,
  type LinearizationKind,
  type RedundancyItem,
} from './commutator.js';
import { questionCoverage } from './coverage.js';
import { decideNonDegeneracy, nondegeneracyTolerance, type NonDegeneracyDecision } from './nondegeneracy.js';
import { nameSalt, type JacobianScale } from './phases.js';
import { stackRateOfChange, verdictSensitivity, type FixedPointError, type VerdictSensitivity } from './sensitivity.js';
import { basisOf, type NamedBasis, type QuestionSpace } from './subspace.js';
import type { CoverageRow, DecidedSubspace, ProgressFn } from './types.js';
import type { SparseVector } from '../linearize/sparse.js';

/** What every decision reads: the linearisation, the pool and its redundancy, the global scale, the fixed point's error. */
export interface DecisionInputs {
  readonly system: OperatorSystem;
  readonly lin: Linearization;
  readonly pool: readonly EvidenceWeight[];
  readonly redundancy: readonly RedundancyItem[];
  readonly scale: JacobianScale;
  readonly fpError: FixedPointError | null;
  readonly seed: number;
  readonly progress: ProgressFn;
}

/** Milliseconds per part of the decision phase, accumulated. */
export class DecisionTimings {
  readonly ms: Record<string, number> = {};
  /** Adds the time since `since` (a `performance.now()` reading) to `key`. */
  add(key: string, since: number): void {
    this.ms[key] = (this.ms[key] ?? 0) + (performance.now() - since);
  }
}

/** One pool item's columns on a basis. */
interface ItemColumns {
  evidence: string;
  p: number;
  kind: LinearizationKind;
  columns: SparseVector[];
}

/** A subspace's basis, the items' columns on it, and the sensitivity of a decision taken on them. */
interface DecisionColumns {
  basis: NamedBasis;
  items: ItemColumns[];
  sensitivityOf(dec: NonDegeneracyDecision): VerdictSensitivity;
}

/** The σ-tolerance of Prop. 5.2's decision for a stack of `rows` rows and m columns (nondegeneracy.ts). */
function toleranceOf(scale: JacobianScale) {
  return (rows: number, m: number) =>
    nondegeneracyTolerance(scale.relativeAccuracy, scale.normDQ, Math.max(scale.normDP, 1e-300), rows, m, scale.source);
}

/**
 * B, DQ B, and every item's Σ_e B (or DF_e B), then the measured rate of change of the stack
 * along the fixed point's error (seeded by `salt`, a function of the name only).
 */
function decisionColumns(
  inputs: DecisionInputs,
  spec: Subspace,
  phase: string,
  salt: number,
  timings: DecisionTimings,
): DecisionColumns {
  const { system, lin, pool, redundancy, fpError, scale } = inputs;
  let t = performance.now();
  const basis = basisOf(system.dim, spec);
  if (basis.vectors.length === 0)
    throw new ArgumentError(phase, spec.name, 'spans an empty (0-dimensional) subspace: nothing to decide');
  const images = consolidateImages(lin, basis.vectors);
  const items = pool.map((it, i) => {
    inputs.progress(phase, i, pool.length);
    const kind = redundancy[i]!.linearization;
    return { evidence: it.id, p: it.p, kind, columns: commutatorColumns(lin, it.id, basis.vectors, images, kind) };
  });
  timings.add('columns', t);
  t = performance.now();
  const weights = () => items.map((it) => ({ evidence: it.evidence, weight: it.p }));
  const rate = fpError
    ? stackRateOfChange(lin, fpError, basis.vectors, weights(), (inputs.seed + 7919 * salt) >>> 0)
    : null;
  timings.add('sensitivity', t);
  const jacobianBand = scale.relativeAccuracy * scale.normDQ * Math.max(scale.normDP, 1e-300);
  const sensitivityOf = (dec: NonDegeneracyDecision) =>
    verdictSensitivity(
      dec.criticalSigma,
      dec.sigmaTolerance,
      dec.nonDegenerate,
      fpError && rate !== null ? { distance: fpError.distance, rate } : null,
      jacobianBand,
      scale.remedy,
    );
  return { basis, items, sensitivityOf };
}

const weighted = (items: readonly ItemColumns[]) =>
  items.map((it) => ({ evidence: it.evidence, weight: it.p, columns: it.columns }));

/** Decides one subspace (Prop. 5.2) and forms its G_W with the Gramian kernel from the same columns. */
function decideSubspace(inputs: DecisionInputs, spec: Subspace, timings: DecisionTimings): DecidedSubspace {
  const { basis, items, sensitivityOf } = decisionColumns(
    inputs,
    spec,
    `Σ_e on ${spec.name}`,
    nameSalt(spec.name),
    timings,
  );
  let t = performance.now();
  const dec = decideNonDegeneracy(inputs.system, basis.vectors, weighted(items), toleranceOf(inputs.scale));
  timings.add('gramian', t);
  const sensitivity = sensitivityOf(dec);
  // G_W by the Gramian kernel, from the same columns (linearisation hook, commutator.ts)
  t = performance.now();
  const gw = commutatorGramian(inputs.system, basis.vectors, weighted(items), dec.tolerance);
  timings.add('gramianMatrix', t);
  return {
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
  };
}

/**
 * Non-degeneracy on every planned subspace (Prop. 5.2); 'all' is skipped, with a note, when
 * d > maxWholeSpace. Cost per subspace of dimension m: m columns of DQ, per pool item O(m)
 * sparse JVP applications, a streaming QR of 2·rows·m² flops and G_W's eigh (~9m³).
 */
export function decideSubspaces(
  inputs: DecisionInputs,
  subspaces: readonly Subspace[],
  maxWholeSpace: number,
  timings: DecisionTimings,
): { subspaces: DecidedSubspace[]; notes: string[] } {
  const t = performance.now();
  const notes: string[] = [];
  const d = inputs.system.dim;
  const decided = subspaces.filter((spec) => {
    if (spec.name === 'all' && d > maxWholeSpace) {
      notes.push(`subspace 'all' (d = ${d}) skipped: larger than maxWholeSpace`);
      return false;
    }
    return true;
  });
  timings.add('columns', t);
  timings.ms['gramian'] = 0;
  return { subspaces: decided.map((spec) => decideSubspace(inputs, spec, timings)), notes };
}

/**
 * Coverage of every question (Remark 5.4): Prop. 5.2 on W_q under P and under the whole pool,
 * blind items, and the verdict's sensitivity. The questions' Σ_e columns and sensitivity probes
 * are timed in those parts, not twice in 'coverage'.
 */
export function decideQuestions(
  inputs: DecisionInputs,
  questions: readonly QuestionSpace[],
  timings: DecisionTimings,
): CoverageRow[] {
  const t0 = performance.now();
  const columnsBefore = timings.ms['columns'] ?? 0;
  const sensitivityBefore = timings.ms['sensitivity'] ?? 0;
  const coverage = questions.map(({ spec, source, basis: basisKind }): CoverageRow => {
    // seeds depend on the name only, so a row does not depend on what else was asked
    const salt = 1 + nameSalt(`q ${spec.name}`);
    const { basis, items, sensitivityOf } = decisionColumns(inputs, spec, `coverage ${spec.name}`, salt, timings);
    const { decision, ...cov } = questionCoverage(
      inputs.system,
      spec.name,
      source,
      basis.vectors,
      items,
      toleranceOf(inputs.scale),
    );
    const sensitivity = sensitivityOf(decision);
    const verdict = sensitivity.sensitive ? 'sensitive' : cov.covered ? 'covered' : 'NOT covered';
    return { ...cov, basis: basisKind, verdict, sensitivity };
  });
  const inParts = (timings.ms['columns'] ?? 0) - columnsBefore + ((timings.ms['sensitivity'] ?? 0) - sensitivityBefore);
  timings.ms['coverage'] = performance.now() - t0 - inParts;
  return coverage;
}

/** Notes on the verdicts as a whole: the sensitive ones, and a state where every Σ_e vanishes. */
export function verdictNotes(subspaces: readonly DecidedSubspace[], coverage: readonly CoverageRow[]): string[] {
  const notes: string[] = [];
  const sensitive = [
    ...subspaces.filter((s) => s.verdict === 'sensitive').map((s) => s.name),
    ...coverage.filter((c) => c.verdict === 'sensitive').map((c) => c.question),
  ];
  if (sensitive.length)
    notes.push(
      `${sensitive.length} verdict(s) are sensitive (the margin lies inside the band of the fixed point's and the Jacobians' error): ${sensitive.join(', ')}`,
    );
  if (subspaces.length > 0 && subspaces.every((s) => s.lambdaMax <= s.tolerance))
    notes.push(
      'every Σ_e vanishes (to tolerance) on every decided subspace at this state: the linearised order-gap is blind here; certify at another state (--at, or --at stop for where a run stopped)',
    );
  return notes;
}
