import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listRules } from '../../src/stopping/registry.js';

const doc = readFileSync(fileURLToPath(new URL('../../docs/stopping.md', import.meta.url)), 'utf8');

describe('docs/stopping.md', () => {
  it('lists every rule parameter with the default the registry (and --help) uses', () => {
    const start = doc.indexOf('| rule | parameter | default | meaning |');
    expect(start).toBeGreaterThan(0);
    const rows = doc
      .slice(start)
      .split('\n')
      .slice(2)
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').map((c) => c.trim().replace(/`/g, '')))
      .map(([, rule, param, value]) => `${rule}.${param}=${value}`);
    const expected = listRules().flatMap((r) =>
      r.params.map((p) => `${r.name}.${p.name}=${p.default === null ? 'off' : String(p.default)}`),
    );
    expect(rows).toEqual(expected);
  });
});
