/**
 * The coverage-aware stop (Remark 5.4, Sec. 7.3): a candidate stop checked for per-question
 * coverage and the pool check, the policies that act on a blind stop, and the coverage-aware run
 * of Algorithm 1. Re-exports only.
 */
export {
  checkCoverageAtStop,
  type CoverageCheck,
  type CoverageCheckOptions,
  type MovingItem,
  type UncoveredQuestion,
} from './check.js';
export {
  type CheckSite,
  COVERAGE_POLICIES,
  type CoveragePolicy,
  CoverageStopper,
  type CoverageStopperOptions,
  redirectTargets,
  type StopReport,
} from './stopper.js';
export {
  type CandidateStop,
  type CoverageAwareRun,
  type CoverageRunOptions,
  type CoverageStop,
  redirectWeights,
  runCoverageAware,
} from './run.js';
