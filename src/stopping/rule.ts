/**
 * The one stopping-rule interface of the lab. A rule is a small state machine: it is shown one
 * step at a time ({@link StepObservation}: the step number and whatever that step produced — an
 * answer, an order-gap value, a confidence, a score) and answers continue or stop, with the
 * reason. Rules never throw because a cap is reached: reaching `maxSteps` is a normal stop with
 * reason `'budget'`, and whoever drives the rule keeps the best state so far.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';

/** What one step of a recursive or repeated-sampling run produced. */
export interface StepObservation {
  /** Step number t >= 1 (the observation after t steps / samples). */
  readonly t: number;
  /** Normalised answer emitted at this step; null when the step's output was empty or unparseable. */
  readonly answer?: string | null;
  /** True when the step emitted nothing at all (a blank output: the "empty code" of the convergence rule). */
  readonly empty?: boolean;
  /** Ω(θ_{t−1}; e_t) of Eq. (2) for this step (needed by the order-gap rule). */
  readonly omega?: number;
  /** A confidence in [0, 1] for the current best answer (needed by the confidence rule). */
  readonly confidence?: number;
  /** A score whose improvement the patience rule tracks (the convergence rule's mean score). */
  readonly score?: number;
}

/**
 * Why a run, a replayed unit or a rule stopped — one vocabulary for the whole package:
 * - `'order-gap'`: the windowed order-gap fell to ε (Algorithm 1, Eq. 3);
 * - `'criterion'`: another rule's own test fired (agreement, confidence, patience, ...);
 * - `'budget'`: a step cap (the rule's `maxSteps`, Tmax, or the fixed budget itself);
 * - `'evidence-exhausted'`: a fixed evidence sequence, or an item's recorded samples, ran out;
 * - `'empty-output'`: the patience rule's stop on an empty output;
 * - `'transport-failure'`: a recorded sample stream failed to deliver (replays).
 */
export type StopReason =
  | 'order-gap'
  | 'criterion'
  | 'budget'
  | 'evidence-exhausted'
  | 'empty-output'
  | 'transport-failure';

/** A rule's answer: continue, or one of the {@link StopReason}s a rule can give. */
export type RuleReason = 'continue' | Extract<StopReason, 'order-gap' | 'criterion' | 'budget' | 'empty-output'>;

/** The answer to one observation. */
export interface StopDecision {
  readonly stop: boolean;
  readonly reason: RuleReason;
  /** The rule's test statistic after this observation, when it has one (Ω̂ for the order-gap rule). */
  readonly statistic?: number | null;
  /** Human-readable account of the test (e.g. `Ω̂ = 0.012 <= ε = 0.05`); empty when continuing. */
  readonly detail: string;
}

/** Parameter values of a rule (numbers, or booleans for switches). */
export type RuleParams = Readonly<Record<string, number | boolean>>;

/** A stopping rule (see the module comment). */
export interface StoppingRule {
  /** Registered name, e.g. `'order-gap'`. */
  readonly name: string;
  /** The validated parameters, defaults filled in. */
  readonly params: RuleParams;
  /** `name(k=v, ...)`: identifies the configuration in tables and records. */
  readonly label: string;
  /** Observes step t (t must increase by one per call, starting at 1) and decides. */
  observe(obs: StepObservation): StopDecision;
  /** Forgets everything observed (ready for a new run). */
  reset(): void;
  /**
   * What the rule has observed, as plain JSON (absent: the rule cannot be saved). A checkpointed
   * loop saves it with the rest of its state ({@link RuleSnapshot}).
   */
  snapshot?(): RuleSnapshot;
  /**
   * Makes the rule's observations those of `snapshot`, taken from a rule of the same label: it
   * then decides every later observation exactly as that rule would have.
   * @throws {ArgumentError} a snapshot of another configuration, or not a snapshot (the rule is
   *   unchanged).
   */
  restore?(snapshot: RuleSnapshot): void;
}

/** What a rule has observed ({@link StoppingRule.snapshot}): plain JSON. */
export interface RuleSnapshot {
  /** The label of the rule it was taken from (its name and parameters). */
  readonly label: string;
  /** Observations since the last reset: the next must be step t + 1. */
  readonly t: number;
  /** The rule's own record of those observations (the order-gap rule: the Ω values, in order). */
  readonly state: unknown;
}

/** The decision to continue. */
export const CONTINUE: StopDecision = Object.freeze({ stop: false, reason: 'continue', detail: '' });

/** Formats a rule label: `name(k=v, ...)` with parameters in the given order. */
export function ruleLabel(name: string, params: RuleParams): string {
  const parts = Object.entries(params).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? `${name}(${parts.join(', ')})` : name;
}

/**
 * Shared machinery: checks that steps arrive in order (1, 2, 3, ...) and applies the optional
 * `maxSteps` cap after the rule's own test.
 */
export abstract class BaseRule implements StoppingRule {
  abstract readonly name: string;
  abstract readonly params: RuleParams;
  #t = 0;
  constructor(protected readonly maxSteps: number | undefined) {}

  get label(): string {
    return ruleLabel(this.name, this.params);
  }

  observe(obs: StepObservation): StopDecision {
    if (typeof obs !== 'object' || obs === null) throw new ArgumentTypeError('obs', obs, 'must be an object');
    if (obs.t !== this.#t + 1) {
      throw new ArgumentError('obs.t', obs.t, `must be ${this.#t + 1} (steps are observed in order from 1)`);
    }
    // t advances only once the rule has taken the observation: one it refuses changes nothing
    const own = this.decide(obs);
    this.#t = obs.t;
    if (own.stop) return own;
    if (this.maxSteps !== undefined && obs.t >= this.maxSteps) {
      return {
        stop: true,
        reason: 'budget',
        detail: `t = ${obs.t} reached maxSteps = ${this.maxSteps}`,
        ...(own.statistic !== undefined ? { statistic: own.statistic } : {}),
      };
    }
    return own;
  }

  reset(): void {
    this.#t = 0;
    this.clear();
  }

  /** Observations since the last reset (the last step observed). */
  protected get observed(): number {
    return this.#t;
  }

  /**
   * Checks `snapshot` against this rule (an object with this rule's label and t an integer >= 0)
   * and, after `load` has taken its state without throwing, sets t from it.
   * @throws {ArgumentError} naming the field that does not fit (the rule is unchanged).
   */
  protected restoreWith(snapshot: RuleSnapshot, load: (state: unknown, t: number) => void): void {
    if (typeof snapshot !== 'object' || snapshot === null)
      throw new ArgumentTypeError('snapshot', snapshot, 'must be a rule snapshot');
    if (snapshot.label !== this.label)
      throw new ArgumentError('snapshot.label', snapshot.label, `must be this rule's label "${this.label}"`);
    const t = integerInRange('snapshot.t', snapshot.t, 0);
    load(snapshot.state, t);
    this.#t = t;
  }

  /** The rule's own test for this observation (t already checked). */
  protected abstract decide(obs: StepObservation): StopDecision;
  /** Clears the rule's own state. */
  protected abstract clear(): void;
}

/**
 * `rule` as an observer: every observation reaches it and its statistic is reported, but it never
 * stops the run (a fixed-budget run that still shows, say, Ω̂_{t,w} at every step).
 * @example
 * ```ts
 * const r = observeOnly(new OrderGapRule({ epsilon: 1, window: 1 }));
 * r.observe({ t: 1, omega: 0 }); // { stop: false, reason: 'continue', statistic: 0, detail: '' }
 * ```
 */
export function observeOnly(rule: StoppingRule): StoppingRule {
  return {
    name: rule.name,
    params: rule.params,
    label: `${rule.label} observed without stopping`,
    observe: (obs) => ({ ...CONTINUE, statistic: rule.observe(obs).statistic ?? null }),
    reset: () => rule.reset(),
  };
}

/** Reads an optional `maxSteps` parameter (an integer >= 1). */
export function optionalMaxSteps(value: unknown): number | undefined {
  return value === undefined ? undefined : integerInRange('maxSteps', value, 1);
}

/** Reads a required finite observation field, naming it in the error. */
export function requireField(obs: StepObservation, field: 'omega' | 'confidence' | 'score', rule: string): number {
  const v = obs[field];
  if (v === undefined) throw new ArgumentError(`obs.${field}`, v, `is required by the ${rule} rule`);
  return finiteNumber(`obs.${field}`, v);
}

/** Rejects parameters a rule does not know (a typo must not silently fall back to a default). */
export function checkKnownParams(rule: string, params: object, known: readonly string[]): void {
  if (typeof params !== 'object' || params === null) throw new ArgumentTypeError('params', params, 'must be an object');
  for (const k of Object.keys(params)) {
    if (!known.includes(k)) {
      throw new ArgumentError(
        `${rule}.${k}`,
        (params as Record<string, unknown>)[k],
        `is not a parameter of ${rule} (known: ${known.join(', ')})`,
      );
    }
  }
}
