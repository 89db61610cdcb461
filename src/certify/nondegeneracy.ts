/**
 * Non-degeneracy of the commutator Gramian on a subspace W (Prop. 5.2):
 *
 *   G_W = Bᵀ G B = Σ_e p_e (Σ_e B)ᵀ(Σ_e B),   G ≻ 0 on W  ⇔  (∩_{e∈supp P} ker Σ_e) ∩ W = {0}.
 *
 * Decided by the rank of the stack [√p_e Σ_e B]_e (its singular values are sqrt(eig(G_W))) fed
 * block by block to linalg's streaming QR, so the Gramian is never formed and its condition
 * number never squared. Only the rows where an item's columns are non-zero are fed.
 *
 * Tolerance (σ units), measured against a GLOBAL scale γ (docs/certify.md step 5), never the stack's own
 * σ_max — otherwise a subspace where G is ~1e-25 everywhere would look full rank:
 *
 *   γ   = ‖DQ‖ · max_e ‖DP_e‖           (norms of the Jacobians; ‖Σ_e‖ <= 2γ' with DP_e = I + L_e)
 *   tol = 4·r·γ + max(rows, m)·eps·γ
 *
 * r is the Jacobians' relative accuracy (central differences eps^(2/3); float32 autodiff 1e-6).
 * The computed Σ_e b = DQ̃ L̃_e b − L̃_e DQ̃ b with DQ̃ = DQ + E_Q, DP̃_e = DP_e + E_P,
 * ‖E_Q‖ <= r‖DQ‖, ‖E_P‖ <= r‖DP_e‖ errs by at most 2(‖E_Q‖‖L_e‖ + ‖DQ‖‖E_P‖) <= 4rγ (with
 * ‖L_e‖ <= ‖DP_e‖ + 1 absorbed for ‖DP_e‖ >= 1), and weighting by √p_e with Σ p_e = 1 keeps the
 * stack's spectral error below the same bound. The second term is numpy's matrix_rank rounding
 * term for the QR itself, taken at the global scale. In eigenvalue units the tolerance is tol².
 */
import { StreamingQR } from '../linalg/streamingQR.js';
import { defaultRtol } from '../linalg/tolerance.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { sparseNorm, type SparseVector } from '../linearize/sparse.js';
import { namedComponents, type NamedComponent } from './describe.js';
import { basisCombinations } from './subspace.js';

/** How the tolerance was derived. */
export interface ToleranceDerivation {
  /** r: relative accuracy of the Jacobians. */
  relativeAccuracy: number;
  /** γ = ‖DQ‖·max_e‖DP_e‖ (estimates). */
  globalScale: number;
  normDQ: number;
  normDP: number;
  /** Threshold on singular values of the stack. */
  sigmaTolerance: number;
  /** Threshold on eigenvalues of G_W (sigmaTolerance²). */
  lambdaTolerance: number;
  /** In words, with the numbers. */
  text: string;
}

/**
 * The tolerance of the module comment for a stack with `rows` rows and m columns.
 */
export function nondegeneracyTolerance(
  relativeAccuracy: number,
  normDQ: number,
  normDP: number,
  rows: number,
  m: number,
  source: string,
): ToleranceDerivation {
  const gamma = normDQ * normDP;
  const fd = 4 * relativeAccuracy * gamma;
  const qr = defaultRtol(rows, m) * gamma;
  const sigmaTolerance = fd + qr;
  return {
    relativeAccuracy,
    globalScale: gamma,
    normDQ,
    normDP,
    sigmaTolerance,
    lambdaTolerance: sigmaTolerance * sigmaTolerance,
    text:
      `σ-tol = 4·r·γ + max(rows, m)·eps·γ with r = ${relativeAccuracy.toExponential(2)} (${source}), ` +
      `γ = ‖DQ‖·max‖DP_e‖ = ${normDQ.toPrecision(4)}·${normDP.toPrecision(4)} (global scale, not this subspace's), ` +
      `rows = ${rows}, m = ${m}: σ-tol = ${sigmaTolerance.toExponential(3)}, λ-tol = σ-tol² = ${(sigmaTolerance * sigmaTolerance).toExponential(3)}`,
  };
}

/** One item's columns Σ_e B with its weight in the expectation. */
export interface WeightedColumns {
  evidence: string;
  weight: number;
  columns: readonly SparseVector[];
}

/** An item's share of trace(G_W). */
export interface Contribution {
  evidence: string;
  weight: number;
  /** weight·‖Σ_e B‖_F² / trace(G_W). */
  share: number;
  /** ‖Σ_e B‖_F (unweighted). */
  norm: number;
}

/** Result of {@link decideNonDegeneracy}. */
export interface NonDegeneracyDecision {
  dim: number;
  lambdaMin: number;
  lambdaMax: number;
  /** λ-tolerance (tol²). */
  tolerance: number;
  derivation: ToleranceDerivation;
  nonDegenerate: boolean;
  /** λ_min / λ-tolerance when non-degenerate, λ-tolerance / (largest λ <= tol) otherwise. */
  margin: number;
  kernelDim: number;
  /** Kernel-intersection basis vectors (in θ coordinates), each by its largest named entries. */
  kernel: NamedComponent[][];
  /** The same kernel basis as sparse vectors in θ coordinates (orthonormal). */
  kernelVectors: SparseVector[];
  /** Singular values of the stack, descending. */
  singularValues: number[];
  contributions: Contribution[];
  /** Rows of the stack fed to the QR. */
  stackRows: number;
  /** σ_min when non-degenerate, else the largest dropped σ (0 when none): what the verdict hinges on. */
  criticalSigma: number;
  /** The σ-tolerance the rank was decided with. */
  sigmaTolerance: number;
}

/**
 * Builds the stack [√w_e Σ_e B] from the items' sparse columns and decides non-degeneracy with
 * the given (global) σ-tolerance. Cost: 2·rows·m² flops for the QR + O(m³) for the SVD of R.
 * @param basis the orthonormal basis B (to express kernel vectors in θ coordinates)
 * @param sigmaToleranceOf the derivation as a function of the stack's row count
 * @throws {ArgumentError} columns and basis disagree in count.
 */
export function decideNonDegeneracy(
  system: OperatorSystem,
  basis: readonly SparseVector[],
  items: readonly WeightedColumns[],
  sigmaToleranceOf: (rows: number, m: number) => ToleranceDerivation,
): NonDegeneracyDecision {
  const m = basis.length;
  const qr = new StreamingQR(m);
  let trace = 0;
  const norms: Contribution[] = [];
  for (const it of items) {
    if (it.columns.length !== m)
      throw new ArgumentError(`columns of ${it.evidence}`, it.columns.length, `must equal the basis size ${m}`);
    let f2 = 0;
    for (const c of it.columns) f2 += sparseNorm(c) ** 2;
    norms.push({ evidence: it.evidence, weight: it.weight, share: 0, norm: Math.sqrt(f2) });
    trace += it.weight * f2;
    if (!(it.weight > 0) || f2 === 0 || m === 0) continue;
    const rows = new Map<number, number>();
    for (const c of it.columns) for (const i of c.index) if (!rows.has(i)) rows.set(i, rows.size);
    const block = new Float64Array(rows.size * m);
    it.columns.forEach((c, j) => {
      for (let k = 0; k < c.index.length; k++) block[rows.get(c.index[k]!)! * m + j] = c.value[k]!;
    });
    qr.push(block, rows.size, Math.sqrt(it.weight));
  }
  for (const c of norms) c.share = trace > 0 ? (c.weight * c.norm * c.norm) / trace : 0;
  const derivation = sigmaToleranceOf(qr.rowsSeen, m);
  const ns = qr.nullSpace({ rtol: defaultRtol(qr.rowsSeen, m), atol: derivation.sigmaTolerance });
  const sv = Array.from(ns.singularValues);
  const sigmaTol = ns.tolerance;
  const lambdaTol = sigmaTol * sigmaTol;
  const kernelVectors = basisCombinations(system.dim, basis, ns.basis, ns.nullity, ns.nullity, 'union');
  const kernel: NamedComponent[][] = kernelVectors.map((v) => namedComponents(system, v.value, v.index));
  const smin = m > 0 ? sv[m - 1]! : 0;
  const smax = m > 0 ? sv[0]! : 0;
  const nonDegenerate = m > 0 && ns.rank === m;
  const dropped = ns.largestDropped ?? 0;
  const margin = nonDegenerate
    ? lambdaTol > 0
      ? (smin * smin) / lambdaTol
      : Infinity
    : dropped > 0
      ? lambdaTol / (dropped * dropped)
      : Infinity;
  return {
    dim: m,
    lambdaMin: smin * smin,
    lambdaMax: smax * smax,
    tolerance: lambdaTol,
    derivation: { ...derivation, sigmaTolerance: sigmaTol, lambdaTolerance: lambdaTol },
    nonDegenerate,
    margin,
    kernelDim: ns.nullity,
    kernel,
    kernelVectors,
    singularValues: sv,
    contributions: norms.sort((a, b) => b.share - a.share),
    stackRows: qr.rowsSeen,
    criticalSigma: nonDegenerate ? smin : dropped,
    sigmaTolerance: sigmaTol,
  };
}
