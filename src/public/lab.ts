/**
 * The public `lab` namespace: stopping rules on recorded samples — loading and replaying them with
 * an answer extractor, paired scoring against the full budget, the calibration of the order-gap
 * default, the vote-state system the order-gap runs on there, configuration archives with
 * budget-preserving admission, run records and evidence memory. Re-exports only.
 */
export { voteStateSystem, type VoteStateSystem } from '../lab/voteSystem.js';
export { getExtractor, type AnswerExtractor } from '../lab/extractors.js';
export { loadSamples, parseSamples, SampleFileError, type SampleItem, type SampleSet } from '../lab/samples.js';
export { replaySamples, type ReplayOptions, type ReplayResult } from '../lab/replay.js';
export { pairedSummary, summarizeReplay, type PairedSummary, type RuleSummary } from '../lab/pairedScoring.js';
export { calibrateOrderGap, type Calibration } from '../lab/calibrate.js';
export { BudgetLedger } from '../lab/admission.js';
export { ConfigurationArchive } from '../lab/archive.js';
export { loadRunRecord, makeRunRecord, replayRunRecord, saveRunRecord, type RunRecord } from '../lab/runRecord.js';
export { EvidenceMemory, loadEvidenceMemory, saveEvidenceMemory } from '../lab/evidenceMemory.js';
