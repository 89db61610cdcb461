import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, type CliResult } from './inProcess.js';
import { removeStaleTemporaries, temporaryPathFor, writeFileAtomicSync } from '../../src/util/atomicWrite.js';
import { reportJson } from '../../src/report/json.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scenario = join(root, 'examples/scenario');
const samples = join(
  root,
  'examples/samples',
  readdirSync(join(root, 'examples/samples')).find((f) => f.endsWith('.jsonl'))!,
);
const work = mkdtempSync(join(tmpdir(), 'ordergap-hardening-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Exit 2, one line naming `flag`, no stack, nothing on stdout. */
function refused(r: CliResult, flag: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(
    typeof flag === 'string' ? new RegExp(`^ordergap: error: ${flag.replace(/[.[\]]/g, '\\$&')}`) : flag,
  );
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

function graphWithClaims(claims: number): string {
  const g = JSON.parse(readFileSync(join(scenario, 'graph.json'), 'utf8')) as { capacities: { claims: number } };
  g.capacities.claims = claims;
  const file = join(work, `graph-${claims}.json`);
  writeFileSync(file, JSON.stringify(g));
  return file;
}

describe('sizes from input are checked before allocation', () => {
  it('capacities.claims = 30000 (d = 2.7e9: 20 GiB per state) is refused naming graph.capacities, not a V8 abort', async () => {
    const r = await cli('run', '--graph', graphWithClaims(30000), '--evidence', join(scenario, 'evidence.json'));
    refused(r, 'graph.capacities');
    expect(r.stderr).toMatch(/Nmax = 30008, k = 4: d = 2701590232.*GiB/);
    // docs/cli.md shows this very message as its example of a refused size
    const docs = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
    expect(docs).toContain('```\n' + r.stderr.trimEnd() + '\n```');
    expect(r.rssGrowth).toBeLessThan(200 * 2 ** 20);
  });

  it('capacities.claims = 100000 names graph.capacities instead of "Invalid typed array length"', async () => {
    const r = await cli('run', '--graph', graphWithClaims(100000), '--evidence', join(scenario, 'evidence.json'));
    refused(r, 'graph.capacities');
    expect(r.stderr).toMatch(/2\^32 a typed array can hold/);
    expect(r.stderr).not.toMatch(/Invalid typed array length/);
  });

  it('the machine limit (ORDERGAP_MEMORY_LIMIT here) refuses what fits wasm32 but not the machine', async () => {
    // claims = 2000: d = 5·2008 + 3·2008² = 12 106 232, 12 states of 8d bytes ≈ 1.08 GiB on the host
    process.env['ORDERGAP_MEMORY_LIMIT'] = String(512 * 2 ** 20);
    try {
      const r = await cli('certify', '--graph', graphWithClaims(2000), '--evidence', join(scenario, 'evidence.json'));
      refused(r, 'graph.capacities');
      expect(r.stderr).toMatch(/more than ORDERGAP_MEMORY_LIMIT \(512 MiB\)/);
    } finally {
      delete process.env['ORDERGAP_MEMORY_LIMIT'];
    }
  });

  it('certify --graph "" no longer certifies the default scenario instead (found by the fuzz)', async () => {
    refused(await cli('certify', '--graph', '', '--evidence', join(scenario, 'evidence.json')), '--graph');
    refused(await cli('compare', '--samples', ' '), '--samples');
  });

  it('--samples /dev/zero and --system /dev/zero are refused at once (they read for 13 s / forever before)', async () => {
    refused(await cli('compare', '--samples', '/dev/zero'), 'samples');
    refused(await cli('certify', '--system', '/dev/zero'), 'file');
  });

  it('compare --repeats 1e8 (60 items × 10 rules: 56 TiB of per-unit records) is refused naming --repeats before replaying', async () => {
    const r = await cli('compare', '--samples', samples, '--repeats', '100000000');
    refused(r, '--repeats');
    expect(r.stderr).toMatch(/60 items × 100000000 repeats × 10 rules.*TiB/);
    expect(r.ms).toBeLessThan(5000);
  });

  it('an empty file, a folder or a device (/dev/zero, which never ends) as --graph is one line naming it', async () => {
    const empty = join(work, 'empty.json');
    writeFileSync(empty, '');
    for (const g of [empty, work, '/dev/zero']) {
      const r = await cli('run', '--graph', g, '--evidence', join(scenario, 'evidence.json'));
      refused(r, '--graph');
    }
  });
});

describe('output destinations are checked before any work', () => {
  it('certify --report EXISTING_DIR fails before certifying, printing or writing plots', async () => {
    const dir = join(work, 'existing');
    mkdirSync(dir);
    const plots = join(work, 'certify-plots');
    const r = await cli('certify', '--system', 'closed-form', '--report', dir, '--plot', plots);
    refused(r, '--report');
    expect(r.stderr).toMatch(/is a folder/);
    expect(existsSync(plots)).toBe(false);
  });

  it('compare --plot DIR --record missing/x.json fails naming --record before the plot is written', async () => {
    const plots = join(work, 'compare-plots');
    const r = await cli('compare', '--samples', samples, '--plot', plots, '--record', join(work, 'missing/x.json'));
    refused(r, '--record');
    expect(r.stderr).toMatch(/does not exist/);
    expect(existsSync(plots)).toBe(false);
  });

  it('two outputs naming one file, and a blank output path, are refused before the work', async () => {
    const same = join(work, 'same.svg');
    const r = await cli('compare', '--samples', samples, '--plot', same, '--record', same);
    refused(r, '--record');
    expect(r.stderr).toMatch(/is the file --plot writes too/);
    expect(existsSync(same)).toBe(false);
    refused(await cli('run', '--record-states', ' '), /^ordergap: error: --record-states = " ": is blank/);
    refused(await cli('run', '--plot', ' '), /^ordergap: error: --plot = " ": is blank/);
  });

  it('run --plot /proc/nope returns at once with exit 2 (no recursive mkdir spin)', async () => {
    const r = await cli('run', '--plot', '/proc/nope/deeper');
    refused(r, '--plot');
    expect(r.ms).toBeLessThan(5000);
  });

  it('a --plot that is a symbolic link to nothing is refused before the run, and nothing is written', async () => {
    const dir = mkdtempSync(join(work, 'dangling-'));
    expect(spawnSync('ln', ['-s', join(dir, 'nowhere'), join(dir, 'plots')]).status).toBe(0);
    const states = join(dir, 'states.jsonl');
    refused(
      await cli('run', '--no-progress', '--record-states', states, '--plot', join(dir, 'plots')),
      /^ordergap: error: --plot = ".*": is a symbolic link to a path that does not exist/,
    );
    expect(readdirSync(dir)).toEqual(['plots']);
  });

  it('a --plot that is a file, and demo --plot under a file, are refused naming --plot', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    refused(await cli('run', '--plot', file), '--plot');
    refused(await cli('demo', '--plot', join(file, 'sub')), '--plot');
  });

  it('a temporary file left by a write killed with SIGKILL is removed by the next write to the target', async () => {
    const target = join(work, 'state.json');
    writeFileAtomicSync(target, 'old');
    // a child that has created its temporary file and is killed before the rename
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { writeFileSync } from 'node:fs';
         import { randomBytes } from 'node:crypto';
         import { basename, dirname, join } from 'node:path';
         const t = ${JSON.stringify(target)};
         writeFileSync(join(dirname(t), '.' + basename(t) + '.' + process.pid + '.' + randomBytes(6).toString('hex') + '.tmp'), 'half');
         process.stdout.write('written\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((res) => child.stdout!.once('data', () => res()));
    child.kill('SIGKILL');
    await new Promise<void>((res) => child.once('exit', () => res()));
    const leftovers = () => readdirSync(work).filter((f) => f.startsWith('.state.json.'));
    expect(leftovers()).toHaveLength(1);
    expect(readFileSync(target, 'utf8')).toBe('old');
    writeFileAtomicSync(target, 'new');
    expect(leftovers()).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  it("a live process's temporary file is left alone", () => {
    const target = join(work, 'live.json');
    const mine = temporaryPathFor(target);
    writeFileSync(mine, 'in progress');
    expect(removeStaleTemporaries(target)).toEqual([]);
    expect(existsSync(mine)).toBe(true);
  });
});

describe('user operator modules', () => {
  const mods = join(work, 'mods');
  mkdirSync(mods, { recursive: true });
  const base = `export const spec = { name: 'lin', dim: 2, consolidate: (t) => [0.5 * t[0], t[1]],
    expand: (e, t) => [t[0], 0.5 * t[1] + 0.5], evidence: [{ id: 'e', p: 1 }], theta0: [1, 1] };\n`;
  writeFileSync(join(mods, 'base.mjs'), base);
  const mod = (name: string, text: string) => {
    const file = join(mods, `${name}.mjs`);
    writeFileSync(file, text);
    return file;
  };
  const dist = join(root, 'dist/index.js');
  // module loading through Node's own loader: the built CLI (vitest's loader is not Node's)
  const built = (...args: string[]): CliResult => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), ...args], { encoding: 'utf8' });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0, rssGrowth: 0 };
  };

  it('export default defineSystem(...) is accepted', async () => {
    // the built library, as a user module imports it
    const file = mod(
      'defined',
      `import { defineSystem } from ${JSON.stringify(dist)};\nimport { spec } from './base.mjs';\nexport default defineSystem(spec);\n`,
    );
    const r = built('certify', '--system', file, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout).system)).toContain('lin');
  });

  it('a syntax error names the file, line and column', async () => {
    const file = mod('syntax', `export default {\n  name: 'x',\n  dim: = 2,\n};\n`);
    const r = built('certify', '--system', file);
    refused(r, 'file');
    expect(r.stderr).toContain(`has a syntax error at ${file}:3:8: Unexpected token '='`);
  });

  it('a module that throws while loading names the line', async () => {
    const file = mod('throws', `\nthrow new Error('no config');\n`);
    const r = built('certify', '--system', file);
    refused(r, 'file');
    expect(r.stderr).toContain(`failed to load: Error: no config (at ${file}:2:7)`);
  });

  it('async operators, out-of-range subspace indices and bad θ0: one line naming the field', async () => {
    const cases: Array<[string, string, string]> = [
      ['async', `export default { ...spec, consolidate: async (t) => t };`, 'system.consolidate'],
      ['promise', `export default { ...spec, expand: (e, t) => Promise.resolve(t) };`, 'system.expand'],
      ['subspace', `export default { ...spec, subspaces: { w: [0, 5] } };`, 'system.subspaces.w[1]'],
      ['theta0', `export default { ...spec, theta0: [1, NaN] };`, 'system.theta0[1]'],
      ['theta0len', `export default { ...spec, theta0: [1] };`, 'system.theta0'],
    ];
    for (const [name, body, field] of cases) {
      const r = await cli('certify', '--system', mod(name, `import { spec } from './base.mjs';\n${body}\n`));
      refused(r, field);
    }
  });

  it('an operator that throws during the work names the system, the operator and the line (exit 1)', async () => {
    const file = mod(
      'bug',
      `import { spec } from './base.mjs';\nlet n = 0;\nexport default { ...spec,\n  consolidate: (t) => { if (++n > 1) throw new TypeError('bad state'); return [0.5 * t[0], t[1]]; } };\n`,
    );
    const r = built('certify', '--system', file);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`lin: consolidate threw TypeError: bad state (at ${file}:4:`);
  });
});

describe('output', () => {
  it('demo --max-steps 10 counts the extra steps the budget run actually took', async () => {
    const r = await cli('demo', '--max-steps', '10', '--json');
    const doc = JSON.parse(r.stdout) as { budgetRun: { step: number }; orderGapStop: { step: number } };
    const text = (await cli('demo', '--max-steps', '10')).stdout;
    const extra = doc.budgetRun.step - doc.orderGapStop.step;
    expect(extra).toBeLessThan(10 - doc.orderGapStop.step); // the Sec. 9.2 sequence ends before Tmax
    expect(text).toContain(`(${extra} extra step(s) for this change)`);
  });

  it('a JSON syntax error in an input file is one line, its excerpt with the breaks written \\n', async () => {
    const file = join(work, 'broken.json');
    writeFileSync(file, '{\n"k": x\n}\n');
    refused(await cli('run', '--graph', file, '--evidence', join(scenario, 'evidence.json')), '--graph');
  });

  it('stdout that cannot be written (/dev/full) is one line and exit 1, not an unhandled error with a stack', () => {
    const bin = join(root, 'dist/cli/main.js');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" demo --json > /dev/full`], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('ordergap: error: cannot write the output to stdout (ENOSPC)\n');
  });

  it('--json spells non-finite numbers as strings and keeps null for "no value"', () => {
    const doc = JSON.parse(
      reportJson({ a: Infinity, b: -Infinity, c: NaN, d: null, e: Float64Array.of(1, Infinity), f: [NaN] }),
    );
    expect(doc).toEqual({ a: 'Infinity', b: '-Infinity', c: 'NaN', d: null, e: [1, 'Infinity'], f: ['NaN'] });
    expect(Number(doc.a)).toBe(Infinity);
  });
});
