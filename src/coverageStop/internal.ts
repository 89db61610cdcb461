/**
 * The coverageStop names below the public surface, for `ordergap/internal` (src/internal.ts): no
 * stability is promised. Re-exports only.
 */
export { COVERAGE_POLICIES, redirectTargets } from './stopper.js';
export { redirectWeights } from './run.js';
