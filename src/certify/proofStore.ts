/**
 * The proof data kept beside result objects rather than in their JSON: the report stays small,
 * and the certificate (./certificate.ts) is written only on request.
 * - each proved contraction result: θ̂ and the certificate data of ./contractionProof.ts;
 * - each subspace report whose non-degeneracy verdict was proved through the system's tfjs forms
 *   (./nondegeneracyPhase.ts): what the checker needs to re-prove it. A verdict proved through an
 *   interval form is not recorded: the checker re-encloses DF_e from the tfjs forms only (it has
 *   no chain rule through an interval form's API).
 */
import type { ContractionCertificate } from './contractionProof.js';

/**
 * A proved non-degeneracy verdict as the certificate holds it: G_W = Σ_e p_e (DF_e B)ᵀ(DF_e B)
 * over the box `enclosure` (X*, all d coordinates: θ̂ with the contraction block `block`'s
 * coordinates replaced by its enclosure of the fixed point) satisfies the claim — λ_min(G_W) >
 * bound for every θ in X*, or DF_e's columns on `coordinates` are exactly 0 there for every item.
 */
export interface NonDegeneracyCertificate {
  subspace: string;
  /** W's coordinates (the columns B). */
  coordinates: number[];
  /** X*: lo and hi of length d. */
  enclosure: { lo: number[]; hi: number[] };
  /** The name of the contraction block whose fixed-point enclosure X* holds. */
  block: string;
  /** The items and their weights p > 0. */
  items: { id: string; p: number }[];
  claim: { kind: 'lambdaMin'; bound: number } | { kind: 'exactKernel'; coordinates: number[] };
}

const proofs = new WeakMap<object, { theta: Float64Array; certificate: ContractionCertificate }>();
const verdicts = new WeakMap<object, NonDegeneracyCertificate>();

/** Keeps a proved block's certificate data with its result. */
export function recordProof(result: object, theta: Float64Array, certificate: ContractionCertificate): void {
  proofs.set(result, { theta: Float64Array.from(theta), certificate });
}

/** The proof data recorded for a result, or undefined. */
export function proofOfResult(
  result: object,
): { theta: Float64Array; certificate: ContractionCertificate } | undefined {
  return proofs.get(result);
}

/** The certificate data of a proved contraction result (its coordinates, box, tree…), or undefined. */
export function certificateOfResult(result: object): ContractionCertificate | undefined {
  return proofs.get(result)?.certificate;
}

/** Keeps a proved non-degeneracy verdict's certificate data with its subspace report. */
export function recordNonDegeneracy(report: object, certificate: NonDegeneracyCertificate): void {
  verdicts.set(report, certificate);
}

/** The non-degeneracy certificate data recorded for a subspace report, or undefined. */
export function nonDegeneracyOfReport(report: object): NonDegeneracyCertificate | undefined {
  return verdicts.get(report);
}
