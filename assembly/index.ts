// Entry point of the WebAssembly module: re-exports every kernel. Kernels see only pointers
// (byte offsets into the imported memory), lengths, strides and scalars; they never allocate.
// Memory layout is owned by the TypeScript arena (src/wasm/arena.ts), which starts above
// heapBase().

export { dnrm2, ddist } from './blas1/dnrm2';
export { daxpy } from './blas1/daxpy';
export { dcopy } from './blas1/dcopy';
export { dsyrkTiles, dsyrkDirectRows, dsyrkRows, dsyrkSumFinish, sumFinishBlocks, dscal, dsyrkFinish } from './linalg/dsyrk';
export { dgemm, dtrmmUpperT } from './linalg/dgemm';
export { dgemv } from './linalg/dgemv';
export { dsyev, dsyevWork } from './linalg/dsyev';
export { dgebrdSvdvals, dgebrdWork, dbdsvdvals, dbdsvdvalsWork } from './linalg/dgebrd';
export { dsymmetrize, dtranspose } from './linalg/square';
export { dtpqrt } from './linalg/dtpqrt';
export { dgesvj } from './linalg/dgesvj';
export { setIterationCaps } from './linalg/caps';
export {
  graphStructureSums,
  graphWeightedSums,
  graphStructureSumsCsr,
  graphWeightedSumsCsr,
  graphConfidenceUpdate,
  graphMergeClaims,
  graphMergeRows,
} from './graph/consolidate';
export { graphBlendFootprintInPlace, graphEntryConfidenceInPlace } from './graph/expand';
export { graphNodeQuotient } from './graph/quotient';
export { graphExp } from './graph/exp';
export {
  graphDirectionScales,
  graphDirectionShift,
  graphDirectionRestore,
  graphDirectionTakenStep,
  graphDirectionPositiveZeros,
} from './graph/direction';

/** First byte above the module's static data; the TypeScript arena allocates from here. */
export function heapBase(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}
