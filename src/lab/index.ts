/**
 * The stopping-rule lab: the vote-state system, replay of recorded samples with extractors,
 * paired scoring, archives and budget-preserving admission, run records, evidence memory, and
 * the accuracy-against-samples SVG.
 */
export * from './voteSystem.js';
export * from './extractors.js';
export * from './samples.js';
export * from './observations.js';
export * from './replay.js';
export * from './pairedScoring.js';
export * from './admission.js';
export * from './archive.js';
export * from './atomicWrite.js';
export * from './runRecord.js';
export * from './evidenceMemory.js';
