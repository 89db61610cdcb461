import { readdirSync, readFileSync } from 'node:fs';

import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempFolder } from '../util/builtCli.js';
import { decodePng, inkStats } from './png.js';
import { groupOf, svgItems } from './svg.js';

const run = runCli;

describe('ordergap certify --plot DIR (built CLI, closed form with e2, e3 at probability 0)', () => {
  const root = tempFolder('certify-plot');

  it('writes both margin plots; each λ_min sits on the side of the line its --json verdict says', () => {
    const dir = join(root, 'plots');
    const r = run('certify', '--system', 'closed-form', '--probabilities', 'e2=0,e3=0', '--json', '--plot', dir);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(readdirSync(dir).sort()).toEqual([
      'certify-coverage.png',
      'certify-coverage.svg',
      'certify-subspaces.png',
      'certify-subspaces.svg',
    ]);
    const svg = readFileSync(join(dir, 'certify-subspaces.svg'), 'utf8');
    const line = svgItems(svg).find((i) => i.tag === 'line' && i.aria?.startsWith('threshold:'))!;
    const points = svgItems(groupOf(svg, 'mark-symbol role-mark')).filter((i) => i.aria?.includes('series: λ_min;'));
    expect(points).toHaveLength(report.subspaces.length);
    for (const s of report.subspaces) {
      const p = points.find((i) => i.aria!.includes(`row: ${s.name} (dim ${s.dim});`))!;
      expect(p.x > line.x, s.name).toBe(s.nonDegenerate);
    }
    for (const name of ['certify-subspaces', 'certify-coverage']) {
      const png = decodePng(readFileSync(join(dir, `${name}.png`)));
      expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.02);
    }
  });

  it('a --plot path that is a file exits 2 before certifying, naming --plot', () => {
    const r = run('certify', '--plot', BIN);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`ordergap: error: --plot = ${JSON.stringify(BIN)}: exists and is not a folder`);
    expect(r.stdout).toBe('');
  });
});
