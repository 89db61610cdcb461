/**
 * The proof certificate (`ordergap certify --proof FILE`): every box, enclosure, norm bound and
 * bisection a proof by enclosure used, as JSON data that `ordergap check-proof` re-checks with a
 * checker that shares no code with the prover beyond the interval primitives (src/proofCheck).
 *
 * Format `ordergap-proof` version 1:
 * ```
 * { format: 'ordergap-proof', version: 1, system: { name, dim },
 *   theta: number[],                       // θ̂: the coordinates outside each block are held here
 *   contraction: [{ subspace, coordinates, norm: '2', box: {lo, hi}, upperBound,
 *                   tree,                  // { leaf: {lo, hi, image, jacobian, bound} } or
 *                                          // { axis, at, lo, hi, children: [node, node] }
 *                   residualImage, ballRadius, narrowingSteps, fixedPointEnclosure }],
 *   nonDegeneracy: [{ subspace, coordinates,   // W
 *                     enclosure: {lo, hi},     // X* (length d): θ̂ with `block`'s coordinates set
 *                     block,                   //   to its fixedPointEnclosure
 *                     items: [{ id, p }],      // p > 0
 *                     claim }] }               // { kind: 'lambdaMin', bound: μ }: λ_min(G_W) > μ on X*
 *                                              // { kind: 'exactKernel', coordinates }: DF_e is
 *                                              //   exactly 0 on them over X* for every item
 * ```
 * `nonDegeneracy` lists the verdicts proved through the system's tfjs forms (an empty array when
 * none); one proved through an interval form is not listed (src/certify/proofStore.ts).
 * Numbers are written by JSON.stringify, which round-trips every finite double exactly; an
 * infinite bound never appears in a certificate (it would not prove anything).
 */
import type { OperatorSystem } from '../system/types.js';
import type { ContractionCertificate } from './contractionProof.js';
import { nonDegeneracyOfReport, proofOfResult, type NonDegeneracyCertificate } from './proofStore.js';
import type { CertificationReport } from './types.js';

/** One proved block in the certificate. */
export type CertificateBlock = ContractionCertificate & { subspace: string; norm: '2' };

/** The certificate document. */
export interface ProofCertificate {
  format: 'ordergap-proof';
  version: 1;
  system: { name: string; dim: number };
  theta: number[];
  contraction: CertificateBlock[];
  nonDegeneracy: NonDegeneracyCertificate[];
}

/**
 * The certificate of every proved contraction block of a report `certify` returned, with the
 * non-degeneracy verdicts proved over their fixed-point enclosures, or null when no contraction
 * block was proved. All blocks of one report share θ̂ (the linearisation state).
 */
export function proofCertificate(system: OperatorSystem, report: CertificationReport): ProofCertificate | null {
  const blocks: CertificateBlock[] = [];
  let theta: Float64Array | null = null;
  for (const c of report.contraction) {
    const p = proofOfResult(c);
    if (!p) continue;
    theta = p.theta;
    blocks.push({ subspace: c.subspace, norm: '2', ...p.certificate });
  }
  if (!theta) return null;
  return {
    format: 'ordergap-proof',
    version: 1,
    system: { name: system.name, dim: system.dim },
    theta: Array.from(theta),
    contraction: blocks,
    nonDegeneracy: report.subspaces.flatMap((s) => nonDegeneracyOfReport(s) ?? []),
  };
}
