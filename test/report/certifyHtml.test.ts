import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { reportJson } from '../../src/report/json.js';
import { renderCertifyReport, writeCertifyReport, type CertifyReportInput } from '../../src/report/certifyHtml.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { decodePng, inkStats } from '../plot/png.js';
import { expectCleanPage, visit } from './browser.js';

describe('certification HTML page (real certify run: closed form with e2, e3 at probability 0)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-certify-html-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = await certify(closedFormSystem({ probabilities: { e2: 0, e3: 0 } }));
  // the page is built from the --json document (typed arrays become plain arrays)
  const json = JSON.parse(reportJson(report)) as CertifyReportInput;
  const file = join(dir, 'certify.html');
  writeFileSync(file, await renderCertifyReport(json));

  it('shows one verdict per check with PASS/FAIL as certify decided, both plots, every table row', async () => {
    const contraction = report.contractionBySubspace.length > 0 ? report.contractionBySubspace : [report.contraction];
    const expected = [
      report.fixedPoint.converged,
      ...contraction.map((c) => c.contractive === true),
      ...report.subspaces.map((s) => s.nonDegenerate),
      ...report.coverage.map((q) => q.covered),
    ].map((ok) => (ok ? 'PASS' : 'FAIL'));
    // this variant exercises both outcomes
    expect(new Set(expected)).toEqual(new Set(['PASS', 'FAIL']));
    const v = await visit(file, () => ({
      verdicts: [...document.querySelectorAll('.verdict .mark')].map((e) => e.textContent),
      figures: [...document.querySelectorAll('figure svg')].map((s) => s.getBoundingClientRect().width),
      tables: [...document.querySelectorAll('table')].map((t) => t.querySelectorAll('tbody tr').length),
      blind: document.body.textContent?.includes('e2, e3') ?? false,
    }));
    expectCleanPage(v);
    expect(v.facts.verdicts).toEqual(expected);
    expect(v.facts.figures).toHaveLength(2);
    for (const w of v.facts.figures) expect(w).toBeGreaterThan(300);
    // fixed point (1), contraction, redundancy, subspaces, coverage, timings
    expect(v.facts.tables.slice(0, 5)).toEqual([
      1,
      contraction.length,
      report.redundancy.length,
      report.subspaces.length,
      report.coverage.length,
    ]);
    // the items never sampled are named on the page
    expect(report.coverage.some((q) => q.blindItems.join(', ') === 'e2, e3')).toBe(true);
    expect(v.facts.blind).toBe(true);
    const png = decodePng(v.screenshot);
    expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.02);
  }, 120_000);

  it('writeCertifyReport writes the same page atomically and names --report in its errors', async () => {
    const out = join(dir, 'written.html');
    const lines: string[] = [];
    await writeCertifyReport(out, json, { write: (s: string) => lines.push(s) });
    expect(readFileSync(out, 'utf8')).toBe(await renderCertifyReport(json));
    expect(lines).toEqual([`wrote ${out}\n`]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await expect(writeCertifyReport(dir, json)).rejects.toThrow(/^--report = ".*": is a folder/);
    const missing = join(dir, 'no', 'such', 'x.html');
    await expect(writeCertifyReport(missing, json)).rejects.toThrow(/^--report = ".*": its folder .* does not exist/);
    expect(existsSync(join(dir, 'no'))).toBe(false);
    await expect(writeCertifyReport('', json)).rejects.toThrow(/^--report = "": must be the path of an HTML file/);
  });
});
