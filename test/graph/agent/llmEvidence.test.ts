import { fc, test as fcTest } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentState } from '../../../src/graph/agent/agent.js';
import { embedClaim, hashingEmbedder, words } from '../../../src/graph/agent/embed.js';
import { llmEvidenceJsonSchema, llmEvidenceSchema, toEvidenceItem } from '../../../src/graph/agent/llmEvidence.js';
import { defaultScenario } from '../../../src/graph/scenarios/scenario.js';
import { GraphFormatError } from '../../../src/graph/model/schema.js';
import { ArgumentError } from '../../../src/util/errors.js';

const schemaFile = fileURLToPath(new URL('../../../schema/llm-evidence.schema.json', import.meta.url));

describe('LLM evidence schema', () => {
  it('the published JSON Schema is the one generated from the zod schema (run `npm run build:ts && npm run schema` after a change)', () => {
    expect(JSON.parse(readFileSync(schemaFile, 'utf8'))).toEqual(llmEvidenceJsonSchema());
  });
  it('the JSON Schema requires text and source of every claim and forbids unknown fields', () => {
    const s = llmEvidenceJsonSchema() as {
      properties: { claims: { items: { required: string[]; additionalProperties: boolean } } };
    };
    expect(s.properties.claims.items.required.sort()).toEqual(['source', 'text']);
    expect(s.properties.claims.items.additionalProperties).toBe(false);
  });
});

describe('hashing embedder (the baseline)', () => {
  fcTest.prop([fc.string(), fc.string(), fc.integer({ min: 1, max: 64 })])(
    'k values in [0, 1], deterministic, the last one a code of the source only',
    (text, source, k) => {
      const v = embedClaim(hashingEmbedder, { text, source }, k);
      expect(v).toHaveLength(k);
      expect(v.every((x) => x >= 0 && x <= 1)).toBe(true);
      expect(embedClaim(hashingEmbedder, { text, source }, k)).toEqual(v);
      expect(v[k - 1]).toBe(embedClaim(hashingEmbedder, { text: text + ' other', source }, k)[k - 1]);
    },
  );
  it('case and punctuation do not matter; a shared wording is nearer than an unrelated one', () => {
    const e = (text: string) => embedClaim(hashingEmbedder, { text, source: 's' }, 33);
    expect(e('Mira Vance wrote it.')).toEqual(e('mira vance WROTE it'));
    const d = (a: number[], b: number[]) => Math.hypot(...a.map((x, i) => x - b[i]!));
    const base = e('Mira Vance wrote The Glass Orchard');
    expect(d(base, e('Mira Vance wrote The Glass Orchard in 1998'))).toBeLessThan(
      d(base, e('Tarnow is a town in Poland')),
    );
    expect(words("Vance's novel, 1998")).toEqual(['vances', 'novel', '1998']);
  });
  it('an embedder returning the wrong length or NaN is refused naming embedder()', () => {
    expect(() => embedClaim(() => [1], { text: 't', source: 's' }, 2)).toThrow(/^embedder\(\) = /);
    expect(() => embedClaim(() => [1, NaN], { text: 't', source: 's' }, 2)).toThrow(/^embedder\(\)\[1\] = NaN/);
  });
});

describe('toEvidenceItem', () => {
  const sc = defaultScenario();
  const out = {
    claims: [
      {
        text: 'The Glass Orchard is a novel by Mira Vance.',
        source: 'encyclopedia',
        reliability: 0.9,
        answer: 'a:author:vance',
        id: 'x',
      },
      { text: 'Elias Holt did not write it.', source: 'library', contradicts: ['c:holt-wrote'], supports: ['x'] },
    ],
  };

  it('gives an item the state accepts: claims with ℓ from the embedder, Supports to the answer, the question resolved', () => {
    const state = AgentState.fromScenario(sc);
    const item = toEvidenceItem(state, out) as {
      id: string;
      claims: Array<{ id: string; attributes: number[]; support: number }>;
      edges: Array<{ type: string; source: string; target: string; weight: number }>;
    };
    expect(item.claims.map((c) => c.id)[0]).toBe('x');
    expect(item.claims[0]!.attributes).toEqual(
      embedClaim(hashingEmbedder, { text: out.claims[0]!.text, source: 'encyclopedia' }, sc.layout.k),
    );
    expect(item.claims[1]!.support).toBe(0.7);
    expect(item.edges).toContainEqual({ type: 'Supports', source: 'x', target: 'a:author:vance', weight: 0.9 });
    expect(item.edges).toContainEqual({ type: 'Requires', source: 'a:author:holt', target: 'q:author', weight: 0 });
    expect(item.edges).toContainEqual({
      type: 'Contradicts',
      source: item.claims[1]!.id,
      target: 'c:holt-wrote',
      weight: 0.9,
    });
    const before = state.theta;
    const omega = state.step(item);
    expect(omega).toBeGreaterThan(0);
    expect(state.theta).not.toEqual(before);
    // the same output again is the same evidence (content-derived ids): a re-application
    expect(toEvidenceItem(state, out)).toEqual(item);
    expect(() => state.step(item)).not.toThrow();
  });

  it('bad output is refused with the JSON path, before anything changes', () => {
    const state = AgentState.fromScenario(sc);
    const theta = state.theta;
    expect(() => toEvidenceItem(state, { claims: [{ text: '', source: 's' }] })).toThrow(GraphFormatError);
    expect(() => toEvidenceItem(state, { claims: [{ text: '', source: 's' }] })).toThrow(/^output\.claims\[0\]\.text/);
    expect(() => toEvidenceItem(state, { claims: [{ text: 't', source: 's', answer: 'a:nope' }] })).toThrow(
      /^output\.claims\[0\]\.answer = "a:nope": names no node/,
    );
    expect(() => toEvidenceItem(state, { claims: [{ text: 't', source: 's', answer: 'q:author' }] })).toThrow(
      /is a question node; expected: answer/,
    );
    expect(() => toEvidenceItem(state, { claims: [{ text: 't', source: 's' }], extra: 1 })).toThrow(GraphFormatError);
    expect(() => toEvidenceItem(state, out, { strength: 0 })).toThrow(ArgumentError);
    expect(state.theta).toEqual(theta);
    expect(llmEvidenceSchema.safeParse(out).success).toBe(true);
  });
});
