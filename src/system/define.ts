/**
 * Turns an {@link OperatorSystemSpec} into a validated {@link OperatorSystem}: the spec is
 * checked once (name, dim, functions, θ0, index sets), and every call of Q, P_e and P(·|θ) has
 * its result checked (length d, finite entries, a valid distribution), so a bug in a user's
 * operator surfaces as an error naming the operator instead of as NaN three steps later.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteVector, integerInRange } from '../util/validate.js';
import { CAPABILITY_KEYS, MOVED_FIELDS, checkCapabilities } from './capabilities.js';
import { checkCoordinateSet, coordinateArray } from './coordinates.js';
import { validateDistribution } from './distribution.js';
import type { CoordinateSet, EvidenceWeight, OperatorSystem, OperatorSystemSpec, SystemCapabilities } from './types.js';

/** The fields of a spec: the minimal contract, then the capabilities. */
const SPEC_KEYS: readonly string[] = [
  'name',
  'dim',
  'consolidate',
  'expand',
  'evidence',
  'theta0',
  'subspaces',
  'questions',
  'describeCoordinate',
  ...CAPABILITY_KEYS,
];

function checkIndexSets(name: string, sets: unknown, dim: number): Readonly<Record<string, CoordinateSet>> {
  if (sets === undefined) return Object.freeze({});
  if (typeof sets !== 'object' || sets === null || Array.isArray(sets)) {
    throw new ArgumentTypeError(name, sets, 'must be an object mapping names to coordinate index arrays');
  }
  const out: Record<string, CoordinateSet> = {};
  for (const [key, idx] of Object.entries(sets as Record<string, unknown>))
    out[key] = checkCoordinateSet(`${name}.${key}`, idx, dim);
  return Object.freeze(out);
}

/** Checks an operator's output: a vector of length dim with finite entries. */
function checkOutput(what: string, value: unknown, dim: number): Float64Array {
  if (!(value instanceof Float64Array) && !Array.isArray(value)) {
    throw new ArgumentTypeError(what, value, 'must return a Float64Array or an array of numbers');
  }
  return finiteVector(what, value, dim);
}

/** The hygienic spec a system carries → the user's spec it was built from (for extendSystem). */
const ORIGINAL_SPEC = new WeakMap<OperatorSystemSpec, OperatorSystemSpec>();

/**
 * The spec a system's hygienic spec was built from: its operators called on θ itself, without
 * the copy. Only for a caller that hands over an array it owns and does not read again (the
 * operator may write into it or return it). O(1).
 */
export function unguardedSpec(spec: OperatorSystemSpec): OperatorSystemSpec {
  return ORIGINAL_SPEC.get(spec) ?? spec;
}

/**
 * Operator hygiene: the spec with Q, P_e and P(·|θ) called on a fresh copy of θ, so an operator
 * that mutates its input cannot change the caller's state (a wrong fixed point, a shifted FD
 * base) and one that returns its input (`t => t`) returns an array nobody else holds (the FD
 * engines reuse their work vector between the two evaluations of a difference). Every path to
 * the operators — the validating wrapper and the raw operators of the Jacobian engines — goes
 * through this spec. Outputs are copied by those callers (`checkOutput`, `rawOperators`).
 * Cost: one block copy of θ per call.
 */
function hygienicSpec(spec: OperatorSystemSpec): OperatorSystemSpec {
  const q = spec.consolidate;
  const e = spec.expand;
  const ev = spec.evidence;
  const fresh = (theta: Float64Array): Float64Array =>
    theta instanceof Float64Array ? new Float64Array(theta) : Float64Array.from(theta as ArrayLike<number>);
  const out: OperatorSystemSpec = {
    ...spec,
    consolidate: (theta) => q(fresh(theta)),
    expand: (id, theta) => e(id, fresh(theta)),
    ...(typeof ev === 'function' ? { evidence: (theta: Float64Array) => ev(fresh(theta)) } : {}),
  };
  ORIGINAL_SPEC.set(out, spec);
  return out;
}

/**
 * Validates a system spec (the minimal contract and every declared capability) and wraps its
 * operators with output checks. `extra` attaches read-only fields a system family carries
 * beside the contract (the reference graph's scenario); they are set on the new frozen object,
 * so `system.consolidate` and `system.spec.consolidate` are always the same Q.
 * @throws {ArgumentError|ArgumentTypeError} naming the offending field of the spec; an unknown
 *   field is an error (a misspelt capability must not be ignored silently).
 * @example
 * ```ts
 * const sys = defineSystem({
 *   name: 'scalar', dim: 1,
 *   consolidate: (t) => [0.5 * t[0]],
 *   expand: (_e, t) => [t[0] + 1],
 *   evidence: [{ id: 'e', p: 1 }],
 * });
 * sys.consolidate(Float64Array.of(2)); // Float64Array [1]
 * ```
 */
export function defineSystem<X extends object = Record<never, never>>(
  specIn: OperatorSystemSpec,
  extra?: X,
): OperatorSystem & Readonly<X> {
  let spec = specIn;
  if (typeof spec !== 'object' || spec === null) throw new ArgumentTypeError('system', spec, 'must be an object');
  for (const key of Object.keys(spec)) {
    if (SPEC_KEYS.includes(key)) continue;
    const moved = MOVED_FIELDS[key];
    throw new ArgumentError(
      `system.${key}`,
      (spec as unknown as Record<string, unknown>)[key],
      moved
        ? `is declared as system.${moved} (docs/ARCHITECTURE.md, operator contract)`
        : 'is not a field of the operator contract',
    );
  }
  if (typeof spec.name !== 'string' || spec.name.length === 0) {
    throw new ArgumentTypeError('system.name', spec.name, 'must be a non-empty string');
  }
  const dim = integerInRange('system.dim', spec.dim, 1);
  if (typeof spec.consolidate !== 'function')
    throw new ArgumentTypeError('system.consolidate', spec.consolidate, 'must be a function (theta) => vector');
  if (typeof spec.expand !== 'function')
    throw new ArgumentTypeError('system.expand', spec.expand, 'must be a function (evidenceId, theta) => vector');
  if (typeof spec.evidence !== 'function' && !Array.isArray(spec.evidence)) {
    throw new ArgumentTypeError(
      'system.evidence',
      spec.evidence,
      'must be an array of {id, p} or a function (theta) => [{id, p}]',
    );
  }
  const fixedEvidence = Array.isArray(spec.evidence)
    ? validateDistribution('system.evidence', spec.evidence)
    : undefined;
  const theta0 = spec.theta0 === undefined ? undefined : finiteVector('system.theta0', spec.theta0, dim);
  const subspaces = checkIndexSets('system.subspaces', spec.subspaces, dim);
  const questions = Object.freeze(
    Object.fromEntries(
      Object.entries(checkIndexSets('system.questions', spec.questions, dim)).map(([q, set]) => [
        q,
        coordinateArray(set, `system.questions.${q}`),
      ]),
    ),
  );
  if (spec.describeCoordinate !== undefined && typeof spec.describeCoordinate !== 'function') {
    throw new ArgumentTypeError(
      'system.describeCoordinate',
      spec.describeCoordinate,
      'must be a function (index) => string',
    );
  }
  const name = spec.name;
  spec = hygienicSpec(spec);
  const capabilities = checkCapabilities(spec, dim, name, Object.keys(subspaces));
  const known = fixedEvidence ? new Set(fixedEvidence.map((e) => e.id)) : undefined;

  const evidenceAt = (theta: Float64Array): readonly EvidenceWeight[] => {
    if (fixedEvidence) return fixedEvidence;
    return validateDistribution(`${name}: evidence(theta)`, (spec.evidence as (t: Float64Array) => unknown)(theta));
  };

  const system: OperatorSystem = {
    name,
    dim,
    theta0,
    subspaces,
    questions,
    capabilities,
    spec,
    consolidate(theta: Float64Array): Float64Array {
      return checkOutput(`${name}: consolidate(theta)`, spec.consolidate(theta), dim);
    },
    expand(evidenceId: string, theta: Float64Array): Float64Array {
      if (known && !known.has(evidenceId)) {
        throw new ArgumentError(
          'evidenceId',
          evidenceId,
          `is not an evidence item of ${name} (known: ${[...known].join(', ')})`,
        );
      }
      return checkOutput(`${name}: expand(${JSON.stringify(evidenceId)}, theta)`, spec.expand(evidenceId, theta), dim);
    },
    evidenceAt,
    describeCoordinate(index: number): string {
      return spec.describeCoordinate ? spec.describeCoordinate(index) : `theta[${index}]`;
    },
  };
  if (extra !== undefined) {
    for (const key of Object.keys(extra))
      if (key in system) throw new ArgumentError('extra', key, 'would replace a field of the operator contract');
    Object.assign(system, extra);
  }
  return Object.freeze(system) as OperatorSystem & Readonly<X>;
}

/**
 * A new validated system from `system`'s spec with `capabilities` added or replaced: the whole
 * spec is validated again, so the result obeys the same contract as one built by
 * {@link defineSystem}. Fields attached with `extra` are not carried over.
 * @throws as {@link defineSystem}.
 * @example
 * ```ts
 * const fast = extendSystem(mine, { orderGap: (t, e) => myClosedForm(t, e) });
 * ```
 */
export function extendSystem(system: OperatorSystem, capabilities: SystemCapabilities): OperatorSystem {
  if (typeof capabilities !== 'object' || capabilities === null)
    throw new ArgumentTypeError('capabilities', capabilities, 'must be an object');
  for (const key of Object.keys(capabilities))
    if (!(CAPABILITY_KEYS as readonly string[]).includes(key))
      throw new ArgumentError(
        `capabilities.${key}`,
        (capabilities as Record<string, unknown>)[key],
        `is not a capability (known: ${CAPABILITY_KEYS.join(', ')})`,
      );
  return defineSystem({ ...unguardedSpec(system.spec), ...capabilities });
}

/** Checks a state vector against a system: length d, finite entries (copied). */
export function checkState(name: string, system: OperatorSystem, theta: unknown): Float64Array {
  return finiteVector(name, theta, system.dim);
}
