/**
 * The stopping-rule lab: the vote-state system, replay of recorded samples with extractors,
 * paired scoring (with paired intervals), false stops on synthetic streams, the order-gap default's
 * selection, archives and budget-preserving admission, run records, evidence memory, and
 * the accuracy-against-samples SVG.
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
  voteStateSystem,
  type VoteStateSystem,
} from './voteSystem.js';
export {
  afterLastMarker,
  type AnswerExtractor,
  answerIsExtractor,
  BUILTIN_EXTRACTORS,
  canonicalNumber,
  type Extraction,
  getExtractor,
  normalizeLetters,
  numericExtractor,
  userExtractor,
} from './extractors.js';
export { loadSamples, parseSamples, SampleFileError, type SampleItem, type SampleSet } from './samples.js';
export { buildStream, type ObservationStream, seededPermutation, type StreamStep, unitSeed } from './observations.js';
export {
  baselineSpec,
  type ReplayConfig,
  type ReplayOptions,
  type ReplayResult,
  replaySamples,
  runUnit,
  type UnitOutcome,
  type UnitRecord,
  type UnitStopReason,
  validateReplayOptions,
} from './replay.js';
export {
  differenceInterval,
  type DifferenceInterval,
  pairedSummary,
  type PairedSummary,
  pairedUnitKeys,
  perItemScores,
  type RuleSummary,
  summarizeReplay,
  tQuantile975,
} from './pairedScoring.js';
export {
  type AnswerDistribution,
  binomialUpperQuantile,
  EMPTY_ANSWER,
  type FalseStopResult,
  falseStopTrial,
  SYNTHETIC_DISTRIBUTIONS,
} from './syntheticStreams.js';
export { type Calibration, type CalibrationCandidate, calibrateOrderGap, ORDER_GAP_GRID } from './calibrate.js';
export { type AdmissionDecision, BudgetLedger } from './admission.js';
export {
  type ArchiveEntry,
  archiveFromReplay,
  ConfigurationArchive,
  replayEvaluationLaw,
  type SelectionReport,
  type TargetConfiguration,
} from './archive.js';
export { writeFileAtomic } from '../util/atomicWrite.js';
export {
  loadRunRecord,
  makeRunRecord,
  packageVersion,
  type RecordReplay,
  replayRunRecord,
  RUN_RECORD_FORMAT,
  RUN_RECORD_VERSION,
  type RunRecord,
  saveRunRecord,
} from './runRecord.js';
export {
  contentHash,
  EvidenceMemory,
  type EvidenceProfile,
  type ExclusionDecision,
  loadEvidenceMemory,
  poolContentOf,
  type ProfileFilter,
  type ReweightedEvidence,
  reweightEvidence,
  type ReweightOptions,
  type RunOutcome,
  saveEvidenceMemory,
  type Verdict,
  type VerdictRecord,
  withEvidenceMemory,
} from './evidenceMemory.js';
