/**
 * Proof certificates on the command line: `ordergap certify --proof FILE` writes the certificate
 * of a certification (src/certify/certificate.ts), and `ordergap check-proof FILE` re-checks one
 * with the independent checker (src/proofCheck/checkProof.ts) against the system the same
 * options name (`--system`, `--graph`/`--evidence`, `--probabilities`, as for `certify`).
 */
import type { ProofCertificate } from '../certify/certificate.js';
import { checkProof, type ProofCheck } from '../proofCheck/checkProof.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { ArgumentError } from '../util/errors.js';
import { readInputText } from '../util/resources.js';
import { init } from '../wasm/module.js';
import { resolveSystem, type SystemRequest } from './systems.js';

/** Writes a certificate as JSON (atomically: the file is whole or absent). */
export async function writeProofCertificate(path: string, certificate: ProofCertificate): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(certificate) + '\n');
}

/** A check-proof request: the certificate file and the system options that name its system. */
export interface CheckProofRequest extends SystemRequest {
  certificate: string;
}

/**
 * Reads the certificate, resolves the system the request names and re-checks the certificate.
 * @throws {ArgumentError} unreadable file, invalid JSON, bad system options.
 */
export async function checkProofReport(request: CheckProofRequest): Promise<ProofCheck> {
  const text = await readInputText('certificate', request.certificate);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError('certificate', request.certificate, `is not JSON (${(e as Error).message})`);
  }
  await init();
  const { certificate: _file, ...systemRequest } = request;
  const { system } = await resolveSystem(systemRequest);
  return checkProof(doc, system);
}

/** The check in words: one line per contraction block and per non-degeneracy entry, then the verdict. */
export function renderProofCheck(r: ProofCheck): string {
  const out = [`ordergap check-proof — ${r.system}`];
  for (const f of r.failures) out.push(`  REJECTED: ${f}`);
  for (const b of r.blocks) {
    out.push(
      `  contraction on '${b.subspace}': ${b.valid ? 'VALID' : 'REJECTED'} (upperBound ${b.upperBound}, ${b.leaves} box(es) re-evaluated)`,
    );
    for (const f of b.failures) out.push(`    ${f}`);
  }
  for (const v of r.nonDegeneracy) {
    out.push(`  non-degeneracy on '${v.subspace}': ${v.valid ? 'VALID' : 'REJECTED'}`);
    for (const f of v.failures) out.push(`    ${f}`);
  }
  out.push(r.valid ? 'certificate VALID: every claim re-checked' : 'certificate REJECTED');
  return out.join('\n');
}
