/**
 * The numeric shape the operators need from a layout: sizes, slot-type boundaries and the
 * answer groups (which answer slots compete for which question). Plain typed arrays, so the
 * same shape feeds the TypeScript reference, the wasm kernels and the tfjs ops.
 */
import type { Layout } from './layout.js';

/** Sizes and groups of a layout, as numbers. */
export interface OperatorShape {
  /** Attribute dimension k. */
  readonly k: number;
  /** Nmax. */
  readonly nmax: number;
  /** Number of claim slots (claims are slots [0, claims)). */
  readonly claims: number;
  /** First answer slot and first question slot. */
  readonly firstAnswer: number;
  readonly firstQuestion: number;
  /** Offset of the edge block, (k+1)·Nmax. */
  readonly edgeOffset: number;
  /** d. */
  readonly dim: number;
  /** Leading attribute coordinates merged (the text embedding). */
  readonly mergeDims: number;
  /** Per answer slot a (index a − firstAnswer): slot of its question, or −1. */
  readonly answerQuestion: Int32Array;
  /** Groups: for each question slot with answers, its answer slots (ascending). */
  readonly groups: readonly { readonly question: number; readonly answers: Int32Array }[];
  /** Per question slot q (index q − firstQuestion): index into groups, or −1. */
  readonly questionGroup: Int32Array;
  /** Largest group size n_A. */
  readonly maxAnswersPerQuestion: number;
}

/**
 * Builds the operator shape of a layout. `mergeDims` defaults to k − 1 (the last attribute is
 * the source code) when k >= 2, else k.
 */
export function operatorShape(layout: Layout, mergeDims?: number): OperatorShape {
  const { k, nmax } = layout;
  const firstAnswer = layout.firstSlot.answer;
  const firstQuestion = layout.firstSlot.question;
  const answerQuestion = new Int32Array(firstQuestion - firstAnswer).fill(-1);
  const byQuestion = new Map<number, number[]>();
  for (let a = firstAnswer; a < firstQuestion; a++) {
    const q = layout.slots[a]!.questionSlot;
    if (q === undefined) continue;
    answerQuestion[a - firstAnswer] = q;
    const list = byQuestion.get(q) ?? [];
    list.push(a);
    byQuestion.set(q, list);
  }
  const groups = [...byQuestion.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([question, answers]) => Object.freeze({ question, answers: Int32Array.from(answers) }));
  const questionGroup = new Int32Array(nmax - firstQuestion).fill(-1);
  groups.forEach((g, i) => (questionGroup[g.question - firstQuestion] = i));
  return Object.freeze({
    k,
    nmax,
    claims: layout.capacities.claims,
    firstAnswer,
    firstQuestion,
    edgeOffset: layout.edgeOffset,
    dim: layout.dim,
    mergeDims: Math.min(k, mergeDims ?? (k >= 2 ? k - 1 : k)),
    answerQuestion,
    questionGroup,
    groups: Object.freeze(groups),
    maxAnswersPerQuestion: groups.reduce((m, g) => Math.max(m, g.answers.length), 0),
  });
}
