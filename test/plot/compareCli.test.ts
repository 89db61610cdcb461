import { readdirSync, readFileSync } from 'node:fs';

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { absentMessage, ESC_LAST_LETTERS, sharedDataFile } from '../../bench/_data.js';
import { runCli, tempFolder } from '../util/builtCli.js';
import { decodePng, inkStats } from './png.js';
import { groupOf, svgItems } from './svg.js';

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
});
