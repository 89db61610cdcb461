/** Stopping rules: one interface, seven rules, the Beta tail numerics, and the rule registry. */
export {
  BaseRule,
  checkKnownParams,
  CONTINUE,
  optionalMaxSteps,
  requireField,
  ruleLabel,
  type RuleParams,
  type RuleReason,
  type StepObservation,
  type StopDecision,
  type StoppingRule,
  type StopReason,
} from './rule.js';
export { VoteTally } from './votes.js';
export { betaTailInt, betaTailIntUnchecked, leaderProbability, type TailPair } from './betaTail.js';
export { OrderGapRule, type OrderGapRuleParams } from './orderGapRule.js';
export { type FixedBudgetParams, FixedBudgetRule } from './fixedBudget.js';
export { type ConfidenceThresholdParams, ConfidenceThresholdRule } from './confidenceThreshold.js';
export { type PatienceConvergenceParams, PatienceConvergenceRule } from './patienceConvergence.js';
export { type AnswerStabilityParams, AnswerStabilityRule } from './answerStability.js';
export { type PluralityAgreementParams, PluralityAgreementRule } from './pluralityAgreement.js';
export { type BetaStoppingParams, BetaStoppingRule } from './betaRule.js';
export { createRule, defaultRuleSpecs, listRules, parseRuleSpec, type RuleSpec } from './registry.js';
