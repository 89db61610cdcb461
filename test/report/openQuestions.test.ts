import { describe, expect, it } from 'vitest';
import { openQuestionsAtStop } from '../../src/report/openQuestions.js';
import { defineSystem, extendSystem } from '../../src/system/define.js';

// The warning reads only what a system declares of its states: describe.summary, else
// describe.answer; a system with neither cannot say and gets none.
const base = defineSystem({
  name: 'two',
  dim: 2,
  theta0: [0, 1],
  consolidate: (t) => [t[0]!, 0.5 * t[1]!],
  expand: (_e, t) => [t[0]! + 0.1, t[1]!],
  evidence: [{ id: 'a', p: 1 }],
  questions: { 'q:which': [0] },
});
const answering = (answer: string | null) =>
  extendSystem(base, { describe: { facts: () => ({}), answer: () => ({ answer, confidence: 0.4 }) } });

describe('openQuestionsAtStop', () => {
  it('from describe.answer: no leading answer leaves the declared question open', () => {
    const w = openQuestionsAtStop(answering(null), null, () => new Float64Array(2));
    expect(w).toMatchObject({ questions: ['q:which'], declared: 1, source: 'answer' });
    expect(w!.warning).toMatch(/^the stop leaves q:which open: two gives no leading answer/);
    expect(openQuestionsAtStop(answering('yes'), null, () => new Float64Array(2))).toBeNull();
  });

  it('a system that describes nothing cannot say: no warning', () => {
    expect(openQuestionsAtStop(base, null, () => new Float64Array(2))).toBeNull();
  });
});
