/**
 * The interval names for `ordergap/internal` (src/internal.ts): outward rounding, interval
 * arithmetic, rigorous matrix bounds and the interval evaluation of tfjs forms — the building
 * blocks of a system's `intervalForm` and of the proofs (docs/certify.md, "Proofs by
 * enclosure"). No stability is promised. Re-exports only.
 */
export { down, downUlps, ETA, nextDown, nextUp, up, upUlps } from './round.js';
export * from './arith.js';
export * from './matrixBounds.js';
export { encloseForm, type EncloseFormOptions, intervalTf, type TfForm } from './intervalTf.js';
export { IntervalTensor } from './tensor.js';
