import { describe, expect, it } from 'vitest';
import { demoReport, renderDemoText } from '../../src/report/demo.js';
import { runReport } from '../../src/report/run.js';
import { renderRunText } from '../../src/report/runText.js';

// Runs long enough that a spread call over the steps (one argument per row) overflows V8's
// stack: the text renderers the CLI prints must still render them. The closed form keeps each
// step cheap; ε = 1e-300 with w = 250 000 keeps Algorithm 1 from stopping before the budget.
const STEPS = 250_000;

describe(`reports of ${STEPS}-step runs render as text`, () => {
  it('ordergap run: the trajectory table has one line per step', async () => {
    const report = await runReport({
      system: 'closed-form',
      seed: 1,
      maxSteps: STEPS,
      epsilon: 1e-300,
      window: STEPS,
    });
    expect(report.trajectory).toHaveLength(STEPS);
    const text = renderRunText(report);
    const lines = text.split('\n');
    const last = lines.find((l) => new RegExp(`^\\s*${STEPS}  `).test(l));
    expect(last, 'the last step of the table').toBeDefined();
    // every row is padded to the widest cell: the first step's row is as wide as the last one's
    const first = lines.find((l) => /^\s+1 {2}e/.test(l))!;
    expect(first.indexOf('  e')).toBe(last!.indexOf('  e'));
  }, 120_000);

  it('ordergap demo: the coverage-failure run is tabulated to its budget', () => {
    const report = demoReport({ maxSteps: STEPS, epsilon: 1e-300, window: STEPS });
    expect(report.coverageFailure.trajectory).toHaveLength(STEPS);
    const text = renderDemoText(report);
    expect(text).toMatch(new RegExp(`\\n\\s*${STEPS}  e\\d`));
  }, 120_000);
});
