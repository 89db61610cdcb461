/**
 * What the `redirect` policy steers toward after a blind coverage check (Sec. 7.3, adaptive
 * extraction: "weight chunk selection toward evidence that addresses OpenQuestion nodes failing
 * the coverage check of Remark 5.4").
 *
 * - The questions failing the check ({@link targetQuestions}): each uncovered one (certify's
 *   per-question coverage fails on W_q at θ_T; its λ_min, tolerance and their ratio), then each
 *   open one that no pool item addresses (W_q empty, coverage not decided; a closed one is not
 *   missing, and does not make the stop blind either). Each names the pool items that
 *   address it: those whose footprint — the coordinates P_e reads and writes — meets q's
 *   coordinates, else certify's blind items of q (./check.ts). A question with none is
 *   unaddressable from this pool: only new evidence can reach it.
 * - The items to favour, by steer ({@link steerTargets}): `coverage` the items addressing the
 *   failing questions, in question order; `order-gap` those whose Ω(θ_T; e) > ε, then those
 *   addressing the uncovered questions ({@link redirectTargets}).
 */
import type { CoverageCheck } from './check.js';

/** What `redirect` weights toward (module comment). */
export type RedirectSteer = 'coverage' | 'order-gap';

/** The steerings, the default first. */
export const REDIRECT_STEERS: readonly RedirectSteer[] = Object.freeze(['coverage', 'order-gap']);

/** A question failing the coverage check of a candidate stop, with the pool items addressing it. */
export interface TargetQuestion {
  readonly question: string;
  /**
   * 'uncovered': Prop. 5.2 fails on W_q under P(·|θ_T) (certify's per-question coverage);
   * 'unaddressed': no pool item addresses q, so W_q is empty and coverage is not decided.
   */
  readonly failure: 'uncovered' | 'unaddressed';
  /** For 'uncovered': λ_min(G_Wq) / certify's tolerance (below 1: the test failed); else null. */
  readonly margin: number | null;
  /** For 'uncovered': directions of W_q the supported items leave unseen; else null. */
  readonly kernelDim: number | null;
  /** What failed, in one line (certify's reading for 'uncovered'). */
  readonly summary: string;
  /** The pool items addressing q; empty: unaddressable from this pool. */
  readonly addressedBy: readonly string[];
}

/** The questions failing the check: the uncovered ones, then the open ones no pool item addresses. */
export function targetQuestions(check: CoverageCheck): TargetQuestion[] {
  return [
    ...check.uncoveredQuestions.map(
      (q): TargetQuestion => ({
        question: q.question,
        failure: 'uncovered',
        margin: q.margin,
        kernelDim: q.kernelDim,
        summary: q.summary,
        addressedBy: q.addressedBy,
      }),
    ),
    ...check.openUnaddressedQuestions.map(
      (question): TargetQuestion => ({
        question,
        failure: 'unaddressed',
        margin: null,
        kernelDim: null,
        summary: 'no pool item addresses it: coverage not decided',
        addressedBy: [],
      }),
    ),
  ];
}

/** Items a blind check names (steer `order-gap`): those moving the state by more than ε, then those addressing uncovered questions. */
export function redirectTargets(check: CoverageCheck): string[] {
  const out = new Set(check.movingItems.map((m) => m.evidence));
  for (const q of check.uncoveredQuestions) for (const id of q.addressedBy) out.add(id);
  return [...out];
}

/** The items `redirect` weights toward after the blind `check` under `steer` (module comment). */
export function steerTargets(check: CoverageCheck, steer: RedirectSteer): string[] {
  if (steer === 'order-gap') return redirectTargets(check);
  return [...new Set(targetQuestions(check).flatMap((q) => q.addressedBy))];
}

/**
 * Where `redirect` steers, for the stop report's detail: toward which items for which questions,
 * the unaddressable questions, or why `coverage` names no items.
 */
export function steerText(check: CoverageCheck, steer: RedirectSteer, targets: readonly string[]): string {
  if (steer === 'order-gap')
    return `steer order-gap: toward ${targets.length} item(s) with Ω > ε or addressing an uncovered question`;
  const questions = targetQuestions(check);
  if (questions.length === 0)
    return 'steer coverage: toward no item, no question fails the coverage check (blind by the pool check alone)';
  const addressed = questions.filter((q) => q.addressedBy.length > 0).map((q) => q.question);
  const unaddressable = questions.filter((q) => q.addressedBy.length === 0).map((q) => q.question);
  return [
    addressed.length
      ? `steer coverage: toward ${targets.join(', ')} for ${addressed.join(', ')}`
      : 'steer coverage: toward no item',
    ...(unaddressable.length
      ? [
          `${unaddressable.join(', ')} unaddressable (no pool item addresses ${unaddressable.length === 1 ? 'it' : 'them'})`,
        ]
      : []),
  ].join('; ');
}
