/** Stopping rules: one interface, seven rules, the Beta tail numerics, and the rule registry. */
export * from './rule.js';
export * from './votes.js';
export * from './betaTail.js';
export * from './orderGapRule.js';
export * from './fixedBudget.js';
export * from './confidenceThreshold.js';
export * from './patienceConvergence.js';
export * from './answerStability.js';
export * from './pluralityAgreement.js';
export * from './betaRule.js';
export * from './registry.js';
