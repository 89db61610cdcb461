import { readdirSync, readFileSync } from 'node:fs';

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from '../../bench/_data.js';
import { runCli, tempFolder } from '../util/builtCli.js';
import { decodePng, inkStats } from './png.js';
import { accuracyMinSpan } from '../../src/plot/axis.js';
import { PLOT_HEIGHT } from '../../src/plot/theme.js';
import { axisLabels, groupOf, svgItems } from './svg.js';

const samples = fileURLToPath(new URL('../../examples/samples/synthetic.jsonl', import.meta.url));
const run = runCli;

describe('ordergap compare --plot DIR (built CLI)', () => {
  const root = tempFolder('compare-plot');

  it('writes compare-accuracy.svg and .png with one point per rule of the --json summary', () => {
    const dir = join(root, 'plots');
    const r = run('compare', '--samples', samples, '--repeats', '2', '--json', '--plot', dir);
    expect(r.status, r.stderr).toBe(0);
    const rules = JSON.parse(r.stdout).summary.rules as { meanSamples: number }[];
    expect(readdirSync(dir).sort()).toEqual(['compare-accuracy.png', 'compare-accuracy.svg']);
    expect(r.stderr).toContain(join(dir, 'compare-accuracy.png'));
    const svg = readFileSync(join(dir, 'compare-accuracy.svg'), 'utf8');
    const points = svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
    expect(points).toHaveLength(rules.length);
    // more mean samples is further right: the x order of the points is the order of meanSamples
    const byX = [...points]
      .sort((a, b) => a.x - b.x)
      .map((p) => Number(/mean samples per question: ([\d.]+)/.exec(p.aria!)?.[1]));
    expect(byX).toEqual([...byX].sort((a, b) => a - b));
    const png = decodePng(readFileSync(join(dir, 'compare-accuracy.png')));
    expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.02);
  });

  it('--rules all: the Pareto front of the --json report is the dashed line through its points', () => {
    const file = join(root, 'all.svg');
    const r = run('compare', '--samples', samples, '--repeats', '2', '--rules', 'all', '--json', '--plot', file);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      summary: { rules: { label: string; meanSamples: number }[] };
      paretoFront: string[];
    };
    const svg = readFileSync(file, 'utf8');
    const line = groupOf(svg, 'mark-line role-mark');
    expect(line).toContain('aria-label="Pareto front"');
    // one vertex per rule on the front, left to right in order of their mean samples
    const xs = [...line.matchAll(/[ML]([-\d.e]+),[-\d.e]+/g)].map((m) => Number(m[1]));
    expect(xs).toHaveLength(doc.paretoFront.length);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    const points = svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
    expect(points).toHaveLength(doc.summary.rules.length);
  });

  const real = sharedDataFile(ESC_LAST_LETTERS);
  if (real === null)
    console.warn(`test/plot/compareCli.test.ts: real-data plot skipped, ${absentMessage(ESC_LAST_LETTERS)}`);
  it.skipIf(real === null)(
    'on the real ESC samples: one point per rule of the default comparison, named by what differs from the defaults',
    () => {
      const file = join(root, 'real.svg');
      const r = run('compare', '--samples', real!, '--repeats', '1', '--json', '--plot', file);
      expect(r.status, r.stderr).toBe(0);
      const rules = JSON.parse(r.stdout).summary.rules as { name: string }[];
      const svg = readFileSync(file, 'utf8');
      const points = svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('accuracy'));
      expect(points).toHaveLength(rules.length);
      expect(rules.map((x) => x.name)).toContain('anytime');
      // the two ESC-family configurations stay apart: the default window and the agreement ratio
      expect(svg).toContain('4 plurality');
      expect(svg).toContain('5 plurality(ratio=0.7, minSamples=5)');
    },
  );
  it.skipIf(real === null)(
    'on the real ESC samples, rules 1 in 5,000 apart: distinct accuracy labels, the points almost level',
    () => {
      const dir = join(root, 'close');
      const r = run(
        'compare',
        '--samples',
        real!,
        '--rules',
        'anytime',
        '--rules',
        'order-gap',
        '--json',
        '--plot',
        dir,
      );
      expect(r.status, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout).summary as { pairedItems: number; rules: { accuracy: number }[] };
      const acc = summary.rules.map((x) => x.accuracy);
      const spread = Math.max(...acc) - Math.min(...acc);
      expect(spread).toBeGreaterThan(0);
      expect(spread).toBeLessThan(0.001);
      const svg = readFileSync(join(dir, 'compare-accuracy.svg'), 'utf8');
      const labels = axisLabels(svg, 'Y').map((l) => l.text);
      expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
      const values = labels.map((l) => Number(l.replace('%', '')));
      for (let k = 1; k < values.length; k++) expect(values[k]!).toBeGreaterThan(values[k - 1]!);
      // the axis spans at least one accuracy's 95% interval over the paired items, so the spread
      // takes at most spread / span of the plot height (+1 px for vega's float placement)
      const minSpan = accuracyMinSpan(summary.pairedItems);
      expect((values.at(-1)! - values[0]!) / 100).toBeGreaterThanOrEqual(minSpan);
      const ys = svgItems(groupOf(svg, 'mark-symbol role-mark'))
        .filter((i) => i.aria?.includes('accuracy'))
        .map((i) => i.y);
      expect(ys).toHaveLength(acc.length);
      expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan((spread / minSpan) * PLOT_HEIGHT + 1);
    },
  );
});
