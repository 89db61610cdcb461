/**
 * The document-QA loop (Sec. 7.1–7.3) over any AI SDK language model: the question becomes an
 * epistemic state (the question node and the claim that it was asked), the document is cut into
 * chunks ({@link chunkDocument}) read in BM25 order for the question ({@link ChunkRanking}), each
 * chunk is turned into evidence by a structured-output call with the evidence schema and its
 * extraction prompt (`toEvidenceItem`, `extractionPrompt`), applied by P_e then Q
 * (`AgentState.step`), and Algorithm 1's stop — the windowed order-gap below ε (Eq. 3) with the
 * coverage check — decides when to stop. With the `redirect` policy, a blind candidate stop
 * names the questions failing the check, and the loop then reads the chunks that rank best for
 * those questions and focuses the extraction prompt on them (Sec. 7.3).
 *
 * A chunk whose output holds no claim is an observation with Ω = 0 (P_e is the identity: the
 * chunk adds nothing) once the state holds evidence. After the reading pass, further passes
 * reprocess the extracted items without calling the model ("reprocessing a chunk already fully
 * represented leaves the state unchanged", Sec. 7.3), until the stop or the pass budget.
 *
 * An output that does not parse, does not match the schema or references nothing the state
 * holds is sent back once per repair with the error (`maxRepairs`); an output cut off at the token
 * budget (finish reason `length`, also when nothing came before the cut) is asked to finalize, and
 * an empty output that ended for another reason (`content-filter`, `tool-calls`, …) is sent back
 * as invalid, within the same repairs. An output with no claims is an
 * empty extraction — the chunk says nothing about the questions — and counted apart from the
 * invalid ones, as paired scoring counts empty and unparseable answers apart. Transport failures
 * are the AI SDK's to retry (`maxRetries`, exponential backoff).
 *
 * The loop is a sequence of steps over a {@link Loop} — retrieve, extract, apply, reapply
 * ({@link nextAction}) — whose whole state snapshots to plain JSON and restores:
 * {@link answerQuestion} runs the steps in a loop, `documentQaGraph` (`ordergap/langgraph`) one
 * per graph node, with the state in the graph state.
 */
import { generateText, NoObjectGeneratedError, NoOutputGeneratedError, Output, type LanguageModel } from 'ai';
import { z } from 'zod';
import {
  CoverageStopper,
  type CheckSite,
  type CoveragePolicy,
  type StopperSnapshot,
  type StopReport,
} from '../../coverageStop/stopper.js';
import { AgentState, type EvidenceInput, type StateDocument } from '../../graph/agent/agent.js';
import { extractionPrompt, llmEvidenceSchema, toEvidenceItem } from '../../graph/agent/llmEvidence.js';
import { GRAPH_RUN_DEFAULTS } from '../../graph/scenarios/scenario.js';
import type { StateSummary } from '../../system/types.js';
import { OrderGapRule } from '../../stopping/orderGapRule.js';
import { ArgumentError, ArgumentTypeError } from '../../util/errors.js';
import { jsonCopy } from '../../util/json.js';
import { finiteNumber, integerInRange } from '../../util/validate.js';
import { errorMessage } from '../evidence.js';
import { agentCheckSite } from '../../graph/system.js';
import { chunkDocument, ChunkRanking, type Chunk, type ChunkOptions } from './chunk.js';

/** The id of the question node {@link answerQuestion} asks. */
export const MAIN_QUESTION = 'q:main';

/** What the loop reports as it goes (see {@link AnswerQuestionOptions.onEvent}). */
export type AnswerEvent =
  | { readonly type: 'chunk'; readonly chunk: Chunk; readonly focus: string | null }
  | {
      readonly type: 'output';
      readonly chunk: number;
      readonly kind: ExtractionKind;
      readonly attempts: number;
      readonly error: string | null;
    }
  | {
      readonly type: 'step';
      readonly chunk: number;
      readonly omega: number;
      /** A later pass's reprocessing of an extracted item (no model call). */
      readonly reapplied: boolean;
      readonly report: StopReport;
    };

/** How one chunk's extraction ended. */
export type ExtractionKind = 'evidence' | 'empty' | 'invalid';

/** Options of {@link answerQuestion}. */
export interface AnswerQuestionOptions {
  /** Any AI SDK language model (a provider's, or `MockLanguageModelV3` from `ai/test`). */
  model: LanguageModel;
  /** The question, in words. */
  question: string;
  /** The document to answer from (chunked with `chunking`); or give `chunks`. */
  document?: string;
  /** The document already cut into chunks, in document order. */
  chunks?: readonly string[];
  /**
   * Your retriever instead of a document: called with the query (the question, or the texts of
   * the questions the stopper is after) and the number of chunks read so far, it returns the next
   * chunk's text, or null when it has nothing more. Give `maxChunks` with it (default 100).
   */
  retrieve?: (query: string, read: number) => Promise<string | null> | string | null;
  /** How `document` is cut (default: one paragraph per chunk). */
  chunking?: ChunkOptions;
  /** At most this many chunks are read (default: all). */
  maxChunks?: number;
  /** Passes over the extracted items in all, the first being the reading pass (default 10; the later ones call no model). */
  passes?: number;
  /** Repairs of an invalid or cut-off output per chunk, each with the error (default 2). */
  maxRepairs?: number;
  /** Transport retries per model call, the AI SDK's exponential backoff (default 2, as the AI SDK). */
  maxRetries?: number;
  /** ε and window of the order-gap rule (Eq. 3; default the graph's 0.01 and 3). */
  epsilon?: number;
  window?: number;
  /** What a blind candidate stop does (default 'redirect': read for the failing questions, Sec. 7.3). */
  policy?: CoveragePolicy;
  /** Called with each event, in order. */
  onEvent?: (event: AnswerEvent) => void;
  /** Cancels the pending model call and the loop. */
  abortSignal?: AbortSignal;
}

/** Counts of the extraction calls' outcomes (paired scoring counts empty and invalid apart). */
export interface ExtractionCounts {
  /** Model calls made (first attempts and repairs). */
  readonly calls: number;
  /** Chunks whose output became an evidence item. */
  readonly evidence: number;
  /** Chunks whose output held no claim. */
  readonly empty: number;
  /** Chunks whose output stayed invalid after every repair (no evidence from them). */
  readonly invalid: number;
  /** Repairs asked for (an invalid output sent back with its error). */
  readonly repairs: number;
  /**
   * Outputs cut off at the token budget (finish reason `length`), an empty one included; each is
   * asked to finalize while the chunk has repairs left (`maxRepairs`).
   */
  readonly truncated: number;
}

/** The result of {@link answerQuestion}. */
export interface AnswerReport {
  readonly question: string;
  /** The best answer to the question in the final state, or null when no answer was found. */
  readonly answer: { readonly id: string; readonly text: string | null; readonly confidence: number } | null;
  /** Why the loop ended: the stopper's reason, or 'exhausted' when the chunks (or maxChunks) ran out first. */
  readonly reason: StopReport['reason'] | 'exhausted';
  /** The stopper's last report (null when no evidence was applied). */
  readonly stop: StopReport | null;
  /** Observations: evidence items applied and empty extractions (Ω = 0) after the first item. */
  readonly steps: number;
  /**
   * Chunks read, in reading order (indices into the document's chunks; with `retrieve`, the
   * order of retrieval), and how many there are (with `retrieve`: how many it returned).
   */
  readonly read: readonly number[];
  readonly chunks: number;
  readonly extraction: ExtractionCounts;
  /** Ω(θ_t; e_t) of each observation (Eq. 2; 0 for an empty extraction). */
  readonly omegas: readonly number[];
  /** The final state in words. */
  readonly summary: StateSummary;
  /** The final state (continue it, save it, or certify it). */
  readonly state: AgentState;
}

/** The relaxed form of the schema the call asks for: `claims` may be empty (an empty extraction). */
const outputSchema = z.strictObject({ claims: z.array(llmEvidenceSchema.shape.claims.element) });

/**
 * The structured output every extraction call asks for, built once: building it converts the zod
 * schema to JSON schema (Output.object resolves it once per object), which per call stood out in
 * the loop's profile.
 */
const OUTPUT = Output.object({ schema: outputSchema });

/** The state a question starts from: the question and the claim that it was asked (which keeps it present). */
function initialState(question: string): AgentState {
  return AgentState.fromGraph({
    k: 8,
    capacities: { claims: 8, answers: 4, questions: 2 },
    nodes: [
      { id: MAIN_QUESTION, type: 'question', text: question, attributes: [1, 0, 0, 0, 0, 0, 0, 0], confidence: 1 },
      { id: 'c:asked', type: 'claim', text: `Asked: ${question}`, attributes: [0, 1, 0, 0, 0, 0, 0, 0], confidence: 1 },
    ],
    edges: [
      { type: 'Supports', source: 'c:asked', target: 'c:asked', weight: 1 },
      { type: 'Requires', source: 'c:asked', target: MAIN_QUESTION, weight: 1 },
    ],
  });
}

/**
 * The loop's limits from its options, checked.
 * @throws {ArgumentError} bad options, named (see {@link answerQuestion}).
 */
export function checkOptions(o: AnswerQuestionOptions): LoopLimits {
  if (typeof o !== 'object' || o === null) throw new ArgumentTypeError('options', o, 'must be an object');
  if (typeof o.question !== 'string' || o.question.trim() === '')
    throw new ArgumentError('question', o.question, 'must be a non-empty string');
  const sources = [o.document, o.chunks, o.retrieve].filter((x) => x !== undefined).length;
  if (sources !== 1)
    throw new ArgumentError('document', o.document, 'give exactly one of document, chunks and retrieve');
  let chunks: Chunk[] = [];
  if (o.retrieve !== undefined) {
    if (typeof o.retrieve !== 'function') throw new ArgumentTypeError('retrieve', o.retrieve, 'must be a function');
  } else if (o.chunks !== undefined) {
    if (!Array.isArray(o.chunks) || o.chunks.length === 0)
      throw new ArgumentError('chunks', o.chunks, 'must be a non-empty array of strings');
    let at = 0;
    chunks = o.chunks.map((text, index) => {
      if (typeof text !== 'string' || text.trim() === '')
        throw new ArgumentError(`chunks[${index}]`, text, 'must be a non-empty string');
      const c = { index, text, start: at, end: at + text.length };
      at = c.end;
      return c;
    });
  } else chunks = chunkDocument(o.document!, o.chunking);
  const maxChunks = integerInRange('maxChunks', o.maxChunks ?? (o.retrieve ? 100 : chunks.length), 1);
  const maxRepairs = integerInRange('maxRepairs', o.maxRepairs ?? 2, 0);
  const passes = integerInRange('passes', o.passes ?? 10, 1);
  if (o.maxRetries !== undefined) integerInRange('maxRetries', o.maxRetries, 0);
  if (o.onEvent !== undefined && typeof o.onEvent !== 'function')
    throw new ArgumentTypeError('onEvent', o.onEvent, 'must be a function');
  return { chunks, maxChunks, maxRepairs, passes };
}

/** How one chunk's extraction ended, with its calls. */
export interface Extraction {
  kind: ExtractionKind;
  item: unknown;
  attempts: number;
  error: string | null;
  repairs: number;
  truncated: number;
}

/** One chunk's structured-output call, repaired with the error up to `maxRepairs` times. */
async function extract(
  o: AnswerQuestionOptions,
  state: AgentState,
  system: string,
  chunk: Chunk,
  maxRepairs: number,
): Promise<Extraction> {
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: chunk.text }];
  const r: Extraction = { kind: 'invalid', item: null, attempts: 0, error: null, repairs: 0, truncated: 0 };
  for (;;) {
    r.attempts++;
    let reply = '';
    let finish: string | undefined;
    try {
      const out = await generateText({
        model: o.model,
        system,
        messages,
        output: OUTPUT,
        ...(o.maxRetries === undefined ? {} : { maxRetries: o.maxRetries }),
        ...(o.abortSignal ? { abortSignal: o.abortSignal } : {}),
      });
      finish = out.finishReason;
      reply = out.text;
      // the SDK parses no output from an empty text that did not finish with `stop`: reading it
      // throws NoOutputGeneratedError, handled below as a cut or an invalid output
      const output = out.output;
      if (output.claims.length === 0) return { ...r, kind: 'empty', error: null };
      r.item = toEvidenceItem(state, output, { id: `chunk:${chunk.index}` });
      return { ...r, kind: 'evidence', error: null };
    } catch (e) {
      // an output the schema refuses, no output, or one naming what the state does not hold
      // (GraphFormatError is an ArgumentError): all are repaired with the error; anything else is
      // not the model's
      const unparsed = NoObjectGeneratedError.isInstance(e);
      const none = NoOutputGeneratedError.isInstance(e);
      if (!unparsed && !none && !(e instanceof ArgumentError)) throw e;
      if (unparsed) [finish, reply] = [e.finishReason, e.text ?? ''];
      const cut = (unparsed || none) && finish === 'length';
      if (cut) r.truncated++;
      r.error = cut
        ? 'the output was cut off at the token budget'
        : none
          ? `the output was empty (finish reason '${finish}')`
          : errorMessage(e);
    }
    if (r.repairs >= maxRepairs) return r;
    r.repairs++;
    messages.push(
      { role: 'assistant', content: reply },
      {
        role: 'user',
        content: r.error.startsWith('the output was cut off')
          ? 'Your output was cut off at the token budget. Finalize now: return the complete JSON object, shorter if need be.'
          : `That output is invalid: ${r.error}. Return only the corrected JSON object.`,
      },
    );
  }
}

/** The query the next chunk is ranked by: the question, or the texts of the questions the stopper is after. */
function queryFor(
  state: AgentState,
  stopper: CoverageStopper,
  question: string,
): { query: string; focus: string | null } {
  const targets = stopper.targetQuestions.map((t) => t.question);
  if (targets.length === 0) return { query: question, focus: null };
  const texts = state
    .describe()
    .questions.filter((q) => targets.includes(q.question))
    .map((q) => q.text ?? q.question);
  return { query: texts.join(' '), focus: targets[0]! };
}

/** The loop's limits, from the options ({@link checkOptions}). */
export interface LoopLimits {
  /** The document's chunks (none with a retriever). */
  readonly chunks: readonly Chunk[];
  readonly maxChunks: number;
  readonly maxRepairs: number;
  readonly passes: number;
}

/** One chunk's extraction, waiting to be applied ({@link DocumentQaProgress.extraction}). */
export interface PendingExtraction extends Extraction {
  readonly chunk: number;
}

/**
 * The document-QA loop's whole state as plain JSON ({@link Loop.snapshot}): the agent state's
 * document and the stopper's snapshot, what has been read and extracted, the counts, the Ω
 * values, where the loop is (reading pass or a later pass and its position), and a chunk
 * retrieved but not yet extracted or an extraction not yet applied. {@link Loop.restore} into
 * a loop built from the same options continues exactly where the snapshotted loop was.
 */
export interface DocumentQaProgress {
  /** `AgentState.toJSON()` and `CoverageStopper.snapshot()`. */
  readonly state: StateDocument;
  readonly stopper: StopperSnapshot;
  /** Ω of each observation in order, and the chunks read in reading order. */
  readonly omegas: readonly number[];
  readonly read: readonly number[];
  /** With a retriever: where the next retrieved chunk starts (the retrieved texts' total length). */
  readonly offset: number;
  /** The evidence items extracted, with their chunks, in reading order. */
  readonly items: ReadonlyArray<{ readonly chunk: number; readonly item: EvidenceInput }>;
  readonly counts: ExtractionCounts;
  /** The stopper's last report (null before the first observation). */
  readonly last: StopReport | null;
  /** True once the chunk source had nothing more. */
  readonly sourceEnded: boolean;
  /** The later pass under way (from 1) and the position in `items` of its next item. */
  readonly pass: number;
  readonly cursor: number;
  /** A chunk retrieved and not yet extracted, with the question the extraction focuses on. */
  readonly pending: { readonly chunk: Chunk; readonly focus: string | null } | null;
  /** An extraction not yet applied. */
  readonly extraction: PendingExtraction | null;
}

/** The loop's next step ({@link nextAction}); 'done' when it has ended. */
export type LoopAction = 'retrieve' | 'extract' | 'apply' | 'reapply' | 'done';

/**
 * What the loop does next, a function of its progress: apply a pending extraction, extract a
 * pending chunk, nothing once stopped, read the next chunk while the reading pass lasts, then
 * reprocess the next extracted item while passes remain.
 */
export function nextAction(
  p: Pick<DocumentQaProgress, 'extraction' | 'pending' | 'last' | 'sourceEnded' | 'read' | 'pass' | 'cursor' | 'items'>,
  limits: Pick<LoopLimits, 'maxChunks' | 'passes'>,
): LoopAction {
  if (p.extraction !== null) return 'apply';
  if (p.pending !== null) return 'extract';
  if (p.last?.stop) return 'done';
  if (!p.sourceEnded && p.read.length < limits.maxChunks) return 'retrieve';
  return p.pass < limits.passes && p.cursor < p.items.length ? 'reapply' : 'done';
}

/** The counts before any call. */
const noCounts = (): { -readonly [K in keyof ExtractionCounts]: number } => ({
  calls: 0,
  evidence: 0,
  empty: 0,
  invalid: 0,
  repairs: 0,
  truncated: 0,
});

/**
 * The loop's moving parts — the state, the stopper, the chunk source and what has been read and
 * extracted — and its steps ({@link nextAction}): {@link answerQuestion} runs them in a loop, the
 * LangGraph graph of the document-QA loop one per node, saving the loop between nodes
 * ({@link snapshot}, {@link restore}).
 */
export class Loop {
  readonly state: AgentState;
  readonly stopper: CoverageStopper;
  omegas: number[] = [];
  read: number[] = [];
  offset = 0;
  /** The evidence items extracted so far, with their chunks, in reading order. */
  items: Array<{ chunk: number; item: EvidenceInput }> = [];
  counts = noCounts();
  last: StopReport | null = null;
  sourceEnded = false;
  pass = 1;
  cursor = 0;
  pending: { chunk: Chunk; focus: string | null } | null = null;
  extraction: PendingExtraction | null = null;
  readonly limits: LoopLimits;
  readonly #emit: (e: AnswerEvent) => void;
  readonly #ranking: ChunkRanking | null;
  readonly #question: string;
  /** The coverage check's site for the current state and items (null once a step changed them). */
  #site: CheckSite | null = null;

  constructor(o: AnswerQuestionOptions, limits: LoopLimits) {
    this.state = initialState(o.question);
    const rule = new OrderGapRule({
      epsilon: o.epsilon ?? GRAPH_RUN_DEFAULTS.epsilon,
      window: o.window ?? GRAPH_RUN_DEFAULTS.window,
    });
    this.stopper = new CoverageStopper(null, rule, { policy: o.policy ?? 'redirect' });
    this.limits = limits;
    this.#question = o.question;
    this.#ranking = o.retrieve ? null : new ChunkRanking(limits.chunks);
    this.#emit = (e) => o.onEvent?.(e);
  }

  get stopped(): boolean {
    return this.last?.stop ?? false;
  }

  emit(e: AnswerEvent): void {
    this.#emit(e);
  }

  /** The loop's next step. */
  next(): LoopAction {
    return nextAction(this, this.limits);
  }

  /**
   * Reads the next chunk — the BM25 ranking's best unread one for the query, or the caller's
   * retriever's (its text checked, numbered in retrieval order) — into {@link pending}, or ends
   * the reading pass when there is none.
   */
  async retrieve(o: AnswerQuestionOptions): Promise<void> {
    const { query, focus } = queryFor(this.state, this.stopper, this.#question);
    const chunk = await this.#nextChunk(o, query);
    if (chunk === null) {
      this.sourceEnded = true;
      return;
    }
    this.read.push(chunk.index);
    this.pending = { chunk, focus };
    this.emit({ type: 'chunk', chunk, focus });
  }

  async #nextChunk(o: AnswerQuestionOptions, query: string): Promise<Chunk | null> {
    if (this.#ranking) return this.#ranking.next(query);
    const read = this.read.length;
    const text = await o.retrieve!(query, read);
    if (text === null) return null;
    if (typeof text !== 'string' || text.trim() === '')
      throw new ArgumentError(`retrieve(…) [chunk ${read}]`, text, 'must return a non-empty string or null');
    const c = { index: read, text, start: this.offset, end: this.offset + text.length };
    this.offset = c.end;
    return c;
  }

  /** The pending chunk's extraction (model calls and repairs), counted, into {@link extraction}. */
  async extract(o: AnswerQuestionOptions): Promise<void> {
    const { chunk, focus } = this.pending!;
    const prompt = extractionPrompt(this.state, focus === null ? {} : { question: focus });
    const x = await extract(o, this.state, prompt, chunk, this.limits.maxRepairs);
    const { counts } = this;
    counts.calls += x.attempts;
    counts.repairs += x.repairs;
    counts.truncated += x.truncated;
    counts[x.kind]++;
    this.pending = null;
    this.extraction = { ...x, chunk: chunk.index };
    this.emit({ type: 'output', chunk: chunk.index, kind: x.kind, attempts: x.attempts, error: x.error });
  }

  /** Applies the pending extraction: an observation unless it is invalid. */
  async apply(): Promise<void> {
    const x = this.extraction!;
    this.extraction = null;
    if (x.kind === 'invalid') return;
    if (x.kind === 'evidence') this.items.push({ chunk: x.chunk, item: x.item });
    await this.observe(x.chunk, x.kind === 'evidence' ? x.item : null, false);
  }

  /** Reprocesses the next extracted item of the current later pass (no model call). */
  async reapply(): Promise<void> {
    const { chunk, item } = this.items[this.cursor]!;
    if (++this.cursor === this.items.length) [this.pass, this.cursor] = [this.pass + 1, 0];
    await this.observe(chunk, item, true);
  }

  /**
   * One observation of Algorithm 1 for chunk `chunk`: Ω = state.step(item) for an evidence item,
   * Ω = 0 for an empty extraction (P_e is the identity: the chunk adds nothing) once the state
   * holds evidence; the coverage check at a candidate stop runs over the items extracted so far.
   */
  async observe(chunk: number, item: unknown | null, reapplied: boolean): Promise<void> {
    if (item === null && this.items.length === 0) return;
    const omega = item === null ? 0 : this.state.step(item as never);
    if (item !== null) this.#site = null;
    this.omegas.push(omega);
    // an empty extraction leaves the state and the items as they were: the same site, which the
    // stopper does not check again
    this.last = await this.stopper.observe({ omega }, () => {
      this.#site ??= agentCheckSite(
        this.state,
        this.items.map((x) => x.item as never),
      );
      return this.#site;
    });
    this.emit({ type: 'step', chunk, omega, reapplied, report: this.last });
  }

  /** The loop's state as plain JSON ({@link DocumentQaProgress}). */
  snapshot(): DocumentQaProgress {
    return {
      state: this.state.toJSON(),
      stopper: this.stopper.snapshot(),
      ...jsonCopy({
        omegas: this.omegas,
        read: this.read,
        offset: this.offset,
        items: this.items,
        counts: this.counts,
        last: this.last,
        sourceEnded: this.sourceEnded,
        pass: this.pass,
        cursor: this.cursor,
        pending: this.pending,
        extraction: this.extraction,
      }),
    };
  }

  /**
   * Makes this loop (in place) the one `p` describes, a {@link snapshot} of a loop built from the
   * same options (also after a JSON round trip): it then runs every later step exactly as that
   * loop would have.
   * @throws {ArgumentError} naming the field (`progress.…`) that is not of such a snapshot; as
   *   `CoverageStopper.restore` and `AgentState.restore` (the loop is then unchanged).
   */
  restore(p: DocumentQaProgress): void {
    const s = checkProgress(p, this.limits, this.#ranking !== null);
    const before = this.stopper.snapshot();
    this.stopper.restore(s.stopper);
    try {
      this.state.restore(s.state);
    } catch (e) {
      this.stopper.restore(before);
      throw e;
    }
    const c = jsonCopy(s);
    this.omegas = [...c.omegas];
    this.read = [...c.read];
    this.items = [...c.items];
    this.counts = { ...c.counts };
    ({ offset: this.offset, last: this.last, sourceEnded: this.sourceEnded, pass: this.pass } = c);
    ({ cursor: this.cursor, pending: this.pending, extraction: this.extraction } = c);
    this.#ranking?.reset(this.read);
    this.#site = null;
  }

  /** The loop's result ({@link AnswerReport}). */
  report(): AnswerReport {
    const summary = this.state.describe();
    const best = summary.answers.find((a) => a.question === MAIN_QUESTION && a.best);
    return Object.freeze({
      question: this.#question,
      answer: best ? Object.freeze({ id: best.answer, text: best.text, confidence: best.confidence }) : null,
      reason: this.stopped ? this.last!.reason : 'exhausted',
      stop: this.last,
      steps: this.omegas.length,
      read: this.read,
      chunks: this.#ranking ? this.limits.chunks.length : this.read.length,
      extraction: Object.freeze({ ...this.counts }),
      omegas: this.omegas,
      summary,
      state: this.state,
    });
  }
}

/** A mutable copy of `p`'s fields, checked to be those of a snapshot of a loop with `limits`. */
function checkProgress(p: DocumentQaProgress, limits: LoopLimits, ranked: boolean): DocumentQaProgress {
  if (typeof p !== 'object' || p === null) throw new ArgumentTypeError('progress', p, 'must be a loop snapshot');
  for (const key of ['omegas', 'read', 'items'] as const)
    if (!Array.isArray(p[key])) throw new ArgumentError(`progress.${key}`, p[key], 'must be an array');
  p.omegas.forEach((w, i) => finiteNumber(`progress.omegas[${i}]`, w));
  const bound = ranked ? limits.chunks.length - 1 : undefined;
  p.read.forEach((c, i) => integerInRange(`progress.read[${i}]`, c, 0, bound));
  if (p.read.length > limits.maxChunks)
    throw new ArgumentError('progress.read', p.read, `must list at most maxChunks = ${limits.maxChunks} chunks`);
  integerInRange('progress.offset', p.offset, 0);
  integerInRange('progress.pass', p.pass, 1);
  integerInRange('progress.cursor', p.cursor, 0, Math.max(0, p.items.length - 1));
  for (const key of ['counts', 'last', 'pending', 'extraction'] as const)
    if (typeof p[key] !== 'object') throw new ArgumentError(`progress.${key}`, p[key], 'must be an object or null');
  if (p.counts === null) throw new ArgumentError('progress.counts', p.counts, 'must be the extraction counts');
  for (const key of Object.keys(noCounts()) as Array<keyof ExtractionCounts>)
    integerInRange(`progress.counts.${key}`, p.counts[key], 0);
  if (typeof p.sourceEnded !== 'boolean')
    throw new ArgumentError('progress.sourceEnded', p.sourceEnded, 'must be a boolean');
  return p;
}

/**
 * Answers `question` from a document with `model` by the document-QA loop (module comment). The
 * first pass reads the chunks in BM25 order (at most `maxChunks`), one model call each plus
 * repairs; while the stopper has not stopped, further passes (up to `passes` in all) reprocess
 * the extracted items in reading order without calling the model — Sec. 7.3's reprocessing of a
 * chunk already represented, whose Ω is small once the state holds it. Resolves when the stopper
 * says stop, or with 'exhausted' when the passes run out first.
 * @throws {ArgumentError} bad options (named), before any model call; the model's or provider's
 *   own errors (after the AI SDK's transport retries).
 * @example
 * ```ts
 * const report = await answerQuestion({ model, question: 'Who wrote it?', document: text });
 * report.answer; // { id, text, confidence } or null
 * ```
 */
export async function answerQuestion(options: AnswerQuestionOptions): Promise<AnswerReport> {
  const loop = new Loop(options, checkOptions(options));
  for (let action = loop.next(); action !== 'done'; action = loop.next()) {
    if (action === 'retrieve' || action === 'reapply') options.abortSignal?.throwIfAborted();
    await loop[action](options);
  }
  return loop.report();
}
