import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';
import { ArgumentError, describeValue, MAX_SHOWN_EXCERPT, MAX_SHOWN_STRING } from '../../src/util/errors.js';

describe('describeValue shows paths whole', () => {
  it('a string up to MAX_SHOWN_STRING characters appears in full, JSON-quoted', () => {
    const s = '/a'.repeat(MAX_SHOWN_STRING / 2);
    expect(describeValue(s)).toBe(JSON.stringify(s));
    expect(new ArgumentError('--plot', s, 'x').message).toBe(`--plot = ${JSON.stringify(s)}: x`);
  });
  it('a longer string keeps its head and tail around "…" (bounded length)', () => {
    const s = 'h'.repeat(3000) + 'm'.repeat(100) + 't'.repeat(3000);
    const d = JSON.parse(describeValue(s)) as string;
    expect(d).toBe('h'.repeat(2000) + '…' + 't'.repeat(2000));
  });
});

describe('a value found inside an input is shown as a short excerpt', () => {
  it('an argument naming a position in an input (a line, a JSON path) shows MAX_SHOWN_EXCERPT characters and "…"', () => {
    const line = '{"question": "' + 'q'.repeat(4000) + '"}';
    for (const argument of ['samples.jsonl:3: line', 'graph.nodes[3].label', 'p[2]']) {
      const message = new ArgumentError(argument, line, 'is not valid JSON').message;
      expect(message).toBe(
        `${argument} = ${JSON.stringify(line.slice(0, MAX_SHOWN_EXCERPT) + '…')}: is not valid JSON`,
      );
    }
    expect(describeValue(line, { excerpt: true })).toBe(JSON.stringify(line.slice(0, MAX_SHOWN_EXCERPT) + '…'));
    // short values are shown whole either way
    expect(describeValue('abc', { excerpt: true })).toBe('"abc"');
    expect(new ArgumentError('graph.nodes[0].id', 'n0', 'x').message).toBe('graph.nodes[0].id = "n0": x');
  });
});

describe('a CLI error names a file in a deep folder by its whole path (built CLI)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ordergap-deep-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  it('certify --plot FILE in a folder 300+ characters deep prints the full path', () => {
    const deep = join(root, ...Array.from({ length: 12 }, (_, i) => `a-rather-long-folder-name-${i}`));
    mkdirSync(deep, { recursive: true });
    const file = join(deep, 'not-a-folder.txt');
    writeFileSync(file, 'x');
    expect(file.length).toBeGreaterThan(300);
    const r = spawnSync(process.execPath, [BIN, 'certify', '--plot', file], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`ordergap: error: --plot = ${JSON.stringify(file)}: exists and is not a folder`);
  });
});
