// The document-QA loop as a LangGraph StateGraph (ordergap/langgraph's documentQaGraph), on the
// shipped Gettysburg Address with the hand-written outputs: uninterrupted, it ends as
// answerQuestion does on the same outputs; stopped midway in the ways LangGraph resumes from
// (interruptBefore / interruptAfter, the recursion limit) and resumed from LangGraph's MemorySaver
// by a graph built anew each time, it makes the same model calls, applies the same observations
// once each, and ends with the same report.
import { GraphRecursionError, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { answerQuestion, type AnswerEvent } from '../../src/adapters/documentQa/answerQuestion.js';
import { chunkDocument, type ChunkOptions } from '../../src/adapters/documentQa/chunk.js';
import { documentQaGraph, type DocumentQaGraphState } from '../../src/adapters/langgraph.js';
import { AgentState } from '../../src/graph/agent/agent.js';
import { addressModel, GETTYSBURG, QUESTION } from './gettysburgOutputs.js';

const json = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const sentences: ChunkOptions = { unit: 'sentence', size: 1, overlap: 0 };
const thread = (recursionLimit = 1000) => ({ configurable: { thread_id: 't' }, recursionLimit });

type Node = 'retrieve' | 'extract' | 'apply' | 'finish';
type Interrupts = { interruptBefore?: Node[]; interruptAfter?: Node[] };

/** What the graph instances of a run did, together: their events and their models' calls. */
interface Log {
  events: AnswerEvent[];
  calls: number;
}

/** A graph built anew from the options, with a model of its own; its events and calls go to `log`. */
function instance(chunking: ChunkOptions | undefined, saver: MemorySaver, interrupts: Interrupts, log: Log) {
  const model = addressModel();
  const graph = documentQaGraph({
    model,
    question: QUESTION,
    document: GETTYSBURG,
    ...(chunking ? { chunking } : {}),
    onEvent: (e) => log.events.push(e),
  }).compile({ checkpointer: saver, ...interrupts });
  const invoke = graph.invoke.bind(graph);
  graph.invoke = async (...args: Parameters<typeof invoke>) => {
    try {
      return await invoke(...args);
    } finally {
      log.calls += model.doGenerateCalls.length;
      model.doGenerateCalls.length = 0;
    }
  };
  return graph;
}

/** answerQuestion on the same outputs: its report and events. */
async function reference(chunking?: ChunkOptions) {
  const events: AnswerEvent[] = [];
  const model = addressModel();
  const report = await answerQuestion({
    model,
    question: QUESTION,
    document: GETTYSBURG,
    ...(chunking ? { chunking } : {}),
    onEvent: (e) => events.push(e),
  });
  return { report, events, calls: model.doGenerateCalls.length };
}

/**
 * Runs the graph on a fresh MemorySaver, each leg in a graph built anew: leg i invokes (the
 * first with `{}`, the later ones resuming with null) with the interrupts and recursion limit
 * `plan(i)` gives, and legs go on until the thread has nothing left to run.
 */
async function resumed(chunking: ChunkOptions | undefined, plan: (i: number) => Interrupts & { limit?: number }) {
  const saver = new MemorySaver();
  const log: Log = { events: [], calls: 0 };
  for (let i = 0; i < 300; i++) {
    const { limit, ...interrupts } = plan(i);
    const graph = instance(chunking, saver, interrupts, log);
    try {
      await graph.invoke(i === 0 ? {} : null, thread(limit));
    } catch (e) {
      if (!(e instanceof GraphRecursionError)) throw e;
    }
    const snap = await graph.getState(thread());
    if (snap.next.length === 0) return { values: snap.values as DocumentQaGraphState, log, legs: i + 1 };
  }
  throw new Error('the run does not end');
}

/** The graph's run ended as answerQuestion's: report, state (θ bit for bit), events and model calls. */
function expectSameRun(run: { values: DocumentQaGraphState; log: Log }, ref: Awaited<ReturnType<typeof reference>>) {
  const { state, ...report } = ref.report;
  expect(run.values.report).toEqual(json(report));
  const progress = run.values.documentQa!;
  expect(progress.state).toEqual(json(state.toJSON()));
  const theta = AgentState.fromJSON(progress.state).theta;
  expect(Buffer.from(theta.buffer).equals(Buffer.from(state.theta.buffer))).toBe(true);
  // every chunk retrieved, extracted and applied once, in answerQuestion's order, over all the
  // graphs of the run; the model called as often as answerQuestion called it
  expect(json(run.log.events)).toEqual(json(ref.events));
  expect(run.log.calls).toBe(ref.calls);
  expect(progress.counts.calls).toBe(ref.calls);
}

describe('documentQaGraph: the uninterrupted run', () => {
  it.each([
    ['paragraphs', undefined],
    ['sentences', sentences],
  ] as const)(
    '%s: stops converged with the answer, steps and report of answerQuestion on the same outputs',
    async (_, chunking) => {
      const ref = await reference(chunking);
      expect(ref.report).toMatchObject({ reason: 'order-gap', answer: { text: 'A great civil war' } });
      expect(ref.report.stop?.verdict).toBe('converged');
      const log: Log = { events: [], calls: 0 };
      const graph = instance(chunking, new MemorySaver(), {}, log);
      const values = await graph.invoke({}, thread());
      expect(values.report).toMatchObject({ reason: 'order-gap', steps: ref.report.steps });
      expect(values.report!.stop?.verdict).toBe('converged');
      // the run holds later passes (reprocessing without a model call) after the reading pass
      expect(ref.events.some((e) => e.type === 'step' && e.reapplied)).toBe(true);
      expectSameRun({ values, log }, ref);
    },
  );

  it('keeps the whole loop in the graph state as plain JSON', async () => {
    const values = await instance(sentences, new MemorySaver(), {}, { events: [], calls: 0 }).invoke({}, thread());
    const progress = values.documentQa!;
    expect(json(progress)).toEqual(progress);
    expect(progress.stopper.step).toBe(progress.omegas.length);
    expect(progress).toMatchObject({ pending: null, extraction: null, sourceEnded: false });
    expect(progress.read).toHaveLength(10);
  });
});

describe('documentQaGraph: interrupted, resumed from MemorySaver by a graph built anew', () => {
  const cases: Array<[string, (i: number) => Interrupts & { limit?: number }]> = [
    ['interruptAfter apply (a new graph after every observation)', () => ({ interruptAfter: ['apply'] })],
    ['interruptAfter extract (the extraction waits in the checkpoint)', () => ({ interruptAfter: ['extract'] })],
    ['interruptBefore extract and apply', () => ({ interruptBefore: ['extract', 'apply'] })],
    ['interruptAfter every node', () => ({ interruptAfter: ['retrieve', 'extract', 'apply'] })],
    ['once, after the 4th extraction', (i) => (i < 4 ? { interruptAfter: ['extract'] } : {})],
    ['the recursion limit at 4, 5, 7, 11 and 13 steps', (i) => ({ limit: [4, 5, 7, 11, 13][i] ?? 1000 })],
  ];
  it.each(cases)('sentences: %s — same stop step and report, no chunk extracted or applied twice', async (_, plan) => {
    const ref = await reference(sentences);
    const run = await resumed(sentences, plan);
    expect(run.legs).toBeGreaterThan(4);
    expect(run.values.report?.steps).toBe(ref.report.steps);
    expectSameRun(run, ref);
  });

  it('paragraphs: interruptAfter apply — same stop step and report', async () => {
    const ref = await reference();
    const run = await resumed(undefined, () => ({ interruptAfter: ['apply'] }));
    expect(run.legs).toBe(ref.report.steps + 1);
    expectSameRun(run, ref);
  });

  it('a node that throws midway (after P_e and Q) runs again from the checkpoint: nothing applied twice', async () => {
    const ref = await reference(sentences);
    const log: Log = { events: [], calls: 0 };
    let steps = 0;
    const model = addressModel();
    const graph = documentQaGraph({
      model,
      question: QUESTION,
      document: GETTYSBURG,
      chunking: sentences,
      // the 4th observation's event throws once: the node has applied the item when it throws
      onEvent: (e) => {
        if (e.type === 'step' && ++steps === 4) throw new Error('the listener failed');
        log.events.push(e);
      },
    }).compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({}, thread())).rejects.toThrow(/the listener failed/);
    // the same graph resumed: its loop, left midway by the failed node, is restored from the checkpoint
    const values = await graph.invoke(null, thread());
    log.calls = model.doGenerateCalls.length;
    expectSameRun({ values, log }, ref);
  });

  it('with a retriever (the sentences in document order): resumed after every observation, the same run', async () => {
    const texts = chunkDocument(GETTYSBURG, sentences).map((c) => c.text);
    const retrieve = (_query: string, read: number) => texts[read] ?? null;
    const events: AnswerEvent[] = [];
    const refModel = addressModel();
    const report = await answerQuestion({
      model: refModel,
      question: QUESTION,
      retrieve,
      onEvent: (e) => events.push(e),
    });
    const ref = { report, events, calls: refModel.doGenerateCalls.length };
    const saver = new MemorySaver();
    const log: Log = { events: [], calls: 0 };
    for (let i = 0; ; i++) {
      const model = addressModel();
      const graph = documentQaGraph({
        model,
        question: QUESTION,
        retrieve,
        onEvent: (e) => log.events.push(e),
      }).compile({
        checkpointer: saver,
        interruptAfter: ['apply'],
      });
      await graph.invoke(i === 0 ? {} : null, thread());
      log.calls += model.doGenerateCalls.length;
      const snap = await graph.getState(thread());
      if (snap.next.length > 0) continue;
      expect(i).toBeGreaterThan(4);
      expectSameRun({ values: snap.values as DocumentQaGraphState, log }, ref);
      // the retrieved chunks' positions continue across the graphs
      expect(log.events.flatMap((e) => (e.type === 'chunk' ? [e.chunk.end] : [])).at(-1)).toBe(
        texts.slice(0, report.read.length).join('').length,
      );
      break;
    }
  });

  it('a documentQa that is no loop state of these options is refused, naming the field', async () => {
    const values = await instance(sentences, new MemorySaver(), {}, { events: [], calls: 0 }).invoke({}, thread());
    const progress = values.documentQa!;
    const paragraphs = instance(undefined, new MemorySaver(), {}, { events: [], calls: 0 });
    const restart = { ...progress, last: null, pass: 1, cursor: 0 };
    await expect(paragraphs.invoke({ documentQa: restart }, thread())).rejects.toThrow(
      /^progress\.read\[1\] = 9: must be in \[0, 2\]/,
    );
  });
});
