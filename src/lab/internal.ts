/**
 * The lab names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export {
  answerChangeBound,
  answerEvidence,
  consolidatedAnswer,
  EMPTY_EVIDENCE,
  pluralitySet,
  TIE_TOLERANCE,
  type VoteStateLayout,
  type VoteStateOptions,
} from './voteSystem.js';
export {
  afterLastMarker,
  answerIsExtractor,
  BUILTIN_EXTRACTORS,
  canonicalNumber,
  type Extraction,
  normalizeLetters,
  numericExtractor,
  userExtractor,
} from './extractors.js';
export {
  buildStream,
  type ObservationStream,
  seededPermutation,
  type StreamStep,
  unitSeed,
  type VoteObservation,
  VoteObserver,
} from './observations.js';
export {
  baselineSpec,
  type ReplayConfig,
  runUnit,
  type UnitOutcome,
  type UnitRecord,
  type UnitStopReason,
  validateReplayOptions,
} from './replay.js';
export {
  differenceInterval,
  type DifferenceInterval,
  pairedUnitKeys,
  paretoFront,
  perItemScores,
  tQuantile975,
} from './pairedScoring.js';
export {
  type AnswerDistribution,
  binomialUpperQuantile,
  EMPTY_ANSWER,
  type FalseStopResult,
  falseStopTrial,
  falseStopTrials,
  numericNearMissDistribution,
  type NumericNearMissOptions,
  SYNTHETIC_DISTRIBUTIONS,
  syntheticAnswers,
  type SyntheticShape,
} from './syntheticStreams.js';
export { type CalibrationCandidate, ORDER_GAP_GRID } from './calibrate.js';
export type { AdmissionDecision } from './admission.js';
export {
  type ArchiveEntry,
  archiveFromReplay,
  replayEvaluationLaw,
  type SelectionReport,
  type TargetConfiguration,
} from './archive.js';
export { writeFileAtomic } from '../util/atomicWrite.js';
export { packageVersion, type RecordReplay, RUN_RECORD_FORMAT, RUN_RECORD_VERSION } from './runRecord.js';
export {
  contentHash,
  type EvidenceProfile,
  type ExclusionDecision,
  poolContentOf,
  type ProfileFilter,
  type ReweightedEvidence,
  reweightEvidence,
  type ReweightOptions,
  type RunOutcome,
  type Verdict,
  type VerdictRecord,
  withEvidenceMemory,
} from './evidenceMemory.js';
