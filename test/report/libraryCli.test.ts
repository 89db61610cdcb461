import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';
import { certify } from '../../src/certify/certify.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { certifyReport } from '../../src/report/certify.js';
import { demoReport } from '../../src/report/demo.js';
import { reportJson } from '../../src/report/json.js';
import { runReport } from '../../src/report/run.js';

// The real built CLI (npm install runs the build through `prepare`) against the library the
// package exports: the command prints the library's report, nothing computed on the side.
const example = fileURLToPath(new URL('../../examples/systems/linear.mjs', import.meta.url));
const cli = (...args: string[]): unknown => {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
};
/**
 * The library's report as the CLI encodes it; wall-clock timings are the one field allowed to
 * differ, and the command's report adds the environment they ran on (Node, kernel build).
 */
const doc = (report: unknown): unknown => JSON.parse(reportJson(report));
const withoutTimings = (d: unknown): unknown => {
  const { timings: _t, environment: _e, ...rest } = d as Record<string, unknown>;
  return rest;
};

describe('the library report equals the CLI --json document', () => {
  it('run and demo on their defaults', async () => {
    expect(cli('run')).toEqual(doc(await runReport()));
    expect(cli('demo')).toEqual(doc(demoReport()));
    expect(cli('demo', '--max-steps', '9', '--seed', '3')).toEqual(doc(demoReport({ maxSteps: 9, seed: 3 })));
  });

  it.each([
    ['the closed-form system', ['--system', 'closed-form'], { system: 'closed-form' }],
    ['an operator module', ['--system', example], { system: example }],
    [
      'the default scenario under another registered rule',
      ['--rule', 'confidence:threshold=0.7'],
      { rule: 'confidence:threshold=0.7' },
    ],
  ])('run: %s', async (_name, args, request) => {
    expect(cli('run', ...args)).toEqual(doc(await runReport(request)));
  });

  // Two default certifications in a row take about 6 s on an idle host; the timeout only guards
  // against a hang, so it leaves room for a host whose cores are shared with other work.
  const CERTIFY_PAIR_TIMEOUT_MS = 180_000;

  it.each([
    ['the reference graph (default scenario)', [], {}],
    ['the closed-form system', ['--system', 'closed-form'], { system: 'closed-form' }],
    ['an operator module', ['--system', example], { system: example }],
  ])(
    'certify: %s',
    async (_name, args, request) => {
      const fromCli = withoutTimings(cli('certify', ...args));
      const fromLibrary = withoutTimings(doc(await certifyReport(request)));
      expect(fromCli).toEqual(fromLibrary);
    },
    CERTIFY_PAIR_TIMEOUT_MS,
  );

  it(
    'certify(referenceGraphSystem()) with no options uses the graph policy the CLI uses',
    async () => {
      const lib = withoutTimings(doc(await certify(referenceGraphSystem()))) as Record<string, unknown>;
      const fromCli = withoutTimings(cli('certify')) as Record<string, unknown>;
      const { source: _s, ...rest } = fromCli;
      // the request-level report keeps θ* only for d <= 64; everything else is the same computation
      (rest['fixedPoint'] as Record<string, unknown>)['theta'] = (lib['fixedPoint'] as Record<string, unknown>)[
        'theta'
      ];
      expect(lib).toEqual(rest);
      const subspaces = (lib['subspaces'] as { name: string; nonDegenerate: boolean }[]).map((s) => s.name);
      expect(subspaces).toEqual(['confidence', 'footprint']);
      const blocks = lib['contraction'] as { subspace: string; verdict: string }[];
      expect(blocks.find((b) => b.subspace === 'confidence')?.verdict).toBe('proved');
    },
    CERTIFY_PAIR_TIMEOUT_MS,
  );
});
