import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { reportJson } from '../../src/report/json.js';
import { renderCertifyReport, writeCertifyReport, type CertifyReportInput } from '../../src/report/certifyHtml.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { certifyReport, renderCertifyText, type CertifyReport } from '../../src/report/certify.js';
import { formatCell } from '../../src/report/html.js';
import { init } from '../../src/wasm/module.js';
import { decodePng, inkStats } from '../plot/png.js';
import { expectCleanPage, visit } from './browser.js';
import { expectedVerdictMarks } from './verdicts.js';

describe('certification HTML page (real certify run: closed form with e2, e3 at probability 0)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-certify-html-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = await certify(closedFormSystem({ probabilities: { e2: 0, e3: 0 } }));
  // the page is built from the --json document (typed arrays become plain arrays)
  const json = JSON.parse(reportJson(report)) as CertifyReportInput;
  const file = join(dir, 'certify.html');
  writeFileSync(file, await renderCertifyReport(json));

  it('shows one verdict per check as certify decided, both plots, every table row', async () => {
    const contraction = report.contraction;
    const expected = expectedVerdictMarks(report);
    // this variant exercises both outcomes
    expect(expected).toEqual(expect.arrayContaining(['PASS', 'FAIL']));
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

  it("each subspace's tolerance derivation is on the page, named, as the text report gives it", async () => {
    const html = readFileSync(file, 'utf8');
    expect(report.subspaces.length).toBeGreaterThan(1);
    for (const s of report.subspaces) {
      const escaped = s.toleranceDerivation
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/'/g, '&#39;');
      expect(html).toContain(`Tolerance of ${s.name}: ${escaped}`);
    }
  });

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

describe('refuted bounds and unverified contraction read as such (operator modules, page and text)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-certify-verdicts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A 2-D module with Q(θ) = q·θ (P_e pulls θ₀ half-way to 1 for 'a'), optionally declaring a bound on 'all'. */
  const module = (name: string, q: number, bound?: number): string => {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(
      file,
      `export default {
  name: '${name}', dim: 2, theta0: [0.5, 0.25],
  consolidate: (t) => [${q} * t[0], ${q} * t[1]],
  expand: (e, t) => (e === 'a' ? [0.5 * t[0] + 0.5, t[1]] : [t[0], t[1]]),
  evidence: [{ id: 'a', p: 0.5 }, { id: 'b', p: 0.5 }],
  ${bound === undefined ? '' : `lipschitz: { all: { bound: ${bound}, derivation: 'wrong on purpose' } },`}
};
`,
    );
    return file;
  };
  // Q = 0.9·θ declared 0.2-Lipschitz: the search finds ratio 0.9 and refutes the bound;
  // Q = 0.5·θ with no bound: contractive in truth, but nothing certifies it
  const lying = await certifyReport({ system: module('lying', 0.9, 0.2), timings: false });
  const half = await certifyReport({ system: module('half', 0.5), timings: false });
  const pages = {
    lying: await renderCertifyReport(JSON.parse(reportJson(lying)) as CertifyReportInput),
    half: await renderCertifyReport(JSON.parse(reportJson(half)) as CertifyReportInput),
  };
  /** The verdict lines of a page: class, mark and text. */
  const verdicts = (html: string) =>
    [...html.matchAll(/<p class="verdict (\w+)"><span class="mark">(\w+)<\/span> ([^<]*)<\/p>/g)].map((m) => ({
      cls: m[1]!,
      mark: m[2]!,
      text: m[3]!,
    }));
  /** The cells of the contraction table's rows. */
  const contractionCells = (html: string) => {
    const section = html.slice(html.indexOf('<h2>Contraction'), html.indexOf('<h2>Redundancy'));
    return [...section.matchAll(/<tr>(.*?)<\/tr>/g)]
      .slice(1)
      .map((r) => [...r[1]!.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((c) => c[1]!));
  };

  it('the certifications are what the page is about: a refuted bound, and an unverified contraction', () => {
    expect(lying.contraction[0]).toMatchObject({
      verdict: 'undecided',
      analyticBound: 0.2,
      analyticBoundRefuted: true,
    });
    expect(lying.contraction[0]!.empiricalLowerBound).toBeGreaterThan(0.2);
    expect(half.contraction[0]).toMatchObject({ verdict: 'undecided', contractive: null, analyticBound: null });
  });

  it('a refuted bound reads REFUTED with the ratio that refutes it, in the table and as a FAIL verdict', () => {
    const ratio = formatCell(lying.contraction[0]!.empiricalLowerBound);
    const [row] = contractionCells(pages.lying);
    expect(row![0]).toBe('all');
    expect(row![6]).toBe(`0.2 REFUTED by ratio ${ratio}`);
    const refuted = verdicts(pages.lying).filter((v) => v.text.includes('Lipschitz bound'));
    expect(refuted).toHaveLength(1);
    expect(refuted[0]).toMatchObject({ cls: 'bad', mark: 'FAIL' });
    expect(refuted[0]!.text).toContain(`0.2 is REFUTED`);
    expect(refuted[0]!.text).toContain(`= ${ratio} &gt; 0.2`);
    expect(verdicts(pages.lying).map((v) => v.mark)).toEqual(expectedVerdictMarks(lying));
  });

  it('an unverified contraction is UNVERIFIED (amber), not FAIL', () => {
    for (const page of [pages.lying, pages.half]) {
      const contraction = verdicts(page).filter((v) => v.text.startsWith('contraction on all'));
      expect(contraction).toHaveLength(1);
      expect(contraction[0]).toMatchObject({ cls: 'unverified', mark: 'UNVERIFIED' });
      expect(contraction[0]!.text).toMatch(/no pair with ratio ≥ 1 \(largest 0\.[59]\)/);
    }
    expect(verdicts(pages.half).map((v) => v.mark)).toEqual(expectedVerdictMarks(half));
    expect(contractionCells(pages.half)[0]![6]).toBe('–');
  });

  it('the text report says the same: REFUTED with the ratio, undecided as undecided', () => {
    const row = (r: CertifyReport) =>
      renderCertifyText(r)
        .split('\n')
        .find((l) => l.startsWith('all ') && l.includes('undecided'));
    expect(row(lying)).toContain('0.2000 REFUTED by ratio 0.9000');
    expect(row(half)).toMatch(/^all\s+2\s+undecided\s+—\s+0\.5000\s+0\.5000\s+—\s/);
    expect(renderCertifyText(half)).not.toMatch(/FAIL|NOT contractive|REFUTED/);
  });

  it('in Chromium the three kinds look different: PASS green, UNVERIFIED amber, FAIL red', async () => {
    const file = join(dir, 'lying.html');
    writeFileSync(file, pages.lying);
    const v = await visit(file, () =>
      [...document.querySelectorAll('.verdict')].map((e) => ({
        mark: e.querySelector('.mark')?.textContent,
        background: getComputedStyle(e).backgroundColor,
        color: getComputedStyle(e.querySelector('.mark')!).color,
      })),
    );
    expectCleanPage(v);
    const look = (mark: string) => v.facts.find((f) => f.mark === mark)!;
    expect(new Set(['PASS', 'UNVERIFIED', 'FAIL'].map((m) => look(m).background)).size).toBe(3);
    expect(new Set(['PASS', 'UNVERIFIED', 'FAIL'].map((m) => look(m).color)).size).toBe(3);
    // the same mark always looks the same
    for (const f of v.facts) expect(f).toEqual(look(f.mark!));
  }, 120_000);

  it('a report with timings names what they ran on (Node, kernel build, threads), in its JSON and on the page; none without', async () => {
    const timed = await certifyReport({ system: module('timed', 0.5) });
    const { kernels } = await init();
    expect(timed.environment).toEqual({
      node: process.version,
      kernels,
      threads: { requested: 1, threads: 1, probe: null },
    });
    expect(half.environment).toBeUndefined();
    const page = await renderCertifyReport(JSON.parse(reportJson(timed)) as CertifyReportInput);
    expect(page).toContain(`<h2>Timings (Node ${process.version}, ${kernels} kernels, 1 thread)</h2>`);
    const two = await certifyReport({ system: module('timed', 0.5), threads: 2 });
    expect(two.environment?.threads).toEqual({ requested: 2, threads: 2, probe: null });
    const pageTwo = await renderCertifyReport(JSON.parse(reportJson(two)) as CertifyReportInput);
    expect(pageTwo).toContain(`<h2>Timings (Node ${process.version}, ${kernels} kernels, 2 threads)</h2>`);
    expect(pages.half).not.toContain('<h2>Timings');
  });
});
