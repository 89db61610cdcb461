import { describe, expect, it } from 'vitest';
import { runScript } from './util/builtCli.js';
// @ts-expect-error: a plain ES module script without declarations
import { apiLines, MAX_PUBLIC_NAMES, subpaths } from '../scripts/api-report.mjs';

// Every built subpath's runtime export tree must match its committed API report: a change to a
// surface is a reviewed edit of api/*.api.txt, not a side effect.

describe('API reports', () => {
  it('every subpath exports exactly what its api/*.api.txt lists', () => {
    const r = runScript('api-report.mjs', '--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const names = (subpaths() as { name: string }[]).map((s) => s.name);
    expect(names).toEqual(['ordergap', 'ordergap/internal', 'ordergap/ai-sdk', 'ordergap/langgraph']);
    for (const n of names)
      expect(r.stdout).toMatch(
        new RegExp(`^${n} matches api/${n.replace('/', '-')}\\.api\\.txt \\(\\d+ names\\)$`, 'm'),
      );
  });

  it('the public entry holds at most 150 runtime names; no value has two names, in it or across the two entries', async () => {
    const entries = (subpaths() as { name: string; file: string }[]).filter((s) => !/ai-sdk|langgraph/.test(s.name));
    const main = entries.find((s) => s.name === 'ordergap')!;
    const lines = (await apiLines(main.file)) as string[];
    expect(MAX_PUBLIC_NAMES).toBe(150);
    expect(lines.length).toBeLessThanOrEqual(MAX_PUBLIC_NAMES);
    const seen = new Map<unknown, string>();
    const visit = (name: string, v: unknown) => {
      if (typeof v !== 'function' && (typeof v !== 'object' || v === null)) return;
      expect(seen.get(v), `${name} is also ${seen.get(v)}`).toBeUndefined();
      seen.set(v, name);
    };
    for (const entry of entries) {
      const mod = (await import(entry.file)) as Record<string, unknown>;
      for (const [k, v] of Object.entries(mod)) {
        if (Object.prototype.toString.call(v) === '[object Module]')
          for (const [inner, w] of Object.entries(v as object)) visit(`${entry.name}:${k}.${inner}`, w);
        else visit(`${entry.name}:${k}`, v);
      }
    }
    expect(seen.size).toBeGreaterThan(lines.length);
  });
});
