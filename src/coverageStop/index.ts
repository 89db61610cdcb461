/**
 * The coverage-aware stop (Remark 5.4, Sec. 7.3): a candidate stop checked for per-question
 * coverage and the pool check, and the policies that act on a blind stop. Re-exports only.
 */
export {
  checkCoverageAtStop,
  type CoverageCheck,
  type CoverageCheckOptions,
  type MovingItem,
  type UncoveredQuestion,
} from './check.js';
export {
  type CandidateStop,
  type CoverageAwareRun,
  COVERAGE_POLICIES,
  type CoveragePolicy,
  type CoverageRunOptions,
  type CoverageStop,
  redirectTargets,
  redirectWeights,
  runCoverageAware,
} from './run.js';
export { OrderGapStopper, type StopperOptions, type StopReport } from './agent.js';
