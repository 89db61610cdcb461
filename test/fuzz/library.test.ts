// Fuzzing the main library entry points on generated bad and edge-case inputs: each call either
// returns a valid result or throws an ArgumentError / ArgumentTypeError naming the argument (or,
// for a user operator that throws, the user's own error) — never a TypeError or RangeError from
// inside the library, never a hang, never an allocation the input's size did not justify.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import { init } from '../../src/wasm/module.js';
import { defineSystem } from '../../src/system/define.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { checkPoolAtStop } from '../../src/ordergap/poolCheck.js';
import { parseGraph } from '../../src/graph/model/schema.js';
import { createScenario } from '../../src/graph/scenarios/scenario.js';
import { validateDistribution } from '../../src/system/distribution.js';
import { parseSamples } from '../../src/lab/samples.js';
import { reportJson } from '../../src/report/json.js';
import { isArgumentError } from '../../src/util/errors.js';
import * as linalg from '../../src/linalg/index.js';
import type { OperatorSystemSpec } from '../../src/system/types.js';
import { budget, LIMITS, TEST_TIMEOUT } from './budget.js';
import { applyMutations, mutation, weirdValue } from './inputs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const graphDoc = JSON.parse(readFileSync(join(root, 'examples/scenario/graph.json'), 'utf8')) as unknown;
const evidenceDoc = JSON.parse(readFileSync(join(root, 'examples/scenario/evidence.json'), 'utf8')) as unknown;

beforeAll(async () => {
  process.env['ORDERGAP_MEMORY_LIMIT'] = String(LIMITS.memoryLimitBytes);
  await init();
});

class UserBug extends Error {}

/** Runs `f`; an argument error (or the user's own UserBug) is an accepted outcome, anything else fails. */
function accepts(what: string, f: () => unknown): unknown {
  const t0 = performance.now();
  let result: unknown;
  let failure: Error | undefined;
  try {
    result = f();
  } catch (e) {
    if (!isArgumentError(e) && !(e instanceof UserBug))
      failure = new Error(`${what}: threw ${(e as Error)?.name}: ${(e as Error)?.message}`);
    else if (/\n/.test((e as Error).message))
      failure = new Error(`${what}: message is not one line: ${(e as Error).message}`);
  }
  const ms = performance.now() - t0;
  if (ms > LIMITS.caseMs) failure ??= new Error(`${what}: took ${ms.toFixed(0)} ms`);
  if (process.memoryUsage.rss() > LIMITS.rssBytes) failure ??= new Error(`${what}: RSS ${process.memoryUsage.rss()}`);
  if (failure) throw failure;
  return result;
}

const vectorOf = (n: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: n, maxLength: n }),
    fc.array(fc.double(), { minLength: 0, maxLength: n + 1 }),
    weirdValue,
  );

const operatorOf = (d: number): fc.Arbitrary<(t: Float64Array) => unknown> =>
  fc.constantFrom<(t: Float64Array) => unknown>(
    (t) => Array.from(t, (x) => 0.5 * x),
    (t) => Array.from(t, (x) => 2 * x + 1), // never converges
    (t) => {
      t[0] = 0; // mutates its input
      return Array.from(t);
    },
    () => new Float64Array(d + 1),
    () => [NaN, ...new Array<number>(d - 1).fill(0)],
    () => Promise.resolve([0]),
    () => {
      throw new UserBug('operator failed');
    },
    () => undefined,
  );

describe('fuzz: library entry points', () => {
  it(
    'defineSystem + runRecursive + checkPoolAtStop on generated specs and options',
    () => {
      const d = 3;
      const spec = fc.record({
        name: fc.oneof(fc.constant('s'), weirdValue),
        dim: fc.oneof(fc.constant(d), weirdValue),
        consolidate: fc.oneof(operatorOf(d), weirdValue),
        expand: fc.oneof(
          operatorOf(d).map((f) => (_e: string, t: Float64Array) => f(t)),
          weirdValue,
        ),
        evidence: fc.oneof(
          fc.constant([
            { id: 'a', p: 0.25 },
            { id: 'b', p: 0.75 },
          ]),
          fc.array(
            fc.record({ id: fc.oneof(fc.constantFrom('a', 'b'), weirdValue), p: fc.oneof(fc.double(), weirdValue) }),
            { maxLength: 3 },
          ),
          weirdValue,
        ),
        theta0: fc.oneof(vectorOf(d), fc.constant(undefined)),
        subspaces: fc.oneof(
          fc.constant(undefined),
          fc.dictionary(
            fc.constantFrom('w', 'v'),
            fc.array(fc.oneof(fc.integer({ min: -1, max: 4 }), weirdValue), { maxLength: 4 }),
          ),
        ),
      });
      const options = fc.record({
        epsilon: fc.oneof(fc.constant(0.01), weirdValue),
        window: fc.oneof(fc.constant(2), weirdValue),
        maxSteps: fc.oneof(
          fc.integer({ min: 1, max: 30 }),
          weirdValue.filter((v) => !(typeof v === 'number' && v > 1000)),
        ),
        seed: fc.oneof(fc.nat(), weirdValue),
      });
      fc.assert(
        fc.property(spec, options, (s, o) => {
          const clean = Object.fromEntries(
            Object.entries(s).filter(([, v]) => v !== undefined),
          ) as unknown as OperatorSystemSpec;
          const system = accepts('defineSystem', () => defineSystem(clean)) as
            | ReturnType<typeof defineSystem>
            | undefined;
          if (!system) return;
          const run = accepts('runRecursive', () => runRecursive(system, o as never)) as
            | ReturnType<typeof runRecursive>
            | undefined;
          if (run) accepts('checkPoolAtStop', () => checkPoolAtStop(system, run.finalState, 0.01));
        }),
        budget('library: systems and runs', 200, 10000),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'parseGraph and createScenario on mutated documents',
    () => {
      fc.assert(
        fc.property(fc.boolean(), mutation(JSON.stringify(graphDoc)), (graphSide, ms) => {
          const text = applyMutations(graphSide ? graphDoc : evidenceDoc, ms);
          let doc: unknown;
          try {
            doc = JSON.parse(text);
          } catch {
            return; // the CLI fuzz covers unparsable files
          }
          if (graphSide) accepts('parseGraph', () => parseGraph(doc));
          accepts('createScenario', () =>
            graphSide ? createScenario(doc, evidenceDoc) : createScenario(graphDoc, doc),
          );
        }),
        budget('library: graph documents', 60, 4000),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'validateDistribution, parseSamples and reportJson on odd values',
    () => {
      fc.assert(
        fc.property(
          weirdValue,
          fc.array(fc.record({ id: weirdValue, p: weirdValue }), { maxLength: 4 }),
          fc.string(),
          (v, list, text) => {
            accepts('validateDistribution', () => validateDistribution('P', v));
            accepts('validateDistribution', () => validateDistribution('P', list));
            accepts('parseSamples', () => parseSamples(text, 'x.jsonl'));
            accepts('parseSamples', () => parseSamples(JSON.stringify(v), 'x.jsonl'));
            const json = reportJson({ v, list, x: Float64Array.of(Infinity, NaN, -0) });
            if (json.includes('null') && JSON.stringify({ v, list }).includes('null') === false)
              throw new Error(`reportJson wrote null for a value that is not null: ${json}`);
          },
        ),
        budget('library: distributions, samples, JSON', 200, 10000),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'linalg on wrong shapes, NaN, Infinity and huge sizes',
    () => {
      const dims = fc.oneof(
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom<unknown>(-1, 1.5, NaN, Infinity, 2 ** 31, 2 ** 40, 1e9, '3', null),
      );
      const data = fc.oneof(
        fc.array(fc.double(), { maxLength: 40 }).map((a) => Float64Array.from(a)),
        fc.array(fc.double({ min: -1e300, max: 1e300, noNaN: true }), { maxLength: 40 }),
        weirdValue,
      );
      fc.assert(
        fc.property(
          fc.constantFrom('svdvals', 'rank', 'nullSpace', 'gram', 'eigh', 'gemm'),
          data,
          dims,
          dims,
          data,
          (fn, A, r, c, B) => {
            const L = linalg as unknown as Record<string, (...a: unknown[]) => unknown>;
            if (fn === 'eigh') accepts(fn, () => L[fn]!(A, r));
            else if (fn === 'gemm') accepts(fn, () => L[fn]!(A, r, c, B, c, r));
            else accepts(fn, () => L[fn]!(A, r, c));
          },
        ),
        budget('library: linalg shapes', 300, 16000),
      );
    },
    TEST_TIMEOUT,
  );
});
