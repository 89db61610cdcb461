import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';
import { expectCleanPage, expectInkedScreenshot, visit } from './browser.js';
import { expectedVerdictMarks } from './verdicts.js';

// The end-to-end check: `ordergap certify --report FILE.html` on the default scenario
// (the real built CLI), the page opened in Debian's headless Chromium.

describe('ordergap certify --report FILE.html (built CLI, default scenario) in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-certify-report-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders: no console errors, no requests, a verdict per check as in --json, two plots, non-blank', async () => {
    const file = join(dir, 'certify.html');
    const r = spawnSync(process.execPath, [BIN, 'certify', '--json', '--no-progress', '--report', file], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const expected = expectedVerdictMarks(report);
    const v = await visit(file, () => ({
      title: document.title,
      verdicts: [...document.querySelectorAll('.verdict .mark')].map((e) => e.textContent),
      figures: [...document.querySelectorAll('figure svg')].map((s) => s.getBoundingClientRect().height),
    }));
    expectCleanPage(v);
    expect(v.facts.title).toBe(`Certification of ${report.system}`);
    expect(v.facts.verdicts).toEqual(expected);
    expect(v.facts.figures).toHaveLength(2);
    for (const h of v.facts.figures) expect(h).toBeGreaterThan(100);
    expectInkedScreenshot(v);
  }, 180_000);
});
