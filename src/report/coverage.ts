/**
 * The coverage section of `ordergap run --coverage POLICY`: the paper's stop (Eq. 3, the first
 * Ω̂ <= ε) and the coverage-aware stop under POLICY side by side — stop step, converged or blind,
 * what the check found, evidence used and the answers reached — and its text rendering.
 */
import { runCoverageAware, type CandidateStop } from '../coverageStop/run.js';
import type { CoveragePolicy } from '../coverageStop/stopper.js';
import type { RedirectSteer } from '../coverageStop/steer.js';
import type { StoppingRule } from '../stopping/rule.js';
import type { RunParams } from '../system/runParams.js';
import type { OperatorSystem } from '../system/types.js';
import { fixed, renderTable } from './table.js';

/** One side of the comparison. */
export interface CoverageSide {
  policy: CoveragePolicy;
  /** What `redirect` weighted toward (null for the other policies). */
  steer: RedirectSteer | null;
  step: number;
  kind: 'converged' | 'blind' | 'budget';
  detail: string;
  evidenceUsed: number;
  /** Candidate stops and the policy's action on each. */
  candidates: Array<
    Pick<CandidateStop, 'step' | 'action' | 'targets' | 'targetQuestions'> & { verdict: string; detail: string }
  >;
  /** Best answer per question at the end, with its confidence (empty when the system does not describe its states). */
  answers: Array<{ question: string; answer: string; confidence: number }>;
  /** Questions still open (openness > δ) at the end. */
  openQuestions: string[];
}

/** The run parameters of the comparison, δ of the states in words and the steer of `redirect` (default 'coverage'). */
export type CoverageSetting = RunParams & { delta: number; steer?: RedirectSteer };

/** The `coverage` field of the run report. */
export interface CoverageComparison {
  /** The paper's rule (policy 'stop'): where Algorithm 1 stops, and whether that stop is blind. */
  paper: CoverageSide;
  /** The requested policy. */
  aware: CoverageSide;
}

async function side(
  system: OperatorSystem,
  setting: CoverageSetting,
  policy: CoveragePolicy,
  rule: StoppingRule | null,
): Promise<CoverageSide> {
  const { delta, epsilon, window, maxSteps, seed } = setting;
  const steer = policy === 'redirect' ? (setting.steer ?? 'coverage') : null;
  const r = await runCoverageAware(system, {
    epsilon,
    window,
    maxSteps,
    seed,
    policy,
    ...(steer !== null ? { steer } : {}),
    recordStates: false,
    ...(rule !== null ? { rule } : {}),
  });
  const summary = system.capabilities.describe?.summary;
  const f = summary ? summary(r.run.state ?? r.run.finalState, delta) : null;
  return {
    policy,
    steer,
    step: r.stop.step,
    kind: r.stop.kind,
    detail: r.stop.detail,
    evidenceUsed: r.evidenceUsed,
    candidates: r.candidates.map((c) => ({
      step: c.step,
      action: c.action,
      targets: c.targets,
      targetQuestions: c.targetQuestions,
      verdict: c.check.verdict,
      detail: c.check.detail,
    })),
    answers: (f?.answers ?? [])
      .filter((a) => a.best)
      .map((a) => ({ question: a.question, answer: a.answer, confidence: a.confidence })),
    openQuestions: f?.openQuestions ?? [],
  };
}

/**
 * Runs the paper's rule and the coverage-aware stop under `policy` on the system (no printing);
 * with `rule`, that rule's stops are the candidates instead of Algorithm 1's.
 * Cost: two runs of Algorithm 1 + one coverage check per candidate stop.
 */
export async function coverageComparison(
  system: OperatorSystem,
  setting: CoverageSetting,
  policy: CoveragePolicy,
  rule: StoppingRule | null = null,
): Promise<CoverageComparison> {
  const paper = await side(system, setting, 'stop', rule);
  const aware = policy === 'stop' ? paper : await side(system, setting, policy, rule);
  return { paper, aware };
}

/** Renders the comparison as text (a table of both sides, then each side's candidate stops). */
export function renderCoverageText(c: CoverageComparison): string {
  const out: string[] = [];
  const sides = [
    { name: "paper's rule (stop)", s: c.paper },
    { name: `coverage-aware (${c.aware.policy}${c.aware.steer ? `, steer ${c.aware.steer}` : ''})`, s: c.aware },
  ];
  out.push(
    'Coverage-aware stop: the coverage check at each candidate stop (Remark 5.4) calls it blind when a question is ' +
      'uncovered (per-question coverage as certify computes it) or a pool item would still move the state (Ω > ε), else converged:',
  );
  out.push(
    renderTable(
      [
        { header: 'stop' },
        { header: 'step', align: 'right' },
        { header: 'coverage check' },
        { header: 'evidence used', align: 'right' },
        { header: 'checks', align: 'right' },
        { header: 'answers (confidence)' },
      ],
      sides.map(({ name, s }) => [
        name,
        String(s.step),
        s.kind,
        String(s.evidenceUsed),
        String(s.candidates.length),
        s.answers.map((a) => `${a.answer} ${fixed(a.confidence, 3)}`).join(', '),
      ]),
    ),
  );
  for (const { name, s } of sides) {
    out.push(`  ${name}: ${s.detail}.`);
    if (s.openQuestions.length) out.push(`    Warning: this stop leaves open ${s.openQuestions.join(', ')}.`);
    for (const k of s.candidates.slice(0, 8)) {
      const failing = k.targetQuestions.map(
        (q) =>
          `${q.question} ${q.failure}${q.margin !== null ? ` (λ_min/tol = ${q.margin.toPrecision(3)})` : ''}` +
          (q.addressedBy.length ? ` <- ${q.addressedBy.join(', ')}` : ': unaddressable'),
      );
      out.push(
        `    step ${k.step}: ${k.verdict} -> ${k.action}` +
          (k.action !== 'redirect'
            ? ''
            : k.targets.length
              ? ` toward ${k.targets.join(', ')}`
              : ` toward no item${failing.length ? '' : ' (no question fails the coverage check)'}`) +
          (failing.length ? `; failing: ${failing.join('; ')}` : ''),
      );
    }
    if (s.candidates.length > 8) out.push(`    … ${s.candidates.length - 8} more candidate stop(s)`);
  }
  return out.join('\n');
}
