import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/program.js';
import { runReport } from '../../src/report/run.js';
import { DEFAULT_SCENARIO_FILES, defaultScenario } from '../../src/graph/scenarios/scenario.js';

async function cli(...args: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  try {
    const status = await runCli(['node', 'ordergap', ...args]);
    return { status, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('ordergap run (default scenario)', () => {
  it('stops by the order-gap before the budget and explains why', async () => {
    const r = await runReport();
    expect(r.stop.reason).toBe('order-gap');
    expect(r.stop.step).toBeLessThan(r.stop.budget);
    // the stop: the mean of the last w order-gaps is <= ε, recomputed from the trajectory
    const last = r.trajectory.slice(-r.setting.window);
    expect(last.reduce((a, x) => a + x.omega, 0) / last.length).toBeLessThanOrEqual(r.setting.epsilon);
    expect(r.scenario.confidenceLipschitzBound).toBeLessThan(1);
  });

  it("under --rule the report explains the stop in the rule's own terms, and its best step is the trajectory's smallest Ω̂", async () => {
    // an order-gap rule's ε and w are the run's: the explanation's window and its mean hold
    const og = await runReport({ rule: 'order-gap:epsilon=0.05,window=2' });
    expect(og.setting).toMatchObject({ epsilon: 0.05, window: 2 });
    const last = og.trajectory.slice(-2);
    expect((last[0]!.omega + last[1]!.omega) / 2).toBeLessThanOrEqual(0.05);
    expect(og.stop.explanation).toMatch(/^the last 2 order-gaps .* <= ε = 0\.05/);
    // a rule's own step cap is its stop, not Tmax running out
    const capped = await runReport({ rule: 'fixed-budget:budget=10' });
    expect(capped.stop).toMatchObject({ step: 10, reason: 'budget' });
    expect(capped.stop.explanation).toMatch(
      /^fixed-budget\(budget=10\) reached its own step cap .* before Tmax = 120$/,
    );
    // a budget shorter than the window: there is no Ω̂ to compare with ε
    expect((await runReport({ maxSteps: 3 })).stop.explanation).toBe(
      'the budget Tmax = 3 ran out before the window of w = 4 order-gaps was full (no Ω̂ yet)',
    );
    await expect(runReport({ coverage: 'stop', schedule: 0.05 })).rejects.toThrow(
      /^--coverage = "stop": runs the loop with Q at every step, so it cannot sit beside --schedule/,
    );
    for (const r of [og, capped, await runReport({ rule: 'order-gap:maxSteps=20' })]) {
      const scored = r.trajectory.filter((x) => x.windowed !== null);
      const smallest = Math.min(...scored.map((x) => x.windowed!));
      expect(r.best).toEqual({ step: scored.find((x) => x.windowed === smallest)!.t, windowed: smallest });
    }
  });

  it('ends with the multi-hop answers, no open question, the contradiction resolved toward the reliable source, and the duplicates merged', async () => {
    const f = (await runReport()).finalState!;
    const best = Object.fromEntries(f.answers.filter((a) => a.best).map((a) => [a.question, a.answer]));
    expect(best).toEqual({ 'q:author': 'a:author:vance', 'q:birthplace': 'a:birthplace', 'q:country': 'a:country' });
    expect(f.openQuestions).toEqual([]);
    expect(f.contradictionsLeft).toBe(0);
    expect(f.contradictions.map((c) => c.weaker)).toEqual(['c:holt-wrote']);
    const m = f.merged.find((x) => x.claims.includes('c:vance-wrote'))!;
    expect(m.claims).toEqual(['c:vance-wrote', 'c:vance-wrote-pub']);
    expect(m.originalDistance).not.toBeNull();
    expect(m.distance).toBeLessThan(m.originalDistance!);
  });

  it('promotes exactly the questions whose resolution support the drawn items raised to the threshold (derived from the pool and the trajectory)', async () => {
    const r = await runReport();
    const pool = JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.evidence, 'utf8')) as {
      items: Array<{ id: string; strength: number; edges: Array<{ type: string; target: string; weight: number }> }>;
    };
    const graph = JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.graph, 'utf8')) as {
      nodes: Array<{ id: string; question?: string }>;
    };
    const questionOf = new Map(graph.nodes.filter((n) => n.question).map((n) => [n.id, n.question!]));
    // S_qq after the run: each draw of an item that supports an answer of q blends it towards 1 at
    // a_e·w_max (P_e), and Q never changes an edge
    const support = new Map<string, number>();
    for (const row of r.trajectory) {
      const item = pool.items.find((i) => i.id === row.evidence)!;
      const best = new Map<string, number>();
      for (const e of item.edges) {
        const q = questionOf.get(e.target);
        if (e.type === 'Supports' && q !== undefined && e.weight > 0) best.set(q, Math.max(best.get(q) ?? 0, e.weight));
      }
      for (const [q, w] of best) {
        const x = support.get(q) ?? 0;
        support.set(q, x + item.strength * w * (1 - x));
      }
    }
    const f = r.finalState!;
    const threshold = defaultScenario().params.promotionThreshold;
    const expected = [...support].filter(([, s]) => s >= threshold).map(([q]) => q);
    expect(expected.length).toBeGreaterThan(0);
    expect(f.promoted.map((p) => p.question).sort()).toEqual(expected.sort());
    for (const p of f.promoted) {
      expect(p.threshold).toBe(threshold);
      expect(p.support).toBe(support.get(p.question));
      const best = f.answers.find((a) => a.question === p.question && a.best);
      expect(p.answer).toBe(best?.answer ?? null);
      expect(f.openQuestions).not.toContain(p.question);
    }
    expect(
      f.questions
        .filter((q) => q.promoted)
        .map((q) => q.question)
        .sort(),
    ).toEqual(expected.sort());
    const t = await cli('run');
    expect(t.out).toContain(`Promoted to partial answers: ${f.promoted[0]!.question} (resolution support`);
  });

  it('starts with every question open', async () => {
    const s = (await runReport({ maxSteps: 1 })).initialState!;
    expect(s.openQuestions.sort()).toEqual(['q:author', 'q:birthplace', 'q:country']);
    expect(s.promoted).toEqual([]);
  });

  it('prints the trajectory and the final state in words; --json is one document', async () => {
    const t = await cli('run');
    expect(t.status).toBe(0);
    expect(t.out).toMatch(/Algorithm 1 stops at step \d+ of the budget 120/);
    expect(t.out).toMatch(/Open questions left: none/);
    expect(t.out).toMatch(/Contradictions left: none; resolved by downweighting: c:holt-wrote/);
    expect(t.out).toMatch(/Merged claims: c:vance-wrote \(encyclopedia\) ~ c:vance-wrote-pub \(publisher\)/);
    const j = await cli('run', '--json', '--max-steps', '5', '--epsilon', '1e-9');
    const doc = JSON.parse(j.out);
    expect(doc.trajectory).toHaveLength(5);
    expect(doc.stop).toMatchObject({ step: 5, budget: 5, reason: 'budget' });
  });

  it('--graph/--evidence run other files; bad flags and files exit 2 naming them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'og-run-'));
    const ev = JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.evidence, 'utf8'));
    ev.items[0].edges[0].target = 'a:ghost';
    writeFileSync(join(dir, 'ev.json'), JSON.stringify(ev));
    const bad = await cli('run', '--graph', DEFAULT_SCENARIO_FILES.graph, '--evidence', join(dir, 'ev.json'));
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/evidence\.items\[0\]\.edges\[0\]\.target = "a:ghost": unknown node id "a:ghost"/);
    const ok = await cli(
      'run',
      '--json',
      '--graph',
      DEFAULT_SCENARIO_FILES.graph,
      '--evidence',
      DEFAULT_SCENARIO_FILES.evidence,
    );
    expect(ok.status).toBe(0);
    expect((await cli('run', '--graph', DEFAULT_SCENARIO_FILES.graph)).err).toMatch(
      /--evidence = undefined: is required/,
    );
    for (const args of [
      ['--epsilon', '0'],
      ['--window', 'x'],
      ['--max-steps', '0'],
      ['--seed', '-1'],
      ['--delta', '1'],
    ]) {
      const r = await cli('run', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    const missing = await cli('run', '--graph', join(dir, 'nope.json'), '--evidence', join(dir, 'ev.json'));
    expect(missing.status).toBe(2);
    expect(missing.err).toMatch(/--graph = ".*nope\.json": cannot be read \(ENOENT\)/);
  });
});
