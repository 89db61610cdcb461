/**
 * Validation of the optional capabilities of an operator system ({@link SystemCapabilities}):
 * each declared field is checked once for its type, and the capabilities that return results
 * are wrapped so a wrong result (a non-finite Ω, a next state of the wrong length) is an error
 * naming the capability, as for Q and P_e.
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { firstNonFinite } from '../util/validate.js';
import { validateDistribution } from './distribution.js';
import { RUN_FIELDS, checkRunParams, type RunParams } from './runParams.js';
import type {
  CertificationPolicy,
  DescribeCapability,
  StateCapability,
  LinearizationCapability,
  LipschitzDeclaration,
  IntervalFormCapability,
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
  'intervalForm',
  'certification',
  'runDefaults',
  'describe',
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
  // an async function's result: the object it would give is not there yet
  if (typeof (v as { then?: unknown }).then === 'function')
    throw new ArgumentTypeError(name, v, 'must be an object, not a Promise (the function must not be async)');
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

function checkIntervalForm(v: unknown): IntervalFormCapability {
  const o = plainObject('system.intervalForm', v);
  knownKeys('system.intervalForm', o, ['consolidate', 'expand']);
  if (typeof o['consolidate'] !== 'function')
    throw new ArgumentTypeError(
      'system.intervalForm.consolidate',
      o['consolidate'],
      'must be a function (lo, hi, seeds, rows) => { lo, hi, jacobian }',
    );
  fn('system.intervalForm.expand', o['expand'], '(evidenceId, lo, hi, seeds, rows) => { lo, hi, jacobian }');
  return Object.freeze({ ...(o as unknown as IntervalFormCapability) });
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
  knownKeys('system.state', o, [...STATE_FUNCTIONS, 'estimateIsExact', 'copyInto', 'residual']);
  for (const f of ['copyInto', 'residual'])
    if (o[f] !== undefined && typeof o[f] !== 'function')
      throw new ArgumentTypeError(`system.state.${f}`, o[f], 'must be a function');
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
    ...(st.residual
      ? {
          residual: (s: unknown, id: string) =>
            omegaOf(`state.residual(state, ${JSON.stringify(id)})`, st.residual!(s, id)),
        }
      : {}),
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

/**
 * A declared box of a contraction block: `lower` and `upper` each a finite number or an array of
 * finite numbers (arrays of one length), lower <= upper at every coordinate.
 */
function checkBox(name: string, v: unknown): StateBox {
  const o = plainObject(name, v);
  // each end as its list of finite numbers (a number stands for every coordinate)
  const ends = (['lower', 'upper'] as const).map((side) => {
    const b = o[side];
    if (typeof b !== 'number' && !(typeof b === 'object' && b !== null && 'length' in b))
      throw new ArgumentTypeError(`${name}.${side}`, b, 'must be a number or an array of numbers');
    const list = typeof b === 'number' ? [b] : Array.from(b as ArrayLike<unknown>);
    list.forEach((x, k) => {
      if (typeof x !== 'number' || !Number.isFinite(x))
        throw new ArgumentError(
          typeof b === 'number' ? `${name}.${side}` : `${name}.${side}[${k}]`,
          x,
          'must be a finite number',
        );
    });
    return { list: list as number[], scalar: typeof b === 'number' };
  });
  const [lo, hi] = ends as [(typeof ends)[number], (typeof ends)[number]];
  if (!lo.scalar && !hi.scalar && lo.list.length !== hi.list.length)
    throw new ArgumentError(`${name}.upper`, o['upper'], `must have the length of lower (${lo.list.length})`);
  const n = Math.max(lo.list.length, hi.list.length);
  for (let k = 0; k < n; k++) {
    const [l, h] = [lo.list[lo.scalar ? 0 : k]!, hi.list[hi.scalar ? 0 : k]!];
    if (!(l <= h)) throw new ArgumentError(`${name}.lower`, l, `must be <= upper (${h}) at coordinate ${k}`);
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
    for (const k of Object.keys(b))
      if (k !== 'all' && !subspaces.includes(k))
        throw new ArgumentError(
          'system.certification.boxes',
          k,
          `names no block (known: all, ${subspaces.join(', ')})`,
        );
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

function checkRunDefaults(v: unknown): RunParams {
  plainObject('system.runDefaults', v);
  return checkRunParams(v, 'system.runDefaults', RUN_FIELDS) as RunParams;
}

/** A record of facts: finite numbers or strings, checked when read. */
function checkFacts(what: string, v: unknown, allowText: boolean): Readonly<Record<string, number | string>> {
  const o = plainObject(what, v);
  for (const [k, x] of Object.entries(o))
    if (!((typeof x === 'number' && Number.isFinite(x)) || (allowText && typeof x === 'string')))
      throw new ArgumentError(
        `${what}.${k}`,
        x,
        allowText ? 'must be a finite number or a string' : 'must be a finite number',
      );
  return Object.freeze({ ...(o as Record<string, number | string>) });
}

/** A state's leading answer as `describe.answer` returns it: a string or null, and a confidence in [0, 1]. */
function checkAnswer(name: string, r: unknown): { answer: string | null; confidence: number } {
  const o = plainObject(`${name}: describe.answer(head)`, r);
  if (o['answer'] !== null && typeof o['answer'] !== 'string')
    throw new ArgumentTypeError(`${name}: describe.answer(head).answer`, o['answer'], 'must be a string or null');
  const c = o['confidence'];
  if (typeof c !== 'number' || !(c >= 0 && c <= 1))
    throw new ArgumentError(`${name}: describe.answer(head).confidence`, c, 'must be a number in [0, 1]');
  return o as { answer: string | null; confidence: number };
}

/** The describe capability, wrapped so its results are checked (facts finite or text, a summary an object). */
function checkDescribe(v: unknown, name: string): DescribeCapability {
  const o = plainObject('system.describe', v);
  knownKeys('system.describe', o, ['facts', 'summary', 'stateFacts', 'answer']);
  if (typeof o['facts'] !== 'function')
    throw new ArgumentTypeError('system.describe.facts', o['facts'], 'must be a function () => facts');
  fn('system.describe.summary', o['summary'], '(state, delta) => StateSummary');
  fn('system.describe.stateFacts', o['stateFacts'], '(state) => counts');
  fn('system.describe.answer', o['answer'], '(head) => { answer, confidence }');
  const d = o as unknown as DescribeCapability;
  const out: DescribeCapability = {
    facts: () => checkFacts(`${name}: describe.facts()`, d.facts(), true),
    ...(d.summary
      ? {
          summary: (state: unknown, delta: number) => {
            const r = d.summary!(state, delta);
            plainObject(`${name}: describe.summary(state, ${delta})`, r);
            return r;
          },
        }
      : {}),
    ...(d.stateFacts
      ? {
          stateFacts: (state: unknown) =>
            checkFacts(`${name}: describe.stateFacts(state)`, d.stateFacts!(state), false) as Readonly<
              Record<string, number>
            >,
        }
      : {}),
    ...(d.answer ? { answer: (head: Float64Array) => checkAnswer(name, d.answer!(head)) } : {}),
  };
  return Object.freeze(out);
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
  // the user's capabilities get a copy of θ and hand back copies, as Q and P_e do (define.ts): an
  // operator that writes into its argument or returns it changes nothing of the caller's
  const og = spec.orderGap;
  if (og)
    out.orderGap = (theta, id) => {
      const omega = og(Float64Array.from(theta), id);
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
      const r = st(Float64Array.from(theta), id);
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
      return { omega: r.omega, next: Float64Array.from(r.next) };
    };
  if (spec.state !== undefined) out.state = checkState(spec.state, name);
  if (spec.linearization !== undefined) out.linearization = checkLinearization(spec.linearization, dim, name);
  if (spec.lipschitz !== undefined) out.lipschitz = checkLipschitz(spec.lipschitz);
  if (spec.intervalForm !== undefined) out.intervalForm = checkIntervalForm(spec.intervalForm);
  if (spec.certification !== undefined) out.certification = checkCertification(spec.certification, subspaces);
  if (spec.runDefaults !== undefined) out.runDefaults = checkRunDefaults(spec.runDefaults);
  if (spec.describe !== undefined) out.describe = checkDescribe(spec.describe, name);
  return Object.freeze(out);
}
