import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { runCli, tempFolder } from '../util/builtCli.js';
import { DEMO_PLOT_NAMES } from '../../src/report/demoPlots.js';
import { STOP_COLOR, THRESHOLD_COLOR } from '../../src/plot/theme.js';
import { countColor, decodePng, inkStats } from './png.js';
import { svgTexts } from './svg.js';

const run = runCli;

describe('ordergap demo --plot DIR (built CLI)', () => {
  const root = tempFolder('demo-plot');

  it('writes both trajectory plots as SVG and PNG, lists them on stderr, stdout unchanged', () => {
    const dir = join(root, 'plots');
    const r = run('demo', '--plot', dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(run('demo').stdout);
    const files = DEMO_PLOT_NAMES.flatMap((n) => [`${n}.png`, `${n}.svg`]).sort();
    expect(readdirSync(dir).sort()).toEqual(files);
    for (const n of DEMO_PLOT_NAMES) expect(r.stderr).toContain(join(dir, `${n}.svg`));

    const main = readFileSync(join(dir, 'demo-trajectory.svg'), 'utf8');
    // Sec. 9.2: Algorithm 1 stops at step 4 with ε = 0.025 (the demo's own computation; the
    // paper's table gives the same stop)
    expect(svgTexts(main)).toEqual(expect.arrayContaining(['ε = 0.025', 'stop at t = 4']));
    const cf = readFileSync(join(dir, 'demo-coverage-failure.svg'), 'utf8');
    expect(svgTexts(cf).some((t) => t.startsWith('NOT convergence: e2, e3'))).toBe(true);

    for (const n of DEMO_PLOT_NAMES) {
      const svg = readFileSync(join(dir, `${n}.svg`), 'utf8');
      const w = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(svg)![1]);
      const h = Number(/<svg[^>]*\sheight="([\d.]+)"/.exec(svg)![1]);
      const png = decodePng(readFileSync(join(dir, `${n}.png`)));
      expect([png.width, png.height]).toEqual([w * 2, h * 2]);
      expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.02);
      expect(countColor(png.rgba, THRESHOLD_COLOR)).toBeGreaterThan(200);
      expect(countColor(png.rgba, STOP_COLOR)).toBeGreaterThan(200);
    }
  });

  it('--json with --plot keeps stdout one JSON document', () => {
    const r = run('demo', '--json', '--plot', join(root, 'json'));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).orderGapStop.step).toBe(4);
    expect(existsSync(join(root, 'json', 'demo-trajectory.png'))).toBe(true);
  });

  it('a --plot path that is a file exits 2 naming --plot, and nothing is printed or written', () => {
    const file = join(root, 'not-a-dir');
    writeFileSync(file, 'x');
    const r = run('demo', '--plot', file);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`ordergap: error: --plot = ${JSON.stringify(file)}: exists and is not a folder`);
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('x');
  });
});
