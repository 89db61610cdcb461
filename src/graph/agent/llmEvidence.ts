/**
 * From an LLM's structured output to an evidence item: {@link llmEvidenceSchema} (zod) is what a
 * structured-output call fills — claims with their text, source, reliability, the answer they
 * support or the question they address, the claims they support or contradict — and
 * {@link toEvidenceItem} turns one such object into an evidence item (the JSON form of a pool
 * item, ../scenarios/evidence.ts) against an `AgentState`: ids derived from the content, attribute vectors
 * from an embedder (default: feature hashing, ./embed.ts), every reference checked against the
 * state. The world is open: a claim may propose an answer the state does not hold
 * (`answerText`) and raise a question it does not hold (`questionText`, with `parentQuestion`
 * when it is a sub-question); the item then adds them. {@link extractionPrompt} is the prompt
 * that goes with the schema. The published JSON Schema (schema/llm-evidence.schema.json) is
 * generated from the zod schema by scripts/write-llm-schema.mjs, and a test holds the two equal.
 */
import { z } from 'zod';
import { ArgumentError } from '../../util/errors.js';
import { finiteNumber, integerInRange, openInterval } from '../../util/validate.js';
import type { AgentState } from './agent.js';
import { embedClaim, hashingEmbedder, type Embedder } from './embed.js';
import { GraphFormatError, toFormatIssues } from '../model/schema.js';
import type { Layout } from '../model/layout.js';
import { article } from '../model/model.js';
import type { StateSummary } from '../../system/types.js';

const nodeId = z.string().min(1, 'must be a non-empty id');

const newText = z.string().min(1, 'must be non-empty');

/** The schema of one LLM output (see the module comment); `.describe` texts reach the JSON Schema. */
export const llmEvidenceSchema = z
  .strictObject({
    claims: z
      .array(
        z
          .strictObject({
            text: z
              .string()
              .min(1, 'must be non-empty')
              .describe('The claim, in one sentence, as the source states it.'),
            source: z
              .string()
              .min(1, 'must be non-empty')
              .describe('Where the claim comes from: a document, site, dataset or person.'),
            reliability: z
              .number()
              .gt(0, 'must lie in (0, 1]')
              .lte(1, 'must lie in (0, 1]')
              .optional()
              .describe('How far the source can be trusted on this claim, in (0, 1]; default 0.7.'),
            answer: nodeId
              .optional()
              .describe(
                'Id of the answer this claim supports: one of the answers listed in the prompt, or a new id for an answer the prompt does not list (then give answerText).',
              ),
            answerText: newText
              .optional()
              .describe(
                'For an answer the prompt does not list: its text, one short sentence. Needs the question it answers ("question"); without "answer" its id is derived from the question and this text.',
              ),
            question: nodeId
              .optional()
              .describe(
                'Id of the question this claim addresses: one of the questions listed in the prompt, or a new id for a question the prompt does not list (then give questionText); a claim that supports an answer addresses its question.',
              ),
            questionText: newText
              .optional()
              .describe(
                'For a question the prompt does not list, which this claim raises: its text. Without "question" its id is derived from this text.',
              ),
            parentQuestion: nodeId
              .optional()
              .describe(
                'For a new question (questionText): the id of the question it is a sub-question of, listed in the prompt or new in this output; the answers of that question depend on the new one.',
              ),
            supports: z
              .array(nodeId)
              .optional()
              .describe('Ids of other claims (known or in this output, by their "id") this claim supports.'),
            contradicts: z
              .array(nodeId)
              .optional()
              .describe('Ids of claims (known or in this output) this claim contradicts.'),
            id: nodeId
              .optional()
              .describe(
                'Optional id so other claims of this output can refer to it; derived from the content if absent.',
              ),
          })
          .describe('One claim extracted from the retrieved text.'),
      )
      .min(1, 'must list at least one claim')
      .describe('The claims the retrieved text makes that bear on the questions.'),
  })
  .describe('Evidence extracted from one retrieved chunk, for the ordergap epistemic state.');

/** One LLM output, validated. */
export type LlmEvidence = z.infer<typeof llmEvidenceSchema>;

/** The JSON Schema of {@link llmEvidenceSchema} (draft 2020-12), as published in schema/. */
export function llmEvidenceJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(llmEvidenceSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}

let claimFields: readonly string[] | null = null;

/** The prompt's lines on the fields of a claim, from the JSON Schema (converted once: a loop asks per chunk). */
function claimFieldLines(): readonly string[] {
  if (claimFields === null) {
    const item = (llmEvidenceJsonSchema() as { properties: { claims: { items: ClaimJsonSchema } } }).properties.claims
      .items;
    claimFields = Object.entries(item.properties).map(
      ([name, p]) => `- ${name}${item.required.includes(name) ? ' (required)' : ''}: ${p.description ?? ''}`,
    );
  }
  return claimFields;
}

/** Options of {@link toEvidenceItem}. */
export interface ToEvidenceOptions {
  /** Item id (default `llm:` + a hash of the claims). */
  id?: string;
  /** Strength a_e of the item in (0, 1] (default 0.7, as the default scenario). */
  strength?: number;
  /** Attribute vectors (default {@link hashingEmbedder}). */
  embedder?: Embedder;
  /** Weight of each Contradicts edge in [0, 1] (default 0.9). */
  contradictionWeight?: number;
}

function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** Weight of the Requires edges that make an added answer or question present (as the graphs' structural edges). */
const STRUCTURE_WEIGHT = 1;

type LlmClaim = LlmEvidence['claims'][number];

/** The answers and questions one output adds, by id, in order of declaration. */
interface Declared {
  answers: Map<string, { question: string; text: string }>;
  /** `claim`: the index of the first claim that declares the question. */
  questions: Map<string, { text: string; parent?: string; claim: number }>;
  /** Per claim: the answer and question it names (given or derived ids). */
  refs: Array<{ answer?: string; question?: string }>;
}

/** What the output's references resolve against: the state's layout, the claims and the declared nodes. */
class References {
  readonly declared: Declared = { answers: new Map(), questions: new Map(), refs: [] };
  constructor(
    readonly layout: Layout,
    /** Ids of the nodes evidence added to the state (they may be declared again). */
    readonly added: ReadonlySet<string>,
    /** Ids of this output's claims. */
    readonly local: ReadonlySet<string>,
  ) {}
  typeOf(id: string): string | null {
    if (this.local.has(id)) return 'claim';
    if (this.declared.answers.has(id)) return 'answer';
    if (this.declared.questions.has(id)) return 'question';
    const s = this.layout.slotOf.get(id);
    return s === undefined ? null : this.layout.slots[s]!.type;
  }
  /** @throws {ArgumentError} `id` names no node, or one of another type. */
  need(path: string, id: string, types: readonly string[], hint = ''): void {
    const t = this.typeOf(id);
    if (t === null) throw new ArgumentError(path, id, `names no node of the state or of this output${hint}`);
    if (!types.includes(t)) throw new ArgumentError(path, id, `is ${article(t)} node; expected: ${types.join(' or ')}`);
  }
  /** The id of a layout slot's question (answers) or parent (questions), if any. */
  layoutLink(id: string, link: 'questionSlot' | 'parentSlot'): string | undefined {
    const s = this.layout.slotOf.get(id);
    const t = s === undefined ? undefined : this.layout.slots[s]![link];
    return t === undefined ? undefined : this.layout.slots[t]!.id!;
  }
  /** The question of an answer (declared in this output, or the layout's). */
  questionOf(answer: string): string | undefined {
    return this.declared.answers.get(answer)?.question ?? this.layoutLink(answer, 'questionSlot');
  }
  /** The answers of a question in the layout that this output does not declare, in slot order. */
  knownAnswersOf(question: string): string[] {
    const qs = this.layout.slotOf.get(question);
    const out: string[] = [];
    if (qs === undefined) return out;
    for (const s of this.layout.slots)
      if (s.type === 'answer' && s.id !== null && s.questionSlot === qs && !this.declared.answers.has(s.id))
        out.push(s.id);
    return out;
  }
  /**
   * Whether this output may declare `id` (give its text): a node unknown to the state or one
   * evidence added; false for a node of the state's graph (its text is not this output's).
   * @throws {ArgumentError} `id` is a claim of this output or a node of another type.
   */
  declarable(path: string, id: string, type: 'answer' | 'question'): boolean {
    if (this.local.has(id)) throw new ArgumentError(path, id, 'is the id of a claim of this output');
    const s = this.layout.slotOf.get(id);
    if (s === undefined) return true;
    const t = this.layout.slots[s]!.type;
    if (t !== type) throw new ArgumentError(path, id, `is ${article(t)} node; expected: ${type}`);
    return this.added.has(id);
  }
}

/** Declares claim i's new question (questionText); returns its id. */
function declareQuestion(c: LlmClaim, i: number, refs: References): string | undefined {
  const at = `output.claims[${i}]`;
  if (c.questionText === undefined) {
    if (c.parentQuestion !== undefined)
      throw new ArgumentError(`${at}.parentQuestion`, c.parentQuestion, 'is for a new question: give questionText');
    return c.question;
  }
  const question = c.question ?? `q:${hash(c.questionText)}`;
  if (!refs.declarable(`${at}.question`, question, 'question')) return question;
  const inLayout = refs.layout.slotOf.has(question);
  const fixed = inLayout ? refs.layoutLink(question, 'parentSlot') : undefined;
  const earlier = refs.declared.questions.get(question);
  const parent = c.parentQuestion ?? earlier?.parent ?? fixed;
  const differs = (other: string | undefined) =>
    new ArgumentError(`${at}.parentQuestion`, parent, `differs from the parent of ${question} (${other ?? 'none'})`);
  if (inLayout && parent !== fixed) throw differs(fixed);
  if (earlier?.parent !== undefined && parent !== earlier.parent) throw differs(earlier.parent);
  if (parent === question) throw new ArgumentError(`${at}.parentQuestion`, parent, 'is the question itself');
  if (!earlier) refs.declared.questions.set(question, { text: c.questionText, claim: i });
  if (parent !== undefined) refs.declared.questions.get(question)!.parent = parent;
  return question;
}

/** Declares claim i's new answer (answerText) under `question`; returns its id. */
function declareAnswer(c: LlmClaim, i: number, question: string | undefined, refs: References): string | undefined {
  const at = `output.claims[${i}]`;
  if (c.answerText === undefined) return c.answer;
  if (c.answer !== undefined && !refs.declarable(`${at}.answer`, c.answer, 'answer')) return c.answer;
  const fixed = c.answer === undefined ? undefined : refs.layoutLink(c.answer, 'questionSlot');
  const earlier = c.answer === undefined ? undefined : refs.declared.answers.get(c.answer)?.question;
  const q = question ?? fixed ?? earlier;
  if (q === undefined)
    throw new ArgumentError(`${at}.question`, question, 'a new answer (answerText) needs the question it answers');
  const answer = c.answer ?? `a:${hash(`${q}\u0000${c.answerText}`)}`;
  if (c.answer === undefined && !refs.declarable(`${at}.answer`, answer, 'answer')) return answer;
  for (const other of [fixed, earlier])
    if (other !== undefined && other !== q)
      throw new ArgumentError(`${at}.question`, q, `differs from the question of answer ${answer} (${other})`);
  if (!refs.declared.answers.has(answer)) refs.declared.answers.set(answer, { question: q, text: c.answerText });
  return answer;
}

/**
 * Pass 1 of {@link toEvidenceItem}: the answers and questions the claims add (answerText,
 * questionText), with their ids (given or derived), questions and parents, checked for
 * agreement with the state and among themselves; then each parent is checked to be a question
 * and no chain of parents to return to where it starts.
 */
function declare(claims: readonly LlmClaim[], refs: References): void {
  claims.forEach((c, i) => {
    const question = declareQuestion(c, i, refs);
    const answer = declareAnswer(c, i, question, refs);
    const r: { answer?: string; question?: string } = {};
    if (answer !== undefined) r.answer = answer;
    if (question !== undefined) r.question = question;
    refs.declared.refs.push(r);
  });
  const { questions } = refs.declared;
  const parentOf = (q: string) => (questions.has(q) ? questions.get(q)!.parent : refs.layoutLink(q, 'parentSlot'));
  for (const [id, q] of questions) {
    if (q.parent === undefined) continue;
    const at = `output.claims[${q.claim}].parentQuestion`;
    refs.need(at, q.parent, ['question'], ' (a new question needs questionText)');
    let p: string | undefined = q.parent;
    for (let steps = 0; p !== undefined && steps <= questions.size + refs.layout.nmax; steps++) {
      if (p === id) throw new ArgumentError(at, q.parent, `leads back to ${id} (a cycle of parents)`);
      p = parentOf(p);
    }
  }
}

/**
 * Turns one LLM output into an evidence item against the state (module comment): each claim
 * becomes a claim node (id: its own, else `c:` + a hash of source and text, so the same output
 * drawn again is the same evidence), with support = reliability and ℓ from the embedder; a
 * Supports edge to its answer (weight = reliability), weight-0 Requires edges from every answer
 * of the question it addresses (the question resolves, as the default scenario's items do),
 * Supports and Contradicts edges to the claims it names.
 *
 * Open world: a claim may name an answer or a question the state does not hold. An answer with
 * `answerText` is added under its question (id: `answer`, else `a:` + a hash of question and
 * text), with a Requires edge to that question (weight 1) beside the claim's Supports edge, so
 * Q keeps it present; it is left out of the weight-0 Requires edges that resolve its question.
 * A question with `questionText` is added as an open question (id: `question`, else `q:` + a
 * hash of the text) that the claim raising it requires (Requires claim → question, weight 1);
 * with `parentQuestion`, every answer of the parent requires it too (its answers depend on the
 * sub-question). Their ℓ is the embedder's of their text (source ""). A node evidence added
 * earlier may be declared again with the same question or parent (the same output applied
 * again is a re-application); for a node of the state's graph the texts and `parentQuestion`
 * are ignored. An unknown answer without `answerText`, or question without `questionText`, is
 * an error.
 * @throws {GraphFormatError} the output does not match the schema (JSON paths `output...`);
 *   {@link ArgumentError} a reference to no node of the state or of this output, or to a node of
 *   the wrong type; a new answer without its question; a declaration that disagrees with the
 *   state or with another claim of the output; bad options.
 * @example
 * ```ts
 * const item = toEvidenceItem(state, { claims: [{ text: 'Mira Vance wrote it.', source: 'encyclopedia', answer: 'a:author:vance' }] });
 * state.step(item); // Ω, then θ ← Q(P_e θ)
 * toEvidenceItem(state, { claims: [{ text: 'Acme published it.', source: 'catalogue', answerText: 'Acme Press',
 *   question: 'q:publisher', questionText: 'Who published it?', parentQuestion: 'q:author' }] });
 * ```
 */
export function toEvidenceItem(state: AgentState, output: unknown, options: ToEvidenceOptions = {}): unknown {
  const parsed = llmEvidenceSchema.safeParse(output);
  if (!parsed.success)
    throw new GraphFormatError('output', output, toFormatIssues('output', parsed.error.issues, output));
  const strength = finiteNumber('strength', options.strength ?? 0.7);
  if (!(strength > 0 && strength <= 1)) throw new ArgumentError('strength', strength, 'must lie in (0, 1]');
  const cw = finiteNumber('contradictionWeight', options.contradictionWeight ?? 0.9);
  if (!(cw >= 0 && cw <= 1)) throw new ArgumentError('contradictionWeight', cw, 'must lie in [0, 1]');
  const embedder = options.embedder ?? hashingEmbedder;
  const { layout } = state;
  const claims = parsed.data.claims;
  const ids = claims.map((c) => c.id ?? `c:${hash(`${c.source}\u0000${c.text}`)}`);
  const local = new Set<string>();
  ids.forEach((id, i) => {
    if (local.has(id)) throw new ArgumentError(`output.claims[${i}].id`, id, 'duplicates another claim of this output');
    local.add(id);
  });
  const refs = new References(layout, new Set(state.reserved.map((r) => r.id)), local);
  declare(claims, refs);
  const { declared } = refs;
  const edges: Array<{ type: string; source: string; target: string; weight: number }> = [];
  const requires = (source: string, target: string, weight: number) =>
    edges.push({ type: 'Requires', source, target, weight });
  const out = claims.map((c, i) => {
    const at = `output.claims[${i}]`;
    const support = c.reliability ?? 0.7;
    const { answer } = declared.refs[i]!;
    let { question } = declared.refs[i]!;
    if (answer !== undefined) {
      refs.need(`${at}.answer`, answer, ['answer'], ' (a new answer needs answerText)');
      edges.push({ type: 'Supports', source: ids[i]!, target: answer, weight: support });
      const q = refs.questionOf(answer);
      if (question !== undefined && q !== undefined && question !== q)
        throw new ArgumentError(`${at}.question`, question, `differs from the question of answer ${answer} (${q})`);
      question ??= q;
    }
    if (question !== undefined) {
      refs.need(`${at}.question`, question, ['question'], ' (a new question needs questionText)');
      for (const a of refs.knownAnswersOf(question)) requires(a, question, 0);
      if (c.questionText !== undefined && declared.questions.has(question))
        requires(ids[i]!, question, STRUCTURE_WEIGHT);
    }
    (c.supports ?? []).forEach((t, j) => {
      refs.need(`${at}.supports[${j}]`, t, ['claim', 'answer']);
      edges.push({ type: 'Supports', source: ids[i]!, target: t, weight: support });
    });
    (c.contradicts ?? []).forEach((t, j) => {
      refs.need(`${at}.contradicts[${j}]`, t, ['claim']);
      edges.push({ type: 'Contradicts', source: ids[i]!, target: t, weight: cw });
    });
    return {
      id: ids[i]!,
      text: c.text,
      source: c.source,
      support,
      attributes: embedClaim(embedder, { text: c.text, source: c.source }, layout.k),
    };
  });
  const embedText = (text: string) => embedClaim(embedder, { text, source: '' }, layout.k);
  const answers = [...declared.answers].map(([id, a]) => {
    requires(id, a.question, STRUCTURE_WEIGHT);
    return { id, question: a.question, attributes: embedText(a.text), text: a.text };
  });
  const questions = [...declared.questions].map(([id, q]) => {
    if (q.parent !== undefined) {
      // the parent's answers depend on the sub-question: those the state holds, then this output's
      for (const a of refs.knownAnswersOf(q.parent)) requires(a, id, STRUCTURE_WEIGHT);
      for (const [a, d] of declared.answers) if (d.question === q.parent) requires(a, id, STRUCTURE_WEIGHT);
    }
    const node = { id, attributes: embedText(q.text), text: q.text };
    return q.parent === undefined ? node : { ...node, parent: q.parent };
  });
  // one Requires write per (answer, question): several claims may resolve the same question
  const seen = new Set<string>();
  const unique = edges.filter((e) => {
    const key = `${e.type}\u0000${e.source}\u0000${e.target}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    id: options.id ?? `llm:${hash(ids.join('\u0000'))}`,
    text: claims.map((c) => c.text).join(' '),
    strength,
    claims: out,
    ...(answers.length > 0 ? { answers } : {}),
    ...(questions.length > 0 ? { questions } : {}),
    edges: unique,
  };
}

/** Options of {@link extractionPrompt}. */
export interface ExtractionPromptOptions {
  /** Id of one of the state's questions to focus the extraction on (default: every question). */
  question?: string;
  /** Openness above which a question is listed as open, in (0, 1) (default 0.5, as `describe`). */
  delta?: number;
  /** How many of the state's present claims to list for `supports`/`contradicts`, most confident first (default 50). */
  claims?: number;
}

/** `"text"` for a prompt line, or nothing. */
function quoted(text: string | null | undefined): string {
  return text == null ? '' : ` — ${JSON.stringify(text)}`;
}

/**
 * The instructions that go with {@link llmEvidenceSchema} in a structured-output call: what to
 * extract from one retrieved text, the fields of a claim (from the schema's own descriptions,
 * so prompt and schema cannot drift), the ids of the state's questions (with openness and
 * parent) and answers (with their question and confidence) the model may reference, the
 * state's most confident claims, and how to propose a new answer (`answerText`) or a new
 * (sub-)question (`questionText`, `parentQuestion`). Send the text to extract from after it;
 * pass the model's output to {@link toEvidenceItem}. Reads the state in words (`describe`),
 * O(Nmax + present edges).
 * @throws {ArgumentError} `options.question` is not a question of the state; δ outside (0, 1);
 *   `options.claims` not an integer >= 0.
 * @example
 * ```ts
 * const prompt = extractionPrompt(state, { question: 'q:country' });
 * const output = await llm({ system: prompt, user: chunk, schema: llmEvidenceJsonSchema() });
 * state.step(toEvidenceItem(state, output));
 * ```
 */
export function extractionPrompt(state: AgentState, options: ExtractionPromptOptions = {}): string {
  // checked in describe's order: δ first (as `describe` names it), then the claims
  const delta = openInterval('delta', options.delta ?? 0.5, 0, 1);
  const maxClaims = integerInRange('options.claims', options.claims ?? 50, 0);
  const focus = options.question;
  // the prompt is a function of the state and the options: kept until the state changes (a loop
  // asks once per chunk, and most chunks add nothing); options that threw were never kept
  const key = JSON.stringify([delta, maxClaims, focus ?? null]);
  const kept = prompts.get(state);
  if (kept !== undefined && kept.revision === state.revision && kept.key === key) return kept.prompt;
  const prompt = buildPrompt(state, state.describe(delta), maxClaims, focus);
  prompts.set(state, { revision: state.revision, key, prompt });
  return prompt;
}

/** The latest prompt per state, with the state's revision and the options it was built for. */
const prompts = new WeakMap<AgentState, { revision: number; key: string; prompt: string }>();

/** {@link extractionPrompt} from the state's summary at δ. */
function buildPrompt(state: AgentState, summary: StateSummary, maxClaims: number, focus: string | undefined): string {
  const known = summary.questions.map((q) => q.question);
  if (focus !== undefined && !known.includes(focus))
    throw new ArgumentError(
      'options.question',
      focus,
      `is not a question of the state (questions: ${known.join(', ')})`,
    );
  const lines = [
    'You extract evidence from one retrieved text for an epistemic state that answers the questions below.',
    'Return one JSON object matching the given JSON Schema: {"claims": [...]}, one entry per claim the text makes that bears on these questions. Extract only what the text states; return the claims as the text states them, even where they contradict each other.',
  ];
  if (focus !== undefined) {
    const q = summary.questions.find((x) => x.question === focus)!;
    lines.push(`Focus on question ${focus}${quoted(q.text)} and the questions it depends on.`);
  }
  lines.push('', 'Fields of a claim:', ...claimFieldLines());
  lines.push('', 'Questions (id — text; openness in [0, 1]):');
  for (const q of summary.questions)
    lines.push(
      `- ${q.question}${quoted(q.text)} (${q.open ? 'open' : 'settled'}, openness ${q.openness.toFixed(3)}${q.parent === undefined ? '' : `; sub-question of ${q.parent}`})`,
    );
  lines.push('', 'Answers (id — text; the question it answers, confidence):');
  for (const a of summary.answers)
    lines.push(`- ${a.answer}${quoted(a.text)} (answers ${a.question}, confidence ${a.confidence.toFixed(3)})`);
  const claims = [...summary.claims].sort((a, b) => b.confidence - a.confidence).slice(0, maxClaims);
  if (claims.length > 0) {
    lines.push('', `Claims already held (${claims.length} of ${summary.claims.length}, most confident first):`);
    const { layout } = state;
    for (const c of claims)
      lines.push(`- ${c.id}${quoted(layout.slots[layout.slotOf.get(c.id)!]!.text)}${c.source ? ` (${c.source})` : ''}`);
  }
  lines.push(
    '',
    'Reference only the ids listed above or ids this output introduces.',
    'A new answer: when the text supports an answer not listed, give its text in answerText and the question it answers in question; answer may give it a new id (else one is derived from the text).',
    'A new question: when the text shows that something not listed must be settled first, give its text in questionText, optionally a new id in question, and in parentQuestion the question whose answers depend on it.',
  );
  return lines.join('\n');
}

/** The part of the JSON Schema of a claim that {@link extractionPrompt} reads. */
interface ClaimJsonSchema {
  properties: Record<string, { description?: string }>;
  required: string[];
}
