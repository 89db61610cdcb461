/**
 * Test helper: the verdict marks the certification page must show for a report (its `--json`
 * document or the object `certify()` returns), in page order: the fixed point, per contraction
 * block its verdict (PASS proved, FAIL refuted, UNVERIFIED undecided) and a FAIL for a
 * declared bound the search refuted, then the subspaces and the questions.
 */
interface VerdictFacts {
  fixedPoint: { converged: boolean };
  contraction: readonly { contractive: boolean | null; analyticBoundRefuted: boolean }[];
  subspaces: readonly { nonDegenerate: boolean }[];
  coverage: readonly { covered: boolean }[];
}

const mark = (ok: boolean | null): string => (ok === null ? 'UNVERIFIED' : ok ? 'PASS' : 'FAIL');

/** The marks, in page order. */
export function expectedVerdictMarks(report: VerdictFacts): string[] {
  const blocks = report.contraction;
  return [
    mark(report.fixedPoint.converged),
    ...blocks.flatMap((c) => [mark(c.contractive), ...(c.analyticBoundRefuted ? [mark(false)] : [])]),
    ...report.subspaces.map((s) => mark(s.nonDegenerate)),
    ...report.coverage.map((q) => mark(q.covered)),
  ];
}
