import { describe, expect, it } from 'vitest';
import { runScript } from '../util/builtCli.js';
// @ts-expect-error: a plain ES module script without declarations
import { regenerate } from '../../scripts/doc-samples.mjs';

// The sample outputs in README.md and docs/ are the built CLI's output (scripts/doc-samples.mjs).

describe('sample outputs in the docs', () => {
  it('every marked sample equals what the command prints (npm run docs:samples regenerates them)', () => {
    const r = runScript('doc-samples.mjs', '--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('a stale sample is found and rewritten; a marker without a block is an error', () => {
    const text = '<!-- sample: demo | from /^Algorithm 1 stops/ to /^Algorithm 1 stops/ -->\n```\nold\n```\n';
    const { text: fresh, stale } = regenerate(text) as { text: string; stale: string[] };
    expect(stale).toHaveLength(1);
    expect(fresh).toMatch(
      /^<!-- sample: demo .*-->\n```\nAlgorithm 1 stops at step 4: Ω̂ = 0\.0221 <= ε = 0\.025.*\n```\n$/,
    );
    expect(regenerate(fresh).stale).toEqual([]);
    expect(() => regenerate('<!-- sample: demo -->\ntext\n')).toThrow(/must be followed by a fenced block/);
  }, 60_000);
});
