/**
 * The proof data of each proved contraction result (θ̂ and the certificate data of
 * ./contractionProof.ts), kept beside the result object rather than in its JSON: the report
 * stays small, and the certificate (./certificate.ts) is written only on request.
 */
import type { ContractionCertificate } from './contractionProof.js';

const proofs = new WeakMap<object, { theta: Float64Array; certificate: ContractionCertificate }>();

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
