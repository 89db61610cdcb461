import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package's runtime export tree must match the committed API report: a change to the
// public surface is a reviewed edit of api/ordergap.api.txt, not a side effect.
const script = fileURLToPath(new URL('../scripts/api-report.mjs', import.meta.url));

describe('public API report', () => {
  it('dist/index.js exports exactly what api/ordergap.api.txt lists', () => {
    const r = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^public API matches api\/ordergap.api.txt \(\d+ names\)/);
  });
});
