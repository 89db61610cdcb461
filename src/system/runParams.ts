/**
 * Algorithm 1's parameters (Sec. 6, Eq. 3): the threshold ε, the window w, the step budget Tmax
 * and the sampler's seed — one type, one validator and one package default. A system recommends
 * its own values with the `runDefaults` capability; everything that runs Algorithm 1 (the loop,
 * the coverage-aware run, the agent stopper, certify's `at: 'stop'`, the commands) reads them
 * through {@link resolveRunParams}: explicit values, then the system's `runDefaults`, then
 * {@link DEFAULT_RUN}.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, integerInRange } from '../util/validate.js';

/** Algorithm 1's parameters. */
export interface RunParams {
  /** ε > 0: stop when Ω̂_{t,w} <= ε (Eq. 3). */
  readonly epsilon: number;
  /** w >= 1: the window of Ω̂ (Eq. 3). */
  readonly window: number;
  /** Tmax >= 1: the step budget. */
  readonly maxSteps: number;
  /** Seed of the evidence sampler, an integer in [0, 2^32). */
  readonly seed: number;
  /**
   * A fixed presentation order of the evidence instead of sampling P(·|θ) (Sec. 9.2 presents
   * e1..e5 in order); absent: sample.
   */
  readonly sequence?: readonly string[];
}

/**
 * The package's Algorithm 1 parameters for a system that recommends none: the setting of
 * Sec. 9.2 (ε = 0.025, w = 2) with a budget of 100 steps and seed 0.
 */
export const DEFAULT_RUN: RunParams = Object.freeze({ epsilon: 0.025, window: 2, maxSteps: 100, seed: 0 });

const KEYS = ['epsilon', 'window', 'maxSteps', 'seed', 'sequence'] as const;

/** The numeric fields of {@link RunParams}. */
export type RunField = 'epsilon' | 'window' | 'maxSteps' | 'seed';

/** Every numeric field: what a complete set of run parameters holds. */
export const RUN_FIELDS: readonly RunField[] = Object.freeze(['epsilon', 'window', 'maxSteps', 'seed']);

/**
 * Checks run parameters and returns them, frozen: the fields named in `required` must be present
 * (a system's `runDefaults` needs {@link RUN_FIELDS}, all four), the others are checked when
 * present (overrides).
 * Unknown fields are an error. `prefix` names the object in errors (`system.runDefaults` gives
 * `system.runDefaults.epsilon`; '' gives `epsilon`). A `sequence` of null means "sample P(·|θ)"
 * (it clears a system's default sequence) and is kept as null.
 * @throws {ArgumentError|ArgumentTypeError} naming the first bad field and its value.
 */
export function checkRunParams(value: unknown, prefix = '', required: readonly RunField[] = []): RunOverrides {
  const name = (k: string) => (prefix ? `${prefix}.${k}` : k);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgumentTypeError(prefix || 'options', value, 'must be an object');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!(KEYS as readonly string[]).includes(k) && o[k] !== undefined)
      throw new ArgumentError(name(k), o[k], `is not a run parameter (known: ${KEYS.join(', ')})`);
  const out: { -readonly [K in keyof RunOverrides]: RunOverrides[K] } = {};
  const has = (k: RunField) => required.includes(k) || o[k] !== undefined;
  if (has('epsilon')) {
    const epsilon = finiteNumber(name('epsilon'), o['epsilon']);
    if (!(epsilon > 0)) throw new ArgumentError(name('epsilon'), epsilon, 'must be > 0');
    out.epsilon = epsilon;
  }
  if (has('window')) out.window = integerInRange(name('window'), o['window'], 1);
  if (has('maxSteps')) out.maxSteps = integerInRange(name('maxSteps'), o['maxSteps'], 1);
  if (has('seed')) out.seed = integerInRange(name('seed'), o['seed'], 0, 2 ** 32 - 1);
  const s = o['sequence'];
  if (s === null) out.sequence = null;
  else if (s !== undefined) {
    if (!Array.isArray(s) || s.some((id) => typeof id !== 'string'))
      throw new ArgumentTypeError(name('sequence'), s, 'must be an array of evidence ids');
    out.sequence = Object.freeze([...(s as string[])]);
  }
  return Object.freeze(out);
}

/**
 * Algorithm 1's parameters read off an options object that holds them — `epsilon`, `window`,
 * `maxSteps` required, `seed` default 0; other fields of `options` are not looked at — checked.
 * @throws {ArgumentError|ArgumentTypeError} options not an object, or a bad or missing field.
 */
export function runParamsOf(options: unknown): RunParams {
  if (typeof options !== 'object' || options === null)
    throw new ArgumentTypeError('options', options, 'must be an object');
  const o = options as Record<string, unknown>;
  const seed = o['seed'] ?? 0;
  return checkRunParams(
    { epsilon: o['epsilon'], window: o['window'], maxSteps: o['maxSteps'], seed },
    '',
    RUN_FIELDS,
  ) as RunParams;
}

/** Run parameters given explicitly: any subset; `sequence: null` asks for sampling. */
export type RunOverrides = { readonly [K in Exclude<keyof RunParams, 'sequence'>]?: RunParams[K] } & {
  readonly sequence?: readonly string[] | null;
};

/**
 * The run parameters for a system: each field from `overrides` when given, else from the
 * system's `runDefaults`, else from {@link DEFAULT_RUN}. A seed given without a sequence asks
 * for sampling: it clears a sequence the system's defaults present (the closed form's e1..e5).
 * @throws {ArgumentError|ArgumentTypeError} a bad override, naming it.
 * @example
 * ```ts
 * resolveRunParams(undefined, { epsilon: 0.01 }); // { epsilon: 0.01, window: 2, maxSteps: 100, seed: 0 }
 * ```
 */
export function resolveRunParams(systemDefaults: RunParams | undefined, overrides: RunOverrides = {}): RunParams {
  const o = checkRunParams(overrides);
  const base = systemDefaults ?? DEFAULT_RUN;
  const sampled = o.sequence === null || (o.sequence === undefined && o.seed !== undefined);
  // a default sequence of null (checkRunParams keeps it) asks for sampling too
  const sequence = sampled ? undefined : (o.sequence ?? base.sequence ?? undefined);
  return Object.freeze({
    epsilon: o.epsilon ?? base.epsilon,
    window: o.window ?? base.window,
    maxSteps: o.maxSteps ?? base.maxSteps,
    seed: o.seed ?? base.seed,
    ...(sequence !== undefined ? { sequence } : {}),
  });
}
