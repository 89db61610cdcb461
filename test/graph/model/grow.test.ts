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

  it('an AgentState grows for the answers and sub-questions evidence adds too; Ω and the state equal those of a state laid out big from the start', () => {
    const claim = (id: string, x: number) => ({ id, attributes: [x, 0.9], support: 0.8 });
    const R = (source: string, target: string) => ({ type: 'Requires', source, target, weight: 1 });
    const S = (source: string, target: string) => ({ type: 'Supports', source, target, weight: 0.7 });
    const items = [
      // no new answer or question: Q's per-group scratch is built for groups of one answer
      { id: 'x0', strength: 0.5, claims: [claim('c3', 0.1)], edges: [S('c3', 'a')] },
      {
        id: 'x1',
        strength: 0.5,
        claims: [claim('c4', 0.5)],
        answers: [
          { id: 'a:x1', question: 'q', attributes: [0.3, 0.3] },
          { id: 'a:x2', question: 'q', attributes: [0.6, 0.2] },
        ],
        edges: [S('c4', 'a:x1'), R('a:x1', 'q'), R('a:x2', 'q')],
      },
      {
        id: 'x2',
        strength: 0.6,
        claims: [claim('c5', 0.9)],
        questions: [{ id: 'q:sub', attributes: [0.1, 0.1], parent: 'q' }],
        answers: [{ id: 'a:s', question: 'q:sub', attributes: [0.2, 0.8] }],
        edges: [S('c5', 'a:s'), R('a:s', 'q:sub'), R('c5', 'q:sub'), R('a', 'q:sub'), R('a:x1', 'q:sub')],
      },
      {
        id: 'x3',
        strength: 0.6,
        claims: [claim('c6', 1.3)],
        questions: [{ id: 'q:sub2', attributes: [0.4, 0.1], parent: 'q:sub' }],
        answers: [{ id: 'a:t', question: 'q:sub2', attributes: [0.7, 0.7] }],
        edges: [S('c6', 'a:t'), R('a:t', 'q:sub2'), R('c6', 'q:sub2'), R('a:s', 'q:sub2')],
      },
    ];
    const small = AgentState.fromGraph(smallGraphDoc()); // claims 3, answers 2, questions 1
    const big = AgentState.fromGraph({ ...smallGraphDoc(), capacities: { claims: 6, answers: 8, questions: 4 } });
    for (const it of [...items, items[2]!, items[1]!]) {
      const omega = small.orderGap(it);
      expect(omega).toBe(big.orderGap(it));
      expect(small.step(it)).toBe(omega);
      expect(big.step(it)).toBe(omega);
    }
    expect(small.layout.capacities).toEqual(big.layout.capacities);
    expect(small.layout.slots).toEqual(big.layout.slots);
    expect(small.theta).toEqual(big.theta);
    expect(small.theta.every(Number.isFinite)).toBe(true);
    expect(small.describe()).toEqual(big.describe());
    const restored = AgentState.fromJSON(JSON.parse(JSON.stringify(small.toJSON())));
    expect(restored.theta).toEqual(small.theta);
    expect(restored.layout.slots).toEqual(small.layout.slots);
    expect(restored.orderGap(items[3]!)).toBe(small.orderGap(items[3]!));
  });
});
