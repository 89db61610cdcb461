import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { AgentState } from '../../../src/graph/agent/agent.js';
import { grownCapacities, layoutWithGrowth, relayout } from '../../../src/graph/model/grow.js';
import { createLayout, decode, describeCoordinate, embed } from '../../../src/graph/model/layout.js';
import { parseGraph } from '../../../src/graph/model/schema.js';
import { arbGraphDoc, smallGraphDoc } from '../fixtures.js';

describe('capacity growth', () => {
  fcTest.prop([arbGraphDoc, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 3 })])(
    'relayout carries θ by name: decode(relayout(φ(S))) is S with the grown capacities, and each non-zero coordinate keeps its name',
    (doc, extraClaims, extraQuestions) => {
      const g = parseGraph(doc);
      const from = createLayout(g);
      const reserved = [
        ...Array.from({ length: g.capacities.claims + 1 + extraClaims }, (_, i) => ({
          id: `new:c${i}`,
          type: 'claim' as const,
        })),
        ...Array.from({ length: extraQuestions }, (_, i) => ({ id: `new:q${i}`, type: 'question' as const })),
      ];
      const grown = layoutWithGrowth(g, reserved);
      expect(grown.grew).toBe(true);
      const theta = embed(g, from);
      const moved = relayout(theta, from, grown.layout);
      expect(decode(moved, grown.layout)).toEqual({ ...decode(theta, from), capacities: grown.graph.capacities });
      // the same quantities under the same names
      const named = new Map<string, number>();
      theta.forEach((v, i) => v !== 0 && named.set(describeCoordinate(from, i), v));
      const after = new Map<string, number>();
      moved.forEach((v, i) => v !== 0 && after.set(describeCoordinate(grown.layout, i), v));
      expect(after).toEqual(named);
    },
  );

  it('grownCapacities doubles each type until it fits and keeps those that fit', () => {
    const g = parseGraph(smallGraphDoc()); // claims 3 (2 used), answers 2, questions 1
    const r = Array.from({ length: 5 }, (_, i) => ({ id: `x${i}`, type: 'claim' as const }));
    expect(grownCapacities(g, r)).toEqual({ claims: 12, answers: 2, questions: 1 });
    expect(grownCapacities(g, [])).toEqual(g.capacities);
  });

  it('an AgentState grows instead of refusing a claim beyond its capacity; Ω and the state equal those of a state laid out big from the start', () => {
    const item = (i: number) => ({
      id: `x${i}`,
      strength: 0.5,
      claims: [{ id: `c${i + 3}`, attributes: [0.2 * i, 0.9], support: 0.8 }],
      edges: [{ type: 'Supports', source: `c${i + 3}`, target: 'a', weight: 0.7 }],
    });
    const small = AgentState.fromGraph(smallGraphDoc()); // claims capacity 3
    const big = AgentState.fromGraph({ ...smallGraphDoc(), capacities: { claims: 12, answers: 2, questions: 1 } });
    for (let i = 0; i < 5; i++) expect(small.step(item(i))).toBe(big.step(item(i)));
    expect(small.layout.capacities.claims).toBe(12);
    expect(small.layout.dim).toBe(big.layout.dim);
    expect(small.theta).toEqual(big.theta);
    expect(AgentState.fromJSON(JSON.parse(JSON.stringify(small.toJSON()))).theta).toEqual(small.theta);
  });
});
