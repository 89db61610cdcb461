// A checkpointed LangGraph loop (LangGraph's MemorySaver, its ToolNode, fake tool calls) stopped
// midway in every way LangGraph resumes from — interruptBefore / interruptAfter, the recursion
// limit, a stream left early — and resumed by a graph built from scratch (new AgentState, new
// stopper, new node) on the same thread: it stops at the same step with the same report and θ.
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Annotation, GraphRecursionError, MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  orderGapChannel,
  OrderGapAnnotation,
  orderGapNode,
  type LangGraphStopReport,
  type OrderGapCheckpoint,
} from '../../src/adapters/langgraph.js';
import type { CoverageStopper } from '../../src/coverageStop/stopper.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { agentCheckSite } from '../../src/graph/system.js';
import { itemDoc, paper, pool, scenario, scenarioStopper, sequence } from './fixtures.js';
import { orderGapEdges } from './loop.js';

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...OrderGapAnnotation.spec });
type Values = typeof State.State;

const retrieve = tool(async ({ id }: { id: string }) => JSON.stringify(itemDoc(id)), {
  name: 'retrieve',
  description: 'retrieve one evidence item',
  schema: z.object({ id: z.string() }),
});

/**
 * How the agent picks the next item: `sequence`, Algorithm 1's draws in order (a function of the
 * conversation: the n-th request asks for the n-th draw); `greedy`, the pool item that moves the
 * current state most (argmax Ω(θ; e)): a choice that reads the AgentState.
 */
type Pick = 'sequence' | 'greedy';
const choose: Record<Pick, (messages: readonly BaseMessage[], state: AgentState) => string> = {
  sequence: (messages) => sequence[messages.filter((m) => m.getType() === 'ai').length]!,
  greedy: (_messages, state) => {
    let best = pool[0]!;
    let most = -1;
    for (const item of pool) {
      const omega = state.orderGap(item);
      if (omega > most) [best, most] = [item, omega];
    }
    return best.id;
  },
};

/** A loop: the agent's pick, how the stopper is made and whether the coverage check gets the pool. */
interface Loop {
  pick: Pick;
  stopper: () => CoverageStopper;
  candidates: boolean;
}
const LOOPS = {
  // the paper's rule alone on Algorithm 1's draws
  paper: { pick: 'sequence', stopper: () => scenarioStopper(false), candidates: false },
  // the greedy agent; its candidate stop is checked (converged)
  greedy: { pick: 'greedy', stopper: () => scenarioStopper('continue'), candidates: true },
  // blind candidate stops refused (the rule's window restarts) until the budget of 70 steps
  refusing: { pick: 'sequence', stopper: () => scenarioStopper('continue', 70), candidates: true },
} satisfies Record<string, Loop>;

type Interrupts = { interruptBefore?: ['checkStop']; interruptAfter?: ['checkStop'] };

/** Where {@link instance} builds its graph, and what it watches. */
interface Setting {
  checkpointer: MemorySaver;
  interrupts?: Interrupts;
  /** Receives the id of every item the AgentState applies. */
  applied?: string[];
  /** Replaces the fresh AgentState (a state the user restored). */
  state?: AgentState;
  /** The state annotation (default `State`, with OrderGapAnnotation's fields). */
  annotation?: typeof State;
}

/** The graph built from scratch: agent (fake tool call) → ToolNode → checkStop → agent | END. */
function instance(loop: Loop, setting: Setting) {
  const { applied = [], state = AgentState.fromScenario(scenario), annotation = State } = setting;
  const step = state.step.bind(state);
  state.step = (item) => {
    applied.push((item as { id: string }).id);
    return step(item);
  };
  const stopper = loop.stopper();
  const checkStop = orderGapNode({ state, stopper, ...(loop.candidates ? { candidates: () => pool } : {}) });
  const graph = orderGapEdges(
    new StateGraph(annotation)
      .addNode('agent', async (s) => {
        checkStop.sync(s); // the greedy pick reads the state: bring it to the checkpoint's first
        const id = choose[loop.pick](s.messages, state);
        const call = { id: `call-${s.messages.length}`, name: 'retrieve', args: { id } };
        return { messages: [new AIMessage({ content: '', tool_calls: [call] })] };
      })
      .addNode('tools', new ToolNode([retrieve]))
      .addNode('checkStop', checkStop),
  ).compile({ checkpointer: setting.checkpointer, ...setting.interrupts });
  return { graph, state, stopper, checkStop };
}
type Instance = ReturnType<typeof instance>;

const input = { messages: [{ role: 'user', content: 'research' }] };
const thread = (id: string, recursionLimit = 1000) => ({ configurable: { thread_id: id }, recursionLimit });

/**
 * What a finished run left: the graph state, the last instance's state, stopper and node, and
 * the ids of the items every instance's AgentState applied, in order.
 */
interface Finished {
  values: Values;
  last: Instance;
  applied: readonly string[];
}

const wholeRuns = new Map<Loop, Promise<Finished>>();
/** The loop run once without interruption (once per loop: its instance is never run again). */
function uninterrupted(loop: Loop): Promise<Finished> {
  if (!wholeRuns.has(loop))
    wholeRuns.set(
      loop,
      (async () => {
        const applied: string[] = [];
        const last = instance(loop, { checkpointer: new MemorySaver(), applied });
        return { values: await last.graph.invoke(input, thread('whole')), last, applied };
      })(),
    );
  return wholeRuns.get(loop)!;
}

/**
 * Runs `loop` on a fresh MemorySaver, each leg in a graph built from scratch: `leg(g, i)` runs
 * the i-th leg (i = 0 starts the thread, later legs resume it with `null`) and may stop early;
 * legs continue until the thread has nothing left to run. `applied` lists the items of the
 * checkpoint each leg resumed from, then those the leg applied. With `carry`, each new graph gets the
 * previous graph's AgentState through its JSON document (what a user who saved it would give).
 */
async function resumed(
  loop: Loop,
  leg: (graph: Instance['graph'], i: number) => Promise<unknown>,
  interrupts: Interrupts = {},
  carry = false,
): Promise<Finished & { legs: number }> {
  const saver = new MemorySaver();
  const applied: string[] = [];
  let previous: Instance | null = null;
  for (let i = 0; ; i++) {
    const carried = carry && previous ? AgentState.fromJSON(JSON.parse(JSON.stringify(previous.state))) : undefined;
    const last: Instance = instance(loop, {
      checkpointer: saver,
      interrupts,
      applied,
      ...(carried ? { state: carried } : {}),
    });
    // the items the checkpoint holds applied (its report's step), then those this graph applies:
    // a step cut before LangGraph saved it (a stream left early) runs again on resume
    applied.length = ((await last.graph.getState(thread('t'))).values as Partial<Values>).orderGap?.step ?? 0;
    await leg(last.graph, i);
    const snap = await last.graph.getState(thread('t'));
    if (snap.next.length === 0) return { values: snap.values as Values, last, applied, legs: i + 1 };
    if (i > 500) throw new Error('the run does not end');
    previous = last;
  }
}

const start = (i: number) => (i === 0 ? input : null);
/** Legs cut by the recursion limit: LangGraph raises GraphRecursionError after checkpointing. */
const cutAt = (limits: readonly number[]) => async (graph: Instance['graph'], i: number) => {
  try {
    await graph.invoke(start(i), thread('t', limits[i] ?? 1000));
  } catch (e) {
    if (!(e instanceof GraphRecursionError)) throw e;
  }
};
/** Legs of a stream left after `chunks[i]` updates. */
const leaveStreamAt = (chunks: readonly number[]) => async (graph: Instance['graph'], i: number) => {
  let n = 0;
  for await (const _ of await graph.stream(start(i), thread('t'))) if (++n === chunks[i]) break;
};
const invokeLeg = async (graph: Instance['graph'], i: number) => graph.invoke(start(i), thread('t'));

const thetaBytes = (s: AgentState) => Buffer.from(s.theta.buffer);
const successes = (values: Values) =>
  values.messages.filter((m) => m instanceof ToolMessage && m.status === 'success').length;
const transcript = (values: Values) =>
  values.messages.map((m) => [m.getType(), (m as AIMessage).tool_calls?.[0]?.args?.['id'] ?? m.content]);

/**
 * Same stop, report, messages, θ (bit for bit) and Ω sequence as `whole`; every item retrieved
 * from the `from`-th on applied once.
 */
function expectSameRun(run: Finished, whole: Finished, from = 0) {
  const report = run.values.orderGap!;
  expect(report).toEqual(whole.values.orderGap);
  expect(transcript(run.values)).toEqual(transcript(whole.values));
  expect(run.values.orderGapState).toEqual(JSON.parse(JSON.stringify(whole.values.orderGapState)));
  expect(thetaBytes(run.last.state).equals(thetaBytes(whole.last.state))).toBe(true);
  expect(run.last.checkStop.omegas).toEqual(whole.last.checkStop.omegas);
  // no item applied twice: over all the graphs of the run, the retrieved items, each applied once
  // in the order retrieved; one state step, one stopper observation and one Ω per item
  const retrieved = run.values.messages.flatMap((m) =>
    m instanceof ToolMessage ? [(JSON.parse(String(m.content)) as { id: string }).id] : [],
  );
  expect(run.applied).toEqual(retrieved.slice(from));
  expect(run.last.state.steps).toBe(successes(run.values));
  expect(run.last.stopper.steps).toBe(report.step);
  expect(report.step).toBe(successes(run.values));
  expect(run.last.checkStop.omegas).toHaveLength(report.step);
  expect(run.last.stopper.checks).toEqual(JSON.parse(JSON.stringify(whole.last.stopper.checks)));
}

/** The loop without LangGraph: the stopper module's agent loop with the same picks. */
async function plainLoop(loop: Loop) {
  const state = AgentState.fromScenario(scenario);
  const stopper = loop.stopper();
  const messages: BaseMessage[] = [];
  const omegas: number[] = [];
  for (;;) {
    const id = choose[loop.pick](messages, state);
    messages.push(new AIMessage(id));
    const omega = state.step(itemDoc(id));
    omegas.push(omega);
    const report = await stopper.observe({ omega }, () => agentCheckSite(state, loop.candidates ? pool : undefined));
    if (report.stop) return { report, omegas, theta: thetaBytes(state), checks: stopper.checks };
  }
}

describe('ordergap/langgraph with a checkpointer: the uninterrupted run', () => {
  it("stops where Algorithm 1 stops (the paper's rule), with its Ω sequence", async () => {
    const whole = await uninterrupted(LOOPS.paper);
    expect(whole.values.orderGap).toMatchObject({ stop: true, reason: 'order-gap', step: paper.stop.step });
    expect(successes(whole.values)).toBe(paper.stop.step);
    expect(whole.last.checkStop.omegas).toEqual(paper.steps.map((s) => s.omega));
  });

  it.each(['greedy', 'refusing'] as const)(
    '%s: stops where the same loop without LangGraph stops, with its report, θ and checks',
    async (name) => {
      const [whole, plain] = await Promise.all([uninterrupted(LOOPS[name]), plainLoop(LOOPS[name])]);
      const report = whole.values.orderGap!;
      expect(report).toEqual({ ...JSON.parse(JSON.stringify(plain.report)), toolErrors: [] });
      expect(whole.last.checkStop.omegas).toEqual(plain.omegas);
      expect(thetaBytes(whole.last.state).equals(plain.theta)).toBe(true);
      if (name === 'refusing') {
        // the case the snapshot must carry the rule's restarted window for
        expect(report).toMatchObject({ stop: true, reason: 'budget', step: 70 });
        expect(plain.checks.length).toBeGreaterThan(1);
      } else expect(report).toMatchObject({ stop: true, reason: 'order-gap', verdict: 'converged' });
    },
  );
});

describe('ordergap/langgraph with a checkpointer: interrupted, resumed by a graph built from scratch', () => {
  const cases = [
    ['interruptAfter checkStop (a new graph at every step)', invokeLeg, { interruptAfter: ['checkStop'] }],
    [
      'interruptBefore checkStop (the new graph consumes the last tool message)',
      invokeLeg,
      { interruptBefore: ['checkStop'] },
    ],
    ['the recursion limit (GraphRecursionError) at 10, 31, 62 and 45 steps', cutAt([10, 31, 62, 45]), {}],
    ['a stream left after 7, 20, 41 and 50 updates', leaveStreamAt([7, 20, 41, 50]), {}],
  ] as const;
  for (const name of ['greedy', 'refusing'] as const)
    it.each(cases)(`${name}: %s — same stop step, report and θ; no item applied twice`, async (_, leg, interrupts) => {
      const whole = await uninterrupted(LOOPS[name]);
      const run = await resumed(LOOPS[name], leg, interrupts as Interrupts);
      expect(run.legs).toBeGreaterThan(4);
      expectSameRun(run, whole);
    });

  it("paper: each new graph given the previous one's AgentState (restored by the user) applies nothing twice", async () => {
    const whole = await uninterrupted(LOOPS.paper);
    const run = await resumed(LOOPS.paper, invokeLeg, { interruptAfter: ['checkStop'] }, true);
    expect(run.legs).toBe(paper.stop.step);
    expectSameRun(run, whole);
  });

  it('resuming from an earlier checkpoint in the same graph (time travel) restores the state that graph had passed', async () => {
    const whole = await uninterrupted(LOOPS.greedy);
    const applied: string[] = [];
    const g = instance(LOOPS.greedy, { checkpointer: new MemorySaver(), applied });
    await g.graph.invoke(input, thread('t'));
    const history = [];
    for await (const c of g.graph.getStateHistory(thread('t'))) history.push(c);
    const midway = history.find((c) => c.next[0] === 'agent' && (c.values as Values).orderGap?.step === 20)!;
    applied.length = 0;
    const fork = await g.graph.invoke(null, { ...thread('t'), ...midway.config });
    expectSameRun({ values: fork, last: g, applied }, whole, 20);
  });

  it('two threads of one compiled graph each start from the state the graph was built with', async () => {
    const whole = await uninterrupted(LOOPS.greedy);
    const applied: string[] = [];
    const g = instance(LOOPS.greedy, { checkpointer: new MemorySaver(), applied });
    for (const id of ['a', 'b']) {
      applied.length = 0;
      expectSameRun({ values: await g.graph.invoke(input, thread(id)), last: g, applied }, whole);
    }
  });
});

describe('ordergap/langgraph: the order-gap state in the graph state', () => {
  it('is plain JSON: the AgentState document, the stopper snapshot and the messages consumed', async () => {
    const { values, last } = await uninterrupted(LOOPS.paper);
    const cp: OrderGapCheckpoint = values.orderGapState!;
    expect(JSON.parse(JSON.stringify(cp))).toEqual(cp);
    expect(cp.processed).toBe(values.messages.length);
    expect(AgentState.fromJSON(cp.state).theta).toEqual(last.state.theta);
    expect(cp.stopper.step).toBe(paper.stop.step);
    expect(cp.omegas).toEqual(last.checkStop.omegas);
  });

  it('without it (orderGapChannel alone) a graph resumed from a checkpoint it did not reach is refused, naming the fix', async () => {
    // the same loop over a state without the orderGapState field
    const Old = Annotation.Root({ ...MessagesAnnotation.spec, orderGap: orderGapChannel() });
    const build = (saver: MemorySaver) =>
      instance(LOOPS.paper, {
        checkpointer: saver,
        interrupts: { interruptAfter: ['checkStop'] },
        annotation: Old as unknown as typeof State,
      }).graph;
    const saver = new MemorySaver();
    const first = (await build(saver).invoke(input, thread('t'))) as { orderGap: LangGraphStopReport };
    expect(first.orderGap.step).toBe(1);
    const again = build(saver);
    await expect(again.invoke(null, thread('t'))).rejects.toThrow(
      /^graphState\.orderGap\.step = 1: is not the stopper's step 0: .*OrderGapAnnotation's orderGapState/,
    );
  });

  it('a run that throws midway (a valid item, then an invalid one) is restored from the checkpoint when run again: no item applied twice', async () => {
    const message = (item: unknown, i: number) =>
      new ToolMessage({ content: JSON.stringify(item), tool_call_id: `c${i}`, name: 'retrieve' });
    const [a, b, c] = sequence.slice(0, 3).map((id, i) => message(itemDoc(id), i));
    const bad = {
      ...itemDoc(sequence[2]!),
      id: 'bad',
      edges: [{ type: 'Supports', source: 'c:none', target: 'q:x', weight: 1 }],
    };
    const state = AgentState.fromScenario(scenario);
    const node = orderGapNode({ state, stopper: scenarioStopper(false) });
    const first = await node({ messages: [a!], orderGap: null, orderGapState: null });
    // b is applied, then the invalid item throws; LangGraph runs the node again from the same checkpoint
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(node({ messages: [a!, b!, message(bad, 2)], ...first })).rejects.toThrow(/c:none/);
    await node({ messages: [a!, b!, c!], ...first });
    const once = AgentState.fromScenario(scenario);
    for (const id of sequence.slice(0, 3)) once.step(itemDoc(id));
    expect(state.steps).toBe(3);
    expect(thetaBytes(state).equals(thetaBytes(once))).toBe(true);
    expect(node.omegas).toHaveLength(3);
  });

  it('a state of another configuration is refused by name, and the node keeps its own', async () => {
    const g = instance(LOOPS.paper, { checkpointer: new MemorySaver() });
    const values = await g.graph.invoke(input, thread('t'));
    const cp = values.orderGapState!;
    const other = orderGapNode({ state: AgentState.fromScenario(scenario), stopper: scenarioStopper('stop') });
    await expect(other({ ...values, orderGapState: cp })).rejects.toThrow(
      /^snapshot\.config\.policy = false: must be this stopper's "stop"/,
    );
    await expect(g.checkStop({ ...values, orderGap: null, orderGapState: { ...cp, processed: -1 } })).rejects.toThrow(
      /^orderGapState\.processed = -1/,
    );
    expect(g.state.steps).toBe(paper.stop.step);
  });
});
