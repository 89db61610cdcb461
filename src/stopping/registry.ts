/**
 * Rules by name, and the `name:key=value,key=value` spec syntax the CLI uses
 * (`order-gap:epsilon=0.05,window=3`, `beta:threshold=0.95`, `plurality:window=5`).
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { AnswerStabilityRule } from './answerStability.js';
import { BetaStoppingRule } from './betaRule.js';
import { ConfidenceThresholdRule } from './confidenceThreshold.js';
import { FixedBudgetRule } from './fixedBudget.js';
import { OrderGapRule } from './orderGapRule.js';
import { PatienceConvergenceRule } from './patienceConvergence.js';
import { PluralityAgreementRule } from './pluralityAgreement.js';
import type { StoppingRule } from './rule.js';

/** A rule configuration: registered name and parameters (what archives and run records store). */
export interface RuleSpec {
  readonly name: string;
  readonly params: Readonly<Record<string, number | boolean>>;
}

type Factory = (params: Record<string, number | boolean>) => StoppingRule;

/* eslint-disable @typescript-eslint/no-explicit-any */
const FACTORIES: Readonly<Record<string, { factory: Factory; description: string }>> = {
  'order-gap': {
    factory: (p) => new OrderGapRule(p as any),
    description: 'windowed order-gap, Algorithm 1 (epsilon, window, maxSteps)',
  },
  'fixed-budget': { factory: (p) => new FixedBudgetRule(p as any), description: 'exactly N steps (budget)' },
  confidence: {
    factory: (p) => new ConfidenceThresholdRule(p as any),
    description: 'confidence >= threshold (threshold, minSteps, maxSteps)',
  },
  patience: {
    factory: (p) => new PatienceConvergenceRule(p as any),
    description: 'seed 002 convergence rule (epsilon, range, patience, maxDepth, stopOnEmpty)',
  },
  stability: {
    factory: (p) => new AnswerStabilityRule(p as any),
    description: 'GROW: k consecutive equal answers (consecutive, maxSteps)',
  },
  plurality: {
    factory: (p) => new PluralityAgreementRule(p as any),
    description: 'BRANCH early stop: agreement ratio and/or ESC window (ratio, minSamples, window, maxSteps)',
  },
  beta: {
    factory: (p) => new BetaStoppingRule(p as any),
    description: 'Adaptive-Consistency: P(p1 > p2) >= threshold (threshold, minSamples, maxSteps)',
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The registered rule names with one-line descriptions. */
export function listRules(): Array<{ name: string; description: string }> {
  return Object.entries(FACTORIES).map(([name, v]) => ({ name, description: v.description }));
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
  const entry = Object.hasOwn(FACTORIES, spec.name) ? FACTORIES[spec.name] : undefined;
  if (!entry) {
    throw new ArgumentError('rule', spec.name, `is not a stopping rule (known: ${Object.keys(FACTORIES).join(', ')})`);
  }
  return entry.factory({ ...(spec.params ?? {}) });
}

/**
 * Parses `name` or `name:key=value,key=value` (values: numbers, `true`, `false`).
 * @throws {ArgumentError} malformed text, naming the spec and the offending part.
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
 * samples: the full budget, the order-gap rule (two ε), the Beta rule, ESC, the agreement
 * ratio, answer stability, confidence and patience.
 */
export function defaultRuleSpecs(budget: number): RuleSpec[] {
  return [
    { name: 'fixed-budget', params: { budget } },
    { name: 'order-gap', params: { epsilon: 0.05, window: 3 } },
    { name: 'order-gap', params: { epsilon: 0.02, window: 3 } },
    { name: 'beta', params: { threshold: 0.95 } },
    { name: 'plurality', params: { window: 5 } },
    { name: 'plurality', params: { ratio: 0.7, minSamples: 5 } },
    { name: 'stability', params: { consecutive: 3 } },
    { name: 'confidence', params: { threshold: 0.85 } },
    { name: 'patience', params: { epsilon: 0.01, patience: 3, maxDepth: budget } },
  ];
}
