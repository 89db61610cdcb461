import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentState, type SaveIo } from '../../../src/graph/agent/agent.js';
import { OrderGapRule } from '../../../src/stopping/orderGapRule.js';
import type { StopDecision } from '../../../src/stopping/rule.js';
import { createScenario, defaultScenario, DEFAULT_SCENARIO_FILES } from '../../../src/graph/scenarios/scenario.js';
import { referenceGraphSystem } from '../../../src/graph/system.js';
import { ConsolidationSchedule } from '../../../src/graph/scenarios/evidence.js';
import { runRecursive } from '../../../src/ordergap/algorithm1.js';
import { GraphFormatError } from '../../../src/graph/model/schema.js';
import { openGraphDoc, openItem, smallGraphDoc } from '../fixtures.js';

const sc = defaultScenario();
const poolDoc = JSON.parse(readFileSync(DEFAULT_SCENARIO_FILES.evidence, 'utf8')) as { items: Array<{ id: string }> };
const itemDoc = (id: string) => poolDoc.items.find((i) => i.id === id)!;
const sequence = ['e01', 'e03', 'e02', 'e01', 'e04', 'e05', 'e03', 'e04', 'e06', 'e07'];

describe('agent-loop API', () => {
  it('step() reproduces Algorithm 1 bit for bit (same Ω_t and θ_t as runRecursive on the same sequence)', () => {
    const run = runRecursive(referenceGraphSystem(sc), { epsilon: 1e-12, window: 1, maxSteps: 10, sequence });
    const state = AgentState.fromScenario(sc);
    sequence.forEach((id, t) => {
      expect(state.step(itemDoc(id))).toBe(run.steps[t]!.omega);
      expect(state.theta).toEqual(run.steps[t]!.theta);
    });
    expect(state.steps).toBe(10);
  });

  it("the structured state against the dense oracle: the same Ω_t and θ_t as the dense run, and the exported document entry for entry the dense vector's non-zeros", () => {
    const sys = referenceGraphSystem(sc, { backend: 'reference' });
    const dense = runRecursive(sys, { epsilon: 1e-12, window: 1, maxSteps: 10, sequence, representation: 'dense' });
    const state = AgentState.fromScenario(sc);
    sequence.forEach((id, t) => {
      expect(Object.is(state.step(itemDoc(id)), dense.steps[t]!.omega)).toBe(true);
      const theta = dense.steps[t]!.theta!;
      expect(state.theta.every((x, i) => Object.is(x, theta[i]))).toBe(true);
      const pairs: Array<[number, number]> = [];
      theta.forEach((v, i) => v !== 0 && pairs.push([i, v]));
      expect(state.toJSON().theta).toEqual(pairs);
    });
    // far below the dense θ's 8·d bytes
    expect(state.stateBytes).toBeLessThan(8 * sc.layout.dim);
  });

  it('expandScheduled consolidates only when the accumulated exact Ω crosses the threshold', () => {
    const a = AgentState.fromScenario(sc);
    const b = AgentState.fromScenario(sc);
    const schedule = new ConsolidationSchedule(sc.run.epsilon);
    let consolidations = 0;
    for (const id of sequence) {
      const omega = b.orderGap(itemDoc(id));
      const r = a.expandScheduled(itemDoc(id), schedule);
      expect(Object.is(r.omega, omega)).toBe(true);
      b.expand(itemDoc(id));
      if (r.consolidated) {
        b.consolidate();
        consolidations++;
      }
      expect(a.theta).toEqual(b.theta);
    }
    expect(consolidations).toBeGreaterThan(0);
  });

  it('expand + consolidate equals step; orderGap changes nothing', () => {
    const a = AgentState.fromScenario(sc);
    const b = AgentState.fromScenario(sc);
    const before = a.theta;
    const omega = a.orderGap(itemDoc('e01'));
    expect(a.theta).toEqual(before);
    expect(omega).toBe(b.step(itemDoc('e01')));
    a.expand(itemDoc('e01'));
    a.consolidate();
    expect(a.theta).toEqual(b.theta);
  });

  it('new claims take free slots of the graph; a bad item changes nothing (capacity growth: test/graph/model/grow.test.ts)', () => {
    const s = AgentState.fromGraph(smallGraphDoc()); // claims capacity 3, two used
    const item = {
      id: 'x1',
      strength: 0.5,
      claims: [{ id: 'c3', attributes: [0.9, 0.9], support: 0.8 }],
      edges: [{ type: 'Supports', source: 'c3', target: 'a', weight: 0.7 }],
    };
    s.expand(item);
    expect(s.layout.slotOf.get('c3')).toBe(2);
    s.expand(item); // the same item again is a re-application, not a duplicate
    const theta = s.theta;
    const layout = s.layout;
    expect(() => s.expand({ ...item, edges: [{ type: 'Supports', source: 'c3', target: 'q', weight: 1 }] })).toThrow(
      GraphFormatError,
    );
    expect(() => s.step({ ...item, strength: 2 })).toThrow(/evidence\.items\[0\]\.strength = 2/);
    expect(s.theta).toEqual(theta);
    expect(s.layout).toBe(layout);
  });

  it('an item that adds an answer and a sub-question: describe() lists the answer under its question and the question open with its parent', () => {
    const s = AgentState.fromGraph(openGraphDoc());
    s.step(openItem());
    const slots = s.layout.slots.map((x) => x.id);
    for (let t = 0; t < 3; t++) s.consolidate();
    const d = s.describe();
    expect(d.answers.filter((a) => a.question === 'q:pub')).toEqual([
      { question: 'q:pub', answer: 'a:pub:acme', text: 'Acme Press', confidence: expect.any(Number), best: true },
    ]);
    expect(d.answers.find((a) => a.answer === 'a:pub:acme')!.confidence).toBeGreaterThan(0);
    expect(d.answers.map((a) => a.answer)).toContain('a:other');
    // one draw wrote the resolution support 0.6·0.8 = 0.48 < τ_promote: still open
    expect(d.questions.find((q) => q.question === 'q:pub')).toEqual({
      question: 'q:pub',
      text: 'Who published it?',
      openness: expect.any(Number),
      open: true,
      promoted: false,
      parent: 'q',
    });
    expect(d.openQuestions).toContain('q:pub');
    expect(s.reserved).toEqual([
      { id: 'c:pub', type: 'claim', source: 'catalogue' },
      { id: 'a:pub:acme', type: 'answer', question: 'q:pub', text: 'Acme Press' },
      { id: 'a:other', type: 'answer', question: 'q' },
      { id: 'q:pub', type: 'question', parent: 'q', text: 'Who published it?' },
    ]);
    // the same item again is a re-application: no new slot, the same ids where they were
    const layout = s.layout;
    s.step(openItem());
    expect(s.layout.slots.map((x) => x.id)).toEqual(slots);
    expect(s.reserved).toHaveLength(4);
    expect(s.layout.capacities).toEqual(layout.capacities);
    // and so it is as a candidate of the coverage check; a candidate's new question gets a slot
    expect(s.scenarioWith([openItem()]).layout.slots).toEqual(s.layout.slots);
    const ask = { id: 'e:ask', strength: 0.5, questions: [{ id: 'q:why', attributes: [0, 1], parent: 'q:pub' }] };
    const withAsk = s.scenarioWith([openItem(), ask]).layout;
    expect(withAsk.slots[withAsk.slotOf.get('q:why')!]!.parentSlot).toBe(withAsk.slotOf.get('q:pub'));
    // the state document keeps each added answer's question and question's parent
    const doc = JSON.parse(JSON.stringify(s.toJSON()));
    const r = AgentState.fromJSON(doc);
    expect(r.theta).toEqual(s.theta);
    expect(r.layout.slots).toEqual(s.layout.slots);
    expect(r.describe()).toEqual(s.describe());
    expect(r.orderGap(openItem())).toBe(s.orderGap(openItem()));
    expect(JSON.stringify(r.toJSON())).toBe(JSON.stringify(doc));
    expect(() =>
      AgentState.fromJSON({ ...doc, reserved: [...doc.reserved, { id: 'q:x', type: 'question', parent: 'c1' }] }),
    ).toThrow(/^reserved\[4\]\.parent = "c1": names no question node/);
  });

  it('an added node declared again under another question or parent, or with the id of a graph node, is refused and changes nothing', () => {
    const s = AgentState.fromGraph(openGraphDoc());
    s.step(openItem());
    const theta = s.theta;
    const layout = s.layout;
    const moved = openItem();
    moved.answers[1]!.question = 'q:pub';
    expect(() => s.step(moved)).toThrow(/^evidence\.items\[0\]\.answers\[1\]\.id = .*duplicate node id "a:other"/);
    const { parent: _, ...orphan } = openItem().questions[0]!;
    const reparented = { ...openItem(), questions: [orphan] };
    expect(() => s.step(reparented)).toThrow(/evidence\.items\[0\]\.questions\[0\]\.id/);
    expect(() => s.step({ ...openItem(), questions: [{ id: 'q', attributes: [0, 0] }] })).toThrow(
      /evidence\.items\[0\]\.questions\[0\]\.id.*duplicate node id "q"/,
    );
    expect(s.theta).toEqual(theta);
    expect(s.layout).toBe(layout);
  });

  it('a scenario whose pool adds answers and questions: the agent reproduces Algorithm 1 on it bit for bit', () => {
    const open = createScenario(openGraphDoc(), {
      items: [
        openItem(),
        {
          id: 'e:plain',
          strength: 0.5,
          claims: [{ id: 'c:x', attributes: [0.2, 0.2], support: 0.6 }],
          edges: [{ type: 'Supports', source: 'c:x', target: 'a:other', weight: 0.5 }],
        },
      ],
    });
    const seq = ['e:plain', 'e:open', 'e:plain', 'e:open', 'e:open'];
    const run = runRecursive(referenceGraphSystem(open), { epsilon: 1e-12, window: 1, maxSteps: 5, sequence: seq });
    const state = AgentState.fromScenario(open);
    const items = new Map(open.pool.items.map((it) => [it.id, it]));
    seq.forEach((id, t) => {
      expect(state.step(items.get(id))).toBe(run.steps[t]!.omega);
      expect(state.theta).toEqual(run.steps[t]!.theta);
    });
    expect(state.layout.slots).toEqual(open.layout.slots);
  });

  it('exports to JSON and restores the same state exactly', () => {
    const s = AgentState.fromScenario(sc);
    for (const id of sequence) s.step(itemDoc(id));
    const doc = JSON.parse(JSON.stringify(s.toJSON()));
    const r = AgentState.fromJSON(doc);
    expect(r.theta).toEqual(s.theta);
    expect(r.steps).toBe(10);
    expect(r.orderGap(itemDoc('e05'))).toBe(s.orderGap(itemDoc('e05')));
    // the items applied, each in its latest form: a JSON round trip loses nothing
    expect(doc.evidence).toEqual(s.evidence);
    expect(r.evidence).toEqual(s.evidence);
    expect(JSON.stringify(r.toJSON())).toBe(JSON.stringify(doc));
    // a document without the field (older) restores a state that has applied nothing
    const { evidence: _, ...older } = doc;
    expect(AgentState.fromJSON(older).evidence).toEqual([]);
    expect(() => AgentState.fromJSON({ ...doc, evidence: {} })).toThrow(
      /^state\.evidence = an object: must be an array/,
    );
    expect(() => AgentState.fromJSON({ ...doc, evidence: [null] })).toThrow(/^state\.evidence\[0\] = null: must be/);
    expect(() => AgentState.fromJSON({ ...doc, evidence: [doc.evidence[0], doc.evidence[0]] })).toThrow(
      /^state\.evidence\[1\]\.id = "e01": is the id of state\.evidence\[0\]/,
    );
    // every field of the document is checked before use, naming it
    expect(() => AgentState.fromJSON({ ...doc, attributeStrength: 5 })).toThrow(
      /^state\.attributeStrength = 5: must lie in \(0, 1\]/,
    );
    expect(() => AgentState.fromJSON({ ...doc, attributeStrength: 'x' })).toThrow(/^state\.attributeStrength = "x"/);
    expect(() => AgentState.fromJSON({ ...doc, steps: -3 })).toThrow(/^state\.steps = -3/);
    expect(() => AgentState.fromJSON({ ...doc, steps: 2.5 })).toThrow(/^state\.steps = 2\.5/);
    expect(() => AgentState.fromJSON({ ...doc, reserved: [null] })).toThrow(/^reserved\[0\] = null: must be a node/);
    expect(() => AgentState.fromJSON({ ...doc, reserved: [{ id: 'x', type: 'bogus' }] })).toThrow(
      /^reserved\[0\]\.type = "bogus": must be 'claim', 'answer' or 'question'/,
    );
    expect(() => AgentState.fromJSON({ ...doc, format: 'x' })).toThrow(/state\.format = "x"/);
    expect(() => AgentState.fromJSON({ ...doc, theta: [[1e9, 1]] })).toThrow(/state\.theta\[0\]\[0\] = 1000000000/);
  });

  it('restore() makes a state held elsewhere the document, in place: it continues bit for bit; a bad document changes nothing', () => {
    const a = AgentState.fromScenario(sc);
    for (const id of sequence.slice(0, 6)) a.step(itemDoc(id));
    const doc = JSON.parse(JSON.stringify(a.toJSON()));
    // a state that went elsewhere (other items, another graph) takes the document's place
    const b = AgentState.fromGraph(openGraphDoc());
    b.step(openItem());
    const held = b;
    held.restore(doc);
    expect(held).toBe(b);
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(doc));
    expect(b.evidence).toEqual(a.evidence);
    for (const id of sequence.slice(6)) expect(Object.is(b.step(itemDoc(id)), a.step(itemDoc(id)))).toBe(true);
    expect(Buffer.from(b.theta.buffer).equals(Buffer.from(a.theta.buffer))).toBe(true);
    expect(b.steps).toBe(a.steps);
    const before = JSON.stringify(b.toJSON());
    expect(() => b.restore({ ...doc, theta: [[1e9, 1]] })).toThrow(/^state\.theta\[0\]\[0\] = 1000000000/);
    expect(() => b.restore({ ...doc, evidence: [null] })).toThrow(/^state\.evidence\[0\] = null/);
    expect(JSON.stringify(b.toJSON())).toBe(before);
  });

  it('save() is atomic: a crash mid-write leaves the previous file intact and no temp file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'og-agent-'));
    const file = join(dir, 'state.json');
    const s = AgentState.fromScenario(sc);
    await s.save(file);
    const first = readFileSync(file, 'utf8');
    expect(AgentState.fromJSON(JSON.parse(first)).theta).toEqual(s.theta);
    s.step(itemDoc('e01'));
    const crashing: SaveIo = {
      // writes the first half of the document to the temp file, then "crashes"
      writeFile: async (p, d) => {
        await writeFile(p, d.slice(0, d.length >> 1));
        throw new Error('simulated crash mid-write');
      },
      rename: () => Promise.reject(new Error('unreachable')),
      unlink: (p) => import('node:fs/promises').then((fs) => fs.unlink(p)),
    };
    await expect(s.save(file, crashing)).rejects.toThrow(/simulated crash/);
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(readdirSync(dir)).toEqual(['state.json']);
    // a failing rename also leaves the old file
    const noRename: SaveIo = {
      ...crashing,
      writeFile: (p, d) => writeFile(p, d),
      rename: () => Promise.reject(new Error('EXDEV')),
    };
    await expect(s.save(file, noRename)).rejects.toThrow(/EXDEV/);
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(readdirSync(dir)).toEqual(['state.json']);
    await s.save(file);
    expect(AgentState.fromJSON(JSON.parse(readFileSync(file, 'utf8'))).theta).toEqual(s.theta);
    expect(existsSync(file)).toBe(true);
  });
});

describe('consolidation scheduling in the agent loop', () => {
  it('runs Q only when the accumulated order-gap exceeds the threshold', async () => {
    const { ConsolidationSchedule } = await import('../../../src/graph/scenarios/evidence.js');
    const s = AgentState.fromScenario(sc);
    const ref = AgentState.fromScenario(sc);
    const schedule = new ConsolidationSchedule(0.3);
    let acc = 0;
    const flags: boolean[] = [];
    for (const id of sequence) {
      const omega = ref.orderGap(itemDoc(id));
      ref.expand(itemDoc(id));
      acc += omega;
      const r = s.expandScheduled(itemDoc(id), schedule);
      expect(r.omega).toBe(omega);
      expect(r.consolidated).toBe(acc > 0.3);
      flags.push(r.consolidated);
      if (acc > 0.3) {
        ref.consolidate();
        acc = 0;
      }
      expect(s.theta).toEqual(ref.theta);
    }
    expect(flags).toContain(true); // both branches happen on this sequence
    expect(flags).toContain(false);
  });
});

describe('the agent loop with the order-gap rule', () => {
  it('drives the default scenario to the same stop as Algorithm 1', () => {
    const run = runRecursive(referenceGraphSystem(sc), { ...sc.run, recordStates: false });
    const s = AgentState.fromScenario(sc);
    const rule = new OrderGapRule({ epsilon: sc.run.epsilon, window: sc.run.window, maxSteps: sc.run.maxSteps });
    let decision: StopDecision | undefined;
    for (const step of run.steps) {
      const omega = s.step(itemDoc(step.evidence));
      decision = rule.observe({ t: s.steps, omega });
      if (decision.stop) break;
    }
    expect(decision).toMatchObject({ stop: true, reason: 'order-gap' });
    expect(s.steps).toBe(run.stop.step);
    expect(decision!.statistic).toBe(run.steps.at(-1)!.statistic);
    expect(s.theta).toEqual(run.finalState);
  });
});

describe('AgentState keeps the evidence it applied as it was applied', () => {
  it('a caller changing its item afterwards, or a reader the list it got, changes neither the list nor the revision', () => {
    const s = AgentState.fromGraph(openGraphDoc());
    const item = openItem();
    const before = JSON.stringify(item);
    s.step(item);
    const revision = s.revision;
    (item as { strength: number }).strength = 0.9;
    expect(JSON.stringify(s.evidence[0])).toBe(before);
    expect(() => {
      (s.evidence[0] as { strength: number }).strength = 0.1;
    }).toThrow(TypeError);
    expect(JSON.stringify(s.toJSON().evidence)).toBe(`[${before}]`);
    expect(s.revision).toBe(revision);
  });
});
