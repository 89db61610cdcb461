import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoReport } from '../../src/report/demo.js';
import { plotTrajectory } from '../../src/plot/trajectory.js';
import {
  escapeHtml,
  formatCell,
  inlineSvg,
  renderHtmlReport,
  renderHtmlTable,
  type HtmlReport,
} from '../../src/report/html.js';
import { expectCleanPage, expectInkedScreenshot, visit } from './browser.js';

describe('HTML building blocks', () => {
  it('escapes the five special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('formats numbers for cells', () => {
    expect(formatCell(4)).toBe('4');
    expect(formatCell(0.0220657225582)).toBe('0.0220657');
    expect(formatCell(3e-13)).toBe('3.00000e-13');
    expect(formatCell(NaN)).toBe('NaN');
    expect(formatCell(-Infinity)).toBe('−∞');
  });

  it('renders a table with escaped cells and right-aligned number columns', () => {
    const html = renderHtmlTable({
      caption: 'c<1>',
      columns: [{ header: 'e' }, { header: 'Ω', align: 'right' }],
      rows: [
        ['<e1>', 0.5],
        ['e2', null],
      ],
    });
    expect(html).toBe(
      '<table><caption>c&lt;1&gt;</caption><thead><tr><th>e</th><th class="num">Ω</th></tr></thead><tbody>' +
        '<tr><td>&lt;e1&gt;</td><td class="num">0.5</td></tr><tr><td>e2</td><td class="num">–</td></tr></tbody></table>',
    );
  });

  it('rejects malformed tables, blocks and SVGs, naming the path', () => {
    expect(() => renderHtmlTable({ columns: [], rows: [] })).toThrow(/^table\.columns = an array of length 0/);
    expect(() => renderHtmlTable({ columns: [{ header: 'a' }], rows: [[1, 2]] })).toThrow(
      /^table\.rows\[0\] = an array of length 2: must be an array of 1 cells/,
    );
    expect(() => renderHtmlTable({ columns: [{ header: 'a' }], rows: [[{} as unknown as string]] })).toThrow(
      /^table\.rows\[0\]\[0\] = an object/,
    );
    const report = (blocks: unknown[]): HtmlReport => ({
      title: 't',
      sections: [{ heading: 'h', blocks: blocks as never }],
    });
    expect(() => renderHtmlReport(report([{ kind: 'chart' }]))).toThrow(
      /^report\.sections\[0\]\.blocks\[0\]\.kind = "chart"/,
    );
    expect(() => renderHtmlReport(report([{ kind: 'figure', svg: '<svg><script>alert(1)</script></svg>' }]))).toThrow(
      /^report\.sections\[0\]\.blocks\[0\]\.svg = .*must not contain scripts/,
    );
    expect(() => inlineSvg('s', '<svg><image href="http://x/y.png"/></svg>')).toThrow(/external resources/);
    expect(() => inlineSvg('s', '<svg onload="x()"></svg>')).toThrow(/event handlers/);
    expect(() => inlineSvg('s', '<svg/onload=x()></svg>')).toThrow(/event handlers/);
    expect(() => inlineSvg('s', "<svg><g ONCLICK = 'x()'/></svg>")).toThrow(/event handlers/);
    // text and attribute values that merely read like a handler or a link are drawing, not markup
    const label = '<svg aria-label="see onset=late, href=x"><text>see onset=late href="y"</text></svg>';
    expect(inlineSvg('s', label)).toBe(label);
    expect(() => inlineSvg('s', '<div></div>')).toThrow(/^s = "<div><\/div>": must start with an <svg>/);
    expect(inlineSvg('s', '<?xml version="1.0"?>\n<svg><use href="#a"/></svg>')).toBe('<svg><use href="#a"/></svg>');
    expect(() => renderHtmlReport({ title: ' ', sections: [] })).toThrow(/^report\.title = " ": must not be empty/);
    expect(() => renderHtmlReport({ title: 't', sections: [] })).toThrow(/^report\.sections = /);
  });
});

describe('a report page in headless Chromium', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-html-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const demo = demoReport();
  const plot = await plotTrajectory(demo.trajectory, {
    epsilon: demo.setting.epsilon,
    window: demo.setting.window,
    stopStep: demo.orderGapStop.step,
    title: 'Sec. 9.2',
  });
  const report: HtmlReport = {
    title: 'Closed-form illustration',
    subtitle: `ε = ${demo.setting.epsilon}, w = ${demo.setting.window}`,
    sections: [
      {
        heading: 'Trajectory',
        blocks: [
          { kind: 'text', text: 'Ω_t and Ω̂_t,w against the step.' },
          {
            kind: 'table',
            table: {
              columns: [{ header: 't', align: 'right' }, { header: 'e' }, { header: 'Ω_t', align: 'right' }],
              rows: demo.trajectory.map((r) => [r.t, r.evidence, r.omega]),
            },
          },
          { kind: 'figure', svg: plot.svg, caption: 'order-gap against the step' },
        ],
      },
      {
        heading: 'Verdicts',
        blocks: [
          { kind: 'verdict', ok: true, text: `Algorithm 1 stops at step ${demo.orderGapStop.step}` },
          { kind: 'verdict', ok: demo.coverageFailure.allReachable, text: demo.coverageFailure.message },
        ],
      },
    ],
  };
  const file = join(dir, 'report.html');
  writeFileSync(file, renderHtmlReport(report));

  it('renders: no console errors or warnings, no page errors, no other requests, a non-blank screenshot', async () => {
    const v = await visit(file, () => ({
      svgs: [...document.querySelectorAll('figure svg')].map((s) => {
        const r = s.getBoundingClientRect();
        return { width: r.width, height: r.height };
      }),
      rows: document.querySelectorAll('tbody tr').length,
      verdicts: [...document.querySelectorAll('.verdict .mark')].map((e) => e.textContent),
      title: document.title,
      h2: [...document.querySelectorAll('h2')].map((e) => e.textContent),
    }));
    expectCleanPage(v);
    expect(v.facts.title).toBe('Closed-form illustration');
    expect(v.facts.h2).toEqual(['Trajectory', 'Verdicts']);
    expect(v.facts.rows).toBe(demo.trajectory.length);
    expect(v.facts.verdicts).toEqual(['PASS', 'FAIL']);
    // the inline plot is laid out at (nearly) its own size: the page is 1200 px wide minus margins
    expect(v.facts.svgs).toHaveLength(1);
    expect(v.facts.svgs[0]!.width).toBeGreaterThan(400);
    expect(v.facts.svgs[0]!.height).toBeGreaterThan(200);
    expectInkedScreenshot(v);
  }, 120_000);

  it('negative controls: the same checks catch a console error and a blocked external request', async () => {
    const bad = join(dir, 'bad.html');
    writeFileSync(
      bad,
      '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p>x</p>' +
        '<script>console.error("deliberate error")</script></body></html>',
    );
    const v = await visit(bad, () => null);
    expect(v.consoleMessages).toContainEqual({ type: 'error', text: 'deliberate error' });

    // The report's own CSP blocks an external image and Chromium reports it on the console.
    const html = renderHtmlReport({
      title: 'csp',
      sections: [{ heading: 'h', blocks: [{ kind: 'text', text: 'x' }] }],
    });
    const leaky = join(dir, 'leaky.html');
    writeFileSync(leaky, html.replace('</body>', '<img src="http://127.0.0.1:9/x.png"></body>'));
    const w = await visit(leaky, () => null);
    expect(w.consoleMessages.some((m) => m.type === 'error' && /Content Security Policy/.test(m.text))).toBe(true);
  }, 120_000);
});
