/**
 * From an LLM's structured output to an evidence item: {@link llmEvidenceSchema} (zod) is what a
 * structured-output call fills — claims with their text, source, reliability, the answer they
 * support or the question they address, the claims they support or contradict — and
 * {@link toEvidenceItem} turns one such object into an evidence item (the JSON form of a pool
 * item, ../scenarios/evidence.ts) against an `AgentState`: ids derived from the content, attribute vectors
 * from an embedder (default: feature hashing, ./embed.ts), every reference checked against the
 * state. The published JSON Schema (schema/llm-evidence.schema.json) is generated from the zod
 * schema by scripts/write-llm-schema.mjs, and a test holds the two equal.
 */
import { z } from 'zod';
import { ArgumentError } from '../../util/errors.js';
import { finiteNumber } from '../../util/validate.js';
import type { AgentState } from './agent.js';
import { embedClaim, hashingEmbedder, type Embedder } from './embed.js';
import { GraphFormatError, toFormatIssues } from '../model/schema.js';

const nodeId = z.string().min(1, 'must be a non-empty id');

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
              .describe('Id of the answer node this claim supports (one of the answers listed in the prompt).'),
            question: nodeId
              .optional()
              .describe(
                'Id of the question this claim addresses; a claim that supports an answer addresses its question.',
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

/**
 * Turns one LLM output into an evidence item against the state (module comment): each claim
 * becomes a claim node (id: its own, else `c:` + a hash of source and text, so the same output
 * drawn again is the same evidence), with support = reliability and ℓ from the embedder; a
 * Supports edge to its answer (weight = reliability), weight-0 Requires edges from every answer
 * of the question it addresses (the question resolves, as the default scenario's items do),
 * Supports and Contradicts edges to the claims it names.
 * @throws {GraphFormatError} the output does not match the schema (JSON paths `output...`);
 *   {@link ArgumentError} a reference to no node of the state or of this output, or to a node of
 *   the wrong type; bad options.
 * @example
 * ```ts
 * const item = toEvidenceItem(state, { claims: [{ text: 'Mira Vance wrote it.', source: 'encyclopedia', answer: 'a:author:vance' }] });
 * state.step(item); // Ω, then θ ← Q(P_e θ)
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
  const typeOf = (id: string): string | null => {
    if (local.has(id)) return 'claim';
    const s = layout.slotOf.get(id);
    return s === undefined ? null : layout.slots[s]!.type;
  };
  const need = (path: string, id: string, types: readonly string[]) => {
    const t = typeOf(id);
    if (t === null) throw new ArgumentError(path, id, 'names no node of the state or of this output');
    if (!types.includes(t)) throw new ArgumentError(path, id, `is a ${t} node; expected: ${types.join(' or ')}`);
  };
  const edges: Array<{ type: string; source: string; target: string; weight: number }> = [];
  const out = claims.map((c, i) => {
    const at = `output.claims[${i}]`;
    const support = c.reliability ?? 0.7;
    let question = c.question;
    if (c.answer !== undefined) {
      need(`${at}.answer`, c.answer, ['answer']);
      edges.push({ type: 'Supports', source: ids[i]!, target: c.answer, weight: support });
      const qs = layout.slots[layout.slotOf.get(c.answer)!]!.questionSlot;
      const q = qs === undefined ? undefined : layout.slots[qs]!.id!;
      if (question !== undefined && q !== undefined && question !== q)
        throw new ArgumentError(`${at}.question`, question, `differs from the question of answer ${c.answer} (${q})`);
      question ??= q;
    }
    if (question !== undefined) {
      need(`${at}.question`, question, ['question']);
      const qs = layout.slotOf.get(question)!;
      layout.slots.forEach((s) => {
        if (s.type === 'answer' && s.id !== null && s.questionSlot === qs)
          edges.push({ type: 'Requires', source: s.id, target: question, weight: 0 });
      });
    }
    (c.supports ?? []).forEach((t, j) => {
      need(`${at}.supports[${j}]`, t, ['claim', 'answer']);
      edges.push({ type: 'Supports', source: ids[i]!, target: t, weight: support });
    });
    (c.contradicts ?? []).forEach((t, j) => {
      need(`${at}.contradicts[${j}]`, t, ['claim']);
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
    edges: unique,
  };
}
