/**
 * The stopping names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export { checkKnownParams, optionalMaxSteps, requireField, ruleLabel } from './rule.js';
export { unanimousAnswer, VoteTally } from './votes.js';
export { logAddExp, logSumExp } from './logSpace.js';
export { betaTailInt, betaTailIntUnchecked, leaderProbability, type TailPair } from './betaTail.js';
export {
  DIRICHLET_DEFAULTS,
  DIRICHLET_MAX_TOP_K,
  type DirichletLeaderProbability,
  dirichletLeaderProbability,
  DirichletStoppingRule,
  type DirichletStoppingParams,
} from './dirichletRule.js';
export {
  ENTROPY_DEFAULT_THRESHOLD,
  EntropyStoppingRule,
  type EntropyStoppingParams,
  normalisedEntropy,
} from './entropyRule.js';
export { ORDER_GAP_DEFAULTS } from './orderGapRule.js';
export { FIXED_BUDGET_DEFAULT } from './fixedBudget.js';
export { CONFIDENCE_DEFAULT_THRESHOLD } from './confidenceThreshold.js';
export { PATIENCE_DEFAULTS } from './patienceConvergence.js';
export { PLURALITY_DEFAULT_WINDOW } from './pluralityAgreement.js';
export {
  ANYTIME_DEFAULT_DELTA,
  ANYTIME_MAX_WEIGHT,
  anytimeBet,
  type AnytimeMixture,
  anytimeMixture,
  nullShare,
} from './anytimeVote.js';
export {
  POOL_DEFAULT_BUDGET,
  POOL_DEFAULT_DELTA,
  POOL_DEFAULT_SPENDING,
  POOL_MAX_BUDGET,
  type PoolThresholds,
  poolThresholds,
} from './poolVote.js';
export {
  ESC_DYNAMIC_DEFAULTS,
  ESC_MAX_BUDGET,
  escControlScheme,
  type EscControlPrediction,
  EscDynamicRule,
  type EscDynamicParams,
  escDynamicWindow,
  type EscWindowChoice,
  normalUpperTail,
} from './escDynamic.js';
export { MMC_DEFAULTS, MMC_GRID, mmcLogEValue, type MmcParams, MmcRule } from './mmcRule.js';
export { CITE_DEFAULTS, citeLevel, type CiteParams, CiteRule } from './citeRule.js';
