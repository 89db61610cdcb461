/**
 * The public `stopping` namespace: the one `StoppingRule` interface, Algorithm 1's order-gap rule
 * (Eq. 3) and the published rules it is compared with, the registry of rules by name and the
 * windowed mean. Re-exports only.
 */
export {
  BaseRule,
  CONTINUE,
  observeOnly,
  type RuleParams,
  type RuleReason,
  type RuleSnapshot,
  type StepObservation,
  type StopDecision,
  type StoppingRule,
  type StopReason,
} from './rule.js';
export { OrderGapRule, type OrderGapRuleParams } from './orderGapRule.js';
export { FixedBudgetRule, type FixedBudgetParams } from './fixedBudget.js';
export { ConfidenceThresholdRule, type ConfidenceThresholdParams } from './confidenceThreshold.js';
export { PatienceConvergenceRule, type PatienceConvergenceParams } from './patienceConvergence.js';
export { AnswerStabilityRule, type AnswerStabilityParams } from './answerStability.js';
export { PluralityAgreementRule, type PluralityAgreementParams } from './pluralityAgreement.js';
export { BetaStoppingRule, type BetaStoppingParams } from './betaRule.js';
export { AnytimeVoteRule, type AnytimeVoteParams } from './anytimeVote.js';
export { PoolVoteRule, type PoolVoteParams } from './poolVote.js';
export {
  createRule,
  defaultRuleSpecs,
  listRules,
  parseRuleSpec,
  type ObservationField,
  type RuleInfo,
  type RuleParamInfo,
  type RuleSpec,
} from './registry.js';
export { windowedMean } from './window.js';
