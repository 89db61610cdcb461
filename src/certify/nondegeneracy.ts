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
 * The columns of the stack that are not exactly zero: those where some item with a positive
 * weight has a non-zero entry, ascending. The others are exact zero columns of the stack (and of
 * G_W's rows and columns): their basis directions lie in every Σ_e's kernel exactly, and the
 * rank and the null space of the rest are decided without them (a zero column only adds an exact
 * zero singular value and its own unit null vector). How a subspace of dimension m whose
 * commutators vanish on most of it (the graph's confidence block: 47 of 1024 columns non-zero
 * at Nmax 1024) costs O(m) instead of the O(rows·m²) QR and O(m³) eigh.
 * @throws {ArgumentError} an item whose column count is not m.
 */
export function activeColumns(items: readonly WeightedColumns[], m: number): Int32Array {
  for (const it of items)
    if (it.columns.length !== m)
      throw new ArgumentError(`columns of ${it.evidence}`, it.columns.length, `must equal the basis size ${m}`);
  const live = new Uint8Array(m);
  for (const it of items) {
    if (!(it.weight > 0)) continue;
    it.columns.forEach((c, j) => {
      if (live[j]) return;
      for (let k = 0; k < c.value.length; k++)
        if (c.value[k] !== 0) {
          live[j] = 1;
          return;
        }
    });
  }
  let n = 0;
  for (let j = 0; j < m; j++) n += live[j]!;
  const out = new Int32Array(n);
  for (let j = 0, t = 0; j < m; j++) if (live[j]) out[t++] = j;
  return out;
}

/**
 * One item's block of the stack on the columns `keep` (ascending, from {@link activeColumns}):
 * rows.size × keep.length row-major, a row per index any of its columns stores (a stored zero
 * included: the row count feeds the tolerance), in order of first appearance. Null when the
 * item stores no entry.
 */
export function stackBlock(
  columns: readonly SparseVector[],
  keep: Int32Array,
): { block: Float64Array; rows: number } | null {
  const rows = new Map<number, number>();
  for (const c of columns) for (const i of c.index) if (!rows.has(i)) rows.set(i, rows.size);
  if (rows.size === 0) return null;
  const mk = keep.length;
  const block = new Float64Array(rows.size * mk);
  keep.forEach((j, at) => {
    const c = columns[j]!;
    for (let k = 0; k < c.index.length; k++) block[rows.get(c.index[k]!)! * mk + at] = c.value[k]!;
  });
  return { block, rows: rows.size };
}

/**
 * Builds the stack [√w_e Σ_e B] from the items' sparse columns and decides non-degeneracy with
 * the given (global) σ-tolerance, on the stack's non-zero columns ({@link activeColumns}; the
 * zero ones are exact null directions, listed after the others). Cost: 2·rows·m'² flops for the
 * QR + O(m'³) for the SVD of R, m' the non-zero columns.
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
  const keep = activeColumns(items, m);
  const mk = keep.length;
  const qr = new StreamingQR(mk);
  let rowsSeen = 0;
  let trace = 0;
  const norms: Contribution[] = [];
  for (const it of items) {
    let f2 = 0;
    for (const c of it.columns) f2 += sparseNorm(c) ** 2;
    norms.push({ evidence: it.evidence, weight: it.weight, share: 0, norm: Math.sqrt(f2) });
    trace += it.weight * f2;
    if (!(it.weight > 0) || f2 === 0 || m === 0) continue;
    const b = stackBlock(it.columns, keep);
    if (!b) continue;
    rowsSeen += b.rows;
    if (mk > 0) qr.push(b.block, b.rows, Math.sqrt(it.weight));
  }
  for (const c of norms) c.share = trace > 0 ? (c.weight * c.norm * c.norm) / trace : 0;
  const derivation = sigmaToleranceOf(rowsSeen, m);
  const rtol = defaultRtol(rowsSeen, m);
  const ns = mk > 0 ? qr.nullSpace({ rtol, atol: derivation.sigmaTolerance }) : null;
  // the zero columns: exact zero singular values (last, descending) and unit null vectors
  const sv = [...(ns?.singularValues ?? []), ...new Array<number>(m - mk).fill(0)];
  const sigmaTol = ns?.tolerance ?? derivation.sigmaTolerance; // max(atol, rtol·σ_max), σ_max = 0
  const lambdaTol = sigmaTol * sigmaTol;
  const rank = ns?.rank ?? 0;
  const nullity = m - rank;
  const coef = new Float64Array(m * nullity);
  for (let k = 0; k < (ns?.nullity ?? 0); k++)
    for (let c = 0; c < mk; c++) coef[keep[c]! * nullity + k] = ns!.basis[c * ns!.nullity + k]!;
  for (let j = 0, c = 0, k = ns?.nullity ?? 0; j < m; j++) {
    if (c < mk && keep[c] === j) c++;
    else coef[j * nullity + k++] = 1;
  }
  const kernelVectors = basisCombinations(system.dim, basis, coef, nullity, nullity, 'union');
  const kernel: NamedComponent[][] = kernelVectors.map((v) => namedComponents(system, v.value, v.index));
  const smin = m > 0 ? sv[m - 1]! : 0;
  const smax = m > 0 ? sv[0]! : 0;
  const nonDegenerate = m > 0 && rank === m;
  const dropped = ns?.largestDropped ?? 0;
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
    kernelDim: nullity,
    kernel,
    kernelVectors,
    singularValues: sv,
    contributions: norms.sort((a, b) => b.share - a.share),
    stackRows: rowsSeen,
    criticalSigma: nonDegenerate ? smin : dropped,
    sigmaTolerance: sigmaTol,
  };
}
