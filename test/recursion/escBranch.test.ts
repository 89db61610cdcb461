/**
 * BRANCH with N = 5 over recorded GPT-3.5 samples (the ESC release for Last Letters, shared data
 * outside the repository): the mock model replays an item's recorded completions in order as its
 * outputs (no model is called here) — the baseline its first sample, BRANCH its first five — and
 * the paired score is checked against a plurality computed directly from the extracted answers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from '../../bench/_data.js';
import { answerIsExtractor } from '../../src/lab/extractors.js';
import { runRecursion } from '../../src/recursion/run.js';
import { scoreRecursion } from '../../src/recursion/scoring.js';
import { scriptedModel } from './scripted.js';

const file = sharedDataFile(ESC_LAST_LETTERS);
if (file === null) console.warn(`test/recursion/escBranch.test.ts: skipped, ${absentMessage(ESC_LAST_LETTERS)}`);
const title =
  file === null
    ? `BRANCH on recorded samples (skipped: ${absentMessage(ESC_LAST_LETTERS)})`
    : 'BRANCH on recorded samples';

describe.skipIf(file === null)(title, () => {
  it('N = 5 against the single-sample baseline, paired', async () => {
    const rows = readFileSync(file!, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { question: string; answer: string; generated_answer: string[] });
    const byQuestion = new Map(rows.map((r, i) => [r.question, i]));
    const next = rows.map(() => 0);
    const model = scriptedModel(({ texts, temperature }) => {
      const i = byQuestion.get(texts[0]!.split('\n\n')[0]!)!;
      // the baseline (provider temperature) reads sample 0; BRANCH (0.7) samples 0..4 in order
      if (temperature !== 0.7) return rows[i]!.generated_answer[0]!;
      return rows[i]!.generated_answer[next[i]!++]!;
    });
    const items = rows.map((r) => ({ question: r.question, answer: r.answer }));
    const report = scoreRecursion(await runRecursion(model, items, { operators: ['branch'] }));

    // the oracle: extract the first five samples, plurality with empties discarded, ties to the first seen
    let base = 0;
    let voted = 0;
    for (const r of rows) {
      const gold = answerIsExtractor.normalizeGold(r.answer);
      const keys = r.generated_answer.slice(0, 5).map((s) => answerIsExtractor.extract(s));
      const counts = new Map<string, number>();
      for (const k of keys) if (k.kind === 'answer') counts.set(k.answer, (counts.get(k.answer) ?? 0) + 1);
      const top = Math.max(0, ...counts.values());
      const winner = [...counts.keys()].find((a) => counts.get(a) === top) ?? null;
      const first = keys[0]!;
      base += first.kind === 'answer' && first.answer === gold ? 1 : 0;
      voted += winner !== null && winner === gold ? 1 : 0;
    }
    const n = rows.length;
    expect(report.pairedItems).toBe(n);
    const [cot, branch] = report.methods;
    expect(cot!.accuracy).toBeCloseTo(base / n, 12);
    expect(branch!.accuracy).toBeCloseTo(voted / n, 12);
    expect(branch!.accuracyChange).toBeCloseTo((voted - base) / n, 12);
    expect(branch!.extraCalls).toBe(4);
    expect(branch!.pointsPerExtraCall).toBeCloseTo((100 * (voted - base)) / n / 4, 10);
    const d = branch!.accuracyDifference!;
    expect(d.items).toBe(n);
    expect(d.low).toBeLessThanOrEqual(d.mean);
    console.log(
      `BRANCH N = 5 on ${n} recorded items: ${(100 * cot!.accuracy).toFixed(2)}% → ${(100 * branch!.accuracy).toFixed(2)}%, ` +
        `paired difference ${(100 * d.mean).toFixed(2)} points [${(100 * d.low).toFixed(2)}, ${(100 * d.high).toFixed(2)}]`,
    );
  }, 120_000);
});
