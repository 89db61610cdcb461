/**
 * Rules by name, and the `name:key=value,key=value` spec syntax the CLI uses
 * (`order-gap:epsilon=0.05,window=3`, `beta:threshold=0.95`, `plurality:window=5`).
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { AnswerStabilityRule } from './answerStability.js';
import { ANYTIME_DEFAULT_DELTA, ANYTIME_MAX_WEIGHT, AnytimeVoteRule } from './anytimeVote.js';
import {
  POOL_DEFAULT_BUDGET,
  POOL_DEFAULT_DELTA,
  POOL_DEFAULT_SPENDING,
  POOL_MAX_BUDGET,
  PoolVoteRule,
} from './poolVote.js';
import { BetaStoppingRule } from './betaRule.js';
import { CITE_DEFAULTS, CiteRule } from './citeRule.js';
import { ESC_DYNAMIC_DEFAULTS, ESC_MAX_BUDGET, EscDynamicRule } from './escDynamic.js';
import { MMC_DEFAULTS, MmcRule } from './mmcRule.js';
import { DIRICHLET_DEFAULTS, DIRICHLET_MAX_TOP_K, DirichletStoppingRule } from './dirichletRule.js';
import { ENTROPY_DEFAULT_THRESHOLD, EntropyStoppingRule } from './entropyRule.js';
import { CONFIDENCE_DEFAULT_THRESHOLD, ConfidenceThresholdRule } from './confidenceThreshold.js';
import { FIXED_BUDGET_DEFAULT, FixedBudgetRule } from './fixedBudget.js';
import { ORDER_GAP_DEFAULTS, OrderGapRule } from './orderGapRule.js';
import { PATIENCE_DEFAULTS, PatienceConvergenceRule } from './patienceConvergence.js';
import { PLURALITY_DEFAULT_WINDOW, PluralityAgreementRule } from './pluralityAgreement.js';
import { checkKnownParams, type StoppingRule } from './rule.js';

/** Adaptive-Consistency's majority criterion (`MajorityStoppingCriteria`): share >= 0.8 from the second answer on. */
const MAJORITY_DEFAULTS = { ratio: 0.8, minSamples: 2 } as const;

/** A rule configuration: registered name and parameters (what archives and run records store). */
export interface RuleSpec {
  readonly name: string;
  readonly params: Readonly<Record<string, number | boolean>>;
}

type Factory = (params: Record<string, number | boolean>) => StoppingRule;

/** One parameter of a registered rule: its name, its default (null: off unless given) and what it does. */
export interface RuleParamInfo {
  readonly name: string;
  readonly default: number | boolean | null;
  readonly text: string;
}

/** What a rule reads of each step's observation besides t (`StepObservation`'s fields). */
export type ObservationField = 'omega' | 'answer' | 'confidence' | 'score';

/** A registered rule: name, one-line summary and its parameters with their defaults. */
export interface RuleInfo {
  readonly name: string;
  readonly summary: string;
  readonly params: readonly RuleParamInfo[];
  /** The observation fields the rule needs at every step. */
  readonly reads: readonly ObservationField[];
  /** `summary (k=default, ...)`: what `--help` prints. */
  readonly description: string;
  /** A measured limitation a comparison table should show next to the rule. */
  readonly note?: string;
}

const MAX_STEPS: RuleParamInfo = { name: 'maxSteps', default: null, text: 'step cap (off)' };

/** A rule's parameters from its defaults object, in the order and with the texts of `texts`. */
function paramsOf<K extends string>(
  defaults: Readonly<Record<K, number | boolean>>,
  texts: Readonly<Record<K, string>>,
): RuleParamInfo[] {
  return (Object.keys(texts) as K[]).map((name) => ({ name, default: defaults[name], text: texts[name] }));
}
/** The Beta and Dirichlet criteria's published threshold and the shared answered-samples floor. */
const AC_THRESHOLD: RuleParamInfo = { name: 'threshold', default: 0.95, text: 'in (1/2, 1) (the published default)' };
const MIN_SAMPLES: RuleParamInfo = { name: 'minSamples', default: 1, text: 'answered samples before testing' };

/* eslint-disable @typescript-eslint/no-explicit-any */
const RULES: ReadonlyArray<{
  name: string;
  summary: string;
  params: RuleParamInfo[];
  reads: ObservationField[];
  factory: Factory;
  note?: string;
}> = [
  {
    name: 'order-gap',
    summary: 'windowed order-gap, Algorithm 1: stop when the mean of the last w Ω is <= ε',
    params: [
      {
        name: 'epsilon',
        default: ORDER_GAP_DEFAULTS.epsilon,
        text: 'ε > 0 (chosen on synthetic data, docs/stopping.md)',
      },
      { name: 'window', default: ORDER_GAP_DEFAULTS.window, text: 'w >= 1' },
      MAX_STEPS,
    ],
    reads: ['omega'],
    factory: (p) => new OrderGapRule(p as any),
  },
  {
    name: 'fixed-budget',
    summary: 'exactly N steps',
    params: [
      { name: 'budget', default: FIXED_BUDGET_DEFAULT, text: 'N >= 1 (the budget of ESC and Adaptive-Consistency)' },
    ],
    reads: [],
    factory: (p) => new FixedBudgetRule(p as any),
  },
  {
    name: 'confidence',
    summary: 'stop when the confidence of the best answer is >= threshold',
    params: [
      { name: 'threshold', default: CONFIDENCE_DEFAULT_THRESHOLD, text: 'in (0, 1]' },
      { name: 'minSteps', default: 1, text: 'no stop before this step' },
      MAX_STEPS,
    ],
    reads: ['confidence'],
    factory: (p) => new ConfidenceThresholdRule(p as any),
  },
  {
    name: 'patience',
    summary:
      'convergence (Archives and stopping rules): no improvement of the best score by more than ε·R for P steps, an empty output, or depth D',
    params: [
      { name: 'epsilon', default: PATIENCE_DEFAULTS.epsilon, text: 'ε > 0' },
      { name: 'range', default: 1, text: 'score range R > 0' },
      { name: 'patience', default: PATIENCE_DEFAULTS.patience, text: 'P >= 1' },
      { name: 'maxDepth', default: PATIENCE_DEFAULTS.maxDepth, text: 'depth cap D >= 1' },
      { name: 'stopOnEmpty', default: true, text: 'stop at an empty output' },
    ],
    reads: ['score'],
    factory: (p) => new PatienceConvergenceRule(p as any),
    note: 'does not fit votes: the vote score (the leader confidence) falls when a sample disagrees, which counts as no improvement, so the rule stops on contested items and samples longest on unanimous ones (docs/stopping.md)',
  },
  {
    name: 'stability',
    summary: 'GROW: k consecutive equal answers',
    params: [{ name: 'consecutive', default: 2, text: 'k >= 2' }, MAX_STEPS],
    reads: ['answer'],
    factory: (p) => new AnswerStabilityRule(p as any),
  },
  {
    name: 'plurality',
    summary: 'ESC window of w identical answers and/or BRANCH agreement ratio',
    params: [
      { name: 'window', default: PLURALITY_DEFAULT_WINDOW, text: 'ESC window w (the default when no ratio is given)' },
      { name: 'ratio', default: null, text: 'agreement ratio in (0, 1] (off)' },
      { name: 'minSamples', default: 1, text: 'answered samples before the ratio test' },
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new PluralityAgreementRule(p as any),
  },
  {
    name: 'beta',
    summary: 'Adaptive-Consistency: stop when P(p1 > p2) >= threshold',
    params: [AC_THRESHOLD, MIN_SAMPLES, MAX_STEPS],
    reads: ['answer'],
    factory: (p) => new BetaStoppingRule(p as any),
  },
  {
    name: 'dirichlet',
    summary:
      'Adaptive-Consistency, Dirichlet: stop when P(the leader beats every other answer) >= threshold (Beta below 3 answers)',
    params: [
      { ...AC_THRESHOLD, default: DIRICHLET_DEFAULTS.threshold },
      {
        name: 'topK',
        default: DIRICHLET_DEFAULTS.topK,
        text: `most-voted answers kept, in [2, ${DIRICHLET_MAX_TOP_K}] (the published default)`,
      },
      MIN_SAMPLES,
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new DirichletStoppingRule(p as any),
  },
  {
    name: 'entropy',
    summary: 'Adaptive-Consistency, entropy: stop when H(counts)/log2(k) <= threshold from the second answer on',
    params: [
      { name: 'threshold', default: ENTROPY_DEFAULT_THRESHOLD, text: 'in (0, 1) (the published default)' },
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new EntropyStoppingRule(p as any),
  },
  {
    name: 'majority',
    summary: "Adaptive-Consistency, majority: the plurality rule's ratio test with the published defaults",
    params: [
      { name: 'ratio', default: MAJORITY_DEFAULTS.ratio, text: 'leader share in (0, 1] (the published default)' },
      { name: 'minSamples', default: MAJORITY_DEFAULTS.minSamples, text: 'answered samples before testing' },
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => {
      checkKnownParams('majority', p, ['ratio', 'minSamples', 'maxSteps']);
      return new PluralityAgreementRule({ ...MAJORITY_DEFAULTS, ...(p as any) });
    },
  },
  {
    name: 'anytime',
    summary: 'anytime-valid: P(ever stopping on a non-majority answer) <= δ (betting e-process)',
    params: [
      { name: 'delta', default: ANYTIME_DEFAULT_DELTA, text: 'δ in (0, 1)' },
      {
        name: 'budget',
        default: null,
        text: 'N >= 1: guarantee about the N-sample majority vote, stop at N (off: about the most likely answer; the default comparison passes its N)',
      },
      {
        name: 'maxWeight',
        default: ANYTIME_MAX_WEIGHT,
        text: "cap in [0, 1) on the all-in bettor's weight: higher stops unanimous streams sooner, costs up to 1/(1 − cap) on contested ones",
      },
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new AnytimeVoteRule(p as any),
  },
  {
    name: 'pool',
    summary: 'exact test on the N-sample pool: P(ever stopping on a non-majority answer of the N samples) <= δ',
    params: [
      { name: 'delta', default: POOL_DEFAULT_DELTA, text: 'δ in (0, 1)' },
      {
        name: 'budget',
        default: POOL_DEFAULT_BUDGET,
        text: 'N in [1, 1000]: the pool the guarantee is about, stop at N (the default comparison passes its N)',
      },
      {
        name: 'spending',
        default: POOL_DEFAULT_SPENDING,
        text: 'ρ >= 0: error spent by sample n is δ·(n/N)^ρ (0: earliest unanimous stops; larger: more for contested items)',
      },
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new PoolVoteRule(p as any),
  },
  {
    name: 'esc-dynamic',
    summary:
      "ESC's control scheme per item: after a first window that disagrees, the smallest window whose predicted affected proportion is <= tolerance",
    params: paramsOf(ESC_DYNAMIC_DEFAULTS, {
      window: 'first window w0 >= 2 (the repository window)',
      budget: `L in [w0, ${ESC_MAX_BUDGET}]: the most samples (the repository max_up)`,
      tolerance: 'ε in (0, 1): largest predicted affected proportion of a chosen window (not published)',
    }),
    reads: ['answer'],
    factory: (p) => new EscDynamicRule(p as any),
  },
  {
    name: 'mmc',
    summary:
      "Martingale Majority Certificate: leader-vs-runner-up and leader-vs-others mixture e-values both >= 1/δ (the authors' code)",
    params: paramsOf(MMC_DEFAULTS, {
      delta: 'δ in (0, 1)',
      contenders: 'M >= 2: the contender set',
      minPairUpdates: 'pair-process updates before a stop',
      minOtherUpdates: 'other-process updates before a stop',
      leaderMatch: 'the certified answer must still lead after the vote',
      maxSteps: 'N_max: abstain (budget stop) here',
    }),
    reads: ['answer'],
    factory: (p) => new MmcRule(p as any),
  },
  {
    name: 'cite',
    summary:
      'CITE, reconstructed from its abstract: intersection-union test of pairwise e-processes that the leader is the unique mode, P(false certificate) <= δ',
    params: [
      ...paramsOf(CITE_DEFAULTS, {
        delta: 'δ in (0, 1)',
        retarget: 'a new test (level spent δ·6/(π² j²)) when the leader changes; false: one test on the first answer',
      }),
      MAX_STEPS,
    ],
    reads: ['answer'],
    factory: (p) => new CiteRule(p as any),
  },
];
/* eslint-enable @typescript-eslint/no-explicit-any */

const BY_NAME = new Map(RULES.map((r) => [r.name, r]));

/**
 * The registered rules with their parameters and defaults (what `ordergap compare --help` and
 * docs/stopping.md show; a parameter whose default is null is off unless given).
 */
export function listRules(): RuleInfo[] {
  return RULES.map(({ name, summary, params, reads, note }) => ({
    name,
    summary,
    params,
    reads,
    description: `${summary} (${params.map((p) => `${p.name}=${p.default === null ? 'off' : String(p.default)}`).join(', ')})`,
    ...(note === undefined ? {} : { note }),
  }));
}

/**
 * What the registered rule `name` reads at every step.
 * @throws {ArgumentError} unknown name.
 */
export function ruleReads(name: string): readonly ObservationField[] {
  const entry = BY_NAME.get(name);
  if (!entry)
    throw new ArgumentError('rule', name, `is not a stopping rule (known: ${[...BY_NAME.keys()].join(', ')})`);
  return entry.reads;
}

/**
 * Builds a fresh rule from a spec.
 * @throws {ArgumentError} unknown name (the message lists the known ones) or bad parameters.
 * @example
 * ```ts
 * createRule({ name: 'beta', params: { threshold: 0.9 } }).label; // 'beta(threshold=0.9, minSamples=1)'
 * ```
 */
export function createRule(spec: RuleSpec): StoppingRule {
  if (typeof spec !== 'object' || spec === null) throw new ArgumentTypeError('rule', spec, 'must be {name, params}');
  const entry = typeof spec.name === 'string' ? BY_NAME.get(spec.name) : undefined;
  if (!entry) {
    throw new ArgumentError('rule', spec.name, `is not a stopping rule (known: ${[...BY_NAME.keys()].join(', ')})`);
  }
  return entry.factory({ ...(spec.params ?? {}) });
}

/**
 * Parses `name` or `name:key=value,key=value` (values: numbers, `true`, `false`; each key once).
 * @throws {ArgumentError} malformed text or a key given twice, naming the spec and the offending part.
 * @example
 * ```ts
 * parseRuleSpec('order-gap:epsilon=0.05,window=3'); // { name: 'order-gap', params: { epsilon: 0.05, window: 3 } }
 * ```
 */
export function parseRuleSpec(text: string): RuleSpec {
  if (typeof text !== 'string' || text.trim() === '')
    throw new ArgumentError('rule spec', text, 'must be a non-empty string');
  const colon = text.indexOf(':');
  const name = (colon < 0 ? text : text.slice(0, colon)).trim();
  const params: Record<string, number | boolean> = {};
  if (colon >= 0) {
    for (const part of text.slice(colon + 1).split(',')) {
      const m = /^\s*([A-Za-z][A-Za-z0-9]*)\s*=\s*(\S+)\s*$/.exec(part);
      if (!m) throw new ArgumentError(`rule spec ${JSON.stringify(text)}`, part, 'expected key=value');
      const [, key, raw] = m as unknown as [string, string, string];
      if (Object.hasOwn(params, key))
        throw new ArgumentError(
          `rule spec ${JSON.stringify(text)}: ${key}`,
          raw,
          `is given twice (${key}=${String(params[key])} before); give each parameter once`,
        );
      if (raw === 'true' || raw === 'false') params[key] = raw === 'true';
      else {
        const v = Number(raw);
        if (!Number.isFinite(v))
          throw new ArgumentError(`rule spec ${JSON.stringify(text)}: ${key}`, raw, 'is not a finite number');
        params[key] = v;
      }
    }
  }
  const spec = { name, params };
  createRule(spec); // validate now, so a bad spec fails before any work
  return spec;
}

/**
 * The configurations `ordergap compare` runs when no `--rules` are given, capped at `budget`
 * samples: the full budget, the order-gap rule at its default, Adaptive-Consistency's Beta rule
 * at its published 0.95, ESC's window at its published w = 5, the BRANCH agreement ratio, answer
 * stability, confidence, patience, the anytime-valid rule at δ = 0.05 with the budget (so its
 * guarantee is about the full-budget vote) and the exact pool test at δ = 0.05 on the budget.
 */
export function defaultRuleSpecs(budget: number): RuleSpec[] {
  return [
    { name: 'fixed-budget', params: { budget } },
    { name: 'order-gap', params: {} },
    { name: 'beta', params: { threshold: 0.95 } },
    { name: 'plurality', params: { window: 5 } },
    { name: 'plurality', params: { ratio: 0.7, minSamples: 5 } },
    { name: 'stability', params: { consecutive: 3 } },
    { name: 'confidence', params: {} },
    { name: 'patience', params: { maxDepth: budget } },
    { name: 'anytime', params: { budget } },
    // the pool test's thresholds are computed up to N = 1000
    ...(budget <= POOL_MAX_BUDGET ? [{ name: 'pool', params: { budget } }] : []),
  ];
}
