/**
 * The state in words read from the structured state against the dense θ: every summary of every
 * state of a run (contradictions appearing and downweighted, claims merging) is the same.
 */
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { runRecursive } from '../../../src/ordergap/algorithm1.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { createScenario, defaultScenario } from '../../../src/graph/scenarios/scenario.js';
import { describeState, describeStructured } from '../../../src/graph/state/describe.js';
import { structuredFromDense, structuredToDense, type StructuredGraphState } from '../../../src/graph/state/state.js';
import { AgentState } from '../../../src/graph/agent/agent.js';
import { openGraphDoc, openItem } from '../fixtures.js';
import { toEvidenceItem } from '../../../src/graph/agent/llmEvidence.js';
import { edgeIndex } from '../../../src/graph/model/layout.js';
import { decode } from '../../../src/graph/model/layout.js';
import { renderStateSummary } from '../../../src/report/runText.js';

/** Compares the two summaries at every state of a structured run; returns what they held. */
function compareAlongRun(seed: number, delta: number) {
  const sys = referenceGraphSystem(defaultScenario());
  const sc = sys.scenario;
  const seen = { states: 0, merges: 0, contradictions: 0, promoted: 0 };
  runRecursive(sys, {
    ...sys.capabilities.runDefaults!,
    seed,
    recordStates: false,
    observe: (_step, _head, state) => {
      const st = state as StructuredGraphState;
      const want = describeState(sc, structuredToDense(sc.shape, st), delta);
      expect(describeStructured(sc, st, delta)).toEqual(want);
      seen.merges += want.merged.length;
      seen.contradictions += want.contradictions.length;
      seen.promoted += want.promoted.length;
      seen.states++;
    },
  });
  return seen;
}

describe('describeStructured: the dense summary without the dense θ', () => {
  it('every state of the default run: merges, contradictions and promoted questions included', () => {
    const sys = referenceGraphSystem(defaultScenario());
    const seen = compareAlongRun(sys.capabilities.runDefaults!.seed, 0.5);
    expect(seen.states).toBeGreaterThan(10);
    // the comparison covered the parts that read edges and neighbour lists
    expect(seen.merges).toBeGreaterThan(0);
    expect(seen.contradictions).toBeGreaterThan(0);
    expect(seen.promoted).toBeGreaterThan(0);
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(0.3, 0.5, 0.8)], { numRuns: 4 })(
    'every state of structured runs of the default scenario, random seeds and δ',
    (seed, delta) => {
      expect(compareAlongRun(seed, delta).states).toBeGreaterThan(0);
    },
  );

  it("an agent's describe() is the dense summary of its θ", () => {
    const sc = defaultScenario();
    const agent = AgentState.fromScenario(sc);
    for (const item of sc.pool.items.slice(0, 6)) agent.step(item);
    expect(agent.layout.dim).toBe(sc.layout.dim); // no growth: the scenario's shape is the agent's
    // an agent keeps no pool: a claim's original attributes are those of the graph it started from
    const asAgent = { ...sc, layout: agent.layout, items: [], itemById: new Map(), pool: { ...sc.pool, items: [] } };
    const want = describeState(asAgent, agent.theta, 0.4);
    expect(want.merged.length + want.contradictions.length).toBeGreaterThan(0);
    expect(agent.describe(0.4)).toEqual(want);
    // a merged pair with a claim from evidence has no original distance (not 0)
    const inGraph = new Set(sc.graph.nodes.map((n) => n.id));
    expect(want.merged.length).toBeGreaterThan(0);
    for (const m of want.merged) expect(m.originalDistance === null).toBe(!m.claims.every((c) => inGraph.has(c)));
  });

  it('a pool that adds an answer and a sub-question: listed under their question, with the parent, densely and structured alike', () => {
    const sys = referenceGraphSystem(createScenario(openGraphDoc(), { items: [openItem()] }));
    const sc = sys.scenario;
    let last: ReturnType<typeof describeState> | undefined;
    runRecursive(sys, {
      epsilon: 1e-12,
      window: 1,
      maxSteps: 4,
      seed: 1,
      recordStates: false,
      observe: (_step, _head, state) => {
        const st = state as StructuredGraphState;
        last = describeState(sc, structuredToDense(sc.shape, st), 0.5);
        expect(describeStructured(sc, st, 0.5)).toEqual(last);
      },
    });
    // the item supports q:pub's answer (rate 0.6·0.8 = 0.48 towards 1): four draws promote q:pub
    // (1 − 0.52⁴ >= 0.5), so it is no longer open; q's own answer a is supported by no item
    expect(last!.questions).toEqual([
      { question: 'q', text: null, openness: expect.any(Number), open: expect.any(Boolean), promoted: false },
      {
        question: 'q:pub',
        text: 'Who published it?',
        openness: expect.any(Number),
        open: false,
        promoted: true,
        parent: 'q',
      },
    ]);
    expect(last!.answers.map((a) => [a.question, a.answer, a.text])).toEqual([
      ['q', 'a', null],
      ['q', 'a:other', null],
      ['q:pub', 'a:pub:acme', 'Acme Press'],
    ]);
    expect(last!.answers.find((a) => a.answer === 'a:pub:acme')!.confidence).toBeGreaterThan(0);
  });

  it('a question is promoted iff its resolution support S_qq >= τ_promote, and then is not open', () => {
    const sc = defaultScenario();
    const tau = sc.params.promotionThreshold;
    const q = sc.layout.slotOf.get('q:author')!;
    const at = (support: number) => {
      const theta = sc.theta0.slice();
      theta[edgeIndex(sc.layout, 'Supports', q, q)] = support;
      const dense = describeState(sc, theta, 0.5);
      expect(describeStructured(sc, structuredFromDense(sc.shape, sc.params, theta), 0.5)).toEqual(dense);
      return dense;
    };
    const below = at(tau * (1 - Number.EPSILON));
    expect(below.promoted).toEqual([]);
    expect(below.openQuestions).toContain('q:author'); // openness 1 at θ0
    const reached = at(tau);
    expect(reached.promoted).toEqual([
      {
        question: 'q:author',
        text: sc.layout.slots[q]!.text ?? null,
        support: tau,
        threshold: tau,
        answer: 'a:author:vance', // θ0: both answers at 0.05, the first slot is the best
        answerText: sc.layout.slots[sc.layout.slotOf.get('a:author:vance')!]!.text ?? null,
        confidence: 0.05,
      },
    ]);
    expect(reached.openQuestions).not.toContain('q:author');
    expect(reached.questions.find((x) => x.question === 'q:author')).toMatchObject({ promoted: true, open: false });
  });

  it("an agent's describe() reports the question an LLM item resolves as promoted", () => {
    const sc = defaultScenario();
    const agent = AgentState.fromScenario(sc);
    const item = toEvidenceItem(agent, {
      claims: [{ text: 'Mira Vance wrote it.', source: 'encyclopedia', reliability: 0.9, answer: 'a:author:vance' }],
    });
    expect(agent.describe().promoted).toEqual([]);
    agent.expand(item); // P_e alone: S_qq from 0 to a_e·reliability = 0.7·0.9 >= 0.5
    const q = agent.layout.slotOf.get('q:author')!;
    expect(agent.theta[edgeIndex(agent.layout, 'Supports', q, q)]).toBe(0.7 * 0.9);
    expect(agent.describe().promoted.map((p) => [p.question, p.support])).toEqual([['q:author', 0.7 * 0.9]]);
  });

  it('pending edges in words: the pending edges decode reports, at every state of the default run', () => {
    const sc = defaultScenario();
    const sys = referenceGraphSystem(sc, { backend: 'reference' });
    const run = runRecursive(sys, { ...sc.run, recordStates: true, representation: 'dense' });
    let seen = 0;
    for (const theta of [sc.theta0, ...run.steps.map((s) => s.theta!)]) {
      const summary = describeState(sc, theta, 0.5);
      expect(summary.pendingEdges).toEqual(decode(theta, sc.layout).pendingEdges ?? []);
      seen += summary.pendingEdges!.length;
      if (summary.pendingEdges!.length)
        expect(renderStateSummary(summary, 'State').join('\n')).toMatch(
          /Pending edges \(an endpoint not a node yet\): (Supports|Requires|Contradicts) \S+ -> \S+ \(0\.\d\d\)/,
        );
      else expect(renderStateSummary(summary, 'State').join('\n')).not.toMatch(/Pending/);
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('bad δ and a state of another shape are refused naming the argument', () => {
    const sys = referenceGraphSystem(defaultScenario());
    const st = sys.capabilities.state!.initial() as StructuredGraphState;
    expect(() => describeStructured(sys.scenario, st, 1)).toThrow(/^delta = 1/);
    const other = referenceGraphSystem(defaultScenario()).capabilities.state!.initial() as StructuredGraphState;
    expect(() =>
      describeStructured(sys.scenario, { ...other, nodes: new Float64Array(3) } as StructuredGraphState, 0.5),
    ).toThrow(/^state = /);
  });
});
