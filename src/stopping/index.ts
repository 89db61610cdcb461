/** Stopping rules: one interface, eight rules, the Beta tail numerics, and the rule registry with every parameter's default. */
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
export { ORDER_GAP_DEFAULTS, OrderGapRule, type OrderGapRuleParams } from './orderGapRule.js';
export { FIXED_BUDGET_DEFAULT, type FixedBudgetParams, FixedBudgetRule } from './fixedBudget.js';
export {
  CONFIDENCE_DEFAULT_THRESHOLD,
  type ConfidenceThresholdParams,
  ConfidenceThresholdRule,
} from './confidenceThreshold.js';
export { PATIENCE_DEFAULTS, type PatienceConvergenceParams, PatienceConvergenceRule } from './patienceConvergence.js';
export { type AnswerStabilityParams, AnswerStabilityRule } from './answerStability.js';
export {
  PLURALITY_DEFAULT_WINDOW,
  type PluralityAgreementParams,
  PluralityAgreementRule,
} from './pluralityAgreement.js';
export {
  ANYTIME_DEFAULT_DELTA,
  ANYTIME_MAX_WEIGHT,
  anytimeBet,
  type AnytimeMixture,
  anytimeMixture,
  type AnytimeVoteParams,
  AnytimeVoteRule,
  nullShare,
} from './anytimeVote.js';
export {
  POOL_DEFAULT_BUDGET,
  POOL_DEFAULT_DELTA,
  POOL_DEFAULT_SPENDING,
  POOL_MAX_BUDGET,
  type PoolThresholds,
  poolThresholds,
  type PoolVoteParams,
  PoolVoteRule,
} from './poolVote.js';
export { type BetaStoppingParams, BetaStoppingRule } from './betaRule.js';
export {
  createRule,
  defaultRuleSpecs,
  listRules,
  parseRuleSpec,
  type RuleInfo,
  type RuleParamInfo,
  type RuleSpec,
} from './registry.js';
