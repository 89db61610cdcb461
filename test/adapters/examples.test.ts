import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The examples import the built package ('ordergap', 'ordergap/ai-sdk', 'ordergap/langgraph'): npm run build first.
const example = (name: string) => {
  const file = fileURLToPath(new URL(`../../examples/agents/${name}`, import.meta.url));
  return spawnSync(process.execPath, [file], { encoding: 'utf8' });
};
const stopLine = /stop: (order-gap|budget) at step (\d+) \(verdict (converged|blind|null)\)/;

describe('examples/agents run offline with the frameworks’ test models', () => {
  const ai = example('ai-sdk.mjs');
  const lg = example('langgraph.mjs');
  it('ai-sdk.mjs: exits 0 and prints the stop, each candidate stop and the answers', () => {
    expect(ai.status, ai.stderr).toBe(0);
    expect(ai.stdout).toMatch(stopLine);
    expect(ai.stdout).toMatch(/^SDK steps: \d+; .*; Ω̂ = \d\.\d{4}; tool errors: 0$/m);
    expect(ai.stdout).toMatch(/candidate stop: (converged|blind)/);
    expect(ai.stdout).toMatch(/q:author: /);
  });
  it('langgraph.mjs: exits 0; cut midway and resumed by a new graph from the checkpoint, it stops as the AI SDK loop', () => {
    expect(lg.status, lg.stderr).toBe(0);
    expect(lg.stdout).toMatch(/^cut by the recursion limit after [1-9]\d* evidence items; resumed by a new graph$/m);
    expect(lg.stdout.match(stopLine)!.slice(1)).toEqual(ai.stdout.match(stopLine)!.slice(1));
    expect(lg.stdout).toMatch(/Ω̂ = \d\.\d{4}$/m);
  });
});
