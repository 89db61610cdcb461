/**
 * The shared solve and the three operators over a mock model whose outputs are written by hand
 * below: no model is called here.
 */
import { describe, expect, it } from 'vitest';
import { branch } from '../../src/recursion/branch.js';
import { TransportFailure } from '../../src/recursion/call.js';
import { grow } from '../../src/recursion/grow.js';
import { prune } from '../../src/recursion/prune.js';
import { solve } from '../../src/recursion/solve.js';
import { queueModel, scriptedModel } from './scripted.js';

const cut = (text: string) => ({ text, finish: 'length' as const });
const PROBLEM = 'Take the last letters of "Ab Cd" and concatenate them.';

describe('solve: the shared primitive', () => {
  it('a budget-exhausted output without an answer is re-prompted once, with its truncated reasoning', async () => {
    const model = queueModel([cut('The last letter of Ab is b, of Cd is'), 'The answer is bd.']);
    const r = await solve(model, PROBLEM, { maxOutputTokens: 64 });
    expect(r).toMatchObject({ answer: 'bd', truncated: true, finalized: true, calls: 2, retries: 0 });
    const second = model.doGenerateCalls[1]!.prompt.map((m) => JSON.stringify(m.content));
    expect(second[1]).toContain('The last letter of Ab is b, of Cd is');
    expect(second[2]).toMatch(/cut off at the token budget/);
    expect(model.doGenerateCalls[0]!.maxOutputTokens).toBe(64);
    expect(r.usage).toEqual({ inputTokens: 6, outputTokens: 4, totalTokens: 10 });
  });

  it('without finalize (the baseline) the truncated output stays empty; a cut output that has an answer is kept', async () => {
    const r = await solve(queueModel([cut('thinking')]), PROBLEM, { finalize: false });
    expect(r).toMatchObject({ answer: null, kind: 'unparseable', truncated: true, finalized: false, calls: 1 });
    const kept = await solve(queueModel([cut('The answer is bd')]), PROBLEM);
    expect(kept).toMatchObject({ answer: 'bd', truncated: false, calls: 1 });
    const failed = await solve(queueModel([cut(''), '']), PROBLEM);
    expect(failed).toMatchObject({ answer: null, kind: 'empty', truncated: true, finalized: false, calls: 2 });
  });

  it('retryable transport errors are retried and counted; a fatal one or the last retry is a TransportFailure', async () => {
    const model = queueModel([{ fail: 'retryable' }, { fail: 'retryable' }, 'The answer is bd.']);
    const r = await solve(model, PROBLEM, { retryDelayMs: 0 });
    expect(r).toMatchObject({ answer: 'bd', calls: 1, retries: 2 });
    expect(model.doGenerateCalls).toHaveLength(3);
    const spent = queueModel([{ fail: 'retryable' }, { fail: 'retryable' }, 'The answer is bd.']);
    const e = await solve(spent, PROBLEM, { retryDelayMs: 0, maxRetries: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransportFailure);
    expect((e as TransportFailure).attempts).toBe(2);
    const fatal = queueModel([{ fail: 'fatal' }, 'The answer is bd.']);
    await expect(solve(fatal, PROBLEM, { retryDelayMs: 0 })).rejects.toMatchObject({ attempts: 1 });
    expect(fatal.doGenerateCalls).toHaveLength(1);
  });

  it('bad options are refused, naming the option, before any call', async () => {
    const model = queueModel([]);
    await expect(solve(model, ' ')).rejects.toThrow(/problem/);
    await expect(solve(model, PROBLEM, { maxRetries: -1 })).rejects.toThrow(/maxRetries/);
    await expect(grow(model, PROBLEM, { rounds: 0 })).rejects.toThrow(/rounds/);
    await expect(branch(model, PROBLEM, { rule: { name: 'nope', params: {} } })).rejects.toThrow(/rule.*nope/);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

describe('GROW', () => {
  it('stops when two consecutive normalised answers match, the previous attempt in context', async () => {
    const model = queueModel(['The answer is BD.', 'So the answer is: bd']);
    const r = await grow(model, PROBLEM);
    expect(r).toMatchObject({ answer: 'bd', stopReason: 'stable', calls: 2 });
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('The answer is BD.');
  });

  it('runs R = 3 rounds when the answers keep changing; an empty answer matches nothing', async () => {
    const r = await grow(queueModel(['The answer is a.', '', '', 'x']), PROBLEM, { rounds: 4 });
    expect(r).toMatchObject({ answer: null, stopReason: 'rounds', calls: 4 });
    const d = await grow(queueModel(['The answer is a.', 'The answer is b.', 'The answer is c.']), PROBLEM);
    expect(d).toMatchObject({ answer: 'c', stopReason: 'rounds', calls: 3 });
  });

  it('a lab rule may stop it first (fixed budget of 2 rounds)', async () => {
    const model = queueModel(['The answer is a.', 'The answer is b.', 'The answer is c.']);
    const r = await grow(model, PROBLEM, { rule: { name: 'fixed-budget', params: { budget: 2 } } });
    expect(r).toMatchObject({ answer: 'b', stopReason: 'rule', calls: 2 });
  });
});

describe('PRUNE', () => {
  it('one sub-question falls back to a direct solve', async () => {
    const model = queueModel(['1. What are the last letters?', 'The answer is bd.']);
    const r = await prune(model, PROBLEM);
    expect(r).toMatchObject({ answer: 'bd', fallback: true, calls: 2, subQuestions: ['What are the last letters?'] });
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).not.toContain('Sub-question');
  });

  it('solves the sub-questions in order with earlier answers in context, then composes', async () => {
    const model = scriptedModel(({ texts }) => {
      const t = texts[0]!;
      if (t.includes('Do not solve')) return '1. Last letter of Ab?\n2) Last letter of Cd?\n3. Ignored beyond the cap';
      if (t.includes('Now answer only this sub-question: Last letter of Ab?')) return 'The answer is b.';
      if (t.includes('Now answer only this sub-question: Last letter of Cd?')) return 'The answer is d.';
      if (t.includes('Sub-questions answered so far')) return 'The answer is bd.';
      throw new Error(`unscripted prompt: ${t}`);
    });
    const r = await prune(model, PROBLEM, { maxSubQuestions: 2 });
    expect(r).toMatchObject({ answer: 'bd', fallback: false, calls: 4 });
    expect(r.subAnswers.map((s) => s.answer)).toEqual(['b', 'd']);
    const second = JSON.stringify(model.doGenerateCalls[2]!.prompt);
    expect(second).toContain('Sub-question 1: Last letter of Ab?\\nAnswer: b');
  });
});

describe('BRANCH', () => {
  it('plurality over normalised answers, empties discarded from winning votes, at temperature 0.7', async () => {
    const model = queueModel(['', '', '', 'The answer is b.', 'the answer is B']);
    const r = await branch(model, PROBLEM);
    expect(r).toMatchObject({ answer: 'b', agreement: 2 / 5, stopReason: 'samples', calls: 5 });
    expect(r.votes).toEqual([['b', 2]]);
    expect(model.doGenerateCalls.map((c) => c.temperature)).toEqual([0.7, 0.7, 0.7, 0.7, 0.7]);
    // a tie goes to the answer seen first; the caller's temperature is kept
    const tie = await branch(
      queueModel(['The answer is a.', 'The answer is b.', 'The answer is b.', 'The answer is a.', '']),
      PROBLEM,
      { temperature: 1 },
    );
    expect(tie.answer).toBe('a');
    const none = await branch(queueModel(['', '', '']), PROBLEM, { samples: 3 });
    expect(none).toMatchObject({ answer: null, agreement: 0 });
  });

  it('a registered lab rule stops early: ESC windows of 2 stop at the first unanimous window', async () => {
    const model = queueModel([
      'The answer is a.',
      'The answer is b.',
      'The answer is b.',
      'The answer is b.',
      'The answer is a.',
    ]);
    const r = await branch(model, PROBLEM, { rule: { name: 'plurality', params: { window: 2 } } });
    // windows [a, b] (mixed), [b, b] (unanimous): stop after 4 samples, b has 3 votes of 4
    expect(r).toMatchObject({ answer: 'b', stopReason: 'rule', calls: 4, agreement: 3 / 4 });
    expect(model.doGenerateCalls).toHaveLength(4);
  });

  it('the order-gap rule reads the vote state one answer at a time', async () => {
    const same = Array.from({ length: 5 }, () => 'The answer is a.');
    const r = await branch(queueModel(same), PROBLEM, {
      rule: { name: 'order-gap', params: { epsilon: 0.5, window: 1 } },
    });
    // unanimous answers: after the first, Ω of an agreeing sample is at most (1 − λ)·u·√2 < 0.5
    expect(r.stopReason).toBe('rule');
    expect(r.samples.length).toBeLessThan(5);
    expect(r.answer).toBe('a');
  });
});
