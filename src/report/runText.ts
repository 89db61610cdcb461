/**
 * The text rendering of `ordergap run`'s report (./run.ts): the system and its facts, the
 * setting, the trajectory table, why and when the run stopped, the pool check, the state and,
 * where the system describes its states, the final state in words.
 */
import { pushAll } from '../util/arrays.js';
import type { StateSummary } from '../system/types.js';
import { renderCoverageText } from './coverage.js';
import type { RunReport } from './run.js';
import { fixed, renderTable } from './table.js';

/** `evidenceItems` → 'evidence items', `nmax` → 'nmax'. */
const words = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * A fact as text: counts as "7 nodes", other numbers as "k = 4" (3 decimals unless integral), a
 * `<block>LipschitzBound` as the analytic bound of Q on that block and whether it is below 1.
 */
function factText(key: string, value: number | string): string {
  if (typeof value === 'string') return `${words(key)}: ${value}`;
  const v = Number.isInteger(value) ? String(value) : fixed(value, 3);
  const block = /^(.*)LipschitzBound$/.exec(key)?.[1];
  if (block !== undefined)
    return `Q's analytic Lipschitz bound on the ${words(block)} block ${v} (${value < 1 ? '< 1: a contraction there' : 'NOT < 1'})`;
  if (/s$/.test(key) && Number.isInteger(value)) return `${v} ${words(key)}`;
  return `${key} = ${v}`;
}

/** The header: source, d and the system's facts, the questions, the setting. */
function headerLines(r: RunReport): string[] {
  const { source, dim, ...facts } = r.scenario;
  const out = [`Scenario: ${source}`];
  out.push(
    `  d = ${dim}; ${Object.entries(facts)
      .map(([k, v]) => factText(k, v))
      .join(', ')}`,
  );
  if (r.initialState) out.push(`  Questions: ${r.initialState.questions.map((q) => q.text ?? q.question).join(' / ')}`);
  const s = r.setting;
  out.push(
    `Algorithm 1: ε = ${s.epsilon}, w = ${s.window}, Tmax = ${s.maxSteps}, seed = ${s.seed}` +
      (s.rule ? `; stopping rule ${s.rule}` : '') +
      (s.sequence ? `; evidence in the order ${s.sequence.join(', ')}` : ''),
  );
  return out;
}

/** The trajectory table. */
function trajectoryTable(r: RunReport): string {
  return renderTable(
    [
      { header: 't', align: 'right' },
      { header: 'evidence' },
      { header: 'P(e|θ)', align: 'right' },
      { header: 'new?' },
      { header: '‖P_e θ − θ‖', align: 'right' },
      { header: 'Ω_t', align: 'right' },
      { header: 'Ω̂_t', align: 'right' },
    ],
    r.trajectory.map((x) => [
      String(x.t),
      x.evidence,
      fixed(x.probability, 3),
      x.firstDraw ? 'new' : 'seen',
      fixed(x.residual, 4),
      fixed(x.omega, 4),
      fixed(x.windowed, 4),
    ]),
  );
}

/**
 * The pool check in its own words: the items that would still move the state and the unreachable
 * ones among them. "Blind" is the coverage check's verdict (src/coverageStop), named as such.
 */
function poolCheckLine(r: RunReport): string {
  const moving = r.poolCheck.items.filter((i) => i.omega > r.setting.epsilon);
  if (!moving.length) return 'Pool check at the stop: every pool item has Ω <= ε.';
  const unreachable = r.poolCheck.unreachableItems;
  return (
    `Pool check at the stop: ${moving.length} item(s) would still move the state by more than ε: ` +
    moving.map((i) => `${i.evidence} (Ω = ${fixed(i.omega, 3)}, P = ${fixed(i.p, 3)})`).join(', ') +
    (unreachable.length
      ? ` — ${unreachable.length} of them unreachable (P = 0): ${unreachable.join(', ')} (Sec. 9.2's coverage failure)`
      : ' — all reachable (P > 0)') +
    '; the coverage check (--coverage) calls a stop with such items blind.'
  );
}

/** The stop, the best state, the items never drawn, the pool check and the state's counts. */
function stopLines(r: RunReport): string[] {
  const out: string[] = [];
  const stopped = r.stop.reason !== 'budget' && r.stop.reason !== 'evidence-exhausted';
  out.push(
    `${stopped ? 'Algorithm 1 stops' : 'Algorithm 1 did not stop'} at step ${r.stop.step} of the budget ${r.stop.budget}: ${r.stop.explanation}.`,
  );
  if (r.openAtStop) out.push(`Warning: ${r.openAtStop.warning}.`);
  if (r.best !== null && r.best.step !== r.stop.step)
    out.push(`Smallest Ω̂ of the run: ${fixed(r.best.windowed, 4)} at step ${r.best.step}.`);
  if (r.neverDrawn.length) out.push(`Never drawn: ${r.neverDrawn.join(', ')}.`);
  out.push(poolCheckLine(r));
  const { representation, bytes, consolidations, schedule, ...counts } = r.state;
  const countText = Object.entries(counts)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${v} ${words(k)}`);
  out.push(
    '',
    `State: ${representation}, ${(bytes / 2 ** 20).toFixed(2)} MiB` +
      (countText.length ? ` (${countText.join(', ')})` : '') +
      `; Q applied ${consolidations} time(s) in ${r.stop.step} step(s)` +
      (schedule !== null ? ` (scheduled: Q when the accumulated Ω exceeds ${schedule})` : ''),
  );
  return out;
}

/** A state in words: answers, open questions, promoted questions, contradictions, merged claims, pending edges (when there are any). */
export function renderStateSummary(f: StateSummary, title: string): string[] {
  const out = [`${title} (δ = ${f.delta}):`, '  Answers:'];
  for (const a of f.answers)
    out.push(`    ${a.best ? '*' : ' '} ${a.question}: ${a.text ?? a.answer} — confidence ${fixed(a.confidence, 3)}`);
  out.push(
    f.openQuestions.length
      ? `  Open questions left: ${f.questions
          .filter((q) => q.open)
          .map((q) => `${q.question} (openness ${fixed(q.openness, 3)})`)
          .join(', ')}`
      : `  Open questions left: none (openness ${f.questions.map((q) => `${q.question} ${fixed(q.openness, 3)}`).join(', ')})`,
  );
  const promoted = f.promoted.map(
    (p) =>
      `${p.question} (resolution support ${fixed(p.support, 3)} >= ${p.threshold}; best answer: ` +
      (p.answer === null ? 'none' : `${p.answerText ?? p.answer} — confidence ${fixed(p.confidence, 3)}`) +
      ')',
  );
  out.push(`  Promoted to partial answers: ${promoted.length === 0 ? 'none' : promoted.join('; ')}`);
  const left = f.contradictions.filter((c) => c.violating);
  const resolved = f.contradictions.filter((c) => !c.violating);
  const pair = (c: (typeof f.contradictions)[number]) =>
    `${c.weaker} (${fixed(Math.min(c.sourceConfidence, c.targetConfidence), 2)}) against ${c.weaker === c.source ? c.target : c.source} (${fixed(Math.max(c.sourceConfidence, c.targetConfidence), 2)})`;
  out.push(
    `  Contradictions left: ${left.length === 0 ? 'none' : left.map((c) => `${c.source} vs ${c.target} (${fixed(c.sourceConfidence, 2)}, ${fixed(c.targetConfidence, 2)})`).join('; ')}` +
      (resolved.length ? `; resolved by downweighting: ${resolved.map(pair).join('; ')}` : ''),
  );
  const merged = f.merged.map(
    (m) =>
      `${m.claims[0]} (${m.sources[0] ?? '?'}) ~ ${m.claims[1]} (${m.sources[1] ?? '?'}): distance ${m.originalDistance === null ? '?' : fixed(m.originalDistance, 4)} -> ${fixed(m.distance, 4)}`,
  );
  out.push(`  Merged claims: ${merged.length === 0 ? 'none' : merged.join('; ')}`);
  if (f.pendingEdges?.length)
    out.push(
      `  Pending edges (an endpoint not a node yet): ${f.pendingEdges.map((e) => `${e.type} ${e.source} -> ${e.target} (${fixed(e.weight, 2)})`).join('; ')}`,
    );
  return out;
}

/** Renders the report as text. */
export function renderRunText(r: RunReport): string {
  const out = [...headerLines(r), '', trajectoryTable(r), '', ...stopLines(r)];
  if (r.finalState) pushAll(out, ['', ...renderStateSummary(r.finalState, 'Final state')]);
  if (r.coverage) out.push('', renderCoverageText(r.coverage));
  return out.join('\n');
}
