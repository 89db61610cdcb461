/**
 * Validation of the optional capabilities of an operator system ({@link SystemCapabilities}):
 * each declared field is checked once for its type, and the capabilities that return results
 * are wrapped so a wrong result (a non-finite Ω, a next state of the wrong length) is an error
 * naming the capability, as for Q and P_e.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber, firstNonFinite, integerInRange } from '../util/validate.js';
import { validateDistribution } from './distribution.js';
import type {
  CertificationPolicy,
  StateCapability,
  LinearizationCapability,
  LipschitzDeclaration,
  RunDefaults,
  StateBox,
  SystemCapabilities,
} from './types.js';

/** The capability keys of a spec, in declaration order. */
export const CAPABILITY_KEYS = [
  'orderGap',
  'step',
  'state',
  'linearization',
  'lipschitz',
  'certification',
  'runDefaults',
] as const satisfies readonly (keyof SystemCapabilities)[];

/** Spec fields that used to sit at the top level and now belong to a capability. */
export const MOVED_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  footprint: 'linearization.footprint',
  consolidateTf: 'linearization.consolidateTf',
  expandTf: 'linearization.expandTf',
  consolidateJacobianFd: 'linearization.consolidateJacobian',
});

const fn = (name: string, v: unknown, shape: string): void => {
  if (v !== undefined && typeof v !== 'function') throw new ArgumentTypeError(name, v, `must be a function ${shape}`);
};

const plainObject = (name: string, v: unknown): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ArgumentTypeError(name, v, 'must be an object');
  return v as Record<string, unknown>;
};

function knownKeys(name: string, obj: Record<string, unknown>, known: readonly string[]): void {
  for (const k of Object.keys(obj))
    if (!known.includes(k))
      throw new ArgumentError(`${name}.${k}`, obj[k], `is not a field of ${name} (known: ${known.join(', ')})`);
}

function checkLinearization(v: unknown, dim: number, system: string): LinearizationCapability {
  const o = plainObject('system.linearization', v);
  knownKeys('system.linearization', o, [
    'footprint',
    'consolidateJacobian',
    'expandJacobian',
    'consolidateTf',
    'expandTf',
  ]);
  fn('system.linearization.footprint', o['footprint'], '(evidenceId) => coordinate indices');
  fn('system.linearization.consolidateJacobian', o['consolidateJacobian'], '(x) => JacobianOperator | undefined');
  fn('system.linearization.expandJacobian', o['expandJacobian'], '(evidenceId, x) => JacobianOperator | undefined');
  fn('system.linearization.consolidateTf', o['consolidateTf'], '(tf, X) => Tensor2D');
  fn('system.linearization.expandTf', o['expandTf'], '(tf, evidenceId, X) => Tensor2D');
  const out: { -readonly [K in keyof LinearizationCapability]: LinearizationCapability[K] } = {};
  const footprint = o['footprint'] as LinearizationCapability['footprint'];
  if (footprint)
    out.footprint = (id) => {
      const f: unknown = footprint(id);
      const what = `${system}: linearization.footprint(${JSON.stringify(id)})`;
      if (!Array.isArray(f) && !(f instanceof Int32Array))
        throw new ArgumentTypeError(what, f, 'must return an array of coordinate indices');
      const seen = new Set<number>();
      const arr = f as ArrayLike<number>;
      for (let k = 0; k < arr.length; k++) {
        const j = arr[k]!;
        if (!(Number.isInteger(j) && j >= 0 && j < dim) || seen.has(j))
          throw new ArgumentError(`${what}[${k}]`, j, `must be a distinct index in [0, ${dim})`);
        seen.add(j);
      }
      return Array.from(arr);
    };
  const jac = o['consolidateJacobian'] as LinearizationCapability['consolidateJacobian'];
  if (jac) out.consolidateJacobian = jac;
  const ejac = o['expandJacobian'] as LinearizationCapability['expandJacobian'];
  if (ejac) out.expandJacobian = ejac;
  if (o['consolidateTf']) out.consolidateTf = o['consolidateTf'] as LinearizationCapability['consolidateTf'];
  if (o['expandTf']) out.expandTf = o['expandTf'] as LinearizationCapability['expandTf'];
  return Object.freeze(out);
}

const STATE_FUNCTIONS = [
  'initial',
  'fromDense',
  'toDense',
  'copy',
  'head',
  'step',
  'orderGap',
  'orderGapEstimate',
  'expand',
  'consolidate',
  'evidenceAt',
  'bytes',
  'entries',
] as const;

/**
 * The state capability, wrapped so every result is checked at the cost of what it touches: Ω
 * finite and >= 0; after a step, an expansion or a consolidation, the dense head (the entries
 * every operator rewrites: the graph's node block) finite — never a scan of d coordinates;
 * P(·|θ) validated as a distribution.
 */
function checkState(v: unknown, name: string): StateCapability {
  const o = plainObject('system.state', v);
  knownKeys('system.state', o, [...STATE_FUNCTIONS, 'estimateIsExact', 'copyInto']);
  if (o['copyInto'] !== undefined && typeof o['copyInto'] !== 'function')
    throw new ArgumentTypeError('system.state.copyInto', o['copyInto'], 'must be a function');
  for (const f of STATE_FUNCTIONS) {
    if (typeof o[f] !== 'function') throw new ArgumentTypeError(`system.state.${f}`, o[f], 'must be a function');
  }
  if (typeof o['estimateIsExact'] !== 'boolean')
    throw new ArgumentTypeError('system.state.estimateIsExact', o['estimateIsExact'], 'must be a boolean');
  const st = o as unknown as StateCapability;
  const omegaOf = (what: string, omega: unknown): number => {
    if (typeof omega !== 'number' || !(omega >= 0) || !Number.isFinite(omega))
      throw new ArgumentError(`${name}: ${what}`, omega, 'must be a finite number >= 0');
    return omega;
  };
  const headFinite = (what: string, state: unknown): void => {
    const h = st.head(state);
    if (!(h instanceof Float64Array)) throw new ArgumentTypeError(`${name}: state.head`, h, 'must be a Float64Array');
    const i = firstNonFinite(h);
    if (i >= 0) {
      throw new ArgumentError(
        `${name}: ${what} -> theta[${i}]`,
        h[i],
        'must be finite (NaN and ±Infinity are rejected)',
      );
    }
  };
  const out: StateCapability = {
    initial: () => st.initial(),
    fromDense: (t) => st.fromDense(t),
    toDense: (s) => st.toDense(s),
    copy: (s) => st.copy(s),
    ...(st.copyInto ? { copyInto: (s: unknown, into: unknown) => st.copyInto!(s, into) } : {}),
    head: (s) => st.head(s),
    step: (s, id) => {
      const omega = omegaOf(`state.step(state, ${JSON.stringify(id)})`, st.step(s, id));
      headFinite(`state.step(state, ${JSON.stringify(id)})`, s);
      return omega;
    },
    orderGap: (s, id) => omegaOf(`state.orderGap(state, ${JSON.stringify(id)})`, st.orderGap(s, id)),
    orderGapEstimate: (s, id) =>
      omegaOf(`state.orderGapEstimate(state, ${JSON.stringify(id)})`, st.orderGapEstimate(s, id)),
    estimateIsExact: st.estimateIsExact,
    expand: (s, id) => {
      st.expand(s, id);
      headFinite(`state.expand(state, ${JSON.stringify(id)})`, s);
    },
    consolidate: (s) => {
      st.consolidate(s);
      headFinite('state.consolidate(state)', s);
    },
    evidenceAt: (s) => validateDistribution(`${name}: state.evidenceAt(state)`, st.evidenceAt(s)),
    bytes: (s) => st.bytes(s),
    entries: (s) => st.entries(s),
  };
  return Object.freeze(out);
}

function checkLipschitz(v: unknown): Readonly<Record<string, LipschitzDeclaration>> {
  const o = plainObject('system.lipschitz', v);
  const out: Record<string, LipschitzDeclaration> = {};
  for (const [k, d] of Object.entries(o)) {
    // a bare number is accepted as { bound } (the short form of an operator module)
    const decl = typeof d === 'number' ? { bound: d } : plainObject(`system.lipschitz.${k}`, d);
    const bound = (decl as { bound?: unknown }).bound;
    if (typeof bound !== 'number' || !Number.isFinite(bound) || bound < 0)
      throw new ArgumentError(`system.lipschitz.${k}.bound`, bound, 'must be a finite number >= 0');
    const derivation = (decl as { derivation?: unknown }).derivation;
    if (derivation !== undefined && typeof derivation !== 'string')
      throw new ArgumentTypeError(`system.lipschitz.${k}.derivation`, derivation, 'must be a string');
    out[k] = Object.freeze(derivation === undefined ? { bound } : { bound, derivation });
  }
  return Object.freeze(out);
}

function checkBox(name: string, v: unknown): StateBox {
  const o = plainObject(name, v);
  for (const side of ['lower', 'upper'] as const) {
    const b = o[side];
    if (typeof b !== 'number' && !(typeof b === 'object' && b !== null && 'length' in b))
      throw new ArgumentTypeError(`${name}.${side}`, b, 'must be a number or an array of numbers');
  }
  return o as unknown as StateBox;
}

function checkCertification(v: unknown, subspaces: readonly string[]): CertificationPolicy {
  const o = plainObject('system.certification', v);
  knownKeys('system.certification', o, ['subspaces', 'questionSpaces', 'boxes', 'boxAt', 'start', 'consolidateOn']);
  const out: { -readonly [K in keyof CertificationPolicy]: CertificationPolicy[K] } = {};
  if (o['subspaces'] !== undefined) {
    const s = o['subspaces'];
    if (!Array.isArray(s))
      throw new ArgumentTypeError('system.certification.subspaces', s, 'must be an array of names');
    s.forEach((n, i) => {
      if (n !== 'all' && !subspaces.includes(n as string))
        throw new ArgumentError(
          `system.certification.subspaces[${i}]`,
          n,
          `is not a declared subspace (known: all, ${subspaces.join(', ')})`,
        );
    });
    out.subspaces = Object.freeze([...(s as string[])]);
  }
  fn('system.certification.questionSpaces', o['questionSpaces'], '(theta) => Subspace[]');
  if (o['questionSpaces']) out.questionSpaces = o['questionSpaces'] as CertificationPolicy['questionSpaces'];
  if (o['boxes'] !== undefined) {
    const b = plainObject('system.certification.boxes', o['boxes']);
    out.boxes = Object.freeze(
      Object.fromEntries(Object.entries(b).map(([k, x]) => [k, checkBox(`system.certification.boxes.${k}`, x)])),
    );
  }
  fn('system.certification.boxAt', o['boxAt'], '(block, theta, radius) => {lower, upper} | undefined');
  if (o['boxAt']) out.boxAt = o['boxAt'] as CertificationPolicy['boxAt'];
  fn('system.certification.consolidateOn', o['consolidateOn'], '(base, block) => ConsolidationEngine | undefined');
  if (o['consolidateOn']) out.consolidateOn = o['consolidateOn'] as CertificationPolicy['consolidateOn'];
  if (o['start'] !== undefined) {
    if (o['start'] !== 'theta0' && o['start'] !== 'stop')
      throw new ArgumentError('system.certification.start', o['start'], "must be 'theta0' or 'stop'");
    out.start = o['start'];
  }
  return Object.freeze(out);
}

function checkRunDefaults(v: unknown): RunDefaults {
  const o = plainObject('system.runDefaults', v);
  knownKeys('system.runDefaults', o, ['epsilon', 'window', 'maxSteps', 'seed']);
  const epsilon = finiteNumber('system.runDefaults.epsilon', o['epsilon']);
  if (!(epsilon > 0)) throw new ArgumentError('system.runDefaults.epsilon', epsilon, 'must be > 0');
  return Object.freeze({
    epsilon,
    window: integerInRange('system.runDefaults.window', o['window'], 1),
    maxSteps: integerInRange('system.runDefaults.maxSteps', o['maxSteps'], 1),
    seed: integerInRange('system.runDefaults.seed', o['seed'], 0, 2 ** 32 - 1),
  });
}

/**
 * Validates the capabilities declared on a spec and returns them, wrapped where they return
 * results. `dim` and `name` are the spec's (already validated); `subspaces` its declared names.
 * @throws {ArgumentError|ArgumentTypeError} naming the offending field, e.g.
 *   `system.certification.subspaces[1]`.
 */
export function checkCapabilities(
  spec: SystemCapabilities,
  dim: number,
  name: string,
  subspaces: readonly string[],
): Readonly<SystemCapabilities> {
  const out: { -readonly [K in keyof SystemCapabilities]: SystemCapabilities[K] } = {};
  fn('system.orderGap', spec.orderGap, '(theta, evidenceId) => number');
  fn('system.step', spec.step, '(theta, evidenceId) => { omega, next }');
  const og = spec.orderGap;
  if (og)
    out.orderGap = (theta, id) => {
      const omega = og(theta, id);
      if (typeof omega !== 'number' || !(omega >= 0) || !Number.isFinite(omega))
        throw new ArgumentError(
          `${name}: orderGap(theta, ${JSON.stringify(id)})`,
          omega,
          'must be a finite number >= 0',
        );
      return omega;
    };
  const st = spec.step;
  if (st)
    out.step = (theta, id) => {
      const r = st(theta, id);
      const what = `${name}: step(theta, ${JSON.stringify(id)})`;
      if (typeof r !== 'object' || r === null) throw new ArgumentTypeError(what, r, 'must return { omega, next }');
      if (typeof r.omega !== 'number' || !(r.omega >= 0) || !Number.isFinite(r.omega))
        throw new ArgumentError(`${what}.omega`, r.omega, 'must be a finite number >= 0');
      if (!(r.next instanceof Float64Array) || r.next.length !== dim)
        throw new ArgumentError(`${what}.next`, r.next, `must be a Float64Array of length ${dim}`);
      const i = firstNonFinite(r.next);
      if (i >= 0) {
        throw new ArgumentError(`${what}.next[${i}]`, r.next[i], 'must be finite (NaN and ±Infinity are rejected)');
      }
      return r;
    };
  if (spec.state !== undefined) out.state = checkState(spec.state, name);
  if (spec.linearization !== undefined) out.linearization = checkLinearization(spec.linearization, dim, name);
  if (spec.lipschitz !== undefined) out.lipschitz = checkLipschitz(spec.lipschitz);
  if (spec.certification !== undefined) out.certification = checkCertification(spec.certification, subspaces);
  if (spec.runDefaults !== undefined) out.runDefaults = checkRunDefaults(spec.runDefaults);
  return Object.freeze(out);
}
