import { describe, expect, it } from 'vitest';
import { defineSystem, extendSystem } from '../../src/system/define.js';
import type {
  OperatorSystem,
  OperatorSystemSpec,
  StateCapability,
  SystemCapabilities,
} from '../../src/system/types.js';
import { ArgumentError, ArgumentTypeError } from '../../src/util/errors.js';

// Every rejection src/system/capabilities.ts can raise, each by the smallest spec or call that
// triggers it: declaration errors when the system is defined, result errors when a wrapped
// capability returns something wrong. Each message must start with the field it names.
const base: OperatorSystemSpec = {
  name: 'pair',
  dim: 2,
  theta0: [0.5, 0.5],
  consolidate: (t) => [0.5 * t[0]!, t[1]!],
  expand: (_e, t) => [t[0]!, t[1]! + 0.1],
  evidence: [{ id: 'e', p: 1 }],
  subspaces: { first: [0] },
};
const define = (caps: Record<string, unknown>): OperatorSystem =>
  defineSystem({ ...base, ...(caps as SystemCapabilities) });

/** A minimal valid state capability on the dense θ (a copy in a box), whose results `bad` may spoil. */
function stateCapability(bad: Partial<Record<string, unknown>> = {}): StateCapability<{ t: Float64Array }> {
  const cap: StateCapability<{ t: Float64Array }> = {
    initial: () => ({ t: Float64Array.of(0.5, 0.5) }),
    fromDense: (t) => ({ t: Float64Array.from(t) }),
    toDense: (s) => Float64Array.from(s.t),
    copy: (s) => ({ t: Float64Array.from(s.t) }),
    head: (s) => s.t,
    step: () => 0,
    orderGap: () => 0,
    orderGapEstimate: () => 0,
    estimateIsExact: true,
    expand: () => undefined,
    consolidate: () => undefined,
    evidenceAt: () => [{ id: 'e', p: 1 }],
    bytes: () => 16,
    entries: () => [],
  };
  return { ...cap, ...bad } as StateCapability<{ t: Float64Array }>;
}

describe('capability declarations are checked once, naming the field', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['orderGap not a function', { orderGap: 1 }, /^system\.orderGap = 1: must be a function/],
    ['step not a function', { step: 'x' }, /^system\.step = "x": must be a function/],
    ['linearization not an object', { linearization: [] }, /^system\.linearization = .*must be an object/],
    [
      'linearization unknown field',
      { linearization: { jacobian: 1 } },
      /^system\.linearization\.jacobian = 1: is not a field/,
    ],
    [
      'linearization.footprint',
      { linearization: { footprint: 2 } },
      /^system\.linearization\.footprint = 2: must be a function/,
    ],
    [
      'linearization.consolidateJacobian',
      { linearization: { consolidateJacobian: 2 } },
      /^system\.linearization\.consolidateJacobian = 2/,
    ],
    [
      'linearization.expandJacobian',
      { linearization: { expandJacobian: 2 } },
      /^system\.linearization\.expandJacobian = 2/,
    ],
    [
      'linearization.consolidateTf',
      { linearization: { consolidateTf: 2 } },
      /^system\.linearization\.consolidateTf = 2/,
    ],
    ['linearization.expandTf', { linearization: { expandTf: 2 } }, /^system\.linearization\.expandTf = 2/],
    ['state not an object', { state: 3 }, /^system\.state = 3: must be an object/],
    ['state unknown field', { state: { ...stateCapability(), extra: 1 } }, /^system\.state\.extra = 1: is not a field/],
    ['state.copyInto', { state: stateCapability({ copyInto: 1 }) }, /^system\.state\.copyInto = 1: must be a function/],
    ['state.residual', { state: stateCapability({ residual: 1 }) }, /^system\.state\.residual = 1: must be a function/],
    [
      'state.step missing',
      { state: stateCapability({ step: undefined }) },
      /^system\.state\.step = undefined: must be a function/,
    ],
    [
      'state.estimateIsExact',
      { state: stateCapability({ estimateIsExact: 'yes' }) },
      /^system\.state\.estimateIsExact = "yes": must be a boolean/,
    ],
    ['lipschitz not an object', { lipschitz: 0.5 }, /^system\.lipschitz = 0\.5: must be an object/],
    ['intervalForm not an object', { intervalForm: 1 }, /^system\.intervalForm = 1: must be an object/],
    [
      'intervalForm unknown field',
      { intervalForm: { consolidate: () => null, jacobian: 1 } },
      /^system\.intervalForm\.jacobian = 1: is not a field of system\.intervalForm/,
    ],
    [
      'intervalForm without consolidate',
      { intervalForm: {} },
      /^system\.intervalForm\.consolidate = undefined: must be a function/,
    ],
    [
      'intervalForm expand not a function',
      { intervalForm: { consolidate: () => null, expand: 2 } },
      /^system\.intervalForm\.expand = 2: must be a function/,
    ],
    [
      'lipschitz entry not an object',
      { lipschitz: { first: 'x' } },
      /^system\.lipschitz\.first = "x": must be an object/,
    ],
    [
      'lipschitz bound negative',
      { lipschitz: { first: -1 } },
      /^system\.lipschitz\.first\.bound = -1: must be a finite number >= 0/,
    ],
    ['lipschitz bound NaN', { lipschitz: { first: { bound: NaN } } }, /^system\.lipschitz\.first\.bound = NaN/],
    [
      'lipschitz derivation',
      { lipschitz: { first: { bound: 0.5, derivation: 1 } } },
      /^system\.lipschitz\.first\.derivation = 1: must be a string/,
    ],
    ['certification not an object', { certification: null }, /^system\.certification = null: must be an object/],
    [
      'certification unknown field',
      { certification: { policy: 1 } },
      /^system\.certification\.policy = 1: is not a field/,
    ],
    [
      'certification.subspaces not an array',
      { certification: { subspaces: 'first' } },
      /^system\.certification\.subspaces = "first"/,
    ],
    [
      'certification.subspaces undeclared',
      { certification: { subspaces: ['first', 'second'] } },
      /^system\.certification\.subspaces\[1\] = "second": is not a declared subspace/,
    ],
    [
      'certification.questionSpaces',
      { certification: { questionSpaces: 1 } },
      /^system\.certification\.questionSpaces = 1/,
    ],
    [
      'certification.boxes not an object',
      { certification: { boxes: 1 } },
      /^system\.certification\.boxes = 1: must be an object/,
    ],
    [
      'certification.boxes bound',
      { certification: { boxes: { first: { lower: 'a', upper: 1 } } } },
      /^system\.certification\.boxes\.first\.lower = "a": must be a number or an array/,
    ],
    [
      'certification.boxes NaN end',
      { certification: { boxes: { first: { lower: [NaN], upper: [1] } } } },
      /^system\.certification\.boxes\.first\.lower\[0\] = NaN: must be a finite number/,
    ],
    [
      'certification.boxes lower above upper',
      { certification: { boxes: { first: { lower: 2, upper: 1 } } } },
      /^system\.certification\.boxes\.first\.lower = 2: must be <= upper \(1\)/,
    ],
    [
      'certification.boxes ends of two lengths',
      { certification: { boxes: { first: { lower: [0, 0], upper: [1] } } } },
      /^system\.certification\.boxes\.first\.upper = .*must have the length of lower \(2\)/,
    ],
    [
      'certification.boxes of no block',
      { certification: { boxes: { nowhere: { lower: 0, upper: 1 } } } },
      /^system\.certification\.boxes = "nowhere": names no block \(known: all, first\)/,
    ],
    ['certification.boxAt', { certification: { boxAt: 1 } }, /^system\.certification\.boxAt = 1/],
    [
      'certification.consolidateOn',
      { certification: { consolidateOn: 1 } },
      /^system\.certification\.consolidateOn = 1/,
    ],
    [
      'certification.start',
      { certification: { start: 'now' } },
      /^system\.certification\.start = "now": must be 'theta0' or 'stop'/,
    ],
    ['runDefaults not an object', { runDefaults: 1 }, /^system\.runDefaults = 1: must be an object/],
    [
      'runDefaults missing field',
      { runDefaults: { epsilon: 0.1, window: 2, maxSteps: 10 } },
      /^system\.runDefaults\.seed = undefined: must be an integer/,
    ],
    [
      'runDefaults epsilon',
      { runDefaults: { epsilon: 0, window: 2, maxSteps: 10, seed: 0 } },
      /^system\.runDefaults\.epsilon = 0: must be > 0/,
    ],
    [
      'runDefaults unknown field',
      { runDefaults: { epsilon: 0.1, window: 2, maxSteps: 10, seed: 0, budget: 3 } },
      /^system\.runDefaults\.budget = 3: is not a run parameter/,
    ],
    [
      'runDefaults sequence',
      { runDefaults: { epsilon: 0.1, window: 2, maxSteps: 10, seed: 0, sequence: [1] } },
      /^system\.runDefaults\.sequence = .*must be an array of evidence ids/,
    ],
    ['describe not an object', { describe: 'x' }, /^system\.describe = "x": must be an object/],
    [
      'describe unknown field',
      { describe: { facts: () => ({}), text: 1 } },
      /^system\.describe\.text = 1: is not a field/,
    ],
    ['describe.facts missing', { describe: {} }, /^system\.describe\.facts = undefined: must be a function/],
    [
      'describe.summary',
      { describe: { facts: () => ({}), summary: 1 } },
      /^system\.describe\.summary = 1: must be a function/,
    ],
    ['describe.stateFacts', { describe: { facts: () => ({}), stateFacts: 1 } }, /^system\.describe\.stateFacts = 1/],
    [
      'describe.answer',
      { describe: { facts: () => ({}), answer: 1 } },
      /^system\.describe\.answer = 1: must be a function/,
    ],
  ];
  it.each(cases)('%s', (_name, caps, message) => {
    const err = (() => {
      try {
        define(caps);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err instanceof ArgumentError || err instanceof ArgumentTypeError).toBe(true);
    expect((err as Error).message).toMatch(message);
  });

  it('a moved top-level field names where it now belongs; extendSystem refuses a non-capability', () => {
    expect(() => defineSystem({ ...base, footprint: () => [] } as never)).toThrow(
      /^system\.footprint = .*is declared as system\.linearization\.footprint/,
    );
    expect(() => extendSystem(define({}), { speed: 1 } as never)).toThrow(
      /^capabilities\.speed = 1: is not a capability/,
    );
  });
});

describe('wrapped capabilities check their results, naming the call', () => {
  const theta = Float64Array.of(0.5, 0.5);

  it('orderGap and step', () => {
    expect(() => define({ orderGap: () => -1 }).capabilities.orderGap!(theta, 'e')).toThrow(
      /^pair: orderGap\(theta, "e"\) = -1: must be a finite number >= 0/,
    );
    const step = (r: unknown) => define({ step: () => r }).capabilities.step!(theta, 'e');
    expect(() => step(null)).toThrow(/^pair: step\(theta, "e"\) = null: must return \{ omega, next \}/);
    expect(() => step({ omega: Infinity, next: theta })).toThrow(/^pair: step\(theta, "e"\)\.omega = Infinity/);
    expect(() => step({ omega: 0, next: [0, 0] })).toThrow(
      /^pair: step\(theta, "e"\)\.next = .*Float64Array of length 2/,
    );
    expect(() => step({ omega: 0, next: Float64Array.of(0, NaN) })).toThrow(
      /^pair: step\(theta, "e"\)\.next\[1\] = NaN/,
    );
    // the capabilities get a copy of θ and give back their own: writing into θ, or returning it, is harmless
    const mine = Float64Array.of(0.5, 0.5);
    define({ orderGap: (t: Float64Array) => ((t[1] = 9), 0) }).capabilities.orderGap!(mine, 'e');
    const r = define({ step: (t: Float64Array) => ((t[0] = 7), { omega: 0, next: t }) }).capabilities.step!(mine, 'e');
    expect(Array.from(mine)).toEqual([0.5, 0.5]);
    expect(r.next).not.toBe(mine);
    expect(Array.from(r.next)).toEqual([7, 0.5]);
  });

  it('linearization.footprint', () => {
    const fp = (r: unknown) =>
      define({ linearization: { footprint: () => r } }).capabilities.linearization!.footprint!('e');
    expect(() => fp('0')).toThrow(/^pair: linearization\.footprint\("e"\) = "0": must return an array/);
    expect(() => fp([0, 2])).toThrow(
      /^pair: linearization\.footprint\("e"\)\[1\] = 2: must be a distinct index in \[0, 2\)/,
    );
    expect(() => fp([1, 1])).toThrow(/^pair: linearization\.footprint\("e"\)\[1\] = 1: must be a distinct index/);
    expect(fp(Int32Array.of(1, 0))).toEqual([1, 0]);
  });

  it('state: Ω, the head after a change, the residual, P(·|θ)', () => {
    const st = (bad: Partial<Record<string, unknown>>) => define({ state: stateCapability(bad) }).capabilities.state!;
    const s = { t: Float64Array.of(0.5, 0.5) };
    expect(() => st({ step: () => -0.5 }).step(s, 'e')).toThrow(/^pair: state\.step\(state, "e"\) = -0\.5/);
    expect(() => st({ orderGap: () => NaN }).orderGap(s, 'e')).toThrow(/^pair: state\.orderGap\(state, "e"\) = NaN/);
    expect(() => st({ orderGapEstimate: () => 'x' }).orderGapEstimate(s, 'e')).toThrow(
      /^pair: state\.orderGapEstimate\(state, "e"\) = "x"/,
    );
    expect(() => st({ residual: () => -1 }).residual!(s, 'e')).toThrow(/^pair: state\.residual\(state, "e"\) = -1/);
    const broken = { t: Float64Array.of(0.5, Infinity) };
    expect(() => st({}).consolidate(broken)).toThrow(/^pair: state\.consolidate\(state\) -> theta\[1\] = Infinity/);
    expect(() => st({}).expand(broken, 'e')).toThrow(/^pair: state\.expand\(state, "e"\) -> theta\[1\]/);
    expect(() => st({ head: () => [0, 0] }).step(s, 'e')).toThrow(/^pair: state\.head = .*must be a Float64Array/);
    expect(() => st({ evidenceAt: () => [{ id: 'e', p: 2 }] }).evidenceAt(s)).toThrow(
      /^pair: state\.evidenceAt\(state\)/,
    );
  });

  it('describe: facts, summaries, counts and answers', () => {
    const d = (caps: Record<string, unknown>) =>
      define({ describe: { facts: () => ({}), ...caps } }).capabilities.describe!;
    expect(() => d({ facts: () => ({ k: NaN }) }).facts()).toThrow(
      /^pair: describe\.facts\(\)\.k = NaN: must be a finite number or a string/,
    );
    expect(() => d({ facts: () => 3 }).facts()).toThrow(/^pair: describe\.facts\(\) = 3: must be an object/);
    expect(() => d({ summary: () => null }).summary!(theta, 0.5)).toThrow(
      /^pair: describe\.summary\(state, 0\.5\) = null/,
    );
    expect(() => d({ stateFacts: () => ({ stored: 'many' }) }).stateFacts!(theta)).toThrow(
      /^pair: describe\.stateFacts\(state\)\.stored = "many": must be a finite number/,
    );
    expect(() => d({ answer: () => ({ answer: 3, confidence: 0.5 }) }).answer!(theta)).toThrow(
      /^pair: describe\.answer\(head\)\.answer = 3: must be a string or null/,
    );
    expect(() => d({ answer: () => ({ answer: 'a', confidence: 1.5 }) }).answer!(theta)).toThrow(
      /^pair: describe\.answer\(head\)\.confidence = 1\.5: must be a number in \[0, 1\]/,
    );
    expect(d({ facts: () => ({ k: 4, name: 'x' }) }).facts()).toEqual({ k: 4, name: 'x' });
    // an async describe function gives a Promise, not facts: refused, not read as {}
    expect(() => d({ facts: async () => ({ k: 3 }) }).facts()).toThrow(
      /^pair: describe\.facts\(\) = .*must be an object, not a Promise/,
    );
    expect(() => d({ summary: async () => ({}) }).summary!(theta, 0.5)).toThrow(/not a Promise/);
  });
});
