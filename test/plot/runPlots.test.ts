import { readdirSync, readFileSync } from 'node:fs';

import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempFolder } from '../util/builtCli.js';
import { STOP_COLOR, THRESHOLD_COLOR } from '../../src/plot/theme.js';
import { countColor, decodePng, inkStats } from './png.js';
import { groupOf, seriesUnder, svgItems, svgTexts, textBox } from './svg.js';

const run = runCli;

describe('ordergap run --plot DIR (built CLI, default scenario)', () => {
  const root = tempFolder('run-plot');

  it('writes the trajectory plot whose points, ε and stop match the --json report of the same run', () => {
    const dir = join(root, 'plots');
    const r = run('run', '--json', '--plot', dir);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(readdirSync(dir).sort()).toEqual(['run-trajectory.png', 'run-trajectory.svg']);
    const svg = readFileSync(join(dir, 'run-trajectory.svg'), 'utf8');
    const texts = svgTexts(svg);
    if (report.stop.reason === 'order-gap') expect(texts).toContain(`stop at t = ${report.stop.step}`);
    expect(texts).toContain(`ε = ${report.setting.epsilon}`);
    // one point per Ω_t and per Ω̂_t,w of the report
    const points = svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.startsWith('step t:'));
    const expected = report.trajectory.reduce(
      (n: number, row: { windowed: number | null }) => n + 1 + (row.windowed === null ? 0 : 1),
      0,
    );
    expect(points).toHaveLength(expected);
    // the ε label covers no point and no segment of Ω_t or Ω̂_t,w
    expect(seriesUnder(svg, textBox(svg, `ε = ${report.setting.epsilon}`))).toEqual({ points: 0, segments: 0 });
    const png = decodePng(readFileSync(join(dir, 'run-trajectory.png')));
    expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.02);
    expect(countColor(png.rgba, THRESHOLD_COLOR)).toBeGreaterThan(200);
    if (report.stop.reason === 'order-gap') expect(countColor(png.rgba, STOP_COLOR)).toBeGreaterThan(200);
  });

  it('a bad --plot folder exits 2 naming --plot', () => {
    const r = run('run', '--plot', BIN);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^ordergap: error: --plot = ".*": exists and is not a folder/);
  });
});
