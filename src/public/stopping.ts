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
  type StepObservation,
  type StopDecision,
  type StoppingRule,
  type StopReason,
} from '../stopping/rule.js';
export { OrderGapRule, type OrderGapRuleParams } from '../stopping/orderGapRule.js';
export { FixedBudgetRule, type FixedBudgetParams } from '../stopping/fixedBudget.js';
export { ConfidenceThresholdRule, type ConfidenceThresholdParams } from '../stopping/confidenceThreshold.js';
export { PatienceConvergenceRule, type PatienceConvergenceParams } from '../stopping/patienceConvergence.js';
export { AnswerStabilityRule, type AnswerStabilityParams } from '../stopping/answerStability.js';
export { PluralityAgreementRule, type PluralityAgreementParams } from '../stopping/pluralityAgreement.js';
export { BetaStoppingRule, type BetaStoppingParams } from '../stopping/betaRule.js';
export { AnytimeVoteRule, type AnytimeVoteParams } from '../stopping/anytimeVote.js';
export { PoolVoteRule, type PoolVoteParams } from '../stopping/poolVote.js';
export {
  createRule,
  defaultRuleSpecs,
  listRules,
  parseRuleSpec,
  type ObservationField,
  type RuleInfo,
  type RuleParamInfo,
  type RuleSpec,
} from '../stopping/registry.js';
export { windowedMean } from '../stopping/window.js';
