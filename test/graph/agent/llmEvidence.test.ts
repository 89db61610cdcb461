import { fc, test as fcTest } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentState } from '../../../src/graph/agent/agent.js';
import { embedClaim, hashingEmbedder, words } from '../../../src/graph/agent/embed.js';
import {
  extractionPrompt,
  llmEvidenceJsonSchema,
  llmEvidenceSchema,
  toEvidenceItem,
} from '../../../src/graph/agent/llmEvidence.js';
import { DEFAULT_SCENARIO_FILES, defaultScenario } from '../../../src/graph/scenarios/scenario.js';
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

describe('LLM evidence schema: new answers and questions', () => {
  it('the JSON Schema has answerText, questionText and parentQuestion as optional non-empty strings, as zod does', () => {
    const s = llmEvidenceJsonSchema() as {
      properties: { claims: { items: { properties: Record<string, Record<string, unknown>>; required: string[] } } };
    };
    const item = s.properties.claims.items;
    for (const name of ['answerText', 'questionText', 'parentQuestion']) {
      expect(item.properties[name]).toMatchObject({ type: 'string', minLength: 1, description: expect.any(String) });
      expect(item.required).not.toContain(name);
      // zod: optional, and an empty string is refused at its path
      const claim = { text: 't', source: 's' };
      expect(llmEvidenceSchema.safeParse({ claims: [claim] }).success).toBe(true);
      expect(llmEvidenceSchema.safeParse({ claims: [{ ...claim, [name]: 'x' }] }).success).toBe(true);
      const r = llmEvidenceSchema.safeParse({ claims: [{ ...claim, [name]: '' }] });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['claims', 0, name]);
    }
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

/** A claim that proposes a new answer to a new sub-question of q:author. */
const acme = {
  text: 'Acme Press published The Glass Orchard in 1998.',
  source: 'catalogue',
  reliability: 0.8,
  answer: 'a:publisher:acme',
  answerText: 'Acme Press published it',
  question: 'q:publisher',
  questionText: 'Who published The Glass Orchard?',
  parentQuestion: 'q:author',
};

describe('toEvidenceItem: new answers and questions (open world)', () => {
  // the default graph holds 3 questions in 3 slots: a new one makes the capacities grow
  const sc = defaultScenario();
  const out = { claims: [acme] };
  type Item = {
    id: string;
    claims: Array<{ id: string }>;
    answers?: Array<{ id: string; question: string; attributes: number[]; text: string }>;
    questions?: Array<{ id: string; attributes: number[]; text: string; parent?: string }>;
    edges: Array<{ type: string; source: string; target: string; weight: number }>;
  };

  it('a claim with a new answer and a new question: the item adds both, and describe() lists the answer under its question and the question, promoted by the claim, with its parent', () => {
    const state = AgentState.fromScenario(sc);
    const item = toEvidenceItem(state, out) as Item;
    const c = item.claims[0]!.id;
    expect(item.answers).toEqual([
      {
        id: 'a:publisher:acme',
        question: 'q:publisher',
        attributes: embedClaim(hashingEmbedder, { text: 'Acme Press published it', source: '' }, sc.layout.k),
        text: 'Acme Press published it',
      },
    ]);
    expect(item.questions).toEqual([
      {
        id: 'q:publisher',
        attributes: embedClaim(hashingEmbedder, { text: 'Who published The Glass Orchard?', source: '' }, sc.layout.k),
        text: 'Who published The Glass Orchard?',
        parent: 'q:author',
      },
    ]);
    // presence: the claim's Supports into the answer, the answer's Requires to its question, the
    // claim requires the question it raised, the parent's answers require the sub-question
    expect(item.edges).toEqual([
      { type: 'Supports', source: c, target: 'a:publisher:acme', weight: 0.8 },
      { type: 'Requires', source: c, target: 'q:publisher', weight: 1 },
      { type: 'Requires', source: 'a:publisher:acme', target: 'q:publisher', weight: 1 },
      { type: 'Requires', source: 'a:author:vance', target: 'q:publisher', weight: 1 },
      { type: 'Requires', source: 'a:author:holt', target: 'q:publisher', weight: 1 },
    ]);
    state.step(item);
    expect(state.layout.capacities.questions).toBe(6); // grown: 3 -> 6
    for (let t = 0; t < 3; t++) state.consolidate();
    const d = state.describe();
    expect(d.answers.filter((a) => a.question === 'q:publisher')).toEqual([
      {
        question: 'q:publisher',
        answer: 'a:publisher:acme',
        text: 'Acme Press published it',
        confidence: expect.any(Number),
        best: true,
      },
    ]);
    expect(d.answers.find((a) => a.answer === 'a:publisher:acme')!.confidence).toBeGreaterThan(0);
    // the claim supports the question's new answer: P_e wrote its resolution support 0.7·0.8 =
    // 0.56 >= τ_promote, so the question is promoted to a partial answer, not open
    expect(d.questions.find((q) => q.question === 'q:publisher')).toEqual({
      question: 'q:publisher',
      text: 'Who published The Glass Orchard?',
      openness: expect.any(Number),
      open: false,
      promoted: true,
      parent: 'q:author',
    });
    expect(d.promoted.find((p) => p.question === 'q:publisher')).toMatchObject({
      support: 0.7 * 0.8,
      answer: 'a:publisher:acme',
    });
    expect(d.openQuestions).not.toContain('q:publisher');
    // toJSON / fromJSON keep them
    const r = AgentState.fromJSON(JSON.parse(JSON.stringify(state.toJSON())));
    expect(r.describe()).toEqual(d);
    expect(r.layout.slots).toEqual(state.layout.slots);
  });

  it('the same output applied again is a re-application: the same item, the same ids in the same slots', () => {
    const state = AgentState.fromScenario(sc);
    const item = toEvidenceItem(state, out);
    state.step(item);
    const slots = state.layout.slots;
    const again = toEvidenceItem(state, out);
    expect(again).toEqual(item);
    state.step(again);
    state.step(toEvidenceItem(state, out));
    expect(state.layout.slots).toEqual(slots);
    expect(state.reserved.filter((n) => n.type !== 'claim')).toEqual([
      { id: 'a:publisher:acme', type: 'answer', question: 'q:publisher', text: 'Acme Press published it' },
      { id: 'q:publisher', type: 'question', parent: 'q:author', text: 'Who published The Glass Orchard?' },
    ]);
    // a later claim may name the added nodes by id alone, or declare them again with the same question
    const later = toEvidenceItem(state, {
      claims: [
        { text: 'Acme is a small press.', source: 'news', answer: 'a:publisher:acme' },
        {
          text: 'Acme Press is in Krakow.',
          source: 'news',
          answer: 'a:publisher:acme',
          answerText: 'Acme Press published it',
        },
      ],
    }) as Item;
    expect(later.questions).toBeUndefined();
    expect(later.answers!.map((a) => [a.id, a.question])).toEqual([['a:publisher:acme', 'q:publisher']]);
    expect(() => state.step(later)).not.toThrow();
    const nonClaims = (l: typeof slots) => l.filter((x) => x.type !== 'claim').map((x) => x.id);
    expect(nonClaims(state.layout.slots)).toEqual(nonClaims(slots));
  });

  it('ids not given are derived from the texts, the same on every state', () => {
    const derived = {
      claims: [
        {
          text: 'Acme Press published it.',
          source: 'catalogue',
          answerText: 'Acme Press',
          questionText: 'Who published it?',
        },
        {
          text: 'Who printed it matters.',
          source: 'blog',
          questionText: 'Who printed it?',
          parentQuestion: 'q:author',
        },
      ],
    };
    const a = toEvidenceItem(AgentState.fromScenario(sc), derived) as Item;
    const fresh = AgentState.fromGraph(JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.graph, 'utf8')));
    expect(toEvidenceItem(fresh, derived)).toEqual(a);
    const [q1, q2] = a.questions!.map((q) => q.id);
    expect(q1).toMatch(/^q:[0-9a-f]{8}$/);
    expect(q2).toMatch(/^q:[0-9a-f]{8}$/);
    expect(q1).not.toBe(q2);
    expect(a.answers).toEqual([
      { id: expect.stringMatching(/^a:[0-9a-f]{8}$/), question: q1, attributes: expect.any(Array), text: 'Acme Press' },
    ]);
    // a question of the graph with a text is the graph's question (texts are not redeclared)
    const onGraph = toEvidenceItem(AgentState.fromScenario(sc), {
      claims: [{ text: 't', source: 's', question: 'q:author', questionText: 'Who?', answerText: 'Someone else' }],
    }) as Item;
    expect(onGraph.questions).toBeUndefined();
    expect(onGraph.answers!.map((x) => x.question)).toEqual(['q:author']);
    // the existing answers of the question it addresses resolve it; the new one does not
    expect(onGraph.edges.filter((e) => e.type === 'Requires' && e.target === 'q:author')).toEqual([
      { type: 'Requires', source: 'a:author:vance', target: 'q:author', weight: 0 },
      { type: 'Requires', source: 'a:author:holt', target: 'q:author', weight: 0 },
      { type: 'Requires', source: onGraph.answers![0]!.id, target: 'q:author', weight: 1 },
    ]);
  });

  it('an unknown answer or question without its text, and declarations that disagree, are one-line errors naming the JSON path and value', () => {
    const state = AgentState.fromScenario(sc);
    const theta = state.theta;
    const claim = { text: 't', source: 's' };
    const bad = (c: Record<string, unknown>) => () => toEvidenceItem(state, { claims: [{ ...claim, ...c }] });
    expect(bad({ answer: 'a:new' })).toThrow(
      /^output\.claims\[0\]\.answer = "a:new": names no node of the state or of this output \(a new answer needs answerText\)$/,
    );
    expect(bad({ question: 'q:new' })).toThrow(
      /^output\.claims\[0\]\.question = "q:new": names no node .* \(a new question needs questionText\)$/,
    );
    expect(bad({ answerText: 'x' })).toThrow(
      /^output\.claims\[0\]\.question = undefined: a new answer \(answerText\) needs the question it answers$/,
    );
    expect(bad({ parentQuestion: 'q:author' })).toThrow(
      /^output\.claims\[0\]\.parentQuestion = "q:author": is for a new question: give questionText$/,
    );
    expect(bad({ questionText: 'x', parentQuestion: 'q:none' })).toThrow(
      /^output\.claims\[0\]\.parentQuestion = "q:none": names no node/,
    );
    expect(bad({ questionText: 'x', parentQuestion: 'a:country' })).toThrow(/is an answer node; expected: question/);
    expect(bad({ question: 'q:x', questionText: 'x', parentQuestion: 'q:x' })).toThrow(/is the question itself/);
    expect(bad({ answer: 'q:author', answerText: 'x', question: 'q:author' })).toThrow(
      /^output\.claims\[0\]\.answer = "q:author": is a question node; expected: answer/,
    );
    expect(bad({ id: 'c:mine', answer: 'c:mine', answerText: 'x', question: 'q:author' })).toThrow(
      /^output\.claims\[0\]\.answer = "c:mine": is the id of a claim of this output/,
    );
    // two claims declaring one new question or answer differently
    const two = (a: Record<string, unknown>, b: Record<string, unknown>) => () =>
      toEvidenceItem(state, {
        claims: [
          { ...claim, ...a },
          { text: 'u', source: 's', ...b },
        ],
      });
    expect(
      two(
        { question: 'q:x', questionText: 'x', parentQuestion: 'q:author' },
        { question: 'q:x', questionText: 'x', parentQuestion: 'q:country' },
      ),
    ).toThrow(/^output\.claims\[1\]\.parentQuestion = "q:country": differs from the parent of q:x \(q:author\)/);
    expect(
      two(
        { answer: 'a:x', answerText: 'x', question: 'q:author' },
        { answer: 'a:x', answerText: 'x', question: 'q:country' },
      ),
    ).toThrow(/^output\.claims\[1\]\.question = "q:country": differs from the question of answer a:x \(q:author\)/);
    expect(
      two(
        { question: 'q:x', questionText: 'x', parentQuestion: 'q:y' },
        { question: 'q:y', questionText: 'y', parentQuestion: 'q:x' },
      ),
    ).toThrow(/^output\.claims\[0\]\.parentQuestion = "q:y": leads back to q:x \(a cycle of parents\)/);
    // an added question declared again under another parent
    state.step(toEvidenceItem(state, out));
    const moved = state.theta;
    expect(() => toEvidenceItem(state, { claims: [{ ...out.claims[0]!, parentQuestion: 'q:country' }] })).toThrow(
      /^output\.claims\[0\]\.parentQuestion = "q:country": differs from the parent of q:publisher \(q:author\)/,
    );
    expect(() =>
      toEvidenceItem(state, {
        claims: [{ ...out.claims[0]!, question: 'q:birthplace', questionText: undefined, parentQuestion: undefined }],
      }),
    ).toThrow(
      /^output\.claims\[0\]\.question = "q:birthplace": differs from the question of answer a:publisher:acme \(q:publisher\)/,
    );
    expect(state.theta).toEqual(moved);
    expect(theta.length).toBeLessThan(moved.length);
  });
});

describe('extractionPrompt', () => {
  it('names every question and answer id of the state (with texts, openness, parents), every field of the schema, and how to propose new ones', () => {
    const state = AgentState.fromScenario(defaultScenario());
    state.step(
      toEvidenceItem(state, {
        claims: [
          {
            text: 'Acme published it.',
            source: 'catalogue',
            answerText: 'Acme',
            question: 'q:pub',
            questionText: 'Who published it?',
            parentQuestion: 'q:author',
          },
        ],
      }),
    );
    for (let t = 0; t < 3; t++) state.consolidate();
    const prompt = extractionPrompt(state);
    const slots = state.layout.slots.filter((s) => s.id !== null && s.type !== 'claim');
    expect(slots.length).toBe(9); // 4 + 1 answers, 3 + 1 questions
    for (const s of slots) expect(prompt).toContain(`- ${s.id}`);
    expect(prompt).toContain('"Who wrote The Glass Orchard?"');
    expect(prompt).toMatch(/- q:pub — "Who published it\?" \(open, openness 0\.\d{3}; sub-question of q:author\)/);
    expect(prompt).toMatch(/- a:author:vance — "Mira Vance wrote it" \(answers q:author, confidence 0\.\d{3}\)/);
    const fields = Object.keys(
      (llmEvidenceJsonSchema() as { properties: { claims: { items: { properties: object } } } }).properties.claims.items
        .properties,
    );
    expect(fields).toContain('parentQuestion');
    for (const f of fields) expect(prompt).toMatch(new RegExp(`^- ${f}( \\(required\\))?: \\S`, 'm'));
    expect(prompt).toMatch(/answerText/);
    expect(prompt).toMatch(/questionText/);
    // the present claims, most confident first, as many as asked
    const claimLines = (p: string) => p.split('\n').filter((l) => /^- c:/.test(l));
    expect(claimLines(prompt)).toHaveLength(1);
    expect(claimLines(extractionPrompt(state, { claims: 0 }))).toHaveLength(0);
    expect(extractionPrompt(state, { question: 'q:author' })).toMatch(/^Focus on question q:author — "Who wrote/m);
    expect(() => extractionPrompt(state, { question: 'a:country' })).toThrow(
      /^options\.question = "a:country": is not a question of the state/,
    );
    expect(() => extractionPrompt(state, { claims: -1 })).toThrow(/^options\.claims = -1/);
  });
  fcTest.prop(
    [
      fc.array(
        fc.oneof(
          fc.record({ op: fc.constant('step' as const), n: fc.integer({ min: 0, max: 5 }) }),
          fc.record({ op: fc.constant('consolidate' as const) }),
          fc.record({
            op: fc.constant('prompt' as const),
            claims: fc.constantFrom(undefined, 0, 2, 50),
            delta: fc.constantFrom(undefined, 0.3, 0.5),
            focus: fc.boolean(),
          }),
        ),
        { minLength: 1, maxLength: 12 },
      ),
    ],
    { numRuns: 25 },
  )('a prompt kept for an unchanged state equals the prompt built afresh', (ops) => {
    const state = AgentState.fromScenario(defaultScenario());
    let applied = 0;
    for (const o of ops) {
      if (o.op === 'step') {
        state.step(
          toEvidenceItem(state, {
            claims: [
              {
                text: `Source ${o.n} says Mira Vance wrote it.`,
                source: `source ${o.n}`,
                answer: 'a:author:vance',
                reliability: 0.5 + 0.1 * (applied++ % 4),
              },
            ],
          }),
        );
        continue;
      }
      if (o.op === 'consolidate') {
        state.consolidate();
        continue;
      }
      const options = {
        ...(o.claims === undefined ? {} : { claims: o.claims }),
        ...(o.delta === undefined ? {} : { delta: o.delta }),
        ...(o.focus ? { question: 'q:author' } : {}),
      };
      const fresh = AgentState.fromJSON(JSON.parse(JSON.stringify(state.toJSON())));
      expect(extractionPrompt(state, options)).toBe(extractionPrompt(fresh, options));
    }
  });
});
