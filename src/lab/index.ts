/**
 * The public `lab` namespace: stopping rules on recorded samples — loading and replaying them with
 * an answer extractor, paired scoring against the full budget, the calibration of the order-gap
 * default, the vote-state system the order-gap runs on there, configuration archives with
 * budget-preserving admission, run records and evidence memory. Re-exports only.
 */
export { voteStateSystem, type VoteStateSystem } from './voteSystem.js';
export { getExtractor, type AnswerExtractor } from './extractors.js';
export { loadSamples, parseSamples, SampleFileError, type SampleItem, type SampleSet } from './samples.js';
export { replaySamples, type ReplayOptions, type ReplayResult } from './replay.js';
export { pairedSummary, summarizeReplay, type PairedSummary, type RuleSummary } from './pairedScoring.js';
export { calibrateOrderGap, type Calibration } from './calibrate.js';
export { BudgetLedger } from './admission.js';
export { ConfigurationArchive } from './archive.js';
export { loadRunRecord, makeRunRecord, replayRunRecord, saveRunRecord, type RunRecord } from './runRecord.js';
export { EvidenceMemory, loadEvidenceMemory, saveEvidenceMemory } from './evidenceMemory.js';
