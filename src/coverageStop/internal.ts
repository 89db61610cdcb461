/**
 * The coverageStop names below the public surface, for `ordergap/internal` (src/internal.ts): no
 * stability is promised. Re-exports only.
 */
export { COVERAGE_POLICIES } from './stopper.js';
export { REDIRECT_STEERS, redirectTargets, steerTargets, targetQuestions } from './steer.js';
export { redirectWeights } from './run.js';
