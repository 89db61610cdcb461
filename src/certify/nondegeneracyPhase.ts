/**
 * The proof phase of the non-degeneracy verdicts (Prop. 5.2 at θ*, not at θ̂): the enclosure of
 * the fixed point from the contraction proofs (./contractionProof.ts) — the proved block 'all'
 * when there is one, else the largest proved block, with the other coordinates at θ̂ — and, on
 * each decided coordinate subspace, {@link proveNonDegeneracy} over it. A verdict proved through
 * the system's tfjs forms is recorded for the certificate (./proofStore.ts); one proved through an
 * interval form is not (the checker re-encloses from the tfjs forms only).
 */
import { coordinateArray } from '../system/coordinates.js';
import type { EvidenceWeight, OperatorSystem, Subspace } from '../system/types.js';
import { certificateOfResult, recordNonDegeneracy } from './proofStore.js';
import type { ContractionResult } from './contraction.js';
import type { Encloser } from './contractionProof.js';
import { consolidateEncloser } from './enclosure.js';
import { proveNonDegeneracy } from './nondegeneracyProof.js';
import { isCoordinateBlock } from './subspace.js';
import type { DecidedSubspace, SubspaceReport } from './types.js';

/**
 * The default bound on items·d·|W| of a subspace's proof (2²³): the graph's default scenario
 * (16 items, d = 2158, |W| = 99: 3.4·10⁶) is proved in about 2 s; the synthetic scenario at
 * Nmax 64 (32 items, d = 12864, |W| = 64: 2.6·10⁷) would take about 12 s, so it runs on request.
 */
export const DEFAULT_SUBSPACE_PROOF_WORK = 2 ** 23;

/**
 * The enclosure of θ*: θ̂ with the best proved block's coordinates replaced by its enclosure, the
 * block's name, and in words.
 */
export function fixedPointBox(
  theta: Float64Array,
  contraction: readonly ContractionResult[],
  enclose: Encloser | null,
): { lo: Float64Array; hi: Float64Array; block: string; words: string } | null {
  const proved = contraction.filter((c) => c.verdict === 'proved' && c.fixedPointEnclosure && certificateOfResult(c));
  const best = proved.find((c) => c.subspace === 'all') ?? [...proved].sort((a, b) => b.dim - a.dim)[0];
  if (!best) return null;
  const coords = certificateOfResult(best)!.coordinates;
  const lo = Float64Array.from(theta);
  const hi = Float64Array.from(theta);
  coords.forEach((j, k) => {
    lo[j] = best.fixedPointEnclosure!.lo[k]!;
    hi[j] = best.fixedPointEnclosure!.hi[k]!;
  });
  if (best.subspace === 'all' || coords.length === theta.length)
    return {
      lo,
      hi,
      block: best.subspace,
      words: 'the enclosure of θ* (the unique fixed point of Q in the proved box)',
    };
  const others = theta.length - coords.length;
  const words = `the enclosure of the fixed point of Q on '${best.subspace}' with the other ${others} coordinates at θ̂`;
  // Q copies the other coordinates exactly over the box: the block's fixed point is one of Q's
  const image = enclose ? enclose(lo, hi, null) : null;
  const inBlock = new Uint8Array(theta.length);
  for (const j of coords) inBlock[j] = 1;
  let copied = image !== null;
  for (let j = 0; copied && j < theta.length; j++)
    if (!inBlock[j] && !(image!.lo[j] === theta[j] && image!.hi[j] === theta[j])) copied = false;
  return {
    lo,
    hi,
    block: best.subspace,
    words: copied
      ? `${words}, which Q maps to themselves exactly over it (enclosures of width 0): a fixed point of Q`
      : `${words} (Q moves some of them: a fixed point of that block map, not shown to be one of Q)`,
  };
}

/**
 * Each decided subspace's report with `proof` and `proofDetail`: proved over the fixed point's
 * enclosure where the enclosures allow, 'numerical' with the reason otherwise.
 */
export function proveSubspaces(
  system: OperatorSystem,
  specs: readonly Subspace[],
  reports: readonly DecidedSubspace[],
  contraction: readonly ContractionResult[],
  theta: Float64Array,
  pool: readonly EvidenceWeight[],
  options: { maxEntries?: number; enabled?: boolean } = {},
): SubspaceReport[] {
  const box = options.enabled === false ? null : fixedPointBox(theta, contraction, consolidateEncloser(system));
  return reports.map((r) => {
    const spec = specs.find((s) => s.name === r.name);
    const numerical = (statement: string): SubspaceReport => ({
      ...r,
      proof: 'numerical',
      proofDetail: { lambdaMinLowerBound: null, exactKernel: [], statement },
    });
    if (!box)
      return numerical(
        options.enabled === false
          ? 'proofs switched off (proofs: false)'
          : 'no enclosure of the fixed point (no contraction block was proved)',
      );
    if (!spec || !isCoordinateBlock(spec)) return numerical('proofs cover coordinate subspaces, not spans of vectors');
    const W = coordinateArray(spec.coordinates, `subspace '${r.name}'`);
    const items = pool.map((e) => ({ id: e.id, p: e.p }));
    // by default the whole proof is bounded: two interval evaluations of the forms per item,
    // each carrying |W| tangents through d values
    const work = items.filter((e) => e.p > 0).length * system.dim * W.length;
    if (options.maxEntries === undefined && work > DEFAULT_SUBSPACE_PROOF_WORK)
      return numerical(
        `not attempted: items·d·|W| = ${work} > ${DEFAULT_SUBSPACE_PROOF_WORK} (give proofMaxEntries, a bound on d·|W|, to prove it: two interval evaluations of the forms per item)`,
      );
    const p = proveNonDegeneracy(
      system,
      box,
      Int32Array.from(W),
      items,
      { nonDegenerate: r.nonDegenerate, kernelDim: r.kernelDim, lambdaMin: r.lambdaMin },
      options.maxEntries !== undefined ? { maxEntries: options.maxEntries } : {},
    );
    const report: SubspaceReport = {
      ...r,
      proof: p.proof,
      proofDetail: {
        lambdaMinLowerBound: p.lambdaMinLowerBound,
        exactKernel: p.exactKernel,
        statement: `${p.statement} — over ${box.words}`,
      },
    };
    if (p.proof === 'proved' && !system.capabilities.intervalForm) {
      const claim =
        p.lambdaMinLowerBound !== null
          ? { kind: 'lambdaMin' as const, bound: p.lambdaMinLowerBound }
          : { kind: 'exactKernel' as const, coordinates: [...p.exactKernel] };
      recordNonDegeneracy(report, {
        subspace: r.name,
        coordinates: Array.from(W),
        enclosure: { lo: Array.from(box.lo), hi: Array.from(box.hi) },
        block: box.block,
        items: items.filter((it) => it.p > 0),
        claim,
      });
    }
    return report;
  });
}
